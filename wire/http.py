"""Serve a reply over HTTP with Starlette: SSE with ids, heartbeats and resume,
or NDJSON.

Needs the ``http`` extra (starlette, plus an ASGI server such as uvicorn).
The bodies come from a :class:`wire.aio.EventLog`; this module only turns
them into responses and endpoints, so it works with whatever feeds the log::

    from starlette.applications import Starlette
    from starlette.routing import Route
    from wire.http import sse_endpoint

    logs: dict[str, EventLog] = {}
    app = Starlette(routes=[Route("/replies/{id}/events", sse_endpoint(
        lambda request: logs.get(request.path_params["id"])))])

A browser's ``EventSource`` reconnects by itself and sends ``Last-Event-ID``;
the endpoint answers with a checkpoint of the Msg so far and the events after
it (see ``wire.aio.EventLog.sse``). The checkpoint is a CUSTOM event named
``wire.checkpoint`` whose ``value.msg`` replaces the client's Msg.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.framing import NDJSONEncoder

if TYPE_CHECKING:  # aio is a sibling edge: used for types only, never imported at run time
    from wire.aio import EventLog

__all__ = ("SSE_HEADERS", "ndjson_response", "sse_endpoint", "sse_response")

# no-cache: a stream is never a cached document. X-Accel-Buffering: nginx (and
# proxies that copy it) would otherwise buffer the body and hold events back.
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

Resume = Literal["checkpoint", "replay"]


def sse_response(log: EventLog, request: Request | None = None, *, last_event_id: str | None = None,
                 resume: Resume = "checkpoint", heartbeat: float | None = 15.0) -> StreamingResponse:
    """An SSE response streaming ``log``: every event for a new client; for a
    client that sends ``Last-Event-ID`` (read from ``request`` unless given),
    a checkpoint and the events after it, or with ``resume="replay"`` the
    events after that id. A ``:`` comment goes out after ``heartbeat`` idle
    seconds so that proxies keep the connection open."""
    if last_event_id is None and request is not None:
        last_event_id = request.headers.get("last-event-id")
    body = log.sse(last_event_id, resume=resume, heartbeat=heartbeat)
    return StreamingResponse(body, media_type="text/event-stream", headers=SSE_HEADERS)


def ndjson_response(log: EventLog, *, start: int = 0, heartbeat: float | None = None) -> StreamingResponse:
    """An NDJSON response streaming ``log`` from event ``start`` on; a blank
    line (which wire's decoder skips) after ``heartbeat`` idle seconds."""
    body = log.frames(NDJSONEncoder(), start, heartbeat=heartbeat, heartbeat_frame=b"\n")
    return StreamingResponse(body, media_type="application/x-ndjson", headers={"Cache-Control": "no-cache"})


def sse_endpoint(find_log: Callable[[Request], EventLog | Awaitable[EventLog | None] | None], *,
                 resume: Resume = "checkpoint",
                 heartbeat: float | None = 15.0) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint serving the log ``find_log(request)`` returns
    (it may be async) as SSE, or 404 when it returns None."""

    async def endpoint(request: Request) -> Response:
        found = find_log(request)
        log = await found if inspect.isawaitable(found) else found
        if log is None:
            return PlainTextResponse("no such reply", status_code=404)
        return sse_response(log, request, resume=resume, heartbeat=heartbeat)

    return endpoint
