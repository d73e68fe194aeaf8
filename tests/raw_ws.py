"""WebSocket clients at the byte level, for the hostile-peer tests of wire's
sockets (tests/transports/test_ws.py, tests/bridges/test_vercel_ws.py): a
client that completes the handshake and then reads nothing, the frames it
sends (masked, of any size or opcode, valid or not), and a flood that TCP
holds back."""

from __future__ import annotations

import base64
import contextlib
import os
import socket as pysocket


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
