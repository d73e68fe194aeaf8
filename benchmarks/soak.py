"""Soak test, run by hand: many SSE clients over uvicorn, on loopback only.

A server process (uvicorn + ``wire.transports.http.sse_endpoint``) serves one
``EventLog`` that a producer fills live with the benchmark workload's reply
(``benchmarks/workload.py``). N clients read it at once, split evenly into
four kinds:

* fast: reads the whole stream as fast as it comes;
* slow: sleeps after every chunk it receives, so the server has readers
  far behind the producer (a slow reader must not hold the producer up);
* drop + replay: hangs up after a random number of events, reconnects with
  ``Last-Event-ID`` (``resume="replay"``), one to three times;
* drop + checkpoint: the same against ``resume="checkpoint"``: it rebuilds
  the Msg from the checkpoint and the events after it.

Checks: every replay client must have received each event exactly once, in
order (count, and a SHA-256 of the payload bytes against the producer's); a
checkpoint client's Msg must equal the producer's. The server's RSS is read
from ``/proc`` before the clients connect, at its peak while they read
(sampled every 50 ms), after they are gone, and after the server dropped the
finished log. Bounded: the run ends when every client is done, or fails
after ``--timeout`` seconds.

Run: ``.venv/bin/python -m benchmarks.soak --clients 200`` (``--help`` for the
options); the table printed is what ``benchmarks/results/soak.md`` holds.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

import wire
from benchmarks import workload
from wire.framing import RawFrame, SSEDecoder
from wire.resume import read_checkpoint

KINDS = ("fast", "slow", "drop + replay", "drop + checkpoint")


# -- the server process -----------------------------------------------------------------------------------------


def serve(port: int, scale: float, batch: int, pace: float, max_events: int | None, clients: int,
          redis_url: str | None) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Route

    from wire.stores.memory import EventLog
    from wire.transports.http import sse_endpoint

    events = workload.reply_events(seed=0, scale=scale)
    state: dict[str, Any] = {"log": None, "go": anyio.Event()}

    async def produce() -> None:
        while True:  # one reply per round
            await state["go"].wait()
            state["go"] = anyio.Event()
            log = state["log"]
            for i in range(0, len(events), batch):
                await log.extend(events[i:i + batch])
                await anyio.sleep(pace)
            await log.close()
            del log  # the server's dict is then the only holder of the log

    rounds = iter(range(1_000_000))

    async def reset(request: Request) -> Response:
        if redis_url is None:
            state["log"] = EventLog(workload.initial_msg(), max_events=max_events)
        else:
            from wire.stores.redis import RedisEventLog

            state["key"] = f"soak:{next(rounds)}"
            state["log"] = RedisEventLog(state["redis"], state["key"], msg=workload.initial_msg(), max_len=max_events)
        return PlainTextResponse("a new log")

    async def start(request: Request) -> Response:
        state["go"].set()
        return PlainTextResponse("started")

    async def drop(request: Request) -> Response:
        if redis_url is not None and state["log"] is not None:
            await state["log"].delete()
        state["log"] = None
        gc.collect()
        # What is left: logs still alive (a leak if any), and objects.
        objects = gc.get_objects()
        logs = sum(type(o).__name__ in ("EventLog", "RedisEventLog") for o in objects)
        return PlainTextResponse(f"{logs} {len(objects)}")

    def find(request: Request) -> Any:
        if redis_url is None or state["log"] is None:
            return state["log"]
        from wire.stores.redis import RedisEventLog

        return RedisEventLog(state["redis"], state["key"])  # a reader, as on another replica

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if redis_url is not None:
            import redis.asyncio

            state["redis"] = redis.asyncio.Redis.from_url(redis_url)
        async with anyio.create_task_group() as tg:
            tg.start_soon(produce)
            yield
            tg.cancel_scope.cancel()
        if redis_url is not None:
            await state["redis"].aclose()

    app = Starlette(routes=[
        Route("/replay", sse_endpoint(find, resume="replay", heartbeat=5.0)),
        Route("/checkpoint", sse_endpoint(find, resume="checkpoint", heartbeat=5.0)),
        Route("/reset", reset, methods=["POST"]),
        Route("/start", start, methods=["POST"]),
        Route("/drop", drop, methods=["POST"]),
        Route("/ready", lambda request: PlainTextResponse("ready")),
    ], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", timeout_keep_alive=5,
                limit_concurrency=clients + 20)


# -- the clients -------------------------------------------------------------------------------------------------


@dataclass
class Result:
    kind: str
    events: int = 0  # events (frames) received, checkpoints included
    reconnects: int = 0  # planned: the client hung up
    retries: int = 0  # unplanned: a connection error, retried as EventSource does
    errors: list[str] = field(default_factory=list)  # what those errors were
    ok: bool = False
    problem: str = ""
    digest: Any = field(default_factory=hashlib.sha256)


async def _read(client: httpx.AsyncClient, url: str, result: Result, last_id: str | None,
                stop_after: int | None, pause: float, on_frame: Any) -> str | None:
    """Read ``url`` from ``last_id``, calling ``on_frame`` for each frame, and
    hang up after the chunk that brings ``stop_after`` frames; return the last
    id. A connection error (a keep-alive connection the server closed as it
    was reused, a reset) is retried from the last id, as a browser's
    EventSource does, and counted."""
    while True:
        decoder = SSEDecoder(raw=True)
        headers = {"Last-Event-ID": last_id} if last_id else {}
        seen = 0
        try:
            async with client.stream("GET", url, headers=headers) as response:
                async for chunk in response.aiter_raw():
                    for frame in decoder.feed(chunk):
                        on_frame(frame)
                        seen += 1
                    last_id = decoder.last_event_id or last_id  # that of the chunk's last frame
                    if stop_after is not None and seen >= stop_after:
                        return last_id
                    if pause:
                        await anyio.sleep(pause)
                decoder.close()
            return last_id
        except httpx.TransportError as exc:
            result.retries += 1
            result.errors.append(f"{type(exc).__name__}: {exc} (after {seen} frames)")
            if stop_after is not None:
                stop_after = max(1, stop_after - seen)
            await anyio.sleep(0.1)


async def run_client(client: httpx.AsyncClient, base: str, kind: str, expected: tuple[int, str, bytes],
                     rng: random.Random, bounded: bool) -> Result:
    """One client of ``kind``; with a ``bounded`` log a replay client may get
    a checkpoint too, so every client then checks the Msg it rebuilds."""
    count, digest, msg_json = expected
    result = Result(kind)
    pause = 0.002 if kind == "slow" else 0.0
    drops = rng.randint(1, 3) if kind.startswith("drop") else 0
    path = "/checkpoint" if kind == "drop + checkpoint" else "/replay"
    msg = workload.initial_msg()

    def hash_frame(frame: RawFrame) -> None:
        result.events += 1
        result.digest.update(frame.payload)

    def apply_frame(frame: RawFrame) -> None:
        nonlocal msg
        result.events += 1
        event = wire.json.decode_event(frame.payload)
        msg = read_checkpoint(event) or msg.append_event(event)

    exact = path == "/replay" and not bounded  # every event once: count and hash
    try:
        last_id: str | None = None
        for attempt in range(drops + 1):
            stop = rng.randint(1, max(1, count // 2)) if attempt < drops else None
            last_id = await _read(client, base + path, result, last_id, stop, pause,
                                  hash_frame if exact else apply_frame)
            result.reconnects += attempt > 0
        if exact:
            result.ok = result.events == count and result.digest.hexdigest() == digest
            same = "the same" if result.digest.hexdigest() == digest else "a different"
            result.problem = "" if result.ok else f"{result.events} events of {count}, {same} payload hash"
        else:
            result.ok = wire.json.encode(msg) == msg_json
            result.problem = "" if result.ok else "the rebuilt Msg differs"
    except Exception as exc:  # a soak run reports every failure, whatever it is
        result.problem = f"{type(exc).__name__}: {exc}"
    return result


def rss(pid: int) -> int:
    """Resident set size of ``pid`` in bytes (Linux /proc)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def soak(args: argparse.Namespace) -> str:
    events = workload.reply_events(seed=0, scale=args.scale)
    payloads = [wire.json.encode(e) for e in events]
    digest = hashlib.sha256(b"".join(payloads)).hexdigest()
    msg_json = wire.json.encode(workload.initial_msg().extend_events(events))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    redis_server = None
    extra: list[str] = []
    if args.store == "redis":  # a redis-server of its own, persistence off, on a free port
        redis_port = _free_port()
        redis_server = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                         "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
        extra = ["--redis-url", f"redis://127.0.0.1:{redis_port}"]
        time.sleep(0.5)
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.soak", "--serve", str(port),
                               "--scale", str(args.scale), "--batch", str(args.batch), "--pace", str(args.pace),
                               "--clients", str(args.clients)] + extra
                              + (["--max-events", str(args.max_events)] if args.max_events else []))
    try:
        limits = httpx.Limits(max_connections=args.clients + 10, max_keepalive_connections=args.clients + 10)
        async with httpx.AsyncClient(timeout=httpx.Timeout(60.0), limits=limits) as client:
            for _ in range(200):  # wait for the server
                try:
                    await client.get(base + "/ready")
                    break
                except httpx.TransportError:
                    await anyio.sleep(0.05)
            await anyio.sleep(0.5)
            rng = random.Random(args.seed)
            rounds: list[Round] = []
            for _ in range(args.rounds):
                await client.post(base + "/reset")
                rounds.append(await _round(client, base, server.pid, args, rng, (len(events), digest, msg_json)))
    finally:
        server.terminate()
        server.wait(10)
        if redis_server is not None:
            redis_server.terminate()
            redis_server.wait(10)
    return report(args, rounds, len(events))


