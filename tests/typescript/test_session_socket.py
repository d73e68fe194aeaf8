"""The runtime's socket client (schemas/src/socket.ts: ``connectSession``)
in node, over the ``ws`` package, against the socket of
tests/transports/chat_app.py (``wire.transports.ws``) on a real uvicorn,
its logs in memory or in a Redis stream trimmed to 60 entries (the test's
redis-server), in JSON text and MessagePack binary frames: two turns, each
parked on a confirmation and answered over the socket, with a page reload
between (a second client resumes from the first's conversation and entry
id); and a client whose TCP connection is destroyed at a text delta of a
running reply, three times a turn, which resumes by entry id. Every reply's
Msg must be, as text, the very bytes wire's Python writes for the Msg an
SSE reader of the session ends with. Then the errors: refusals (403, 401,
404, a handshake answered 403) are HTTPStatusError at once, a dead server
ConnectionFailed after the retries, refused inputs InputRefused with the
server's status and reason.

Needs node and ``npm ci`` in schemas/ (the built runtime and ``ws``), as CI has."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from tests.helpers import ROOT, needs_npm, require_npm, serve_asgi
from tests.redis_server import RedisServer, free_port, redis_server
from tests.transports.chat_app import make_app
from wire import json as wire_json
from wire.transports.client import Follower

__all__ = ("redis_server",)  # the fixture, imported to be used here
SCRIPT = ROOT / "tests" / "ts" / "session-socket.mjs"
ALICE = {"x-user-id": "alice"}

pytestmark = needs_npm("schemas")


@pytest.fixture(params=["memory", "redis"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    """The chat service on uvicorn with WebSockets, its logs in memory or in
    Redis (trimmed to 60 entries there, so that a reader that resumes gets
    checkpoints). A reply's deltas come 10 ms apart, so that the drops
    happen while it runs."""
    url = None
    if request.param == "redis":
        pytest.importorskip("redis.asyncio")
        server: RedisServer = request.getfixturevalue("redis_server")
        url = server.url
    app = make_app(url, max_len=60 if url else None, pause=0.01)
    with serve_asgi(app, log_level="critical", ws="websockets-sansio") as found:
        yield found


def node(*args: str) -> dict[str, Any]:
    out = subprocess.run([require_npm("schemas"), str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                         check=True)
    seen: dict[str, Any] = json.loads(out.stdout)
    assert "error" not in seen, seen
    return seen


def python_replies(base: str, sid: str) -> list[str]:
    """Every reply's Msg as wire's Python writes it, read over SSE by a
    Python follower that comes after the session closed."""

    async def read() -> list[str]:
        conversation = await Follower(f"{base}/sessions/{sid}/stream", headers=ALICE).run()
        return [wire_json.encode(msg).decode() for msg in conversation.replies.values()]

    return anyio.run(read)


@pytest.mark.parametrize("protocol", ["json", "msgpack"])
def test_turns_and_sockets_dropped_mid_reply_end_with_pythons_bytes(base: str, protocol: str) -> None:
    seen = node(base, "chat", protocol)
    expected = python_replies(base, seen["sid"])
    assert len(expected) == 2
    # the same text, not just equal JSON: key order, defaults left out, the server's created_at
    assert seen["steady"] == expected
    reload = seen["reload"]
    assert (reload["parked"], reload["ended"], reload["connections"]) == ("parked", "ended", 1)
    assert reload["answered"] and reload["again"]["answered"]  # each input's entry in the log
    assert "left notes.txt alone" in reload["again"]["said"]
    assert seen["closed"] == [True, True]  # the log's end came over both sockets

    assert seen["dropped"] == python_replies(base, seen["dropSid"])
    drops = seen["drops"]
    assert all(made >= 1 for made in drops["perTurn"]) and drops["whileRunning"] == sum(drops["perTurn"])
    assert seen["connections"] == sum(drops["perTurn"]) + 1  # each drop, one reconnection
    assert [turn["said"] for turn in seen["turns"]] == ["Done: notes.txt is gone. ", "Fine, I left notes.txt alone. "]
    assert all(turn["parked"] == "parked" and turn["ended"] == "ended" for turn in seen["turns"])


def test_refusals_and_failures_are_the_http_clients_errors(base: str) -> None:
    seen = node(base, "errors", f"ws://127.0.0.1:{free_port()}/sessions/s/socket")
    for name, status in (("stranger", 403), ("anonymous", 401), ("missing", 404), ("handshake", 403)):
        refused = seen[name]
        assert (refused["name"], refused["status"], refused["connections"]) == ("HTTPStatusError", status, 1), name
    assert "who are you?" in seen["anonymous"]["message"]  # the server's reason, from the close frame
    assert "101 Switching Protocols" in seen["handshake"]["message"]
    gone = seen["gone"]
    assert (gone["name"], gone["attempts"], gone["connections"]) == ("ConnectionFailed", 4, 4)
    pending = seen["nothingPending"]
    assert (pending["name"], pending["status"]) == ("InputRefused", 409) and "no reply 'nope'" in pending["message"]
    assert (seen["otherSession"]["status"], seen["otherSession"]["name"]) == (400, "InputRefused")
    assert seen["noAgent"] == seen["sendOnlyRuns"] == "LocalProtocolError"
    assert seen["closedByCaller"] == seen["afterClose"]["name"] == seen["runAfterClose"] == "AbortError"
    assert seen["badProtocol"] == seen["badUrl"] == "TypeError"
