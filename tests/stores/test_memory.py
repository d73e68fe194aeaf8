"""The in-memory store (wire.stores.memory.EventLog) on asyncio and trio:
readers live and late, pumping and heartbeats, entry ids (``<epoch>-<position>``),
the Msg begun at REPLY_START, SSE with resume by checkpoint or replay, a
Last-Event-ID of any length or of another log (a restart), and the bounds on
what it keeps (readers whose position was dropped get a checkpoint, then the
tail). What every store keeps is checked by ``wire.stores.conformance``
(tests/stores/test_conformance.py)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterable
from contextlib import aclosing
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import CATALOG, REPLY, expect, initial_msg, text_reply
from wire.errors import LocalProtocolError
from wire.framing import SSEDecoder
from wire.resume import CHECKPOINT, RESTART, Conversation, begin_reply, read_checkpoint
from wire.stores import Entry
from wire.stores.memory import EventLog


def filled(log: EventLog, events: Iterable[wire.AgentEvent], *, close: bool = True) -> EventLog:
    """``log`` with ``events`` appended (and closed), from sync code."""

    async def main() -> None:
        await log.extend(events)
        if close:
            await log.close()

    anyio.run(main)
    return log


def sse_body(log: EventLog, last_event_id: str | None = None, **options: Any) -> tuple[list[Any], str]:
    """What a client reads from ``log.sse``: its events and its last id."""

    async def read() -> bytes:
        return b"".join([chunk async for chunk in log.sse(last_event_id, **options)])

    decoder = SSEDecoder()
    events = decoder.feed(anyio.run(read)) + decoder.close()
    return events, decoder.last_event_id


def rebuilt(events: list[Any], start: wire.Msg | None = None) -> wire.Msg:
    """The Msg a client builds: a checkpoint replaces it, a restart drops it,
    events extend it (wire.resume.Conversation)."""
    conversation = Conversation(start if start is not None else initial_msg())
    conversation.extend(events)
    return conversation.replies[REPLY]


def eid(log: EventLog, position: int) -> str:
    """The entry id ``log`` gives the event at ``position``."""
    return f"{log.epoch}-{position}"


def names(events: list[Any]) -> list[str | None]:
    """The name of each CUSTOM event, None for the others."""
    return [event.name if type(event) is wire.CustomEvent else None for event in events]


def events_of(batches: list[list[Entry]]) -> list[Any]:
    return [event for batch in batches for _, event in batch]


# -- readers, pump, ids, SSE (async tests, on both anyio backends) --------------------------------------


def new_log() -> EventLog:
    return EventLog(initial_msg())


@pytest.mark.anyio
async def test_log_readers_live_and_late() -> None:
    events = text_reply()
    log = new_log()
    seen: dict[str, list[Entry]] = {"early": [], "late": []}

    async def read(name: str) -> None:
        async for batch in log.follow(max_batch=50):
            assert 0 < len(batch) <= 50
            seen[name] += batch

    async with anyio.create_task_group() as tg:
        tg.start_soon(read, "early")
        await anyio.sleep(0)
        for i, event in enumerate(events):
            assert await log.append(event) == eid(log, i)
            if i % 40 == 0:
                await anyio.sleep(0)
            if i == 100:
                tg.start_soon(read, "late")
        await log.close()
    expected = [(eid(log, i), event) for i, event in enumerate(events)]
    assert seen == {"early": expected, "late": expected}
    assert log.msg == new_log().msg.extend_events(events)  # type: ignore[union-attr]
    with pytest.raises(LocalProtocolError, match="closed"):
        await log.append(events[0])


@pytest.mark.anyio
async def test_log_pump_and_heartbeat() -> None:
    events = text_reply()
    log = new_log()
    send, receive = anyio.create_memory_object_stream[wire.AgentEvent](0)
    batches: list[list[Entry]] = []

    async def produce() -> None:
        async with send:
            await send.send(events[0])
            await anyio.sleep(0.3)  # idle: the reader gets heartbeats
            for event in events[1:]:
                await send.send(event)

    async def follow() -> None:
        async for batch in log.follow(heartbeat=0.05):
            batches.append(batch)

    async def pump() -> None:
        async with receive:
            await log.pump(receive)

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        tg.start_soon(produce)
        tg.start_soon(follow)
    assert [] in batches
    assert events_of(batches) == events
    assert log.closed


@pytest.mark.anyio
async def test_log_ids_follow_after_an_id_and_extend() -> None:
    log = new_log()
    assert await log.extend(CATALOG[:5]) == [eid(log, i) for i in range(5)]
    assert await log.extend([]) == []
    await log.close()
    got = [entry async for batch in log.follow(eid(log, 1)) for entry in batch]
    assert got == [(eid(log, i), event) for i, event in enumerate(CATALOG[:5])][2:]
    # Each log's epoch is its own: an id of another log (one lost and made again) is not this log's.
    assert EventLog().epoch != log.epoch
    with pytest.raises(LocalProtocolError, match="closed"):
        await log.extend(CATALOG)
    assert log.end == 5


@pytest.mark.anyio
@pytest.mark.usefixtures("deterministic_factories")  # a Msg begun without its start is stamped with the clock
async def test_a_log_without_a_msg_begins_it_at_reply_start() -> None:
    events = text_reply(10)
    log = EventLog()
    await log.extend(events)
    start = expect(wire.ReplyStartEvent, events[0])
    assert log.msg is not None and (log.msg.id, log.msg.name, log.msg.role) == (start.reply_id, start.name, start.role)
    assert log.msg == begin_reply(start).extend_events(events) and log.replies == {start.reply_id: log.msg}
    await log.close()
    got, last = await _sse_events(log, eid(log, 3))  # a checkpoint of that Msg
    assert read_checkpoint(got[0]) == log.msg and last == eid(log, len(events) - 1)

    # A reply joined without its start is begun as a reader begins it.
    headless = EventLog()
    await headless.extend(events[1:])
    reader = Conversation()
    reader.extend(events[1:])
    assert headless.msg == reader.replies[start.reply_id] and headless.msg is not None


async def _sse_events(log: EventLog, last_event_id: str | None = None, **kw: Any) -> tuple[list[Any], str]:
    decoder = SSEDecoder()
    chunks = [c async for c in log.sse(last_event_id, **kw)]
    return decoder.feed(b"".join(chunks)) + decoder.close(), decoder.last_event_id


@pytest.mark.anyio
async def test_log_sse_fresh_checkpoint_and_replay() -> None:
    events = text_reply()
    log = new_log()
    await log.extend(events[:100])
    await log.close()

    got, last = await _sse_events(log)
    assert got == events[:100] and last == eid(log, 99)

    got, last = await _sse_events(log, eid(log, 42))
    assert names(got) == [CHECKPOINT] and last == eid(log, 99)
    assert read_checkpoint(got[0]) == new_log().msg.extend_events(events[:100])  # type: ignore[union-attr]
    assert await _sse_events(log, eid(log, 99)) == ([], "")  # nothing written since: nothing to send

    got, last = await _sse_events(log, eid(log, 42), resume="replay")
    assert got == events[43:100] and last == eid(log, 99)
    # An id this log never gave out: a restart (its SSE id is empty, so the
    # client's cursor resets), then the log from its start.
    epoch = log.epoch
    other = "0" * 8 if epoch != "0" * 8 else "1" * 8
    for bad in ("x", "42", eid(log, 1000), f"{other}-42", f"{epoch}-١٢", f"{epoch}-042", f"{epoch}-+42",
                f"{epoch}-", f"-{epoch}-42"):
        for resume in ("replay", "checkpoint"):
            got, last = await _sse_events(log, bad, resume=resume)
            assert names(got[:1]) == [RESTART] and got[1:] == events[:100] and last == eid(log, 99), bad
    with pytest.raises(ValueError, match="resume"):
        await _sse_events(log, eid(log, 1), resume="rewind")

    empty = new_log()
    await empty.close()
    got, last = await _sse_events(empty, "3")
    assert names(got) == [RESTART] and last == ""


@pytest.mark.anyio
async def test_log_sse_heartbeat_comment() -> None:
    log = new_log()
    await log.append(CATALOG[0])
    body = log.sse(heartbeat=0.01)
    assert (await body.__anext__()).startswith(b"id: %s\ndata: " % eid(log, 0).encode())
    assert await body.__anext__() == b":\n\n"
    await log.close()
    with pytest.raises(StopAsyncIteration):
        await body.__anext__()


# -- EventLog: Last-Event-ID of any length ------------------------------------------------------


@pytest.mark.parametrize("digits", ["9" * 5000, "0" * 4400 + "5", "1" * 20])
@pytest.mark.parametrize("prefixed", [False, True])
def test_replay_with_an_overlong_last_event_id_restarts_from_the_first_event(digits: str, prefixed: bool) -> None:
    log = filled(EventLog(initial_msg()), text_reply(10))
    events, last = sse_body(log, f"{log.epoch}-{digits}" if prefixed else digits, resume="replay")
    assert names(events[:1]) == [RESTART] and events[1:] == text_reply(10) and last == eid(log, len(events) - 2)


# -- EventLog: a bound on what it keeps -----------------------------------------------------------


def test_a_bounded_log_keeps_the_newest_events_and_counts_every_position() -> None:
    events = text_reply(300)
    log = EventLog(initial_msg(), max_events=50)

    async def main() -> None:
        for event in events[:100]:
            await log.append(event)
        assert await log.extend(events[100:]) == [eid(log, i) for i in range(100, len(events))]
        await log.close()

    anyio.run(main)
    assert (log.first, log.end) == (len(events) - 50, len(events))
    assert log.events == events[-50:]
    assert log.msg == initial_msg().extend_events(events)  # the Msg has everything


@pytest.mark.parametrize(("position", "resume", "first"), [
    (None, "checkpoint", []), (3, "replay", []), (3, "checkpoint", []), ("x", "replay", [RESTART])])
def test_a_reader_whose_position_was_dropped_gets_a_checkpoint_then_the_tail(
        position: int | str | None, resume: Any, first: list[str]) -> None:
    events = text_reply(300)
    log = filled(EventLog(initial_msg(), max_events=50), events[:200], close=False)
    copy = _closed_copy(log, events[:200])
    got, last = sse_body(copy, eid(copy, position) if isinstance(position, int) else position, resume=resume)
    assert names(got) == [*first, CHECKPOINT] and last == eid(copy, 199)
    assert rebuilt(got) == initial_msg().extend_events(events[:200])
    # A replay from a kept position still gets exactly the events after it.
    anyio.run(log.close)
    got, last = sse_body(log, eid(log, 180), resume="replay")
    assert got == events[181:200] and last == eid(log, 199)


def _closed_copy(log: EventLog, events: list[wire.AgentEvent]) -> EventLog:
    return filled(EventLog(initial_msg(), max_events=log.max_events, max_bytes=log.max_bytes), events)


def test_a_live_reader_that_falls_behind_gets_a_checkpoint_and_then_follows() -> None:
    events = text_reply(300)

    async def main() -> list[list[Entry]]:
        log = EventLog(initial_msg(), max_events=20)
        batches: list[list[Entry]] = []
        await log.append(events[0])
        reader = log.follow(max_batch=10)
        batches.append(await reader.__anext__())  # [events[0]]
        await log.extend(events[1:100])  # drops the reader's position
        batches.append(await reader.__anext__())  # a checkpoint of the 100 events
        for i in range(100, len(events), 10):  # the reader keeps up again
            await log.extend(events[i:i + 10])
            batches.append(await reader.__anext__())
        await log.close()
        batches += [batch async for batch in reader]
        return batches

    batches = anyio.run(main)
    epoch = batches[0][0][0].partition("-")[0]
    assert batches[0] == [(f"{epoch}-0", events[0])]
    # The checkpoint carries the id of the last entry it covers.
    assert [(i, expect(wire.CustomEvent, e).name) for i, e in batches[1]] == [(f"{epoch}-99", CHECKPOINT)]
    assert [i for b in batches[2:] for i, _ in b] == [f"{epoch}-{i}" for i in range(100, len(events))]
    assert events_of(batches[2:]) == events[100:]
    assert rebuilt(events_of(batches[1:])) == initial_msg().extend_events(events)


def test_max_bytes_counts_the_events_json_and_keeps_at_least_the_newest() -> None:
    events = text_reply(100)
    sizes = [len(wire.json.encode(e)) for e in events]
    log = filled(EventLog(initial_msg(), max_bytes=sum(sizes[-10:])), events, close=False)
    assert log.events == events[-10:]
    tiny = filled(EventLog(initial_msg(), max_bytes=1), [*events, events[0]], close=False)
    assert tiny.events == [events[0]] and tiny.first == len(events)


@given(st.integers(1, 40), st.integers(0, 120), st.integers(0, 120), st.sampled_from(["checkpoint", "replay"]))
@settings(max_examples=60, deadline=None)
def test_any_bound_any_reader_rebuilds_the_same_msg(bound: int, appended: int, reader_at: int, resume: Any) -> None:
    events = text_reply(116)[:appended]
    log = filled(EventLog(initial_msg(), max_events=bound), events)
    # A reader that had applied the events before reader_at ends with the Msg of every event.
    had = events[:min(reader_at, len(events))]
    got, _ = sse_body(log, eid(log, len(had) - 1) if had else None, resume=resume)
    assert rebuilt(got, initial_msg().extend_events(had)) == initial_msg().extend_events(events)


def test_a_bounded_log_holds_its_bound_not_its_history() -> None:
    log = filled(EventLog(initial_msg(), max_events=100),
                 [wire.ReplyStartEvent(session_id="s", reply_id=REPLY, name="a"), wire.CustomEvent(name="tick")],
                 close=False)

    async def append_ticks() -> None:
        for i in range(20_000):  # CUSTOM events leave the Msg as it is: only the log could grow
            await log.append(wire.CustomEvent(name="tick", id=str(i), created_at="c", value={"i": "x" * 100}))

    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        anyio.run(append_ticks)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held < 200 * 1000  # 100 kept events of < 1 KB each; 20,000 would be ~6 MB


def test_an_unbounded_log_keeps_every_event_in_one_list() -> None:
    log = filled(EventLog(initial_msg()), text_reply(50), close=False)
    assert log.events is log.events and log.events == text_reply(50)  # no copy per read
    assert (log.first, log.end) == (0, len(text_reply(50)))


def test_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="max_events"):
        EventLog(initial_msg(), max_events=0)


def test_a_log_of_decoded_events_is_always_served() -> None:
    events = [wire.msgpack.decode_event(wire.msgpack.encode(e)) for e in text_reply(5)]
    log = filled(EventLog(initial_msg()), events)
    got, _ = sse_body(log)
    assert got == events
    got, _ = sse_body(log, eid(log, 2))
    assert names(got) == [CHECKPOINT] and rebuilt(got) == log.msg


@pytest.mark.anyio
async def test_readers_share_encoded_batches_but_never_a_checkpoint_for_an_event_with_its_id() -> None:
    log = EventLog(max_events=3)
    events = text_reply(8)
    ids = await log.extend(events)
    await log.close()

    async def body(last_event_id: str | None, resume: str = "replay") -> list[Any]:
        decoder: SSEDecoder[Any] = SSEDecoder()
        out: list[Any] = []
        async for chunk in log.sse(last_event_id, resume=resume, heartbeat=None):  # type: ignore[arg-type]
            out += decoder.feed(chunk)
        return out + decoder.close()

    # The last event alone, after the id before it; then a fresh reader whose position was
    # dropped: a checkpoint with the same entry id, which must not be served the cached event.
    assert await body(ids[-2]) == [events[-1]]
    fresh = await body(None)
    assert read_checkpoint(fresh[0]) is not None
    assert await body(ids[-2]) == await body(ids[-2]) == [events[-1]]  # served from the cache, the same


def interleaved() -> list[wire.AgentEvent]:
    """Two replies written at once: "a" begins first and writes last."""
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s", reply_id="a", name="A"),
                                     wire.ReplyStartEvent(session_id="s", reply_id="b", name="B")]
    for reply_id in ("a", "b"):
        events.append(wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}1"))
    for i in range(6):
        for reply_id in ("b", "a") if i % 2 else ("a", "b"):
            events.append(wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}1", delta=f"{i}"))
    events.append(wire.TextBlockDeltaEvent(reply_id="a", block_id="a1", delta="last"))
    return events


@pytest.mark.parametrize("max_events", [None, 3])
def test_a_reader_from_checkpoints_holds_the_replies_in_the_order_they_began(max_events: int | None) -> None:
    # Before: checkpoints came in the order of each reply's last entry, so .last was "a" for such a reader
    # and "b" for a live one.
    log = filled(EventLog(max_events=max_events), interleaved(), close=False)
    live = Conversation()
    live.extend(interleaved())
    events, _ = sse_body(filled(log, [], close=True), eid(log, 2))
    resumed = Conversation()
    resumed.extend(events)
    assert list(resumed.replies) == list(live.replies) == ["a", "b"]
    assert [wire.json.encode(m) for m in resumed.replies.values()] == \
        [wire.json.encode(m) for m in log.replies.values()]


def test_what_the_log_hands_out_is_the_callers_own() -> None:
    # Before: snapshot() handed out the log's own Msgs; a caller that changed one (as VercelBridge.join does)
    # changed every checkpoint the log made afterwards ("hi" became "CHANGED!" for every later reader).
    log = filled(EventLog(max_events=2), text_reply(3), close=False)
    held = log.replies[REPLY].get_text_content()

    async def change() -> None:
        for msg in (await log.snapshot()).values():
            msg.content[0].text = "CHANGED!"  # type: ignore[union-attr]
        if hasattr(log, "session"):  # the state a conditional write decides from is a copy too
            for msg in (await log.session()).replies.values():
                msg.content[0].text = "CHANGED!"  # type: ignore[union-attr]

    anyio.run(change)
    events, _ = sse_body(filled(log, [], close=True), eid(log, 0))
    resumed = Conversation()
    resumed.extend(events)
    assert resumed.replies[REPLY].get_text_content() == held


def test_a_reader_that_drops_among_its_checkpoints_gets_them_all_again() -> None:
    # Every checkpoint carried the newest entry's id: a reader that dropped after the first came back past the others.
    log = filled(EventLog(max_events=3), interleaved(), close=True)

    async def first_batch(after: str) -> list[Entry]:
        async with aclosing(log.follow(after, resume="checkpoint")) as batches:
            async for batch in batches:
                return batch
        return []

    first = anyio.run(first_batch, eid(log, 2))
    assert [read_checkpoint(event).id for _, event in first] == ["a", "b"]  # type: ignore[union-attr]
    again = anyio.run(first_batch, first[0][0])  # dropped after the first frame
    assert [read_checkpoint(event).id for _, event in again] == ["a", "b"]  # type: ignore[union-attr]
    assert first[-1][0] == eid(log, log.end - 1)
