"""Follow a session and send it turns and answers over one WebSocket: the
Python client of ``wire.transports.ws`` (whose docstring is the protocol).

Needs the ``ws`` extra (``websockets``, on asyncio)::

    from wire.transports.ws_client import SessionSocket
    from wire.transports.chat import confirmation, waiting

    async with SessionSocket("ws://127.0.0.1:8000/sessions/s1/socket", headers={"x-user-id": "alice"}) as socket:
        await socket.send(wire.UserMsg("alice", "Delete notes.txt"), agent_id="a1", session_id="s1")
        msg = (await socket.run(turn=True)).last     # up to the end or park of the reply under way
        if waiting(msg).confirm:
            await socket.send(confirmation(msg, True), agent_id="a1", session_id="s1")
            await socket.run(turn=True)              # the answer, then the rest of the reply

It keeps what :class:`wire.transports.client.Follower` keeps, with the same
rules: :attr:`SessionSocket.conversation` (every reply's Msg; checkpoints
replace a reply's Msg, a ``wire.restart`` drops what it had), the last entry
id read, and the end of a turn (``run(turn=True)`` returns once the latest
reply, of which this call read news, has ended or parked). When the socket
drops it reconnects and follows again from the last entry id, after a
backoff that doubles up to ``max_backoff``, and gives up after ``retries``
failed attempts in a row (:class:`~wire.transports.client.ConnectionFailed`);
a socket that delivers entries starts the count over, and one silent for
``read_timeout`` seconds (the server pings every 15) counts as dropped.

Errors are the HTTP clients': a refused socket (close 1008 with a status,
or a handshake answered with one) raises
:class:`~wire.transports.client.HTTPStatusError` at once for a client error
and after the retries for 408, 429, 502, 503 and 504; a refused input raises
:class:`InputRefused`, an ``HTTPStatusError`` with the result's status
(409, 400, ...). An input is never sent twice: one whose socket dropped
before its result came may have been taken, and raises ConnectionFailed
(sending the same answer again is refused with 409). A close for a frame
the server could not read raises :class:`SocketClosed`.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import Any, Literal

import anyio
import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from wire import json as wire_json
from wire import msgpack as wire_msgpack
from wire._codec import DECODE_ERRORS, KNOWN_TAGS
from wire.errors import DecodeError, RemoteProtocolError
from wire.events import ExternalExecutionResultEvent, UnknownEvent, UserConfirmResultEvent, UserInterruptEvent
from wire.messages import Msg
from wire.resume import Conversation
from wire.session import ChatRequest, encode_chat_request
from wire.stores import StoredEvent
from wire.transports.client import RETRYABLE, Answered, Attempts, ConnectionFailed, HTTPStatusError

__all__ = ("PROTOCOLS", "InputRefused", "SessionSocket", "SocketClosed")

PROTOCOLS = {"json": "wire.v1.json", "msgpack": "wire.v1.msgpack"}
"""The subprotocol of each format (``wire.transports.ws.PROTOCOLS``)."""

# Closes after which the client reconnects: a normal close it did not ask for
# (an ASGI server's restart may send one), going away, a lost connection, the
# server's error (1011 is a store that failed), a restart, try again later.
_RETRY_CLOSES = frozenset({1000, 1001, 1006, 1011, 1012, 1013, 1014})
_SNIPPET = 300


class InputRefused(HTTPStatusError):
    """The server's result for an input was not 200: ``status`` (409 for an
    input the session cannot take now, 400, 403, 413, 429, 503, ...) and
    the server's reason as ``text``."""

    def __init__(self, url: str, request_id: str, status: int, detail: str) -> None:
        self.request_id = request_id
        super().__init__("INPUT", url, status, "", detail, expected="200")
        self.args = (f"input {request_id} on {url} was refused with {status}: {detail}",)


class SocketClosed(RemoteProtocolError):
    """The server closed the socket because of a frame this client sent
    (1002, 1003, 1007, 1009: ``code``) or with a code it does not know."""

    def __init__(self, url: str, code: int, reason: str) -> None:
        self.url = url
        self.code = code
        super().__init__(f"{url}: the server closed the socket with {code}: {reason or 'no reason'}")


