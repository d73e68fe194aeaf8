"""What the bridges read from clients, under hostile input: the AG-UI
``RunAgentInput`` an endpoint gets (``wire.bridges.agui.parse_run_input``) and
the UIMessage ``useChat`` posts back (``wire.bridges.vercel.approval_answers``).
Anything malformed is a wire error naming where; nothing else escapes."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wire.bridges.agui import RunInput, answered_ids, parse_run_input
from wire.bridges.vercel import approval_answers
from wire.errors import DecodeError, WireError

# -- AG-UI: RunAgentInput -------------------------------------------------------------------------

HOSTILE_BODIES = {
    "deep nesting": (b"[" * 100000, "$"),
    "deep nesting in an unread field": (b'{"state":' + b"[" * 100000, None),
    "resume not a list": (b'{"resume":5}', "$.resume"),
    "messages not a list": (b'{"messages":5}', "$.messages"),
    "interruptId not a str": (b'{"resume":[{"interruptId":[1]}]}', "$.resume[0].interruptId"),
    "toolCallId an object": (b'{"messages":[{"role":"tool","toolCallId":{"a":1}}]}', "$.messages[0].toolCallId"),
    "threadId an object": (b'{"threadId":{"a":1}}', "$.threadId"),
    "invalid UTF-8 in a string": (b'{"threadId":"\xff"}', None),
    "invalid UTF-8": (b"\xff\xfe", None),
    "not JSON": (b"{", None),
    "empty": (b"", None),
    "a message without a role": (b'{"messages":[{"content":"hi"}]}', "$.messages[0]"),
}


@pytest.mark.parametrize("name", list(HOSTILE_BODIES))
def test_a_hostile_run_input_is_a_decode_error_naming_where(name: str) -> None:
    body, path = HOSTILE_BODIES[name]
    with pytest.raises(DecodeError) as info:
        parse_run_input(body)
    if path is not None:
        assert info.value.path == path


def test_a_run_input_is_read_with_unknown_fields_and_answers_found() -> None:
    body = json.dumps({
        "threadId": "t1", "runId": "r1", "state": {"deep": [[[]]]}, "tools": [], "context": [],
        "forwardedProps": None, "parentRunId": "p",
        "messages": [{"id": "u", "role": "user", "content": "hi"},
                     {"id": "m", "role": "tool", "toolCallId": "c1", "content": "done"},
                     {"id": "a", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function"}]}],
        "resume": [{"interruptId": "c2.confirm", "status": "resolved", "payload": {"approved": True}}],
    }).encode()
    run_input = parse_run_input(body)
    assert (run_input.thread_id, run_input.run_id) == ("t1", "r1")
    assert run_input.resume is not None and run_input.resume[0].payload == {"approved": True}
    assert answered_ids(run_input) == {"c2.confirm"}  # the tool message is history: a message follows it
    assert answered_ids(parse_run_input(b'{"resume":null,"messages":null}')) == frozenset()
    assert answered_ids(RunInput()) == frozenset()


@given(st.binary(max_size=300))
def test_any_bytes_are_a_run_input_or_a_wire_error(body: bytes) -> None:
    with contextlib.suppress(WireError):
        assert isinstance(parse_run_input(body), RunInput)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                         st.sampled_from(["threadId", "runId", "messages", "resume", "role", "toolCallId",
                                          "interruptId", "payload", "status", "x"]), inner, max_size=4),
                     max_leaves=12)


@given(_json)
def test_any_json_value_is_a_run_input_or_a_decode_error(value: Any) -> None:
    try:
        run_input = parse_run_input(json.dumps(value).encode())
    except DecodeError as exc:
        assert exc.path is not None or exc.offset is not None or "UTF-8" in exc.reason or "deep" in exc.reason
        return
    assert all(isinstance(id, str) for id in answered_ids(run_input))


# -- Vercel: the UIMessage useChat posts back --------------------------------------------------------

HOSTILE_MESSAGES: dict[str, tuple[Any, str]] = {
    "an answer without a toolCallId": ({"parts": [{"type": "tool-x", "state": "approval-responded"}]},
                                       "$.parts[0].toolCallId"),
    "parts not a list": ({"parts": 5}, "$.parts"),
    "a part not an object": ({"parts": [5]}, "$.parts[0]"),
    "not an object": ([], "$"),
    "a list toolCallId": ({"parts": [{"type": "tool-x", "state": "approval-responded", "toolCallId": ["c"],
                                      "approval": {"id": "c.confirm", "approved": True}}]}, "$.parts[0].toolCallId"),
    "an answer without an approval": ({"parts": [{"type": "dynamic-tool", "state": "approval-responded",
                                                  "toolCallId": "c"}]}, "$.parts[0].approval"),
    "approved not a boolean": ({"parts": [{"type": "tool-x", "state": "approval-responded", "toolCallId": "c",
                                           "approval": {"approved": "yes"}}]}, "$.parts[0].approval.approved"),
}


@pytest.mark.parametrize("name", list(HOSTILE_MESSAGES))
def test_a_hostile_ui_message_is_a_decode_error_naming_where(name: str) -> None:
    message, path = HOSTILE_MESSAGES[name]
    with pytest.raises(DecodeError) as info:
        approval_answers(message)
    assert info.value.path == path


def test_parts_that_are_not_answers_are_skipped() -> None:
    message = {"id": "m", "role": "assistant", "parts": [
        {"type": "text", "text": "hi"},
        {"type": 7},
        {"type": "tool-rm", "state": "approval-requested", "toolCallId": ["not read"]},
        {"type": "tool-rm", "state": "approval-responded", "toolCallId": "c1",
         "approval": {"id": "c1.confirm", "approved": False}},
        {"type": "dynamic-tool", "state": "approval-responded", "toolCallId": "c2",
         "approval": {"id": "c2.confirm", "approved": True, "reason": "ok"}},
    ]}
    assert approval_answers(message) == {"c1": False, "c2": True}
    assert approval_answers({}) == {}


@given(_json)
def test_any_json_value_is_answers_or_a_decode_error(value: Any) -> None:
    for message in (value, {"parts": value}, {"parts": [value]},
                    {"parts": [{"type": "tool-x", "state": "approval-responded", "toolCallId": value,
                                "approval": value}]}):
        try:
            answers = approval_answers(message)
        except DecodeError as exc:
            assert exc.path is not None and exc.path.startswith("$")
            continue
        assert all(isinstance(k, str) and isinstance(v, bool) for k, v in answers.items())
