"""The one serving path (wire.transports.http) over a real uvicorn on
127.0.0.1, read with httpx, for both stores (an EventLog, and a
RedisEventLog on the test redis-server): 404 for no log, 413 for a body past
the limit (with and without Content-Length), 400 naming the JSON path for
agui_endpoint's bad bodies, 503 when find_log's store fails, the cursor from
``?after=`` or ``Last-Event-ID``, NDJSON streamed and resumed by checkpoint,
and find_log sync or async."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

import wire
from tests.helpers import REPLY, initial_msg, serve_asgi, text_reply
from tests.redis_server import RedisServer, connect, redis_server
from wire.bridges.agui import RunInput
from wire.bridges.agui_http import agui_endpoint
from wire.errors import StoreError
from wire.framing import NDJSONDecoder, SSEDecoder
from wire.resume import CHECKPOINT, Conversation
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.client import Follower
from wire.transports.http import ndjson_endpoint, sse_endpoint

__all__ = ("redis_server",)  # the fixture, imported to be used here

LIMIT = 1000  # the agui endpoints' body limit here
EVENTS = text_reply(40)
_names = itertools.count()


class Served:
    """The logs one app serves, by name, in one of the two stores. Logs are
    written before they are read (closed, or bounded), from the test's
    thread; the app looks them up on uvicorn's loop."""

    def __init__(self, store: str, server: RedisServer | None) -> None:
        self.store = store
        self.server = server
        self.memory: dict[str, EventLog] = {}
        self.keys: dict[str, str] = {}
        self.client: Any = None  # the app's Redis client, made in its lifespan
        self.asked: list[tuple[Any, ...]] = []
        """What find_log was given after the request, by each call."""

    def write(self, events: list[wire.AgentEvent], *, keep: int | None = None, close: bool = True) -> tuple[
            str, list[str]]:
        """A new log holding ``events`` (keeping about ``keep``): its name and entry ids."""
        name = f"log{next(_names)}"

        async def memory() -> list[str]:
            log = self.memory[name] = EventLog(initial_msg(), max_events=keep)
            ids = await log.extend(events)
            if close:
                await log.close()
            return ids

        async def redis() -> list[str]:
            from wire.stores.redis import RedisEventLog

            assert self.server is not None
            key = self.keys[name] = f"http:{name}:{self.server.port}"
            async with connect(self.server) as client:
                log = RedisEventLog(client, key, msg=initial_msg(), max_len=keep)
                await log.delete()
                ids = await log.extend(events)
                if close:
                    await log.close()
                return ids

        return name, anyio.run(memory if self.store == "memory" else redis)

    def find(self, request: Request, *args: Any) -> EventStore | None:
        self.asked.append(args)
        name = request.path_params["name"]
        if self.store == "memory":
            return self.memory.get(name)
        from wire.stores.redis import RedisEventLog

        return RedisEventLog(self.client, self.keys[name]) if name in self.keys else None

    async def find_async(self, request: Request, *args: Any) -> EventStore | None:
        await anyio.sleep(0)
        return self.find(request, *args)

    def app(self) -> Starlette:
        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            if self.store == "redis":
                import redis.asyncio as aioredis

                assert self.server is not None
                self.client = aioredis.Redis.from_url(self.server.url)
                yield
                await self.client.aclose()
            else:
                yield

        def failing(request: Request, *_: Any) -> EventStore | None:
            raise StoreError("the store is down", key=f"failing:{request.path_params['name']}")

        async def failing_async(request: Request, *args: Any) -> EventStore | None:
            await anyio.sleep(0)
            return failing(request, *args)

        def routes(prefix: str, find: Callable[..., EventStore | Awaitable[EventStore | None] | None]) -> list[Route]:
            return [Route(f"/{prefix}/sse/{{name}}", sse_endpoint(find, heartbeat=None)),
                    Route(f"/{prefix}/replay/{{name}}", sse_endpoint(find, resume="replay", heartbeat=None)),
                    Route(f"/{prefix}/ndjson/{{name}}", ndjson_endpoint(find, heartbeat=None)),
                    Route(f"/{prefix}/agui/{{name}}", agui_endpoint(find, heartbeat=None, body_limit=LIMIT),
                          methods=["POST"]),
                    Route(f"/{prefix}/agui-1m/{{name}}", agui_endpoint(find, heartbeat=None), methods=["POST"])]

        return Starlette(lifespan=lifespan, routes=[
            *routes("sync", self.find), *routes("async", self.find_async),
            *routes("failing", failing), *routes("failing-async", failing_async)])


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, Served]]:
    """uvicorn serving one store's logs: the base URL and the logs."""
    server = None
    if request.param == "redis":
        pytest.importorskip("redis.asyncio")
        server = request.getfixturevalue("redis_server")
    logs = Served(request.param, server)
    with serve_asgi(logs.app()) as url:
        yield url, logs


