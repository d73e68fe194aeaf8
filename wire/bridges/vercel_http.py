"""Serve an agentscope session to a Vercel AI SDK frontend (``useChat``).

Needs the ``http`` extra. The log is any :class:`wire.stores.EventStore`
(the in-memory ``EventLog``, a ``RedisEventLog``) holding a whole session:
every turn, reply and answer, as ``wire.transports.http``'s endpoints and
wire's own clients read it. ``useChat`` makes two requests, and each has
its endpoint here:

* :func:`chat_endpoint`, the POST that sends a message (ai's
  ``DefaultChatTransport``: ``{id, messages, trigger, messageId}``): ``id``
  is the session. A new user message is a new turn, the user's Msg with the
  UI message's id; an assistant message whose tool parts the user answered
  (``addToolApprovalResponse``: ``approval-responded``; or the outputs of
  tools the frontend ran) answers the parked reply, whose Msg the endpoint
  reads from the session. Either goes through
  ``wire.transports.inputs.take_input``, the one agent hook of every door
  (409 when the session cannot take it now, ``on_input(chat, log,
  request)`` once it is written), and the response is that turn's reply as
  a UI message stream, ending (``finish``, ``data: [DONE]``) where the reply
  ends or parks: ``useChat`` sends the user's answer only once a response
  is over, and the session log stays open for the next turn;
* :func:`resume_endpoint`, the GET ``useChat({resume: true})`` sends on page
  load, to ``{api}/{chatId}/stream``: the reply running in the session (from
  its start: ai's ``DefaultChatTransport`` treats a resumed stream as a
  replay), ending where it ends or parks, or 204 No Content when no reply
  runs, which tells the client not to resume::

    from starlette.routing import Route
    from wire.bridges.vercel_http import chat_endpoint, resume_endpoint

    sessions: dict[str, EventLog] = {}   # chat id -> the session's log
    find_log = lambda request, chat=None: sessions.get(chat.session_id if chat else request.path_params["id"])
    routes = [Route("/api/chat", chat_endpoint(find_log, on_input), methods=["POST"]),
              Route("/api/chat/{id}/stream", resume_endpoint(find_log))]

:func:`ui_message_stream_response` is the lower-level piece: a log as one
UI message stream, for an application that writes its own POST handler
over a log of one reply.

Each response has its own :class:`~wire.bridges.vercel.VercelBridge`, so any
number of tabs can read one session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import aclosing
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.bridges.vercel import (
    DONE,
    HEADERS,
    Chunk,
    VercelBridge,
    chat_answer,
    encode_chunks,
    parse_chat_body,
    user_msg,
)
from wire.errors import DecodeError, StoreError
from wire.events import CustomEvent, UserInterruptEvent
from wire.messages import Msg
from wire.session import ChatRequest, copy_msg, read_checkpoint, waiting
from wire.stores import Entry, EventStore, StoredEvent
from wire.transports.http import (
    KEEP_ALIVE,
    MAX_BODY_BYTES,
    Authorize,
    FindLog,
    find,
    read_body,
    refused,
    serve,
    session_of,
    streaming,
)
from wire.transports.inputs import Admit, OnInput, Refused, take_input

__all__ = ("chat_endpoint", "resume_endpoint", "ui_message_stream_response")

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
            if not sending and read_checkpoint(event) is not None and entry_id != after:
                # The log no longer holds the client's position (a bounded or
                # trimmed log): a checkpoint past it. The client gets what the
                # bridge has not sent of it (no entry will ever carry `after`).
                sending = True
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
    REQUIRE_EXTERNAL_EXECUTION). On a bounded or trimmed log that no longer
    holds ``after``, the response goes on from the checkpoint that replaces
    it, with what the bridge has not sent of it (the entries the log still
    kept before it count as sent; :func:`chat_endpoint` knows the client's
    Msg exactly). A ``:`` comment goes out after ``heartbeat`` idle seconds.
    ``message_id`` is the UI message's id (the reply id, from its
    REPLY_START, by default); the other options are VercelBridge's. For a
    log that holds a whole session, use :func:`chat_endpoint`: this
    response ends only when the log closes or a reply parks."""
    bridge = VercelBridge(message_id, dynamic_tools=dynamic_tools, external_tools=external_tools)
    batches = aiter(log.follow(None, heartbeat=heartbeat, max_batch=_MAX_BATCH, coalesce=coalesce))
    return streaming(_body(batches, bridge, after, end_at_park), HEADERS["content-type"], _headers())


# -- a session's replies, one per response ----------------------------------------------------


def _reply_of(event: StoredEvent) -> str | None:
    """The reply an event (or a checkpoint) is about, if any."""
    if type(event) is CustomEvent:
        msg = read_checkpoint(event)
        return msg.id if msg is not None else None
    reply_id: str | None = getattr(event, "reply_id", None)
    return reply_id


