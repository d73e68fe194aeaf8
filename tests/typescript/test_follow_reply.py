"""The runtime's resuming client (schemas/src/client.ts, ``followReply``)
in node against a real ``wire.transports.http.sse_endpoint`` served by uvicorn on
127.0.0.1: a whole reply, connections dropped mid-reply (the socket closed
mid-body, or the body ended early) and resumed with Last-Event-ID, by
checkpoint and by replay; the Msg node ends with must be the server's.

Needs node and the built runtime (``npm run build`` in schemas/), as CI has."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from importlib.resources import files
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import wire
from tests.helpers import ROOT, expect, needs_npm, require_npm, serve_asgi
from wire.stores.memory import EventLog
from wire.transports.http import sse_endpoint

SCRIPT = ROOT / "tests" / "ts" / "follow-reply.mjs"
EVENTS = wire.json.decode_events(files("wire").joinpath("data", "demo-reply.jsonl").read_bytes())
START = expect(wire.ReplyStartEvent, EVENTS[0])

pytestmark = needs_npm("schemas")


class DropFirstConnection:
    """ASGI middleware: the first GET of a reply whose name says ``reset`` or
    ``eof`` loses its connection after ``after`` body chunks (one event each,
    as the log streams them live). ``reset``: the app returns mid-body, so
    uvicorn closes the socket inside the chunked body, as a network drop
    does; ``eof``: the body ends cleanly, as a proxy's timeout ends it."""

    def __init__(self, app: ASGIApp, after: int) -> None:
        self.app = app
        self.after = after
        self.dropped: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        mode = "reset" if "reset" in path else "eof" if "eof" in path else None
        if scope["type"] != "http" or scope["method"] != "GET" or mode is None or path in self.dropped:
            await self.app(scope, receive, send)
            return
        self.dropped.add(path)
        chunks = 0

        async def cut(message: Message) -> None:
            nonlocal chunks
            if message["type"] == "http.response.body" and message.get("body"):
                chunks += 1
                if chunks > self.after:
                    if mode == "eof":
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                    raise _Dropped
            await send(message)

        with contextlib.suppress(_Dropped):
            await self.app(scope, receive, cut)


class _Dropped(Exception):
    pass


def make_app(pace: float) -> Starlette:
    logs: dict[str, EventLog] = {}

    async def produce(log: EventLog) -> None:
        for event in EVENTS:
            await log.append(event)
            await anyio.sleep(pace)
        await log.close()

    async def start(request: Request) -> Response:
        log = logs[request.path_params["name"]] = EventLog(
            wire.AssistantMsg(START.name, [], id=START.reply_id, created_at=START.created_at))
        request.app.state.tasks.start_soon(produce, log)
        return Response(status_code=201)

    async def epoch(request: Request) -> Response:
        """The log's epoch: its entry ids are ``<epoch>-<position>``."""
        return Response(logs[request.path_params["name"]].epoch, media_type="text/plain")

    async def msg(request: Request) -> Response:
        log = logs[request.path_params["name"]]
        while not log.closed:
            await anyio.sleep(0.01)
        return Response(wire.json.encode(log.msg), media_type="application/json")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            app.state.tasks = tasks
            yield
            tasks.cancel_scope.cancel()

    def find(request: Request) -> EventLog | None:
        return logs.get(request.path_params["name"])

    return Starlette(lifespan=lifespan, routes=[
        Route("/replies/{name}", start, methods=["POST"]),
        Route("/replies/{name}/events", sse_endpoint(find)),
        Route("/replies/{name}/replay", sse_endpoint(find, resume="replay")),
        Route("/replies/{name}/msg", msg),
        Route("/replies/{name}/epoch", epoch),
    ])


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """uvicorn on 127.0.0.1, a port the OS picks, in a thread."""
    with serve_asgi(DropFirstConnection(make_app(pace=0.004), after=40), log_level="critical") as url:
        yield url


