"""Fan-out, run by hand: one reply served over uvicorn to many SSE readers,
some of them slow, on loopback only.

One server process (uvicorn, one worker, on uvloop and httptools as
uvicorn's docs advise for serving: ``--server h11`` for its pure-Python
asyncio and h11) serves one 24,800-event reply
(``benchmarks/workload.py``) that a producer in that process writes live, in
steps of ``--step`` events every ``--pace`` seconds, to ``--readers`` readers
of one client process (this one), all connected before the first event.
``--slow`` of them (10%) read at ``--slow-rate`` bytes per second (a small
receive buffer, and a sleep after each chunk for its size), a fraction of
the producer's rate, so that they fall behind; the others read as fast as
they can. The server's sockets have small send buffers (``--sndbuf``), as a
slow phone's connection would, so that a reader that is behind is behind in
the store, not in the kernel.

Variants (``--variants``), each in a fresh server process:

* ``memory``, ``memory+coalesce``, ``memory+hold``: ``wire.stores.memory.EventLog``
  behind ``sse_endpoint(find_log)``, ``coalesce=True``, and
  ``coalesce=--hold`` (a live reader's events held that long to merge them;
  100 ms by default, a latency budget under which streamed text still reads
  as live);
* ``redis``, ``redis+coalesce``, ``redis+hold``: the same with
  ``wire.stores.redis.RedisEventLog`` on a redis-server this script starts
  (as ``tests/redis_server.py`` does) and keeps for every variant; the
  producer writes with ``extend`` (no trim: every reader reads the whole reply);
* ``agentscope``: agentscope 2.0.11's endpoint for the same reply, not its
  whole app: ``stream_session_events``'s per-reader path as
  ``benchmarks/bench_redis_endpoint.py`` replicates it (subscribe to the
  session's Pub/Sub channel, one ``log_read(max_count=1000)``, then
  ``json.loads`` and ``json.dumps`` of every live event for every reader),
  the producer writing as ``publish_session_event`` does (``XADD MAXLEN ~
  1000`` and ``PUBLISH``, pipelined per step). Its per-event, per-reader
  cost is far higher, so it runs with ``--agentscope-readers`` (default 10,
  the same 10% slow) and its figures are given per reader, for scale.

Measured per variant: bytes and frames the readers received (fast and slow
apart; frames are SSE events, counted by their blank line), the server
process's CPU seconds (``/proc/<pid>/stat``, from the producer's start to the
last reader's end; the producer's own work included, the same in every wire
variant), redis-server's CPU seconds likewise, and each reader's time from
the producer's start to the end of its body (its final Msg). Every reader's
final Msg is checked to be the producer's, byte for byte: with coalescing
every reader decodes its body as it reads it (a few hundred frames); without,
``--decoders`` readers of each kind do, a reader whose body stays under
``--keep`` bytes decodes it at the end (identical bodies once), and any other
reader's body must be identical (length and CRC-32) to one that was decoded
and found exact (decoding 24,800 frames for each of 1,000 readers would cost
the client more than the server's serving). The count of readers checked
each way is printed; a reader left unchecked fails the run.

With 1,000 readers (the default) a run of every variant takes about six
minutes on two shared cores (each wire variant 40-60 s); agentscope's
endpoint costs about 5 s of server CPU per reader, so it runs with
``--agentscope-readers 5`` in ``benchmarks/results/fanout.md``. Where the
bytes go (the data block's base64 frames apart, counted by the readers that
decode) and the server's writes (the chunks of each body) are a table of
their own; ``--profile DIR`` samples the server with py-spy (in the venv)
into one file of collapsed stacks per variant. ``--deflate``: the socket
readers ask for permessage-deflate, as websockets' and browsers' clients do
by default (uvicorn grants it), which compresses each message for each
reader.

Run: ``pip install -e '.[bench,fanout]'``, then
``.venv/bin/python -m benchmarks.fanout`` (``--quick`` for 100 readers,
5 for agentscope; ``--help`` for the options). The table printed is what
``benchmarks/results/fanout.md`` holds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

import wire
from benchmarks import workload
from wire.framing import SSEDecoder

SSE_VARIANTS = ("memory", "memory+coalesce", "memory+hold", "redis", "redis+coalesce", "redis+hold")
SOCKET = "socket:"
# Each SSE variant and its socket twin one after the other, so that a burst of load lands on both alike.
VARIANTS = (*(name for sse in SSE_VARIANTS for name in (sse, SOCKET + sse)), "agentscope")
CLK_TCK = os.sysconf("SC_CLK_TCK")
# In a frame of the data block's base64 chunks (wire's JSON and agentscope's alike), and in no other.
DATA_DELTA = b'"DATA_BLOCK_DELTA"'
# In an entries frame of the socket's JSON, once per entry and nowhere else: each event is an object whose first
# field is its tag, and inside a JSON string every quote is escaped.
ENTRY = b'",{"type":"'
END = b'{"type":"end"}'
ENTRIES = b'{"type":"entries","entries":['  # an entries frame's start, before its list of [id, event] pairs


# -- the server process ---------------------------------------------------------------------------------------


def serve(args: argparse.Namespace) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route, WebSocketRoute

    from wire.transports.http import NO_BUFFERING, sse_endpoint
    from wire.transports.ws import session_socket

    variant: str = args.variant.removeprefix(SOCKET)
    store = variant.split("+")[0]
    coalesce: bool | float = {"": False, "coalesce": True, "hold": args.hold}[variant.partition("+")[2]]
    events = workload.reply_events(seed=0, scale=args.scale)
    key = f"fanout:{uuid.uuid4().hex}"
    state: dict[str, Any] = {"subscribed": 0, "produced": None, "written": 0, "failed": None}

    async def startup() -> None:
        if store == "memory":
            from wire.stores.memory import EventLog

            state["log"] = EventLog(workload.initial_msg())
        elif store == "redis":
            import redis.asyncio as aioredis

            from wire.stores.redis import RedisEventLog

            state["client"] = aioredis.Redis.from_url(args.redis_url, socket_timeout=300)
            state["log"] = RedisEventLog(state["client"], key, msg=workload.initial_msg())
        else:
            import redis.asyncio as aioredis

            from benchmarks.bench_redis_endpoint import agentscope_dicts
            from benchmarks.bench_redis_endpoint import bus_module as agentscope_bus

            port = int(args.redis_url.rsplit(":", 1)[1].split("/")[0])
            state["bus"] = agentscope_bus.RedisMessageBus(host="127.0.0.1", port=port,
                                                          max_connections=args.readers * 2 + 64, socket_timeout=300)
            await state["bus"].__aenter__()
            state["client"] = aioredis.Redis.from_url(args.redis_url, socket_timeout=300)
            state["dicts"] = agentscope_dicts()

    async def produce() -> None:
        step, pace = args.step, args.pace
        if store in ("memory", "redis"):
            log = state["log"]
            for i in range(0, len(events), step):
                await log.extend(events[i:i + step])
                state["written"] = i + len(events[i:i + step])
                await asyncio.sleep(pace)
            await log.close()
        else:  # publish_session_event's two writes per event, pipelined per step
            dicts = state["dicts"]
            client = state["client"]
            for i in range(0, len(dicts), step):
                async with client.pipeline(transaction=False) as pipe:
                    for n, event in enumerate(dicts[i:i + step], i + 1):
                        entry_id = f"1-{n}"
                        pipe.xadd(key, {"payload": json.dumps(event, ensure_ascii=False)}, id=entry_id,
                                  maxlen=1000, approximate=True)
                        pipe.publish(key, json.dumps({**event, "_entry_id": entry_id}, ensure_ascii=False))
                    await pipe.execute()
                await asyncio.sleep(pace)
        state["produced"] = time.perf_counter()

    async def producing() -> None:
        try:
            await produce()
        except BaseException:
            state["failed"] = traceback.format_exc()  # the run stops with it, rather than waiting for its timeout
            raise

    async def start(request: Request) -> Response:
        state["task"] = asyncio.get_running_loop().create_task(producing())
        return PlainTextResponse("started")

    async def status(request: Request) -> Response:
        return PlainTextResponse(json.dumps({key: state[key] for key in ("subscribed", "produced", "written",
                                                                            "failed")}))

    def one_more() -> None:
        state["subscribed"] += 1

    async def agentscope_stream(request: Request) -> Response:
        from benchmarks.bench_redis_endpoint import agentscope_endpoint

        return StreamingResponse(agentscope_endpoint(state["bus"], key, one_more), media_type="text/event-stream",
                                 headers=NO_BUFFERING)

    async def no_input(chat: Any, log: Any, websocket: Any) -> None:
        raise AssertionError("the readers send no input")

    routes = [Route("/start", start, methods=["POST"]), Route("/status", status),
              Route("/events", agentscope_stream if store == "agentscope"
                    else sse_endpoint(lambda request: state["log"], coalesce=coalesce)),
              # The session socket with its defaults but coalesce, as the SSE route has them.
              WebSocketRoute("/sessions/{session_id}/socket",
                             session_socket(lambda websocket: state["log"], no_input, coalesce=coalesce))]
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await startup()
        yield

    app = Starlette(routes=routes, lifespan=lifespan)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, args.sndbuf)  # inherited by each accepted socket
    sock.bind(("127.0.0.1", args.serve))
    # uvicorn[standard]'s event loop and HTTP parser, as its docs advise for
    # serving, or its pure-Python fallbacks (asyncio and h11); sockets on
    # websockets-sansio (uvicorn's choice when websockets is installed), with
    # its defaults (permessage-deflate if a client asks: the readers here do with --deflate)
    standard = args.server == "standard"
    config = uvicorn.Config(app, log_level="warning", backlog=4096, timeout_keep_alive=60,
                            loop="uvloop" if standard else "asyncio", http="httptools" if standard else "h11",
                            ws="websockets-sansio")
    uvicorn.Server(config).run(sockets=[sock])


# -- the readers ----------------------------------------------------------------------------------------------


@dataclass
class Reader:
    slow: bool
    decodes: bool  # decodes its body as it reads it
    socket: bool = False  # reads the session socket, not SSE
    body_bytes: int = 0  # SSE: the body; a socket: its messages' payloads
    wire_bytes: int = 0  # on the socket: the HTTP head and the chunked framing (WebSocket: the handshake, frame heads)
    frames: int = 0  # events: SSE frames, or a socket's entries
    chunks: int = 0  # the body's chunks (one per write of the server's, about), or a socket's messages
    data_bytes: int = 0  # bytes of the data block's frames (readers that decode only)
    tail: bytes = b""  # the unfinished frame, while counting them
    # What a reader's final Msg is a function of, as a fingerprint: SSE, the body; a socket, its entries in
    # order, whichever frames carried them (a reader behind reads larger batches, in other frames).
    crc: int = 0
    listed: int = 0  # the bytes the crc covers
    seconds: float = 0.0  # from the producer's start to the end of the body
    kept: list[bytes] | None = field(default_factory=list)  # SSE: the body's chunks; a socket: its messages
    msg: Any = None
    problem: str = ""


async def read(port: int, reader: Reader, args: argparse.Namespace, started: list[float]) -> None:
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    if reader.slow:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    stream, writer = await asyncio.open_connection(sock=sock, limit=args.rcvbuf if reader.slow else 1 << 16)
    decoder = SSEDecoder() if reader.decodes else None
    msg = workload.initial_msg() if reader.decodes else None
    try:
        writer.write(b"GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n")
        head = await stream.readuntil(b"\r\n\r\n")
        reader.wire_bytes += len(head)
        if not head.startswith(b"HTTP/1.1 200") or b"chunked" not in head.lower():
            raise RuntimeError(f"unexpected response head {head[:200]!r}")
        while True:
            line = await stream.readuntil(b"\r\n")
            size = int(line[:-2].split(b";")[0], 16)
            if size == 0:
                reader.wire_bytes += len(line) + len(await stream.readuntil(b"\r\n"))
                break
            data = (await stream.readexactly(size + 2))[:-2]
            reader.wire_bytes += len(line) + size + 2
            reader.body_bytes += size
            reader.chunks += 1
            reader.frames += data.count(b"\n\n")
            reader.crc = zlib.crc32(data, reader.crc)
            reader.listed += size
            if decoder is not None and msg is not None:
                msg.extend_events(decoder.feed(data))
                frames = (reader.tail + data).split(b"\n\n")
                reader.tail = frames.pop()
                reader.data_bytes += sum(len(f) + 2 for f in frames if DATA_DELTA in f)
            if reader.kept is not None:
                reader.kept.append(data)
                if reader.body_bytes > args.keep:
                    reader.kept = None
            if reader.slow:
                await asyncio.sleep(size / args.slow_rate)
        reader.seconds = time.perf_counter() - started[0]
        if decoder is not None:
            decoder.close()
            reader.msg = msg
    except Exception as exc:  # a run reports every failure, whatever it is
        reader.problem = f"{type(exc).__name__}: {exc}"
    finally:
        writer.close()


class _Entries(msgspec.Struct):
    """A socket's server frame, as a reader that decodes reads it."""

    type: str
    entries: list[tuple[str, msgspec.Raw]] = []


