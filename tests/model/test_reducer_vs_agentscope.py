"""The reducer against agentscope 2.0.11's own ``Msg.append_event``: generated
streams and the lenient handling of anomalies must give the same Msg, except
for the apply-time fields the README lists as deliberate differences."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import pytest
from hypothesis import given, settings

import wire
from tests.helpers import ANOMALIES, REPLY, as_json, initial_msg, mask_apply_time
from tests.strategies import reply_streams

agentscope_message = pytest.importorskip("agentscope.message")
agentscope_event = pytest.importorskip("agentscope.event")
pydantic = pytest.importorskip("pydantic")

_adapter = pydantic.TypeAdapter(Annotated[agentscope_event.AgentEvent, pydantic.Field(discriminator="type")])


@pytest.fixture(autouse=True)
def _quiet_agentscope() -> Any:
    """agentscope warns on its own logger for every skipped event; the test
    compares outcomes instead."""
    logger = logging.getLogger("as")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


def agentscope_reduce(events: list[wire.AgentEvent]) -> dict[str, Any]:
    msg = agentscope_message.AssistantMsg(id=REPLY, name="Friday", content=[],
                                          created_at="2026-01-01T00:00:00")
    for event in events:
        msg.append_event(_adapter.validate_json(wire.json.encode(event)))
    return as_json(wire.json.decode_msg(msg.model_dump_json()))


@settings(max_examples=60, deadline=None)
@given(reply_streams())
def test_generated_streams_reduce_as_in_agentscope(events: list[wire.AgentEvent]) -> None:
    ours = as_json(initial_msg().extend_events(events))
    assert mask_apply_time(ours) == mask_apply_time(agentscope_reduce(events))


# agentscope crashes on these two; wire records them and skips the event.
_CRASHES_IN_AGENTSCOPE = {"data after url", "invalid url"}


@pytest.mark.parametrize(("before", "bad"), [(a[1], a[2]) for a in ANOMALIES if a[0] not in _CRASHES_IN_AGENTSCOPE],
                         ids=[a[0] for a in ANOMALIES if a[0] not in _CRASHES_IN_AGENTSCOPE])
def test_lenient_anomalies_end_as_in_agentscope(before: list[Any], bad: Any) -> None:
    events = [*before, bad]
    assert mask_apply_time(as_json(initial_msg().extend_events(events))) == mask_apply_time(agentscope_reduce(events))


@pytest.mark.parametrize("name", sorted(_CRASHES_IN_AGENTSCOPE))
def test_agentscope_raises_where_wire_records_an_anomaly(name: str) -> None:
    _, before, bad, kind, _ = next(a for a in ANOMALIES if a[0] == name)
    with pytest.raises((AttributeError, pydantic.ValidationError)):
        agentscope_reduce([*before, bad])
    assert [a.kind for a in initial_msg().extend_events([*before, bad]).anomalies] == [kind]


_END = wire.ReplyEndEvent(reply_id=REPLY, session_id="s")
_AFTER_THE_REPLY_ENDED: list[list[wire.AgentEvent]] = [
    [_END, wire.TextBlockStartEvent(reply_id=REPLY, block_id="b"),
     wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b", delta="late")],
    [_END, wire.ToolCallStartEvent(reply_id=REPLY, tool_call_id="c", tool_call_name="f")],
    [_END, wire.HintBlockEvent(reply_id=REPLY, block_id="h", hint="x")],
]


@pytest.mark.parametrize("events", _AFTER_THE_REPLY_ENDED, ids=["text", "tool call", "hint"])
def test_a_block_started_after_reply_end_is_an_anomaly_and_still_appended_as_agentscope_does(
        events: list[wire.AgentEvent]) -> None:
    msg = initial_msg().extend_events(events)
    assert [(a.index, a.kind) for a in msg.anomalies] == [(1, wire.AnomalyKind.AFTER_REPLY_END)]
    assert mask_apply_time(as_json(msg)) == mask_apply_time(agentscope_reduce(events))
    strict = initial_msg().extend_events(events[:1])
    snapshot = wire.json.encode(strict)
    with pytest.raises(wire.StreamOrderError) as info:
        strict.append_event(events[1], strict=True)
    assert (info.value.kind, info.value.index) == (wire.AnomalyKind.AFTER_REPLY_END, 1)
    assert wire.json.encode(strict) == snapshot
