"""Serve an agentscope event log to a Vercel AI SDK frontend (``useChat``).

Needs the ``http`` extra. The log is any :class:`wire.stores.EventStore`
(the in-memory ``EventLog``, a ``RedisEventLog``); the serving rules are
``wire.transports.http``'s. Two pieces, for the two requests ``useChat``
makes:

* the POST that sends a message: the app starts its agent, which feeds a
  log, and answers with :func:`ui_message_stream_response` (the log as a UI
  message stream, live, with ai's ``x-vercel-ai-ui-message-stream: v1``
  header). A reply that parks for a confirmation ends that response; the
  POST that brings the user's answer (``wire.bridges.vercel.approval_answers``
  reads it) appends USER_CONFIRM_RESULT and answers with the log after the
  entry id the park had (``after=``);
* the GET ``useChat({resume: true})`` sends on page load, to
  ``{api}/{chatId}/stream``: :func:`resume_endpoint` answers with the chat's
  running reply from its first event (ai's DefaultChatTransport treats a
  resumed stream as a replay and rebuilds the message from it; from a
  bounded or trimmed log the bridge starts at its checkpoint), or 204 No
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

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from wire.bridges.vercel import DONE, HEADERS, Chunk, VercelBridge, encode_chunks
from wire.stores import Entry, EventStore
from wire.transports.http import KEEP_ALIVE, Authorize, FindLog, serve, streaming

__all__ = ("resume_endpoint", "ui_message_stream_response")

_MAX_BATCH = 512


async def _body(batches: AsyncIterator[list[Entry]], bridge: VercelBridge, after: str | None, end_at_park: bool,
                first: list[Entry] | None = None) -> AsyncIterator[bytes]:
    # The entries up to `after` are what the client has already: they build
    # the bridge's state only.
    sending = after is None

    async def all_batches() -> AsyncIterator[list[Entry]]:
        if first is not None:
            yield first
        async for batch in batches:
            yield batch

    async for batch in all_batches():
        if not batch:
            yield KEEP_ALIVE
            continue
        chunks: list[Chunk] = []
        for i, (entry_id, event) in enumerate(batch):
            parked = bridge.parked
            out = bridge.feed(event)
            if sending:
                chunks += out
            sending = sending or entry_id == after
            # Only a park this reader has caught up to ends the response: one
            # the reply has already gone past (a replay) does not.
            if end_at_park and sending and bridge.parked and not parked and i == len(batch) - 1 \
                    and len(batch) < _MAX_BATCH:
                yield encode_chunks(chunks) + DONE
                return
        if chunks:
            yield encode_chunks(chunks)
    yield encode_chunks(bridge.close()) + DONE


def _headers() -> dict[str, str]:
    # ai's own headers, content-type too: given as a header, Starlette adds no "; charset=utf-8".
    return dict(HEADERS)


def ui_message_stream_response(log: EventStore, *, after: str | None = None, end_at_park: bool = True,
                               heartbeat: float | None = 15.0, coalesce: bool | float = False,
                               message_id: str | None = None,
                               dynamic_tools: bool = False, external_tools: Iterable[str] = ()) -> StreamingResponse:
    """A response streaming ``log`` as a UI message stream (each new event
    as it comes), from its first event, or after the entry ``after`` (the
    last the client has: the answer's POST goes on from the park), ended by
    ``data: [DONE]`` when the log closes or, with ``end_at_park``, when the
    reply parks for the user (REQUIRE_USER_CONFIRM,
    REQUIRE_EXTERNAL_EXECUTION). A ``:`` comment goes out after
    ``heartbeat`` idle seconds. ``message_id`` is the UI message's id (the
    reply id, from its REPLY_START, by default); the other options are
    VercelBridge's."""
    bridge = VercelBridge(message_id, dynamic_tools=dynamic_tools, external_tools=external_tools)
    batches = aiter(log.follow(None, heartbeat=heartbeat, max_batch=_MAX_BATCH, coalesce=coalesce))
    return streaming(_body(batches, bridge, after, end_at_park), HEADERS["content-type"], _headers())


def resume_endpoint(find_log: FindLog, *, finished: bool = False, heartbeat: float | None = 15.0,
                    coalesce: bool | float = False, dynamic_tools: bool = False,
                    external_tools: Iterable[str] = (), authorize: Authorize | None = None,
                    session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``GET {api}/{chatId}/stream``: the log ``find_log``
    names (it may be async) as :func:`ui_message_stream_response` from its
    first event (up to a park, if it is parked), or 204 when there is none.
    A closed log also gets 204 (the client has the finished message from the
    app's history) unless ``finished`` is true. With ``authorize``,
    ``authorize(request, session_id)`` is asked first about the session the
    route names (``wire.transports.http.session_of`` with
    ``session_param``: ``{chatId}`` in ai's route): False is 403."""
    tools = tuple(external_tools)

    async def respond(log: EventStore, request: Request) -> Response:
        if log.closed and not finished:
            return Response(status_code=204)
        # The first batch is read before answering: a remote store learns
        # there whether the log is closed already.
        batches = aiter(log.follow(None, heartbeat=heartbeat, max_batch=_MAX_BATCH, coalesce=coalesce))
        first = await anext(batches, None)
        if log.closed and not finished:
            await batches.aclose()  # type: ignore[attr-defined]
            return Response(status_code=204)
        bridge = VercelBridge(None, dynamic_tools=dynamic_tools, external_tools=tools)
        body = _body(batches, bridge, None, True, first if first is not None else [])
        return streaming(body, HEADERS["content-type"], _headers())

    async def none_is_no_content(request: Request) -> Response:
        response = await endpoint(request)
        return Response(status_code=204) if response.status_code == 404 else response

    endpoint = serve(find_log, respond, authorize=authorize, session_param=session_param)
    return none_is_no_content