def follow(url: str, *args: str) -> dict[str, Any]:
    node = require_npm("schemas")
    out = subprocess.run([node, str(SCRIPT), url, *args], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def server_msg(base: str, name: str) -> Any:
    import httpx

    return httpx.get(f"{base}/replies/{name}/msg", timeout=30).json()


def entry_id(base: str, name: str, position: int) -> str:
    """The id the reply ``name``'s log gives its event at ``position``."""
    import httpx

    return f"{httpx.get(f'{base}/replies/{name}/epoch', timeout=30).text}-{position}"


def start(base: str, name: str) -> None:
    import httpx

    assert httpx.post(f"{base}/replies/{name}").status_code == 201


@pytest.mark.parametrize(("name", "route", "checkpoints"), [
    ("whole", "events", 0),
    ("reset-checkpoint", "events", 1),   # the socket closes mid-body; resumed from a checkpoint
    ("eof-checkpoint", "events", 1),     # the body ends early; resumed from a checkpoint
    ("reset-replay", "replay", 0),       # the socket closes mid-body; the events after Last-Event-ID
])
def test_follow_reply_ends_with_the_servers_msg(base: str, name: str, route: str, checkpoints: int) -> None:
    start(base, name)
    seen = follow(f"{base}/replies/{name}/{route}")
    assert "error" not in seen, seen
    dropped = name != "whole"
    assert seen["connections"] == 1 + dropped
    assert len(seen["reconnects"]) == dropped
    if dropped:  # the two kinds of drop reach the client as a socket error and as an early end
        ended_early = seen["reconnects"][0] == "WireError: the stream ended before REPLY_END"
        assert ended_early == name.startswith("eof"), seen["reconnects"]
    assert seen["checkpoints"] == checkpoints
    assert seen["completed"] == 1
    assert seen["types"][-1] == "REPLY_END"
    assert seen["lastEventId"] == entry_id(base, name, len(EVENTS) - 1)
    if route == "replay" or not dropped:
        assert seen["events"] == len(EVENTS)  # every event once: none lost, none twice
    else:
        # 40 body chunks of at least one event each, then the new connection's checkpoint
        assert seen["types"].index("wire.checkpoint") >= 40
    expected = server_msg(base, name)
    assert seen["msg"] == expected
    assert seen["msg"]["finished_reason"] == "completed"


def test_resume_from_a_kept_id_starts_with_a_checkpoint(base: str) -> None:
    """A page reloaded mid-reply passes the id it kept: the first event is a
    checkpoint holding the Msg so far, and the Msg still ends as the server's."""
    start(base, "kept")
    time.sleep(0.2)  # some events are in the log
    seen = follow(f"{base}/replies/kept/events", entry_id(base, "kept", 7))
    assert seen["types"][0] == "wire.checkpoint"
    assert seen["connections"] == 1
    assert seen["msg"] == server_msg(base, "kept")


def test_resume_with_an_id_of_another_log_restarts_from_the_first_event(base: str) -> None:
    """A page kept an id of a log that is gone (the server restarted and made
    the reply's log again): a wire.restart, then the log from its first event."""
    start(base, "stale")
    expected = server_msg(base, "stale")  # waits for the end
    epoch = entry_id(base, "stale", 0).partition("-")[0]
    seen = follow(f"{base}/replies/stale/events", f"{'0' if epoch[0] != '0' else '1'}{epoch[1:]}-7")
    assert "error" not in seen, seen
    assert seen["types"][:2] == ["wire.restart", "REPLY_START"] and seen["types"].count("REPLY_START") == 1
    assert seen["lastEventId"] == entry_id(base, "stale", len(EVENTS) - 1)
    assert seen["msg"] == expected


def test_a_missing_reply_is_an_error_not_a_retry(base: str) -> None:
    seen = follow(f"{base}/replies/nope/events")
    assert seen["error"].startswith("HTTPStatusError: GET") and "answered 404" in seen["error"]
    assert seen["connections"] == 1


def test_close_stops_following(base: str) -> None:
    start(base, "closed")
    seen = follow(f"{base}/replies/closed/events", "", "10")
    assert seen["error"] == "AbortError: followReply closed"
    assert seen["events"] == 10 and seen["completed"] == 0


def test_resume_after_the_end_completes_from_the_checkpoint(base: str) -> None:
    """A page reloaded after REPLY_END (before it forgot the id): the
    checkpoint holds the finished Msg and nothing follows it; that is the end."""
    start(base, "ended")
    expected = server_msg(base, "ended")  # waits for the end
    seen = follow(f"{base}/replies/ended/events", entry_id(base, "ended", 3))
    assert "error" not in seen, seen
    assert seen["types"] == ["wire.checkpoint"]
    assert (seen["connections"], seen["completed"]) == (1, 1)
    assert seen["msg"] == expected


def test_an_error_in_a_callback_rejects_instead_of_reconnecting(base: str) -> None:
    """fetch reports network failures as TypeError; a TypeError thrown by the
    page's own callback must not be taken for one and retried."""
    start(base, "callback-bug")
    seen = follow(f"{base}/replies/callback-bug/events", "", "", "5")
    assert seen["error"] == "TypeError: a bug in the page's callback"
    assert (seen["connections"], seen["reconnects"], seen["events"]) == (1, [], 5)
