"""The web demo's page and agent (``wire/web/``, ``wire.demo.DemoAgent``)
as one replica of a service over Redis, for the browser test with two
replicas (``tests/transports/test_browser_replicas.py``).

Each replica serves the page, ``POST /sessions`` (the session is recorded
in Redis, so every replica knows it), ``GET /sessions/{id}/stream`` and
``POST /chat`` over a :class:`wire.stores.redis.RedisEventLog` per session.
The agent runs in the replica that took the turn or the answer; readers on
any replica see it through Redis.

    REDIS_URL=redis://... CHAT_URL=http://127.0.0.1:8002/chat ALLOW_ORIGIN=http://127.0.0.1:8001 \\
        uvicorn tests.transports.demo_web_app:app

``CHAT_URL`` is where this replica tells the page to post its turns and
answers (the page reads it from the ``chat`` field of ``POST /sessions``;
default ``/chat``, its own). ``ALLOW_ORIGIN`` is the one origin allowed to
post to this replica's ``/chat`` from a page it did not serve: CORS on that
endpoint alone, for that origin alone, POST with a JSON body and nothing
else (no credentials).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, request_response
from starlette.types import ASGIApp

from wire.demo import DemoAgent
from wire.demo_web import PAGE_FILES
from wire.stores import EventStore
from wire.transports.chat import ANSWERS, ChatRequest
from wire.transports.http import answer_endpoint, sse_endpoint

__all__ = ("app", "make_app")


def make_app(redis_url: str, *, chat_url: str = "/chat", allow_origin: str | None = None,
             pace: float = 0.005) -> Starlette:
    import redis.asyncio as aioredis

    from wire.stores.redis import RedisEventLog

    agent = DemoAgent(files("wire").joinpath("data", "demo-reply.jsonl").read_bytes(), pace=pace)
    web = files("wire").joinpath("web")
    client: Any = aioredis.Redis.from_url(redis_url)

    def log(session_id: str) -> EventStore:
        # A new object each time: whoever writes next takes on what another replica wrote.
        return RedisEventLog(client, f"demo:{{{session_id}}}", ttl=3600)

    async def find_log(request: Request, chat: ChatRequest | None = None) -> EventStore | None:
        session_id = chat.session_id if chat is not None else request.path_params["id"]
        return log(session_id) if await client.exists(f"demo:session:{session_id}") else None

    async def page(request: Request) -> Response:
        name, media_type = PAGE_FILES[request.url.path]
        return Response(web.joinpath(name).read_bytes(), media_type=media_type,
                        headers={"Cache-Control": "no-cache"})

    async def start_session(request: Request) -> Response:
        session_id = f"session-{secrets.token_hex(6)}"
        await client.set(f"demo:session:{session_id}", "1", ex=3600)
        return JSONResponse({"id": session_id, "stream": f"/sessions/{session_id}/stream", "chat": chat_url},
                            status_code=201)

    async def on_answer(chat: ChatRequest, log: EventStore, request: Request) -> None:
        tasks = request.app.state.tasks
        if isinstance(chat.input, ANSWERS):
            tasks.start_soon(agent.resume, log, chat.session_id, chat.input)
        else:
            reply_id = f"{chat.session_id}-reply-{len(await log.snapshot()) + 1}"
            tasks.start_soon(agent.turn, log, chat.session_id, reply_id)

    chat: ASGIApp = request_response(answer_endpoint(find_log, on_answer))
    if allow_origin is not None:
        chat = CORSMiddleware(chat, allow_origins=[allow_origin], allow_methods=["POST"],
                              allow_headers=["content-type"])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            app.state.tasks = tasks
            yield
            tasks.cancel_scope.cancel()
        await client.aclose()

    return Starlette(lifespan=lifespan, routes=[
        *(Route(path, page) for path in PAGE_FILES),
        Route("/sessions", start_session, methods=["POST"]),
        Route("/sessions/{id}/stream", sse_endpoint(find_log, heartbeat=5.0)),
        Route("/chat", chat, methods=["POST", "OPTIONS"] if allow_origin is not None else ["POST"]),
    ])


def _from_environment() -> Starlette | None:
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        return None
    return make_app(redis_url, chat_url=os.environ.get("CHAT_URL", "/chat"),
                    allow_origin=os.environ.get("ALLOW_ORIGIN") or None)


app = _from_environment()
