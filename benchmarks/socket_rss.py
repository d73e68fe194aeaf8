"""What an open session socket costs the server in RSS, with and without
permessage-deflate: a script, run by hand.

One uvicorn process (websockets-sansio, its defaults: it grants
permessage-deflate to a client that asks) serves
``wire.transports.ws.session_socket`` over an ``EventLog`` holding a
running reply of 2,000 text deltas. ``--sockets`` websockets clients open
a socket each and follow the session; once every one has its first frame
(the catch-up, compressed for each client that asked), the server's RSS
(``/proc/<pid>/status``) is read again. The zlib state of permessage-deflate
lives outside Python's allocator, where ``tracemalloc`` does not see it:
this is how docs/untrusted-peers.md measures it.

Run: ``.venv/bin/python -m benchmarks.socket_rss [--sockets 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys

SERVER = """
import asyncio, sys
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
import wire
from wire.stores.memory import EventLog
from wire.transports.ws import session_socket

log = EventLog()
events = [wire.ReplyStartEvent(session_id="s", reply_id="r1", name="Friday"),
          wire.TextBlockStartEvent(reply_id="r1", block_id="t")]
events += [wire.TextBlockDeltaEvent(reply_id="r1", block_id="t", delta=f"{i} some text é ") for i in range(2000)]
asyncio.run(log.extend(events))
app = Starlette(routes=[WebSocketRoute("/{session_id}", session_socket(lambda ws: log, lambda *_: None,
                                                                       heartbeat=None))])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", ws="websockets-sansio")
"""


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def grown(sockets: int, deflate: bool) -> int:
    """The server's RSS growth with ``sockets`` sockets open, each past its first frame."""
    from websockets.asyncio.client import ClientConnection, connect

    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)])
    try:
        for _ in range(400):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        before = rss(server.pid)
        clients: list[ClientConnection] = []
        for _ in range(sockets):
            client = await connect(f"ws://127.0.0.1:{port}/s", compression="deflate" if deflate else None,
                                   max_size=None)
            await client.send('{"type":"follow","after":null}')
            clients.append(client)
        for client in clients:
            await client.recv()
        await asyncio.sleep(1.0)
        after = rss(server.pid)
        for client in clients:
            await client.close()
        return after - before
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=200)
    args = parser.parse_args()
    print("| client | sockets | server RSS grew | per socket |")
    print("|---|---:|---:|---:|")
    for deflate in (False, True):
        growth = asyncio.run(grown(args.sockets, deflate))
        print(f"| {'permessage-deflate' if deflate else 'plain'} | {args.sockets} | {growth / 1e6:.1f} MB | "
              f"{growth / args.sockets / 1024:.0f} KiB |")


if __name__ == "__main__":
    main()
