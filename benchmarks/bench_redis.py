"""The Redis Streams replay log, on a real redis-server this
module starts on a free 127.0.0.1 port (persistence off). Skipped when
``redis-server`` is not installed.

* Append: the 24,800-event benchmark reply written by ``RedisEventLog.extend``
  (Lua scripts of 512 events, sent in one pipeline), against one ``XADD`` per
  event awaited in turn (redis-py, the payload encoded by wire), and against
  agentscope's ``log_append`` per event (``json.dumps`` of the event's dict,
  ``XADD MAXLEN ~``), which ``publish_session_event`` does before publishing.
* Fan-out: the same reply, already in Redis, served to 1, 10 and 50
  concurrent readers by one process. wire's path is ``RedisEventLog.sse()``
  read to its end (payload bytes into frames; Redis joins each batch). The
  peer is agentscope's path: ``RedisMessageBus.log_read`` in pages of 1,000
  (``XRANGE``, ``json.loads`` per event) and ``"data: " + json.dumps(event,
  ensure_ascii=False) + "\\n\\n"`` per event per reader, encoded to bytes,
  as ``agentscope.app._router._session.stream_session_events`` does. Both
  paths run in the same rounds, interleaved; target: wire >= 5x.
* Memory: Redis's ``MEMORY USAGE`` of the stream holding the reply, per
  event, as wire writes it and as agentscope writes it (the dict
  ``model_dump(mode="json")`` gives: every field, nulls included).

Run: ``.venv/bin/python -m pytest benchmarks/bench_redis.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import uuid
from collections.abc import Callable, Coroutine, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import wire
from benchmarks.conftest import interleaved, run
from benchmarks.workload import reply_events

aioredis = pytest.importorskip("redis.asyncio")
if shutil.which("redis-server") is None:
    pytest.skip("redis-server is not installed", allow_module_level=True)

from tests.redis_server import running_server  # noqa: E402
from wire.redis import RedisEventLog  # noqa: E402


@cache
def events() -> list[wire.AgentEvent]:
    return reply_events(seed=0)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        loop.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with tempfile.TemporaryDirectory() as directory, running_server(Path(directory)) as server:
        yield server


@pytest.fixture(scope="module")
def client(loop: asyncio.AbstractEventLoop, server: Any) -> Iterator[Any]:
    # 50 readers on two shared cores can wait longer than redis-py's default 5 s socket timeout.
    client = aioredis.Redis.from_url(server.url, max_connections=256, socket_timeout=120)
    yield client
    loop.run_until_complete(client.aclose())


def sync(loop: asyncio.AbstractEventLoop, make: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
    return lambda *args: loop.run_until_complete(make(*args))


# -- append ------------------------------------------------------------------------------------


def test_append_pipelined(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any) -> None:
    reply = events()

    async def write(key: str) -> None:
        await RedisEventLog(client, key).extend(reply)
        await client.delete(key)

    run(benchmark, sync(loop, write), setup=lambda: ((f"bench:{uuid.uuid4().hex}",), {}), rounds=5,
        events=len(reply))


def test_append_one_xadd_per_event(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any) -> None:
    reply = events()[:5000]  # the per-event path is slow: a fifth of the reply gives the same events/s

    async def write(key: str) -> None:
        for event in reply:
            await client.xadd(key, {"payload": wire.json.encode(event)})
        await client.delete(key)

    run(benchmark, sync(loop, write), setup=lambda: ((f"bench:{uuid.uuid4().hex}",), {}), rounds=3,
        events=len(reply))


def test_append_agentscope_log_append(benchmark: Any, loop: asyncio.AbstractEventLoop, server: Any) -> None:
    bus_module = pytest.importorskip("agentscope.app.message_bus._redis_message_bus")
    dicts = agentscope_dicts()[:5000]
    bus = bus_module.RedisMessageBus(host="127.0.0.1", port=server.port)
    loop.run_until_complete(bus.__aenter__())

    async def write(key: str) -> None:
        for event in dicts:
            await bus.log_append(key, event, max_len=1000)
        await bus.get_client().delete(key)

    try:
        run(benchmark, sync(loop, write), setup=lambda: ((f"bench:{uuid.uuid4().hex}",), {}), rounds=3,
            events=len(dicts))
    finally:
        loop.run_until_complete(bus.aclose())


# -- fan-out -----------------------------------------------------------------------------------


@cache
def agentscope_dicts() -> list[dict[str, Any]]:
    """The reply's events as agentscope's app holds them: model_dump(mode="json")."""
    as_event = pytest.importorskip("agentscope.event")
    pydantic = pytest.importorskip("pydantic")
    from typing import Annotated

    adapter = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])
    return [adapter.validate_json(wire.json.encode(event)).model_dump(mode="json") for event in events()]


@pytest.mark.parametrize("readers", [1, 10, 50])
def test_fan_out(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any, server: Any, readers: int) -> None:
    bus_module = pytest.importorskip("agentscope.app.message_bus._redis_message_bus")
    reply = events()
    key = f"bench:{uuid.uuid4().hex}"

    async def prepare() -> None:
        log = RedisEventLog(client, key)
        await log.extend(reply)
        await log.close()  # the end mark: a reader's sse() ends after the last event

    loop.run_until_complete(prepare())
    bus = bus_module.RedisMessageBus(host="127.0.0.1", port=server.port, max_connections=256, socket_timeout=120)
    loop.run_until_complete(bus.__aenter__())

    async def wire_reader() -> int:
        size = 0
        async for chunk in RedisEventLog(client, key).sse(heartbeat=None):
            size += len(chunk)
        return size

    async def agentscope_reader() -> int:
        size = 0
        since = None
        while True:
            page = await bus.log_read(key, since=since, max_count=1000)
            if not page:
                return size
            for entry_id, event in page:
                size += len(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
                since = entry_id

    async def fan_out(reader: Callable[[], Coroutine[Any, Any, int]]) -> list[int]:
        return await asyncio.gather(*(reader() for _ in range(readers)))

    try:
        sizes = {"wire": loop.run_until_complete(fan_out(wire_reader)),
                 "agentscope": loop.run_until_complete(fan_out(agentscope_reader))}
        assert all(size > 0 for size in sizes["wire"] + sizes["agentscope"])
        cases = {"wire": (sync(loop, fan_out), lambda: (wire_reader,)),
                 "agentscope": (sync(loop, fan_out), lambda: (agentscope_reader,))}
        medians = interleaved(benchmark, cases, rounds=5 if readers < 50 else 3,
                              events={name: len(reply) * readers for name in cases})
        benchmark.extra_info.update(readers=readers, ratio=medians["agentscope"] / medians["wire"],
                                    body_bytes={name: value[0] for name, value in sizes.items()})
    finally:
        loop.run_until_complete(bus.aclose())
        loop.run_until_complete(client.delete(key, RedisEventLog(client, key).checkpoint_key))


# -- memory ------------------------------------------------------------------------------------


def test_memory_per_event(benchmark: Any, loop: asyncio.AbstractEventLoop, client: Any) -> None:
    reply = events()
    dicts = agentscope_dicts()

    async def measure() -> dict[str, float]:
        per_event = {}
        for name, payloads in (("wire", [wire.json.encode(event) for event in reply]),
                               ("agentscope", [json.dumps(d, ensure_ascii=False).encode() for d in dicts])):
            key = f"bench:{uuid.uuid4().hex}"
            async with client.pipeline(transaction=False) as pipe:
                for payload in payloads:
                    pipe.xadd(key, {"payload": payload})
                await pipe.execute()
            used = await client.memory_usage(key, samples=0)  # every node counted, not a sample
            per_event[name] = used / len(payloads)
            per_event[f"{name}_payload"] = sum(map(len, payloads)) / len(payloads)
            await client.delete(key)
        return per_event

    result = run(benchmark, sync(loop, measure), rounds=2, events=len(reply) * 2)
    benchmark.extra_info.update(bytes_per_event=result)