class _Reply:
    """The one reply a response carries, read from a session's log after an
    entry: a bridge that already has the client's state, or (``known``) the
    first reply not among ``known`` to begin (a turn's reply)."""

    def __init__(self, make: Callable[[], VercelBridge], bridge: VercelBridge | None,
                 known: set[str] | None = None) -> None:
        self.make = make
        self.bridge = bridge
        self.known = known

    def feed(self, event: StoredEvent) -> list[Chunk] | None:
        """The chunks of ``event``; None when the response is over without a
        reply (the turn was withdrawn before its reply began)."""
        bridge = self.bridge
        if bridge is None:
            assert self.known is not None
            if type(event) is UserInterruptEvent and event.reply_id not in self.known:
                return None  # the interrupt of the turn itself: no reply will begin
            reply_id = _reply_of(event)
            if reply_id is None or reply_id in self.known:
                return []  # the session's other replies, CUSTOM events
            bridge = self.bridge = self.make()
        return bridge.feed(event)

    def close(self) -> list[Chunk]:
        return self.bridge.close() if self.bridge is not None else []


_WITHDRAWN: Chunk = {"type": "error", "errorText": "the turn was interrupted before its reply began"}


async def _reply_body(log: EventStore, reply: _Reply, after: str | None, prelude: list[Chunk],
                      heartbeat: float | None, coalesce: bool | float) -> AsyncIterator[bytes]:
    """One reply as a UI message stream: ``prelude``, then the reply's
    chunks from the entries after ``after``, up to and including the first
    ``finish`` (the reply ended or parked: nothing after it is this
    response's), then ``[DONE]``. A log that closes first ends it with the
    bridge's ``close()``."""
    if prelude:
        yield encode_chunks(prelude)
    batches = log.follow(after, heartbeat=heartbeat, max_batch=_MAX_BATCH, coalesce=coalesce)
    async with aclosing(batches):  # type: ignore[type-var]  # a store's follow is an async generator
        async for batch in batches:
            if not batch:
                yield KEEP_ALIVE
                continue
            chunks: list[Chunk] = []
            for _, event in batch:
                out = reply.feed(event)
                if out is None:
                    yield encode_chunks([*chunks, _WITHDRAWN]) + DONE
                    return
                for i, chunk in enumerate(out):
                    if chunk["type"] == "finish":
                        yield encode_chunks([*chunks, *out[:i + 1]]) + DONE
                        return
                chunks += out
            if chunks:
                yield encode_chunks(chunks)
    yield encode_chunks(reply.close()) + DONE


def _bridges(dynamic_tools: bool, external_tools: Iterable[str]) -> Callable[[], VercelBridge]:
    tools = tuple(external_tools)
    return lambda: VercelBridge(None, dynamic_tools=dynamic_tools, external_tools=tools)


def _running(replies: Iterable[Msg]) -> Msg | None:
    """The reply that began last of those still running (neither ended nor parked)."""
    running = [msg for msg in replies if waiting(msg).state == "running"]
    return running[-1] if running else None


