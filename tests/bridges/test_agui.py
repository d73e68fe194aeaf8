"""The AG-UI bridge, judged by the real client.

Every shared vector (and random well-formed replies, and hand-made edge
streams) is converted by ``wire.bridges.agui``, then the unmodified
``@ag-ui/client`` 1.0.0 ``HttpAgent.runAgent`` reads the bytes through an
injected fetch (``tests/clients-agui/run-client.mjs``), and what it built is
compared block by block with the Msg agentscope builds (the vector's
``expected_msg.json``, or wire's reducer, which the conformance tests hold to
agentscope). The comparison is relaxed only where ``wire/bridges/README.md``
("AG-UI", "Lossy spots") says AG-UI cannot carry the Msg; each relaxation
below names its spot.

The encoder tests check byte equality with ``@ag-ui/encoder``'s
``EventEncoder``: node re-encodes every frame wire wrote and must get the same
bytes back.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.bridges.agui_client import (
    custom_mismatches,
    mismatches,
    needs_client,
    node_reencode,
    run_client,
)
from tests.helpers import CASES, Case, initial_msg
from tests.strategies import reply_streams
from wire.bridges.agui import (
    INCOMPLETE_CODE,
    AGUIBridge,
    encode_sse,
    encode_sse_batch,
    encode_sse_into,
    to_agui,
    to_agui_sse,
)

# -- the shared vectors through the real client -------------------------------------------------


@needs_client
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_real_client_builds_each_vectors_msg(case: Case, tmp_path: Path) -> None:
    events = wire.json.decode_events(case.events_jsonl)
    report = run_client(to_agui_sse(events), tmp_path)
    expected = wire.json.decode_msg(case.expected_msg)
    assert mismatches(expected, report) == []
    assert custom_mismatches(events, report) == []


@needs_client
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=reply_streams(), chunk=st.integers(1, 200))
def test_the_real_client_builds_random_replies(events: list[wire.AgentEvent], chunk: int, tmp_path: Path) -> None:
    msg = initial_msg().extend_events(events)
    report = run_client(to_agui_sse(events), tmp_path, chunk=chunk)
    assert mismatches(msg, report) == []


def _stream(*specs: tuple[str, dict[str, Any]], reply: str = "r1") -> list[wire.AgentEvent]:
    return [getattr(wire, cls)(id=f"e{i}", created_at=f"2026-01-01T00:00:00.{i:06d}",
                               **({} if cls == "CustomEvent" else {"reply_id": reply}), **fields)
            for i, (cls, fields) in enumerate(specs)]


EDGE_STREAMS = {
    "deltas after END re-open the message, the call": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("TextBlockDeltaEvent", {"block_id": "t1", "delta": "Hel"}),
        ("TextBlockEndEvent", {"block_id": "t1"}),
        ("TextBlockDeltaEvent", {"block_id": "t1", "delta": "lo"}),
        ("ThinkingBlockStartEvent", {"block_id": "k1"}),
        ("ThinkingBlockEndEvent", {"block_id": "k1"}),
        ("ThinkingBlockDeltaEvent", {"block_id": "k1", "delta": "late"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolCallDeltaEvent", {"tool_call_id": "c1", "delta": '{"a": '}),
        ("ToolCallEndEvent", {"tool_call_id": "c1"}),
        ("ToolCallDeltaEvent", {"tool_call_id": "c1", "delta": "1}"}),
        ("ReplyEndEvent", {"session_id": "s"})),
    "duplicate STARTs and unknown ids are dropped": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("TextBlockDeltaEvent", {"block_id": "nope", "delta": "x"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("TextBlockDeltaEvent", {"block_id": "t1", "delta": "once"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultTextDeltaEvent", {"tool_call_id": "c1", "delta": "no start"}),
        ("ToolResultEndEvent", {"tool_call_id": "c9", "state": "success"}),
        ("ReplyEndEvent", {"session_id": "s"})),
    "END text extends, or replaces": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("TextBlockDeltaEvent", {"block_id": "t1", "delta": "Hel"}),
        ("TextBlockEndEvent", {"block_id": "t1", "text": "Hello"}),
        ("TextBlockStartEvent", {"block_id": "t2"}),
        ("TextBlockDeltaEvent", {"block_id": "t2", "delta": "draft"}),
        ("TextBlockEndEvent", {"block_id": "t2", "text": "final"}),
        ("ReplyEndEvent", {"session_id": "s", "finished_reason": "exceed_max_iters"})),
    "interrupted with everything open": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ModelCallStartEvent", {"model_name": "m"}),
        ("ThinkingBlockStartEvent", {"block_id": "k1"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("DataBlockStartEvent", {"block_id": "d1", "media_type": "image/png", "name": "a.png"}),
        ("UserInterruptEvent", {}),
        ("ReplyEndEvent", {"session_id": "s", "finished_reason": "interrupted"})),
    "confirm denied, then a result with data and a URL": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ModelCallStartEvent", {"model_name": "m"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolCallDeltaEvent", {"tool_call_id": "c1", "delta": '{"cmd": "ls"}'}),
        ("ToolCallEndEvent", {"tool_call_id": "c1"}),
        ("ModelCallEndEvent", {"input_tokens": 3, "output_tokens": 4}),
        ("RequireUserConfirmEvent", {"tool_calls": [wire.ToolCallBlock(id="c1", name="Bash", input='{"cmd": "ls"}',
                                                                       state=wire.ToolCallState.ASKING)]}),
        ("CustomEvent", {"name": "between", "value": {"x": 1.5}}),
        ("UserConfirmResultEvent", {"confirm_results": [wire.ConfirmResult(
            confirmed=False, tool_call=wire.ToolCallBlock(id="c1", name="Bash", input='{"cmd": "ls -l"}'))]}),
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ToolResultStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultDataDeltaEvent", {"tool_call_id": "c1", "block_id": "img", "media_type": "image/png",
                                      "data": b"\x89PNG"}),
        ("ToolResultDataDeltaEvent", {"tool_call_id": "c1", "block_id": "img", "media_type": "image/png",
                                      "data": b"rest"}),
        ("ToolResultDataDeltaEvent", {"tool_call_id": "c1", "block_id": "doc", "media_type": "application/pdf",
                                      "url": "HTTPS://Example.COM:443/a b.pdf"}),
        ("ToolResultTextDeltaEvent", {"tool_call_id": "c1", "delta": "denied"}),
        ("ToolResultEndEvent", {"tool_call_id": "c1", "state": "denied", "metadata": {"why": None}}),
        ("ExceedMaxItersEvent", {"name": "Friday"}),
        ("ReplyEndEvent", {"session_id": "s"})),
    "parked for confirmation, never continued": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolCallEndEvent", {"tool_call_id": "c1"}),
        ("RequireUserConfirmEvent", {"tool_calls": [wire.ToolCallBlock(id="c1", name="Bash", input="")]})),
    "steps left open, late data, a park between runs": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("ModelCallStartEvent", {"model_name": "m1"}),
        ("ModelCallStartEvent", {"model_name": "m2"}),
        ("DataBlockStartEvent", {"block_id": "d1", "media_type": "audio/mpeg"}),
        ("DataBlockDeltaEvent", {"block_id": "d1", "media_type": "audio/mpeg", "data": b"ID3"}),
        ("DataBlockEndEvent", {"block_id": "d1"}),
        ("DataBlockDeltaEvent", {"block_id": "d1", "media_type": "audio/mpeg", "data": b"late"}),
        ("DataBlockEndEvent", {"block_id": "d1"}),
        ("DataBlockDeltaEvent", {"block_id": "d9", "media_type": "audio/mpeg", "data": b"unknown"}),
        ("ThinkingBlockDeltaEvent", {"block_id": "k9", "delta": "unknown"}),
        ("TextBlockEndEvent", {"block_id": "t9", "text": "unknown"}),
        ("ToolCallDeltaEvent", {"tool_call_id": "c9", "delta": "{}"}),
        ("ToolCallStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultStartEvent", {"tool_call_id": "c1", "tool_call_name": "Bash"}),
        ("ToolResultTextDeltaEvent", {"tool_call_id": "c1", "delta": "ok"}),
        ("ToolResultEndEvent", {"tool_call_id": "c1", "state": "success"}),
        ("ModelCallEndEvent", {"input_tokens": 5, "output_tokens": 6, "cache_input_tokens": 1}),
        ("RequireUserConfirmEvent", {"tool_calls": []}),
        ("RequireExternalExecutionEvent", {"tool_calls": [wire.ToolCallBlock(id="c1", name="Bash", input="")]}),
        ("ModelCallStartEvent", {"model_name": "m3"}),
        ("ModelCallEndEvent", {"input_tokens": 7, "output_tokens": 8}),
        ("RequireExternalExecutionEvent", {"tool_calls": [wire.ToolCallBlock(id="c7", name="Ext", input="")]}),
        ("ReplyEndEvent", {"session_id": "s"})),
    "stream cut mid-reply": _stream(
        ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}),
        ("TextBlockStartEvent", {"block_id": "t1"}),
        ("TextBlockDeltaEvent", {"block_id": "t1", "delta": "Hi"})),
}


@needs_client
@pytest.mark.parametrize("name", list(EDGE_STREAMS))
def test_the_real_client_builds_edge_streams(name: str, tmp_path: Path) -> None:
    events = EDGE_STREAMS[name]
    msg = wire.AssistantMsg("Friday", [], id="r1").extend_events(events)
    report = run_client(to_agui_sse(events), tmp_path)
    assert mismatches(msg, report) == []
    assert custom_mismatches(events, report) == []


@needs_client
def test_a_denied_confirmation_resumes_with_its_answer(tmp_path: Path) -> None:
    events = EDGE_STREAMS["confirm denied, then a result with data and a URL"]
    out = to_agui(events)
    started = [e for e in out if e["type"] == "RUN_STARTED"]
    assert [e["runId"] for e in started] == ["r1", "r1.1"]
    assert started[1]["input"]["resume"] == [{"interruptId": "c1.confirm", "status": "resolved",
                                              "payload": {"approved": False, "editedArgs": {"cmd": "ls -l"}}}]
    report = run_client(encode_sse_batch(out), tmp_path)
    assert [r.get("error") for r in report["runs"]] == [None, None]
    assert report["runs"][0]["outcome"]["interrupts"][0]["toolCallId"] == "c1"
    assert report["runs"][1]["pendingInterrupts"] == []


@needs_client
def test_an_unanswered_interrupt_is_cancelled_by_the_continuation(tmp_path: Path) -> None:
    events = EDGE_STREAMS["parked for confirmation, never continued"] + _stream(
        ("ReplyEndEvent", {"session_id": "s", "finished_reason": "interrupted"}))[:1]
    out = to_agui(events)
    assert out[-2]["type"] == "RUN_STARTED"
    assert out[-2]["input"]["resume"] == [{"interruptId": "c1.confirm", "status": "cancelled"}]
    report = run_client(encode_sse_batch(out), tmp_path)
    assert [r.get("error") for r in report["runs"]] == [None, None]
    assert report["runs"][1]["outcome"] == {"type": "cancelled"}


@needs_client
def test_the_workload_reply(tmp_path: Path) -> None:
    from benchmarks.workload import initial_msg as workload_msg
    from benchmarks.workload import reply_events

    events = reply_events(seed=3, scale=0.02)
    report = run_client(to_agui_sse(events), tmp_path, chunk=4096)
    assert mismatches(workload_msg().extend_events(events), report) == []


# -- the bytes, against @ag-ui/encoder -----------------------------------------------------------


@needs_client
def test_every_vectors_bytes_are_what_ag_ui_encoder_writes(tmp_path: Path) -> None:
    body = b"".join(to_agui_sse(wire.json.decode_events(case.events_jsonl)) for case in CASES)
    assert node_reencode(body, tmp_path) == body


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@needs_client
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.tuples(st.text(), json_values), min_size=1, max_size=30))
def test_free_form_values_are_written_as_ag_ui_encoder_writes_them(values: list[tuple[str, Any]],
                                                                    tmp_path: Path) -> None:
    bridge = AGUIBridge(reply_id="r1")
    out = bridge.feed(wire.ReplyStartEvent(session_id="s", reply_id="r1", name="n"))
    out += bridge.feed(wire.TextBlockStartEvent(reply_id="r1", block_id="t"))
    for text, value in values:
        out += bridge.feed(wire.TextBlockDeltaEvent(reply_id="r1", block_id="t", delta=text))
        out += bridge.feed(wire.CustomEvent(name=text, value={"v": value}))
    body = encode_sse_batch(out)
    assert node_reencode(body, tmp_path) == body
    # And the round trip: what JavaScript reads back is the value itself.
    frames = [json.loads(frame[len(b"data: "):]) for frame in body.split(b"\n\n") if frame]
    assert [_numbers_as_floats(f["value"]["v"]) for f in frames if f["type"] == "CUSTOM"] == \
        [_numbers_as_floats(v) for _, v in values]


def _numbers_as_floats(value: Any) -> Any:
    """JavaScript has one number type: 1.0 reads back as 1, 4.6e16 as an integer."""
    if isinstance(value, dict):
        return {k: _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_as_floats(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


# -- the bridge itself, without the client -------------------------------------------------------


def test_events_of_another_reply_are_dropped() -> None:
    bridge = AGUIBridge()
    bridge.feed(wire.ReplyStartEvent(session_id="s", reply_id="r1", name="n"))
    assert bridge.feed(wire.TextBlockStartEvent(reply_id="r2", block_id="t")) == []
    assert bridge.feed(wire.CustomEvent(name="c"))[0] == {"type": "CUSTOM", "name": "c", "value": {}}


def test_a_capture_with_two_replies_gives_two_runs_in_turn() -> None:
    first = _stream(("ReplyStartEvent", {"session_id": "s", "name": "A"}),
                    ("TextBlockStartEvent", {"block_id": "a"}), reply="r1")
    second = _stream(("ReplyStartEvent", {"session_id": "s", "name": "B"}),
                     ("TextBlockStartEvent", {"block_id": "b"}),
                     ("ReplyEndEvent", {"session_id": "s"}), reply="r2")
    custom = wire.CustomEvent(name="early")
    interleaved = [custom, first[0], second[0], first[1], second[1], custom, second[2]]
    types = [(e["type"], e.get("runId") or e.get("messageId") or e.get("name"))
             for e in to_agui(interleaved)]
    assert types == [("RUN_STARTED", "r1"), ("CUSTOM", "early"), ("TEXT_MESSAGE_START", "a"),
                     ("TEXT_MESSAGE_END", "a"),
                     ("RUN_ERROR", None), ("RUN_STARTED", "r2"), ("TEXT_MESSAGE_START", "b"),
                     ("CUSTOM", "early"), ("TEXT_MESSAGE_END", "b"), ("RUN_FINISHED", "r2")]


@pytest.mark.parametrize(("value", "written"), [
    (float("nan"), b"null"), (float("inf"), b"null"), (-0.0, b"0"), (1.0, b"1"), (1e-7, b"1e-7"),
    (1e16, b"10000000000000000"), (1e21, b"1e+21"), (0.000001, b"0.000001"), (-2.5, b"-2.5"),
    (123e-20, b"1.23e-18"), (5e-324, b"5e-324")])
def test_numbers_are_written_as_javascript_writes_them(value: float, written: bytes) -> None:
    frame = encode_sse({"type": "CUSTOM", "name": "n", "value": {"x": value, "1": 0, "b": 1, "0": 2}})
    assert frame == b'data: {"type":"CUSTOM","name":"n","value":{"0":2,"1":0,"x":' + written + b',"b":1}}\n\n'


def test_a_result_is_sent_once() -> None:
    """A second TOOL_RESULT_END (agentscope applies its state again) is a lossy spot: the
    client does not deduplicate tool messages, so only the first END's result goes out."""
    events = _stream(("ReplyStartEvent", {"session_id": "s", "name": "n"}),
                     ("ToolResultStartEvent", {"tool_call_id": "c", "tool_call_name": "t"}),
                     ("ToolResultEndEvent", {"tool_call_id": "c", "state": "success"}),
                     ("ToolResultEndEvent", {"tool_call_id": "c", "state": "error"}))
    results = [e for e in to_agui(events) if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["metadata"]["agentscope"]["state"] for r in results] == ["success"]


