"""The web demo's page in a real browser (Debian's chromium, headless, driven
by playwright-core: tests/browser/drive_replicas.mjs) with two uvicorn
replicas over one redis-server (tests/transports/demo_web_app.py): the page,
served by replica 1, follows the session there while its turn and its
answer (Allow) are posted to replica 2, across origins. The reply parks,
goes on after the answer and ends, and the page's Msg is byte for byte what
a fresh reader of either replica rebuilds.

Skipped like tests/test_browser.py without chromium (a failure when
WIRE_REQUIRE_BROWSER=1), and without redis-server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers import ROOT, needs_npm, require_npm
from tests.redis_server import RedisServer, free_port, redis_server
from wire import json as wire_json
from wire.transports.client import Follower

pytest.importorskip("redis.asyncio")

__all__ = ("redis_server",)  # the fixture, imported to be used here
BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("WIRE_CHROMIUM", "/usr/bin/chromium")
_HAS_CHROMIUM = Path(CHROMIUM).is_file()
if not _HAS_CHROMIUM and os.environ.get("WIRE_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"the browser test needs chromium ({CHROMIUM}; WIRE_CHROMIUM names another)")
pytestmark = [pytest.mark.skipif(not _HAS_CHROMIUM, reason=f"needs chromium ({CHROMIUM})"),
              needs_npm("tests/browser")]


def start_replica(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "tests.transports.demo_web_app:app", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", "--no-access-log"],
        cwd=ROOT, env={**os.environ, **env})
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "the replica did not start"
            time.sleep(0.05)


@pytest.fixture
def replicas(redis_server: RedisServer) -> Iterator[tuple[str, str]]:
    """Replica 1 names replica 2's /chat to its pages; replica 2 lets replica
    1's origin post there."""
    one, two = (f"http://127.0.0.1:{free_port()}" for _ in range(2))
    started = [start_replica(int(one.rsplit(":", 1)[1]), {"REDIS_URL": redis_server.url, "CHAT_URL": f"{two}/chat"}),
               start_replica(int(two.rsplit(":", 1)[1]), {"REDIS_URL": redis_server.url, "ALLOW_ORIGIN": one})]
    try:
        yield one, two
    finally:
        for process in started:
            process.terminate()
            process.wait(10)


async def fresh_texts(base: str, session: str) -> list[str]:
    async with httpx.AsyncClient() as http:
        conversation = await Follower(f"{base}/sessions/{session}/stream", client=http).run(turn=True)
    return [wire_json.encode(msg).decode() for msg in conversation.replies.values()]


def test_the_page_follows_replica_1_and_answers_on_replica_2(replicas: tuple[str, str], tmp_path: Path) -> None:
    one, two = replicas
    node = require_npm("tests/browser")
    result = subprocess.run([node, str(BROWSER / "drive_replicas.mjs"), f"{one}/", str(tmp_path / "user-data"),
                             CHROMIUM], capture_output=True, text=True, timeout=90, check=False)
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout)
    assert seen["errors"] == [] and seen["error"] is None, seen

    # The page read the session on replica 1 and posted its turn and its answer to replica 2 only.
    session = seen["session"]["id"]
    posts = [(r["url"], r["status"]) for r in seen["requests"] if r["method"] == "POST"]
    assert posts == [(f"{one}/sessions", 201), (f"{two}/chat", 200), (f"{two}/chat", 200)]
    streams = {r["url"] for r in seen["requests"] if "/stream" in r["url"]}
    assert streams and all(url.startswith(f"{one}/sessions/{session}/stream") for url in streams)

    # One reply: parked on its call, then allowed, continued and ended on the page.
    assert len(seen["parked"]) == 1 and len(seen["texts"]) == 1
    parked, ended = json.loads(seen["parked"][0]), json.loads(seen["texts"][0])
    assert parked["id"] == ended["id"]
    assert next(b for b in parked["content"] if b["type"] == "tool_call")["state"] == "asking"
    assert [b["type"] for b in ended["content"]] == ["thinking", "text", "tool_call", "tool_result", "text", "data"]
    assert ended["content"][3]["state"] == "success" and ended["finished_reason"] == "completed"

    # Byte-identical to what a fresh reader of either replica rebuilds.
    for base in (one, two):
        assert anyio.run(fresh_texts, base, session) == seen["texts"]
