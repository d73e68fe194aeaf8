"""Redis memory per event of the Redis Streams replay log, on a real
redis-server this module starts on a free 127.0.0.1 port (persistence off).
Skipped when ``redis-server`` is not installed.

Redis's ``MEMORY USAGE`` of the stream holding the 24,800-event reply, per
event, as wire writes it and as agentscope writes it (the dict
``model_dump(mode="json")`` gives: every field, nulls included). Serving and
appending, against agentscope's app as it runs, are in bench_redis_endpoint.py.

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
from benchmarks.conftest import run
from benchmarks.workload import reply_events

aioredis = pytest.importorskip("redis.asyncio")
if shutil.which("redis-server") is None:
    pytest.skip("redis-server is not installed", allow_module_level=True)

from tests.redis_server import running_server  # noqa: E402


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
    client = aioredis.Redis.from_url(server.url, socket_timeout=120)
    yield client
    loop.run_until_complete(client.aclose())


def sync(loop: asyncio.AbstractEventLoop, make: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
    return lambda *args: loop.run_until_complete(make(*args))


# -- fan-out -----------------------------------------------------------------------------------


@cache
def agentscope_dicts() -> list[dict[str, Any]]:
    """The reply's events as agentscope's app holds them: model_dump(mode="json")."""
    as_event = pytest.importorskip("agentscope.event")
    pydantic = pytest.importorskip("pydantic")
    from typing import Annotated

    adapter = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])
    return [adapter.validate_json(wire.json.encode(event)).model_dump(mode="json") for event in events()]


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
