"""append_event: agentscope's results from its own vectors, every anomaly in
both modes, O(1) text growth read mid-stream, deterministic replay and
checkpoint-then-resume at every split point."""

from __future__ import annotations

import copy
import json
import tracemalloc
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
import wire.reducer
from tests.helpers import (
    ANOMALIES,
    ASK_C,
    CALL,
    REPLY,
    RESULT_DATA,
    RESULT_START,
    START_TEXT,
    Case,
    as_json,
    delta,
    expect,
    initial_msg,
    mask_apply_time,
    text_reply,
)
from tests.strategies import reply_streams


def output_of(msg: wire.Msg, index: int) -> list[wire.TextBlock | wire.DataBlock]:
    """The output of the tool result at ``msg.content[index]``, a list of blocks."""
    output = expect(wire.ToolResultBlock, msg.content[index]).output
    assert isinstance(output, list)
    return output


def base64_source(block: object) -> wire.Base64Source:
    """The source of a data block that holds bytes."""
    return expect(wire.Base64Source, expect(wire.DataBlock, block).source)


def reduce_case(case: Case, **kwargs: Any) -> wire.Msg:
    msg = wire.json.decode_msg(case.initial_msg)
    for event in wire.json.decode_events(case.events_jsonl):
        msg.append_event(event, **kwargs)
    return msg


def test_vectors_reduce_to_agentscopes_msg(case: Case) -> None:
    msg = reduce_case(case, strict=True)  # agentscope's own streams have no anomaly
    expected = wire.json.decode_msg(case.expected_msg)
    assert mask_apply_time(as_json(msg)) == mask_apply_time(as_json(expected))


def test_vectors_reduce_the_same_through_extend_events(case: Case) -> None:
    msg = wire.json.decode_msg(case.initial_msg)
    msg.extend_events(wire.json.decode_events(case.events_jsonl))
    assert wire.json.encode(msg) == wire.json.encode(reduce_case(case))


def test_block_times_come_from_the_events() -> None:
    msg = initial_msg()
    msg.append_event(wire.TextBlockStartEvent(reply_id=REPLY, block_id="b", created_at="T-start"))
    msg.append_event(wire.HintBlockEvent(reply_id=REPLY, block_id="h", hint="x", created_at="T-hint"))
    text, hint = msg.content
    assert text.created_at == "T-start"
    assert (hint.created_at, hint.finished_at) == ("T-hint", "T-hint")


# -- reading while growing -------------------------------------------------------


