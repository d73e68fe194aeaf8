"""The runtime's session client (schemas/src/session.ts: ``followSession``,
``answer``) in node against the chat service of tests/transports/chat_app.py
on a real uvicorn, its logs in memory or in a Redis stream (the test's
redis-server): a chat of three turns answered from node (allowed, denied,
an external result) while another follower's connections are cut and
resumed (checkpoint or replay, ``Last-Event-ID`` or ``?after=``), a reader
that resumes from a kept position and conversation (a page reload), and one
whose position is from another log (``wire.restart``). Every reply's Msg
must be, as text, the very bytes wire's Python writes for the Msg a Python
reader ends with. Then the errors: a 404 and an HTML page name their status
and content type and are not retried, refusals (401, 403, 409, 400) come
back as HTTPStatusError, a dead server is given up after the retries.

Needs node and the built runtime (``npm run build`` in schemas/), as CI has."""

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
SCRIPT = ROOT / "tests" / "ts" / "follow-session.mjs"
ALICE = {"x-user-id": "alice"}

pytestmark = needs_npm("schemas")


@pytest.fixture(params=["memory", "redis"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    """The chat service on uvicorn, its logs in memory or in Redis (trimmed
    to 60 entries there, so late readers get checkpoints)."""
    url = None
    if request.param == "redis":
        pytest.importorskip("redis.asyncio")
        server: RedisServer = request.getfixturevalue("redis_server")
        url = server.url
    with serve_asgi(make_app(url, max_len=60 if url else None), log_level="critical") as found:
        yield found


def node(*args: str) -> dict[str, Any]:
    out = subprocess.run([require_npm("schemas"), str(SCRIPT), *args], capture_output=True, text=True, timeout=90,
                         check=True)
    seen: dict[str, Any] = json.loads(out.stdout)
    assert "error" not in seen, seen
    return seen


def python_replies(base: str, sid: str) -> list[str]:
    """Every reply's Msg as wire's Python writes it, read by a Python
    follower that comes after the session closed."""

    async def read() -> list[str]:
        conversation = await Follower(f"{base}/sessions/{sid}/stream", headers=ALICE).run()
        return [wire_json.encode(msg).decode() for msg in conversation.replies.values()]

    return anyio.run(read)


@pytest.mark.parametrize(("resume", "cursor"), [("checkpoint", "header"), ("replay", "query")])
def test_a_chat_from_node_ends_with_pythons_bytes(base: str, resume: str, cursor: str) -> None:
    seen = node(base, "chat", resume, cursor)
    expected = python_replies(base, seen["sid"])
    assert len(expected) == 3
    # the same text, not just equal JSON: key order, defaults left out, the server's created_at
    assert seen["steady"] == expected
    assert seen["flaky"] == expected
    assert seen["resumed"] == expected
    assert seen["restarted"] == expected  # the stale reply dropped at the restart, the log read from its start
    assert seen["closed"] == [True, True, True, True]
    assert seen["connections"]["flaky"] == 7  # 6 cut after 2 chunks, and the last read to the end
    assert len(seen["reasons"]) == 6
    assert (seen["checkpoints"] > 0) == (resume == "checkpoint")
    assert seen["connections"]["steady"] == seen["connections"]["resumed"] == 1
    allowed, denied, external = (json.loads(turn["ended"]) for turn in seen["turns"])
    assert [b["type"] for b in allowed["content"]] == ["text", "tool_call", "tool_result", "text"]
    assert "notes.txt is gone" in allowed["content"][-1]["text"]
    assert "left notes.txt alone" in denied["content"][-1]["text"]
    assert "Thanks" in external["content"][-1]["text"]
    for turn in seen["turns"]:
        assert turn["entryId"]  # the answer's entry in the log
        assert json.loads(turn["parked"])["content"][1]["state"] in ("asking", "submitted")


def test_errors_name_the_status_and_the_content_type(base: str) -> None:
    seen = node(base, "errors", f"http://127.0.0.1:{free_port()}/sessions/s/stream")
    missing, html = seen["missing"], seen["html"]
    assert (missing["name"], missing["status"], missing["connections"]) == ("HTTPStatusError", 404, 1)
    assert "404" in missing["message"] and "text/plain" in missing["message"]
    assert (html["name"], html["status"], html["connections"]) == ("HTTPStatusError", 200, 1)
    assert html["contentType"].startswith("text/html") and "Sign in" in html["message"]
    assert (seen["stranger"]["status"], seen["stranger"]["connections"]) == (403, 1)
    assert (seen["anonymous"]["status"], seen["anonymous"]["connections"]) == (401, 1)
    gone = seen["gone"]
    assert (gone["name"], gone["attempts"], gone["connections"]) == ("ConnectionFailed", 4, 4)
    assert seen["strangerAnswers"]["status"] == 403
    assert seen["nothingPending"]["status"] == 409 and "no reply 'nope'" in seen["nothingPending"]["message"]
    assert seen["notJson"]["status"] == 400 and "$.input" in seen["notJson"]["message"]
    # A new turn's entry id too (the answer endpoint writes every input through take_input, and says where)
    assert seen["newTurn"]["status"] == 200 and seen["newTurn"]["entryId"]
    assert seen["allowed"]["status"] == 200 and seen["allowed"]["entryId"]
    assert seen["twice"]["status"] == 409
    assert seen["closedByCaller"] == "AbortError"
    assert seen["answerGone"]["name"] == "ConnectionFailed"

