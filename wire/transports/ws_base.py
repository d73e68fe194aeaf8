"""What every WebSocket endpoint of wire shares (Starlette; the ``http``
extra): wire's own session socket (``wire.transports.ws``) and the bridges'
sockets (``wire.bridges.vercel_ws``) open, read, send and close through
these, so a limit or a refusal means the same on each.

* The open (:func:`accept`): the application's checks (``authorize``, a
  lookup) run before the socket is accepted and before anything is read
  from it or the store; a refusal is accepted only to be closed with 1008
  and a reason that begins with an HTTP status (``403 not allowed``,
  ``401 ...``, ``404 ...``), a failing store with 1011 ``503 ...``, a
  client that offers only others' subprotocols with 1002.
* Reading (:meth:`Connection.receive`): at most ``frames_per_second``
  frames a second (a flood is read no faster, and TCP holds it back); a
  frame over ``max_frame_bytes`` closes with 1009, a frame of the other
  kind (binary on a text protocol, or text on a binary one) with 1003.
* Sending (:meth:`Connection.send`): one frame at a time, whole, made once
  the socket is free; a frame the client has not taken within
  ``send_timeout`` seconds closes the socket with 1008 ``the client stopped
  reading``, so nothing is queued for a socket beyond the frame being sent.
* The socket's parts run in one task group (:meth:`Connection.run`): a close
  one of them asks for (:class:`Close`), or the client's leaving, ends all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
from starlette.websockets import WebSocket, WebSocketDisconnect

from wire.errors import StoreError
from wire.transports.inputs import Refused

__all__ = ("MAX_REASON", "Bucket", "Close", "Connection", "accept", "choose", "close")

MAX_REASON = 123
"""Bytes of a close frame's reason (RFC 6455, 5.5: 125 of payload, 2 for the code)."""


class Close(Exception):
    """End the socket with this code and reason (cut to :data:`MAX_REASON` bytes)."""

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = _cut(reason)
        super().__init__(f"{code}: {self.reason}")


def _cut(reason: str) -> str:
    data = reason.encode()
    return reason if len(data) <= MAX_REASON else data[:MAX_REASON - 3].decode("utf-8", "ignore") + "..."


