"""A browser's own ``EventSource`` stops at the end of a closed session: the
page reads ``sse_endpoint`` in Debian's chromium (headless, driven by
playwright-core: tests/browser/event_source.mjs), gets every event, and when
the body ends it reconnects with ``Last-Event-ID`` as the standard says; the
204 that reconnect gets closes the EventSource for good. (An empty 200 had
it reconnect every few seconds for ever: the driver then waits in vain.)

Skipped like tests/test_browser.py without chromium (a failure when
WIRE_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

import wire
from tests.helpers import ROOT, needs_npm, require_npm, serve_asgi
from wire.stores.memory import EventLog
from wire.transports.http import sse_endpoint

BROWSER = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("WIRE_CHROMIUM", "/usr/bin/chromium")
_HAS_CHROMIUM = Path(CHROMIUM).is_file()
if not _HAS_CHROMIUM and os.environ.get("WIRE_REQUIRE_BROWSER") == "1":
    raise RuntimeError(f"the browser test needs chromium ({CHROMIUM}; WIRE_CHROMIUM names another)")
pytestmark = [pytest.mark.skipif(not _HAS_CHROMIUM, reason=f"needs chromium ({CHROMIUM})"),
              needs_npm("tests/browser")]

PAGE = """<!doctype html><title>EventSource</title><body>
<script>
window.seen = { types: [], opened: 0, failures: 0, lastEventId: "" };
const source = new EventSource("/sessions/s1/stream");
source.onopen = () => { window.seen.opened++; };
source.onmessage = (event) => {
  window.seen.types.push(JSON.parse(event.data).type);
  window.seen.lastEventId = event.lastEventId;
};
source.onerror = () => {
  window.seen.failures++;
  if (source.readyState === EventSource.CLOSED) document.body.dataset.state = "closed";
};
</script>
"""


def test_event_source_stops_at_the_end_of_a_closed_session(tmp_path: Path) -> None:
    log = EventLog()
    events: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(session_id="s1", reply_id="r1", name="Friday"),
        wire.TextBlockStartEvent(reply_id="r1", block_id="t"),
        wire.TextBlockDeltaEvent(reply_id="r1", block_id="t", delta="hello"),
        wire.TextBlockEndEvent(reply_id="r1", block_id="t"),
        wire.ReplyEndEvent(session_id="s1", reply_id="r1")]
    ids = anyio.run(log.extend, events)
    anyio.run(log.close)
    stream = sse_endpoint(lambda request: log, heartbeat=None)
    answered: list[tuple[str | None, int]] = []

    async def counted(request: Request) -> Response:
        response = await stream(request)
        answered.append((request.headers.get("last-event-id"), response.status_code))
        return response

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    app = Starlette(routes=[Route("/", page), Route("/sessions/{session_id}/stream", counted)])
    node = require_npm("tests/browser")
    with serve_asgi(app) as url:
        result = subprocess.run([node, str(BROWSER / "event_source.mjs"), f"{url}/", str(tmp_path / "user-data"),
                                 CHROMIUM], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["errors"] == [] and seen["failures"] == 2  # the end of the body, then the 204
    assert seen["types"] == [event.type for event in events] and seen["lastEventId"] == ids[-1]
    assert seen["opened"] == 1
    assert answered == [(None, 200), (ids[-1], 204)]
