"""The 28 events: tags, fields, defaults and enum strings of agentscope 2.0.11
(``agentscope.event._event``), the records they carry, and their invariants."""

from __future__ import annotations

import json
import re
import typing
import warnings
from typing import Any

import msgspec
import pytest

import wire
from tests.helpers import GENERATED, REQUIRED, catalog_lines, check_fields, expect

ENVELOPE = [("id", GENERATED), ("created_at", GENERATED), ("metadata", {})]
R = ("reply_id", REQUIRED)
B = ("block_id", REQUIRED)
C = ("tool_call_id", REQUIRED)

# agentscope's event fields (agentscope.event._event), transcribed: the tag and the fields after the envelope.
EVENTS: dict[type[Any], tuple[str, list[tuple[str, Any]]]] = {
    wire.ReplyStartEvent: ("REPLY_START", [("session_id", REQUIRED), R, ("name", REQUIRED), ("role", "assistant")]),
    wire.ReplyEndEvent: ("REPLY_END", [("session_id", REQUIRED), R, ("finished_reason", "completed"),
                                       ("error", None)]),
    wire.ModelCallStartEvent: ("MODEL_CALL_START", [R, ("model_name", REQUIRED)]),
    wire.ModelCallEndEvent: ("MODEL_CALL_END", [R, ("input_tokens", REQUIRED), ("output_tokens", REQUIRED),
                                                ("cache_input_tokens", 0), ("cache_creation_input_tokens", 0),
                                                ("finished_reason", "completed")]),
    wire.TextBlockStartEvent: ("TEXT_BLOCK_START", [R, B]),
    wire.TextBlockDeltaEvent: ("TEXT_BLOCK_DELTA", [R, B, ("delta", REQUIRED)]),
    wire.TextBlockEndEvent: ("TEXT_BLOCK_END", [R, B, ("text", None)]),
    wire.DataBlockStartEvent: ("DATA_BLOCK_START", [R, B, ("media_type", REQUIRED), ("name", None)]),
    wire.DataBlockDeltaEvent: ("DATA_BLOCK_DELTA", [R, B, ("media_type", REQUIRED), ("data", None), ("url", None)]),
    wire.DataBlockEndEvent: ("DATA_BLOCK_END", [R, B]),
    wire.ThinkingBlockStartEvent: ("THINKING_BLOCK_START", [R, B]),
    wire.ThinkingBlockDeltaEvent: ("THINKING_BLOCK_DELTA", [R, B, ("delta", REQUIRED)]),
    wire.ThinkingBlockEndEvent: ("THINKING_BLOCK_END", [R, B]),
    wire.HintBlockEvent: ("HINT_BLOCK", [R, B, ("source", None), ("hint", REQUIRED)]),
    wire.ToolCallStartEvent: ("TOOL_CALL_START", [R, C, ("tool_call_name", REQUIRED)]),
    wire.ToolCallDeltaEvent: ("TOOL_CALL_DELTA", [R, C, ("delta", REQUIRED)]),
    wire.ToolCallEndEvent: ("TOOL_CALL_END", [R, C]),
    wire.ToolResultStartEvent: ("TOOL_RESULT_START", [R, C, ("tool_call_name", REQUIRED)]),
    wire.ToolResultTextDeltaEvent: ("TOOL_RESULT_TEXT_DELTA", [R, C, ("delta", REQUIRED)]),
    wire.ToolResultDataDeltaEvent: ("TOOL_RESULT_DATA_DELTA", [R, C, ("block_id", GENERATED),
                                                               ("media_type", REQUIRED), ("data", None),
                                                               ("url", None)]),
    wire.ToolResultEndEvent: ("TOOL_RESULT_END", [R, C, ("state", REQUIRED)]),
    wire.ExceedMaxItersEvent: ("EXCEED_MAX_ITERS", [R, ("name", REQUIRED)]),
    wire.RequireUserConfirmEvent: ("REQUIRE_USER_CONFIRM", [R, ("tool_calls", REQUIRED)]),
    wire.RequireExternalExecutionEvent: ("REQUIRE_EXTERNAL_EXECUTION", [R, ("tool_calls", REQUIRED)]),
    wire.UserConfirmResultEvent: ("USER_CONFIRM_RESULT", [R, ("confirm_results", REQUIRED)]),
    wire.UserInterruptEvent: ("USER_INTERRUPT", [R]),
    wire.ExternalExecutionResultEvent: ("EXTERNAL_EXECUTION_RESULT", [R, ("execution_results", REQUIRED)]),
    wire.CustomEvent: ("CUSTOM", [("name", REQUIRED), ("value", {})]),
}

