"""The answer's latency across replicas, over HTTP and over a socket: a
script, not a timed test.

On a real redis-server (a free 127.0.0.1 port, persistence off) two uvicorn
replicas of the chat service in ``tests/transports/chat_app.py`` run, each
its own process. Each transport has a session of its own, on the same two
replicas and the same Redis:

* ``http``: a follower (``wire.transports.client.Follower``, SSE) reads the
  session on replica 1 while every turn and every answer is posted to
  replica 2 (``wire.transports.client.answer``);
* ``socket``: the same over sockets (``wire.transports.ws``): a
  ``SessionSocket`` follows the session on replica 1, and every turn and
  answer is sent as an input frame on a second socket, to replica 2, that
  does not follow;
* ``one-socket``: one ``SessionSocket`` on replica 2 both follows the
  session and sends its turns and answers (one socket per conversation, as
  a phone or voice client holds it).

Each round trip: a new turn is sent and read up to its park (the agent asks
to confirm a tool call); then the clock starts, the confirmation is sent to
replica 2, and the clock stops when the reader holds the resumed reply's
next event (the agent's continuation REPLY_START, written by replica 2's
agent after the endpoint appended the answer); the time to the answer's own
event at the reader is noted too. Then the reply is read to its end. Every
connection is opened before the first round and held to the last: no round
pays for connecting.

The transports take their rounds in turn (http, socket, one-socket, then
again), so that a burst of load on a shared machine lands on all of them
alike; ``--transports http`` alone measures what the script measured
before the socket rows were added. The replicas' socket limits are raised
(``CHAT_SOCKET_RATE``: 1,000 inputs and frames a second) so that the
socket's pacing, 5 inputs a second by default, does not refuse or slow the
rounds.

Reported: median, p99 and max over ``--rounds`` round trips (200 by
default) per transport, after 10 warm-up rounds each. The agent pauses 0 s
between its events here.

Run: ``.venv/bin/python -m benchmarks.bench_answer_latency [--rounds 200] [--transports http socket one-socket]``
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

import wire
from tests.redis_server import running_server, start_replica
from wire.resume import Conversation
from wire.transports.chat import confirmation
from wire.transports.client import Follower, answer

ALICE = {"x-user-id": "alice"}
TRANSPORTS = ("http", "socket", "one-socket")
WARM_UP = 10


@dataclass
class Trip:
    """One transport's session: how to send an input to replica 2, and what
    its reader (started in the task group) has read, stamped when read."""

    name: str
    send: Callable[[Any], Coroutine[Any, Any, object]]
    conversation: Callable[[], Conversation]
    receive: MemoryObjectReceiveStream[tuple[float, Any]]
    to_reply: list[float] = field(default_factory=list)
    to_answer: list[float] = field(default_factory=list)

    async def until(self, kind: type, reply_id: str | None = None) -> float:
        async for at, event in self.receive:
            if type(event) is kind and (reply_id is None or getattr(event, "reply_id", None) == reply_id):
                return at
        raise RuntimeError(f"{self.name}: the stream ended")


def stamped(send: MemoryObjectSendStream[tuple[float, Any]],
            batches: Callable[[], Any]) -> Callable[[], Coroutine[Any, Any, None]]:
    """A reader task: every event of ``batches()``, with the time its batch
    was read (after the reader applied it to its conversation)."""

    async def read() -> None:
        async with aclosing(batches()) as stream:
            async for batch in stream:
                now = time.perf_counter()
                for event in batch:
                    send.send_nowait((now, event))

    return read


@asynccontextmanager
async def http_trip(one: str, two: str, tg: TaskGroup) -> AsyncIterator[Trip]:
    """POST to replica 2, an SSE Follower on replica 1 (one HTTP client
    and its connections for the whole run)."""
    send, receive = anyio.create_memory_object_stream[tuple[float, Any]](1 << 20)
    async with httpx.AsyncClient(timeout=30) as http:
        sid = (await http.post(f"{two}/sessions", headers=ALICE)).json()["session_id"]
        follower = Follower(f"{one}/sessions/{sid}/stream", client=http, headers=ALICE)
        tg.start_soon(stamped(send, follower.batches))

        async def post(value: Any) -> object:
            return await answer(f"{two}/chat", agent_id="friday", session_id=sid, input=value, client=http,
                                headers=ALICE)

        yield Trip("http", post, lambda: follower.conversation, receive)


@asynccontextmanager
async def socket_trip(one: str, two: str, tg: TaskGroup, *, single: bool) -> AsyncIterator[Trip]:
    """Inputs on a socket to replica 2; the reader a socket on replica 1,
    or (``single``) the sending socket itself."""
    from wire.transports.ws_client import SessionSocket

    send, receive = anyio.create_memory_object_stream[tuple[float, Any]](1 << 20)
    async with httpx.AsyncClient(timeout=30) as http:
        sid = (await http.post(f"{two}/sessions", headers=ALICE)).json()["session_id"]
    ws_two = two.replace("http://", "ws://", 1) + f"/sessions/{sid}/socket"
    ws_one = one.replace("http://", "ws://", 1) + f"/sessions/{sid}/socket"
    async with AsyncExitStack() as stack:
        sender = await stack.enter_async_context(SessionSocket(ws_two, headers=ALICE, follow=single))
        reader = sender if single else await stack.enter_async_context(SessionSocket(ws_one, headers=ALICE))
        tg.start_soon(stamped(send, reader.batches))

        async def post(value: Any) -> object:
            return await sender.send(value, agent_id="friday", session_id=sid)

        yield Trip("one-socket" if single else "socket", post, lambda: reader.conversation, receive)


async def one_round(trip: Trip, tg: TaskGroup, record: bool) -> None:
    await trip.send(wire.UserMsg("alice", "tidy"))
    await trip.until(wire.RequireUserConfirmEvent)
    parked = trip.conversation().last
    assert parked is not None
    sent = confirmation(parked, True)
    start = time.perf_counter()
    tg.start_soon(trip.send, sent)
    to_answer = await trip.until(wire.UserConfirmResultEvent, parked.id) - start
    to_reply = await trip.until(wire.ReplyStartEvent, parked.id) - start
    await trip.until(wire.ReplyEndEvent, parked.id)
    if record:
        trip.to_reply.append(to_reply)
        trip.to_answer.append(to_answer)


async def rounds(one: str, two: str, count: int, transports: list[str]) -> list[Trip]:
    """Every transport's round trips, taken in turn after the warm-up."""
    async with anyio.create_task_group() as tg, AsyncExitStack() as stack:
        trips = []
        for name in transports:
            made = http_trip(one, two, tg) if name == "http" else socket_trip(one, two, tg,
                                                                               single=name == "one-socket")
            trips.append(await stack.enter_async_context(made))
        for n in range(WARM_UP + count):
            for trip in trips:
                await one_round(trip, tg, record=n >= WARM_UP)
        tg.cancel_scope.cancel()
    return trips


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) >= 2 else values[0]