@dataclass
class Round:
    results: list[Result]
    seconds: float
    rss: tuple[int, int, int, int]  # before the clients, peak, after they left, after dropping the log
    logs_alive: int  # EventLogs alive in the server after it dropped its log
    objects: int  # objects the server's garbage collector tracks then


async def _round(client: httpx.AsyncClient, base: str, pid: int, args: argparse.Namespace, rng: random.Random,
                 expected: tuple[int, str, bytes]) -> Round:
    """One reply served to every client at once, with the server's RSS."""
    before = peak = rss(pid)
    results: list[Result] = []

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, rss(pid))
            await anyio.sleep(0.05)

    async def one(kind: str, seed: float) -> None:
        results.append(await run_client(client, base, kind, expected, random.Random(seed), bool(args.max_events)))

    t0 = time.perf_counter()
    with anyio.fail_after(args.timeout):
        async with anyio.create_task_group() as sampler:
            sampler.start_soon(sample)
            async with anyio.create_task_group() as tg:
                for kind in mix(args.clients, args.slow_share):
                    tg.start_soon(one, kind, rng.random())
                await anyio.sleep(0.2)  # let them connect, then start the producer
                await client.post(base + "/start")
            sampler.cancel_scope.cancel()
    seconds = time.perf_counter() - t0
    await anyio.sleep(0.5)
    after = rss(pid)
    logs, objects = map(int, (await client.post(base + "/drop")).text.split())
    await anyio.sleep(0.5)
    return Round(results, seconds, (before, peak, after, rss(pid)), logs, objects)


