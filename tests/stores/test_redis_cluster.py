"""The Redis store on a real Redis Cluster (3 masters with a replica each,
started by the tests: ``tests/redis_cluster.py``), through redis-py's
asyncio ``RedisCluster``: the store contract's suite, a long batch, and
failovers while readers follow and a producer writes.

What a failover does to a log, as these tests check it:

* A manual failover (``CLUSTER FAILOVER``: the replica catches up first)
  loses nothing: the producer's appends all return, and every reader ends
  with the exact Msg.
* A crashed master (SIGKILL) loses the writes its replica had not copied
  yet (Redis replicates asynchronously). Readers ride it out (the store
  retries for ``retry_for`` seconds, also through the seconds in which the
  cluster answers CLUSTERDOWN) and end exact when no write was lost. A
  producer's append meanwhile returns or raises StoreError, never redis-py's
  own exception; after a StoreError the log refuses every further append
  and its close, since its Msg may no longer match the stream.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import Any

import anyio
import pytest

from tests.redis_cluster import Cluster, connect_cluster, redis_cluster
from wire import json as wire_json
from wire.errors import StoreError
from wire.events import AgentEvent, CustomEvent
from wire.messages import Msg
from wire.resume import CHECKPOINT
from wire.stores import Entry
from wire.stores.conformance import StoreContract, Stores, rebuild, reply

pytest.importorskip("redis.asyncio")
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.crc import key_slot

from wire.stores.redis import RedisEventLog

__all__ = ("redis_cluster",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio

_keys = itertools.count()
# A client that never resends a command itself: what carries a reader through
# a failover is then the store's own retrying, and a producer's failure is
# its to report.
NO_RETRY: dict[str, Any] = {"retry": Retry(NoBackoff(), 0)}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # redis-py's client runs on asyncio only


class TestRedisCluster(StoreContract):
    @pytest.fixture
    def stores(self, redis_cluster: Cluster) -> Stores:
        @asynccontextmanager
        async def open_log(msg: Msg, *, keep: int | None = None) -> AsyncIterator[Any]:
            key = f"conformance:{next(_keys)}"  # no hash tag: the logs fall into several slots
            async with connect_cluster(redis_cluster) as producer, connect_cluster(redis_cluster) as readers:
                log = RedisEventLog(producer, key, msg=msg, max_len=keep)
                yield log, lambda: RedisEventLog(readers, key)
                await log.delete()

        return open_log


# -- helpers ----------------------------------------------------------------------------------------


def _fresh(msg: Msg) -> Msg:
    return wire_json.decode_msg(wire_json.encode(msg))


def _whole(msg: Msg, events: list[AgentEvent]) -> bytes:
    built = _fresh(msg)
    built.extend_events(events)
    return wire_json.encode(built)


def _order(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq)


def _keys_on_every_master(cluster: Cluster, prefix: str, per_master: int = 1) -> list[str]:
    """Keys without hash tags, ``per_master`` of them served by each master."""
    found: dict[int, list[str]] = {}
    for n in itertools.count():
        key = f"{prefix}:{n}"
        on = found.setdefault(cluster.master_of(key).port, [])
        if len(on) < per_master:
            on.append(key)
        if len(found) == len(cluster.masters()) and all(len(v) == per_master for v in found.values()):
            return [key for keys in found.values() for key in keys]
    raise AssertionError("unreachable")


async def _follow_all(log: RedisEventLog, **options: Any) -> list[Entry]:
    entries: list[Entry] = []
    with anyio.fail_after(60):
        async with aclosing(log.follow(**options)) as batches:
            async for batch in batches:
                entries += batch
    return entries


def _is_checkpoint(event: Any) -> bool:
    return type(event) is CustomEvent and event.name == CHECKPOINT


# -- a long batch (issue: pipelined scripts are refused by the cluster client) ------------------------


async def test_a_batch_longer_than_checkpoint_every_is_written_exactly_on_every_master(
        redis_cluster: Cluster) -> None:
    """One ``extend()`` of 700 events on a log with ``msg=`` (28 script calls
    of 25 events, each with its checkpoint) and one of 600 without (two
    calls of ``SCRIPT_BATCH``): redis-py's cluster client refuses scripts in
    a pipeline, which the store used for more than one call."""
    keys = _keys_on_every_master(redis_cluster, f"long:{uuid.uuid4().hex}")
    assert len({key_slot(key.encode()) for key in keys}) == len(keys) == 3
    msg, events = reply(700)
    expected = _whole(msg, events)
    async with connect_cluster(redis_cluster) as producer, connect_cluster(redis_cluster) as readers:
        for key in keys:
            log = RedisEventLog(producer, key, msg=_fresh(msg), max_len=60, checkpoint_every=25)
            ids = await log.extend(events)
            assert len(set(ids)) == len(ids) == len(events)
            assert [_order(i) for i in ids] == sorted(map(_order, ids))
            checkpoints = await RedisEventLog(readers, key).checkpoints()
            assert list(checkpoints) == [msg.id]
            checkpoint_id, checkpoint_msg = checkpoints[msg.id]
            assert checkpoint_id == ids[-1] and wire_json.encode(checkpoint_msg) == expected
            await log.close()
            # Trimmed: the stream keeps its last entries only, the last one the last written.
            length = await readers.xlen(key)
            head = await readers.xrange(key, count=1)
            tail = await readers.xrevrange(key, count=1)
            assert 60 <= length < len(events)
            assert _order(head[0][0].decode()) > _order(ids[0]) and tail[0][0].decode() == ids[-1]
            # A fresh reader: the checkpoint, then the entries after it, and the exact Msg.
            got = await _follow_all(RedisEventLog(readers, key))
            assert _is_checkpoint(got[0][1]) and got[0][0] in ids
            assert [i for i, _ in got[1:]] == ids[ids.index(got[0][0]) + 1:]
            assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in got])) == expected
            await log.expire(60)
            assert 0 < await readers.ttl(key) <= 60 and 0 < await readers.ttl(log.checkpoint_key) <= 60

            plain = RedisEventLog(producer, key + ":plain")
            plain_events = reply(600)[1]
            plain_ids = await plain.extend(plain_events)
            assert [i for i, _ in await plain.read()] == plain_ids and len(plain_ids) == 600
            await log.delete()
            await plain.delete()


# -- failover ---------------------------------------------------------------------------------------


async def test_a_manual_failover_loses_nothing_for_a_follower_or_the_producer(redis_cluster: Cluster) -> None:
    """The producer appends one event at a time, before, during and after
    ``CLUSTER FAILOVER`` of its key's master; every append returns, and a
    follower and a fresh reader end with the exact Msg and every entry once."""
    key = f"manual:{uuid.uuid4().hex}"
    msg, events = reply(3000)
    async with connect_cluster(redis_cluster) as producer, connect_cluster(redis_cluster) as readers:
        log = RedisEventLog(producer, key, msg=_fresh(msg))
        followed: list[Entry] = []

        async def follow() -> None:
            followed.extend(await _follow_all(RedisEventLog(readers, key)))

        ids: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            ids += await log.extend(events[:20])
            done = anyio.Event()

            async def failover() -> None:
                await anyio.to_thread.run_sync(redis_cluster.failover, redis_cluster.master_of(key))
                done.set()

            tg.start_soon(failover)
            while not done.is_set() and len(ids) < len(events) - 1:
                ids.append(await log.append(events[len(ids)]))
            during = len(ids) - 20
            ids += await log.extend(events[len(ids):])
            await log.close()
        assert during > 0  # the producer did write while the failover ran
        expected = _whole(msg, events)
        assert [i for i, _ in followed] == ids
        assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in followed])) == expected
        fresh = await _follow_all(RedisEventLog(readers, key))
        assert [i for i, _ in fresh] == ids
        await log.delete()


async def test_an_idle_follower_survives_a_manual_failover_of_its_master(redis_cluster: Cluster) -> None:
    """A follower waiting at the end of the log (in ``XREAD BLOCK``) when its
    key's master fails over: Redis answers the blocked read with UNBLOCKED
    (the node turned replica); the follower reads on from the new master and
    ends with the exact Msg."""
    key = f"idle:{uuid.uuid4().hex}"
    msg, events = reply(40)
    async with connect_cluster(redis_cluster) as producer, connect_cluster(redis_cluster) as readers:
        log = RedisEventLog(producer, key, msg=_fresh(msg))
        followed: list[Entry] = []

        async def follow() -> None:
            followed.extend(await _follow_all(RedisEventLog(readers, key)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            ids = await log.extend(events[:20])
            await anyio.sleep(0.3)  # the follower has read the 20 and waits for more
            await anyio.to_thread.run_sync(redis_cluster.failover, redis_cluster.master_of(key))
            ids += await log.extend(events[20:])
            await log.close()
        assert [i for i, _ in followed] == ids
        assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in followed])) == _whole(msg, events)
        await log.delete()


async def test_followers_ride_out_a_killed_master_and_the_cluster_being_down(redis_cluster: Cluster) -> None:
    """A follower of a log on each master (on a client that never retries
    itself) while one master is SIGKILLed and the cluster stays down (every
    node answering CLUSTERDOWN) for a second before its replica takes
    over: each follower keeps going and ends with the exact Msg."""
    keys = _keys_on_every_master(redis_cluster, f"killed:{uuid.uuid4().hex}")
    msg, events = reply(100)
    expected = _whole(msg, events)
    async with connect_cluster(redis_cluster) as producer, connect_cluster(redis_cluster, **NO_RETRY) as readers:
        logs = [RedisEventLog(producer, key, msg=_fresh(msg)) for key in keys]
        for log in logs:
            await log.extend(events[:50])
        for master in redis_cluster.masters():
            redis_cluster.replicated(master)  # nothing written is lost with the master
        got: dict[str, list[Entry]] = {}

        async def follow(key: str) -> None:
            got[key] = await _follow_all(RedisEventLog(readers, key), heartbeat=0.05)

        async with anyio.create_task_group() as tg:
            for key in keys:
                tg.start_soon(follow, key)
            await anyio.sleep(0.2)
            await anyio.to_thread.run_sync(lambda: redis_cluster.kill(redis_cluster.master_of(keys[0]), down_for=1.0))
            for log in logs:
                await log.extend(events[50:])
                await log.close()
        for key in keys:
            assert wire_json.encode(rebuild(_fresh(msg), [e for _, e in got[key]])) == expected, key
        for log in logs:
            await log.delete()


@pytest.mark.parametrize("client_retries", [False, True], ids=["client-never-retries", "client-retries"])
async def test_a_producer_writing_through_a_killed_master_gets_store_errors_only(
        redis_cluster: Cluster, client_retries: bool) -> None:
    """The producer appends one event at a time while its key's master is
    SIGKILLed and the cluster is down for a second: each append returns or
    raises StoreError; after the first StoreError every append, and the
    close, raise StoreError without writing. A client that never retries
    meets at least one."""
    key = f"producer:{uuid.uuid4().hex}"
    msg, events = reply(100_000)
    options = {} if client_retries else NO_RETRY
    async with connect_cluster(redis_cluster, **options) as producer:
        log = RedisEventLog(producer, key, msg=_fresh(msg))
        await log.extend(events[:2])
        done = anyio.Event()
        failed: list[StoreError] = []
        written = 2

        async def kill() -> None:
            await anyio.to_thread.run_sync(lambda: redis_cluster.kill(redis_cluster.master_of(key), down_for=1.0))
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill)
            while not done.is_set():
                try:
                    await log.append(events[written])
                    assert not failed, "an append returned after an earlier one failed"
                    written += 1
                except StoreError as exc:
                    failed.append(exc)
                    await anyio.sleep(0.05)
        if not client_retries:
            assert failed
        if failed:
            assert all(exc.key == key for exc in failed)
            assert all("earlier append failed" in str(exc) for exc in failed[1:])
            length = await producer.xlen(key)
            with pytest.raises(StoreError, match="earlier append failed"):
                await log.extend(events[written:written + 3])
            with pytest.raises(StoreError, match="earlier append failed"):
                await log.close()
            assert await producer.xlen(key) == length  # refused without writing
        else:
            await log.close()
        await log.delete()
