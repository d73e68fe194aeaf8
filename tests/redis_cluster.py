"""A real Redis Cluster for the tests: 3 masters, each with 1 replica, six
redis-server processes on free 127.0.0.1 ports in a temporary directory,
persistence off, stopped at the end.

The cluster is made with the cluster commands themselves (``CLUSTER
ADDSLOTSRANGE``, ``MEET``, ``REPLICATE``), not ``redis-cli --cluster
create``: ``redis-cli`` is Debian's ``redis-tools``, not ``redis-server``.
Failover is fast: ``cluster-node-timeout`` is short, a replica may take
over however long its link was down (``cluster-replica-validity-factor
0``), and a replica resyncs at once (``repl-diskless-sync-delay 0``).

Like ``tests/redis_server.py``: skipped without ``redis-server``, failed
instead when ``WIRE_REQUIRE_REDIS`` is set (``.ci/run`` sets it); a cluster
that does not come up is a failure either way.
"""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.redis_server import require_redis_server

SLOTS = 16384
MASTERS = 3
NODE_TIMEOUT_MS = 1000  # a killed master is marked failed after about this, and its replica elected soon after
_BUS_OFFSET = 10000  # a node's cluster bus listens on its port + 10000


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_cluster_port(taken: set[int]) -> int:
    """A free port whose cluster bus port (+10000) is free too."""
    for _ in range(1000):
        port = random.randrange(20000, 30000)
        if port not in taken and _bindable(port) and _bindable(port + _BUS_OFFSET):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _wait(what: str, ready: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the Redis cluster: {what} within {timeout} s")
        time.sleep(0.05)


class Node:
    """One redis-server of the cluster, in its own directory (its ``nodes.conf``)."""

    def __init__(self, binary: str, directory: Path, port: int) -> None:
        self.binary = binary
        self.directory = directory
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.id = ""

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--daemonize", "no", "--loglevel", "warning", "--logfile", "redis.log",
                "--save", "", "--appendonly", "no",
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--cluster-replica-validity-factor", "0",
                "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.id = self.command("CLUSTER", "MYID").decode()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.directory / "redis.log"
                    raise RuntimeError(f"redis-server :{self.port} did not start: "
                                       f"{log.read_text() if log.exists() else ''}") from None
                time.sleep(0.02)

    def stop(self, *, kill: bool = False) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.process.wait(10)
        self.process = None

    @property
    def alive(self) -> bool:
        return self.process is not None

    def command(self, *args: str | int) -> Any:
        """One command on a fresh connection (RESP, by hand: the cluster's
        own administration needs no client library)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            parts = [str(arg).encode() for arg in args]
            sock.sendall(b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
            reply = _Reply(sock).read()
        if isinstance(reply, _Error):
            raise _Error(f":{self.port} {' '.join(map(str, args))}: {reply}")
        return reply

    def info(self, section: str) -> dict[str, str]:
        text = self.command("INFO", section) if section != "cluster" else self.command("CLUSTER", "INFO")
        return dict(line.split(":", 1) for line in text.decode().splitlines() if ":" in line)

    def nodes(self) -> list[list[str]]:
        """``CLUSTER NODES`` as this node sees it: id, address, flags, master id, ..., slots."""
        return [line.split() for line in self.command("CLUSTER", "NODES").decode().splitlines()]

    def role(self) -> str:
        return self.info("replication").get("role", "")


class _Error(Exception):
    pass


class _Reply:
    def __init__(self, sock: socket.socket) -> None:
        self.file = sock.makefile("rb")

    def read(self) -> Any:
        line = self.file.readline()
        if not line:
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            return _Error(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError(f"unexpected reply {line!r}")


class Cluster:
    """Six nodes: ``masters[i]`` serves a third of the slots, ``replicas[i]`` copies it."""

    def __init__(self, directory: Path) -> None:
        binary = require_redis_server()
        taken: set[int] = set()
        self.nodes: list[Node] = []
        for i in range(2 * MASTERS):
            port = free_cluster_port(taken)
            taken.add(port)
            self.nodes.append(Node(binary, directory / f"node{i}", port))

    @property
    def startup_nodes(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", node.port) for node in self.nodes if node.alive]

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        masters, replicas = self.nodes[:MASTERS], self.nodes[MASTERS:]
        for i, master in enumerate(masters):
            master.command("CLUSTER", "ADDSLOTSRANGE", i * SLOTS // MASTERS, (i + 1) * SLOTS // MASTERS - 1)
        for node in self.nodes[1:]:
            node.command("CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port)
        _wait("every node knows every other", lambda: all(len(n.nodes()) == len(self.nodes) for n in self.nodes))
        for master, replica in zip(masters, replicas, strict=True):
            replica.command("CLUSTER", "REPLICATE", master.id)
        self.wait_ok()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def masters(self) -> list[Node]:
        return [node for node in self.nodes if node.alive and node.role() == "master"]

    def master_of(self, key: str) -> Node:
        """The node that serves ``key``'s slot now."""
        slot = int(self.nodes_alive()[0].command("CLUSTER", "KEYSLOT", key))
        for node in self.masters():
            for line in node.nodes():
                if "myself" in line[2]:
                    for part in line[8:]:
                        low, _, high = part.partition("-")
                        if not part.startswith("[") and int(low) <= slot <= int(high or low):
                            return node
        raise LookupError(f"no master serves slot {slot}")

    def nodes_alive(self) -> list[Node]:
        return [node for node in self.nodes if node.alive]

    def replica_of(self, master: Node) -> Node:
        for node in self.nodes_alive():
            if node is not master and any("myself" in line[2] and line[3] == master.id for line in node.nodes()):
                return node
        raise LookupError(f"master :{master.port} has no replica")

    def healthy(self) -> bool:
        """Every node up, every node's view ``cluster_state:ok`` with all
        slots served, three masters each with a replica whose link is up,
        and every node agreeing who the masters are."""
        try:
            if not all(node.alive for node in self.nodes):
                return False
            views = []
            for node in self.nodes:
                info = node.info("cluster")
                if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != str(SLOTS):
                    return False
                if info.get("cluster_known_nodes") != str(len(self.nodes)):
                    return False
                lines = node.nodes()
                if any("fail" in line[2] or "handshake" in line[2] or "noaddr" in line[2] for line in lines):
                    return False
                views.append(sorted(line[0] for line in lines if "master" in line[2]))
            if any(view != views[0] for view in views) or len(views[0]) != MASTERS:
                return False
            roles = [node.info("replication") for node in self.nodes]
            replicas = [r for r in roles if r.get("role") == "slave"]
            return len(replicas) == MASTERS and all(r.get("master_link_status") == "up" for r in replicas)
        except (OSError, _Error):
            return False

    def wait_ok(self, timeout: float = 30.0) -> None:
        _wait("cluster_state:ok, 3 masters with a replica each", self.healthy, timeout)

    def failover(self, master: Node) -> Node:
        """``CLUSTER FAILOVER`` on ``master``'s replica: the replica catches
        up, takes over, and ``master`` becomes its replica. Waits until the
        cluster is healthy again; the new master."""
        replica = self.replica_of(master)
        replica.command("CLUSTER", "FAILOVER")
        _wait("the replica took over", lambda: replica.role() == "master")
        self.wait_ok()
        return replica

    def replicated(self, master: Node) -> None:
        """Wait until ``master``'s replica has every write ``master`` took so far."""
        def caught_up() -> bool:
            info = master.info("replication")
            offset = info.get("master_repl_offset")
            return any(f",offset={offset}," in value for name, value in info.items() if name.startswith("slave"))

        _wait("the replica caught up", caught_up)

    def kill(self, master: Node, *, down_for: float = 0.0) -> Node:
        """SIGKILL ``master`` (writes not yet replicated are lost, as in a
        crash) and wait until its replica is promoted; then start the old
        master again, empty, as the new master's replica, and wait until
        the cluster is healthy. The new master.

        With ``down_for``, the replica is stopped (SIGSTOP) before the kill
        and let go only once the cluster has been down (``cluster_state:fail``,
        every node answering CLUSTERDOWN) for that many seconds."""
        replica = self.replica_of(master)
        assert replica.process is not None
        witness = next(node for node in self.nodes_alive() if node is not master and node is not replica)
        if down_for:
            replica.process.send_signal(signal.SIGSTOP)
        try:
            master.stop(kill=True)
            if down_for:
                _wait("the cluster saw the master fail", lambda: witness.info("cluster").get("cluster_state") == "fail")
                time.sleep(down_for)
        finally:
            if down_for:
                replica.process.send_signal(signal.SIGCONT)
        _wait("the replica of the killed master was promoted", lambda: replica.role() == "master")
        master.start()  # its nodes.conf makes it rejoin; the new master's epoch makes it a replica
        self.wait_ok()
        return replica


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster for every test of the session (a test that fails a node
    over leaves it healthy again, with the roles swapped)."""
    cluster = Cluster(tmp_path_factory.mktemp("redis-cluster"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@asynccontextmanager
async def connect_cluster(cluster: Cluster, **kwargs: Any) -> AsyncIterator[Any]:
    """redis-py's asyncio ``RedisCluster`` on ``cluster``."""
    from redis.asyncio.cluster import ClusterNode, RedisCluster

    client = RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in cluster.startup_nodes], **kwargs)
    try:
        await client.initialize()
        yield client
    finally:
        await client.aclose()
