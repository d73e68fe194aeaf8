"""Real sockets on 127.0.0.1: a 24,800-event reply over anyio TCP in each
framing, and SSE from Starlette under uvicorn, read with httpx, dropped
mid-reply and resumed with Last-Event-ID."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Iterator

import anyio
import httpx
import pytest
from anyio.abc import SocketAttribute, SocketStream
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import wire
from benchmarks import workload
from tests.helpers import serve_asgi
from wire.framing import FRAMINGS, NDJSONDecoder, SSEDecoder
from wire.resume import read_checkpoint
from wire.stores.memory import EventLog
from wire.transports.http import ndjson_endpoint, sse_endpoint
from wire.transports.streams import EventReceiveStream, EventSendStream, iter_events

EVENTS = workload.reply_events(seed=0)


@pytest.fixture(scope="module")
def expected() -> wire.Msg:
    return workload.initial_msg().extend_events(EVENTS)


# -- anyio TCP ---------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("framing", FRAMINGS)
async def test_tcp_reply_round_trip(framing: str, expected: wire.Msg) -> None:
    """The client sends the reply, the server rebuilds the Msg and sends
    every event back, the client rebuilds it too: all three Msgs are equal."""
    assert len(EVENTS) == 24_800
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    server_msg = workload.initial_msg()

    async def serve(connection: SocketStream) -> None:
        async with connection:
            inbound = EventReceiveStream(connection, decoder_type())
            received = []
            while True:
                try:
                    batch = await inbound.receive_batch()
                except anyio.EndOfStream:
                    break
                server_msg.extend_events(batch)
                received += batch
            outbound = EventSendStream(connection, encoder_type())
            for i in range(0, len(received), 1000):  # bursts, as a replay sends them
                await outbound.send_batch(received[i:i + 1000])

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        async with await anyio.connect_tcp("127.0.0.1", port) as connection:
            outbound = EventSendStream(connection, encoder_type())
            for event in EVENTS[:500]:  # one frame per write, as a live producer sends them
                await outbound.send(event)
            await outbound.send_batch(EVENTS[500:])
            await connection.send_eof()
            client_msg = workload.initial_msg()
            async for event in EventReceiveStream(connection, decoder_type()):
                client_msg.append_event(event)
        tg.cancel_scope.cancel()
    assert server_msg == expected
    assert client_msg == expected
    assert wire.json.encode(client_msg) == wire.json.encode(expected)
    assert not client_msg.anomalies


# -- Starlette + uvicorn + httpx -------------------------------------------------------------


class Replies:
    """The server's side: one EventLog per reply, fed by a producer task on
    the server's event loop. Each producer sends the first half of the reply,
    waits until the test says its client has dropped, then sends the rest
    (so that the drop is always mid-reply and the resume catches up live)."""

    def __init__(self) -> None:
        self.logs: dict[str, EventLog] = {}
        self.dropped: dict[str, threading.Event] = {}
        self.task_group: anyio.abc.TaskGroup | None = None

    async def produce(self, log: EventLog, dropped: threading.Event) -> None:
        half = len(EVENTS) // 2
        for i in range(0, half, 500):
            await log.extend(EVENTS[i:min(i + 500, half)])
            await anyio.sleep(0)
        while not dropped.is_set():
            await anyio.sleep(0.002)
        for i in range(half, len(EVENTS), 500):
            await log.extend(EVENTS[i:i + 500])
            await anyio.sleep(0.001)
        await log.close()

    async def start(self, request: Request) -> Response:
        name = request.path_params["name"]
        log = self.logs[name] = EventLog(workload.initial_msg())
        dropped = self.dropped[name] = threading.Event()
        assert self.task_group is not None
        self.task_group.start_soon(self.produce, log, dropped)
        return Response(status_code=201)

    def log(self, request: Request) -> EventLog | None:
        return self.logs.get(request.path_params["name"])

    def app(self) -> Starlette:
        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with anyio.create_task_group() as tg:
                self.task_group = tg
                yield
                tg.cancel_scope.cancel()

        return Starlette(routes=[
            Route("/replies/{name}", self.start, methods=["POST"]),
            Route("/replies/{name}/events", sse_endpoint(self.log)),
            Route("/replies/{name}/replay", sse_endpoint(self.log, resume="replay")),
            Route("/replies/{name}/ndjson", ndjson_endpoint(self.log)),
        ], lifespan=lifespan)


# Dropping a connection mid-body closes httpx's aiter_bytes, but not the
# httpcore generators beneath it; trio reports those when they are collected.
# That is httpx's to fix; wire closes what it was given (see iter_events).
httpx_leftovers = pytest.mark.filterwarnings(
    "ignore:Async generator 'httpcore.:ResourceWarning",
    "ignore:Async generator 'httpx.:ResourceWarning",
)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Replies]]:
    """uvicorn on a real socket, 127.0.0.1 and a port the OS picks, in a thread."""
    replies = Replies()
    with serve_asgi(replies.app()) as url:
        yield url, replies


@pytest.mark.anyio
@httpx_leftovers
@pytest.mark.parametrize("drop_after", [1, 5000, 12_399])
async def test_sse_drop_and_resume_with_a_checkpoint(server: tuple[str, Replies], anyio_backend: str,
                                                     drop_after: int, expected: wire.Msg) -> None:
    base, replies = server
    name = f"checkpoint-{anyio_backend}-{drop_after}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        assert (await client.post(f"/replies/{name}")).status_code == 201
        msg = workload.initial_msg()
        decoder = SSEDecoder()
        async with client.stream("GET", f"/replies/{name}/events") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            assert response.headers["cache-control"] == "no-cache"
            seen = 0
            received = iter_events(response.aiter_bytes(), decoder)
            assert isinstance(received, AsyncGenerator)  # closed on the way out, as the connection is
            async with contextlib.aclosing(received) as events:
                async for event in events:
                    msg.append_event(event)
                    seen += 1
                    if seen == drop_after:
                        break  # drop the connection mid-reply, mid-chunk even
        replies.dropped[name].set()
        assert not replies.logs[name].closed  # the reply was still going on
        assert decoder.last_event_id

        # A new connection needs a new decoder: the old one may hold half a frame.
        decoder = SSEDecoder(last_event_id=decoder.last_event_id)
        checkpoints = 0
        async with client.stream("GET", f"/replies/{name}/events",
                                 headers={"Last-Event-ID": decoder.last_event_id}) as response:
            async for event in iter_events(response.aiter_bytes(), decoder):
                snapshot = read_checkpoint(event)
                if snapshot is not None:
                    msg = snapshot
                    checkpoints += 1
                else:
                    msg.append_event(event)
        assert checkpoints == 1
        assert decoder.last_event_id == f"{replies.logs[name].epoch}-{len(EVENTS) - 1}"
    assert msg == expected
    assert msg.get_text_content() == expected.get_text_content()  # no text lost or doubled
    assert wire.json.encode(msg) == wire.json.encode(expected)


@pytest.mark.anyio
@httpx_leftovers
async def test_sse_drop_and_resume_by_replay(server: tuple[str, Replies], anyio_backend: str,
                                             expected: wire.Msg) -> None:
    """Plain SSE resume: the events after Last-Event-ID. The client applies
    every event of each chunk before dropping, so its id is exact."""
    base, replies = server
    name = f"replay-{anyio_backend}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        await client.post(f"/replies/{name}")
        msg = workload.initial_msg()
        decoder = SSEDecoder()
        async with client.stream("GET", f"/replies/{name}/replay") as response:
            async for chunk in response.aiter_bytes():
                msg.extend_events(decoder.feed(chunk))
                if decoder.frames >= 3000:
                    break
        replies.dropped[name].set()
        received = decoder.frames
        decoder = SSEDecoder(last_event_id=decoder.last_event_id)
        async with client.stream("GET", f"/replies/{name}/replay",
                                 headers={"Last-Event-ID": decoder.last_event_id}) as response:
            async for chunk in response.aiter_bytes():
                msg.extend_events(decoder.feed(chunk))
        assert decoder.close() == []
        assert received + decoder.frames == len(EVENTS)
        # An NDJSON reader of the same log, after the fact, gets every event.
        async with client.stream("GET", f"/replies/{name}/ndjson") as response:
            assert response.headers["content-type"] == "application/x-ndjson"
            ndjson = [e async for e in iter_events(response.aiter_bytes(), NDJSONDecoder())]
        assert (await client.get("/replies/nope/events")).status_code == 404
    assert msg == expected
    assert ndjson == EVENTS