def test_a_confirmation_of_input_that_is_not_json_has_no_edited_args() -> None:
    bridge = AGUIBridge(reply_id="r1")
    bridge.feed(wire.ReplyStartEvent(session_id="s", reply_id="r1", name="n"))
    bridge.feed(wire.ToolCallStartEvent(reply_id="r1", tool_call_id="c", tool_call_name="t"))
    bridge.feed(wire.RequireUserConfirmEvent(reply_id="r1", tool_calls=[wire.ToolCallBlock(id="c", name="t",
                                                                                             input="{")]))
    bridge.feed(wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[wire.ConfirmResult(
        confirmed=True, tool_call=wire.ToolCallBlock(id="c", name="t", input="{"))]))
    started = bridge.feed(wire.ReplyStartEvent(session_id="s", reply_id="r1", name="n"))[0]
    assert started["input"]["resume"] == [{"interruptId": "c.confirm", "status": "resolved",
                                           "payload": {"approved": True}}]


def test_unknown_events_pass_as_raw() -> None:
    from wire.framing import NDJSONDecoder

    [unknown] = NDJSONDecoder(unknown="keep").feed(b'{"type":"FUTURE_EVENT","x":1.0}\n')
    bridge = AGUIBridge(reply_id="r1")
    assert bridge.feed(unknown) == []  # held: no run is open yet
    started = bridge.feed(wire.ReplyStartEvent(session_id="s", reply_id="r1", name="n"))
    assert [e["type"] for e in started] == ["RUN_STARTED", "RAW"]
    assert encode_sse(started[1]) == \
        b'data: {"type":"RAW","event":{"type":"FUTURE_EVENT","x":1},"source":"agentscope"}\n\n'


