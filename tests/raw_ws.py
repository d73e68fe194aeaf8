"""WebSocket clients at the byte level, for the hostile-peer tests of wire's
sockets (tests/transports/test_ws.py, tests/bridges/test_vercel_ws.py): a
client that completes the handshake and then reads nothing, the frames it
sends (masked, of any size or opcode, valid or not), and a flood that TCP
holds back; :class:`Hostile` sends them all at once."""

from __future__ import annotations

import base64
import contextlib
import os
import socket as pysocket
from collections.abc import Awaitable, Callable
from typing import Any

import anyio


def masked(payload: bytes, opcode: int = 1) -> bytes:
    """One client frame (clients mask theirs, RFC 6455, 5.3)."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + size.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def handshake(port: int, path: str) -> pysocket.socket:
    """A client that completes the handshake and will read nothing more:
    its receive buffer is made small, so the server's writes stall soon."""
    sock = pysocket.socket()
    sock.setsockopt(pysocket.SOL_SOCKET, pysocket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.setblocking(False)
    return sock


def push(sock: pysocket.socket, data: bytes) -> None:
    """As much of ``data`` as the socket takes now (a flood is held back by TCP)."""
    with contextlib.suppress(BlockingIOError, ConnectionError):
        sock.send(data)


class Hostile:
    """Clients that misbehave at once against one socket endpoint
    (``inner``, served as :attr:`endpoint`, which counts the sockets it
    ended): ``stalled`` clients that send their frames and then read
    nothing, ``floods`` that send ``flood`` again and again, 4 that send a
    frame over the endpoint's limit or uvicorn's, and one per ``bad``
    frame (the first sent as a binary frame, the others as text)."""

    def __init__(self, inner: Callable[[Any], Awaitable[None]]) -> None:
        self.inner = inner
        self.ended = 0
        self.socks: list[pysocket.socket] = []

    async def endpoint(self, websocket: Any) -> None:
        try:
            await self.inner(websocket)
        finally:
            self.ended += 1

    async def attack(self, port: int, path: str, *, stalled: int, stalled_frames: bytes, floods: int, flood: bytes,
                     bad: list[bytes]) -> None:
        """Open every client and send its frames; return once every socket
        but the floods' was ended by the server (they are read at the
        endpoint's pace for as long as they send)."""
        huge = 4
        self.socks = socks = [handshake(port, path) for _ in range(stalled + floods + huge + len(bad))]
        for sock in socks[:stalled]:
            push(sock, stalled_frames)
        flooding = socks[stalled:stalled + floods]
        for sock in flooding:
            push(sock, flood)
        for i, sock in enumerate(socks[stalled + floods:stalled + floods + huge]):
            push(sock, masked(b"x" * (8192 if i % 2 else 1 << 20)))  # over the endpoint's, or uvicorn's, limit
        for i, (sock, frame) in enumerate(zip(socks[stalled + floods + huge:], bad, strict=True)):
            push(sock, masked(frame, opcode=2 if i == 0 else 1))
        for _ in range(1200):  # a generous bound: no hang
            if self.ended >= len(socks) - floods:
                break
            for sock in flooding:
                push(sock, flood)
            await anyio.sleep(0.05)
        assert self.ended == len(socks) - floods

    async def leave(self) -> None:
        """Close every client; return once the server ended every socket."""
        for sock in self.socks:
            sock.close()
        for _ in range(200):
            if self.ended == len(self.socks):
                break
            await anyio.sleep(0.05)
        assert self.ended == len(self.socks)
