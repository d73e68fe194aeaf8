"""wire.stores.redis against a real redis-server (started by the tests on a free
127.0.0.1 port; see tests/redis_server.py), and against agentscope 2.0.11's
own RedisMessageBus and publish_session_event on the same server.

redis-py's asyncio client runs on asyncio only, so these tests do too.
"""

from __future__ import annotations

import uuid
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest

import wire
from tests.helpers import CASES, Case
from tests.redis_server import (
    RedisServer,
    apply,
    case_events,
    connect,
    long_reply,
    rebuilt,
    redis_server,
    reduced,
    running_server,
    sse_events,
)
from wire.errors import DecodeError, StoreError
from wire.framing import SSEDecoder
from wire.resume import RESTART, read_checkpoint

aioredis = pytest.importorskip("redis.asyncio")
from redis.crc import key_slot  # noqa: E402  (after the importorskip that guards it)

from wire.stores.redis import RedisEventLog, agentscope_session_key, checkpoint_key  # noqa: E402

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def new_key() -> str:
    return f"test:{uuid.uuid4().hex}"


# -- the log itself -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("decode_responses", [False, True])
async def test_extend_then_read_gives_the_events_and_their_ids(redis_server: RedisServer, case: Case,
                                                               decode_responses: bool) -> None:
    events = case_events(case)
    async with connect(redis_server, decode_responses=decode_responses) as client:
        log = RedisEventLog(client, new_key())
        ids = await log.extend(events[:1])
        ids += await log.extend(events[1:])
        stored = [entry_id for entry_id, _ in await client.xrange(log.key)]
        assert ids == [entry_id if isinstance(entry_id, str) else entry_id.decode() for entry_id in stored]
        read = await log.read()
        assert [entry_id for entry_id, _ in read] == ids
        assert [event for _, event in read] == events
        # strictly after the cursor; at most count
        assert await log.read(after=ids[0], count=2) == read[1:3]
        assert await log.read(after=ids[-1]) == []
        assert log.last_id == ids[-1]


@pytest.mark.parametrize(("keep_checkpoints", "calls"), [(False, 3), (True, 5)])
async def test_ids_increase_and_one_batch_is_one_script_call_per_chunk(redis_server: RedisServer,
                                                                       keep_checkpoints: bool, calls: int) -> None:
    _, events = long_reply(1200)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), keep_checkpoints=keep_checkpoints)
        before = (await client.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0)
        ids = await log.extend(events)
        after = (await client.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0)
        # 1200 events in scripts of 512, or of checkpoint_every (256) with checkpoints: one pipeline
        assert after - before == calls
        order = [tuple(map(int, entry_id.split("-"))) for entry_id in ids]
        assert order == sorted(order) and len(set(order)) == len(order)
        assert await client.xlen(log.key) == 1200


async def test_sse_frames_carry_entry_ids_and_payload_bytes_untouched(redis_server: RedisServer) -> None:
    async with connect(redis_server) as client:
        key = new_key()
        # A foreign producer's spacing and key order: the frames keep it exactly.
        payload = '{"type": "TEXT_BLOCK_START", "reply_id": "r1", "block_id": "b1", "id": "e1", ' \
                  '"created_at": "2026-01-01T00:00:00", "metadata": {}, "é": null}'
        entry_id = (await client.xadd(key, {"payload": payload})).decode()
        log = RedisEventLog(client, key)
        await client.hset(log.checkpoint_key, "end", entry_id)  # so that sse() ends
        body = b""
        async with aclosing(log.sse(heartbeat=None)) as frames:
            async for chunk in frames:
                body += chunk
        assert body == b"id: " + entry_id.encode() + b"\ndata: " + payload.encode() + b"\n\n"


async def test_a_payload_over_several_lines_becomes_several_data_lines(redis_server: RedisServer) -> None:
    async with connect(redis_server) as client:
        key = new_key()
        payload = b'{"type": "TEXT_BLOCK_START",\n "id": "e1", "created_at": "2026-01-01T00:00:00",\n' \
                  b' "reply_id": "r1", "block_id": "b1"}'
        entry_id = (await client.xadd(key, {"payload": payload})).decode()
        log = RedisEventLog(client, key)
        await client.hset(log.checkpoint_key, "end", entry_id)
        events, last = await sse_events(log)
        assert events == [wire.json.decode_event(payload)] and last == entry_id


