"""One replica of an SSE service that serves replies from Redis: what runs
behind the load balancer, once per process. The tests start two of these
with uvicorn (``REDIS_URL`` names the server) and move a client between them.

    REDIS_URL=redis://127.0.0.1:6379/0 uvicorn tests.transports.redis_replica:app --port 8001
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

from wire.stores.redis import RedisEventLog
from wire.transports.http import sse_endpoint


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    app.state.redis = aioredis.Redis.from_url(os.environ["REDIS_URL"])
    yield
    await app.state.redis.aclose()


async def find_log(request: Request) -> RedisEventLog | None:
    """The reply's log, or None (a 404) for a reply nobody started."""
    log = RedisEventLog(request.app.state.redis, f"reply:{request.path_params['id']}")
    exists = await request.app.state.redis.exists(log.key, log.checkpoint_key)
    return log if exists else None


app = Starlette(lifespan=lifespan, routes=[
    Route("/replies/{id}/events", sse_endpoint(find_log, heartbeat=1.0)),
    Route("/replies/{id}/replay", sse_endpoint(find_log, resume="replay", heartbeat=1.0)),
])
