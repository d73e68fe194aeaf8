"""A real redis-server for the tests: started on a free 127.0.0.1 port in a
temporary directory, persistence off unless asked (AOF with ``appendfsync
always``, for the restart test), stopped at the end.

Tests that need one skip when ``redis-server`` is not installed, except when
``WIRE_REQUIRE_REDIS`` is set (``.ci/run`` sets it), where they fail instead.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import wire
from tests.helpers import Case
from wire.framing import SSEDecoder
from wire.resume import read_checkpoint

if TYPE_CHECKING:  # redis is the test extra's; the tests that need it import it behind importorskip
    from wire.stores.redis import RedisEventLog

REDIS_SERVER = shutil.which("redis-server")


def require_redis_server() -> str:
    if REDIS_SERVER is None:
        if os.environ.get("WIRE_REQUIRE_REDIS"):
            pytest.fail("redis-server is not installed, and WIRE_REQUIRE_REDIS says these tests must run")
        pytest.skip("redis-server is not installed")
    return REDIS_SERVER


# Ports for the servers the tests start: below Linux's ephemeral range
# (32768 and up by default), so that no outgoing connection of the tests can
# take one between free_port() and the server binding it, or while a server
# restarts on its port; each pytest-xdist worker draws from a slice of its own,
# so that two workers never pick the same one. (tests/redis_cluster.py draws
# its nodes from 20000 up.)
_PORTS_FROM, _PORTS_PER_WORKER, _WORKER_SLICES = 10_000, 1_250, 8


def free_port() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    low = _PORTS_FROM + (int(worker) % _WORKER_SLICES if worker.isdigit() else 0) * _PORTS_PER_WORKER
    for _ in range(100):
        port = random.randrange(low, low + _PORTS_PER_WORKER)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port between {low} and {low + _PORTS_PER_WORKER}")


class RedisServer:
    """One redis-server process; ``restart()`` keeps its port and directory."""

    def __init__(self, directory: Path, *, aof: bool = False) -> None:
        self.binary = require_redis_server()
        self.directory = directory
        self.aof = aof
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--save", "", "--daemonize", "no", "--loglevel", "warning", "--logfile", "redis.log"]
        args += ["--appendonly", "yes", "--appendfsync", "always"] if self.aof else ["--appendonly", "no"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = self.directory / "redis.log"
                raise RuntimeError(f"redis-server did not start: {log.read_text() if log.exists() else ''}")
            time.sleep(0.02)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server: SIGTERM, or SIGKILL (a crash: nothing flushed on the way out)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.process.wait(10)
        self.process = None

    def restart(self, *, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()


@contextmanager
def running_server(directory: Path, *, aof: bool = False) -> Iterator[RedisServer]:
    server = RedisServer(directory, aof=aof)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One server, persistence off, for every test of the session."""
    with running_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


# -- what the Redis tests share ------------------------------------------------------------------------


@asynccontextmanager
async def connect(server: RedisServer, **kwargs: Any) -> AsyncIterator[Any]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(server.url, **kwargs)
    try:
        yield client
    finally:
        await client.aclose()


def case_events(case: Case) -> list[wire.AgentEvent]:
    return wire.json.decode_events(case.events_jsonl)


def apply(msg: wire.Msg, events: list[Any]) -> wire.Msg:
    """What a client does with a stream that may hold checkpoints."""
    for event in events:
        snapshot = read_checkpoint(event)
        if snapshot is not None:
            msg = snapshot
        else:
            msg.append_event(event)
    return msg


def rebuilt(case: Case, events: list[Any]) -> wire.Msg:
    """The Msg a client builds from a case's stream."""
    return apply(wire.json.decode_msg(case.initial_msg), events)


def long_reply(n: int, reply_id: str = "r1") -> tuple[wire.Msg, list[wire.AgentEvent]]:
    """A reply of ``n`` events, nearly all text deltas, and its empty Msg."""
    msg = wire.AssistantMsg("Friday", [], id=reply_id)
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s1", reply_id=reply_id, name="Friday"),
                                     wire.TextBlockStartEvent(reply_id=reply_id, block_id="b1")]
    events += [wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="b1", delta=f"{i} ") for i in range(n - 4)]
    events += [wire.TextBlockEndEvent(reply_id=reply_id, block_id="b1"),
               wire.ReplyEndEvent(session_id="s1", reply_id=reply_id)]
    return msg, events


def reduced(case: Case) -> bytes:
    msg = wire.json.decode_msg(case.initial_msg)
    msg.extend_events(case_events(case))
    return wire.json.encode(msg)


async def sse_events(log: RedisEventLog, last_event_id: str | None = None, *, decoder: SSEDecoder[Any] | None = None,
                     **kwargs: Any) -> tuple[list[Any], str]:
    """Every event of ``log.sse(...)`` until the log's end, and the last id."""
    decoder = decoder or SSEDecoder()
    events: list[Any] = []
    async with aclosing(log.sse(last_event_id, heartbeat=None, **kwargs)) as body:
        async for chunk in body:
            events += decoder.feed(chunk)
    events += decoder.close()
    return events, decoder.last_event_id


# -- replicas: ASGI apps in processes of their own, over one Redis --------------------------------------


def start_replica(app: str, redis_url: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``app`` (``module:attribute``) under uvicorn in a process of its own,
    on a free 127.0.0.1 port, with ``REDIS_URL`` (and ``env``) set; the
    process and its URL once it accepts connections."""
    import sys

    from tests.helpers import ROOT

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
         "--no-access-log"], cwd=ROOT, env={**os.environ, **(env or {}), "REDIS_URL": redis_url})
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "the replica did not start"
            time.sleep(0.05)


@contextmanager
def replica_processes(app: str, redis_url: str, count: int = 2) -> Iterator[list[str]]:
    """``count`` replicas of ``app`` (see :func:`start_replica`): their URLs;
    the processes end with the block."""
    started = [start_replica(app, redis_url) for _ in range(count)]
    try:
        yield [url for _, url in started]
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(10)