EVENT_TYPE_VALUES = [
    "REPLY_START", "REPLY_END", "MODEL_CALL_START", "MODEL_CALL_END", "TEXT_BLOCK_START", "TEXT_BLOCK_DELTA",
    "TEXT_BLOCK_END", "DATA_BLOCK_START", "DATA_BLOCK_DELTA", "DATA_BLOCK_END", "THINKING_BLOCK_START",
    "THINKING_BLOCK_DELTA", "THINKING_BLOCK_END", "HINT_BLOCK", "TOOL_CALL_START", "TOOL_CALL_DELTA",
    "TOOL_CALL_END", "TOOL_RESULT_START", "TOOL_RESULT_TEXT_DELTA", "TOOL_RESULT_DATA_DELTA", "TOOL_RESULT_END",
    "EXCEED_MAX_ITERS", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION", "USER_CONFIRM_RESULT",
    "USER_INTERRUPT", "EXTERNAL_EXECUTION_RESULT", "CUSTOM",
]


def test_there_are_28_event_types_each_with_one_class() -> None:
    assert len(EVENT_TYPE_VALUES) == 28
    assert {m.value for m in wire.EventType} == set(EVENT_TYPE_VALUES)
    assert all(m.name == m.value for m in wire.EventType)
    classes = wire.AgentEvent.__args__
    assert set(classes) == set(EVENTS)
    assert sorted(c.__struct_config__.tag for c in classes) == sorted(EVENT_TYPE_VALUES)


@pytest.mark.parametrize("cls", list(EVENTS), ids=lambda c: c.__name__)
def test_event_fields_and_defaults_are_the_references(cls: type[Any]) -> None:
    check_fields(cls, ENVELOPE + EVENTS[cls][1])


@pytest.mark.parametrize("cls", list(EVENTS), ids=lambda c: c.__name__)
def test_event_tags_are_the_references(cls: type[Any]) -> None:
    tag = EVENTS[cls][0]
    assert cls.__struct_config__.tag_field == "type" and cls.__struct_config__.tag == tag
    line = next(line for line in catalog_lines() if json.loads(line)["type"] == tag)
    event = wire.json.decode_event(line)
    assert type(event) is cls
    assert event.type is wire.EventType(tag) and event.type == tag  # a StrEnum member, equal to its string


