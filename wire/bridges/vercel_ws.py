"""Serve an agentscope session to the Vercel AI SDK's own socket, ai's
``WebSocketChatTransport`` (Starlette; the ``http`` extra)::

    from starlette.routing import WebSocketRoute
    from wire.bridges.vercel_ws import chat_socket

    sessions: dict[str, EventLog] = {}   # chat id -> the session's log
    find_log = lambda websocket, chat: sessions.get(chat.session_id)
    route = WebSocketRoute("/api/chat/socket", chat_socket(find_log, on_input))

    // the browser: useChat({transport: new WebSocketChatTransport({url: "/api/chat/socket"})})

The log is any :class:`wire.stores.EventStore` holding a whole session, as
for ``wire.bridges.vercel_http``'s endpoints, whose meaning the socket keeps
(``wire.bridges.vercel_session``): a new user message is a new turn, tool
approval responses (or outputs of tools the frontend ran) answer the parked
reply, each request's chunks are that turn's reply up to its end or park,
and ``resume`` replays the running reply. Every input goes through
``wire.transports.inputs.take_input``, the one agent hook of every door.

The protocol (ai 7's ``WebSocketChatTransportRequest`` and
``WebSocketChatTransportResponse``, JSON text frames)
=============================================================================

Client to server; fields not listed are read by ai's server helpers, not
here (``headers``, ``body``, ``metadata``):

* ``{"type": "send", "requestId", "id", "trigger", "messageId",
  "messages"}``: what ``DefaultChatTransport`` POSTs; ``id`` is the session.
  The last message is the input, taken as ``chat_endpoint`` takes it;
* ``{"type": "resume", "requestId", "id"}``: the reply running in session
  ``id`` (``reconnectToStream``), replayed from its start, or the last reply
  if it is parked for the user (whole: a client whose connection was cut
  mid-reply gets the question it must answer). A ``lastSequence``
  is refused (an ``error``): a session's reply is replayed whole, never from
  a sequence number of another request;
* ``{"type": "abort", "requestId"}``: the server stops sending that
  request's chunks (the agent goes on; a reader resumes it).

Server to client, each naming its ``requestId``:

* ``{"type": "start"}``, then ``{"type": "chunk", "sequence": 0, 1, ...,
  "chunk": <a UI message chunk>}`` (the chunk's JSON text is the HTTP
  doors', ``wire.bridges.vercel.encode_chunks``'s: JSON.stringify's), then
  ``{"type": "end"}`` after the reply's ``finish`` (it ended or parked), or
  after its ``error`` chunk when the turn was withdrawn before its reply
  began. A delta longer than :data:`MAX_DELTA` characters (a resume's
  catch-up of a long reply) goes out in several chunks of the same part;
* ``{"type": "error", "errorText": "<status>: <reason>"}``: the request was
  refused, with the status ``chat_endpoint`` answers (400 a body that is not
  ai's or that agentscope cannot take, 403 ``authorize``, 404 no such
  session, 409 what the session cannot take now, 429 over a limit below,
  503 a failing store; ``admit``'s and ``on_input``'s own), or the store
  failed while the reply streamed;
* ``{"type": "no-active"}``: a resume found no reply running or waiting for
  the user (every reply ended, the session is closed, or there is no such
  session).

A socket may carry several chats and requests at once (ai multiplexes them);
a route with a path parameter names the one session it serves
(``wire.transports.http.session_of``): ``authorize(websocket, session_id)``
is then asked before anything is read (a refusal closes with 1008, having
appended nothing), and a frame naming another session is a 400. On any
route ``authorize`` is asked again about each ``send`` and ``resume``.

Limits, as wire's own socket (``wire.transports.ws``, through
``wire.transports.ws_base``): frames over ``max_frame_bytes`` close with
1009, a binary frame with 1003, a frame that is not one of the above (not
JSON, no known ``type``, no string ``requestId``, a field of the wrong type)
with 1007; at most ``frames_per_second`` frames are read a second; a
``send`` past ``inputs_per_second``, a ``resume`` past as many (a bucket of
its own: each reads the whole session), or a request past ``max_requests``
running on the socket, gets a 429 ``error``; a client that has not taken a
frame for ``send_timeout`` seconds is closed with 1008. A request's frame is
made only once the socket is free, so a socket holds one frame in flight
however many requests stream; what one socket can make the server hold
(``max_requests`` replies, each the size of its reply) is in
``docs/untrusted-peers.md``. ai's client ends a
connection on a frame type it does not know, so the server sends no pings of
its own: the ASGI server's protocol pings (uvicorn's ``--ws-ping-interval``)
close a socket whose peer is gone.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Annotated, Literal, TypeAlias

import anyio
import msgspec
from starlette.websockets import WebSocket

from wire._codec import DECODE_ERRORS
from wire.bridges.vercel import ChatBody, Chunk, chat_body, js_chunk
from wire.bridges.vercel_session import Reply, bridges, reply_chunks, resumed, take_chat, user_input
from wire.errors import DecodeError, StoreError
from wire.session import ChatRequest
from wire.stores import EventStore
from wire.transports.http import MAX_BODY_BYTES, find, session_of
from wire.transports.inputs import Admit, OnInput, Refused
from wire.transports.ws_base import Bucket, Close, Connection, accept

__all__ = ("MAX_DELTA", "ChatFindLog", "chat_socket")

ChatFindLog: TypeAlias = Callable[[WebSocket, ChatRequest], "EventStore | Awaitable[EventStore | None] | None"]
"""The application's lookup (sync or async), asked for each request: the log
of session ``chat.session_id``, or None (no such session). ``chat.input`` is
the user's Msg for a new message, None for an answer or a resume."""

