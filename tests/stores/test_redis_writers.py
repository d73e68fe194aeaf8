"""Many writers on one Redis log (issue 29): replicas, an answer endpoint,
agentscope's own ``publish_session_event``, and a producer coming back after
a failover, each with its own object on its own connection. Whoever wrote
what, every reader (fresh, live, resuming from any entry by replay or from
the checkpoint) ends with the same replies, in the order they began."""

from __future__ import annotations

import uuid
from contextlib import aclosing
from typing import Any

import anyio
import pytest

from tests.redis_server import RedisServer, connect, redis_server
from wire import events as ev
from wire import json as wire_json
from wire.errors import Conflict, StoreError
from wire.session import Session, waiting
from wire.stores import Entry
from wire.stores.conformance import session, twice_parked

pytest.importorskip("redis.asyncio")
from wire.stores.redis import RedisEventLog, agentscope_session_key

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # redis-py's client runs on asyncio only


def new_key() -> str:
    return f"writers:{uuid.uuid4().hex}"


async def read_all(log: RedisEventLog, after: str | None = None, **options: Any) -> list[Entry]:
    entries: list[Entry] = []
    with anyio.fail_after(30):
        async with aclosing(log.follow(after, **options)) as batches:
            async for batch in batches:
                entries += batch
    return entries


def replies(events: list[Any], had: Session | None = None) -> list[bytes]:
    """The replies a reader holds after ``events``, as JSON, in its order."""
    reader = had or Session()
    reader.apply(events)
    return [wire_json.encode(msg) for msg in reader.replies.values()]


def built(events: list[ev.AgentEvent]) -> list[bytes]:
    return replies(events)


async def every_reader_gets(client: Any, key: str, want: list[bytes], *, step: int = 3) -> None:
    """A fresh reader (in batches of one entry, and of many), and readers
    resuming from every ``step``-th entry and the last few, by replay and
    from the checkpoint, all end with ``want``."""
    whole = await read_all(RedisEventLog(client, key))
    events = [event for _, event in whole]
    assert replies(events) == want
    single = await read_all(RedisEventLog(client, key), max_batch=1)
    assert replies([event for _, event in single]) == want
    points = sorted({*range(0, len(whole), step), *range(max(0, len(whole) - 4), len(whole))})
    for k in points:
        had = Session()
        had.apply(events[:k + 1])
        for resume in ("replay", "checkpoint"):
            rest = await read_all(RedisEventLog(client, key), whole[k][0], resume=resume)
            again = Session(*(wire_json.decode_msg(wire_json.encode(msg)) for msg in had.replies.values()))
            assert replies([event for _, event in rest], again) == want, (k, resume)


async def script_calls(client: Any) -> int:
    stats = await client.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0)) + int(stats.get("cmdstat_eval", {}).get("calls", 0))


# -- the end mark and the cut at the stream's newest entry ----------------------------------------------


async def test_a_writer_that_missed_the_answer_closes_at_the_newest_entry(redis_server: RedisServer) -> None:
    _, events = session(3)
    park = next(i for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent) + 1
    key = new_key()
    async with connect(redis_server) as a_client, connect(redis_server) as b_client:
        a = RedisEventLog(a_client, key)
        await a.extend(events[:park])  # replica A runs the reply to its park
        await RedisEventLog(b_client, key).extend(events[park:])  # the answer, and the rest, through B
        await a.close()  # A ends the session
        end = (await b_client.hget(a.checkpoint_key, "end")).decode()
        assert end == (await b_client.xrevrange(key, count=1))[0][0].decode()
        await every_reader_gets(b_client, key, built(events))