async def test_follow_replays_then_goes_live_and_stops_at_the_end(redis_server: RedisServer) -> None:
    _, events = long_reply(300)
    async with connect(redis_server) as client:
        key = new_key()
        producer = RedisEventLog(client, key)
        await producer.extend(events[:100])
        got: list[Any] = []

        async def reader() -> None:
            async with connect(redis_server) as own:
                async for batch in RedisEventLog(own, key).follow(max_batch=64):
                    assert 0 < len(batch) <= 64
                    got.extend(batch)

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            for event in events[100:]:
                await producer.append(event)
            await producer.close()
        assert [event for _, event in got] == events
        assert [entry_id for entry_id, _ in got] == [entry_id for entry_id, _ in await producer.read()]


async def test_readers_in_step_share_their_reads(redis_server: RedisServer) -> None:
    _, events = long_reply(2000)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key())
        await log.extend(events)
        await log.close()
        expected = b"".join([chunk async for chunk in log.sse(heartbeat=None)])

        async def body() -> bytes:
            return b"".join([chunk async for chunk in RedisEventLog(client, log.key).sse(heartbeat=None)])

        before = (await client.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0)
        bodies: list[bytes] = []

        async def reader() -> None:
            bodies.append(await body())

        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(reader)
        reads = (await client.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0) - before
        assert bodies == [expected] * 10
        assert reads < 10 * 4  # 10 readers of 4 batches each, alone: 40 reads


async def test_follow_yields_empty_batches_as_heartbeats(redis_server: RedisServer) -> None:
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key())
        with anyio.fail_after(5):
            async with aclosing(log.follow(heartbeat=0.1)) as batches:
                assert await anext(batches) == []
        frames = log.sse(heartbeat=0.1)
        with anyio.fail_after(5):
            assert await anext(frames) == b":\n\n"
        await frames.aclose()


async def test_close_ends_every_reader_even_without_events(redis_server: RedisServer) -> None:
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), msg=wire.AssistantMsg("Friday", [], id="r1"))
        await log.close()
        with anyio.fail_after(5):
            assert [batch async for batch in log.follow()] == []
            assert await sse_events(log) == ([], "")


# -- resume ------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_resumed_sse_stream_rebuilds_the_msg_exactly(redis_server: RedisServer, case: Case) -> None:
    events = case_events(case)
    async with connect(redis_server) as client:
        key = new_key()
        log = RedisEventLog(client, key, msg=wire.json.decode_msg(case.initial_msg), checkpoint_every=7)
        await log.extend(events)
        await log.close()
        whole, last = await sse_events(RedisEventLog(client, key))
        assert whole == events and last == log.last_id
        assert wire.json.encode(rebuilt(case, whole)) == reduced(case)
        for cut in (1, len(events) // 2, len(events) - 1):
            seen = whole[:cut]
            last_seen = (await log.read())[cut - 1][0]
            for resume in ("checkpoint", "replay"):
                rest, _ = await sse_events(RedisEventLog(client, key), last_seen, resume=resume)
                assert wire.json.encode(rebuilt(case, seen + rest)) == reduced(case), (cut, resume)
                if resume == "replay":
                    assert rest == events[cut:]
                else:
                    assert read_checkpoint(rest[0]) is not None


async def test_checkpoint_resume_sends_the_latest_checkpoint_with_the_id_it_covers(redis_server: RedisServer) -> None:
    msg, events = long_reply(50)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), msg=msg, checkpoint_every=10)
        ids = [await log.append(event) for event in events[:25]]
        covered, snapshot = (await log.checkpoints())["r1"]
        assert covered == ids[20] and snapshot is not None  # after the 1st event (the first call), 11th, 21st
        decoder = SSEDecoder()
        async with aclosing(log.sse(ids[3], heartbeat=None)) as body:
            frames = decoder.feed(await anext(body))
        assert read_checkpoint(frames[0]) == snapshot
        assert decoder.last_event_id in (covered, ids[-1])