@pytest.mark.parametrize(("enum", "values"), [
    (wire.ReplyFinishedReason, {"completed", "interrupted", "exceed_max_iters", "error"}),
    (wire.FinishedReason, {"interrupted", "completed"}),
    (wire.ErrorType, {"authentication", "permission", "rate_limit", "invalid_request", "upstream", "connection",
                      "internal", "setup", "unknown"}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_event_enum_strings(enum: Any, values: set[str]) -> None:
    assert {m.value for m in enum} == values


def test_roles() -> None:
    assert set(typing.get_args(wire.Role)) == {"user", "assistant", "system"}


def test_records_carried_by_events() -> None:
    check_fields(wire.Usage, [("input_tokens", REQUIRED), ("output_tokens", REQUIRED), ("cache_input_tokens", 0),
                              ("cache_creation_input_tokens", 0)])
    check_fields(wire.ErrorInfo, [("type", "unknown"), ("message", REQUIRED)])
    check_fields(wire.ConfirmResult, [("confirmed", REQUIRED), ("tool_call", REQUIRED), ("rules", None)])


# -- invariants -------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [wire.DataBlockDeltaEvent, wire.ToolResultDataDeltaEvent], ids=lambda c: c.__name__)
def test_a_data_chunk_has_exactly_one_of_data_and_url(cls: type[Any]) -> None:
    base: dict[str, Any] = {"reply_id": "r", "media_type": "x",
                            **({"block_id": "b"} if cls is wire.DataBlockDeltaEvent else {"tool_call_id": "c"})}
    for bad in ({}, {"data": b"\x00", "url": "https://e.com"}):
        with pytest.raises(ValueError, match="Exactly one of `data` or `url`"):
            cls(**base, **bad)
        as_json = {k: v if k == "url" else "AA==" for k, v in bad.items()}
        payload = {"type": cls.__struct_config__.tag, **base, **as_json}
        with pytest.raises(wire.DecodeError, match="Exactly one of `data` or `url`") as info:
            wire.json.decode_event(json.dumps(payload).encode())
        assert info.value.path == "$"
    # empty values are values: agentscope's validator tests `is None` too
    assert cls(**base, url="").url == ""
    assert cls(**base, data=b"").data == b""


def test_a_tool_result_chunk_without_block_id_gets_a_fresh_one() -> None:
    line = b'{"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c","media_type":"x","data":"AA=="}'
    a, b = (expect(wire.ToolResultDataDeltaEvent, wire.json.decode_event(line)) for _ in range(2))
    assert re.fullmatch(r"[0-9a-f]{32}", a.block_id) and a.block_id != b.block_id
    assert json.loads(wire.json.encode(a))["block_id"] == a.block_id


def test_events_are_frozen_and_do_not_share_metadata() -> None:
    a = wire.UserInterruptEvent(reply_id="r")
    b = wire.UserInterruptEvent(reply_id="r")
    with pytest.raises(AttributeError):
        a.reply_id = "other"  # type: ignore[misc]
    a.metadata["k"] = 1
    assert b.metadata == {}


def test_tool_result_end_metadata_is_the_envelope_metadata() -> None:
    line = next(line for line in catalog_lines() if b'"TOOL_RESULT_END"' in line)
    event = wire.json.decode_event(line)
    assert isinstance(event, wire.ToolResultEndEvent)
    assert event.metadata == {"exit_code": 0} and event.state is wire.ToolResultState.SUCCESS
    assert [f.name for f in msgspec.structs.fields(event)].count("metadata") == 1


def test_a_custom_event_has_no_reply_id_and_an_empty_value_by_default() -> None:
    event = wire.json.decode_event(b'{"type":"CUSTOM","name":"mcp_progress"}')
    assert isinstance(event, wire.CustomEvent) and event.value == {}
    assert not hasattr(event, "reply_id")


def test_exceed_max_iters_decodes_without_a_deprecation_warning() -> None:
    """agentscope warns on every parse; wire decodes the event quietly (it is
    still sent for older front ends)."""
    line = next(line for line in catalog_lines() if b'"EXCEED_MAX_ITERS"' in line)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        event = wire.json.decode_event(line)
        wire.json.encode(event)
    assert caught == [] and isinstance(event, wire.ExceedMaxItersEvent)


def test_events_carry_blocks_and_records() -> None:
    confirm = next(line for line in catalog_lines() if b'"USER_CONFIRM_RESULT"' in line)
    event = wire.json.decode_event(confirm)
    assert isinstance(event, wire.UserConfirmResultEvent)
    assert all(isinstance(r, wire.ConfirmResult) and isinstance(r.tool_call, wire.ToolCallBlock)
               for r in event.confirm_results)
    end = wire.json.decode_event(next(line for line in catalog_lines() if b'"error":{' in line))
    assert isinstance(end, wire.ReplyEndEvent)
    assert end.error == wire.ErrorInfo(type=wire.ErrorType.CONNECTION, message="timeout")
    assert end.finished_reason is wire.ReplyFinishedReason.ERROR


@pytest.mark.parametrize("text", [
    '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1,"output_tokens":1,"finished_reason":"error"}',
    '{"type":"REPLY_START","reply_id":"r","session_id":"s","name":"n","role":"tool"}',
    '{"type":"HINT_BLOCK","reply_id":"r","block_id":"b","hint":[{"type":"tool_call","id":"c","name":"n",'
    '"input":""}]}',
    '{"type":"text_block_delta","reply_id":"r","block_id":"b","delta":"x"}',
], ids=["model finish reason", "role", "hint block type", "lower-case tag"])
def test_values_outside_the_reference_are_rejected(text: str) -> None:
    with pytest.raises(wire.DecodeError):
        wire.json.decode_event(text.encode())
