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
* Who may read or answer a session is the application's decision:
  ``authorize(request, session_id)`` is asked before the log is touched
  (False is 403; it raises :class:`Refused` for another status, 401 for a
  caller it does not know). The session is the one the route names
  (:func:`session_of`): the path parameter ``session_param``
  (``"session_id"`` by default), else the route's only one; a route that
  does not say which is the server's mistake, never a session ``""``.
* The end: a reader at the end of a closed log gets 204 No Content, which
  stops a browser's ``EventSource`` (an empty 200 has it reconnect).

Each endpoint chooses only its encoder.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse

from wire.errors import DecodeError, LocalProtocolError, StoreError
from wire.framing import FRAMINGS, NDJSONEncoder
from wire.session import decode_chat_request
from wire.stores import Entry, EventStore, Resume
from wire.transports.inputs import Admit, OnInput, Refused, take_input

__all__ = (
    "KEEP_ALIVE",
    "Admit",
    "MAX_BODY_BYTES",
    "NO_BUFFERING",
    "Authorize",
    "BodyTooLarge",
    "FindLog",
    "OnAnswer",
    "OnInput",
    "Refused",
    "answer_endpoint",
    "check_session",
    "parsed_body",
    "cursor",
    "entries_body",
    "find",
    "ndjson_endpoint",
    "read_body",
    "refused",
    "serve",
    "session_of",
    "sse_endpoint",
    "streaming",
)

# no-cache: a stream is never a cached document. X-Accel-Buffering: nginx (and
# proxies that copy it) would otherwise buffer the body and hold events back.
NO_BUFFERING = {"cache-control": "no-cache", "x-accel-buffering": "no"}

KEEP_ALIVE = b": keep-alive\n\n"
"""The comment an idle SSE stream of a bridge carries (what ai's
createSseStreamWithKeepAlive writes; AG-UI's parser reads only data: lines).
A store's own SSE body sends ``SSEEncoder.comment()``, agentscope's ``:``."""

MAX_BODY_BYTES = 1 << 20
"""The largest request body an endpoint reads by default: a chat turn or an
answer is kilobytes; a megabyte leaves room for pasted documents."""