async def test_an_unknown_or_malformed_last_event_id_restarts_from_the_beginning(redis_server: RedisServer) -> None:
    _, events = long_reply(20)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key())
        ids = await log.extend(events)
        await log.close()
        got, last = await sse_events(log, "", resume="replay")  # no id: a new reader
        assert got == events and last == ids[-1]
        # An id of another log (one lost and made again), or none at all: a restart, then the log.
        for last_event_id in ("nonsense", "99999999999999-0", "12", "١٢-0", "0-1"):
            for resume in ("replay", "checkpoint"):
                got, last = await sse_events(log, last_event_id, resume=resume)
                assert [e.name for e in got[:1]] == [RESTART] and got[1:] == events, last_event_id
                assert last == ids[-1]


# -- past MAXLEN -------------------------------------------------------------------------------


async def test_25k_events_with_max_len_1000_are_rebuilt_exactly_by_a_fresh_reader(redis_server: RedisServer) -> None:
    msg, events = long_reply(25_000)
    async with connect(redis_server) as client:
        key = new_key()
        log = RedisEventLog(client, key, msg=msg, max_len=1000)
        for start in range(0, len(events), 700):  # batches as a producer's bursts come
            await log.extend(events[start:start + 700])
            if start == 7000:  # a reader arriving mid-reply, then following it live
                mid = RedisEventLog(client, key)
                mid_events: list[Any] = []
                follower = aclosing(mid.follow())
                batches = await follower.__aenter__()
                mid_events += [event for _, event in await anext(batches)]
        assert 1000 <= await client.xlen(key) < 2000
        await log.close()
        expected = wire.json.encode(log.msg)
        async for batch in batches:
            mid_events += [event for _, event in batch]
        await follower.__aexit__(None, None, None)

        def build(stream: list[Any]) -> bytes:
            return wire.json.encode(apply(wire.AssistantMsg("Friday", [], id="r1"), stream))

        fresh, _ = await sse_events(RedisEventLog(client, key))
        assert read_checkpoint(fresh[0]) is not None
        assert build(fresh) == expected
        assert build(mid_events) == expected
        followed = [event async for batch in RedisEventLog(client, key).follow() for _, event in batch]
        assert build(followed) == expected


async def test_a_reader_that_falls_behind_the_trim_goes_on_from_the_checkpoint(redis_server: RedisServer) -> None:
    msg, events = long_reply(3000)
    async with connect(redis_server) as client:
        key = new_key()
        log = RedisEventLog(client, key, msg=msg, max_len=200)
        await log.extend(events[:100])
        got: list[Any] = []
        reader = RedisEventLog(client, key)
        async with aclosing(reader.follow(max_batch=50)) as batches:
            got += [event for _, event in await anext(batches)]  # 50 read, then this reader stalls
            await log.extend(events[100:])  # meanwhile the reply runs far past max_len
            await log.close()
            async for batch in batches:
                got += [event for _, event in batch]
        assert any(read_checkpoint(event) is not None for event in got)
        built = apply(wire.AssistantMsg("Friday", [], id="r1"), got)
        assert wire.json.encode(built) == wire.json.encode(log.msg)


