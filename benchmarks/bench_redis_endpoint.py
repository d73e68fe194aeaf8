"""Serving a reply from Redis, wire against agentscope's app as it runs.

On a real redis-server this module starts on a free 127.0.0.1 port
(persistence off); skipped without ``redis-server`` or agentscope.

* ``test_append``: the 24,800-event reply written by
  ``RedisEventLog.extend`` (Lua scripts of 512 events, one pipeline), against
  agentscope's ``RedisMessageBus.log_append`` per event (``json.dumps`` of the
  event's dict, ``XADD MAXLEN ~ 1000``: what ``publish_session_event`` does
  before it publishes) and against wire's own unpipelined loop (one ``XADD``
  per event, awaited in turn: how much of the gain is pipelining alone). The
  per-event paths write the first 5,000 events; the ratios are of time per
  event. Round-robin.
* ``test_endpoint``: a reply produced live while N readers (1, 10, 50)
  arrive spread out over it: reader k connects when k/N of the reply has
  been written, so only the first reader sees it from its start. Both logs
  are trimmed as agentscope trims its own (about 1,000 entries). The
  producer writes the reply in 100 steps of 248 events, pausing between
  steps so readers can keep up. Each reader reads until the reply's end.

  - wire: ``RedisEventLog(client, key, max_len=1000, msg=...)`` written by
    ``extend`` per step; each reader serves ``RedisEventLog(client,
    key).sse()``: a late reader gets a checkpoint (the Msg so far) and the
    entries after it, so every reader ends with the exact Msg.
  - agentscope: its endpoint as ``agentscope.app._router._session.
    stream_session_events`` runs it, replicated here line for line without
    the HTTP layer and the HITL projection (one more read per connection):
    subscribe to the session's Pub/Sub channel (a feeder task into an
    ``asyncio.Queue``), then one ``log_read(key, since=None,
    max_count=1000)`` (agentscope reads at most 1,000 entries, once), then
    every live event: ``json.loads`` (in ``subscribe``), dropping replayed
    entry ids, ``json.dumps`` and the SSE frame, per event per reader,
    encoded to bytes as Starlette does. A late reader gets at most the last
    1,000 entries and what follows: not the whole reply. The producer is
    ``publish_session_event``'s two writes per event (``XADD MAXLEN ~ 1000``
    and ``PUBLISH`` with ``_entry_id``), pipelined per step.

  The figure is CPU seconds of this process (``time.process_time``: the
  serving process's work, not Redis's, and not time spent waiting), less
  those of the same producer with no reader, in the same round: the
  readers' cost. Rounds alternate the two systems; a ratio is of medians.
  Every reader's body is checked after each run, outside the timer (wire:
  every reader ends with the reply's exact Msg; agentscope: the first reader
  got every event). Target (one reader): wire >= 5x; 5 rounds for one reader,
  3 for 10, 1 for 50 (agentscope's 50 readers take minutes of CPU).

Run: ``.venv/bin/python -m pytest benchmarks/bench_redis_endpoint.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import wire
from benchmarks import workload
from benchmarks.conftest import ROUNDS_SCALE, interleaved

aioredis = pytest.importorskip("redis.asyncio")
if shutil.which("redis-server") is None:
    pytest.skip("redis-server is not installed", allow_module_level=True)
bus_module = pytest.importorskip("agentscope.app.message_bus._redis_message_bus")

from tests.redis_server import running_server  # noqa: E402
from wire.framing import SSEDecoder  # noqa: E402
from wire.resume import Conversation, begin_reply  # noqa: E402
from wire.stores.redis import RedisEventLog  # noqa: E402

MAX_LEN = 1000  # agentscope's MessageBusKeys.SESSION_REPLAY_MAX_LEN: its MAXLEN ~ and its one replay read
STEPS = 100
PAUSE = 0.005  # seconds between producer steps


@cache
def events() -> list[wire.AgentEvent]:
    return workload.reply_events(seed=0)


def first_msg() -> wire.Msg:
    """The reply's Msg as a reader begins it, from its REPLY_START."""
    start = events()[0]
    assert isinstance(start, wire.ReplyStartEvent)
    return begin_reply(start)


@cache
def agentscope_dicts() -> list[dict[str, Any]]:
    """The reply's events as agentscope's app holds them: ``model_dump(mode="json")``."""
    as_event = pytest.importorskip("agentscope.event")
    pydantic = pytest.importorskip("pydantic")
    from typing import Annotated

    adapter = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])
    return [adapter.validate_json(wire.json.encode(event)).model_dump(mode="json") for event in events()]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        loop.close()


@pytest.fixture(scope="module")
def server(loop: asyncio.AbstractEventLoop) -> Iterator[Any]:
    with tempfile.TemporaryDirectory() as directory, running_server(Path(directory)) as server:
        client = aioredis.Redis.from_url(server.url)
        # A subscriber that falls behind keeps its messages (Redis's default drops it past 8 MB for 60 s).
        loop.run_until_complete(client.config_set("client-output-buffer-limit", "pubsub 0 0 0"))
        loop.run_until_complete(client.aclose())
        yield server


