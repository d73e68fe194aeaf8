"""The runtime's ``connectSession`` (schemas/src/socket.ts) in a real
browser, on its own ``WebSocket``: Debian's chromium, headless, driven by
playwright-core (tests/browser/socket.mjs), loads a page that imports the
bundled runtime (wire/web/runtime.js) and, over one socket to the chat
service of tests/transports/chat_app.py (``wire.transports.ws``), sends a
turn, reads the reply up to its park on a confirmation, allows the call
and reads the reply to its end; once in JSON text frames, once in
MessagePack binary frames. Every reply's Msg must be, as text, the very
bytes wire's Python writes for what an SSE reader of the session ends with.

A browser cannot set a WebSocket's headers: the page says who it is in the
query string, which the test's server turns into the ``X-User-ID`` header
the chat service reads.

Skipped like tests/test_browser.py without chromium (a failure when
WIRE_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import ROOT, needs_npm, require_npm, serve_asgi
from tests.transports.chat_app import make_app
from wire import json as wire_json
from wire.transports.client import Follower

BROWSER = ROOT / "tests" / "browser"
RUNTIME = ROOT / "wire" / "web" / "runtime.js"
CHROMIUM = os.environ.get("WIRE_CHROMIUM", "/usr/bin/chromium")
_HAS_CHROMIUM = Path(CHROMIUM).is_file()
if not _HAS_CHROMIUM and os.environ.get("WIRE_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"the browser test needs chromium ({CHROMIUM}; WIRE_CHROMIUM names another)")
pytestmark = [pytest.mark.skipif(not _HAS_CHROMIUM, reason=f"needs chromium ({CHROMIUM})"),
              needs_npm("tests/browser")]
ALICE = {"x-user-id": "alice"}

PAGE = """<!doctype html><title>connectSession</title><body>
<script type="module">
import { confirmation, connectSession, userMsg, waiting } from "/runtime.js";

const ALICE = { "x-user-id": "alice" };

async function chat(protocol) {
  const created = await fetch("/sessions", { method: "POST", headers: ALICE });
  const sid = (await created.json()).session_id;
  // A path: the page's own server, as ws://.
  const session = connectSession(`/sessions/${sid}/socket?user=alice`, { agentId: "friday", sessionId: sid, protocol });
  const taken = await session.send(userMsg("alice", "delete notes.txt"));
  const parked = (await session.run({ turn: true })).last;
  const asked = waiting(parked).confirm.map((call) => call.name);
  const answered = await session.send(confirmation(parked, true));
  const ended = (await session.run({ turn: true })).last;
  await fetch(`/sessions/${sid}/close`, { method: "POST", headers: ALICE });
  await session.done;
  session.close();
  return { sid, asked, state: waiting(ended).state, taken: taken.entryId, answered: answered.entryId,
    connections: session.connections, closed: session.closed,
    replies: [...session.conversation.replies.values()].map((msg) => JSON.stringify(msg)) };
}

try {
  window.seen = { json: await chat("json"), msgpack: await chat("msgpack") };
} catch (error) {
  window.seen = { error: `${error.name}: ${error.message}` };
}
document.body.dataset.state = "done";
</script>
"""


def with_page(chat: Any) -> Any:
    """The chat service, and the page and the runtime at ``/`` and
    ``/runtime.js``; a socket's ``?user=`` becomes its ``X-User-ID``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path")
        if scope["type"] == "http" and path in ("/", "/runtime.js"):
            body, kind = (PAGE.encode(), b"text/html") if path == "/" else (RUNTIME.read_bytes(), b"text/javascript")
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "websocket":
            query = dict(part.split("=", 1) for part in scope["query_string"].decode().split("&") if "=" in part)
            if "user" in query:
                scope = {**scope, "headers": [*scope["headers"], (b"x-user-id", query["user"].encode())]}
        await chat(scope, receive, send)

    return app


def python_replies(base: str, sid: str) -> list[str]:
    async def read() -> list[str]:
        conversation = await Follower(f"{base}/sessions/{sid}/stream", headers=ALICE).run()
        return [wire_json.encode(msg).decode() for msg in conversation.replies.values()]

    return anyio.run(read)


def test_a_turn_confirmed_over_the_browsers_websocket(tmp_path: Path) -> None:
    node = require_npm("tests/browser")
    with serve_asgi(with_page(make_app(pause=0.005)), ws="websockets-sansio") as url:
        result = subprocess.run([node, str(BROWSER / "socket.mjs"), f"{url}/", str(tmp_path / "user-data"), CHROMIUM],
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, result.stderr
        seen = json.loads(result.stdout)
        assert seen["errors"] == [] and "error" not in seen, seen
        for protocol in ("json", "msgpack"):
            chat = seen[protocol]
            assert chat["asked"] == ["delete_file"] and chat["state"] == "ended"
            assert chat["taken"] and chat["answered"]  # each input's entry in the log
            assert (chat["connections"], chat["closed"]) == (1, True)
            assert chat["replies"] == python_replies(url, chat["sid"]), protocol
            assert "notes.txt is gone" in json.loads(chat["replies"][0])["content"][-1]["text"]