def test_text_read_after_every_delta_is_the_text_so_far() -> None:
    msg = initial_msg()
    msg.append_event(wire.TextBlockStartEvent(reply_id=REPLY, block_id="b"))
    block = msg.content[0]
    assert isinstance(block, wire.TextBlock)
    so_far = ""
    for i, part in enumerate(["Hel", "lo", " wörld", " 🌍", "", "\n"]):
        msg.append_event(wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b", delta=part))
        so_far += part
        if i % 2:  # reads at some points only: joins must catch up on the rest
            assert block.text == so_far
    assert msg.get_text_content() == so_far
    assert json.loads(wire.json.encode(msg))["content"][0]["text"] == so_far


def test_growing_blocks_compare_and_print_with_their_whole_value() -> None:
    msg = initial_msg()
    msg.append_event(wire.ToolCallStartEvent(reply_id=REPLY, tool_call_id="c", tool_call_name="f"))
    msg.append_event(wire.ToolCallDeltaEvent(reply_id=REPLY, tool_call_id="c", delta='{"a":'))
    msg.append_event(wire.ToolCallDeltaEvent(reply_id=REPLY, tool_call_id="c", delta="1}"))
    call = msg.content[0]
    expected = wire.ToolCallBlock(id="c", name="f", input='{"a":1}', created_at=call.created_at)
    assert call == expected
    assert "'{\"a\":1}'" in repr(msg)


def test_data_chunks_are_joined_bytes_never_reencoded() -> None:
    msg = initial_msg()
    msg.append_event(wire.DataBlockStartEvent(reply_id=REPLY, block_id="d", media_type="audio/wav"))
    for chunk in (b"\x00\x01", b"\xff" * 3, b"", b"end"):
        msg.append_event(wire.DataBlockDeltaEvent(reply_id=REPLY, block_id="d", media_type="x/y", data=chunk))
    block = msg.content[0]
    assert isinstance(block, wire.DataBlock) and isinstance(block.source, wire.Base64Source)
    assert block.source.data == b"\x00\x01\xff\xff\xffend"
    assert block.source.media_type == "audio/wav"  # the delta's media_type is ignored, as in agentscope


def test_tool_result_text_after_data_starts_a_new_text_block() -> None:
    msg = initial_msg()
    events: list[wire.AgentEvent] = [
        wire.ToolResultStartEvent(reply_id=REPLY, tool_call_id="c", tool_call_name="f"),
        wire.ToolResultTextDeltaEvent(id="t1", reply_id=REPLY, tool_call_id="c", delta="a"),
        wire.ToolResultTextDeltaEvent(id="t2", reply_id=REPLY, tool_call_id="c", delta="b"),
        wire.ToolResultDataDeltaEvent(reply_id=REPLY, tool_call_id="c", block_id="d", media_type="m", data=b"1"),
        wire.ToolResultDataDeltaEvent(reply_id=REPLY, tool_call_id="c", block_id="d", media_type="", data=b"2"),
        wire.ToolResultTextDeltaEvent(id="t3", reply_id=REPLY, tool_call_id="c", delta="c"),
    ]
    msg.extend_events(events)
    output = output_of(msg, 0)
    assert [type(p).__name__ for p in output] == ["TextBlock", "DataBlock", "TextBlock"]
    first, data, last = expect(wire.TextBlock, output[0]), base64_source(output[1]), expect(wire.TextBlock, output[2])
    assert [first.text, last.text] == ["ab", "c"]
    assert [first.id, last.id] == ["t1", "t3"]  # ids derived from the delta that made them
    assert data.data == b"12" and data.media_type == "m"


# -- anomalies (tests/helpers.py's ANOMALIES: one bad event each) ---------------------


@pytest.mark.parametrize(("before", "bad", "kind", "left"), [a[1:] for a in ANOMALIES],
                         ids=[a[0] for a in ANOMALIES])
def test_anomaly_is_recorded_and_handled_like_agentscope(before: list[Any], bad: Any, kind: str, left: Any) -> None:
    msg = initial_msg().extend_events(before)
    assert msg.anomalies == []
    msg.append_event(bad)
    assert [(a.index, a.kind, a.event_type) for a in msg.anomalies] == [(len(before), kind, bad.type)]
    assert left(msg)


@pytest.mark.parametrize(("before", "bad", "kind"), [a[1:4] for a in ANOMALIES], ids=[a[0] for a in ANOMALIES])
def test_strict_mode_raises_and_changes_nothing(before: list[Any], bad: Any, kind: str) -> None:
    msg = initial_msg().extend_events(before)
    snapshot = wire.json.encode(msg)
    with pytest.raises(wire.StreamOrderError) as info:
        msg.append_event(bad, strict=True)
    assert (info.value.kind, info.value.index) == (kind, len(before))
    assert str(bad.type) in str(info.value) and f"event {len(before)}" in str(info.value)
    assert wire.json.encode(msg) == snapshot
    assert isinstance(info.value, wire.RemoteProtocolError)


@pytest.mark.parametrize("role", ["user", "system"])
def test_msg_built_from_events_keeps_its_role_rules(role: wire.Role) -> None:
    msg = wire.Msg(name="u", content=[], role=role, id=REPLY)
    msg.append_event(CALL)
    msg.append_event(wire.ThinkingBlockStartEvent(block_id="t", reply_id=REPLY))
    msg.append_event(START_TEXT)
    assert [a.kind for a in msg.anomalies] == [wire.AnomalyKind.ROLE_FORBIDS] * 2
    assert [b.type for b in msg.content] == ["text"]
    assert wire.json.decode_msg(wire.json.encode(msg)) == msg  # it still loads from its own JSON
    with pytest.raises(wire.StreamOrderError, match=r"cannot hold"):
        msg.append_event(wire.ToolResultStartEvent(tool_call_id="c", tool_call_name="f", reply_id=REPLY), strict=True)


def test_invalid_base64_never_reaches_the_reducer() -> None:
    """agentscope drops characters outside the alphabet; wire refuses the event."""
    line = json.dumps({"type": "DATA_BLOCK_DELTA", "reply_id": REPLY, "block_id": "d",
                       "media_type": "m", "data": "-_-_"}).encode()
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(line)
    assert info.value.path == "$.data"


def test_a_non_event_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not an AgentEvent"):
        initial_msg().append_event(wire.TextBlock(text="x"))  # type: ignore[arg-type]


# -- replay and checkpoints -----------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(reply_streams())
def test_replay_is_deterministic_whatever_the_clock(events: list[wire.AgentEvent]) -> None:
    first = wire.json.encode(initial_msg().extend_events(events))
    wire.set_timestamp_factory(lambda: "1999-12-31T23:59:59")
    wire.set_id_factory(lambda: "not-from-the-events")
    try:
        again = wire.json.encode(initial_msg().extend_events(events))
    finally:
        wire.set_timestamp_factory(None)
        wire.set_id_factory(None)
    assert again == first
    assert initial_msg().extend_events(events).anomalies == []


@settings(max_examples=40, deadline=None)
@given(reply_streams(), st.sampled_from([wire.json, wire.msgpack]))
def test_checkpoint_then_resume_at_every_split_point(events: list[wire.AgentEvent], codec: Any) -> None:
    whole = wire.json.encode(initial_msg().extend_events(events))
    for split in range(len(events) + 1):
        half = initial_msg().extend_events(events[:split])
        resumed = codec.decode_msg(codec.encode(half))
        for event in events[split:]:
            resumed.append_event(event, strict=True)
        assert wire.json.encode(resumed) == whole, f"split at {split}"


@settings(max_examples=30, deadline=None)
@given(reply_streams())
def test_text_read_at_any_point_matches_a_fresh_reduction(events: list[wire.AgentEvent]) -> None:
    """Reading (joining) mid-stream must never change what later deltas build."""
    reading = initial_msg()
    for event in events:
        reading.append_event(event)
        for block in reading.content:
            _ = getattr(block, "text", None), getattr(block, "input", None)
    assert wire.json.encode(reading) == wire.json.encode(initial_msg().extend_events(events))


@settings(max_examples=60, deadline=None)
@given(reply_streams(), st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(ANOMALIES)), max_size=4))
def test_extend_events_matches_append_event_one_by_one(events: list[wire.AgentEvent],
                                                       inserts: list[tuple[int, Any]]) -> None:
    """extend_events' shortcut for runs of deltas must see every anomaly that
    applying the events one at a time sees, wherever the bad events fall."""
    events = list(events)
    for position, (_, before, bad, _, _) in inserts:
        at = position % (len(events) + 1)
        events[at:at] = [*before, bad]
    one_by_one = initial_msg()
    for event in events:
        one_by_one.append_event(event)
    extended = initial_msg().extend_events(events)
    assert wire.json.encode(extended) == wire.json.encode(one_by_one)
    assert extended.anomalies == one_by_one.anomalies


