"""One WebSocket per conversation: a session read and written over one
socket, resumed by entry id (Starlette; the ``http`` extra).

::

    from starlette.routing import WebSocketRoute
    from wire.transports.ws import session_socket

    route = WebSocketRoute("/sessions/{session_id}/socket",
                           session_socket(find_log, on_input, authorize=authorize))

:func:`session_socket` serves any :class:`wire.stores.EventStore` (the
in-memory ``EventLog``, a ``RedisEventLog`` on any replica), and every input
goes through ``wire.transports.inputs.take_input``, the hook the HTTP
answer endpoint and the bridges use: an application writes its agent once.
``wire.transports.ws_client`` is the Python client, ``connectSession`` in
the TypeScript runtime (``schemas/src/socket.ts``) the browser's.

The protocol (version 1)
========================

Subprotocols. The client offers one or both of ``wire.v1.json`` (JSON text
frames) and ``wire.v1.msgpack`` (MessagePack binary frames, binary data as
``bin``); the server takes the first it offers. A client that offers no
subprotocol speaks JSON. One that offers only others is accepted and closed
at once with 1002. Every frame is one object whose ``type`` says what it
is; fields a side does not know are ignored, so a later version adds fields
and frame types, never changes these.

Client to server:

* ``{"type": "follow", "after": <entry id or null>}``: (re)start reading
  the session after that entry id; null reads it from its first entry. A
  reader whose position the store no longer keeps (a bounded or trimmed
  log), or any reader that brings an id (``resume="checkpoint"``, the
  default), gets ``wire.checkpoint`` events first, as ``EventStore.follow``
  gives them; an id the log never gave out gets a ``wire.restart`` event
  (entry id ``""``), then the log from its start. A second follow frame
  stops the first one's entries and starts anew; entries of the first
  already on their way still arrive before it takes effect. At most 256
  characters of id.
* ``{"type": "input", "request_id": "<the client's, up to 256 characters>",
  "body": <agentscope's chat body>}``: a turn, an answer or an interrupt
  (``{"agent_id", "session_id", "input"}``, ``wire.session.chat``; in
  MessagePack frames a map of the same fields), checked and written
  exactly as the HTTP answer endpoint does, then ``on_input(chat, log,
  websocket)``. Inputs are taken one at a time, in the order they came.
* ``{"type": "ping"}``: answered with ``{"type": "pong"}``.

Server to client:

* ``{"type": "entries", "entries": [[<entry id>, <event>], ...]}``: the
  session's entries in order, each event as ``wire.json`` (or
  ``wire.msgpack``) writes it. An entry id is the position to send back in
  a later ``follow`` frame. A reader that is behind gets the deltas
  waiting for it merged (``coalesce``, as ``EventStore.follow``); a frame
  holds at most ``max_send_bytes`` of events, or one larger event alone.
* ``{"type": "result", "request_id": ..., "status": <int>, "detail": <str>,
  "entry_id": <entry id or null>}``: what became of an input. ``status``:
  200 taken (``entry_id`` is where it was written: a reader reads what
  follows it); 400 a body that is not a chat body (``detail`` names the
  JSON path) or that names another session than the route; 403 refused by
  ``authorize`` (asked again for every input), or another status it raises
  as :class:`~wire.transports.inputs.Refused`; 404 ``find_log`` found no
  log; 409 the session cannot take it now (``wire.session.Session.refusal``);
  413 a body over ``body_limit`` bytes; 429 more than
  ``inputs_per_second``; 503 the store failed or the session kept changing
  (try again); any status ``admit`` or ``on_input`` raise.
* ``{"type": "end"}``: the log is closed and this reader has read it to its
  end. The socket stays open (inputs get 409) until the client closes it.
* ``{"type": "ping"}``: after ``heartbeat`` seconds in which nothing was
  sent, so that a client (a browser cannot see protocol pings) and the
  proxies between know the socket is alive. Answering is not required.
* ``{"type": "pong"}``: the answer to the client's ping.

Close codes, with a reason of at most 123 bytes:

* 1008, before anything else is sent: the socket is refused. The reason
  begins with an HTTP status: ``403 ...`` (``authorize`` said no, or raised
  :class:`Refused` with another status, ``401 ...``), ``404 no such
  session`` (``find_log`` found none). ``authorize(websocket, session_id)``
  is asked about the session the route names (``session_of``) before
  anything is read from the socket or the store; a refused socket has
  appended nothing.
* 1011 ``503 ...``: the store failed; reconnect and follow again from the
  last entry id.
* 1009: a frame over ``max_frame_bytes`` (the ASGI server's own limit,
  uvicorn's ``--ws-max-size``, 16 MiB by default, closes larger ones first).
* 1003: a binary frame on ``wire.v1.json`` or a text frame on
  ``wire.v1.msgpack``; 1007: a frame that is not one of the above (bad
  JSON or MessagePack, no known ``type``, a field of the wrong type); the
  reason says what.
* 1008 ``the client stopped reading``: a frame could not be sent for
  ``send_timeout`` seconds. The server stops writing to it; nothing is
  queued for a socket beyond the frame being sent.

Pacing and limits. The server reads at most ``frames_per_second`` frames a
second (a burst of as many): a client that floods is read no faster, and
TCP holds it back. An input past ``inputs_per_second`` (a burst of as many,
at least one) gets 429 and is not taken. Entries are read from the store
only as fast as the socket takes them, so a slow reader costs one frame in
flight, never a queue; what one socket can make the server hold is in
``docs/untrusted-peers.md``. Protocol-level pings are the ASGI server's
(uvicorn: ``--ws-ping-interval``, ``--ws-ping-timeout``): they close a
socket whose peer is gone. So is permessage-deflate, which uvicorn grants
every client that asks (browsers do): each message is then compressed for
each reader, which the readers of a batch cannot share; serving one reply
to many readers, coalesce and turn it off (``--ws-per-message-deflate
false``): benchmarks/README.md has the figures.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeAlias

import anyio
import msgspec
from starlette.websockets import WebSocket

from wire import json as wire_json
from wire import msgpack as wire_msgpack
from wire._codec import DECODE_ERRORS, ENCODE_ERRORS
from wire.errors import DecodeError, EncodeError, StoreError
from wire.events import UnknownEvent
from wire.session import decode_chat_request
from wire.stores import Entry, EventStore, Resume, StoredEvent
from wire.transports.http import MAX_BODY_BYTES, find, session_of
from wire.transports.inputs import Admit, OnInput, Refused, take_input
from wire.transports.ws_base import Bucket, Close, Connection, accept, choose

__all__ = ("JSON_PROTOCOL", "MSGPACK_PROTOCOL", "PROTOCOLS", "SocketAuthorize", "SocketFindLog", "session_socket")

JSON_PROTOCOL = "wire.v1.json"
MSGPACK_PROTOCOL = "wire.v1.msgpack"
PROTOCOLS = (JSON_PROTOCOL, MSGPACK_PROTOCOL)

SocketFindLog: TypeAlias = Callable[[WebSocket], "EventStore | Awaitable[EventStore | None] | None"]
"""The application's lookup (sync or async): the log of the session the
socket's route names, or None (no such session)."""