async def test_writers_closing_in_turn_never_move_the_cut_back(redis_server: RedisServer) -> None:
    expected, events = twice_parked()
    parks = [i + 1 for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent]
    key = new_key()
    async with connect(redis_server) as a_client, connect(redis_server) as b_client:
        a, b = RedisEventLog(a_client, key), RedisEventLog(b_client, key)
        await a.extend(events[:parks[0] + 4])  # A: to the first park, the answer, and on (the reply open)
        await b.extend(events[parks[0] + 4:parks[1]])  # B runs on to the second park, and checkpoints
        cut = await b_client.hget(a.checkpoint_key, "cut")
        await a.close()  # A, which never saw B's entries, closes
        assert await b_client.hget(a.checkpoint_key, "cut") >= cut
        await b.extend(events[parks[1]:])  # the session goes on: B takes the second answer and ends the reply
        await b.close()
        await every_reader_gets(b_client, key, [wire_json.encode(expected)], step=2)


# -- a producer folds in what others wrote ---------------------------------------------------------------


async def test_a_producer_folds_in_another_writers_entries_with_one_extra_round_trip(
        redis_server: RedisServer) -> None:
    _, events = session(3)
    r0 = [e for e in events if getattr(e, "reply_id", None) == "r0"]
    r2 = [e for e in events if getattr(e, "reply_id", None) == "r2"]
    key = new_key()
    async with connect(redis_server) as client, connect(redis_server) as other:
        log = RedisEventLog(client, key)
        before = await script_calls(client)
        for event in r0:  # a single writer: one script call per append
            await log.append(event)
        assert await script_calls(client) - before == len(r0)
        for event in [e for e in events if getattr(e, "reply_id", None) == "r1"]:
            await other.xadd(key, {"payload": wire_json.encode(event)})  # a writer that is no RedisEventLog
        before = await script_calls(client)
        await log.append(r2[0])  # refused once with the entries it had not seen, then written
        assert await script_calls(client) - before == 2
        before = await script_calls(client)
        await log.extend(r2[1:])
        assert await script_calls(client) - before == 1
        await log.close()
        assert list(log.replies) == ["r0", "r1", "r2"]
        assert [wire_json.encode(m) for m in (await log.snapshot()).values()] == built(r0 + [
            e for e in events if getattr(e, "reply_id", None) == "r1"] + r2)


async def test_a_reply_agentscope_wrote_outlives_the_trim_for_a_fresh_reader(redis_server: RedisServer) -> None:
    from agentscope.app import _bus_ops as as_bus_ops
    from agentscope.app.message_bus import _redis_message_bus as as_bus_module

    _, events = session(5)
    by_reply = {f"r{n}": [e for e in events if getattr(e, "reply_id", None) == f"r{n}"] for n in range(5)}
    session_id = f"s-{uuid.uuid4().hex}"
    key = agentscope_session_key(session_id)
    async with connect(redis_server) as client, \
            as_bus_module.RedisMessageBus(host="127.0.0.1", port=redis_server.port) as bus:
        log = RedisEventLog(client, key, max_len=20)
        written: list[ev.AgentEvent] = []
        for reply_id, reply_events in by_reply.items():
            if reply_id == "r2":  # agentscope's app writes this one, event by event
                for event in reply_events:
                    await as_bus_ops.publish_session_event(bus, session_id, wire_json._to_builtins(event))
            else:
                for event in reply_events:
                    await log.append(event)
            written += reply_events
        await log.close()
        assert await client.xlen(key) < 60  # trimmed far past r2
        fresh = [event for _, event in await read_all(RedisEventLog(client, key))]
        assert replies(fresh) == built(written)
        assert [wire_json.encode(m) for m in (await RedisEventLog(client, key).session()).replies.values()] == \
            built(written)


