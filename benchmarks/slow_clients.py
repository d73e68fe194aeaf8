"""Slow clients against one server: what a uvicorn process serving wire's
endpoints holds when many peers are slow on purpose (slow-loris style).

One server process (uvicorn, h11, defaults unless given) serves a finished
1,000-event reply from an ``EventLog`` at every endpoint of the serving path
(SSE, NDJSON, AG-UI, Vercel resume) and the answer endpoint. For each kind
of slow client, ``--clients`` connections are opened at once and held; then
a normal client reads the SSE stream to its end, and the script records
whether it succeeded, its time, the server's open connections as seen from
here, and the server's RSS. Kinds:

* ``headers``: sends a request's headers one byte every second, never ends them;
* ``body``: POSTs to the AG-UI endpoint with a Content-Length of 512 KiB and
  sends the body one byte a second;
* ``reader-sse`` / ``reader-ndjson`` / ``reader-agui`` / ``reader-vercel``:
  complete requests whose response is never read (the socket's buffers fill).

Run: ``python -m benchmarks.slow_clients --clients 1000`` (the table goes to
stdout as Markdown; ``benchmarks/results/slow-clients.md`` holds the last
run). Add uvicorn options after ``--`` to see their effect, e.g.
``-- --limit-concurrency 500``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

KINDS = ("headers", "body", "reader-sse", "reader-ndjson", "reader-agui", "reader-vercel")

SERVER = r'''
import anyio, wire
from starlette.applications import Starlette
from starlette.routing import Route
from wire.stores.memory import EventLog
from wire.transports.http import sse_endpoint, ndjson_endpoint
from wire.bridges.agui_http import agui_endpoint
from wire.bridges.vercel_http import resume_endpoint

log = EventLog()
events = [wire.ReplyStartEvent(session_id="s", reply_id="r", name="Friday"),
          wire.TextBlockStartEvent(reply_id="r", block_id="b")]
events += [wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta=f"{i} ") for i in range(996)]
events += [wire.TextBlockEndEvent(reply_id="r", block_id="b"), wire.ReplyEndEvent(session_id="s", reply_id="r")]
anyio.run(log.extend, events)
anyio.run(log.close)
find = lambda request, *_: log
app = Starlette(routes=[Route("/sse", sse_endpoint(find)), Route("/ndjson", ndjson_endpoint(find)),
                        Route("/agui", agui_endpoint(find), methods=["POST"]),
                        Route("/vercel", resume_endpoint(find, finished=True))])
'''


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _open(kind: str, port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    if kind == "headers":
        sock.sendall(b"GET /sse HTTP/1.1\r\nHost: x\r\n")
    elif kind == "body":
        sock.sendall(b"POST /agui HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 524288\r\n\r\n{")
    else:
        path = kind.removeprefix("reader-")
        method = b"POST" if path == "agui" else b"GET"
        body = b"{}" if path == "agui" else b""
        sock.sendall(b"%s /%s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (
            method, path.encode(), len(body), body))
    return sock


def _normal_client(port: int) -> tuple[bool, float, str]:
    start = time.perf_counter()
    try:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/sse", timeout=20) as response:
            size = sum(len(chunk) for chunk in response.iter_bytes())
            ok = response.status_code == 200 and size > 10_000
            return ok, time.perf_counter() - start, str(response.status_code)
    except httpx.HTTPError as exc:
        return False, time.perf_counter() - start, type(exc).__name__


def run(kind: str, clients: int, uvicorn_args: list[str]) -> dict[str, object]:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER + f"""
import uvicorn, sys
sys.argv = ["uvicorn"]
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="error", http="h11", ws="none"{_kwargs(uvicorn_args)})
"""], cwd=Path(__file__).resolve().parent.parent)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        idle_rss = _rss_kib(server.pid)
        held: list[socket.socket] = []
        refused = 0
        for _ in range(clients):
            try:
                held.append(_open(kind, port))
            except OSError:
                refused += 1
        time.sleep(2.0)  # the slow ones drip one more byte meanwhile
        for sock in held:
            with contextlib.suppress(OSError):
                sock.sendall(b"x" if kind in ("headers", "body") else b"")
        ok, seconds, status = _normal_client(port)
        rss = _rss_kib(server.pid)
        waiting = answered = turned_away = 0
        for sock in held:
            sock.setblocking(False)
            try:
                head = sock.recv(12)
                if head.startswith(b"HTTP/1.1 503"):
                    turned_away += 1
                elif head:
                    answered += 1
            except BlockingIOError:
                waiting += 1  # nothing yet: the server still holds the request open
            except OSError:
                pass
            sock.close()
        return {"kind": kind, "clients": clients, "connect refused": refused, "held open": waiting,
                "answered": answered, "503": turned_away,
                "normal client": f"{'ok' if ok else 'FAILED'} ({status}) in {seconds:.2f} s",
                "server RSS": f"{idle_rss // 1024} MiB idle, {rss // 1024} MiB held"}
    finally:
        server.terminate()
        server.wait(10)


def _kwargs(args: list[str]) -> str:
    """uvicorn command-line options as uvicorn.run() keywords (the few this script documents)."""
    out = []
    for i in range(0, len(args), 2):
        name = args[i].lstrip("-").replace("-", "_")
        out.append(f", {name}={int(args[i + 1])}")
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000, help="slow connections per kind (default 1000)")
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("uvicorn", nargs="*", help="uvicorn options (after --), e.g. --limit-concurrency 500")
    args = parser.parse_args()
    rows = [run(kind, args.clients, args.uvicorn) for kind in args.kinds]
    print(f"{args.clients} slow clients per kind, uvicorn {' '.join(args.uvicorn) or 'defaults'}, "
          f"{os.cpu_count()} CPUs\n")
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row.values()) + " |")


if __name__ == "__main__":
    main()