SocketAuthorize: TypeAlias = Callable[[WebSocket, str], "bool | Awaitable[bool]"]
"""``authorize(websocket, session_id)`` (sync or async): True lets the
socket through; anything else refuses it (403); it raises :class:`Refused`
for another status (401). The socket's headers, cookies and query string
are there to read; a browser cannot set headers on a WebSocket, so a token
comes in a cookie or the query string."""

_ID = Annotated[str, msgspec.Meta(max_length=256)]


class _Follow(msgspec.Struct, tag="follow", tag_field="type"):
    after: _ID | None = None


class _Input(msgspec.Struct, tag="input", tag_field="type"):
    request_id: _ID
    body: msgspec.Raw


class _Ping(msgspec.Struct, tag="ping", tag_field="type"):
    pass


class _Pong(msgspec.Struct, tag="pong", tag_field="type"):
    pass


_Frame: TypeAlias = _Follow | _Input | _Ping | _Pong
_FRAME_ERRORS = DECODE_ERRORS


class _Codec:
    """One subprotocol's frames: decoding the client's, encoding the server's."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.binary = name == MSGPACK_PROTOCOL
        self.decoder: Any = (msgspec.msgpack.Decoder if self.binary else msgspec.json.Decoder)(_Frame)
        self.encode: Callable[[Any], bytes] = msgspec.msgpack.encode if self.binary else msgspec.json.encode

    def event(self, event: StoredEvent) -> bytes:
        if not self.binary:
            return wire_json.encode(event)
        if type(event) is UnknownEvent and event.format == "json":
            # A newer producer's event read from a JSON store: the same fields as MessagePack.
            return msgspec.msgpack.encode(msgspec.json.decode(event.raw))
        return wire_msgpack.encode(event)

    def chat_body(self, raw: msgspec.Raw) -> bytes:
        """The input's body as the JSON ``decode_chat_request`` reads."""
        if not self.binary:
            return bytes(raw)
        try:
            return msgspec.json.encode(msgspec.msgpack.decode(raw))
        except (*DECODE_ERRORS, *ENCODE_ERRORS) as exc:
            raise DecodeError(f"the body is not a MessagePack map of JSON values: {exc}", path="$.body") from exc


