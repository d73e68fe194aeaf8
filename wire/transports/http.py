"""Serve a log over HTTP with Starlette: the one serving path.

Needs the ``http`` extra (starlette, plus an ASGI server such as uvicorn).
Any :class:`wire.stores.EventStore` is served the same way, whoever wrote
it: the in-memory ``EventLog`` or a ``RedisEventLog`` on any replica::

    from starlette.applications import Starlette
    from starlette.routing import Route
    from wire.stores.memory import EventLog
    from wire.transports.http import ndjson_endpoint, sse_endpoint

    logs: dict[str, EventLog] = {}
    find = lambda request: logs.get(request.path_params["id"])
    app = Starlette(routes=[Route("/replies/{id}/events", sse_endpoint(find)),
                            Route("/replies/{id}/ndjson", ndjson_endpoint(find))])

What every endpoint here and in ``wire.bridges.agui_http`` and
``wire.bridges.vercel_http`` shares is written once, in this module:

* ``find_log(request)`` (sync or async) names the log; None is 404, and a
  store that fails (:class:`wire.errors.StoreError`) while it is looked up
  is 503. (A store that fails once the body streams ends the body; the
  client resumes from the last id it has.)
* The cursor: the ``Last-Event-ID`` header a browser's ``EventSource``
  sends when it reconnects, else the ``?after=`` query parameter (the
  form agentscope's ``/sessions/{id}/stream`` takes).
* Resuming: with ``resume="checkpoint"`` (the default) a reader that brings a
  cursor gets a checkpoint, a CUSTOM event named ``wire.checkpoint`` whose
  ``value.msg`` replaces its Msg (``wire.resume.read_checkpoint``), then the
  events after it; with ``resume="replay"`` the events after its cursor.
* Keep-alive: after ``heartbeat`` idle seconds each framing's own comment
  (SSE ``:``; NDJSON a blank line, which wire's decoders skip), so that
  proxies keep a slow reply open.
* Headers: no caching, and no proxy buffering (nginx's ``X-Accel-Buffering``).
* A request body is read up to a limit (413 past it).

Each endpoint chooses only its encoder.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.errors import DecodeError, StoreError
from wire.framing import FRAMINGS, NDJSONEncoder
from wire.stores import Entry, EventStore, Resume

__all__ = (
    "MAX_BODY_BYTES",
    "NO_BUFFERING",
    "BodyTooLarge",
    "FindLog",
    "cursor",
    "entries_body",
    "find",
    "ndjson_endpoint",
    "read_body",
    "serve",
    "sse_endpoint",
    "streaming",
)

# no-cache: a stream is never a cached document. X-Accel-Buffering: nginx (and
# proxies that copy it) would otherwise buffer the body and hold events back.
NO_BUFFERING = {"cache-control": "no-cache", "x-accel-buffering": "no"}

MAX_BODY_BYTES = 1 << 20
"""The largest request body an endpoint reads by default: a chat turn or an
answer is kilobytes; a megabyte leaves room for pasted documents."""

FindLog: TypeAlias = Callable[[Request], "EventStore | Awaitable[EventStore | None] | None"]
"""The application's lookup: the log a request names, or None (404)."""


class BodyTooLarge(Exception):
    """A request body past the endpoint's limit (answered with 413)."""


async def find(find_log: Callable[..., Any], *args: Any) -> Any:
    """``find_log(*args)``, awaited if the application's lookup is async."""
    found = find_log(*args)
    return await found if inspect.isawaitable(found) else found


def cursor(request: Request) -> str | None:
    """Where the client resumes: ``Last-Event-ID``, else ``?after=``; None
    for a new reader."""
    return request.headers.get("last-event-id") or request.query_params.get("after") or None


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body, or BodyTooLarge as soon as it passes ``limit``
    bytes (a ``Content-Length`` over it is refused before reading)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the body is {declared} bytes; the limit is {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge(f"the body is over the limit of {limit} bytes")
    return bytes(body)


def streaming(body: AsyncIterable[bytes], media_type: str, headers: dict[str, str] | None = None) -> StreamingResponse:
    """A streaming response with the serving path's headers."""
    merged = {**NO_BUFFERING, **{name.lower(): value for name, value in (headers or {}).items()}}
    return StreamingResponse(body, media_type=media_type, headers=merged)


async def entries_body(batches: AsyncIterable[list[Entry]], render: Callable[[list[Entry]], bytes],
                       keep_alive: bytes) -> AsyncIterator[bytes]:
    """Batches of entries, each rendered by ``render``; ``keep_alive`` for
    an empty batch (a heartbeat)."""
    async for batch in batches:
        if batch:
            chunk = render(batch)
            if chunk:
                yield chunk
        elif keep_alive:
            yield keep_alive


def serve(find_log: Callable[..., Any], respond: Callable[..., Response | Awaitable[Response]], *,
          parse: Callable[[bytes], Any] | None = None,
          body_limit: int = MAX_BODY_BYTES) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint: the log ``find_log(request)`` names, answered by
    ``respond(log, request)``. With ``parse``, the request body is read (up
    to ``body_limit`` bytes) and parsed first, and both calls get it too:
    ``find_log(request, parsed)``, ``respond(log, request, parsed)``.

    404 when there is no such log; 400 when ``parse`` raises DecodeError
    (its message names the JSON path or byte); 413 for a body past the
    limit; 503 when the store fails before the response starts."""

    async def endpoint(request: Request) -> Response:
        try:
            args: tuple[Any, ...] = (request,)
            if parse is not None:
                body = await read_body(request, body_limit)
                try:
                    args = (request, parse(body))
                except DecodeError as exc:
                    return PlainTextResponse(f"the request body is not valid: {exc}", status_code=400)
            log = await find(find_log, *args)
            if log is None:
                return PlainTextResponse("no such log", status_code=404)
            response = respond(log, *args)
            return await response if inspect.isawaitable(response) else response
        except StoreError as exc:
            return PlainTextResponse(f"the store failed: {exc}", status_code=503)
        except BodyTooLarge as exc:
            return PlainTextResponse(str(exc), status_code=413)

    return endpoint


def sse_endpoint(find_log: FindLog, *, resume: Resume = "checkpoint",
                 heartbeat: float | None = 15.0) -> Callable[[Request], Awaitable[Response]]:
    """The log ``find_log(request)`` names, as SSE: each frame's ``id`` its
    entry id, resumed from ``Last-Event-ID`` or ``?after=``."""

    async def respond(log: EventStore, request: Request) -> Response:
        return streaming(log.sse(cursor(request), resume=resume, heartbeat=heartbeat), FRAMINGS["sse"].media_type)

    return serve(find_log, respond)


def ndjson_endpoint(find_log: FindLog, *, resume: Resume = "checkpoint",
                    heartbeat: float | None = 15.0) -> Callable[[Request], Awaitable[Response]]:
    """The log ``find_log(request)`` names, as NDJSON, one event per line; a
    blank line after ``heartbeat`` idle seconds. NDJSON carries no ids, so
    a client resumes from a checkpoint: any ``?after=`` (or
    ``Last-Event-ID``) gets the Msg so far and the events after it, unless
    ``resume="replay"`` (then ``after`` must be an entry id the client
    learnt elsewhere)."""

    async def respond(log: EventStore, request: Request) -> Response:
        encoder = NDJSONEncoder()
        batches = log.follow(cursor(request), resume=resume, heartbeat=heartbeat)
        body = entries_body(batches, lambda batch: encoder.encode_batch([event for _, event in batch]), b"\n")
        return streaming(body, FRAMINGS["ndjson"].media_type)

    return serve(find_log, respond)