def test_no_optional_field_is_ever_null() -> None:
    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                assert item is not None or key in ("value", "v", "why"), key
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for events in EDGE_STREAMS.values():
        for event in to_agui(events):
            walk({k: v for k, v in event.items() if k not in ("value", "metadata")})


def test_import_wire_does_not_import_the_bridges() -> None:
    import sys

    code = "import sys, wire; print(sorted(m for m in sys.modules if m.startswith('wire.bridges')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["wire.bridges.agui", "wire.bridges.agui_http"])
def test_every_name_in_all_exists(module: str) -> None:
    import importlib

    loaded = importlib.import_module(module)
    assert [name for name in loaded.__all__ if not hasattr(loaded, name)] == []


def test_cli_convert_to_ag_ui(tmp_path: Path) -> None:
    from wire.cli import main

    case = next(c for c in CASES if c.name == "full_reply_all_events")
    for source in ("events.jsonl", "events.sse"):
        if not (case.path / source).exists():
            continue
        out = tmp_path / "out.sse"
        assert main(["convert", str(case.path / source), str(out), "--to", "ag-ui"]) == 0
        assert out.read_bytes() == to_agui_sse(wire.json.decode_events(case.events_jsonl))


def test_cli_convert_to_ag_ui_keeps_what_came_before_bad_input(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from wire.cli import main

    case = next(c for c in CASES if c.name == "plain_text")
    capture = tmp_path / "cut.jsonl"
    capture.write_bytes(b"\n".join(case.event_lines[:5]) + b"\n{not json\n")
    out = tmp_path / "out.sse"
    assert main(["convert", str(capture), str(out), "--to", "ag-ui"]) == 1
    assert "error" in capsys.readouterr().err
    frames = [json.loads(f[len(b"data: "):]) for f in out.read_bytes().split(b"\n\n") if f]
    assert frames[0]["type"] == "RUN_STARTED" and frames[-1] == {
        "type": "RUN_ERROR", "message": "the agentscope event stream ended before REPLY_END", "code": INCOMPLETE_CODE}


def test_the_python_sdk_writes_the_same_bytes() -> None:
    """ag-ui-protocol's pydantic models and EventEncoder, given wire's events, write wire's bytes."""
    from benchmarks.bench_bridges_agui import _sdk_encode

    for events in [wire.json.decode_events(case.events_jsonl) for case in CASES] + list(EDGE_STREAMS.values()):
        agui = to_agui(events)
        assert _sdk_encode(agui) == encode_sse_batch(agui)


def test_what_cannot_be_bridged_or_encoded_raises_wire_errors() -> None:
    with pytest.raises(wire.LocalProtocolError, match="not dict"):
        AGUIBridge().feed({"type": "TEXT_BLOCK_DELTA"})  # type: ignore[arg-type]
    buf = bytearray(b"kept")
    with pytest.raises(wire.EncodeError, match="'CUSTOM'"):
        encode_sse_into({"type": "CUSTOM", "name": "n", "value": "lone \ud800"}, buf)
    assert buf == b"kept"  # nothing half-written
    with pytest.raises(wire.EncodeError, match="'TEXT_MESSAGE_CONTENT'"):
        encode_sse_batch([{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": object()}])
    with pytest.raises(wire.EncodeError):
        encode_sse_batch([{"no": "type"}])


def test_the_bridges_share_their_names() -> None:
    """One naming across both bridges (feed_all, to_sse); the older AG-UI names stay."""
    from wire.bridges import agui, vercel

    events = wire.json.decode_events(CASES[0].events_jsonl)
    assert agui.AGUIBridge().feed_all(events) == agui.AGUIBridge().feed_many(events)
    assert agui.to_sse(events) == agui.to_agui_sse(events)
    assert hasattr(vercel.VercelBridge, "feed_all") and hasattr(vercel, "to_sse")