_ID = Annotated[str, msgspec.Meta(max_length=256)]


class _Send(msgspec.Struct, tag="send", tag_field="type"):
    requestId: _ID  # ai's field names
    id: str
    messages: list[msgspec.Raw]
    trigger: Literal["submit-message", "regenerate-message"] = "submit-message"
    messageId: str | None = None


class _Resume(msgspec.Struct, tag="resume", tag_field="type"):
    requestId: _ID
    id: str
    lastSequence: Annotated[int, msgspec.Meta(ge=0)] | None = None


class _Abort(msgspec.Struct, tag="abort", tag_field="type"):
    requestId: _ID


_Frame: TypeAlias = _Send | _Resume | _Abort
_decoder = msgspec.json.Decoder(_Frame)
_encode = msgspec.json.encode
_NAME = "ai's WebSocketChatTransport protocol"

MAX_DELTA = 16 * 1024
"""The most characters a delta chunk carries (``text-delta``,
``reasoning-delta``, ``tool-input-delta``; a frame of about 64 KiB at
most): a longer delta, the catch-up of a long reply that a resume replays,
goes out as several, which the client appends to the same part."""

_DELTAS = {"text-delta": "delta", "reasoning-delta": "delta", "tool-input-delta": "inputTextDelta"}


def _parts(chunk: Chunk) -> Iterator[Chunk]:
    """``chunk``, or a long delta in pieces of :data:`MAX_DELTA` characters
    (the client appends them: the same part)."""
    field = _DELTAS.get(chunk["type"])
    if field is None or len(chunk[field]) <= MAX_DELTA:
        yield chunk
        return
    text: str = chunk[field]
    for at in range(0, len(text), MAX_DELTA):
        yield {**chunk, field: text[at:at + MAX_DELTA]}


