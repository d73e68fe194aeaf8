"""``extend_events`` joins runs of deltas and checks their types only when it
joins them; ``append_event`` takes a delta that continues the run of the
previous one inline. Both, and the two mixed (a run begun by one and
continued by the other), must give exactly what applying the events one by
one through the general path gives: the same Msg, the same anomalies at the
same indexes, and in strict mode the same error at the same index with the
same Msg left."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import REPLY, initial_msg

_STARTS: list[wire.AgentEvent] = [
    wire.TextBlockStartEvent(reply_id=REPLY, block_id="t"),
    wire.ThinkingBlockStartEvent(reply_id=REPLY, block_id="k"),
    wire.ToolCallStartEvent(reply_id=REPLY, tool_call_id="c", tool_call_name="f"),
    wire.ToolResultStartEvent(reply_id=REPLY, tool_call_id="r", tool_call_name="f"),
]


def _event(kind: str, value: Any, block: str, reply: str) -> wire.AgentEvent:
    if kind == "text":
        return wire.TextBlockDeltaEvent(reply_id=reply, block_id=block, delta=value)
    if kind == "thinking":
        return wire.ThinkingBlockDeltaEvent(reply_id=reply, block_id="k", delta=value)
    if kind == "call":
        return wire.ToolCallDeltaEvent(reply_id=reply, tool_call_id="c", delta=value)
    if kind == "result":
        return wire.ToolResultTextDeltaEvent(reply_id=reply, tool_call_id="r" if block == "t" else block, delta=value)
    if kind == "result data":  # the result's next text deltas start a new text block
        return wire.ToolResultDataDeltaEvent(reply_id=reply, tool_call_id="r", block_id="d", media_type="image/png",
                                             data=b"x")
    if kind == "result end":
        return wire.ToolResultEndEvent(reply_id=reply, tool_call_id="r", state=wire.ToolResultState.SUCCESS)
    return wire.TextBlockEndEvent(reply_id=reply, block_id=block)


_events = st.lists(st.tuples(
    st.sampled_from(["text", "text", "text", "thinking", "call", "end", "result", "result", "result data",
                     "result end"]),
    st.one_of(st.text(max_size=3), st.integers(), st.none(), st.binary(max_size=2)),
    st.sampled_from(["t", "t", "t", "x"]),  # "x": no such block
    st.sampled_from([REPLY, REPLY, REPLY, "other"]),
).map(lambda t: _event(*t)), max_size=40)


def _one_by_one(events: list[Any], strict: bool) -> tuple[wire.Msg, Any]:
    """The reference: every event through ``Reducer.apply``'s general path."""
    msg = initial_msg()
    reducer = msg._state()
    reducer.strict = strict
    handlers = wire.reducer._HANDLERS
    try:
        for event in events:
            try:
                if event.reply_id != msg.id:
                    reducer.anomaly(wire.AnomalyKind.OTHER_REPLY, event, event.reply_id,
                                    f"the message's id is {msg.id[:64]!r}")
                else:
                    handlers[type(event)](reducer, event)
            finally:
                reducer.index += 1
    except wire.StreamOrderError as exc:
        return msg, (exc.kind, exc.index, reducer.index)
    return msg, None


def _through(method: str, events: list[Any], strict: bool) -> tuple[wire.Msg, Any]:
    msg = initial_msg()
    try:
        if method == "extend_events":
            msg.extend_events(events, strict=strict)
        elif method == "mixed":  # batches of 3 and single events, taking turns
            i = 0
            while i < len(events):
                msg.extend_events(events[i:i + 3], strict=strict)
                if i + 3 < len(events):
                    msg.append_event(events[i + 3], strict=strict)
                i += 4
        else:
            for event in events:
                msg.append_event(event, strict=strict)
    except wire.StreamOrderError as exc:
        return msg, (exc.kind, exc.index, msg._reducer.index)
    return msg, None


def _state(msg: wire.Msg) -> Any:
    return wire.json.encode(msg), [(a.index, a.kind, a.event_type, a.id, a.detail) for a in msg.anomalies]


@pytest.mark.parametrize("method", ["extend_events", "append_event", "mixed"])
@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@settings(max_examples=300, deadline=None)
@given(tail=_events)
def test_fast_paths_match_the_general_path(method: str, strict: bool, tail: list[Any]) -> None:
    events = [*_STARTS, *tail]
    want_msg, want_error = _one_by_one(events, strict)
    got_msg, got_error = _through(method, events, strict)
    assert got_error == want_error
    assert _state(got_msg) == _state(want_msg)


def test_wrong_deltas_in_one_run_are_each_an_anomaly_at_their_index() -> None:
    d = [wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="t", delta=v) for v in ("a", "b", 5, "c", None, "d")]  # type: ignore[arg-type]
    msg = initial_msg().extend_events([_STARTS[0], *d])
    assert [(a.index, a.kind) for a in msg.anomalies] == [(3, "wrong_type"), (5, "wrong_type")]
    assert msg.content[0].text == "abcd"  # type: ignore[union-attr]
    strict = initial_msg()
    with pytest.raises(wire.StreamOrderError) as info:
        strict.extend_events([_STARTS[0], *d], strict=True)
    assert info.value.index == 3
    assert strict.content[0].text == "ab"  # type: ignore[union-attr]


def test_a_block_ended_by_hand_ends_the_run() -> None:
    """A caller may change the Msg between events: a block it marked
    finished takes the next delta through the general path (an anomaly)."""
    msg = initial_msg().extend_events(_STARTS[:1])
    delta = wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="t", delta="a")
    msg.append_event(delta).append_event(delta)
    msg.content[0].finished_at = "t1"
    msg.append_event(delta)
    assert [a.kind for a in msg.anomalies] == ["after_end"]
    assert msg.content[0].text == "aaa"  # type: ignore[union-attr]
