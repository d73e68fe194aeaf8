"""The AG-UI bridge's Starlette helper serving replies from Redis: a replica
with no reply of its own in memory reads each vector from a ``RedisEventLog``
on a real redis-server, and the real ``@ag-ui/client`` (``HttpAgent`` with the
real fetch) builds the vector's Msg, resuming a parked reply run by run."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

import wire
from tests.bridges.agui_client import custom_mismatches, mismatches, needs_client, run_client_at
from tests.helpers import CASES, serve_asgi
from tests.redis_server import RedisServer, case_events, connect, redis_server

aioredis = pytest.importorskip("redis.asyncio")

from wire.bridges.agui_http import agui_endpoint  # noqa: E402  (after the importorskip that guards redis)
from wire.stores.redis import RedisEventLog  # noqa: E402

__all__ = ("redis_server",)  # the fixture, imported to be used here

# Confirmations a client answers by resuming (as in tests/bridges/test_agui_http.py).
SERVED = [c for c in CASES if c.name != "external_execution_result_appended"]


def replica(url: str) -> Starlette:
    """What a replica serves: any reply, read from Redis."""
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state["client"] = aioredis.Redis.from_url(url)
        yield
        await state["client"].aclose()

    def find_log(request: Request, run_input: Any) -> RedisEventLog:
        return RedisEventLog(state["client"], f"agui:{request.path_params['name']}")

    return Starlette(routes=[Route("/agui/{name}", agui_endpoint(find_log, heartbeat=0.2), methods=["POST"])],
                     lifespan=lifespan)


@pytest.fixture(scope="module")
def served(redis_server: RedisServer) -> Iterator[str]:
    async def write() -> None:
        async with connect(redis_server) as client:
            for case in SERVED:
                log = RedisEventLog(client, f"agui:{case.name}")
                await log.delete()
                await log.extend(case_events(case))
                await log.close()

    anyio.run(write)
    with serve_asgi(replica(redis_server.url)) as url:
        yield url


@needs_client
@pytest.mark.parametrize("case", SERVED, ids=[c.name for c in SERVED])
def test_the_real_client_builds_each_reply_from_redis(served: str, case: Any) -> None:
    report = run_client_at(f"{served}/agui/{case.name}")
    assert mismatches(wire.json.decode_msg(case.expected_msg), report) == []
    assert custom_mismatches(wire.json.decode_events(case.events_jsonl), report) == []