def test_an_unknown_event_is_an_anomaly_not_a_crash() -> None:
    """A newer peer's event type (kept by a stream decoder with unknown="keep")."""
    newer = wire.UnknownEvent("FUTURE_EVENT", b'{"type":"FUTURE_EVENT","reply_id":"reply-1"}', "json")
    msg = initial_msg().extend_events([START_TEXT, newer, delta("a")])
    assert [(a.index, a.kind, a.event_type) for a in msg.anomalies] == [(1, "unknown_event", "FUTURE_EVENT")]
    assert expect(wire.TextBlock, msg.content[0]).text == "a"
    with pytest.raises(wire.StreamOrderError) as info:
        initial_msg().append_event(newer, strict=True)
    assert (info.value.kind, info.value.index) == ("unknown_event", 0)


def test_external_results_append_once_and_a_str_output_grows_into_blocks() -> None:
    result = wire.ToolResultBlock(id="c", name="f", output="first", state=wire.ToolResultState.SUCCESS,
                                  created_at="t0")
    external = wire.ExternalExecutionResultEvent(id="x1", created_at="t1", execution_results=[result], reply_id=REPLY)
    msg = initial_msg().extend_events([CALL, external, external])  # the second is already there: skipped
    assert [b.type for b in msg.content] == ["tool_call", "tool_result"]
    assert msg.content[1].finished_at == "t1" and result.finished_at is None  # the event is not mutated
    msg.append_event(wire.ToolResultTextDeltaEvent(id="d1", created_at="t2", tool_call_id="c", delta="+",
                                                   reply_id=REPLY))
    output = output_of(msg, 1)
    assert [(p.id, expect(wire.TextBlock, p).text) for p in output] == [("d1", "first+")]
    assert result.output == "first"
    assert [a.kind for a in msg.anomalies] == ["after_end"]  # an external result comes finished