FINDS = ["sync", "async"]


def sse(response: httpx.Response) -> tuple[list[Any], list[str]]:
    """The events of an SSE body, and each frame's id."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    decoder: SSEDecoder[Any] = SSEDecoder()
    events = decoder.feed(response.content) + decoder.close()
    ids = [line[4:] for line in response.text.split("\n") if line.startswith("id: ")]
    return events, ids


def rebuilt(events: list[Any], had: Sequence[wire.AgentEvent] = ()) -> bytes:
    """The Msg a client that had applied ``had`` builds from ``events``."""
    conversation = Conversation(initial_msg().extend_events(list(had)))
    conversation.extend(events)
    return wire.json.encode(conversation.replies[REPLY])


def is_checkpoint(event: Any) -> bool:
    return type(event) is wire.CustomEvent and event.name == CHECKPOINT


EXPECTED = wire.json.encode(initial_msg().extend_events(EVENTS))


# -- 404, 503 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("find", FINDS)
def test_no_such_log_is_404(served: tuple[str, Served], find: str) -> None:
    base, _ = served
    for route in ("sse", "replay", "ndjson"):
        response = httpx.get(f"{base}/{find}/{route}/nobody", timeout=10)
        assert (response.status_code, response.text) == (404, "no such log")
    assert httpx.post(f"{base}/{find}/agui/nobody", json={}, timeout=10).status_code == 404


@pytest.mark.parametrize("find", ["failing", "failing-async"])
def test_a_store_that_fails_in_find_log_is_503(served: tuple[str, Served], find: str) -> None:
    base, _ = served
    for route in ("sse", "replay", "ndjson"):
        response = httpx.get(f"{base}/{find}/{route}/x", timeout=10)
        assert response.status_code == 503 and "failing:x: the store is down" in response.text
    response = httpx.post(f"{base}/{find}/agui/x", json={"threadId": "t"}, timeout=10)
    assert response.status_code == 503 and "the store is down" in response.text


# -- request bodies ------------------------------------------------------------------------------------


@pytest.mark.parametrize("find", FINDS)
def test_a_body_past_the_limit_is_413_declared_or_not(served: tuple[str, Served], find: str) -> None:
    base, logs = served
    name, _ = logs.write(EVENTS)
    url = f"{base}/{find}/agui/{name}"
    body = b'{"threadId": "' + b"x" * LIMIT + b'"}'
    declared = httpx.post(url, content=body, timeout=10)
    assert declared.request.headers["content-length"] == str(len(body))
    assert declared.status_code == 413 and str(LIMIT) in declared.text
    # Chunked: no Content-Length, so the limit is found while reading.
    undeclared = httpx.post(url, content=iter([body[:600], body[600:]]), timeout=10)
    assert "content-length" not in undeclared.request.headers
    assert undeclared.request.headers["transfer-encoding"] == "chunked"
    assert undeclared.status_code == 413 and str(LIMIT) in undeclared.text
    # At the limit exactly, the body is read and served.
    fits = b'{"threadId": "' + b"x" * (LIMIT - 16) + b'"}'
    assert len(fits) == LIMIT
    assert httpx.post(url, content=fits, timeout=10).status_code == 200


@pytest.mark.parametrize(("body", "where"), [
    (b"[" * 100000, "(at $)"),
    (b'{"state": ' + b"[" * 100000 + b"]" * 100000 + b"}", "nesting too deep"),
    (b'{"resume": 5}', "(at $.resume)"),
    (b'{"messages": 5}', "(at $.messages)"),
    (b'{"threadId": {"a": 1}}', "(at $.threadId)"),
    (b'{"resume": [{"interruptId": 5}]}', "(at $.resume[0].interruptId)"),
    (b'{"threadId": "t"', "truncated"),
    (b"\xff", "(byte 0)"),
    (b'{"threadId": "\xff"}', "invalid UTF-8"),
])
@pytest.mark.parametrize("find", FINDS)
def test_a_bad_agui_body_is_400_naming_where(served: tuple[str, Served], find: str, body: bytes, where: str) -> None:
    base, logs = served
    name, _ = logs.write(EVENTS[:3])
    response = httpx.post(f"{base}/{find}/agui-1m/{name}", content=body, timeout=10)  # the default limit, 1 MiB
    assert response.status_code == 400
    assert response.text.startswith("the request body is not valid: ") and where in response.text


def test_invalid_utf8_in_a_string_names_its_byte_offset(served: tuple[str, Served]) -> None:
    base, logs = served
    name, _ = logs.write(EVENTS[:3])
    response = httpx.post(f"{base}/sync/agui/{name}", content=b'{"threadId": "\xff"}', timeout=10)
    assert response.status_code == 400 and "(byte 14)" in response.text


@pytest.mark.parametrize("find", FINDS)
def test_a_good_agui_body_reaches_find_log_parsed(served: tuple[str, Served], find: str) -> None:
    base, logs = served
    name, ids = logs.write(EVENTS)
    response = httpx.post(f"{base}/{find}/agui/{name}", json={"threadId": "t-1", "runId": "r", "messages": [],
                                                               "state": {}, "tools": []}, timeout=10)
    assert response.status_code == 200 and response.headers["cache-control"] == "no-cache"
    frames = [line for line in response.text.split("\n") if line.startswith("data: ")]
    assert '"threadId":"t-1"' in frames[0] and '"RUN_FINISHED"' in frames[-1]
    assert f"id: {ids[-1]}\n" in response.text  # each frame carries its entry's id
    [run_input] = logs.asked[-1]
    assert type(run_input) is RunInput and (run_input.thread_id, run_input.run_id) == ("t-1", "r")


# -- cursors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("find", FINDS)
def test_after_and_last_event_id_both_resume(served: tuple[str, Served], find: str) -> None:
    base, logs = served
    name, ids = logs.write(EVENTS)
    whole, frame_ids = sse(httpx.get(f"{base}/{find}/replay/{name}", timeout=10))
    assert whole == EVENTS and frame_ids == ids
    for k in (0, 17, len(ids) - 2):
        by_query = httpx.get(f"{base}/{find}/replay/{name}", params={"after": ids[k]}, timeout=10)
        by_header = httpx.get(f"{base}/{find}/replay/{name}", headers={"Last-Event-ID": ids[k]}, timeout=10)
        assert by_query.content == by_header.content
        assert sse(by_query) == (EVENTS[k + 1:], ids[k + 1:])
        # Resumed by checkpoint: the Msg so far, then what follows it; the exact Msg either way.
        for params, headers in (({"after": ids[k]}, {}), ({}, {"Last-Event-ID": ids[k]})):
            events, _ = sse(httpx.get(f"{base}/{find}/sse/{name}", params=params, headers=headers, timeout=10))
            assert is_checkpoint(events[0])
            assert rebuilt(events, EVENTS[:k + 1]) == EXPECTED
    # Both given: Last-Event-ID (what a browser's EventSource sends) wins.
    both = httpx.get(f"{base}/{find}/replay/{name}", params={"after": ids[3]},
                     headers={"Last-Event-ID": ids[20]}, timeout=10)
    assert sse(both)[0] == EVENTS[21:]
    # An empty cursor is no cursor.
    assert sse(httpx.get(f"{base}/{find}/sse/{name}", params={"after": ""}, timeout=10))[0] == EVENTS


# -- NDJSON ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("find", FINDS)
def test_ndjson_streams_and_resumes_by_checkpoint(served: tuple[str, Served], find: str) -> None:
    base, logs = served
    name, ids = logs.write(EVENTS)
    response = httpx.get(f"{base}/{find}/ndjson/{name}", timeout=10)
    assert response.status_code == 200 and response.headers["content-type"] == "application/x-ndjson"
    assert (response.headers["cache-control"], response.headers["x-accel-buffering"]) == ("no-cache", "no")
    decoder = NDJSONDecoder()
    assert decoder.feed(response.content) + decoder.close() == EVENTS
    for params, headers in (({"after": ids[9]}, {}), ({}, {"Last-Event-ID": ids[9]})):
        resumed = httpx.get(f"{base}/{find}/ndjson/{name}", params=params, headers=headers, timeout=10)
        decoder = NDJSONDecoder()
        events = decoder.feed(resumed.content) + decoder.close()
        assert is_checkpoint(events[0]) and rebuilt(events, EVENTS[:10]) == EXPECTED


@pytest.mark.parametrize("find", FINDS)
def test_ndjson_of_a_log_that_kept_only_its_tail_starts_with_a_checkpoint(served: tuple[str, Served],
                                                                           find: str) -> None:
    base, logs = served
    name, _ = logs.write(EVENTS, keep=6)
    decoder = NDJSONDecoder()
    events = decoder.feed(httpx.get(f"{base}/{find}/ndjson/{name}", timeout=10).content) + decoder.close()
    assert is_checkpoint(events[0]) and len(events) < len(EVENTS)
    assert rebuilt(events) == EXPECTED


@pytest.mark.parametrize("find", FINDS)
def test_ndjson_follows_a_live_log_with_blank_line_heartbeats_skipped(served: tuple[str, Served],
                                                                      find: str) -> None:
    """A log still open: the body streams what it has and stays open (read
    here with a timeout on the first chunk only)."""
    base, logs = served
    name, _ = logs.write(EVENTS[:5], close=False)
    with httpx.stream("GET", f"{base}/{find}/ndjson/{name}", timeout=10) as response:
        first = next(response.iter_bytes())
    decoder = NDJSONDecoder()
    assert decoder.feed(first) == EVENTS[:5]


# -- the end of a closed log ------------------------------------------------------------------------


@pytest.mark.parametrize("find", FINDS)
def test_a_reader_at_the_end_of_a_closed_log_gets_204(served: tuple[str, Served], find: str) -> None:
    """204 No Content, which stops a browser's EventSource: an empty 200
    has it reconnect for ever. A reader before the end still gets the rest,
    then the body ends."""
    base, logs = served
    name, ids = logs.write(EVENTS)
    for route in ("sse", "replay", "ndjson"):
        url = f"{base}/{find}/{route}/{name}"
        for params, headers in (({"after": ids[-1]}, {}), ({}, {"Last-Event-ID": ids[-1]})):
            response = httpx.get(url, params=params, headers=headers, timeout=10)
            assert (response.status_code, response.content) == (204, b""), (route, response.text[:200])
        rest = httpx.get(url, headers={"Last-Event-ID": ids[-2]}, timeout=10)
        assert rest.status_code == 200 and rest.content, route  # the last event, or a checkpoint of the reply
        if route == "replay":
            assert sse(rest) == ([EVENTS[-1]], [ids[-1]])
        assert httpx.get(url, timeout=10).status_code == 200
    # A session closed before it had an event: nothing for a new reader either.
    empty, _ = logs.write([])
    for route in ("sse", "ndjson"):
        assert httpx.get(f"{base}/{find}/{route}/{empty}", timeout=10).status_code == 204

    # The Python client takes 204 as the end of the session, as it takes the
    # end of a body: reading on after the end is no error.
    async def follow() -> tuple[Follower, Follower]:
        follower = Follower(f"{base}/{find}/sse/{name}")
        await follower.run()
        assert await follower.run() is follower.conversation
        late = Follower(f"{base}/{find}/sse/{name}", after=ids[-1], cursor="query")
        await late.run()
        return follower, late

    follower, late = anyio.run(follow)
    whole = Conversation()
    whole.extend(EVENTS)
    assert wire.json.encode(follower.conversation.replies[REPLY]) == wire.json.encode(whole.replies[REPLY])
    assert (follower.connections, follower.closed, follower.last_event_id) == (2, True, ids[-1])
    assert (late.connections, late.closed, late.conversation.replies) == (1, True, {})


@pytest.mark.parametrize("find", FINDS)
def test_a_reader_at_the_end_of_an_open_log_gets_its_headers_at_once(served: tuple[str, Served],
                                                                      find: str) -> None:
    """Nothing more in the log yet, and it is open: the response starts
    (200, a live body) without waiting for the next event."""
    base, logs = served
    name, ids = logs.write(EVENTS[:5], close=False)
    for route in ("sse", "ndjson"):
        with httpx.stream("GET", f"{base}/{find}/{route}/{name}", headers={"Last-Event-ID": ids[-1]},
                          timeout=10) as response:
            assert response.status_code == 200, route
