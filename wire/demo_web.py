"""``python -m wire demo --web``: a chat with a confirmation, live in a
browser, built by wire's TypeScript runtime.

A Starlette app on 127.0.0.1 serves a page (``wire/web/``) and sessions:
each an :class:`wire.stores.memory.EventLog` read at ``GET /sessions/{id}/stream``
(``wire.transports.http.sse_endpoint``) and answered at ``POST /chat``
(``wire.transports.http.answer_endpoint``, agentscope's chat body). The
agent (``wire.demo.DemoAgent``) streams the recorded reply and, before it
runs its tool call, parks asking for a confirmation. The page follows the
session with the runtime's ``followSession``, shows every reply (thinking,
text, the tool call's arguments as they stream through ``PartialJSON``, its
result, the image), and, while a reply waits, the call's arguments with
Allow and Deny; the click posts the answer with ``answer`` and the reply
goes on, or reports the denial. The page keeps its conversation and the
last entry id in ``sessionStorage`` when it goes away, so a reload at any
point resumes the session with every earlier reply.

``wire/web/runtime.js`` is the runtime (``schemas/``) bundled into one ES
module, so that an installed wheel serves it without node; the browser test
rebuilds it and fails if it differs.

An edge module like ``wire.demo``: it alone needs the ``demo`` extra.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import TextIO

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

import wire
from wire.demo import DemoAgent
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.chat import ANSWERS, ChatRequest
from wire.transports.http import answer_endpoint, sse_endpoint

__all__ = ("MAX_SESSIONS", "PAGE_FILES", "create_app", "serve")

# The files of the page, by URL path, and their media types.
PAGE_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/runtime.js": ("runtime.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}

MAX_SESSIONS = 100
"""Sessions kept; the oldest is dropped past it (the demo runs unattended)."""


def create_app(reply: bytes, *, pace: float = 0.05) -> Starlette:
    """The demo's app: the page; ``POST /sessions`` starts a session (its
    JSON names the stream); ``GET /sessions/{id}/stream`` (SSE with resume);
    ``POST /chat`` takes a new turn or an answer; ``GET /sessions/{id}/replies``
    is every reply's Msg as the server built it, each as wire's JSON text."""
    agent = DemoAgent(reply, pace=pace)
    logs: dict[str, EventLog] = {}
    numbers = itertools.count(1)
    web = files("wire").joinpath("web")

    async def page(request: Request) -> Response:
        name, media_type = PAGE_FILES[request.url.path]
        return Response(web.joinpath(name).read_bytes(), media_type=media_type,
                        headers={"Cache-Control": "no-cache"})

    async def start_session(request: Request) -> Response:
        session_id = f"session-{next(numbers)}"
        logs[session_id] = EventLog()
        while len(logs) > MAX_SESSIONS:
            del logs[next(iter(logs))]
        return JSONResponse({"id": session_id, "stream": f"/sessions/{session_id}/stream", "chat": "/chat"},
                            status_code=201)

    def find_log(request: Request, chat: ChatRequest | None = None) -> EventLog | None:
        return logs.get(chat.session_id if chat is not None else request.path_params["id"])

    async def on_answer(chat: ChatRequest, log: EventStore, request: Request) -> None:
        tasks = request.app.state.tasks
        if isinstance(chat.input, ANSWERS):
            tasks.start_soon(agent.resume, log, chat.session_id, chat.input)
        else:
            reply_id = f"{chat.session_id}-reply-{len(await log.snapshot()) + 1}"
            tasks.start_soon(agent.turn, log, chat.session_id, reply_id)

    async def replies(request: Request) -> Response:
        log = logs.get(request.path_params["id"])
        if log is None:
            return PlainTextResponse("no such session", status_code=404)
        texts = [wire.json.encode(msg).decode() for msg in log.replies.values()]
        return Response(json.dumps(texts), media_type="application/json")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            app.state.tasks = tasks
            yield
            tasks.cancel_scope.cancel()

    return Starlette(lifespan=lifespan, routes=[
        *(Route(path, page) for path in PAGE_FILES),
        Route("/sessions", start_session, methods=["POST"]),
        Route("/sessions/{id}/stream", sse_endpoint(find_log, heartbeat=5.0)),
        Route("/sessions/{id}/replies", replies),
        Route("/chat", answer_endpoint(find_log, on_answer), methods=["POST"]),
    ])


def serve(reply: bytes, *, pace: float, port: int, out: TextIO) -> None:
    """Serve the demo on 127.0.0.1:``port`` (0: a free port) until interrupted;
    the first line written to ``out`` is the page's URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    host, bound = sock.getsockname()
    out.write(f"http://{host}:{bound}/\n")
    out.write("wire demo --web: open the address above; the agent asks before it runs its tool, "
              "and a reload at any point resumes the session. Ctrl-C stops.\n")
    out.flush()
    server = uvicorn.Server(uvicorn.Config(create_app(reply, pace=pace), log_level="warning"))
    with sock:
        server.run(sockets=[sock])