def test_tool_result_url_chunks_always_append() -> None:
    url = wire.ToolResultDataDeltaEvent(tool_call_id="c", block_id="p", media_type="image/png",
                                        url="https://x.test/a.png", reply_id=REPLY)
    msg = initial_msg().extend_events([RESULT_START, url, url, RESULT_DATA, RESULT_DATA])
    output = output_of(msg, 0)
    assert [type(expect(wire.DataBlock, p).source).__name__ for p in output] == ["URLSource", "URLSource",
                                                                                 "Base64Source"]
    assert base64_source(output[2]).data == b"pngpng"


def test_strict_mode_checks_every_call_of_an_event_before_changing_any() -> None:
    msg = initial_msg().extend_events([CALL])
    two = [wire.ToolCallBlock(id="c", name="f", input=""), wire.ToolCallBlock(id="nope", name="f", input="")]
    for event in (wire.RequireUserConfirmEvent(tool_calls=two, reply_id=REPLY),
                  wire.RequireExternalExecutionEvent(tool_calls=two, reply_id=REPLY)):
        with pytest.raises(wire.StreamOrderError):
            msg.append_event(event, strict=True)
        assert expect(wire.ToolCallBlock, msg.content[0]).state == "pending"


def test_two_confirm_results_for_one_call_apply_in_order() -> None:
    call = wire.ToolCallBlock(id="c", name="f", input="")
    results = [wire.ConfirmResult(confirmed=True, tool_call=call), wire.ConfirmResult(confirmed=False, tool_call=call)]
    answer = wire.UserConfirmResultEvent(confirm_results=results, reply_id=REPLY)
    msg = initial_msg().extend_events([CALL, ASK_C, answer])
    assert expect(wire.ToolCallBlock, msg.content[0]).state == "allowed"  # the second saw "allowed"
    assert [a.kind for a in msg.anomalies] == ["not_asking"]


# -- nothing half-written, nothing shared ------------------------------------------------------


