"""``python -m wire demo --web`` in a real browser: Debian's chromium, headless,
driven by playwright-core (tests/browser/drive.mjs). One page holds a
session of two replies: the first is reloaded mid-stream, parks asking to
confirm its tool call (the page shows the call's arguments with Allow and
Deny) and is allowed; "Ask again" starts the second, which parks, is
reloaded there and is denied. The page must end with the server's Msgs, the
very JSON text wire's Python writes, and show them in the DOM: thinking,
text, the tool call's arguments (filled in as they streamed), its result
(or the denial) and the image, every earlier reply still there after each
reload.

Skipped without chromium, node or ``npm ci`` in tests/browser/, unless
WIRE_REQUIRE_BROWSER=1 (as .ci/run sets it), where that is a failure."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import ROOT, needs_npm, require_npm

BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("WIRE_CHROMIUM", "/usr/bin/chromium")

_HAS_CHROMIUM = Path(CHROMIUM).is_file()
if not _HAS_CHROMIUM and os.environ.get("WIRE_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"the browser test needs chromium ({CHROMIUM}; WIRE_CHROMIUM names another)")
# Without chromium (a system package) the test is skipped; without node or
# `npm ci` in tests/browser or schemas/ (playwright-core, esbuild) it fails
# with one line naming the step.
pytestmark = [pytest.mark.skipif(not _HAS_CHROMIUM, reason=f"needs chromium ({CHROMIUM})"),
              needs_npm("tests/browser"), needs_npm("schemas")]


def test_served_runtime_is_the_built_one() -> None:
    """wire/web/runtime.js is schemas/dist bundled, not a stale copy."""
    node = require_npm("tests/browser")
    result = subprocess.run([node, str(BROWSER / "bundle-runtime.mjs"), "--check"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    """The demo as a user starts it, on a free port, its agent quick (the
    whole run takes seconds) but slow enough that the first reload comes
    before the first park even on a loaded machine (a second of margin)."""
    server = subprocess.Popen([sys.executable, "-m", "wire", "demo", "--web", "--port", "0", "--pace", "0.02"],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        server.terminate()
        server.wait(10)
        if server.stdout is not None:
            server.stdout.close()


@pytest.fixture(scope="module")
def run(demo_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("browser")
    node = require_npm("tests/browser")
    result = subprocess.run([node, str(BROWSER / "drive.mjs"), demo_url, str(tmp / "demo-web.png"),
                             str(tmp / "user-data"), CHROMIUM], capture_output=True, text=True, timeout=180,
                            check=False)
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout)
    seen["screenshot"] = tmp / "demo-web.png"
    seen["server"] = httpx.get(f"{demo_url}sessions/{seen['session']}/replies", timeout=10).json()
    return seen


def test_the_page_ends_with_the_servers_msgs_as_text(run: dict[str, Any]) -> None:
    assert run["errors"] == []
    final = run["ended2"]["seen"]
    assert final["error"] is None
    assert len(run["server"]) == 2
    assert final["texts"] == run["server"]  # JSON.stringify of each Msg is wire's Python text of it
    allowed, denied = (json.loads(text) for text in final["texts"])
    assert allowed["finished_reason"] == denied["finished_reason"] == "completed"
    assert [b["type"] for b in allowed["content"]] == ["thinking", "text", "tool_call", "tool_result", "text", "data"]
    assert allowed["content"][3]["state"] == "success"
    assert [b["type"] for b in denied["content"]] == ["thinking", "text", "tool_call", "tool_result", "text"]
    assert denied["content"][3]["state"] == "denied" and "did not run" in denied["content"][4]["text"]
    assert run["screenshot"].stat().st_size > 10_000


def test_reloads_resume_the_session_with_every_earlier_reply(run: dict[str, Any]) -> None:
    before, parked1, parked2 = run["beforeReload"], run["parked1"]["seen"], run["parked2"]["seen"]
    assert before["events"] > 0 and len(before["texts"]) == 1  # mid-reply: the first reply under way
    # After each reload: the kept replies, then a checkpoint of each reply written since the kept id and
    # the events after it: mid-reply, the reply under way; at the park, nothing (all was kept).
    assert (parked1["restored"], parked2["restored"]) == (1, 2)
    assert parked1["checkpoints"] == 1 and 0 < parked1["events"] < 100
    assert (parked2["checkpoints"], parked2["events"]) == (0, 0)
    assert run["ended2"]["seen"]["texts"][0] == run["ended1"]["seen"]["texts"][0]  # the first reply, unchanged
    assert [r["id"] for r in run["parked2"]["dom"]["replies"]] == [r["id"] for r in run["ended1"]["dom"]["replies"]] \
        + [json.loads(run["ended2"]["seen"]["texts"][1])["id"]]


@pytest.mark.parametrize("moment", ["parked1", "parked2"])
def test_a_parked_reply_shows_the_call_with_allow_and_deny(run: dict[str, Any], moment: str) -> None:
    dom, texts = run[moment]["dom"], run[moment]["seen"]["texts"]
    assert dom["state"] == "parked" and not dom["again"]
    msg = json.loads(texts[-1])
    call = next(b for b in msg["content"] if b["type"] == "tool_call")
    assert call["state"] == "asking"
    panels = dom["replies"][-1]["confirm"]
    assert len(panels) == 1 and all(not r["confirm"] for r in dom["replies"][:-1])
    arguments = json.loads(call["input"])
    assert panels[0]["args"] == {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
    assert panels[0]["buttons"] == ["Allow", "Deny"]
    assert call["name"] in panels[0]["text"]


@pytest.mark.parametrize("moment", ["ended1", "ended2"])
def test_dom_shows_the_msgs(run: dict[str, Any], moment: str) -> None:
    dom, texts = run[moment]["dom"], run[moment]["seen"]["texts"]
    assert dom["state"] == "ended" and dom["again"]
    assert len(dom["replies"]) == len(texts)
    for shown_reply, text in zip(dom["replies"], texts, strict=True):
        msg = json.loads(text)
        assert shown_reply["id"] == msg["id"] and not shown_reply["confirm"]
        assert [(b["type"], b["id"]) for b in shown_reply["blocks"]] == [(b["type"], b["id"]) for b in msg["content"]]
        for shown, block in zip(shown_reply["blocks"], msg["content"], strict=True):
            if block["type"] in ("text", "thinking"):
                assert shown["text"] == block[block["type"]]
            elif block["type"] == "tool_call":
                arguments = json.loads(block["input"])
                assert shown["args"] == {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
            elif block["type"] == "tool_result":
                output = block["output"]
                assert shown["text"] == (output if isinstance(output, str) else "".join(
                    part["text"] for part in output if part["type"] == "text"))
                assert shown["state"] == block["state"]
            elif block["type"] == "data":
                png = base64.b64decode(block["source"]["data"])
                width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # IHDR
                assert shown["image"] == {"width": width, "height": height, "complete": True}


def test_tool_call_arguments_fill_in_as_they_stream(run: dict[str, Any]) -> None:
    """The second reply's call, which streamed with no reload (the first page was reloaded mid-reply)."""
    msg = json.loads(run["parked2"]["seen"]["texts"][1])
    views = run["toolCallViews"][msg["id"]]
    call = next(b for b in msg["content"] if b["type"] == "tool_call")
    final = json.loads(call["input"])
    assert views[-1] == final
    assert len(views) >= 8  # one redraw per delta, roughly: the recorded call has 15
    for view in views:  # each a prefix of the final arguments: keys in order, strings growing
        assert list(view) == list(final)[:len(view)]
        assert all(final[key].startswith(value) for key, value in view.items())