async def test_a_trim_drops_nothing_the_checkpoint_does_not_hold(redis_server: RedisServer) -> None:
    """A producer trims past entries another writer made (one that keeps
    no checkpoints, as agentscope's ``publish_session_event`` writes: an
    XADD per event): it folds them into a checkpoint first, and a fresh
    reader, a resuming one and session() still get every reply."""
    _, events = session(4)
    half = len(events) // 2
    key = new_key()
    async with connect(redis_server) as a_client, connect(redis_server) as b_client:
        a = RedisEventLog(a_client, key)
        await a.extend(events[:half])
        for event in events[half:]:
            await b_client.xadd(key, {"payload": wire_json.encode(event)})
        newest = (await a_client.xrevrange(key, count=1))[0][0].decode()
        gone = await a.trim(newest)
        assert gone == len(events) - 1  # all but the newest: the checkpoint now covers them
        await a.close()
        want = built(events)
        assert [wire_json.encode(m) for m in (await RedisEventLog(b_client, key).session()).replies.values()] == want
        await every_reader_gets(b_client, key, want)


async def test_a_log_without_checkpoints_trims_as_asked(redis_server: RedisServer) -> None:
    _, events = session(2)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), keep_checkpoints=False)
        ids = await log.extend(events)
        assert await log.trim(ids[5]) == 5
        assert [entry_id for entry_id, _ in await log.read()] == ids[5:]


async def test_a_producer_going_on_after_another_objects_answer_checkpoints_the_answer(
        redis_server: RedisServer) -> None:
    _, events = session(2)
    park = next(i for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent) + 1
    answer, restart = events[park], events[park + 1]
    assert type(answer) is ev.UserConfirmResultEvent and type(restart) is ev.ReplyStartEvent
    # The agent goes on without a second REPLY_START (as a producer that kept running does).
    written = [*events[:park], answer, *events[park + 2:]]
    key = new_key()
    async with connect(redis_server) as client, connect(redis_server) as endpoint:
        log = RedisEventLog(client, key, max_len=12)
        await log.extend(events[:park])
        await RedisEventLog(endpoint, key).append(answer)  # the answer endpoint, on another replica
        for event in events[park + 2:]:
            await log.append(event)
        await log.close()
        want = built(written)
        assert [wire_json.encode(m) for m in (await log.snapshot()).values()] == want
        assert [wire_json.encode(m) for m in log.replies.values()] == want
        await every_reader_gets(client, key, want, step=4)


# -- the order replies began in ---------------------------------------------------------------------------