class Bucket:
    """A token bucket: ``rate`` a second, a burst of ``max(1, rate)``."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.size = max(1.0, rate)
        self.tokens = self.size
        self.at = anyio.current_time()

    def _fill(self) -> None:
        now = anyio.current_time()
        self.tokens = min(self.size, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self) -> bool:
        self._fill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """Seconds until a token is there (0 when one is)."""
        self._fill()
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate


def choose(offered: Sequence[str], protocols: Sequence[str]) -> tuple[bool, str | None]:
    """Whether the socket can be served, and the subprotocol to answer
    with: the first of ``protocols`` the client offers; none for a client
    that offers none (RFC 6455, 4.2.2: it is answered with none); not
    servable when it offers only others."""
    if not offered:
        return True, None
    chosen = next((name for name in offered if name in protocols), None)
    return chosen is not None, chosen


async def accept(websocket: WebSocket, protocols: Sequence[str],
                 check: Callable[[], Awaitable[Close | None]] | None = None) -> bool:
    """Open the socket, or refuse it; True when it is open. ``check()`` (the
    application's ``authorize``, a lookup) runs first, before the socket is
    accepted: a :class:`Close` it returns, or a :class:`Refused` it raises
    (1008 ``<status> <reason>``), or a failing store (1011 ``503 ...``)
    refuses the socket; then a client that offers only subprotocols not
    among ``protocols`` is closed with 1002. A refused socket is accepted
    only to carry the close code (a close before the accept would be an
    HTTP 403 with no reason)."""
    servable, subprotocol = choose(list(websocket.scope.get("subprotocols") or []), protocols)
    refusal: Close | None = None
    try:
        if check is not None:
            refusal = await check()
    except Refused as exc:
        refusal = Close(1008, f"{exc.status} {exc.reason}")
    except StoreError as exc:
        refusal = Close(1011, f"503 the store failed: {exc}")
    await websocket.accept(subprotocol=subprotocol)
    if refusal is None and not servable:
        refusal = Close(1002, f"no subprotocol this endpoint speaks was offered ({', '.join(protocols) or 'none'})")
    if refusal is not None:
        await close(websocket, refusal)
        return False
    return True


async def close(websocket: WebSocket, close: Close) -> None:
    """Close with ``close``'s code and reason, unless the client is gone or
    does not take the close frame within a second (it stopped reading: the
    server then drops the connection)."""
    # WebSocketDisconnect: gone already; RuntimeError: closed by the ASGI server.
    with anyio.move_on_after(1.0), contextlib.suppress(WebSocketDisconnect, RuntimeError):
        await websocket.close(close.code, close.reason)


class Connection:
    """One open socket: frames read at a pace and within a size, frames
    sent one at a time within a timeout, and the socket's parts in one task
    group. ``name`` is the protocol, for the reasons of closes; ``binary``
    whether its frames are binary (else text)."""

    def __init__(self, websocket: WebSocket, *, name: str, binary: bool, max_frame_bytes: int,
                 frames_per_second: float, send_timeout: float) -> None:
        self.websocket = websocket
        self.name = name
        self.binary = binary
        self.max_frame_bytes = max_frame_bytes
        self.send_timeout = send_timeout
        self.lock = anyio.Lock()
        self.sent_at = anyio.current_time()
        self.frames = Bucket(frames_per_second)
        self.closing: Close | None = None
        self.tasks: Any = None

    async def run(self, read: Callable[[], Awaitable[None]], *others: Callable[[], Awaitable[None]]) -> None:
        """Serve the socket: ``read`` in this task, ``others`` beside it,
        until the client leaves or a part asks for a close; then close the
        socket with that close (when one was asked for)."""
        async with anyio.create_task_group() as tasks:
            self.tasks = tasks
            for other in others:
                tasks.start_soon(self.guard, other)
            await self.guard(read)
            tasks.cancel_scope.cancel()
        if self.closing is not None:
            await close(self.websocket, self.closing)

    def start(self, part: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run ``part(*args)`` beside the others, guarded as they are."""
        self.tasks.start_soon(self.guard, part, *args)

    async def guard(self, part: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run one part of the socket; a close it asks for, or the client's
        leaving, ends every part."""
        try:
            await part(*args)
        except Close as close:
            self.closing = self.closing or close
        except WebSocketDisconnect:
            pass
        else:
            return
        self.tasks.cancel_scope.cancel()

    async def send(self, frame: bytes | str | Callable[[], bytes | str]) -> None:
        """One frame, whole (a text frame given as text or as its UTF-8), or
        :class:`Close` when the client has not taken it within
        ``send_timeout`` seconds. ``frame`` may be the function that makes
        it, called once the socket is free: parts waiting for the socket then
        hold no frame of their own, so a socket holds one frame however many
        parts are sending."""
        async with self.lock:
            data = frame() if callable(frame) else frame
            message: dict[str, Any] = {"type": "websocket.send"}
            if self.binary:
                message["bytes"] = data
            else:
                message["text"] = data if type(data) is str else data.decode()  # type: ignore[union-attr]
            del data  # the text is what is sent: the bytes need not wait with it
            with anyio.move_on_after(self.send_timeout) as scope:
                await self.websocket.send(message)
            if scope.cancelled_caught:
                raise Close(1008, "the client stopped reading")
            self.sent_at = anyio.current_time()

    async def receive(self) -> bytes | None:
        """The next frame's bytes (a text frame's as UTF-8), read no sooner
        than the pace allows; None when the client has left. :class:`Close`
        for a frame of the other kind (1003) or over the size (1009)."""
        if wait := self.frames.wait():
            await anyio.sleep(wait)  # pacing: a flood is read no faster, and TCP holds it back
        self.frames.take()
        message = await self.websocket.receive()
        if message["type"] == "websocket.disconnect":
            return None
        text, data = message.get("text"), message.get("bytes")
        if (data is not None) != self.binary:
            kind = "binary" if data is not None else "text"
            raise Close(1003, f"a {kind} frame on {self.name}")
        buf: bytes = data if data is not None else (text or "").encode()
        if len(buf) > self.max_frame_bytes:
            raise Close(1009, f"a frame of {len(buf)} bytes; the limit is {self.max_frame_bytes}")
        return buf