FindLog: TypeAlias = Callable[[Request], "EventStore | Awaitable[EventStore | None] | None"]
"""The application's lookup: the log a request names, or None (404)."""


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
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise BodyTooLarge(f"the body is over the limit of {limit} bytes")
    except ClientDisconnect:
        raise Refused(400, "the client went away before its body ended") from None
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
          parse: Callable[[bytes], Any] | None = None, body_limit: int = MAX_BODY_BYTES,
          authorize: Authorize | None = None, session_param: str = "session_id",
          ) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint: the log ``find_log(request)`` names, answered by
    ``respond(log, request)``. With ``parse``, the request body is read (up
    to ``body_limit`` bytes) and parsed first, and both calls get it too:
    ``find_log(request, parsed)``, ``respond(log, request, parsed)``.

    With ``authorize``, ``authorize(request, session_of(request,
    session_param))`` is asked first, before the body is read: False is 403,
    :class:`Refused` its status. Then 413 for a body past the limit; 400
    when ``parse`` raises DecodeError (its message names the JSON path or
    byte); 404 when there is no such log; 503 when the store fails before
    the response starts."""

    async def endpoint(request: Request) -> Response:
        try:
            if authorize is not None:
                allowed = await find(authorize, request, session_of(request, session_param))
                if allowed is not True:
                    return PlainTextResponse("not allowed", status_code=403)
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
        except Refused as exc:  # a body too large or cut short, or the application's refusal
            return refused(exc)

    return endpoint


async def _log_body(log: EventStore, request: Request, body: Callable[[str | None], AsyncIterable[bytes]],
                    media_type: str) -> Response:
    """The reader's part of ``log`` as a streaming response, or 204 No
    Content for a reader at the end of a closed log: an empty 200 would
    have a browser's ``EventSource`` reconnect for ever, and 204 stops it
    (the WHATWG HTML standard, "server-sent events"). The store answers
    from what it holds (``EventStore.at_end``), never by waiting for an
    event, so the headers of a live stream are not held back."""
    after = cursor(request)
    if await log.at_end(after):
        return Response(status_code=204)
    return streaming(body(after), media_type)


def sse_endpoint(find_log: FindLog, *, resume: Resume = "checkpoint", heartbeat: float | None = 15.0,
                 coalesce: bool | float = False, authorize: Authorize | None = None,
                 session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """The log ``find_log(request)`` names, as SSE: each frame's ``id`` its
    entry id, resumed from ``Last-Event-ID`` or ``?after=``; 204 No Content
    for a reader at the end of a closed log (``EventStore.at_end``).
    ``coalesce`` merges the deltas waiting for a reader that is behind (see
    ``wire.stores.EventStore.follow``). With ``authorize``,
    ``authorize(request, session_id)`` is asked first about the session the
    route names (:func:`session_of` with ``session_param``; see
    :data:`Authorize`)."""

    async def respond(log: EventStore, request: Request) -> Response:
        def body(after: str | None) -> AsyncIterable[bytes]:
            return log.sse(after, resume=resume, heartbeat=heartbeat, coalesce=coalesce)

        return await _log_body(log, request, body, FRAMINGS["sse"].media_type)

    return serve(find_log, respond, authorize=authorize, session_param=session_param)


def ndjson_endpoint(find_log: FindLog, *, resume: Resume = "checkpoint", heartbeat: float | None = 15.0,
                    coalesce: bool | float = False, authorize: Authorize | None = None,
                    session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """The log ``find_log(request)`` names, as NDJSON, one event per line; a
    blank line after ``heartbeat`` idle seconds. NDJSON carries no ids, so
    a client resumes from a checkpoint: any ``?after=`` (or
    ``Last-Event-ID``) gets the Msg so far and the events after it, unless
    ``resume="replay"`` (then ``after`` must be an entry id the client
    learnt elsewhere). 204 and ``authorize`` as for :func:`sse_endpoint`."""

    async def respond(log: EventStore, request: Request) -> Response:
        def body(after: str | None) -> AsyncIterable[bytes]:
            encoder = NDJSONEncoder()
            batches = log.follow(after, resume=resume, heartbeat=heartbeat, coalesce=coalesce)
            return entries_body(batches, lambda batch: encoder.encode_batch([event for _, event in batch]), b"\n")

        return await _log_body(log, request, body, FRAMINGS["ndjson"].media_type)

    return serve(find_log, respond, authorize=authorize, session_param=session_param)


# -- who may read or answer a session, and the answer endpoint --------------------------------


def refused(exc: Refused) -> Response:
    """A refusal as its response: its status and reason as text (a 503
    says when to come back)."""
    headers = {"retry-after": "1"} if exc.status == 503 else None
    return PlainTextResponse(exc.reason, status_code=exc.status, headers=headers)


_T = TypeVar("_T")


async def parsed_body(request: Request, limit: int, parse: Callable[[bytes], _T]) -> _T | Response:
    """The request's body as ``parse`` reads it, or the response that
    refuses it: 413 past ``limit`` bytes, a :class:`Refused`'s own status
    (cut short; a body ``parse`` refuses itself), 400 for one ``parse``
    raises :class:`~wire.errors.DecodeError` about (invalid UTF-8 anywhere in
    it included: the message names the JSON path or the byte). Every door
    that takes a POST body reads it so: ``answer_endpoint``, AG-UI's and
    Vercel's."""
    try:
        return parse(await read_body(request, limit))
    except Refused as exc:
        return refused(exc)
    except DecodeError as exc:
        return PlainTextResponse(f"the request body is not valid: {exc}", status_code=400)


class BodyTooLarge(Refused):
    """A request body past the endpoint's limit (answered with 413)."""

    def __init__(self, reason: str) -> None:
        super().__init__(413, reason)


Authorize: TypeAlias = Callable[[Request, str], "bool | Awaitable[bool]"]
"""The application's check, ``authorize(request, session_id)`` (sync or
async): True lets the request through; anything else is 403; it raises
:class:`Refused` for another status (401 when it does not know the caller:
agentscope's app reads an ``X-User-ID`` header). ``session_id`` is the
session the request names: the route's (:func:`session_of`) for a reader,
the body's for :func:`answer_endpoint`. It is asked before the log is looked
up, so a refused caller learns nothing of the session."""

OnAnswer: TypeAlias = OnInput
"""The agent hook every door takes (``wire.transports.inputs.OnInput``)."""