def growing_msg() -> wire.Msg:
    """A Msg mid-reply: a text block, a tool call and a data block, all open."""
    msg = wire.AssistantMsg(name="a", content=[], id="r", created_at="t")
    msg.extend_events([
        wire.TextBlockStartEvent(reply_id="r", block_id="t"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="Hel"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="lo"),
        wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="f"),
        wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta='{"a":'),
        wire.DataBlockStartEvent(reply_id="r", block_id="d", media_type="image/png"),
        wire.DataBlockDeltaEvent(reply_id="r", block_id="d", media_type="image/png", data=b"\x89P"),
    ])
    msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=" 1}"))
    msg.append_event(wire.DataBlockDeltaEvent(reply_id="r", block_id="d", media_type="image/png", data=b"NG"))
    return msg


def test_a_msg_mid_stream_is_whole_to_msgspec_and_copies() -> None:
    msg = growing_msg()
    text, call, data = msg.content
    assert copy.copy(expect(wire.TextBlock, text)).text == "Hello"
    assert msgspec.structs.asdict(call)["input"] == '{"a": 1}'
    assert base64_source(copy.deepcopy(data)).data == b"\x89PNG"
    bare = json.loads(msgspec.json.encode(msg))
    assert bare == json.loads(wire.json.encode(msg))
    assert [bare["content"][0]["text"], bare["content"][1]["input"]] == ["Hello", '{"a": 1}']


def test_what_a_reader_took_never_changes_under_them() -> None:
    msg = growing_msg()
    text, call, data = expect(wire.TextBlock, msg.content[0]), expect(wire.ToolCallBlock, msg.content[1]), \
        expect(wire.DataBlock, msg.content[2])
    held_text, held_input, held_data = text.text, call.input, base64_source(data).data
    snapshot = copy.copy(base64_source(data))
    msg.extend_events([
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="!"),
        wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta=" "),
        wire.DataBlockDeltaEvent(reply_id="r", block_id="d", media_type="image/png", data=b"..."),
    ])
    assert (held_text, held_input, bytes(held_data)) == ("Hello", '{"a": 1}', b"\x89PNG")
    assert snapshot.data == b"\x89PNG"
    assert (text.text, call.input, base64_source(data).data) == ("Hello!", '{"a": 1} ', b"\x89PNG...")


def test_data_is_bytes_once_its_block_ends() -> None:
    msg = growing_msg()
    source = base64_source(msg.content[2])
    msg.append_event(wire.DataBlockEndEvent(reply_id="r", block_id="d"))
    assert type(source.data) is bytes
    assert source.data == b"\x89PNG"


def test_the_reducer_never_changes_an_event() -> None:
    """An EXTERNAL_EXECUTION_RESULT's outputs join the Msg as copies down to
    their sources: later chunks for the same data block grow the Msg's copy."""
    result = wire.ToolResultBlock(id="c", name="f", output=[
        wire.DataBlock(id="d", source=wire.Base64Source(data=b"ab", media_type="m"))])
    events: list[wire.AgentEvent] = [
        wire.ExternalExecutionResultEvent(reply_id="r", execution_results=[result]),
        wire.ToolResultDataDeltaEvent(reply_id="r", tool_call_id="c", block_id="d", media_type="m", data=b"cd"),
    ]
    before = wire.json.encode(events[0])
    msgs = [wire.AssistantMsg(name="a", content=[], id="r", created_at="t") for _ in range(2)]
    for msg in msgs:
        msg.extend_events(events)
    assert wire.json.encode(events[0]) == before
    assert msgs[0] == msgs[1]
    assert base64_source(output_of(msgs[0], 0)[0]).data == b"abcd"


def test_a_failing_batch_still_joins_the_deltas_before_it() -> None:
    msg = wire.AssistantMsg(name="a", content=[], id="r", created_at="t")
    events: list[wire.AgentEvent] = [
        wire.TextBlockStartEvent(reply_id="r", block_id="t"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="a"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="b"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="c"),
        wire.TextBlockDeltaEvent(reply_id="r", block_id="nope", delta="x"),
    ]
    with pytest.raises(wire.StreamOrderError):
        msg.extend_events(events, strict=True)
    assert expect(wire.TextBlock, msg.content[0]).text == "abc"