_STORES = {"memory": "EventLog",
           "redis": "RedisEventLog (its own redis-server; readers are other log objects, as on another replica)"}


def mix(clients: int, slow_share: float) -> list[str]:
    """The kind of each client: ``slow_share`` of them slow or dropping (split
    evenly among those three kinds), the rest fast."""
    others = round(clients * slow_share)
    return ["fast"] * (clients - others) + [KINDS[1 + i % 3] for i in range(others)]


def report(args: argparse.Namespace, rounds: list[Round], n: int) -> str:
    mib = 2**20
    lines = [
        f"{args.clients} clients per round ({args.slow_share:.0%} slow or dropping), {len(rounds)} rounds, each one "
        f"{_STORES[args.store]} of {n:,} events (workload scale "
        f"{args.scale}) filled live in batches of {args.batch} every {args.pace * 1000:g} ms"
        + (f", max_events={args.max_events}" if args.max_events else "") + f"; {os.cpu_count()} cores shared.",
        "",
        "| round | clients | kind | all checks pass | events received | reconnects | connection errors retried |",
        "|---:|---:|---|---|---:|---:|---:|",
    ]
    for number, one in enumerate(rounds, 1):
        for kind in KINDS:
            mine = [r for r in one.results if r.kind == kind]
            lines.append(f"| {number} | {len(mine)} | {kind} | {sum(r.ok for r in mine)} of {len(mine)} | "
                         f"{sum(r.events for r in mine):,} | {sum(r.reconnects for r in mine)} | "
                         f"{sum(r.retries for r in mine)} |")
    lines += ["", "| round | events delivered | wall time | events/s | server RSS: before | peak | "
              "after the clients left | after dropping the log | EventLogs alive, objects tracked then |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for number, one in enumerate(rounds, 1):
        total = sum(r.events for r in one.results)
        lines.append(f"| {number} | {total:,} | {one.seconds:.1f} s | {total / one.seconds:,.0f} | "
                     + " | ".join(f"{value / mib:.1f} MiB" for value in one.rss)
                     + f" | {one.logs_alive}, {one.objects:,} |")
    errors = sorted({e for one in rounds for r in one.results for e in r.errors})
    if errors:
        lines += ["", "Connection errors retried (distinct):"] + [f"* {e}" for e in errors[:10]]
    failed = [r for one in rounds for r in one.results if not r.ok]
    if failed:
        lines += ["", "Failures (first 10):"] + [f"* {r.kind}: {r.problem}" for r in failed[:10]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--scale", type=float, default=1.0, help="workload scale (1: 24,800 events)")
    parser.add_argument("--batch", type=int, default=100, help="events the producer appends at a time")
    parser.add_argument("--pace", type=float, default=0.005, help="seconds between the producer's batches")
    parser.add_argument("--max-events", type=int, default=None, help="the EventLog's bound (default: none)")
    parser.add_argument("--rounds", type=int, default=2, help="replies served one after the other (RSS per round)")
    parser.add_argument("--store", choices=("memory", "redis"), default="memory",
                        help="the store behind the endpoint (redis: starts its own redis-server)")
    parser.add_argument("--slow-share", type=float, default=0.75,
                        help="the share of clients that are slow or drop and resume (default 0.75: a quarter each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0, help="fail after this many seconds")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.scale, args.batch, args.pace, args.max_events, args.clients, args.redis_url)
        return 0
    table = anyio.run(soak, args)
    print(table)
    return 0 if "Failures" not in table else 1


if __name__ == "__main__":
    sys.exit(main())
