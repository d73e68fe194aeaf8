"""The test suite every :class:`wire.stores.EventStore` passes.

A store proves it keeps the contract by running these tests (pytest, with
anyio's plugin, which ``anyio`` installs). Subclass :class:`StoreContract`
in a test module and give it the ``stores`` fixture: an async context
manager factory that makes a fresh log and, for readers, the same log as
another process would open it::

    import pytest
    from contextlib import asynccontextmanager
    from wire.stores.conformance import StoreContract, Stores

    class TestMyStore(StoreContract):
        @pytest.fixture
        def stores(self) -> Stores:
            @asynccontextmanager
            async def open_log(msg, *, keep=None):
                log = MyStore(..., msg=msg, keep=keep)   # keep: None, or about this many entries
                yield log, lambda: MyStore(...)          # the producer, and a reader of the same log
            return open_log

wire runs it against the in-memory log and against Redis
(``tests/stores/test_conformance.py``). ``keep`` asks for a log that keeps
only about that many entries (a bounded ``EventLog``, a Redis stream trimmed
by ``max_len``): the suite then checks that readers left behind get a
checkpoint and still end with the exact Msg.

The conditional appends (``extend(events, expect=...)``) are checked with
many writers racing on one log: exactly one wins, the others get
:class:`wire.errors.Conflict`, and nothing else is written; a store that
checks the condition apart from the write fails there.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, aclosing
from typing import Any, TypeAlias

import anyio
import pytest

from wire import events as ev
from wire import json as wire_json
from wire.blocks import ToolCallBlock, ToolCallState
from wire.errors import Conflict, LocalProtocolError
from wire.framing import SSEDecoder
from wire.messages import AssistantMsg, Msg
from wire.session import CHECKPOINT, RESTART
from wire.session import Session as Conversation
from wire.stores import Entry, EventStore

__all__ = ("StoreContract", "Stores", "reply", "rebuild")

Opened: TypeAlias = tuple[EventStore, Callable[[], EventStore]]
Stores: TypeAlias = Callable[..., AbstractAsyncContextManager[Opened]]
"""``stores(msg, *, keep=None)``: a fresh log (the producer, with ``msg``)
and a function that opens a reader of the same log."""


def reply(n: int, reply_id: str = "r1") -> tuple[Msg, list[ev.AgentEvent]]:
    """A reply of ``n`` events (``n >= 4``), nearly all text deltas, and the
    empty Msg it starts from."""
    msg = AssistantMsg("Friday", [], id=reply_id)
    events: list[ev.AgentEvent] = [ev.ReplyStartEvent(session_id="s1", reply_id=reply_id, name="Friday"),
                                ev.TextBlockStartEvent(reply_id=reply_id, block_id="b1")]
    events += [ev.TextBlockDeltaEvent(reply_id=reply_id, block_id="b1", delta=f"{i} é ") for i in range(n - 4)]
    events += [ev.TextBlockEndEvent(reply_id=reply_id, block_id="b1"),
               ev.ReplyEndEvent(session_id="s1", reply_id=reply_id)]
    return msg, events


def rebuild(msg: Msg, events: list[Any]) -> Msg:
    """What a reader of one reply does: apply each event, and let a
    checkpoint replace the Msg (``wire.resume.Conversation`` does it for a
    session)."""
    conversation = Conversation(msg)
    conversation.extend(events)
    built = conversation.replies.get(msg.id)
    assert built is not None and len(conversation.replies) == 1
    return built


def session(n: int) -> tuple[list[Msg], list[ev.AgentEvent]]:
    """A session of ``n`` replies: the second parks on a confirmation, is
    answered and goes on; each reply's Msg begins at its REPLY_START."""
    events: list[ev.AgentEvent] = []
    for r in range(n):
        reply_id = f"r{r}"
        events += [ev.ReplyStartEvent(session_id="s1", reply_id=reply_id, name="Friday"),
                   ev.TextBlockStartEvent(reply_id=reply_id, block_id=f"t{r}")]
        events += [ev.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"t{r}", delta=f"{r}.{i} ") for i in range(30)]
        events.append(ev.TextBlockEndEvent(reply_id=reply_id, block_id=f"t{r}"))
        if r == 1:
            call = ToolCallBlock(id="c1", name="search", input='{"q": "x"}', state=ToolCallState.ASKING)
            events += [ev.ToolCallStartEvent(reply_id=reply_id, tool_call_id="c1", tool_call_name="search"),
                       ev.ToolCallDeltaEvent(reply_id=reply_id, tool_call_id="c1", delta='{"q": "x"}'),
                       ev.ToolCallEndEvent(reply_id=reply_id, tool_call_id="c1"),
                       ev.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=[call]),
                       ev.UserConfirmResultEvent(reply_id=reply_id, confirm_results=[
                           ev.ConfirmResult(confirmed=True, tool_call=call)]),
                       ev.ReplyStartEvent(session_id="s1", reply_id=reply_id, name="Friday"),
                       ev.TextBlockStartEvent(reply_id=reply_id, block_id="after"),
                       ev.TextBlockDeltaEvent(reply_id=reply_id, block_id="after", delta="allowed"),
                       ev.TextBlockEndEvent(reply_id=reply_id, block_id="after")]
        events.append(ev.ReplyEndEvent(session_id="s1", reply_id=reply_id))
    conversation = Conversation()
    conversation.extend(events)
    return list(conversation.replies.values()), events