class _SharedFrames:
    """Entries frames made once for every reader of a batch. The readers
    of a session mostly read the same batches (the live ones wait at the
    log's end and wake together), and the stores hand them the same event
    objects (``EventLog``'s kept events, a Redis batch decoded once, the
    merges of readers in one coalescing state), in the same (entry id,
    event) pairs: a batch is known by the identity of its pairs, which the
    cache holds, so an identity is never reused while it is a key. A few
    recent batches are kept; a JSON frame is kept as text, which the ASGI
    server takes."""

    def __init__(self, max_send_bytes: int) -> None:
        self.max_send_bytes = max_send_bytes
        self.made: dict[tuple[Any, ...], tuple[list[Entry], list[bytes | str]]] = {}

    def frames(self, batch: list[Entry], codec: _Codec) -> list[bytes | str]:
        key = (codec.name, *map(id, batch))
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = (batch, self._frames(batch, codec))
            if len(self.made) > _SHARED:
                del self.made[next(iter(self.made))]  # the oldest
        return made[1]

    def _frames(self, batch: list[Entry], codec: _Codec) -> list[bytes | str]:
        """``batch`` in frames of at most ``max_send_bytes`` of events (one
        larger event alone)."""
        frames: list[bytes] = []
        items: list[tuple[str, msgspec.Raw]] = []
        size = 0
        for entry_id, event in batch:
            try:
                data = codec.event(event)
            except (EncodeError, *DECODE_ERRORS) as exc:
                raise Close(1011, f"an event cannot be written: {exc}") from exc
            if items and size + len(data) > self.max_send_bytes:
                frames.append(codec.encode({"type": "entries", "entries": items}))
                items, size = [], 0
            items.append((entry_id, msgspec.Raw(data)))
            size += len(data)
        if items:
            frames.append(codec.encode({"type": "entries", "entries": items}))
        return [frame if codec.binary else frame.decode() for frame in frames]


# Batches kept encoded for the other readers: the live readers' batch, and a
# few crowds reading in step.
_SHARED = 16


