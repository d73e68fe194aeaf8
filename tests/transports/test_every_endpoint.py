"""Any store behind any endpoint in front of its real client gives the same
Msg: {a bounded ``EventLog``, a ``RedisEventLog`` trimmed by ``max_len``} x
{``sse_endpoint``, ``ndjson_endpoint``, ``agui_endpoint``, the Vercel
``resume_endpoint``, Vercel's socket (``wire.bridges.vercel_ws``'s
``chat_socket``, a ``resume`` frame), wire's socket (``wire.transports.ws``)
in JSON and MessagePack}, over uvicorn on loopback, for every agentscope
vector longer than the store keeps (so every reader starts from a
checkpoint). A reply's Redis log is trimmed with ``XTRIM MINID`` to its last
entries, as ``max_len`` trims a long one.

wire's own decoders and reducer must build the vector's Msg byte for byte;
``@ag-ui/client``, ai's ``readUIMessageStream`` and an ``AbstractChat`` on
ai's ``WebSocketChatTransport`` (``resumeStream()``) must build it too,
relaxed only at the lossy spots ``wire/bridges/README.md`` lists (the
comparisons in ``tests/bridges/agui_client.py`` and
``tests/bridges/vercel_client.py``). The Vercel socket's chunks are the
resume endpoint's, byte for byte.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.requests import HTTPConnection
from starlette.routing import Route, WebSocketRoute

import wire
from tests.bridges import agui_client, vercel_client
from tests.helpers import CASES, Case, require_npm, serve_asgi
from tests.redis_server import RedisServer, connect, redis_server
from wire.bridges.agui_http import agui_endpoint
from wire.bridges.vercel_http import resume_endpoint
from wire.bridges.vercel_ws import chat_socket
from wire.framing import NDJSONDecoder, SSEDecoder
from wire.resume import read_checkpoint
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.http import ndjson_endpoint, sse_endpoint
from wire.transports.ws import session_socket

__all__ = ("redis_server",)  # the fixture, imported to be used here

KEEP = 4  # entries a store keeps: fewer than every vector below has
LONG = [case for case in CASES if len(case.event_lines) > KEEP]
STORES = ("memory", "redis")


def _events(case: Case) -> list[wire.AgentEvent]:
    return wire.json.decode_events(case.events_jsonl)


def _initial(case: Case) -> wire.Msg:
    return wire.json.decode_msg(case.initial_msg)


def _expected(case: Case) -> wire.Msg:
    """The Msg a reader that never dropped builds: the reply's events applied in order."""
    msg = _initial(case)
    msg.extend_events(_events(case))
    return msg


def _rebuilt(case: Case, events: list[Any]) -> wire.Msg:
    msg = _initial(case)
    for event in events:
        snapshot = read_checkpoint(event)
        if snapshot is not None:
            msg = snapshot
        else:
            msg.append_event(event)
    return msg


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[str]:
    """One app serving every vector from both stores at every endpoint:
    ``/{store}/{vector}/{sse|ndjson|agui|vercel|vercel-socket|socket}``. The logs are written
    (and closed) before the server starts; a Redis log is read through
    another client, as on another replica."""
    memory: dict[str, EventLog] = {}
    whole: dict[str, EventLog] = {}  # untrimmed logs, for readers that rejoin where they left

    async def write() -> None:
        async with connect(redis_server) as client:
            from wire.stores.redis import RedisEventLog

            for case in LONG:
                log = memory[case.name] = EventLog(_initial(case), max_events=KEEP)
                await log.extend(_events(case))
                await log.close()
                log = whole[case.name] = EventLog(_initial(case))
                await log.extend(_events(case))
                await log.close()
                full = RedisEventLog(client, f"matrix-whole:{case.name}", msg=_initial(case))
                await client.delete(full.key, full.checkpoint_key)
                await full.extend(_events(case))
                await full.close()
                key = f"matrix:{case.name}"
                await client.delete(key, f"{{{key}}}:wire.checkpoint")
                producer = RedisEventLog(client, key, msg=_initial(case), max_len=KEEP)
                ids = [await producer.append(event) for event in _events(case)]
                await producer.close()
                # MAXLEN ~ trims whole stream nodes (100 entries by default), which
                # these short replies never fill: trim as a long reply would be.
                await producer.trim(ids[-KEEP])
                assert await client.xlen(key) == KEEP

    asyncio.run(write())
    clients: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with connect(redis_server) as client:
            clients["redis"] = client
            yield

    def find(request: HTTPConnection, *_: Any) -> EventStore | None:
        from wire.stores.redis import RedisEventLog

        name, store = request.path_params["name"], request.path_params["store"]
        if name not in memory:
            return None
        return {"memory": memory.get(name), "memory-whole": whole.get(name),
                "redis": RedisEventLog(clients["redis"], f"matrix:{name}"),
                "redis-whole": RedisEventLog(clients["redis"], f"matrix-whole:{name}")}.get(store)

    routes = [Route("/{store}/{name}/sse", sse_endpoint(find, heartbeat=None)),
              Route("/{store}/{name}/ndjson", ndjson_endpoint(find, heartbeat=None)),
              Route("/{store}/{name}/sse-coalesced", sse_endpoint(find, heartbeat=None, coalesce=True)),
              Route("/{store}/{name}/ndjson-coalesced", ndjson_endpoint(find, heartbeat=None, coalesce=True)),
              Route("/{store}/{name}/agui", agui_endpoint(find, heartbeat=None), methods=["POST"]),
              Route("/{store}/{name}/vercel", resume_endpoint(find, finished=True, heartbeat=None)),
              # Its find_log is asked (websocket, chat): the route's {name} is the session, so a resume
              # frame's id must be the vector's name.
              WebSocketRoute("/{store}/{name}/vercel-socket",
                             chat_socket(find, lambda *_: None, finished=True, session_param="name")),
              WebSocketRoute("/{store}/{name}/socket", session_socket(find, lambda *_: None, session_param="name"))]
    with serve_asgi(Starlette(routes=routes, lifespan=lifespan), ws="websockets-sansio") as url:
        yield url