def twice_parked() -> tuple[Msg, list[ev.AgentEvent]]:
    """A reply that parks on a confirmation twice, each answered and taken
    on; and the Msg it builds."""
    events: list[ev.AgentEvent] = [ev.ReplyStartEvent(session_id="s1", reply_id="r9", name="Friday")]
    for n in (1, 2):
        call = ToolCallBlock(id=f"c{n}", name="search", input="{}", state=ToolCallState.ASKING)
        events += [ev.TextBlockStartEvent(reply_id="r9", block_id=f"t{n}"),
                   ev.TextBlockDeltaEvent(reply_id="r9", block_id=f"t{n}", delta=f"step {n}"),
                   ev.TextBlockEndEvent(reply_id="r9", block_id=f"t{n}"),
                   ev.ToolCallStartEvent(reply_id="r9", tool_call_id=f"c{n}", tool_call_name="search"),
                   ev.ToolCallDeltaEvent(reply_id="r9", tool_call_id=f"c{n}", delta="{}"),
                   ev.ToolCallEndEvent(reply_id="r9", tool_call_id=f"c{n}"),
                   ev.RequireUserConfirmEvent(reply_id="r9", tool_calls=[call]),
                   ev.UserConfirmResultEvent(reply_id="r9", confirm_results=[
                       ev.ConfirmResult(confirmed=True, tool_call=call)]),
                   ev.ReplyStartEvent(session_id="s1", reply_id="r9", name="Friday")]
    events += [ev.TextBlockStartEvent(reply_id="r9", block_id="t3"),
               ev.TextBlockDeltaEvent(reply_id="r9", block_id="t3", delta="done"),
               ev.TextBlockEndEvent(reply_id="r9", block_id="t3"),
               ev.ReplyEndEvent(session_id="s1", reply_id="r9")]
    conversation = Conversation()
    conversation.extend(events)
    return conversation.replies["r9"], events


def _replies(events: list[Any], conversation: Conversation | None = None) -> list[bytes]:
    conversation = conversation or Conversation()
    conversation.extend(events)
    return [wire_json.encode(msg) for msg in conversation.replies.values()]


def _built(msg: Msg, events: list[ev.AgentEvent]) -> Msg:
    """The Msg the whole reply builds."""
    whole = _fresh(msg)
    whole.extend_events(events)
    return whole


def _fresh(msg: Msg) -> Msg:
    return wire_json.decode_msg(wire_json.encode(msg))


async def _read_all(log: EventStore, after: str | None = None, **options: Any) -> list[Entry]:
    entries: list[Entry] = []
    with anyio.fail_after(30):
        async with aclosing(log.follow(after, **options)) as batches:  # type: ignore[type-var]
            async for batch in batches:
                entries += batch
    return entries