async def test_readers_from_checkpoints_hold_the_replies_in_the_order_they_began(redis_server: RedisServer) -> None:
    def text(reply_id: str, n: int) -> list[ev.AgentEvent]:
        return [ev.TextBlockDeltaEvent(reply_id=reply_id, block_id="t", delta=f"{reply_id}{i} ") for i in range(n)]

    # "z" begins before "a" (ids that sort the other way), and they interleave.
    events: list[ev.AgentEvent] = [
        ev.ReplyStartEvent(session_id="s1", reply_id="z", name="Zed"),
        ev.TextBlockStartEvent(reply_id="z", block_id="t"), *text("z", 3),
        ev.ReplyStartEvent(session_id="s1", reply_id="a", name="Ann"),
        ev.TextBlockStartEvent(reply_id="a", block_id="t"), *text("a", 3), *text("z", 2),
        ev.TextBlockEndEvent(reply_id="a", block_id="t"), ev.ReplyEndEvent(session_id="s1", reply_id="a"),
        *text("z", 12), ev.TextBlockEndEvent(reply_id="z", block_id="t"),
        ev.ReplyEndEvent(session_id="s1", reply_id="z")]
    key = new_key()
    async with connect(redis_server) as client:
        log = RedisEventLog(client, key)
        live: list[Entry] = []

        async def follow() -> None:
            live.extend(await read_all(RedisEventLog(client, key)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            for event in events:
                await log.append(event)
            await log.close()
        live_reader = Session()
        live_reader.apply([event for _, event in live])
        order = list(live_reader.replies)
        assert order == ["z", "a"]
        ids = [entry_id for entry_id, _ in live]
        await log.trim(ids[-3])  # a fresh reader now begins at the checkpoint
        fresh = Session()
        fresh.apply([event for _, event in await read_all(RedisEventLog(client, key))])
        assert list(fresh.replies) == order and fresh.last is not None and fresh.last.id == "a"
        assert [wire_json.encode(m) for m in fresh.replies.values()] == \
            [wire_json.encode(m) for m in live_reader.replies.values()]
        for cursor in ids[:6]:  # readers that had only "z" when they dropped
            had = Session()
            had.apply([event for _, event in live[:ids.index(cursor) + 1]])
            had.apply([event for _, event in await read_all(RedisEventLog(client, key), cursor,
                                                               resume="checkpoint")])
            assert list(had.replies) == order
        assert list(await RedisEventLog(client, key).snapshot()) == order
        assert list((await RedisEventLog(client, key).session()).replies) == order


# -- a failover that lost acknowledged writes ----------------------------------------------------------


async def test_a_stream_that_lost_acknowledged_writes_is_a_conflict_and_a_new_object_goes_on(
        redis_server: RedisServer) -> None:
    _, events = session(2)
    key = new_key()
    async with connect(redis_server) as client:
        log = RedisEventLog(client, key)
        await log.extend(events[:20])
        # What a replica holds when its master dies: both keys as of now...
        replica = [await client.dump(key), await client.dump(log.checkpoint_key)]
        await log.extend(events[20:30])  # ...then acknowledged writes it never received
        # The failover: the replica becomes the master, without those writes.
        await client.restore(key, 0, replica[0], replace=True)
        await client.restore(log.checkpoint_key, 0, replica[1], replace=True)
        with pytest.raises(Conflict) as caught:
            await log.append(events[30])
        assert "failover" in str(caught.value) and caught.value.actual == \
            (await client.xrevrange(key, count=1))[0][0].decode()
        with pytest.raises(StoreError):  # the producer refuses to go on over the gap
            await log.append(events[30])
        assert await client.xlen(key) == 20
        # As the docs say: a new log object loads the session from the log; append again what is missing.
        again = RedisEventLog(client, key)
        assert len((await again.session()).replies) == 1
        await again.extend(events[20:])
        await again.close()
        await every_reader_gets(client, key, built(events), step=5)


async def test_an_entry_another_writer_deleted_is_no_lost_write(redis_server: RedisServer) -> None:
    _, events = session(2)
    key = new_key()
    async with connect(redis_server) as client:
        log = RedisEventLog(client, key)
        ids = await log.extend(events[:10])
        await client.xdel(key, ids[-1])
        ids += await log.extend(events[10:])
        assert len(ids) == len(events)


async def test_a_conditional_answer_is_taken_once_of_many_replicas(redis_server: RedisServer) -> None:
    expected, events = session(2)
    park = next(i for i, e in enumerate(events) if type(e) is ev.RequireUserConfirmEvent) + 1
    key = new_key()
    async with connect(redis_server) as client:
        await RedisEventLog(client, key).extend(events[:park])
        # Each request's own object, and the session as each read it before deciding: all see the park.
        requests = [RedisEventLog(client, key) for _ in range(20)]
        states = [await log.session() for log in requests]
        assert all(state.refusal(events[park]) is None for state in states)  # type: ignore[arg-type]
        taken: list[str] = []
        refused: list[Conflict] = []

        async def answer(log: RedisEventLog, last_id: str) -> None:
            try:
                taken.append(await log.append(events[park], expect=last_id))
            except Conflict as exc:
                refused.append(exc)

        async with anyio.create_task_group() as tg:
            for log, state in zip(requests, states, strict=True):
                tg.start_soon(answer, log, state.last_id)
        assert len(taken) == 1 and len(refused) == 19
        answered = await RedisEventLog(client, key).session()
        assert answered.refusal(events[park]) is not None  # type: ignore[arg-type]
        assert await client.xlen(key) == park + 1
        assert waiting(expected[1]).state == "ended"