def stack() -> str:
    """What uvicorn runs on here: its defaults take uvloop and httptools
    when they are installed, else asyncio and h11; websockets-sansio for
    sockets (websockets is installed)."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"uvicorn's defaults: {loop}, {parser}, websockets-sansio"


def report(trips: list[Trip], command: str) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                         for name in ("uvicorn", "websockets", "httpx", "redis", "starlette"))
    server = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    redis_version = next((word for word in server if word.startswith("v=")), "v=?")
    ms = 1000
    lines = [
        f"Commit {commit}" + (f" (the tree had uncommitted changes: {len(dirty.splitlines())} files)" if dirty else "")
        + f"; {platform.machine()}, {os.cpu_count()} cores shared with other jobs, Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end; {versions}; "
        f"redis-server {redis_version}.",
        "",
        f"`{command}`: {len(trips[0].to_reply)} round trips per transport (after {WARM_UP} each to warm up), "
        f"taken in turn; two uvicorn replicas ({stack()}), one redis-server, loopback.",
        "",
        "| transport | the answer sent to replica 2, read on | to the resumed reply's next event: median | p99 | max "
        "| to the answer's own event: median | p99 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    where = {"http": "POST /chat; SSE follower on replica 1",
             "socket": "input frame on a socket; socket follower on replica 1",
             "one-socket": "input frame on the socket that follows, on replica 2"}
    for trip in trips:
        lines.append(f"| {trip.name} | {where[trip.name]} | {statistics.median(trip.to_reply) * ms:.2f} ms | "
                     f"{p99(trip.to_reply) * ms:.2f} ms | {max(trip.to_reply) * ms:.2f} ms | "
                     f"{statistics.median(trip.to_answer) * ms:.2f} ms | {p99(trip.to_answer) * ms:.2f} ms |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--transports", nargs="+", default=list(TRANSPORTS), choices=TRANSPORTS)
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    with running_server(Path(tempfile.mkdtemp())) as server:
        started = [start_replica("tests.transports.chat_app:app", server.url,
                                 {"CHAT_PAUSE": "0", "CHAT_SOCKET_RATE": "1000"}) for _ in range(2)]
        try:
            (one, _), (two, _) = [(url, p) for p, url in started]
            trips = anyio.run(rounds, one, two, args.rounds, args.transports)
        finally:
            for process, _ in started:
                process.terminate()
                process.wait(10)
    table = report(trips, " ".join([".venv/bin/python -m benchmarks.bench_answer_latency", *sys.argv[1:]]))
    print(table)
    if args.out:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