class _Frame(msgspec.Struct):
    """Any server frame: the fields of each type, those of the others at
    their defaults; a frame type this version does not know is ignored."""

    type: str
    entries: list[tuple[str, msgspec.Raw]] = []
    request_id: str | None = None
    status: int = 0
    detail: str = ""
    entry_id: str | None = None


class _Head(msgspec.Struct):
    type: Any = None


class _Lost(Exception):
    """This connection is lost; ``cause`` says why (retried)."""

    def __init__(self, cause: BaseException) -> None:
        self.cause = cause
        super().__init__(str(cause))


class SessionSocket:
    """A session over one WebSocket (``wire.transports.ws.session_socket``),
    followed into :attr:`conversation` across dropped sockets, and the
    inputs sent to it.

    * ``url``: the socket's ``ws://`` or ``wss://`` URL.
    * ``conversation``, ``after``: what the reader has so far, and the id of
      the last entry it covers (as for ``Follower``).
    * ``headers``: sent with every handshake (``Authorization``,
      ``X-User-ID``).
    * ``protocol``: ``"json"`` (text frames) or ``"msgpack"`` (binary).
    * ``follow``: read the session (a follow frame on every connection);
      False for a socket that only sends.
    * ``retries``, ``backoff``, ``max_backoff``: as for ``Follower``.
    * ``read_timeout``: seconds without a frame after which the socket
      counts as lost; ``open_timeout`` for the handshake; ``max_size`` the
      largest frame taken (a checkpoint of a long reply is one frame).

    Use it as an async context manager (or :meth:`connect`, then
    :meth:`aclose`). :attr:`closed` is True once the server said the
    session's log is closed and read to its end; :attr:`connections`
    counts the sockets opened. One task at a time may read
    (:meth:`batches`, :meth:`run`) while others :meth:`send`.
    """

    def __init__(self, url: str, *, conversation: Conversation | None = None, after: str | None = None,
                 headers: Mapping[str, str] | None = None, protocol: Literal["json", "msgpack"] = "json",
                 follow: bool = True, retries: int = 5, backoff: float = 0.25, max_backoff: float = 8.0,
                 read_timeout: float = 60.0, open_timeout: float = 10.0, max_size: int = 32 * 1024 * 1024) -> None:
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"a socket's URL begins with ws:// or wss://, not {url[:40]!r}")
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be 'json' or 'msgpack', not {protocol!r}")
        self.attempts = Attempts(url, retries, backoff, max_backoff)
        self.url = url
        self.conversation = conversation if conversation is not None else Conversation()
        self.last_event_id = after or None
        self.headers = dict(headers or {})
        self.protocol = protocol
        self.follow = follow
        self.read_timeout = read_timeout
        self.open_timeout = open_timeout
        self.max_size = max_size
        self.closed = False
        self.connections = 0
        self._binary = protocol == "msgpack"
        self._decoder: Any = (msgspec.msgpack.Decoder if self._binary else msgspec.json.Decoder)(_Frame)
        self._head: Any = (msgspec.msgpack.Decoder if self._binary else msgspec.json.Decoder)(_Head)
        self._ws: ClientConnection | None = None
        self._reading = anyio.Lock()
        # What was read and not yet yielded by batches(): each batch with the replies it
        # touched, None for the end of the log.
        self._pending: deque[tuple[list[StoredEvent], list[str]] | None] = deque()
        self._waiting: set[str] = set()  # inputs sent on this socket, without a result yet
        self._results: dict[str, _Frame | BaseException] = {}
        self._ids = itertools.count(1)

    async def __aenter__(self) -> SessionSocket:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the connection ------------------------------------------------------------------

    async def connect(self) -> None:
        """Open a socket (closing one that is open), with the retries; a
        following socket asks for the entries after :attr:`last_event_id`."""
        while True:
            try:
                await self._open()
                return
            except _Lost as lost:
                await self.attempts.failed(lost.cause)

    async def aclose(self) -> None:
        """Close the socket (a normal close); inputs waiting for a result
        get ConnectionFailed."""
        await self._drop(ConnectionFailed(self.url, 1, RuntimeError("the client closed the socket")))

    async def _drop(self, reason: BaseException) -> None:
        for request_id in self._waiting:
            self._results[request_id] = reason
        self._waiting.clear()
        ws, self._ws = self._ws, None
        if ws is not None:
            with anyio.move_on_after(1.0, shield=True):
                await ws.close()

    async def _open(self) -> None:
        await self._drop(ConnectionFailed(self.url, 1, RuntimeError("the socket was opened again")))
        self.connections += 1
        wanted = PROTOCOLS[self.protocol]
        try:
            ws = await connect(self.url, subprotocols=[wanted], additional_headers=self.headers,  # type: ignore[list-item]
                               open_timeout=self.open_timeout, max_size=self.max_size)
        except InvalidStatus as exc:
            response = exc.response
            text = bytes(response.body or b"")[:_SNIPPET].decode("utf-8", "replace").strip()
            error = HTTPStatusError("GET", self.url, response.status_code, response.headers.get("content-type", ""),
                                    text, expected="101 Switching Protocols")
            if response.status_code in RETRYABLE:
                raise _Lost(error) from exc
            raise error from exc
        except InvalidURI as exc:
            raise ValueError(f"{self.url!r} is no WebSocket URL: {exc}") from exc
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            raise _Lost(exc) from exc
        if ws.subprotocol != wanted:
            await ws.close()
            raise RemoteProtocolError(f"{self.url} speaks {ws.subprotocol or 'no subprotocol'}, not {wanted}")
        self._ws = ws
        if self.follow:
            try:
                await ws.send(self._encode({"type": "follow", "after": self.last_event_id}))
            except ConnectionClosed as exc:
                raise _Lost(self._closed(exc)) from exc

    def _encode(self, frame: dict[str, Any]) -> str | bytes:
        return msgspec.msgpack.encode(frame) if self._binary else msgspec.json.encode(frame).decode()

    def _closed(self, exc: ConnectionClosed) -> BaseException:
        """Why the server closed the socket, if the client is to retry;
        raises for a close that no retry mends."""
        close = exc.rcvd
        if close is None or close.code in _RETRY_CLOSES:
            return exc
        code, reason = close.code, close.reason
        if code == 1008:
            head, _, text = reason.partition(" ")
            if not (len(head) == 3 and head.isdigit()):  # not a refusal: the server dropped a client that lagged
                return exc
            error = HTTPStatusError("GET", self.url, int(head), "", text, expected="an open socket")
            if error.status in RETRYABLE:
                return error
            raise error from exc
        raise SocketClosed(self.url, code, reason) from exc

    # -- reading -------------------------------------------------------------------------

    async def _read(self) -> None:
        """Read one frame and file it, (re)connecting first if the socket
        is down. A lost socket fails the inputs waiting on it, is counted
        and waited for (the backoff); the next read reconnects."""
        if self._ws is None:
            await self.connect()
        ws = self._ws
        assert ws is not None
        cause: BaseException
        try:
            with anyio.fail_after(self.read_timeout):
                data = await ws.recv()
        except TimeoutError as exc:
            cause = exc
        except ConnectionClosed as exc:
            cause = self._closed(exc)
        else:
            self._file(data)
            return
        await self._drop(ConnectionFailed(self.url, 1, cause))
        await self.attempts.failed(cause)

    def _file(self, data: str | bytes) -> None:
        if isinstance(data, bytes) != self._binary:
            raise RemoteProtocolError(f"{self.url} sent a {'binary' if isinstance(data, bytes) else 'text'} frame "
                                      f"on {PROTOCOLS[self.protocol]}")
        try:
            frame: _Frame = self._decoder.decode(data)
        except DECODE_ERRORS as exc:
            raise RemoteProtocolError(f"{self.url} sent a frame that is not wire's: {exc}") from exc
        if frame.type == "entries" and frame.entries:
            events = [self._event(raw) for _, raw in frame.entries]
            touched = self.conversation.apply(events).replies
            # A wire.restart comes with an empty id: the next connection starts over.
            self.last_event_id = frame.entries[-1][0] or None
            self._pending.append((events, touched))
            self.attempts.failures = 0
        elif frame.type == "result" and frame.request_id in self._waiting:
            self._waiting.discard(frame.request_id)
            self._results[frame.request_id] = frame
            self.attempts.failures = 0
        elif frame.type == "end":
            self.closed = True
            self._pending.append(None)

    def _event(self, raw: msgspec.Raw) -> StoredEvent:
        try:
            event: StoredEvent = (wire_msgpack if self._binary else wire_json).decode_event(raw)
            return event
        except DecodeError:
            try:
                tag = self._head.decode(raw).type
            except DECODE_ERRORS:
                tag = None
            if isinstance(tag, str) and tag not in KNOWN_TAGS:  # a newer server's event: kept, as Follower keeps it
                return UnknownEvent(tag, bytes(raw), "msgpack" if self._binary else "json")
            raise

    async def batches(self, reply_id: str | None = None, *,
                      turn: bool = False) -> AsyncGenerator[list[StoredEvent], None]:
        """The events as they come, a batch per entries frame, each applied
        to :attr:`conversation` when it was read, until the server says the
        log is closed and read to its end; or, with ``reply_id``, until that
        reply ends or parks; or, with ``turn``, until the latest reply does
        (once this call yielded news of it). Call again after an answer to
        read on; close it early with ``contextlib.aclosing``."""
        if not self.follow:
            raise ValueError("this socket does not follow the session (it was made with follow=False)")
        touched: set[str] = set()
        while True:
            while self._pending:
                item = self._pending.popleft()
                if item is None:
                    return
                events, replies = item
                touched.update(replies)
                yield events
                if self.conversation.finished(reply_id, turn=turn, news=touched):
                    return
            if self.closed:
                return
            async with self._reading:
                if not self._pending:
                    await self._read()

    async def run(self, reply_id: str | None = None, *, turn: bool = False) -> Conversation:
        """:meth:`batches` to its end; the conversation."""
        async with aclosing(self.batches(reply_id, turn=turn)) as batches:
            async for _ in batches:
                pass
        return self.conversation

    # -- sending -------------------------------------------------------------------------

    async def send(self, input: Msg | list[Msg] | UserConfirmResultEvent | ExternalExecutionResultEvent
                   | UserInterruptEvent | None, *, agent_id: str, session_id: str,
                   timeout: float = 30.0) -> Answered:
        """Send agentscope's chat body ``{"agent_id", "session_id", "input"}``
        (a new turn, the answer to a parked reply, an interrupt) and wait for
        its result: :class:`~wire.transports.client.Answered` with the
        input's entry id, or :class:`InputRefused` with the server's status.
        Never sent twice: a socket lost before the result raises
        ConnectionFailed, as does no result within ``timeout`` seconds."""
        body = encode_chat_request(ChatRequest(agent_id=agent_id, session_id=session_id, input=input))
        request_id = str(next(self._ids))
        if self._binary:
            frame: str | bytes = msgspec.msgpack.encode({"type": "input", "request_id": request_id,
                                                         "body": msgspec.json.decode(body)})
        else:
            frame = (b'{"type":"input","request_id":"' + request_id.encode() + b'","body":' + body + b"}").decode()
        if self._ws is None:
            await self.connect()
        ws = self._ws
        assert ws is not None
        self._waiting.add(request_id)
        try:
            await ws.send(frame)
        except ConnectionClosed as exc:
            cause = self._closed(exc)
            await self._drop(ConnectionFailed(self.url, 1, cause))
            self._results.pop(request_id, None)
            raise ConnectionFailed(self.url, 1, cause) from cause
        try:
            with anyio.fail_after(timeout):
                while request_id not in self._results:
                    async with self._reading:
                        if request_id not in self._results:
                            await self._read()
        except TimeoutError as exc:
            self._waiting.discard(request_id)
            raise ConnectionFailed(self.url, 1, exc) from exc
        result = self._results.pop(request_id)
        if isinstance(result, BaseException):
            raise result
        if result.status != 200:
            raise InputRefused(self.url, request_id, result.status, result.detail)
        return Answered(result.status, session_id, result.entry_id)