def _get(url: str) -> bytes:
    response = httpx.get(url, timeout=30)
    assert response.status_code == 200, response.text
    return response.content


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
@pytest.mark.parametrize("framing", ["sse", "ndjson", "sse-coalesced", "ndjson-coalesced"])
def test_wire_reader_builds_the_exact_msg(server: str, store: str, case: Case, framing: str) -> None:
    body = _get(f"{server}/{store}/{case.name}/{framing}")
    decoder: Any = SSEDecoder() if framing.startswith("sse") else NDJSONDecoder()
    events = decoder.feed(body) + decoder.close()
    assert read_checkpoint(events[0]) is not None  # the store kept less than the reply: it starts from one
    assert wire.json.encode(_rebuilt(case, events)) == wire.json.encode(_expected(case))


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
@pytest.mark.parametrize("protocol", ["json", "msgpack"])
def test_socket_client_builds_the_exact_msg(server: str, store: str, case: Case, protocol: str) -> None:
    from wire.transports.ws_client import SessionSocket

    async def read() -> list[Any]:
        events: list[Any] = []
        url = "ws" + server.removeprefix("http") + f"/{store}/{case.name}/socket"
        async with SessionSocket(url, protocol=protocol) as socket:  # type: ignore[arg-type]
            async for batch in socket.batches():
                events += batch
            assert socket.closed  # the server said the log is closed and read to its end
        return events

    events = asyncio.run(read())
    assert read_checkpoint(events[0]) is not None
    assert wire.json.encode(_rebuilt(case, events)) == wire.json.encode(_expected(case))


@agui_client.needs_client
@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
def test_agui_client_builds_the_msg(server: str, store: str, case: Case) -> None:
    report = agui_client.run_client_at(f"{server}/{store}/{case.name}/agui")
    assert agui_client.mismatches(_expected(case), report, from_checkpoint=True) == []