def session_of(request: HTTPConnection, session_param: str = "session_id") -> str:
    """The session ``request`` (or a WebSocket) is about, as its route names it: the path
    parameter ``session_param``, else the route's only path parameter
    (``/replies/{id}/events``). A route with none, or with several and none
    of them ``session_param``, does not say: LocalProtocolError, a server
    to configure (answered with 500), never a guess such as ``""``, which an
    ``authorize`` that lets unknown sessions through (for ``find_log``'s
    404) would let anyone read."""
    params = request.path_params
    if session_param in params:
        return str(params[session_param])
    if len(params) == 1:
        return str(next(iter(params.values())))
    names = ", ".join(f"{{{name}}}" for name in params) or "none"
    raise LocalProtocolError(
        f"authorize is asked about the session a request names, and the route of {request.url.path!r} does not "
        f"say which (no path parameter {{{session_param}}}; its path parameters: {names}): pass session_param= "
        "naming the one that holds the session id, or put the session id in the path")


async def check_session(request: Request, session_id: str, authorize: Authorize | None, named: str | None) -> None:
    """The session a body names, checked before its log is looked up:
    against the one the route names (``named``, if it names one; 400 when
    they differ) and by ``authorize`` (403, or the status of its
    :class:`Refused`). Every door that takes an input asks it."""
    if named is not None and named != session_id:
        raise Refused(400, f"the body names session {session_id!r}; the URL names {named!r}")
    if authorize is not None and await find(authorize, request, session_id) is not True:
        raise Refused(403, "not allowed")


def answer_endpoint(find_log: Callable[..., Any], on_answer: OnAnswer, *, authorize: Authorize | None = None,
                    admit: Admit | None = None, body_limit: int = MAX_BODY_BYTES,
                    session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """A ``POST`` endpoint for what a client sends a session: agentscope's
    chat body ``{"agent_id", "session_id", "input"}`` (``wire.session.chat``),
    a new turn, the answer to a parked reply, or an interrupt.

    In order, before anything is written:

    * 413 for a body over ``body_limit`` bytes; 400 for one that is not a
      chat body (the message names the JSON path), or whose ``session_id``
      is not the session the route names (``session_of``), if it names one;
    * ``authorize(request, session_id)``, if given: 403, or its
      :class:`Refused` status (401);
    * ``find_log(request, chat)`` (sync or async) names the session's log:
      404 when it is None;
    * 409 when the session cannot take the input now
      (``wire.session.Session.refusal``, read from ``await log.session()``):
      the session is closed; an answer to nothing pending, to calls the reply
      did not ask about or answered before, to a reply that was interrupted;
      an interrupt of a reply that is over; a new turn while a turn is
      pending or a reply runs or is parked;
    * ``admit(chat, session, request)``, if given: its :class:`Refused`.

    Then the input is written to the log with ``expect=`` the entry the
    check read last: an answer or interrupt as itself, a new turn as a
    ``wire.turn`` event holding the user's Msgs, so every reader on every
    replica sees it and a second turn posted at the same time is refused.
    If another writer moved the log on in between, the store refuses the
    write (:class:`wire.errors.Conflict`) and the endpoint reads and checks
    again: of any number of concurrent answers to one reply, on any number
    of replicas, exactly one is taken, with no lock to configure.

    Then ``on_answer(chat, log, request)`` is called (and awaited: start the
    agent and return). The response is agentscope's ``{"status": "started",
    "session_id"}``, with ``entry_id``, the input's entry id, from which a
    client reads what follows it. A store that fails (or a session that kept
    changing through every attempt) is 503. Refuse in ``admit``: a
    :class:`Refused` from ``on_answer`` comes after the write; for a turn the
    endpoint then withdraws it (a USER_INTERRUPT naming the turn), so the
    session takes the next one.
    """

    async def endpoint(request: Request) -> Response:
        chat = await parsed_body(request, body_limit, decode_chat_request)
        if isinstance(chat, Response):
            return chat
        try:
            await check_session(request, chat.session_id, authorize,
                                session_of(request, session_param) if request.path_params else None)
            log: EventStore | None = await find(find_log, request, chat)
            if log is None:
                return PlainTextResponse("no such session", status_code=404)
            entry_id = await take_input(log, chat, request, on_answer, admit=admit)
        except StoreError as exc:
            return PlainTextResponse(f"the store failed: {exc}", status_code=503)
        except Refused as exc:
            return refused(exc)
        return JSONResponse({"status": "started", "session_id": chat.session_id, "entry_id": entry_id})

    return endpoint
