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
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.bridges.vercel import DONE, HEADERS, ChatBody, Chunk, VercelBridge, encode_chunks, parse_chat_body
from wire.bridges.vercel_session import MAX_BATCH, Reply, bridges, reply_chunks, resumed, take_chat, user_input
from wire.errors import StoreError
from wire.messages import Msg
from wire.session import read_checkpoint
from wire.stores import Entry, EventStore
from wire.transports.http import (
    KEEP_ALIVE,
    MAX_BODY_BYTES,
    Authorize,
    FindLog,
    check_session,
    find,
    parsed_body,
    refused,
    serve,
    session_of,
    streaming,
)
from wire.transports.inputs import Admit, OnInput, Refused

__all__ = ("chat_endpoint", "resume_endpoint", "ui_message_stream_response")

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
                    and len(batch) < MAX_BATCH:
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
    batches = aiter(log.follow(None, heartbeat=heartbeat, max_batch=MAX_BATCH, coalesce=coalesce))
    return streaming(_body(batches, bridge, after, end_at_park), HEADERS["content-type"], _headers())


# -- a session's replies, one per response ----------------------------------------------------


async def _reply_body(log: EventStore, reply: Reply, after: str | None, prelude: list[Chunk],
                      heartbeat: float | None, coalesce: bool | float) -> AsyncIterator[bytes]:
    """One reply as a UI message stream (``reply_chunks``), then ``[DONE]``."""
    async for chunks, last in reply_chunks(log, reply, after, prelude, heartbeat=heartbeat, coalesce=coalesce):
        if last:
            yield encode_chunks(chunks) + DONE
        else:
            yield encode_chunks(chunks) if chunks else KEEP_ALIVE


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
    make = bridges(dynamic_tools, external_tools)

    async def endpoint(request: Request) -> Response:
        def parse(raw: bytes) -> tuple[ChatBody, Msg | None]:
            body = parse_chat_body(raw)
            return body, user_input(body, user_name)  # Refused: a body agentscope cannot take

        parsed = await parsed_body(request, body_limit, parse)
        if isinstance(parsed, Response):
            return parsed
        body, message = parsed
        try:
            await check_session(request, body.id, authorize,
                                session_of(request, session_param) if request.path_params else None)
            turn = await take_chat(body, message, lambda chat: find(find_log, request, chat), request, on_input,
                                   make, agent_id=agent_id, admit=admit)
        except StoreError as exc:
            return PlainTextResponse(f"the store failed: {exc}", status_code=503)
        except Refused as exc:
            return refused(exc)
        return streaming(_reply_body(turn.log, turn.reply, turn.entry_id, turn.prelude, heartbeat, coalesce),
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
    make = bridges(dynamic_tools, external_tools)

    async def respond(log: EventStore, request: Request) -> Response:
        found = await resumed(log, make, finished=finished)
        if found is None:
            return Response(status_code=204)
        reply, after, prelude = found
        return streaming(_reply_body(log, reply, after, prelude, heartbeat, coalesce),
                         HEADERS["content-type"], _headers())

    async def none_is_no_content(request: Request) -> Response:
        response = await endpoint(request)
        return Response(status_code=204) if response.status_code == 404 else response

    endpoint = serve(find_log, respond, authorize=authorize, session_param=session_param)
    return none_is_no_content