def chat_endpoint(find_log: Callable[..., Any], on_input: OnInput, *, agent_id: str = "",
                  user_name: str = "user", authorize: Authorize | None = None, admit: Admit | None = None,
                  body_limit: int = MAX_BODY_BYTES, heartbeat: float | None = 15.0, coalesce: bool | float = False,
                  dynamic_tools: bool = False, external_tools: Iterable[str] = (),
                  session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``useChat``'s POST (ai's ``DefaultChatTransport``), over
    a log that holds the whole session ``id`` names.

    In order, before anything is written:

    * 413 for a body over ``body_limit`` bytes; 400 for one that is not ai's
      chat body (``wire.bridges.vercel.parse_chat_body``: the message names
      the JSON path or the byte), for a ``regenerate-message`` (agentscope
      has no such input), or whose ``id`` is not the session the route names
      (``session_of``), if it names one;
    * ``authorize(request, id)``, if given: 403, or its :class:`Refused`
      status (401);
    * ``find_log(request, chat)`` (sync or async), as the answer endpoint
      asks it: ``chat`` is a :class:`wire.session.ChatRequest` whose
      ``session_id`` is the body's ``id`` and whose ``input`` is the user's
      Msg for a new message, None for an answer (built from the parked
      reply once the log is found); None is 404;
    * for an assistant message (the user answered its tool parts): the
      session's reply of that id (409 if there is none), and the answer
      (``wire.bridges.vercel.chat_answer``: 409 if the message answers
      nothing);
    * ``wire.transports.inputs.take_input``: 409 when the session cannot take
      the input now (a turn while a reply runs or is parked, an answer to a
      call that does not wait for one, a second answer), ``admit``'s
      refusal, 503 for a session that kept changing or a failing store. Then
      the input is written and ``on_input(chat, log, request)`` is called:
      start the agent there, as for every door.

    The response is the turn's reply as a UI message stream (ai's headers):
    for a new message, the first reply to begin after the turn, from its
    REPLY_START; for an answer, the parked reply's continuation (the client
    has the reply up to its park, which the bridge starts from), from the
    answer on. It ends with ``finish`` and ``data: [DONE]`` where the reply
    ends or parks again; a turn withdrawn before its reply began (a
    USER_INTERRUPT naming it) ends it with an ``error`` chunk. ``agent_id``
    goes into the chat request, ``user_name`` is the user Msg's name; the
    other options are ``VercelBridge``'s and the serving path's."""
    make = _bridges(dynamic_tools, external_tools)

    async def endpoint(request: Request) -> Response:
        try:
            body = parse_chat_body(await read_body(request, body_limit))
            if body.trigger != "submit-message":
                raise DecodeError("a session cannot regenerate a reply (agentscope has no such input): "
                                  "send a new message", path="$.trigger")
            message = user_msg(body.message, user_name) if body.role == "user" else None
        except Refused as exc:  # too large, or cut short
            return refused(exc)
        except DecodeError as exc:
            return PlainTextResponse(f"the request body is not valid: {exc}", status_code=400)
        if body.role == "system":
            return PlainTextResponse("the request body is not valid: the last message is a system message "
                                     "(at $.messages[-1].role)", status_code=400)
        named = session_of(request, session_param) if request.path_params else None
        if named is not None and named != body.id:
            return PlainTextResponse(f"the body's id is not {named!r}, the URL's session", status_code=400)
        try:
            if authorize is not None and await find(authorize, request, body.id) is not True:
                return PlainTextResponse("not allowed", status_code=403)
            chat = ChatRequest(agent_id=agent_id, session_id=body.id, input=message)
            log: EventStore | None = await find(find_log, request, chat)
            if log is None:
                return PlainTextResponse("no such session", status_code=404)
            session = await log.session()
            prelude: list[Chunk] = []
            if message is None:
                parked = session.replies.get(str(body.message["id"]))
                if parked is None:
                    raise Refused(409, f"the session has no reply {body.message['id']!r} to answer")
                try:
                    answer = chat_answer(body.message, parked)
                except DecodeError as exc:
                    exc.path = f"$.messages[-1]{(exc.path or '$')[1:]}"
                    return PlainTextResponse(f"the request body is not valid: {exc}", status_code=400)
                if answer is None:
                    raise Refused(409, f"the message answers no tool call reply {parked.id!r} waits for")
                chat = ChatRequest(agent_id=agent_id, session_id=body.id, input=answer)
                # The client has the reply up to its park (a parked reply does not
                # change until it is answered): the bridge starts from there.
                bridge = make()
                bridge.join(copy_msg(parked))
                reply = _Reply(make, bridge)
            else:
                reply = _Reply(make, None, set(session.replies))
            entry_id = await take_input(log, chat, request, on_input, admit=admit)
            if reply.bridge is not None:
                prelude = reply.bridge.feed(chat.input)  # type: ignore[arg-type]  # the answer, an AgentEvent
        except StoreError as exc:
            return PlainTextResponse(f"the store failed: {exc}", status_code=503)
        except Refused as exc:
            return refused(exc)
        return streaming(_reply_body(log, reply, entry_id, prelude, heartbeat, coalesce),
                         HEADERS["content-type"], _headers())

    return endpoint


def resume_endpoint(find_log: FindLog, *, finished: bool = False, heartbeat: float | None = 15.0,
                    coalesce: bool | float = False, dynamic_tools: bool = False,
                    external_tools: Iterable[str] = (), authorize: Authorize | None = None,
                    session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``GET {api}/{chatId}/stream`` over the session log
    ``find_log(request)`` names (it may be async): the reply running in it
    (the last to begin of those neither ended nor parked), from its start
    (the Msg so far, every part a live reader was sent, those still growing
    left open), then live, up to its end or park (``finish``, ``[DONE]``);
    while a turn waits for its reply to begin, that reply. 204 No Content
    when no reply runs (every reply ended or parked, or the session is
    closed: the client has them from the app's history) or there is no such
    log, unless ``finished``:
    then the reply that began last, whole. With ``authorize``,
    ``authorize(request, session_id)`` is asked first about the session the
    route names (``wire.transports.http.session_of`` with ``session_param``:
    ``{chatId}`` in ai's route): False is 403."""
    make = _bridges(dynamic_tools, external_tools)

    async def respond(log: EventStore, request: Request) -> Response:
        session = await log.session()
        # A closed session runs nothing: a reply it cut short is over too.
        msg = _running(session.replies.values()) if not session.closed else None
        after = session.last_id or None
        if msg is not None or (finished and session.last is not None and session.turn is None):
            bridge = make()
            target = msg if msg is not None else session.last
            assert target is not None
            reply = _Reply(make, bridge)
            prelude = bridge.join(copy_msg(target))
            if any(chunk["type"] == "finish" for chunk in prelude):
                return streaming(_done(prelude), HEADERS["content-type"], _headers())
        elif session.turn is not None and not session.closed:
            reply, prelude = _Reply(make, None, set(session.replies)), []
        else:
            return Response(status_code=204)
        return streaming(_reply_body(log, reply, after, prelude, heartbeat, coalesce),
                         HEADERS["content-type"], _headers())

    async def none_is_no_content(request: Request) -> Response:
        response = await endpoint(request)
        return Response(status_code=204) if response.status_code == 404 else response

    endpoint = serve(find_log, respond, authorize=authorize, session_param=session_param)
    return none_is_no_content


async def _done(chunks: list[Chunk]) -> AsyncIterator[bytes]:
    yield encode_chunks(chunks) + DONE

