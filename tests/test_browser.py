"""``python -m wire demo --web`` in a real browser: Debian's chromium, headless,
driven by playwright-core (tests/browser/drive.mjs). One page follows the
recorded reply to its end, another is reloaded mid-reply and resumes from a
checkpoint; both must end with the server's Msg and show it in the DOM:
thinking, text, the tool call's arguments (filled in as they streamed), its
result and the image.

Skipped without chromium, node or ``npm ci`` in tests/browser/, unless
WIRE_REQUIRE_BROWSER=1 (as .ci/run sets it), where that is a failure."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import pytest

import wire
from tests.helpers import ROOT, needs_npm, require_npm

BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("WIRE_CHROMIUM", "/usr/bin/chromium")
EVENTS = wire.json.decode_events(files("wire").joinpath("data", "demo-reply.jsonl").read_bytes())

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
    """The demo as a user starts it, on a free port."""
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
    return seen


def server_msg(url: str, reply: str) -> Any:
    return httpx.get(f"{url}replies/{reply}/msg", timeout=10).json()


def test_whole_reply(run: dict[str, Any], demo_url: str) -> None:
    assert run["errors"] == []
    whole = run["whole"]
    assert whole["error"] is None
    assert (whole["events"], whole["checkpoints"], whole["connections"]) == (len(EVENTS), 0, 1)
    assert whole["msg"] == server_msg(demo_url, "reply-1")
    assert whole["msg"]["finished_reason"] == "completed"
    assert run["screenshot"].stat().st_size > 10_000


def test_reload_mid_reply_resumes_with_a_checkpoint(run: dict[str, Any], demo_url: str) -> None:
    before, reloaded = run["beforeReload"], run["reloaded"]
    assert not before["done"] and 0 < before["events"] < len(EVENTS)
    assert json.loads(before["stored"])["lastEventId"]  # what the page kept to resume with
    assert reloaded["error"] is None
    assert reloaded["checkpoints"] == 1
    assert reloaded["events"] < len(EVENTS)  # a checkpoint and the rest, not the whole reply again
    assert reloaded["msg"] == server_msg(demo_url, "reply-2")
    assert reloaded["msg"] == run["whole"]["msg"]  # the same Msg as the page that never reloaded


@pytest.mark.parametrize("page", ["whole", "reloaded"])
def test_dom_shows_the_msg(run: dict[str, Any], page: str) -> None:
    msg, dom = run[page]["msg"], run[page]["dom"]
    assert dom["state"] == "done"
    assert [(b["type"], b["id"]) for b in dom["blocks"]] == [(b["type"], b["id"]) for b in msg["content"]]
    for shown, block in zip(dom["blocks"], msg["content"], strict=True):
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
            width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # the IHDR chunk
            assert shown["image"] == {"width": width, "height": height, "complete": True}
    assert {b["type"] for b in dom["blocks"]} >= {"thinking", "text", "tool_call", "tool_result", "data"}


def test_tool_call_arguments_fill_in_as_they_stream(run: dict[str, Any]) -> None:
    views = run["whole"]["toolCallViews"]
    call = next(b for b in run["whole"]["msg"]["content"] if b["type"] == "tool_call")
    final = json.loads(call["input"])
    assert views[-1] == final
    assert len(views) >= 8  # one redraw per delta, roughly: the recorded call has 15
    for view in views:  # each a prefix of the final arguments: keys in order, strings growing
        assert list(view) == list(final)[:len(view)]
        assert all(final[key].startswith(value) for key, value in view.items())