async def _read_sse(log: EventStore, last_event_id: str | None = None, **options: Any) -> tuple[list[Any], list[str]]:
    """The events of ``log.sse(...)`` and the ``id`` of each frame."""
    decoder: SSEDecoder[Any] = SSEDecoder()
    events: list[Any] = []
    body = bytearray()
    with anyio.fail_after(30):
        async with aclosing(log.sse(last_event_id, heartbeat=None, **options)) as chunks:  # type: ignore[type-var]
            async for chunk in chunks:
                events += decoder.feed(chunk)
                body += chunk
    events += decoder.close()
    ids = [line[4:].decode() for line in bytes(body).split(b"\n") if line.startswith(b"id: ")]
    return events, ids


def _is_checkpoint(event: Any) -> bool:
    return type(event) is ev.CustomEvent and event.name == CHECKPOINT


@pytest.mark.anyio
class StoreContract:
    """The contract's tests; see the module docstring for how to run them."""

    @pytest.fixture
    def stores(self) -> Stores:
        raise NotImplementedError("a store's test class provides the `stores` fixture")

    async def test_ids_are_strings_in_order_and_follow_returns_every_entry(self, stores: Stores) -> None:
        msg, events = reply(40)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events[:30])
            ids.append(await log.append(events[30]))
            ids += await log.extend(events[31:])
            await log.close()
            assert log.closed
            assert all(type(i) is str for i in ids) and len(set(ids)) == len(ids) == len(events)
            got = await _read_all(reader())
            assert [i for i, _ in got] == ids
            assert [wire_json.encode(e) for _, e in got] == [wire_json.encode(e) for e in events]

    async def test_follow_after_an_id_gives_exactly_the_entries_after_it(self, stores: Stores) -> None:
        msg, events = reply(30)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events)
            await log.close()
            for k in (0, 1, 15, len(ids) - 2, len(ids) - 1):
                got = await _read_all(reader(), ids[k])
                assert [i for i, _ in got] == ids[k + 1:]

    async def test_an_unknown_id_restarts_the_reader_from_the_first_entry(self, stores: Stores) -> None:
        msg, events = reply(10)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events)
            await log.close()
            for bogus in ("99999999999999999-0", "not an id", "9" * 5000, "١٢", "0-1"):
                for resume in ("replay", "checkpoint"):
                    got = await _read_all(reader(), bogus, resume=resume)
                    assert type(got[0][1]) is ev.CustomEvent and got[0][1].name == RESTART and got[0][0] == ""
                    assert [i for i, _ in got[1:]] == ids

    async def test_at_end_only_past_the_last_entry_of_a_closed_log(self, stores: Stores) -> None:
        """What the endpoints answer with 204: a reader at the end of a
        closed log, to whom ``follow`` gives nothing new (at most a
        checkpoint of what it has)."""
        msg, events = reply(12)
        async with stores(_fresh(msg)) as (log, reader):
            assert not await reader().at_end(None)
            ids = await log.extend(events)
            for after in (None, ids[0], ids[-2], ids[-1]):
                assert not await reader().at_end(after), after  # open: a live reader waits for more
            await log.close()
            assert await reader().at_end(ids[-1])
            assert await _read_all(reader(), ids[-1]) == []
            repeated = [e for _, e in await _read_all(reader(), ids[-1], resume="checkpoint")]
            assert all(map(_is_checkpoint, repeated))
            assert rebuild(_fresh(msg), [*events, *repeated]) == _built(msg, events)
            # Entries to read, or an id the log never gave out (a restart, then the log).
            for after in (None, ids[0], ids[-2], "99999999999999999-0", "not an id"):
                assert not await reader().at_end(after), after
        async with stores(_fresh(msg)) as (log, reader):
            await log.close()  # a session closed before it had a single event
            assert await reader().at_end(None)
            assert await _read_all(reader()) == []
        async with stores(_fresh(msg), keep=4) as (log, reader):
            ids = [await log.append(event) for event in events]
            await log.close()
            # A new reader of a log that kept its tail gets checkpoints, then the tail.
            assert not await reader().at_end(None) and not await reader().at_end(ids[0])
            assert await reader().at_end(ids[-1])

    async def test_a_live_reader_gets_every_event_appended_later_and_stops_at_close(self, stores: Stores) -> None:
        msg, events = reply(60)
        async with stores(_fresh(msg)) as (log, reader):
            got: list[Entry] = []

            async def follow() -> None:
                got.extend(await _read_all(reader()))

            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                for event in events:
                    await log.append(event)
                    await anyio.sleep(0)
                await log.close()
            assert rebuild(_fresh(msg), [e for _, e in got]) == _built(msg, events)

    async def test_max_batch_bounds_each_batch_and_heartbeat_sends_an_empty_one(self, stores: Stores) -> None:
        msg, events = reply(50)
        async with stores(_fresh(msg)) as (log, reader):
            await log.extend(events[:-1])
            sizes: list[int] = []
            with anyio.fail_after(30):
                async with aclosing(reader().follow(None, heartbeat=0.05, max_batch=7)) as batches:  # type: ignore[type-var]
                    async for batch in batches:
                        sizes.append(len(batch))
                        if not batch:
                            break
            assert sizes[-1] == 0 and max(sizes) <= 7 and sum(sizes) == len(events) - 1

    async def test_writing_to_a_closed_log_is_refused(self, stores: Stores) -> None:
        msg, events = reply(5)
        async with stores(_fresh(msg)) as (log, _):
            await log.extend(events)
            await log.close()
            with pytest.raises(LocalProtocolError):
                await log.append(events[-1])

    async def test_a_checkpoint_event_cannot_be_appended(self, stores: Stores) -> None:
        msg, events = reply(5)
        async with stores(_fresh(msg)) as (log, _):
            forged = ev.CustomEvent(name=CHECKPOINT, value={"msg": {"name": "evil"}})
            with pytest.raises(LocalProtocolError):
                await log.extend([events[0], forged])

    async def test_sse_carries_the_entry_ids_and_resumes_exactly_from_every_one(self, stores: Stores) -> None:
        msg, events = reply(24)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events)
            await log.close()
            whole, frame_ids = await _read_sse(reader())
            assert frame_ids == ids
            expected = _built(msg, events)
            assert rebuild(_fresh(msg), whole) == expected
            for k, entry_id in enumerate(ids):
                had = rebuild(_fresh(msg), whole[:k + 1])
                for resume in ("replay", "checkpoint"):
                    rest, _ = await _read_sse(reader(), entry_id, resume=resume)
                    assert wire_json.encode(rebuild(_fresh(had), rest)) == wire_json.encode(expected), (k, resume)

    async def test_a_reader_left_behind_by_the_bound_gets_a_checkpoint_and_the_exact_msg(self, stores: Stores) -> None:
        msg, events = reply(400)
        async with stores(_fresh(msg), keep=20) as (log, reader):
            ids = await log.extend(events[:5])
            # A reader takes its first batch, then pauses while the producer writes on.
            paused = reader()
            async with aclosing(paused.follow(None, max_batch=3)) as batches:  # type: ignore[type-var]
                seen: list[Entry] = list(await anext(batches))
                for event in events[5:]:
                    ids.append(await log.append(event))
                await log.close()
                async for batch in batches:
                    seen += batch
            expected = _built(msg, events)
            assert any(_is_checkpoint(e) for _, e in seen)
            assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in seen])) == wire_json.encode(expected)
            # A fresh reader of the trimmed log: the checkpoint first, its id that of an entry the log gave out.
            fresh = await _read_all(reader())
            assert _is_checkpoint(fresh[0][1]) and fresh[0][0] in ids, fresh[:2]
            assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in fresh])) == wire_json.encode(expected)
            events_sse, _ = await _read_sse(reader())
            assert wire_json.encode(rebuild(_fresh(msg), events_sse)) == wire_json.encode(expected)

    async def test_a_session_of_replies_is_exact_for_every_reader(self, stores: Stores) -> None:
        expected, events = session(3)
        want = [wire_json.encode(msg) for msg in expected]
        async with stores(None) as (log, reader):
            ids = await log.extend(events[:40])
            for event in events[40:]:
                ids.append(await log.append(event))
            await log.close()
            whole = [e for _, e in await _read_all(reader())]
            assert _replies(whole) == want
            body, _ = await _read_sse(reader())
            assert _replies(body) == want
            for k in range(0, len(ids), 7):
                had = Conversation()
                had.extend(whole[:k + 1])
                for resume in ("replay", "checkpoint"):
                    rest = [e for _, e in await _read_all(reader(), ids[k], resume=resume)]
                    again = Conversation(*(_fresh(m) for m in had.replies.values()))
                    assert _replies(rest, again) == want, (k, resume)

    async def test_a_session_past_its_bound_is_exact_for_late_readers(self, stores: Stores) -> None:
        expected, events = session(4)
        want = [wire_json.encode(msg) for msg in expected]
        async with stores(None, keep=16) as (log, reader):
            for event in events:
                await log.append(event)
            await log.close()
            fresh = [e for _, e in await _read_all(reader())]
            assert sum(map(_is_checkpoint, fresh)) >= 3  # the replies that were dropped come as checkpoints
            assert _replies(fresh) == want
            body, _ = await _read_sse(reader())
            assert _replies(body) == want

    async def test_a_follower_reads_across_replies_until_the_session_closes(self, stores: Stores) -> None:
        expected, events = session(3)
        async with stores(None) as (log, reader):
            got: list[Entry] = []

            async def follow() -> None:
                got.extend(await _read_all(reader()))

            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                for event in events:  # each reply ends; the session goes on
                    await log.append(event)
                    await anyio.sleep(0)
                await anyio.sleep(0.05)
                assert not got or len(got) < len(events) + 1
                await log.close()
            assert _replies([e for _, e in got]) == [wire_json.encode(msg) for msg in expected]

    async def test_a_reply_parked_by_one_writer_is_taken_on_by_another(self, stores: Stores) -> None:
        expected, events = session(3)
        park = next(i for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent) + 1
        async with stores(None, keep=16) as (log, reader):
            for event in events[:park]:  # this replica's agent runs up to the park
                await log.append(event)
            other = reader()  # the answer, and what follows, is written on another replica
            for event in events[park:]:
                await other.append(event)
            await other.close()
            fresh = [e for _, e in await _read_all(reader())]
            assert _replies(fresh) == [wire_json.encode(msg) for msg in expected]

    async def test_writers_taking_turns_on_one_reply_keep_its_checkpoint_whole(self, stores: Stores) -> None:
        expected, events = twice_parked()
        parks = [i + 1 for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent]
        async with stores(None, keep=6) as (log, reader):
            other = reader()
            await log.extend(events[:parks[0]])  # replica A runs the reply to its first park
            await other.extend(events[parks[0]:parks[1]])  # B takes the answer and runs to the second park
            await log.extend(events[parks[1]:])  # A takes the second answer and ends the reply
            closer = reader()  # the session is closed by an object that wrote nothing
            await closer.close()
            assert wire_json.encode((await reader().snapshot())["r9"]) == wire_json.encode(expected)
            fresh = [e for _, e in await _read_all(reader())]
            assert _replies(fresh) == [wire_json.encode(expected)]


    # -- conditional appends (extend(events, expect=...)) -----------------------------------------

    async def test_of_writers_racing_with_the_same_expect_exactly_one_wins(self, stores: Stores) -> None:
        msg, events = reply(20)
        async with stores(_fresh(msg)) as (log, reader):
            before = await log.extend(events[:8])
            seen = (await reader().session()).last_id
            assert seen == before[-1]
            writers = [log, *(reader() for _ in range(7))]  # other objects: other replicas
            won: list[tuple[int, str]] = []
            lost: list[Conflict] = []

            async def write(n: int, writer: EventStore) -> None:
                delta = ev.TextBlockDeltaEvent(reply_id=msg.id, block_id="b1", delta=f"writer {n} ")
                try:
                    won.append((n, await writer.append(delta, expect=seen)))
                except Conflict as exc:
                    lost.append(exc)

            async with anyio.create_task_group() as tg:
                for n, writer in enumerate(writers):
                    tg.start_soon(write, n, writer)
            assert len(won) == 1 and len(lost) == len(writers) - 1, (won, lost)
            (winner, entry_id), = won
            assert all(exc.expected == seen and exc.actual == entry_id for exc in lost)
            await log.close()
            entries = await _read_all(reader())
            assert [i for i, _ in entries] == [*before, entry_id]
            assert type(entries[-1][1]) is ev.TextBlockDeltaEvent and entries[-1][1].delta == f"writer {winner} "

    async def test_a_conditional_append_to_a_closed_log_conflicts(self, stores: Stores) -> None:
        msg, events = reply(6)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events)
            await log.close()
            state = await reader().session()
            assert state.closed and state.last_id == ids[-1]
            late = ev.CustomEvent(name="late", value={})
            for writer in (log, reader()):
                with pytest.raises(Conflict) as caught:
                    await writer.append(late, expect=state.last_id)
                assert caught.value.actual == ids[-1]
            assert [i for i, _ in await _read_all(reader())] == ids

    async def test_a_conditional_close_closes_only_the_log_its_closer_saw(self, stores: Stores) -> None:
        """An answer that came in after the closer looked keeps the log
        open (Conflict); closing at the newest entry ends it; closing it
        again with an expect conflicts as an append would."""
        msg, events = reply(6)
        async with stores(_fresh(msg)) as (log, reader):
            ids = await log.extend(events[:3])
            seen = (await reader().session()).last_id
            ids.append(await reader().append(events[3]))  # another writer, after the closer looked
            for closer in (log, reader()):
                with pytest.raises(Conflict) as caught:
                    await closer.close(expect=seen)
                assert (caught.value.expected, caught.value.actual) == (seen, ids[-1])
                assert not (await reader().session()).closed
            ids += await log.extend(events[4:])
            await reader().close(expect=ids[-1])
            state = await reader().session()
            assert state.closed and state.last_id == ids[-1]
            with pytest.raises(Conflict):
                await log.close(expect=ids[-1])
            assert [i for i, _ in await _read_all(reader())] == ids

    async def test_an_empty_expect_means_a_log_with_no_entry(self, stores: Stores) -> None:
        msg, events = reply(6)
        async with stores(_fresh(msg)) as (log, reader):
            state = await reader().session()
            assert state.last_id == "" and not state.closed
            first = await reader().append(events[0], expect="")
            with pytest.raises(Conflict) as caught:
                await log.append(events[0], expect="")
            assert caught.value.expected == "" and caught.value.actual == first
            ids = [first, *await log.extend(events[1:], expect=first)]
            await log.close()
            assert [i for i, _ in await _read_all(reader())] == ids

    async def test_the_sessions_last_id_is_the_newest_entry_and_a_stale_one_conflicts(self, stores: Stores) -> None:
        expected, events = session(2)
        async with stores(None) as (log, reader):
            ids = await log.extend(events[:30])
            state = await reader().session()
            assert state.last_id == ids[-1] and not state.closed
            for stale in (ids[-2], ids[0], ""):
                for writer in (log, reader()):
                    with pytest.raises(Conflict) as caught:
                        await writer.extend(events[30:], expect=stale)
                    assert (caught.value.expected, caught.value.actual) == (stale, ids[-1])
                    with pytest.raises(Conflict):
                        await writer.extend([], expect=stale)
            assert await log.extend([], expect=ids[-1]) == []
            ids += await reader().extend(events[30:], expect=ids[-1])
            state = await reader().session()
            assert state.last_id == ids[-1]
            assert [wire_json.encode(msg) for msg in state.replies.values()] == [
                wire_json.encode(msg) for msg in expected]
            await log.close()
            assert [i for i, _ in await _read_all(reader())] == ids

    async def test_a_snapshot_or_session_handed_out_is_the_callers_copy(self, stores: Stores) -> None:
        expected, events = session(2)
        park = next(i for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent) + 1
        async with stores(None) as (log, reader):
            await log.extend(events[:park])
            for taken in ((await log.snapshot()).values(), (await log.session()).replies.values(),
                          (await reader().snapshot()).values(), (await reader().session()).replies.values()):
                for msg in taken:  # as VercelBridge.join changes the Msg it is given
                    msg.name = "CHANGED!"
                    msg.content.clear()
            await log.extend(events[park:])
            await log.close()
            want = [wire_json.encode(msg) for msg in expected]
            assert [wire_json.encode(msg) for msg in (await reader().snapshot()).values()] == want
            assert [wire_json.encode(msg) for msg in (await reader().session()).replies.values()] == want
            entries = await _read_all(reader())
            for k in (0, park - 1, len(entries) - 2):
                rest = [e for _, e in await _read_all(reader(), entries[k][0], resume="checkpoint")]
                had = Conversation()
                had.extend([e for _, e in entries[:k + 1]])
                assert _replies(rest, had) == want, k