# -- Reducer: bounded anomalies ----------------------------------------------------------------------


def test_an_other_reply_anomaly_quotes_a_bounded_id() -> None:
    msg = wire.AssistantMsg(name="a", content=[], id="m" * 100_000, created_at="t")
    foreign = [wire.TextBlockDeltaEvent(reply_id="other", block_id="b", delta="x") for _ in range(200)]
    tracemalloc.start()
    try:
        msg.extend_events(foreign)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [a.kind for a in msg.anomalies] == ["other_reply"] * 200
    assert all(len(a.detail) < 120 for a in msg.anomalies)
    assert peak < 2_000_000  # 200 quoted copies of the id were 20 MB


def test_anomalies_past_the_cap_are_counted_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wire.reducer.MAX_ANOMALIES == 1000
    msg = initial_msg().extend_events([wire.TextBlockEndEvent(reply_id=REPLY, block_id=str(i)) for i in range(1500)])
    assert len(msg.anomalies) == 1000 and msg.anomalies_dropped == 500
    assert msg.anomalies[-1].index == 999

    monkeypatch.setattr(wire.reducer, "MAX_ANOMALIES", 0)
    # The run fast path of extend_events must see an anomaly it did not keep.
    stray = [wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="nope", delta="x") for _ in range(3)]
    events = [*stray, *text_reply(5), *stray]
    msg = initial_msg().extend_events(events)
    assert msg.anomalies == [] and msg.anomalies_dropped == 6
    assert msg == initial_msg().extend_events(text_reply(5))
    one_by_one = initial_msg()
    for event in events:
        one_by_one.append_event(event)
    assert one_by_one == msg and one_by_one.anomalies_dropped == 6
    assert initial_msg().anomalies_dropped == 0


# -- nothing the Msg holds is shared with an event ---------------------------------------------------


def test_after_reducing_nothing_in_the_msg_is_shared_with_an_event() -> None:
    """Changing the Msg, however deep, never changes an event a log keeps."""
    deep = {"a": {"b": [1, {"c": "d"}]}}
    rule = wire.PermissionRule(tool_name="f", rule_content=None, behavior=wire.PermissionBehavior.ALLOW, source="s")
    asked = wire.ToolCallBlock(id="c", name="f", input="", suggested_rules=[rule])
    external = wire.ToolResultBlock(id="x", name="g", output=[wire.TextBlock(text="out", id="o")],
                                    state=wire.ToolResultState.SUCCESS, metadata=copy.deepcopy(deep))
    events: list[wire.AgentEvent] = [
        CALL,
        wire.RequireUserConfirmEvent(reply_id=REPLY, tool_calls=[asked]),
        RESULT_START,
        wire.ToolResultEndEvent(reply_id=REPLY, tool_call_id="c", state=wire.ToolResultState.SUCCESS,
                                metadata=copy.deepcopy(deep)),
        wire.ExternalExecutionResultEvent(reply_id=REPLY, execution_results=[external]),
        wire.HintBlockEvent(reply_id=REPLY, block_id="h", hint=[wire.TextBlock(text="hint", id="t")]),
        wire.ReplyEndEvent(reply_id=REPLY, session_id="s",
                           error=wire.ErrorInfo(type=wire.ErrorType.UPSTREAM, message="m")),
    ]
    before = [wire.json.encode(e) for e in events]
    msg = initial_msg().extend_events(events)
    assert msg.anomalies == []
    call, result, outside, hint = msg.content
    assert isinstance(call, wire.ToolCallBlock) and isinstance(result, wire.ToolResultBlock)
    assert isinstance(outside, wire.ToolResultBlock) and isinstance(hint, wire.HintBlock)
    call.suggested_rules[0].tool_name = "changed"
    result.metadata["a"]["b"][1]["c"] = "changed"
    result.metadata["a"]["b"].append("more")
    outside.metadata["a"]["b"][1]["c"] = "changed"
    expect(wire.TextBlock, expect(list, outside.output)[0]).text = "changed"
    expect(wire.TextBlock, expect(list, hint.hint)[0]).text = "changed"
    assert msg.error is not None
    msg.error.message = "changed"
    assert [wire.json.encode(e) for e in events] == before


