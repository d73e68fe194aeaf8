"""Two uvicorn replicas, each its own process, serve one Redis log: a client
drops from the first mid-reply and resumes on the second with Last-Event-ID
while the producer is still appending; a 25k-event reply trimmed to 1,000
entries is rebuilt exactly by a fresh reader on either replica."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import anyio
import httpx
import pytest

import wire
from tests.helpers import ROOT
from tests.redis_server import RedisServer, apply, long_reply, redis_server, replica_processes
from wire.framing import SSEDecoder
from wire.resume import read_checkpoint
from wire.transports.streams import iter_events

aioredis = pytest.importorskip("redis.asyncio")
from wire.stores.redis import RedisEventLog  # noqa: E402

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings(
    "ignore:Async generator 'httpcore.:ResourceWarning", "ignore:Async generator 'httpx.:ResourceWarning")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer) -> Iterator[list[str]]:
    with replica_processes("tests.transports.redis_replica:app", redis_server.url) as urls:
        yield urls


async def produce(server: RedisServer, reply_id: str, msg: wire.Msg, events: list[wire.AgentEvent],
                  *, pause: float = 0.002) -> RedisEventLog:
    async with aioredis.Redis.from_url(server.url) as client:
        log = RedisEventLog(client, f"reply:{reply_id}", msg=msg, max_len=1000, ttl=600)
        for start in range(0, len(events), 50):
            await log.extend(events[start:start + 50])
            await anyio.sleep(pause)
        await log.close()
        return log


@pytest.mark.parametrize("route", ["events", "replay"])
async def test_a_client_drops_on_one_replica_and_resumes_on_the_other(redis_server: RedisServer,
                                                                      replicas: list[str], route: str) -> None:
    reply_id = uuid.uuid4().hex
    msg, events = long_reply(10_000, reply_id)
    initial = wire.json.encode(msg)  # the client starts from the same empty Msg the producer does
    first, second = replicas
    async with httpx.AsyncClient(timeout=30) as http, anyio.create_task_group() as tg:
        # About 2 s of producing, so that the drop and the resume both happen mid-reply.
        tg.start_soon(lambda: produce(redis_server, reply_id, msg, events, pause=0.01))
        built = wire.json.decode_msg(initial)
        decoder = SSEDecoder()
        seen = 0
        with anyio.fail_after(30):
            while True:  # wait for the producer's first batch: until then the reply is a 404
                async with http.stream("GET", f"{first}/replies/{reply_id}/{route}") as response:
                    if response.status_code == 404:
                        await anyio.sleep(0.01)
                        continue
                    async with aclosing(iter_events(response.aiter_bytes(), decoder)) as stream:
                        async for event in stream:
                            built = apply(built, [event])
                            seen += 1
                            if seen == 2000:
                                break  # the first replica's connection drops mid-reply
                    break
        last_event_id = decoder.last_event_id
        assert last_event_id
        assert not await _closed(redis_server, reply_id)  # the producer is still appending
        decoder = SSEDecoder(last_event_id=last_event_id)
        resumed = []
        async with http.stream("GET", f"{second}/replies/{reply_id}/{route}",
                               headers={"Last-Event-ID": last_event_id}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            async for event in iter_events(response.aiter_bytes(), decoder):
                resumed.append(event)
        if route == "events":
            assert read_checkpoint(resumed[0]) is not None
        else:
            assert resumed[0] == events[2000]
        built = apply(built, resumed)
    assert wire.json.encode(built) == wire.json.encode(msg)  # the producer's Msg, built as it appended


async def _closed(server: RedisServer, reply_id: str) -> bool:
    async with aioredis.Redis.from_url(server.url) as client:
        return bool(await client.hexists(f"{{reply:{reply_id}}}:wire.checkpoint", "end"))


async def test_a_trimmed_25k_reply_is_rebuilt_exactly_on_either_replica(redis_server: RedisServer,
                                                                        replicas: list[str]) -> None:
    reply_id = uuid.uuid4().hex
    msg, events = long_reply(25_000, reply_id)
    log = await produce(redis_server, reply_id, msg, events, pause=0)
    async with aioredis.Redis.from_url(redis_server.url) as client:
        assert await client.xlen(log.key) < 2000
    async with httpx.AsyncClient(timeout=30) as http:
        for replica in replicas:
            async with http.stream("GET", f"{replica}/replies/{reply_id}/events") as response:
                got = [event async for event in iter_events(response.aiter_bytes(), SSEDecoder())]
            assert read_checkpoint(got[0]) is not None
            built = apply(wire.AssistantMsg("Friday", [], id=reply_id), got)
            assert wire.json.encode(built) == wire.json.encode(log.msg)
        assert (await http.get(f"{replicas[0]}/replies/nobody/events")).status_code == 404


def test_the_readme_how_to_runs_against_a_real_server(redis_server: RedisServer, tmp_path: Path) -> None:
    """examples/redis/two_replicas.py, which the README quotes."""
    script = (ROOT / "examples" / "redis" / "two_replicas.py").read_text(encoding="utf-8")
    (tmp_path / "example.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "REDIS_URL": redis_server.url, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-W", "error", "example.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False, env=env)
    assert result.returncode == 0, result.stderr
    promised = [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", script, flags=re.M)]
    assert promised == ["False", "True completed"]
    assert result.stdout.splitlines() == promised