def session_socket(find_log: SocketFindLog, on_input: OnInput, *, authorize: SocketAuthorize | None = None,
                   admit: Admit | None = None, session_param: str = "session_id", resume: Resume = "checkpoint",
                   coalesce: bool | float = True, heartbeat: float | None = 15.0,
                   max_frame_bytes: int = MAX_BODY_BYTES + 4096, body_limit: int = MAX_BODY_BYTES,
                   max_send_bytes: int = 256 * 1024, inputs_per_second: float = 5.0,
                   frames_per_second: float = 50.0, send_timeout: float = 30.0,
                   ) -> Callable[[WebSocket], Awaitable[None]]:
    """A Starlette WebSocket endpoint serving the session the route names
    (the protocol is this module's docstring).

    * ``find_log(websocket)`` (sync or async): the session's log, asked
      once when the socket opens (None closes it: ``404``) and again for
      each input (None: a 404 result).
    * ``on_input(chat, log, websocket)``: the agent hook of every door
      (``wire.transports.inputs.OnInput``); ``admit`` refuses before the
      write (``Admit``).
    * ``authorize(websocket, session_id)``: asked before anything is read
      or written, and again for each input (:data:`SocketAuthorize`).
    * ``session_param``: the path parameter naming the session
      (``wire.transports.http.session_of``).
    * ``resume``, ``coalesce``: how a follow frame reads the log
      (``EventStore.follow``); coalescing merges only what is already
      waiting, so a reader that keeps up gets every delta.
    * ``heartbeat``: seconds without a frame sent after which a ping goes
      out (None: never).
    * ``max_frame_bytes`` (1009), ``body_limit`` (413), ``max_send_bytes``
      (the events in one entries frame), ``inputs_per_second`` (429),
      ``frames_per_second`` (pacing), ``send_timeout`` (a client that
      stops reading is closed).
    """
    if resume not in ("checkpoint", "replay"):
        raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
    for name, value in (("max_frame_bytes", max_frame_bytes), ("body_limit", body_limit),
                        ("max_send_bytes", max_send_bytes), ("inputs_per_second", inputs_per_second),
                        ("frames_per_second", frames_per_second), ("send_timeout", send_timeout)):
        if not value > 0 or not math.isfinite(value):
            raise ValueError(f"{name} must be a positive number, not {value!r}")
    if heartbeat is not None and not heartbeat > 0:
        raise ValueError(f"heartbeat must be a positive number of seconds or None, not {heartbeat!r}")

    shared = _SharedFrames(max_send_bytes)

    async def endpoint(websocket: WebSocket) -> None:
        session_id = session_of(websocket, session_param)
        servable, offered = choose(list(websocket.scope.get("subprotocols") or []), PROTOCOLS)
        found: list[EventStore] = []

        async def check() -> Close | None:
            if authorize is not None and await find(authorize, websocket, session_id) is not True:
                return Close(1008, "403 not allowed")
            if servable:  # else closed with 1002: no lookup for a socket that cannot be served
                log: EventStore | None = await find(find_log, websocket)
                if log is None:
                    return Close(1008, "404 no such session")
                found.append(log)
            return None

        if await accept(websocket, PROTOCOLS, check):
            # A client that offered no subprotocol speaks JSON.
            await _Socket(websocket, _Codec(offered or JSON_PROTOCOL), session_id, found[0]).serve()

    class _Socket(Connection):
        """One open socket: its reader (this task) and its follower."""

        def __init__(self, websocket: WebSocket, codec: _Codec, session_id: str, log: EventStore) -> None:
            super().__init__(websocket, name=codec.name, binary=codec.binary, max_frame_bytes=max_frame_bytes,
                             frames_per_second=frames_per_second, send_timeout=send_timeout)
            self.codec = codec
            self.session_id = session_id
            self.log = log
            self.inputs = Bucket(inputs_per_second)
            self.following: anyio.CancelScope | None = None
            self.followed = anyio.Event()
            self.followed.set()

        async def serve(self) -> None:
            """Serve the socket until the client leaves or the server ends it."""
            await self.run(self._read, *([self._pings] if heartbeat is not None else []))

        # -- sending -------------------------------------------------------------------

        async def _pings(self) -> None:
            assert heartbeat is not None
            ping = self.codec.encode({"type": "ping"})
            while True:
                await anyio.sleep(max(0.0, self.sent_at + heartbeat - anyio.current_time()))
                if anyio.current_time() - self.sent_at >= heartbeat:
                    await self.send(ping)

        async def _follow(self, after: str | None, scope: anyio.CancelScope, done: anyio.Event) -> None:
            batches = self.log.follow(after, resume=resume, coalesce=coalesce)
            try:
                with scope:
                    async for batch in batches:
                        await self._entries(batch)
                    await self.send(self.codec.encode({"type": "end"}))
            except StoreError as exc:
                raise Close(1011, f"503 the store failed: {exc}") from exc
            finally:
                aclose = getattr(batches, "aclose", None)  # every store's follow is an async generator
                if aclose is not None:
                    with anyio.CancelScope(shield=True), contextlib.suppress(StoreError):
                        await aclose()
                done.set()

        async def _entries(self, batch: list[Entry]) -> None:
            for frame in shared.frames(batch, self.codec):
                await self.send(frame)

        async def _result(self, request_id: str, status: int, detail: str, entry_id: str | None = None) -> None:
            await self.send(self.codec.encode({"type": "result", "request_id": request_id, "status": status,
                                               "detail": detail, "entry_id": entry_id}))

        # -- reading -------------------------------------------------------------------

        async def _read(self) -> None:
            while (buf := await self.receive()) is not None:
                try:
                    frame: _Frame = self.codec.decoder.decode(buf)
                except _FRAME_ERRORS as exc:
                    raise Close(1007, f"not a frame of {self.codec.name}: {exc}") from exc
                if type(frame) is _Follow:
                    await self._restart(frame.after)
                elif type(frame) is _Input:
                    await self._input(frame)
                elif type(frame) is _Ping:
                    await self.send(self.codec.encode({"type": "pong"}))

        async def _restart(self, after: str | None) -> None:
            if self.following is not None:
                self.following.cancel()
                await self.followed.wait()
            self.following, self.followed = anyio.CancelScope(), anyio.Event()
            self.start(self._follow, after or None, self.following, self.followed)

        async def _input(self, frame: _Input) -> None:
            request_id = frame.request_id
            if not self.inputs.take():
                await self._result(request_id, 429, f"too many inputs: at most {inputs_per_second:g} a second")
                return
            if len(frame.body) > body_limit:
                await self._result(request_id, 413, f"the body is {len(frame.body)} bytes; the limit is {body_limit}")
                return
            try:
                chat = decode_chat_request(self.codec.chat_body(frame.body))
            except DecodeError as exc:
                await self._result(request_id, 400, f"the body is not valid: {exc}")
                return
            if chat.session_id != self.session_id:
                await self._result(request_id, 400, f"the body's session_id is not {self.session_id!r}, the route's")
                return
            try:
                if authorize is not None and await find(authorize, self.websocket, self.session_id) is not True:
                    await self._result(request_id, 403, "not allowed")
                    return
                log: EventStore | None = await find(find_log, self.websocket)
                if log is None:
                    await self._result(request_id, 404, "no such session")
                    return
                entry_id = await take_input(log, chat, self.websocket, on_input, admit=admit)
            except StoreError as exc:
                await self._result(request_id, 503, f"the store failed: {exc}")
                return
            except Refused as exc:
                await self._result(request_id, exc.status, exc.reason)
                return
            await self._result(request_id, 200, "started", entry_id)

    return endpoint


