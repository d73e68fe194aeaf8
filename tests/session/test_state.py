"""``wire.session.Session`` fed events, as h11's state machine is tested:
what ``apply`` reports, the pending turn, interrupts, checkpoints and
restarts, and the refusals every endpoint answers with."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from wire.session import Session, checkpoint, confirmation, join_reply, restart, turn
from wire.stores.conformance import session as conformance_session


def reply(reply_id: str, text: str = "hi", *, end: bool = True) -> list[wire.AgentEvent]:
    events: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(session_id="s", reply_id=reply_id, name="Friday"),
        wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}-t"),
        wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-t", delta=text),
        wire.TextBlockEndEvent(reply_id=reply_id, block_id=f"{reply_id}-t")]
    return [*events, wire.ReplyEndEvent(session_id="s", reply_id=reply_id)] if end else events


def parked(reply_id: str = "p") -> list[wire.AgentEvent]:
    call = wire.ToolCallBlock(id="c1", name="rm", input="{}", state=wire.ToolCallState.ASKING)
    return [*reply(reply_id, end=False),
            wire.ToolCallStartEvent(reply_id=reply_id, tool_call_id="c1", tool_call_name="rm"),
            wire.ToolCallDeltaEvent(reply_id=reply_id, tool_call_id="c1", delta="{}"),
            wire.ToolCallEndEvent(reply_id=reply_id, tool_call_id="c1"),
            wire.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=[call])]


def test_apply_reports_the_replies_touched_in_order_and_whether_one_turned() -> None:
    session = Session()
    a, b = reply("a", end=False), reply("b", end=False)
    changed = session.apply([a[0], b[0], a[1], b[1]])
    assert changed.replies == ["a", "b"] and changed.turned
    assert list(session.replies) == ["a", "b"] and session.open == {"a", "b"}
    changed = session.apply([a[2]])
    assert changed.replies == ["a"] and not changed.turned
    changed = session.apply([wire.ReplyEndEvent(session_id="s", reply_id="b")])
    assert changed.replies == ["b"] and changed.turned and session.open == {"a"}


def test_a_checkpoint_counts_only_when_it_changes_its_reply() -> None:
    session = Session()
    session.apply(reply("a"))
    held = session.replies["a"]
    assert session.apply([checkpoint(held)]).replies == []  # what it holds already: no news
    other = Session()
    other.apply(reply("a", "other text"))
    assert session.apply([checkpoint(other.replies["a"])]).replies == ["a"]
    assert session.replies["a"].get_text_content() == "other text"


def test_a_restart_drops_everything() -> None:
    session = Session()
    session.apply([*reply("a"), turn(wire.UserMsg("u", "hi"))])
    changed = session.apply([restart("the log was made again")])
    assert changed.turned and changed.replies == []
    assert session.replies == {} and session.turn is None and session.custom == []


def test_a_reply_joined_without_its_start_begins_as_everywhere() -> None:
    session = Session()
    session.apply(reply("a")[1:])
    assert session.replies["a"].name == "" and session.replies["a"].role == "assistant"
    joined = join_reply("a")
    assert (joined.name, joined.role, joined.id, joined.content) == ("", "assistant", "a", [])
    assert session.replies["a"].get_text_content() == "hi"


def test_a_turn_is_pending_until_its_reply_begins() -> None:
    session = Session()
    session.apply(reply("a"))
    assert session.refusal(wire.UserMsg("u", "hi")) is None
    written = turn(wire.UserMsg("u", "hi"))
    session.apply([written])
    assert session.turn is written
    problem = session.refusal(wire.UserMsg("u", "again"))
    assert problem is not None and "waiting for its reply" in problem
    session.apply(reply("b", end=False)[:1])
    assert session.turn is None
    assert session.refusal(wire.UserMsg("u", "again")) == "reply 'b' is still running"


def test_an_interrupt_withdraws_a_pending_turn_and_makes_no_reply_of_it() -> None:
    session = Session()
    written = turn(None)
    session.apply([written])
    interrupt = wire.UserInterruptEvent(reply_id=written.id)
    assert session.refusal(interrupt) is None
    session.apply([interrupt])
    assert session.turn is None and session.replies == {}
    assert session.refusal(wire.UserMsg("u", "hi")) is None


def test_an_interrupt_ends_the_wait_until_the_reply_ends() -> None:
    session = Session()
    session.apply(parked())
    msg = session.replies["p"]
    assert session.refusal(confirmation(msg, True)) is None
    session.apply([wire.UserInterruptEvent(reply_id="p")])
    for value in (confirmation(msg, True), wire.UserInterruptEvent(reply_id="p")):
        problem = session.refusal(value)
        assert problem is not None and "interrupted" in problem
    assert session.refusal(wire.UserMsg("u", "hi")) == "reply 'p' is still running"  # until the agent ends it
    session.apply([wire.ReplyEndEvent(session_id="s", reply_id="p",
                                      finished_reason=wire.ReplyFinishedReason.INTERRUPTED)])
    assert session.interrupted == set() and "over" in (session.refusal(wire.UserInterruptEvent(reply_id="p")) or "")


def test_a_closed_session_refuses_everything() -> None:
    session = Session()
    session.apply(parked())
    session.closed = True
    for value in (confirmation(session.replies["p"], True), wire.UserInterruptEvent(reply_id="p"),
                  wire.UserMsg("u", "hi"), None):
        assert session.refusal(value) == "the session is closed"


def test_a_copy_shares_no_msg() -> None:
    session = Session()
    session.apply(reply("a"))
    copy = session.copy()
    copy.replies["a"].content[0].text = "CHANGED"  # type: ignore[union-attr]
    assert session.replies["a"].get_text_content() == "hi"
    assert copy.open == session.open and copy.last_id == session.last_id


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_split_of_a_session_builds_the_same_state(data: st.DataObject) -> None:
    _, events = conformance_session(3)
    whole = Session()
    whole.apply(events)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(events)), max_size=6)))
    split = Session()
    for start, end in zip([0, *cuts], [*cuts, len(events)], strict=True):
        split.apply(events[start:end])
    assert {k: wire.json.encode(v) for k, v in split.replies.items()} == \
        {k: wire.json.encode(v) for k, v in whole.replies.items()}
    assert split.open == whole.open and list(split.replies) == list(whole.replies)


@pytest.mark.parametrize("value", [None, wire.UserMsg("u", "hi")])
def test_a_turn_event_carries_the_users_msgs(value: wire.Msg | None) -> None:
    written = turn(value)
    back = wire.json.decode_event(wire.json.encode(written))
    assert wire.session.read_turn(back) == ([] if value is None else [value])
    assert wire.session.read_turn(wire.CustomEvent(name="other", value={})) is None
    with pytest.raises(wire.DecodeError) as caught:
        wire.session.read_turn(wire.CustomEvent(name="wire.turn", value={"msgs": [{"role": "user"}]}))
    assert caught.value.path is not None and caught.value.path.startswith("$.value.msgs[0]")


def test_an_interrupt_after_the_turns_reply_began_is_the_same_in_one_batch_or_many() -> None:
    # Found by the TypeScript differential test: in one batch the interrupt was taken as withdrawing the turn.
    written = turn(wire.UserMsg("u", "hi"))
    events: list[wire.AgentEvent] = [written, wire.ReplyStartEvent(session_id="s", reply_id="r", name="F"),
                                     wire.UserInterruptEvent(reply_id=written.id)]
    whole, one_by_one = Session(), Session()
    whole.apply(events)
    for event in events:
        one_by_one.apply([event])
    assert list(whole.replies) == list(one_by_one.replies) == ["r", written.id]
    assert whole.turn is None and one_by_one.turn is None