@pytest.fixture(scope="module")
def vercel_reads(server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What ai's readUIMessageStream builds from each served body (one node run for all)."""
    require_npm("tests/clients-vercel")
    tmp: Path = tmp_path_factory.mktemp("vercel-matrix")
    cases = []
    for store in STORES:
        for case in LONG:
            path = tmp / f"{store}-{case.name}.sse"
            path.write_bytes(_get(f"{server}/{store}/{case.name}/vercel"))
            cases.append({"name": f"{store}/{case.name}", "sse": str(path)})
    return {r["name"]: r for r in json.loads(vercel_client.run_client("read", cases, tmp))}


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
def test_vercel_client_builds_the_msg(vercel_reads: dict[str, Any], store: str, case: Case) -> None:
    read = vercel_reads[f"{store}/{case.name}"]["read"]
    expected = json.loads(case.expected_msg)
    vercel_client.compare(read["message"], expected, "readUIMessageStream", vercel_client.late_inputs(_events(case)))


def _ws(server: str) -> str:
    return "ws" + server.removeprefix("http")


@pytest.fixture(scope="module")
def vercel_socket_reads(server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a reloaded ``AbstractChat`` on ai's ``WebSocketChatTransport``
    builds with ``resumeStream()`` from each vector's Vercel socket (one node
    run for all): with ``finished``, the last reply whole."""
    require_npm("tests/clients-vercel")
    cases = [{"name": f"{store}/{case.name}", "url": f"{_ws(server)}/{store}/{case.name}/vercel-socket",
              "chatId": case.name} for store in STORES for case in LONG]
    tmp: Path = tmp_path_factory.mktemp("vercel-socket-matrix")
    return {r["name"]: r for r in json.loads(vercel_client.run_client("resume-socket", cases, tmp))}


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
def test_vercel_socket_client_builds_the_msg(vercel_socket_reads: dict[str, Any], store: str, case: Case) -> None:
    got = vercel_socket_reads[f"{store}/{case.name}"]
    # A reply that ended in an error ends the chat's response with it, as useChat shows it.
    errors = [f"{e.error.type.value}: {e.error.message}" for e in _events(case)
              if isinstance(e, wire.ReplyEndEvent) and e.error is not None]
    assert (got["errors"], got["error"], got["status"]) == (errors, errors[-1] if errors else None,
                                                            "error" if errors else "ready")
    assert got["count"] == 1  # the replayed reply, one assistant message
    assert got["validate"] == "ok"
    expected = json.loads(case.expected_msg)
    vercel_client.compare(got["message"], expected, "WebSocketChatTransport", vercel_client.late_inputs(_events(case)))


class _Frame(msgspec.Struct):
    """A frame the Vercel socket sends; ``chunk`` is the chunk's JSON text as the frame holds it."""

    type: str
    requestId: str
    sequence: int = -1
    chunk: msgspec.Raw = msgspec.Raw()


def _socket_frames(url: str, session: str) -> list[_Frame]:
    """Every frame a ``resume`` of ``session`` gets, up to its ``end`` (or ``error``, ``no-active``)."""
    from websockets.asyncio.client import connect

    async def read() -> list[_Frame]:
        frames: list[_Frame] = []
        async with connect(url, max_size=None) as socket:
            await socket.send(json.dumps({"type": "resume", "requestId": "r1", "id": session}))
            while not frames or frames[-1].type not in ("end", "error", "no-active"):
                data = await asyncio.wait_for(socket.recv(), 30)
                assert isinstance(data, str)  # JSON text frames, as ai's client reads them
                frames.append(msgspec.json.decode(data, type=_Frame))
        return frames

    return asyncio.run(read())


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
def test_vercel_socket_sends_the_resume_endpoints_chunks(server: str, store: str, case: Case) -> None:
    """The chunks of a ``resume`` on the Vercel socket are the ``data:`` payloads of
    the resume endpoint's body, each as the same JSON text, in the same order."""
    frames = _socket_frames(f"{_ws(server)}/{store}/{case.name}/vercel-socket", case.name)
    assert [f.type for f in frames] == ["start", *["chunk"] * (len(frames) - 2), "end"]
    assert {f.requestId for f in frames} == {"r1"}
    chunks = frames[1:-1]
    assert [f.sequence for f in chunks] == list(range(len(chunks)))
    body = _get(f"{server}/{store}/{case.name}/vercel")
    assert body.endswith(b"\n\ndata: [DONE]\n\n")
    lines = body.removesuffix(b"\n\n").split(b"\n\n")
    assert all(line.startswith(b"data: ") for line in lines)
    payloads = [line.removeprefix(b"data: ") for line in lines[:-1]]
    assert [bytes(f.chunk) for f in chunks] == payloads
    kinds = [json.loads(p)["type"] for p in payloads]
    assert (kinds[0], kinds[-1]) == ("start", "finish")  # the reply whole, from its start to its finish


def _frames(body: bytes) -> list[tuple[str, bytes]]:
    """The (id, frame) pairs of an SSE body whose frames each carry an id."""
    frames = []
    for frame in body.split(b"\n\n"):
        if frame.strip():
            lines = frame.split(b"\n")
            frames.append((lines[0].removeprefix(b"id: ").decode(), frame + b"\n\n"))
    return frames


@agui_client.needs_client
@pytest.mark.parametrize("store", ["memory-whole", "redis-whole"])
@pytest.mark.parametrize("case", LONG, ids=[c.name for c in LONG])
def test_agui_client_that_rejoins_with_last_event_id_builds_the_msg(server: str, store: str, case: Case,
                                                                      tmp_path: Path) -> None:
    url = f"{server}/{store}/{case.name}/agui"
    first = _frames(httpx.post(url, json={}, timeout=30).content)
    ids = list(dict.fromkeys(entry_id for entry_id, _ in first))
    cut = ids[len(ids) // 2]  # the connection drops after the frames of the middle entry
    had = b"".join(frame for entry_id, frame in first if ids.index(entry_id) <= ids.index(cut))
    rest = httpx.post(url, json={}, headers={"Last-Event-ID": cut}, timeout=30)
    assert rest.status_code == 200
    # The harness's file mode reads data lines only (as @ag-ui/client's parser does): drop the ids.
    both = b"".join(line + b"\n" for line in (had + rest.content).split(b"\n")[:-1] if not line.startswith(b"id: "))
    report = agui_client.run_client(both, tmp_path)
    # One request is one run: the reply up to its first park (or its end) is what the client has.
    events = _events(case)
    park = next((i for i, e in enumerate(events)
                 if isinstance(e, wire.RequireUserConfirmEvent | wire.RequireExternalExecutionEvent)), len(events))
    first_run = _initial(case).extend_events(events[:park + 1])
    assert agui_client.mismatches(first_run, report) == []