async def read_socket(port: int, reader: Reader, args: argparse.Namespace, started: list[float]) -> None:
    """One reader of the session socket: a websockets client, as cheap as
    the SSE reader (its text messages taken as bytes, undecoded), counting
    the bytes that reach its socket; a slow one has the same receive buffer
    and pace as a slow SSE reader, and a queue of one message."""
    from websockets.asyncio.client import ClientConnection, connect

    class Counting(ClientConnection):
        def data_received(self, data: bytes) -> None:
            reader.wire_bytes += len(data)
            super().data_received(data)

    loop = asyncio.get_running_loop()
    sock = socket.socket()
    if reader.slow:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    msg = workload.initial_msg() if reader.decodes else None
    try:
        async with connect(f"ws://127.0.0.1:{port}/sessions/fanout/socket", sock=sock, create_connection=Counting,
                           subprotocols=["wire.v1.json"],  # type: ignore[list-item]
                           compression="deflate" if args.deflate else None, max_size=None,
                           max_queue=1 if reader.slow else 16,
                           ping_interval=None, open_timeout=120) as ws:
            await ws.send('{"type":"follow","after":null}')
            while True:
                data = await ws.recv(decode=False)
                if data == END:
                    break
                reader.body_bytes += len(data)
                reader.chunks += 1
                reader.frames += data.count(ENTRY)
                listed = data[len(ENTRIES):-2] if data.startswith(ENTRIES) else data  # "[id,event],..."
                if reader.listed:
                    reader.crc = zlib.crc32(b",", reader.crc)
                reader.crc = zlib.crc32(listed, reader.crc)
                reader.listed += len(listed) + 1
                if msg is not None:
                    entries = msgspec.json.decode(data, type=_Entries).entries
                    msg.extend_events([wire.json.decode_event(raw) for _, raw in entries])
                    reader.data_bytes += sum(len(raw) for _, raw in entries if DATA_DELTA in bytes(raw))
                if reader.kept is not None:
                    reader.kept.append(data)
                    if reader.body_bytes > args.keep:
                        reader.kept = None
                if reader.slow:
                    await asyncio.sleep(len(data) / args.slow_rate)
            reader.seconds = time.perf_counter() - started[0]
        reader.msg = msg
    except Exception as exc:  # a run reports every failure, whatever it is
        reader.problem = f"{type(exc).__name__}: {exc}"


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` (Linux ``/proc/<pid>/stat``)."""
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """utime and stime of ``pid``: in Python and in the kernel (its sends)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


async def http(port: int, method: str, path: str) -> bytes:
    stream, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                 .encode())
    body = await stream.read()
    writer.close()
    return body.partition(b"\r\n\r\n")[2]


@dataclass
class Result:
    variant: str
    readers: list[Reader]
    server_cpu: float
    redis_cpu: float
    server_sys: float  # of server_cpu, in the kernel
    producer_seconds: float
    wall: float
    checked: dict[str, int]


def final_msg(body: bytes) -> bytes:
    """The Msg an SSE body builds (wire's frames, or agentscope's, whose
    model_dump JSON wire decodes), as JSON; the error if it builds none."""
    msg = workload.initial_msg()
    try:
        decoder = SSEDecoder()
        msg.extend_events(decoder.feed(body))
        decoder.close()
    except wire.WireError as exc:
        return f"{type(exc).__name__}: {exc}".encode()
    return wire.json.encode(msg)


def final_socket_msg(messages: list[bytes]) -> bytes:
    """The Msg a socket's messages build, as JSON; the error if they build none."""
    msg = workload.initial_msg()
    try:
        for message in messages:
            entries = msgspec.json.decode(message, type=_Entries).entries
            msg.extend_events([wire.json.decode_event(raw) for _, raw in entries])
    except (wire.WireError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        return f"{type(exc).__name__}: {exc}".encode()
    return wire.json.encode(msg)


def check(readers: list[Reader], want: bytes) -> dict[str, int]:
    """Every reader's final Msg, byte for byte: decoded (once per distinct
    body), or identical (length and CRC-32 of the body, or of a socket's
    entries) to a body that was."""
    exact: set[tuple[int, int]] = set()
    checked = {"decoded as read": 0, "decoded whole": 0, "identical to a decoded body": 0}
    for reader in readers:
        if not reader.problem and reader.msg is not None:
            if wire.json.encode(reader.msg) == want:
                exact.add((reader.listed, reader.crc))
                checked["decoded as read"] += 1
            else:
                reader.problem = "its final Msg differs from the producer's"
    for reader in readers:
        if not reader.problem and reader.msg is None and reader.kept is not None:
            fingerprint = (reader.listed, reader.crc)
            if fingerprint in exact:
                checked["identical to a decoded body"] += 1
            elif (final_socket_msg(reader.kept) if reader.socket else final_msg(b"".join(reader.kept))) == want:
                exact.add(fingerprint)
                checked["decoded whole"] += 1
            else:
                reader.problem = "its final Msg differs from the producer's"
            reader.kept = []
    for reader in readers:  # bodies too large to keep
        if not reader.problem and reader.msg is None and reader.kept is None:
            if (reader.listed, reader.crc) in exact:
                checked["identical to a decoded body"] += 1
            else:
                reader.problem = "its body is identical to no body decoded (raise --keep or --decoders)"
    return checked


async def until_read(port: int, variant: str, tasks: list[asyncio.Task[None]], timeout: float) -> None:
    """Until every reader is done; a failure of the server's producer, or a
    timeout, ends the run with what the producer had written."""
    readers: asyncio.Future[Any] = asyncio.ensure_future(asyncio.gather(*tasks))

    async def producer_failed() -> None:
        while True:
            await asyncio.sleep(1.0)
            status = json.loads(await http(port, "GET", "/status"))
            if status["failed"]:
                raise RuntimeError(f"{variant}: the producer failed after {status['written']} events:\n"
                                   f"{status['failed']}")

    watcher: asyncio.Future[Any] = asyncio.create_task(producer_failed())
    try:
        done, _ = await asyncio.wait({readers, watcher}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not done:
            status = json.loads(await http(port, "GET", "/status"))
            left = sum(not task.done() for task in tasks)
            raise TimeoutError(f"{variant}: {left} readers not done after {timeout:g} s; the producer wrote "
                               f"{status['written']} events and {'ended' if status['produced'] else 'goes on'}")
        for task in done:
            task.result()
    finally:
        watcher.cancel()
        readers.cancel()


async def run_variant(variant: str, args: argparse.Namespace, redis_url: str, redis_pid: int,
                      want: bytes) -> Result:
    n = args.agentscope_readers if variant == "agentscope" else args.readers
    slow = round(n * args.slow)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.fanout", "--serve", str(port), "--variant", variant,
                               "--redis-url", redis_url, "--scale", str(args.scale), "--step", str(args.step),
                               "--pace", str(args.pace), "--hold", str(args.hold), "--sndbuf", str(args.sndbuf),
                               "--server", args.server,
                               "--readers", str(n)])
    try:
        for _ in range(400):
            try:
                await http(port, "GET", "/status")
                break
            except OSError:
                await asyncio.sleep(0.05)
        # Slow readers spread evenly; a few of each kind decode as they read.
        readers = [Reader(slow=(k * slow) // n != ((k + 1) * slow) // n, decodes=False,
                          socket=variant.startswith(SOCKET)) for k in range(n)]
        # A coalesced body is a few hundred frames: every reader decodes it.
        for kind in (True, False):
            for reader in [r for r in readers if r.slow is kind][:None if "+" in variant else args.decoders]:
                reader.decodes = True
        started = [0.0]
        tasks = []
        for reader in readers:
            tasks.append(asyncio.create_task((read_socket if reader.socket else read)(port, reader, args, started)))
            await asyncio.sleep(0)
        await asyncio.sleep(1.0)
        if variant == "agentscope":  # every reader subscribed before the first event, as in its app
            for _ in range(600):
                if json.loads(await http(port, "GET", "/status"))["subscribed"] >= n:
                    break
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        spy = None
        if args.profile is not None:  # samples the server without pausing it (py-spy's --nonblocking)
            args.profile.mkdir(parents=True, exist_ok=True)
            spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(server.pid),
                                    "--nonblocking", "--rate", "200", "--format", "raw",
                                    "-o", str(args.profile / f"{variant}.txt")], stdout=subprocess.DEVNULL)
            await asyncio.sleep(1.0)
        server_cpu, redis_cpu = cpu_seconds(server.pid), cpu_seconds(redis_pid)
        server_sys = cpu_split(server.pid)[1]
        started[0] = time.perf_counter()
        await http(port, "POST", "/start")
        await until_read(port, variant, tasks, args.timeout)
        wall = time.perf_counter() - started[0]
        server_cpu, redis_cpu = cpu_seconds(server.pid) - server_cpu, cpu_seconds(redis_pid) - redis_cpu
        server_sys = cpu_split(server.pid)[1] - server_sys
        produced = json.loads(await http(port, "GET", "/status"))["produced"]
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its samples on SIGINT
            spy.wait(30)
    finally:
        server.terminate()
        server.wait(10)
    checked = check(readers, want)
    return Result(variant, readers, server_cpu, redis_cpu, server_sys, (produced or 0) - started[0], wall, checked)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the report -----------------------------------------------------------------------------------------------


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(args: argparse.Namespace, results: list[Result], n_events: int) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    lines = [
        f"Commit {commit}"
        + (f" (the tree had uncommitted changes: {len(dirty.splitlines())} files)" if dirty else "")
        + f"; {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f} at the end (the cores are shared).",
        "",
        f"`{' '.join(['.venv/bin/python -m benchmarks.fanout', *sys.argv[1:]])}`: one reply of {n_events:,} events, "
        f"written live in steps of {args.step} every {args.pace * 1000:g} ms; {args.readers} readers "
        f"({args.agentscope_readers} for agentscope), {args.slow:.0%} of them slow (reading "
        f"{args.slow_rate / 1000:g} kB/s); server send buffers {args.sndbuf // 1024} KiB; "
        f"hold {args.hold * 1000:g} ms; uvicorn {importlib.metadata.version('uvicorn')} on "
        f"{'uvloop and httptools' if args.server == 'standard' else 'asyncio and h11'}, its sockets on "
        f"websockets-sansio (websockets {importlib.metadata.version('websockets')}). A `socket:` variant serves "
        "the same log at `wire.transports.ws.session_socket` (JSON text frames, "
        f"{'permessage-deflate: the clients ask for it' if args.deflate else 'no permessage-deflate'}) to "
        "websockets clients; its frames are entries (events), its chunks WebSocket messages.",
        "",
        "| variant | readers (slow) | server CPU s (kernel) | per reader, ms | redis-server CPU s "
        "| frames per fast reader "
        "| frames per slow reader | bytes per fast reader | bytes per slow reader | on the wire, per fast reader "
        "| slow readers' time to the final Msg (median, max) | fast readers' (median) | producer done after "
        "| every final Msg exact |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        fast = [x for x in r.readers if not x.slow]
        slow = [x for x in r.readers if x.slow]
        ok = sum(not x.problem for x in r.readers)
        how = ", ".join(f"{v} {k}" for k, v in r.checked.items() if v)
        lines.append(
            f"| {r.variant} | {len(r.readers)} ({len(slow)}) | {r.server_cpu:.1f} ({r.server_sys:.1f}) | "
            f"{1000 * r.server_cpu / len(r.readers):.0f} | {r.redis_cpu:.1f} | {_med([x.frames for x in fast]):,.0f} | "
            f"{_med([x.frames for x in slow]):,.0f} | {_med([x.body_bytes for x in fast]) / 1e6:.2f} MB | "
            f"{_med([x.body_bytes for x in slow]) / 1e6:.2f} MB | {_med([x.wire_bytes for x in fast]) / 1e6:.2f} MB | "
            f"{_med([x.seconds for x in slow]):.1f} s, "
            f"{max((x.seconds for x in slow), default=float('nan')):.1f} s | {_med([x.seconds for x in fast]):.1f} s | "
            f"{r.producer_seconds:.1f} s | {ok} of {len(r.readers)} ({how}) |")
    by = {r.variant: r for r in results}
    ratios = []
    for store in ("memory", "redis", SOCKET + "memory", SOCKET + "redis"):
        base = by.get(store)
        for mode in ("coalesce", "hold"):
            other = by.get(f"{store}+{mode}")
            if base is None or other is None:
                continue

            def med(res: Result, attr: str, slow: bool) -> float:
                return _med([getattr(x, attr) for x in res.readers if x.slow is slow])

            def text(res: Result, slow: bool) -> float:
                return _med([x.body_bytes - x.data_bytes for x in res.readers
                             if x.slow is slow and x.decodes and not x.problem])

            ratios.append(
                f"| {store} → {store}+{mode} | {med(base, 'frames', True) / med(other, 'frames', True):.1f}x | "
                f"{med(base, 'body_bytes', True) / med(other, 'body_bytes', True):.1f}x | "
                f"{text(base, True) / text(other, True):.1f}x | "
                f"{med(base, 'frames', False) / med(other, 'frames', False):.1f}x | "
                f"{med(base, 'body_bytes', False) / med(other, 'body_bytes', False):.1f}x | "
                f"{other.server_cpu / base.server_cpu:.2f} | "
                f"{med(base, 'seconds', True) / med(other, 'seconds', True):.1f}x |")
    if ratios:
        lines += ["", "| change | fewer frames, slow readers | fewer bytes, slow | fewer bytes, slow, without the "
                  "data block's frames | fewer frames, fast | fewer bytes, "
                  "fast | server CPU, after / before | slow readers' time to the final Msg, before / after |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|", *ratios]
    rows = []
    for r in results:
        row = [f"| {r.variant} "]
        for is_slow in (False, True):
            group = [x for x in r.readers if x.slow is is_slow]
            counted = [x for x in group if x.decodes and not x.problem]
            data = _med([x.data_bytes for x in counted])
            rest = _med([x.body_bytes - x.data_bytes for x in counted])
            row.append(f"| {_med([x.chunks for x in group]):,.0f} | {data / 1e6:.2f} MB | {rest / 1e6:.2f} MB ")
        rows.append("".join(row) + "|")
    lines += ["", "Where the bytes go (the data block's base64 frames, and the rest: text, thinking, tool calls "
              "and results), counted by the readers that decode their body; and the server's writes, as the "
              "chunks of each body:", "",
              "| variant | chunks per fast reader | data block, fast | the rest, fast | chunks per slow reader "
              "| data block, slow | the rest, slow |", "|---|---:|---:|---:|---:|---:|---:|", *rows]
    pairs = [(by[sse], by[SOCKET + sse]) for sse in SSE_VARIANTS if sse in by and SOCKET + sse in by]
    if pairs:
        rows = []
        for sse, ws in pairs:
            row = [f"| {sse.variant} | {sse.server_cpu:.2f} | {ws.server_cpu:.2f} | "
                   f"{ws.server_cpu / sse.server_cpu:.2f} | {sse.redis_cpu:.2f} | {ws.redis_cpu:.2f} "]
            for is_slow in (False, True):
                a = [x for x in sse.readers if x.slow is is_slow]
                b = [x for x in ws.readers if x.slow is is_slow]
                row.append(f"| {_med([x.body_bytes for x in a]) / 1e6:.2f} MB, "
                           f"{_med([x.wire_bytes for x in a]) / 1e6:.2f} MB | "
                           f"{_med([x.body_bytes for x in b]) / 1e6:.2f} MB, "
                           f"{_med([x.wire_bytes for x in b]) / 1e6:.2f} MB ")
            row.append(f"| {_med([x.seconds for x in sse.readers if x.slow]):.1f} s | "
                       f"{_med([x.seconds for x in ws.readers if x.slow]):.1f} s |")
            rows.append("".join(row))
        lines += ["", "SSE and the session socket side by side (each pair run one after the other; bytes per reader, "
                  "median: the body or the messages' payloads, then all that reached the reader's socket):", "",
                  "| store, mode | server CPU s, SSE | socket | socket / SSE | redis-server CPU s, SSE | socket "
                  "| bytes per fast reader, SSE | socket | bytes per slow reader, SSE | socket "
                  "| slow readers' time to the final Msg (median), SSE | socket |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows]
    agentscope = by.get("agentscope")
    if agentscope is not None:
        per = agentscope.server_cpu / len(agentscope.readers)
        rows = [f"| {r.variant} | {1000 * r.server_cpu / len(r.readers):.1f} | "
                f"{per / (r.server_cpu / len(r.readers)):.1f}x |" for r in results if r.variant != "agentscope"]
        lines += ["", "Server CPU per reader (the producer's share included), against agentscope's endpoint:", "",
                  "| variant | ms per reader | agentscope / this |", "|---|---:|---:|", *rows,
                  f"| agentscope | {1000 * per:.1f} | 1.0x |"]
    failed = [(r.variant, x.problem) for r in results for x in r.readers if x.problem]
    if failed:
        lines += ["", "Failures (first 10):"] + [f"* {variant}: {problem}" for variant, problem in failed[:10]]
    return "\n".join(lines)


def socket_costs(args: argparse.Namespace) -> str:
    """What the session socket does to send a reply, step by step: the
    reply in the producer's batches, each step timed alone in this process
    (best of 5, CPU time). Readers in step share a batch
    (``EventStore.follow`` hands them the same events, and
    ``wire/transports/ws.py``'s ``_SharedFrames`` encodes them once per
    subprotocol, as text), so every step but the ASGI server's is paid once
    for a crowd, not once per reader; a reader alone, or out of step, pays
    them all."""
    events = workload.reply_events(seed=0, scale=args.scale)
    batches = [events[i:i + args.step] for i in range(0, len(events), args.step)]
    ids = [[f"1700000000000-{i + n}" for n in range(len(batch))] for i, batch in
           zip(range(0, len(events), args.step), batches, strict=True)]
    payloads = [[wire.json.encode(e) for e in batch] for batch in batches]

    def entries_frames() -> list[bytes]:
        return [msgspec.json.encode({"type": "entries", "entries": [(i, msgspec.Raw(p)) for i, p in
                                                                    zip(b_ids, b, strict=True)]})
                for b_ids, b in zip(ids, payloads, strict=True)]

    frames = entries_frames()
    texts = [f.decode() for f in frames]

    def best(fn: Any) -> float:
        times = []
        for _ in range(5):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return min(times)

    steps = [
        ("Redis only: the batch's payloads decoded to events (`RedisEventLog.follow`)", "once a batch",
         lambda: [wire.json.decode_events(b"\n".join(b)) for b in payloads]),
        ("each event encoded (`ws.py`: `codec.event`)", "once a batch",
         lambda: [[wire.json.encode(e) for e in batch] for batch in batches]),
        ("the entries frame written around them (`msgspec.json.encode`)", "once a batch", entries_frames),
        ("the frame as text, which ASGI takes (`ws.py`: `frame.decode()`)", "once a batch",
         lambda: [f.decode() for f in frames]),
        ("the text as bytes again (uvicorn: `text.encode()`)", "per reader",
         lambda: [t.encode() for t in texts]),
    ]
    rows = []
    for name, paid, fn in steps:
        seconds = best(fn)
        crowd = seconds * (args.readers if paid == "per reader" else 1)
        rows.append(f"| {name} | {seconds * 1000:.1f} ms | {paid} | {crowd * 1000:,.1f} ms |")
    return "\n".join([f"One reply of {len(events):,} events in batches of {args.step} "
                      f"({sum(map(len, frames)) / 1e6:.2f} MB of frames); the last column is what "
                      f"{args.readers} readers in step cost:", "",
                      "| step | the reply | paid | readers in step |", "|---|---:|---|---:|", *rows])


async def main_async(args: argparse.Namespace) -> str:
    from tests.redis_server import running_server

    events = workload.reply_events(seed=0, scale=args.scale)
    want = wire.json.encode(workload.initial_msg().extend_events(events))
    results = []
    with tempfile.TemporaryDirectory() as directory, running_server(Path(directory)) as redis:
        assert redis.process is not None
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(redis.url)
        # A subscriber that falls behind keeps its messages (Redis's default drops it past 8 MB for 60 s).
        await client.config_set("client-output-buffer-limit", "pubsub 0 0 0")
        await client.aclose()
        for variant in args.variants:
            started = time.perf_counter()
            results.append(await run_variant(variant, args, redis.url, redis.process.pid, want))
            print(f"{variant}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return report(args, results, len(events))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=1000)
    parser.add_argument("--agentscope-readers", type=int, default=10)
    parser.add_argument("--slow", type=float, default=0.1, help="the share of readers that are slow")
    parser.add_argument("--slow-rate", type=float, default=400_000, help="a slow reader's bytes per second")
    parser.add_argument("--scale", type=float, default=1.0, help="workload scale (1: 24,800 events)")
    parser.add_argument("--step", type=int, default=248, help="events the producer writes at a time")
    parser.add_argument("--pace", type=float, default=0.01, help="seconds between the producer's steps")
    parser.add_argument("--hold", type=float, default=0.1, help="coalesce=<seconds> of the +hold variants")
    parser.add_argument("--sndbuf", type=int, default=32 * 1024, help="the server's socket send buffer")
    parser.add_argument("--deflate", action="store_true",
                        help="socket readers ask for permessage-deflate (websockets' default; uvicorn's too)")
    parser.add_argument("--server", choices=["standard", "h11"], default="standard",
                        help="uvicorn on uvloop and httptools (the fanout extra), or on asyncio and h11")
    parser.add_argument("--rcvbuf", type=int, default=16 * 1024, help="a slow reader's receive buffer")
    parser.add_argument("--keep", type=int, default=1 << 20, help="bodies up to this size are kept and decoded")
    parser.add_argument("--decoders", type=int, default=3, help="readers of each kind that decode as they read")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--quick", action="store_true", help="100 readers, 5 for agentscope")
    parser.add_argument("--timeout", type=float, default=600.0, help="fail a variant after this many seconds")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="sample the server with py-spy (in the venv) into DIR/<variant>.txt, collapsed stacks")
    parser.add_argument("--costs", action="store_true",
                        help="time each step of sending a reply over the session socket, and stop")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.server == "standard" and not all(importlib.util.find_spec(m) for m in ("uvloop", "httptools")):
        parser.error("--server standard needs uvloop and httptools: pip install -e '.[bench,fanout]' "
                     "(or pass --server h11)")
    if args.serve:
        serve(args)
        return 0
    if args.quick:
        args.readers, args.agentscope_readers = 100, 5
    if args.costs:
        print(socket_costs(args))
        return 0
    table = asyncio.run(main_async(args))
    print(table)
    if args.out:
        args.out.write_text(table + "\n")
    return 0 if "Failures" not in table else 1


if __name__ == "__main__":
    sys.exit(main())
