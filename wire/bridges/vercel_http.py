"""Serve a ``wire.stores.memory.EventLog`` to a Vercel AI SDK frontend (``useChat``).

Needs the ``http`` extra. Two pieces, for the two requests ``useChat`` makes:

* the POST that sends a message: the app starts its agent, which feeds an
  EventLog, and answers with :func:`ui_message_stream_response` (the log as
  a UI message stream, live, with ai's ``x-vercel-ai-ui-message-stream: v1``
  header). A reply that parks for a confirmation ends that response; the
  POST that brings the user's answer (``wire.bridges.vercel.approval_answers``
  reads it) appends USER_CONFIRM_RESULT and answers with the log from there;
* the GET ``useChat({resume: true})`` sends on page load, to
  ``{api}/{chatId}/stream``: :func:`resume_endpoint` answers with the chat's
  running reply from its first event (ai's DefaultChatTransport treats a
  resumed stream as a replay and rebuilds the message from it), or 204 No
  Content when nothing is running, which tells the client not to resume::

    from starlette.routing import Route
    from wire.bridges.vercel_http import resume_endpoint

    running: dict[str, EventLog] = {}   # chat id -> the reply being written
    routes = [Route("/api/chat/{id}/stream",
                    resume_endpoint(lambda request: running.get(request.path_params["id"])))]

Each response has its own :class:`~wire.bridges.vercel.VercelBridge`, so any
number of tabs can read one log.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from wire.bridges.vercel import DONE, HEADERS, Chunk, VercelBridge, encode_chunks

if TYPE_CHECKING:  # only for types: the log's owner has imported anyio already
    from wire.stores.memory import EventLog

__all__ = ("resume_endpoint", "ui_message_stream_response")

# What ai's createSseStreamWithKeepAlive writes on an idle stream.
KEEP_ALIVE = b": keep-alive\n\n"


async def _body(log: EventLog, bridge: VercelBridge, start: int, end_at_park: bool,
                heartbeat: float | None) -> AsyncIterator[bytes]:
    # What the client has already: the bridge's state only. (A log bounded by
    # max_events must keep the whole reply for this: the bridge rebuilds its
    # state from the reply's first event.)
    for event in log.events[:max(0, start - log.first)]:
        bridge.feed(event)
    async for batch in log.follow(start, heartbeat=heartbeat):
        if not batch:
            yield KEEP_ALIVE
            continue
        chunks: list[Chunk] = []
        for event in batch:
            parked = bridge.parked
            chunks += bridge.feed(event)
            start += 1
            # A park the reply has already gone past (a replay) does not end the response.
            if end_at_park and bridge.parked and not parked and start == log.end:
                yield encode_chunks(chunks) + DONE
                return
        if chunks:
            yield encode_chunks(chunks)
    yield encode_chunks(bridge.close()) + DONE


def ui_message_stream_response(log: EventLog, *, start: int = 0, end_at_park: bool = True,
                               heartbeat: float | None = 15.0, dynamic_tools: bool = False,
                               external_tools: Iterable[str] = ()) -> StreamingResponse:
    """A response streaming ``log`` from event ``start`` on (each new event
    as it comes) as a UI message stream, ended by ``data: [DONE]`` when the
    log closes, or, with ``end_at_park``, when the reply parks for the user
    (REQUIRE_USER_CONFIRM, REQUIRE_EXTERNAL_EXECUTION): ``useChat`` answers
    with a new request, whose response goes on from ``start = log.end``
    taken before the answer is appended to the log. A
    ``:`` comment goes out after ``heartbeat`` idle seconds, so that proxies
    keep a slow reply open. The other options are VercelBridge's."""
    bridge = VercelBridge(log.msg.id, dynamic_tools=dynamic_tools, external_tools=external_tools)
    return StreamingResponse(_body(log, bridge, start, end_at_park, heartbeat), headers=dict(HEADERS))


def resume_endpoint(find_log: Callable[[Request], EventLog | Awaitable[EventLog | None] | None], *,
                    finished: bool = False, heartbeat: float | None = 15.0, dynamic_tools: bool = False,
                    external_tools: Iterable[str] = ()) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``GET {api}/{chatId}/stream``: the log ``find_log``
    returns (it may be async) as :func:`ui_message_stream_response` from its
    first event (up to a park, if it is parked), or 204 when it returns None.
    A closed log also gets 204 (the client has the finished message from the
    app's history) unless ``finished`` is true."""
    tools = tuple(external_tools)

    async def endpoint(request: Request) -> Response:
        found = find_log(request)
        log = await found if inspect.isawaitable(found) else found
        if log is None or (log.closed and not finished):
            return Response(status_code=204)
        return ui_message_stream_response(log, heartbeat=heartbeat, dynamic_tools=dynamic_tools,
                                          external_tools=tools)

    return endpoint