@pytest.fixture(scope="module")
def client(loop: asyncio.AbstractEventLoop, server: Any) -> Iterator[Any]:
    # 50 readers on two shared cores can wait longer than redis-py's default 5 s socket timeout.
    client = aioredis.Redis.from_url(server.url, max_connections=256, socket_timeout=120)
    yield client
    loop.run_until_complete(client.aclose())


@pytest.fixture(scope="module")
def bus(loop: asyncio.AbstractEventLoop, server: Any) -> Iterator[Any]:
    bus = bus_module.RedisMessageBus(host="127.0.0.1", port=server.port, max_connections=256, socket_timeout=120)
    loop.run_until_complete(bus.__aenter__())
    yield bus
    loop.run_until_complete(bus.aclose())


def sync(loop: asyncio.AbstractEventLoop, make: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
    return lambda *args: loop.run_until_complete(make(*args))


# -- append ------------------------------------------------------------------------------------

PER_EVENT = 5000  # the per-event paths are slow: the first 5,000 events give the same time per event


def test_append(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any, bus: Any) -> None:
    reply, dicts = events(), agentscope_dicts()[:PER_EVENT]
    first = reply[:PER_EVENT]

    async def wire_extend(key: str) -> None:
        await RedisEventLog(client, key).extend(reply)
        await client.delete(key)

    async def wire_one_xadd_per_event(key: str) -> None:
        for event in first:
            await client.xadd(key, {"payload": wire.json.encode(event)})
        await client.delete(key)

    async def agentscope_log_append(key: str) -> None:
        for event in dicts:
            await bus.log_append(key, event, max_len=MAX_LEN)
        await bus.get_client().delete(key)

    def fresh() -> tuple[str]:
        return (f"bench:{uuid.uuid4().hex}",)

    names = {"wire: RedisEventLog.extend, scripts of 512 in one pipeline": (wire_extend, len(reply)),
             "agentscope: log_append per event": (agentscope_log_append, PER_EVENT),
             "wire, unpipelined: one XADD per event, awaited": (wire_one_xadd_per_event, PER_EVENT)}
    cases = {name: (sync(loop, fn), fresh) for name, (fn, _) in names.items()}
    medians = interleaved(benchmark, cases, rounds=3, events={name: n for name, (_, n) in names.items()})
    per_event = {name: medians[name] / n for name, (_, n) in names.items()}
    wire_ = per_event["wire: RedisEventLog.extend, scripts of 512 in one pipeline"]
    benchmark.extra_info["events_per_s"] = {name: 1 / t for name, t in per_event.items()}
    benchmark.extra_info["ratios"] = {
        "append: wire extend vs agentscope log_append per event (info)":
            per_event["agentscope: log_append per event"] / wire_,
        "append: wire extend vs wire's own unpipelined loop, one XADD per event (info)":
            per_event["wire, unpipelined: one XADD per event, awaited"] / wire_,
    }


# -- the endpoint, as it runs ------------------------------------------------------------------


async def agentscope_endpoint(bus: Any, key: str, subscribed: Callable[[], None]) -> AsyncIterator[bytes]:
    """``stream_session_events``'s generator (agentscope 2.0.11), without the
    HITL projection; ends at the reply's end (the real one stays open).
    ``subscribed`` tells the benchmark's producer the subscription is live."""
    ready = asyncio.Event()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def on_ready() -> None:
        ready.set()
        subscribed()

    async def feeder() -> None:
        try:
            async for evt in bus.subscribe(key, on_ready=on_ready):
                await queue.put(evt)
        except asyncio.CancelledError:
            pass
        finally:
            await queue.put(None)

    feeder_task = asyncio.create_task(feeder())
    try:
        await asyncio.wait_for(ready.wait(), timeout=10)  # agentscope's is 5 s; a loaded machine must not fail a run
        seen_entry_ids: set[str] = set()
        for entry_id, event in await bus.log_read(key, since=None, max_count=MAX_LEN):
            seen_entry_ids.add(str(entry_id))
            yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()
            if event.get("type") == "REPLY_END":
                return
        while True:
            item = await asyncio.wait_for(queue.get(), timeout=30)
            if item is None:
                break
            entry_id = item.get("_entry_id")
            if entry_id is not None:
                entry_id = str(entry_id)
                if entry_id in seen_entry_ids:
                    continue
            payload = {k: v for k, v in item.items() if k != "_entry_id"}
            data = json.dumps(payload, ensure_ascii=False)
            yield f"data: {data}\n\n".encode()
            if payload.get("type") == "REPLY_END":
                return
    finally:
        feeder_task.cancel()
        try:  # noqa: SIM105  # as agentscope writes it
            await feeder_task
        except asyncio.CancelledError:
            pass


def _steps(n: int) -> list[slice]:
    size = -(-n // STEPS)
    return [slice(i, i + size) for i in range(0, n, size)]


async def _read_all(body: AsyncIterator[bytes], out: list[bytes]) -> None:
    async for chunk in body:
        out.append(chunk)


async def scenario(system: str, readers: int, client: Any, bus: Any) -> list[bytes]:
    """Produce the reply live in STEPS steps; reader k arrives before step
    k * STEPS / readers. Returns each reader's body."""
    key = f"bench:{uuid.uuid4().hex}"
    arrivals = {k * STEPS // readers: 0 for k in range(readers)} if readers else {}
    for k in range(readers):
        arrivals[k * STEPS // readers] += 1
    bodies: list[list[bytes]] = []
    tasks: list[asyncio.Task[None]] = []
    subscribed = [0]
    all_subscribed = asyncio.Event()

    def one_more() -> None:
        subscribed[0] += 1
        if subscribed[0] == len(tasks):
            all_subscribed.set()
    if system == "wire":
        log = RedisEventLog(client, key, max_len=MAX_LEN, msg=first_msg())
        reply: list[Any] = events()
    else:
        reply = agentscope_dicts()
    ids = [f"1-{i + 1}" for i in range(len(reply))]
    try:
        for step, part in enumerate(_steps(len(reply))):
            for _ in range(arrivals.get(step, 0)):
                bodies.append([])
                if system == "wire":
                    body: AsyncIterator[bytes] = RedisEventLog(client, key).sse(heartbeat=None)
                else:
                    body = agentscope_endpoint(bus, key, one_more)
                    all_subscribed.clear()
                tasks.append(asyncio.create_task(_read_all(body, bodies[-1])))
            if system == "agentscope" and subscribed[0] < len(tasks):
                await all_subscribed.wait()  # a reader that has arrived is subscribed before the next write
            if system == "wire":
                await log.extend(reply[part])
            else:
                # publish_session_event's two writes per event, pipelined per step
                async with client.pipeline(transaction=False) as pipe:
                    for entry_id, event in zip(ids[part], reply[part], strict=True):
                        pipe.xadd(key, {"payload": json.dumps(event, ensure_ascii=False)}, id=entry_id,
                                  maxlen=MAX_LEN, approximate=True)
                        pipe.publish(key, json.dumps({**event, "_entry_id": entry_id}, ensure_ascii=False))
                    await pipe.execute()
            await asyncio.sleep(PAUSE)
        if system == "wire":
            await log.close()
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await client.delete(key, RedisEventLog(client, key).checkpoint_key)
    return [b"".join(body) for body in bodies]


def _check(system: str, bodies: list[bytes]) -> None:
    """wire: every reader, early or late, ends with the reply's exact Msg.
    agentscope: every reader's body is its frames up to the reply's end, and
    the first reader, there from the start, got every event."""
    if system == "wire":
        whole = Conversation()
        whole.extend(events())
        want = wire.json.encode(whole.last)
        for body in bodies:
            got = Conversation()
            got.extend(SSEDecoder().feed(body))
            assert wire.json.encode(got.last) == want
    else:
        for body in bodies:
            frames = [json.loads(frame[6:]) for frame in body.split(b"\n\n") if frame]
            assert frames[-1]["type"] == "REPLY_END"
        assert bodies[0].count(b"\n\ndata: ") + 1 == len(events())


@pytest.mark.parametrize("readers", [1, 10, 50])
def test_endpoint(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any, bus: Any, readers: int) -> None:
    run_ = sync(loop, scenario)
    rounds = max(1, round({1: 5, 10: 3, 50: 1}[readers] * ROUNDS_SCALE))
    cpu: dict[str, list[float]] = {"wire": [], "agentscope": []}
    producer: dict[str, list[float]] = {"wire": [], "agentscope": []}
    sizes: dict[str, list[int]] = {}

    def one_round(order: list[str]) -> None:
        for system in order:
            gc.collect()
            t0 = time.process_time()
            bodies = run_(system, readers, client, bus)
            cpu[system].append(time.process_time() - t0)
            _check(system, bodies)  # every round's bodies, outside the timer: a wrong body fails the case
            sizes[system] = [len(body) for body in bodies]
            del bodies
            gc.collect()
            t0 = time.process_time()
            run_(system, 0, client, bus)
            producer[system].append(time.process_time() - t0)

    turn = [0]

    def prepare() -> tuple[tuple[Any, ...], dict[str, Any]]:
        turn[0] += 1
        return ((["wire", "agentscope"] if turn[0] % 2 else ["agentscope", "wire"]),), {}

    benchmark.pedantic(one_round, setup=prepare, rounds=rounds, warmup_rounds=0)
    readers_cpu = {s: statistics.median(a - b for a, b in zip(cpu[s], producer[s], strict=True)) for s in cpu}
    benchmark.extra_info.update(
        readers=readers, rounds=rounds, cpu_s={s: statistics.median(v) for s, v in cpu.items()},
        producer_cpu_s={s: statistics.median(v) for s, v in producer.items()}, readers_cpu_s=readers_cpu,
        body_bytes={s: sum(v) for s, v in sizes.items()}, first_body_bytes={s: v[0] for s, v in sizes.items()})
    goal = "(>= 5)" if readers == 1 else "(info)"
    benchmark.extra_info["ratios"] = {
        f"Redis endpoint, {readers} reader{'s' * (readers > 1)} arriving spread out: readers' CPU, "
        f"agentscope / wire {goal}": readers_cpu["agentscope"] / readers_cpu["wire"]}
