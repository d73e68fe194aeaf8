"""``python -m wire demo --web``: the recorded reply rendered live in a browser
by wire's TypeScript runtime.

A Starlette app on 127.0.0.1 serves a page (``wire/web/``) and, per reply
the page starts, an :class:`wire.stores.memory.EventLog` that a producer task fills
with the recorded events at a chosen pace. The page follows the log's SSE
stream (``wire.transports.http.sse_endpoint``) with the runtime's ``followReply``,
rebuilds the Msg with ``appendEvent`` and shows thinking, text, the tool call
whose arguments fill in as they stream (``PartialJSON``), its result and the
image. It keeps the reply's id and the last event id in ``sessionStorage``,
so a reload mid-reply resumes from a checkpoint instead of starting over.

``wire/web/runtime.js`` is the runtime (``schemas/``) bundled into one ES
module, so that an installed wheel serves it without node; the browser test
rebuilds it and fails if it differs.

An edge module like ``wire.demo``: it alone needs the ``demo`` extra.
"""

from __future__ import annotations

import contextlib
import itertools
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
from wire.resume import begin_reply
from wire.stores.memory import EventLog
from wire.transports.http import sse_endpoint

__all__ = ("PAGE_FILES", "create_app", "serve")

# The files of the page, by URL path, and their media types.
PAGE_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/runtime.js": ("runtime.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}


def create_app(reply: bytes, *, pace: float = 0.05) -> Starlette:
    """The demo's app: the page, ``POST /replies`` to start a reply (its JSON
    names the event stream), ``GET /replies/{id}/events`` (SSE with resume)
    and ``GET /replies/{id}/msg`` (the Msg so far, as the server built it)."""
    events = wire.json.decode_events(reply)
    start = next(e for e in events if isinstance(e, wire.ReplyStartEvent))
    logs: dict[str, EventLog] = {}
    numbers = itertools.count(1)
    web = files("wire").joinpath("web")

    async def produce(log: EventLog) -> None:
        for event in events:
            await anyio.sleep(pace)
            await log.append(event)
        await log.close()

    async def page(request: Request) -> Response:
        name, media_type = PAGE_FILES[request.url.path]
        return Response(web.joinpath(name).read_bytes(), media_type=media_type,
                        headers={"Cache-Control": "no-cache"})

    async def start_reply(request: Request) -> Response:
        reply_id = f"reply-{next(numbers)}"
        # Begun from REPLY_START, as the runtime's followReply begins its Msg: a
        # page that never lost its connection ends with this very Msg (and /msg
        # answers with it before the first event is out).
        logs[reply_id] = log = EventLog(begin_reply(start))
        request.app.state.tasks.start_soon(produce, log)
        return JSONResponse({"id": reply_id, "events": f"/replies/{reply_id}/events"}, status_code=201)

    async def msg(request: Request) -> Response:
        log = logs.get(request.path_params["id"])
        if log is None:
            return PlainTextResponse("no such reply", status_code=404)
        return Response(wire.json.encode(log.msg), media_type="application/json")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            app.state.tasks = tasks
            yield
            tasks.cancel_scope.cancel()

    return Starlette(lifespan=lifespan, routes=[
        *(Route(path, page) for path in PAGE_FILES),
        Route("/replies", start_reply, methods=["POST"]),
        Route("/replies/{id}/events", sse_endpoint(lambda request: logs.get(request.path_params["id"]),
                                                   heartbeat=5.0)),
        Route("/replies/{id}/msg", msg),
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
    out.write("wire demo --web: open the address above; a reload mid-reply resumes it. Ctrl-C stops.\n")
    out.flush()
    server = uvicorn.Server(uvicorn.Config(create_app(reply, pace=pace), log_level="warning"))
    with sock:
        server.run(sockets=[sock])