async def test_a_new_reader_whose_start_is_trimmed_before_its_first_read_begins_at_the_checkpoint(
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader from the start looks at the log (nothing trimmed yet), then
    the producer writes far past max_len before the reader's first read: the
    read sees the session's first entry gone and the reader goes on from the
    checkpoint, never from the middle of the reply (it did, before)."""
    msg, events = long_reply(3000)
    async with connect(redis_server) as client:
        key = new_key()
        log = RedisEventLog(client, key, msg=msg, max_len=200)
        await log.extend(events[:100])
        reader = RedisEventLog(client, key)
        look = type(reader)._shared_look

        async def look_then_trim(self: Any) -> Any:
            found = await look(self)
            if self is reader:
                await log.extend(events[100:])
                await log.close()
            return found

        monkeypatch.setattr(type(reader), "_shared_look", look_then_trim)
        got = [event async for batch in reader.follow() for _, event in batch]
        assert read_checkpoint(got[0]) is not None
        built = apply(wire.AssistantMsg("Friday", [], id="r1"), got)
        assert wire.json.encode(built) == wire.json.encode(log.msg)


async def test_a_log_without_a_checkpoint_serves_what_it_keeps_but_never_skips_a_readers_entries(
        redis_server: RedisServer) -> None:
    """A log kept without checkpoints (as agentscope's own session stream
    is): a new reader reads every entry the stream
    keeps, trimmed or not; a reader whose unread entries were trimmed away
    gets StoreError, never a silent gap."""
    _, events = long_reply(3000)
    async with connect(redis_server) as client:
        key = new_key()
        log = RedisEventLog(client, key, max_len=100, keep_checkpoints=False)
        ids = await log.extend(events[:20])
        async with aclosing(RedisEventLog(client, key).follow()) as batches:
            fresh = await anext(batches)
        assert [entry_id for entry_id, _ in fresh] == ids and [event for _, event in fresh] == events[:20]
        reader = RedisEventLog(client, key)
        async with aclosing(reader.follow(max_batch=5)) as batches:
            assert [entry_id for entry_id, _ in await anext(batches)] == ids[:5]  # then this reader stalls
            await log.extend(events[20:])  # meanwhile the stream is trimmed far past it
            await log.close()
            with pytest.raises(StoreError, match="trimmed"):
                async for _ in batches:
                    pass
        kept = await log.read()
        assert len(kept) < len(events)
        got, last = await sse_events(RedisEventLog(client, key))
        assert got == [event for _, event in kept] and last == kept[-1][0]
        with pytest.raises(StoreError, match="trimmed"):
            await sse_events(RedisEventLog(client, key), ids[5], resume="replay")


def test_the_checkpoint_key_shares_the_streams_hash_slot() -> None:
    for key in ("agentscope:session:events:abc", "plain", "with{tag}inside", "{tag}", "odd}key", "a{}b", "{}", "é{"):
        try:
            name = checkpoint_key(key)
        except ValueError:
            assert key_slot(("{" + key + "}:wire.checkpoint").encode()) != key_slot(key.encode())
            continue
        assert key_slot(name.encode()) == key_slot(key.encode()), key
        assert name != key
    assert checkpoint_key(agentscope_session_key("s1")) == "{agentscope:session:events:s1}:wire.checkpoint"


# -- lifecycle ---------------------------------------------------------------------------------


async def test_ttl_expires_a_finished_log_and_its_checkpoint(redis_server: RedisServer) -> None:
    msg, events = long_reply(10)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), msg=msg, ttl=0.3)
        await log.extend(events)
        await log.close()
        assert 0 < await client.pttl(log.key) <= 300 and 0 < await client.pttl(log.checkpoint_key) <= 300
        with anyio.fail_after(5):
            while await client.exists(log.key, log.checkpoint_key):
                await anyio.sleep(0.05)


async def test_trim_expire_and_delete(redis_server: RedisServer) -> None:
    msg, events = long_reply(40)
    async with connect(redis_server) as client:
        log = RedisEventLog(client, new_key(), msg=msg)
        ids = await log.extend(events)
        await log.close()
        assert await log.trim(ids[10]) == 10
        assert [entry_id for entry_id, _ in await log.read()] == ids[10:]
        # A fresh reader of the trimmed reply still ends with the exact Msg.
        got, _ = await sse_events(RedisEventLog(client, log.key))
        assert read_checkpoint(got[0]) is not None
        await log.expire(100)
        assert 0 < await client.ttl(log.key) <= 100
        await log.delete()
        assert not await client.exists(log.key, log.checkpoint_key)


# -- bad entries -------------------------------------------------------------------------------


async def test_foreign_entries_follow_the_unknown_event_policy(redis_server: RedisServer) -> None:
    good = wire.TextBlockStartEvent(reply_id="r1", block_id="b1")
    unknown = b'{"type": "FUTURE_EVENT", "reply_id": "r1"}'
    async with connect(redis_server) as client:
        key = new_key()
        first = (await client.xadd(key, {"payload": wire.json.encode(good)})).decode()
        await client.xadd(key, {"other": b"no payload field"})
        await client.xadd(key, {"payload": b"not json at all"})
        await client.xadd(key, {"payload": unknown})
        await client.xadd(key, {"payload": b'{"type": "TEXT_BLOCK_START"}'})  # a known type, fields missing
        last = (await client.xadd(key, {"payload": wire.json.encode(good)})).decode()
        await client.hset(checkpoint_key(key), "end", last)

        skip = RedisEventLog(client, key)
        assert await skip.read() == [(first, good), (last, good)]
        assert skip.skipped == 4
        events, _ = await sse_events(RedisEventLog(client, key))
        assert events == [good, good]

        keep = RedisEventLog(client, key, unknown="keep")
        kept = [event for _, event in await keep.read()]
        assert kept[0] == good and kept[-1] == good and len(kept) == 3
        assert isinstance(kept[1], wire.UnknownEvent) and kept[1].type == "FUTURE_EVENT"
        passed, _ = await sse_events(RedisEventLog(client, key, unknown="keep"), decoder=SSEDecoder(unknown="keep"))
        assert passed == kept  # the unknown event's frame goes out: the client's own policy decides
        strict = RedisEventLog(client, key, unknown="raise")
        with pytest.raises(DecodeError) as caught:
            await strict.read()
        assert key in str(caught.value) and caught.value.events == [(first.encode(), good)]
        with pytest.raises(DecodeError):
            await sse_events(strict)


# -- faults ------------------------------------------------------------------------------------


async def test_redis_gone_is_a_store_error_naming_the_log(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        async with connect(server) as client:
            key = new_key()
            log = RedisEventLog(client, key, msg=wire.AssistantMsg("Friday", [], id="r1"), retry_for=0.3)
            _, events = long_reply(10)
            await log.extend(events[:5])
            server.stop()
            with pytest.raises(StoreError) as caught:
                await log.extend(events[5:])
            assert caught.value.key == key and key in str(caught.value)
            assert "ConnectionError" in str(caught.value) and caught.value.__cause__ is not None
            with pytest.raises(StoreError, match="earlier append failed"):
                await log.append(events[-1])  # its Msg may not match the stream any more
            with pytest.raises(StoreError) as caught:
                async for _ in RedisEventLog(client, key, retry_for=0.3).follow():
                    pass
            assert caught.value.key == key
            with pytest.raises(StoreError):
                await RedisEventLog(client, key, retry_for=0.3).read()
            server.start()  # for running_server's stop


async def test_acknowledged_appends_survive_a_crash_with_aof_and_readers_reconnect(tmp_path: Path) -> None:
    msg, events = long_reply(600)
    with running_server(tmp_path, aof=True) as server:
        async with connect(server) as client, connect(server) as reader_client:
            key = new_key()
            log = RedisEventLog(client, key, msg=msg, checkpoint_every=50)
            acknowledged = await log.extend(events[:300])
            got: list[Any] = []

            async def reader() -> None:
                async for batch in RedisEventLog(reader_client, key, retry_for=20).follow():
                    got.extend(batch)

            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                with anyio.fail_after(10):
                    while len(got) < 300:
                        await anyio.sleep(0.01)
                await anyio.to_thread.run_sync(lambda: server.restart(kill=True))  # SIGKILL: no clean shutdown
                assert [entry_id for entry_id, _ in await RedisEventLog(client, key).read()] == acknowledged
                covered, _snapshot = (await log.checkpoints())["r1"]
                assert covered == acknowledged[-1]
                acknowledged += await log.extend(events[300:])  # the producer goes on after the restart
                await log.close()
            assert [entry_id for entry_id, _ in got] == acknowledged
            assert [event for _, event in got] == events