# -- values of the wrong type (events built in Python, whose constructors do not check types) -----------

_WRONG = [
    ("text delta", [START_TEXT], wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b", delta=5)),  # type: ignore[arg-type]
    ("thinking delta", [wire.ThinkingBlockStartEvent(reply_id=REPLY, block_id="t")],
     wire.ThinkingBlockDeltaEvent(reply_id=REPLY, block_id="t", delta=None)),  # type: ignore[arg-type]
    ("tool call delta", [CALL], wire.ToolCallDeltaEvent(reply_id=REPLY, tool_call_id="c", delta=b"{}")),  # type: ignore[arg-type]
    ("result text", [CALL, RESULT_START],
     wire.ToolResultTextDeltaEvent(reply_id=REPLY, tool_call_id="c", delta=["x"])),  # type: ignore[arg-type]
    ("data as text", [wire.DataBlockStartEvent(reply_id=REPLY, block_id="d", media_type="image/png")],
     wire.DataBlockDeltaEvent(reply_id=REPLY, block_id="d", media_type="image/png", data="AAAA")),  # type: ignore[arg-type]
    ("result data as text", [CALL, RESULT_START],
     wire.ToolResultDataDeltaEvent(reply_id=REPLY, tool_call_id="c", block_id="d", media_type="image/png",
                                   data="AAAA")),  # type: ignore[arg-type]
    ("url as number", [wire.DataBlockStartEvent(reply_id=REPLY, block_id="d", media_type="image/png")],
     wire.DataBlockDeltaEvent(reply_id=REPLY, block_id="d", media_type="image/png", url=5)),  # type: ignore[arg-type]
    ("end text", [START_TEXT], wire.TextBlockEndEvent(reply_id=REPLY, block_id="b", text=5)),  # type: ignore[arg-type]
    ("block id", [], wire.TextBlockStartEvent(reply_id=REPLY, block_id=5)),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("before", "bad"), [w[1:] for w in _WRONG], ids=[w[0] for w in _WRONG])
def test_a_value_of_the_wrong_type_is_an_anomaly_and_skipped(before: list[Any], bad: Any) -> None:
    msg = initial_msg().extend_events(before)
    snapshot = wire.json.encode(msg)
    msg.append_event(bad)
    assert [(a.index, a.kind) for a in msg.anomalies] == [(len(before), wire.AnomalyKind.WRONG_TYPE)]
    assert "not " in msg.anomalies[0].detail
    msg.anomalies.clear()
    assert wire.json.encode(msg) == snapshot  # nothing changed, and the Msg still encodes
    with pytest.raises(wire.StreamOrderError) as info:
        initial_msg().extend_events(before).append_event(bad, strict=True)
    assert info.value.kind == wire.AnomalyKind.WRONG_TYPE


def test_a_wrong_delta_inside_a_run_of_deltas_is_seen_by_extend_events() -> None:
    """extend_events joins runs of deltas: a delta of another type must not
    join them (it used to fail with a bare ``can only concatenate str``)."""
    events: list[wire.AgentEvent] = [START_TEXT, delta("a"), delta("b"),
              wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b", delta=5), delta("c")]  # type: ignore[arg-type]
    msg = initial_msg().extend_events(events)
    assert [(a.index, a.kind) for a in msg.anomalies] == [(3, wire.AnomalyKind.WRONG_TYPE)]
    assert expect(wire.TextBlock, msg.content[0]).text == "abc"