def chat_socket(find_log: ChatFindLog, on_input: OnInput, *, agent_id: str = "", user_name: str = "user",
                authorize: Callable[[WebSocket, str], bool | Awaitable[bool]] | None = None,
                admit: Admit | None = None, session_param: str = "session_id", protocols: Sequence[str] = (),
                finished: bool = False, coalesce: bool | float = True, dynamic_tools: bool = False,
                external_tools: Iterable[str] = (), max_frame_bytes: int = MAX_BODY_BYTES + 4096,
                inputs_per_second: float = 5.0, frames_per_second: float = 50.0, send_timeout: float = 30.0,
                max_requests: int = 8) -> Callable[[WebSocket], Awaitable[None]]:
    """A Starlette WebSocket endpoint speaking ai's ``WebSocketChatTransport``
    protocol over session logs (the protocol is this module's docstring).

    * ``find_log(websocket, chat)`` (:data:`ChatFindLog`), ``on_input(chat,
      log, websocket)`` and ``admit``: as ``chat_endpoint``'s.
    * ``authorize(websocket, session_id)``: on opening, about the session the
      route names (if it names one), and about each request's session.
    * ``protocols``: the subprotocols the socket answers to (ai's
      ``protocols`` option); a client offering only others is closed with
      1002, one offering none is served.
    * ``finished``: a resume with no reply running replays the reply that
      began last, whole, as ``resume_endpoint``'s option.
    * ``coalesce``: a request that is behind gets the deltas waiting for it
      merged (``EventStore.follow``).
    * ``agent_id``, ``user_name``, ``dynamic_tools``, ``external_tools``: as
      ``chat_endpoint``'s.
    * ``max_frame_bytes`` (1009), ``inputs_per_second`` (sends, and
      resumes in a bucket of their own) and ``max_requests`` (429),
      ``frames_per_second`` (pacing), ``send_timeout`` (1008). Each request
      running holds its reply (the bridge's Msg): ``max_requests`` bounds
      what one socket makes the server hold.
    """
    for name, value in (("max_frame_bytes", max_frame_bytes), ("inputs_per_second", inputs_per_second),
                        ("frames_per_second", frames_per_second), ("send_timeout", send_timeout),
                        ("max_requests", max_requests)):
        if not value > 0 or not math.isfinite(value):
            raise ValueError(f"{name} must be a positive number, not {value!r}")
    make = bridges(dynamic_tools, external_tools)

    async def endpoint(websocket: WebSocket) -> None:
        named = session_of(websocket, session_param) if websocket.path_params else None

        async def check() -> Close | None:
            if named is not None and authorize is not None and await find(authorize, websocket, named) is not True:
                return Close(1008, "403 not allowed")
            return None

        if await accept(websocket, protocols, check):
            socket = _ChatSocket(websocket, named)
            await socket.run(socket.read)

    class _ChatSocket(Connection):
        """One open socket: its reader (this task) and a task per request."""

        def __init__(self, websocket: WebSocket, named: str | None) -> None:
            super().__init__(websocket, name=_NAME, binary=False, max_frame_bytes=max_frame_bytes,
                             frames_per_second=frames_per_second, send_timeout=send_timeout)
            self.named = named
            self.inputs = Bucket(inputs_per_second)
            self.resumes = Bucket(inputs_per_second)
            self.requests: dict[str, anyio.CancelScope] = {}

        async def read(self) -> None:
            while (data := await self.receive()) is not None:
                try:
                    frame: _Frame = _decoder.decode(data)
                except DECODE_ERRORS as exc:
                    raise Close(1007, f"not a frame of {_NAME}: {exc}") from exc
                if type(frame) is _Abort:
                    scope = self.requests.pop(frame.requestId, None)
                    if scope is not None:
                        scope.cancel()
                    continue
                assert type(frame) is _Send or type(frame) is _Resume
                try:
                    await self._request(frame)
                except Refused as exc:
                    await self._error(frame.requestId, f"{exc.status}: {exc.reason}")

        async def _request(self, frame: _Send | _Resume) -> None:
            """Take a send or resume frame and start its reply, or raise :class:`Refused`."""
            if frame.requestId in self.requests:
                raise Refused(409, f"request {frame.requestId!r} is already running on this socket")
            if len(self.requests) >= max_requests:
                raise Refused(429, f"too many requests running on this socket: at most {max_requests}")
            if self.named is not None and frame.id != self.named:
                raise Refused(400, f"the frame's id is not {self.named!r}, the route's session")
            if type(frame) is _Resume and frame.lastSequence is not None:
                raise Refused(400, "lastSequence: a session's running reply is replayed whole; resume without it")
            # A resume reads the whole session as a send does (and an abort frees its place at once):
            # each has a bucket, so neither a flood of sends nor one of resumes and aborts is work without end.
            bucket, what = (self.inputs, "inputs") if type(frame) is _Send else (self.resumes, "resumes")
            if not bucket.take():
                raise Refused(429, f"too many {what}: at most {inputs_per_second:g} a second")
            body: ChatBody | None = None
            if type(frame) is _Send:
                try:
                    body = chat_body(frame.id, frame.trigger, frame.messageId, frame.messages)
                except DecodeError as exc:
                    raise Refused(400, f"the request body is not valid: {exc}") from exc
                message = user_input(body, user_name)
            try:
                if authorize is not None and await find(authorize, self.websocket, frame.id) is not True:
                    raise Refused(403, "not allowed")
                if body is not None:
                    turn = await take_chat(body, message, lambda chat: find(find_log, self.websocket, chat),
                                           self.websocket, on_input, make, agent_id=agent_id, admit=admit)
                    self._start(frame.requestId, turn.log, turn.reply, turn.entry_id, turn.prelude)
                    return
                log = await find(find_log, self.websocket, ChatRequest(agent_id=agent_id, session_id=frame.id,
                                                                         input=None))
                found = await resumed(log, make, finished=finished, parked=True) if log is not None else None
            except StoreError as exc:
                raise Refused(503, f"the store failed: {exc}") from exc
            if found is None or log is None:
                await self.send(_encode({"type": "no-active", "requestId": frame.requestId}))
                return
            reply, after, prelude = found
            self._start(frame.requestId, log, reply, after, prelude)

        def _start(self, request_id: str, log: EventStore, reply: Reply, after: str | None,
                   prelude: list[Chunk]) -> None:
            scope = self.requests[request_id] = anyio.CancelScope()
            self.start(self._stream, request_id, scope, log, reply, after, prelude)

        async def _stream(self, request_id: str, scope: anyio.CancelScope, log: EventStore, reply: Reply,
                          after: str | None, prelude: list[Chunk]) -> None:
            """One request's reply: ``start``, its chunks in order, ``end``
            (nothing more once the client aborts it)."""
            pieces = reply_chunks(log, reply, after, prelude, heartbeat=None, coalesce=coalesce)
            sequence = 0
            try:
                with scope:
                    await self.send(_encode({"type": "start", "requestId": request_id}))
                    async for chunks, _ in pieces:
                        for chunk in chunks:
                            for part in _parts(chunk):
                                # Encoded once the socket is free (a request that waits holds no
                                # frame), as the HTTP doors write it (JSON.stringify's: 1e+21, not 1e21).
                                await self.send(partial(_encode, {"type": "chunk", "requestId": request_id,
                                                                  "sequence": sequence, "chunk": js_chunk(part)}))
                                sequence += 1
                    await self.send(_encode({"type": "end", "requestId": request_id}))
            except StoreError as exc:
                await self._error(request_id, f"503: the store failed: {exc}")
            finally:
                if self.requests.get(request_id) is scope:
                    del self.requests[request_id]
                with anyio.CancelScope(shield=True), contextlib.suppress(StoreError):
                    await pieces.aclose()  # type: ignore[attr-defined]  # an async generator

        async def _error(self, request_id: str, text: str) -> None:
            await self.send(_encode({"type": "error", "requestId": request_id, "errorText": text}))

    return endpoint
