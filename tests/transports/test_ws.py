"""One WebSocket per conversation (``wire.transports.ws``) in front of its
Python client (``wire.transports.ws_client``), over uvicorn on loopback:
turns and answers sent over the socket, read back to the same bytes as an
SSE reader of the session; sockets dropped mid-reply resumed by entry id;
the protocol's refusals, results and close codes, frame by frame."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

import wire
from tests.helpers import serve_asgi
from tests.raw_ws import Hostile, masked
from tests.transports.chat_app import TEXT_DELTAS, make_app
from wire import json as wire_json
from wire.session import ChatRequest, encode_chat_request
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.chat import confirmation, waiting
from wire.transports.client import Follower, HTTPStatusError
from wire.transports.inputs import Refused
from wire.transports.ws import PROTOCOLS, session_socket

websockets = pytest.importorskip("websockets")
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from wire.transports.ws_client import InputRefused, SessionSocket  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings(
    "ignore:Async generator 'httpcore.:ResourceWarning", "ignore:Async generator 'httpx.:ResourceWarning")]
ALICE = {"x-user-id": "alice"}
FORMATS = ("json", "msgpack")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # websockets' client runs on asyncio


@pytest.fixture(scope="module", params=["websockets-sansio", "wsproto"])
def chat(request: pytest.FixtureRequest) -> Iterator[str]:
    """The chat service (tests/transports/chat_app.py), logs in memory,
    under both of uvicorn's WebSocket implementations."""
    with serve_asgi(make_app(pause=0.002), ws=request.param) as url:
        yield url


def ws_url(base: str, path: str) -> str:
    return "ws" + base.removeprefix("http") + path


async def new_session(base: str) -> str:
    async with httpx.AsyncClient() as http:
        return str((await http.post(f"{base}/sessions", headers=ALICE)).json()["session_id"])


@pytest.mark.parametrize("protocol", FORMATS)
async def test_turns_and_answers_over_one_socket_end_as_an_sse_reader_ends(chat: str, protocol: Any) -> None:
    sid = await new_session(chat)
    async with SessionSocket(ws_url(chat, f"/sessions/{sid}/socket"), headers=ALICE, protocol=protocol) as socket:
        for turn, allow in enumerate((True, False)):
            taken = await socket.send(wire.UserMsg("alice", f"t{turn}"), agent_id="friday", session_id=sid)
            assert taken.status == 200 and taken.entry_id
            parked = (await socket.run(turn=True)).last
            assert parked is not None and waiting(parked).state == "parked"
            answered = await socket.send(confirmation(parked, allow), agent_id="friday", session_id=sid)
            assert answered.entry_id
            ended = (await socket.run(turn=True)).last
            assert ended is not None and waiting(ended).state == "ended"
            assert ("gone" if allow else "alone") in (ended.get_text_content() or "")
        mine = [wire_json.encode(m) for m in socket.conversation.replies.values()]
        assert len(mine) == 2 and socket.connections == 1
    async with httpx.AsyncClient() as http:
        sse = await Follower(f"{chat}/sessions/{sid}/stream", client=http, headers=ALICE).run(turn=True)
    assert [wire_json.encode(m) for m in sse.replies.values()] == mine


@pytest.mark.parametrize("protocol", FORMATS)
async def test_a_socket_dropped_mid_reply_resumes_by_entry_id_to_the_same_bytes(chat: str, protocol: Any) -> None:
    sid = await new_session(chat)
    url = ws_url(chat, f"/sessions/{sid}/socket")
    async with SessionSocket(url, headers=ALICE, protocol=protocol, backoff=0.01) as socket:
        await socket.send(wire.UserMsg("alice", "go"), agent_id="friday", session_id=sid)
        seen = 0
        async for _ in socket.batches(turn=True):
            seen += 1
            if seen % 3 == 0 and socket._ws is not None:  # the connection dies under the client, mid-reply
                socket._ws.transport.abort()
        assert socket.connections > 1
        parked = socket.conversation.last
        assert parked is not None and waiting(parked).state == "parked"
        mine = wire_json.encode(parked)
    async with SessionSocket(url, headers=ALICE, protocol=protocol) as fresh:
        again = (await fresh.run(turn=True)).last
    assert again is not None and wire_json.encode(again) == mine
    assert f"{TEXT_DELTAS - 1} é" in (again.get_text_content() or "")


async def test_a_refused_socket_is_closed_with_1008_and_nothing_is_appended(chat: str) -> None:
    sid = await new_session(chat)
    url = ws_url(chat, f"/sessions/{sid}/socket")
    for headers, status in (({"x-user-id": "bob"}, 403), ({}, 401)):
        async with connect(url) if not headers else connect(url, additional_headers=headers) as ws:
            turn = encode_chat_request(ChatRequest(agent_id="friday", session_id=sid, input=wire.UserMsg("bob", "x")))
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                await ws.send((b'{"type":"input","request_id":"1","body":' + turn + b"}").decode())
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            assert closed.value.rcvd.reason.startswith(f"{status} ")
        socket = SessionSocket(url, headers=headers)
        with pytest.raises(HTTPStatusError) as refused:
            async with socket:
                await socket.send(wire.UserMsg("bob", "x"), agent_id="friday", session_id=sid)
        assert refused.value.status == status
    async with SessionSocket(url, headers=ALICE) as socket:
        assert (await socket.send(wire.UserMsg("alice", "first"), agent_id="friday", session_id=sid)).status == 200
        assert (await socket.run(turn=True)).last is not None
        assert len(socket.conversation.custom) == 1  # one wire.turn: the refused sockets wrote none
    with pytest.raises(HTTPStatusError) as missing:
        async with SessionSocket(ws_url(chat, "/sessions/nosuch/socket"), headers=ALICE) as socket:
            await socket.run()
    assert missing.value.status == 404


async def test_results_carry_the_answer_endpoints_statuses(chat: str) -> None:
    sid = await new_session(chat)
    async with SessionSocket(ws_url(chat, f"/sessions/{sid}/socket"), headers=ALICE) as socket:
        await socket.send(wire.UserMsg("alice", "go"), agent_id="friday", session_id=sid)
        with pytest.raises(InputRefused) as twice:  # a turn while one is pending or running
            await socket.send(wire.UserMsg("alice", "again"), agent_id="friday", session_id=sid)
        assert twice.value.status == 409
        with pytest.raises(InputRefused) as other:
            await socket.send(wire.UserMsg("alice", "x"), agent_id="friday", session_id="another")
        assert other.value.status == 400 and "route" in other.value.text
        parked = (await socket.run(turn=True)).last
        assert parked is not None
        await socket.send(confirmation(parked, True), agent_id="friday", session_id=sid)
        with pytest.raises(InputRefused) as answered:  # answered before
            await socket.send(confirmation(parked, True), agent_id="friday", session_id=sid)
        assert answered.value.status == 409
        await socket.run(turn=True)
    async with connect(ws_url(chat, f"/sessions/{sid}/socket"), additional_headers=ALICE) as ws:
        await ws.send('{"type":"input","request_id":"r","body":{"agent_id":"a","session_id":"s","input":3}}')
        result = json.loads(await _next(ws, "result"))
        assert result == {"type": "result", "request_id": "r", "status": 400, "entry_id": None,
                          "detail": result["detail"]} and "$.input" in result["detail"]


async def _next(ws: ClientConnection, kind: str) -> str | bytes:
    """The next frame of type ``kind`` (pings and entries go by)."""
    while True:
        frame = await ws.recv()
        head = msgspec.json.decode(frame) if isinstance(frame, str) else msgspec.msgpack.decode(frame)
        if head["type"] == kind:
            return frame


# -- the protocol frame by frame, on a log of the test's own ---------------------------------------


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[str, dict[str, Any]]]:
    """Sockets with small limits over logs the tests fill: ``/{name}``."""
    logs: dict[str, EventLog] = {}
    taken: list[ChatRequest] = []

    def find(websocket: WebSocket) -> EventStore | None:
        return logs.get(websocket.path_params["session_id"])

    def on_input(chat: ChatRequest, log: EventStore, websocket: WebSocket) -> None:
        taken.append(chat)

    def authorize(websocket: WebSocket, session_id: str) -> bool:
        if websocket.query_params.get("token") == "expired":
            raise Refused(401, "the token expired")
        return True

    socket = session_socket(find, on_input, authorize=authorize, max_frame_bytes=4096, body_limit=1024,
                            inputs_per_second=0.001, max_send_bytes=2048, heartbeat=None, send_timeout=2.0)
    app = Starlette(routes=[WebSocketRoute("/{session_id}", socket)])
    with serve_asgi(app, ws="websockets-sansio") as url:
        yield ws_url(url, ""), {"logs": logs, "taken": taken}


@asynccontextmanager
async def raw(url: str, *protocols: str, **kwargs: Any) -> AsyncIterator[ClientConnection]:
    async with connect(url, subprotocols=list(protocols) or None, max_size=None, **kwargs) as ws:  # type: ignore[arg-type]
        yield ws


async def _closed(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
        while True:
            await ws.recv()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def _log(lab: tuple[str, dict[str, Any]], name: str, events: list[wire.AgentEvent], *, close: bool = True,
               **kwargs: Any) -> EventLog:
    """A log the server serves, written before any reader waits on it (the
    server's loop is another thread's)."""
    log = lab[1]["logs"][name] = EventLog(**kwargs)
    await log.extend(events)
    if close:
        await log.close()
    return log


def _msg(events: list[Any]) -> bytes:
    session = wire.session.Session()
    session.apply(events)
    return b"".join(wire_json.encode(msg) for msg in session.replies.values())


def _reply(n: int, reply_id: str = "r1", width: int = 1) -> list[wire.AgentEvent]:
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s", reply_id=reply_id, name="Friday"),
                                     wire.TextBlockStartEvent(reply_id=reply_id, block_id="b")]
    events += [wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="b", delta=f"{i:05} é " * width) for i in range(n)]
    return [*events, wire.TextBlockEndEvent(reply_id=reply_id, block_id="b"),
            wire.ReplyEndEvent(session_id="s", reply_id=reply_id)]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_follow_entries_end_in_either_format(lab: tuple[str, dict[str, Any]], protocol: str) -> None:
    events = _reply(500)
    await _log(lab, "f", events)
    async with raw(f"{lab[0]}/f", protocol) as ws:
        assert ws.subprotocol == protocol
        binary = protocol.endswith("msgpack")
        decode: Any = msgspec.msgpack.decode if binary else msgspec.json.decode
        ws_events: list[Any] = []
        ids: list[str] = []
        await ws.send(msgspec.msgpack.encode({"type": "follow", "after": None}) if binary else
                      '{"type":"follow","after":null}')
        frames = 0
        while True:
            frame = await ws.recv()
            assert isinstance(frame, bytes) == binary
            body = decode(frame)
            if body["type"] == "end":
                break
            # At most max_send_bytes of events in a frame, or one larger event alone.
            assert body["type"] == "entries" and (len(frame) <= 2048 + 200 or len(body["entries"]) == 1)
            frames += 1
            for entry_id, event in body["entries"]:
                ids.append(entry_id)
                ws_events.append((wire.msgpack if binary else wire_json).decode_event(
                    (msgspec.msgpack if binary else msgspec.json).encode(event)))
        # Written before the reader came, the deltas wait for it: merged, and the same Msg.
        assert frames > 1 and len(ws_events) < len(events) and len(set(ids)) == len(ids)
        assert _msg(ws_events) == _msg(events)
        # The session is over; the socket stays for the client to close. A follow from the middle: replayed
        # from a checkpoint, as an SSE reader with Last-Event-ID is.
        await ws.send(msgspec.msgpack.encode({"type": "follow", "after": ids[1]}) if binary else
                      json.dumps({"type": "follow", "after": ids[1]}))
        rest: list[Any] = []
        while (body := decode(await ws.recv()))["type"] != "end":
            rest += [event for _, event in body["entries"]]
        assert rest[0]["type"] == "CUSTOM" and rest[0]["name"] == wire.session.CHECKPOINT


async def test_sockets_reading_in_step_share_each_frame_made_once(lab: tuple[str, dict[str, Any]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Readers of one session read the same batches (here from its start,
    merged from the same state): each batch's events are encoded once per
    subprotocol for all of them (ws._SharedFrames), and each still ends
    with the exact Msg."""
    from wire.transports import ws as ws_module

    events = _reply(3000)
    await _log(lab, "crowd", events)
    encoded: list[int] = []
    encode = ws_module._Codec.event

    def counted(codec: Any, event: Any) -> bytes:
        encoded.append(1)
        return encode(codec, event)

    monkeypatch.setattr(ws_module._Codec, "event", counted)

    async def read(protocol: str) -> tuple[int, bytes]:
        got: list[Any] = []
        async with raw(f"{lab[0]}/crowd", protocol) as ws:
            binary = protocol.endswith("msgpack")
            codec: Any = msgspec.msgpack if binary else msgspec.json
            await ws.send(codec.encode({"type": "follow", "after": None}) if binary else
                          '{"type":"follow","after":null}')
            while (body := codec.decode(await ws.recv()))["type"] != "end":
                got += [(wire.msgpack if binary else wire_json).decode_event(codec.encode(event))
                        for _, event in body["entries"]]
        return len(got), _msg(got)

    alone = [await read(protocol) for protocol in PROTOCOLS]
    once = len(encoded)
    assert once == sum(count for count, _ in alone)
    crowd: list[tuple[int, bytes]] = []

    async def one(protocol: str) -> None:
        crowd.append(await read(protocol))

    async with anyio.create_task_group() as tg:
        for protocol in PROTOCOLS * 4:
            tg.start_soon(one, protocol)
    assert sorted(crowd) == sorted(alone * 4)
    assert all(msg == _msg(events) for _, msg in crowd)
    assert len(encoded) == once  # the eight readers' frames were the two alone readers' ones


async def test_bad_frames_are_closed_with_their_codes(lab: tuple[str, dict[str, Any]]) -> None:
    await _log(lab, "b", _reply(3))
    url = f"{lab[0]}/b"
    cases: list[tuple[str, tuple[str, ...], str | bytes, int]] = [
        ("not json", (), "{nope", 1007),
        ("no type", (), "{}", 1007),
        ("unknown type", (), '{"type":"dance"}', 1007),
        ("no request id", (), '{"type":"input","body":{}}', 1007),
        ("a long after", (), json.dumps({"type": "follow", "after": "1" * 300}), 1007),
        ("binary on json", (), b"{}", 1003),
        ("text on msgpack", ("wire.v1.msgpack",), "{}", 1003),
        ("not msgpack", ("wire.v1.msgpack",), b"\xc1", 1007),
        ("too large", (), json.dumps({"type": "ping", "pad": "x" * 5000}), 1009),
    ]
    for name, protocols, frame, code in cases:
        async with raw(url, *protocols) as ws:
            await ws.send(frame)
            got = await _closed(ws)
            assert got[0] == code, (name, got)
            assert len(got[1].encode()) <= 123
    async with raw(url, "graphql-ws") as ws:  # only others' subprotocols
        assert (await _closed(ws))[0] == 1002
    async with raw(f"{url}?token=expired") as ws:
        assert await _closed(ws) == (1008, "401 the token expired")
    async with raw(url) as ws:  # the server lives on: a ping is answered
        await ws.send('{"type":"ping","extra":"fields are ignored"}')
        assert json.loads(await ws.recv()) == {"type": "pong"}


async def test_inputs_over_the_rate_and_the_body_limit(lab: tuple[str, dict[str, Any]]) -> None:
    await _log(lab, "s", [], close=False)
    turn = encode_chat_request(ChatRequest(agent_id="a", session_id="s", input=wire.UserMsg("alice", "hi")))
    big = encode_chat_request(ChatRequest(agent_id="a", session_id="s", input=wire.UserMsg("alice", "x" * 2000)))
    async with raw(f"{lab[0]}/s") as ws:
        await ws.send((b'{"type":"input","request_id":"big","body":' + big + b"}").decode())
        first = json.loads(await _next(ws, "result"))
        assert (first["request_id"], first["status"]) == ("big", 413)
        await ws.send((b'{"type":"input","request_id":"1","body":' + turn + b"}").decode())
        await ws.send((b'{"type":"input","request_id":"2","body":' + turn + b"}").decode())
        statuses = [json.loads(await _next(ws, "result"))["status"] for _ in range(2)]
    # The 413 spent the one input the bucket holds (inputs_per_second=0.001): both are over the rate.
    assert statuses == [429, 429]
    assert lab[1]["taken"] == []


# -- hostile peers: what one process holds ----------------------------------------------------------


@pytest.mark.parametrize("ws", ["websockets-sansio", "wsproto"])
async def test_hostile_clients_never_crash_the_server_nor_grow_it_past_the_bound(ws: str) -> None:
    """Clients that never read (following a long reply, or flooding pings),
    frames over the limits, malformed frames: every one of their sockets is
    closed, the server's traced memory stays under the bound
    docs/untrusted-peers.md states, and a normal client still reads the
    exact reply."""
    max_send = 16 * 1024
    log = EventLog()
    events = _reply(80_000, width=12)  # 100 bytes a delta: 8 MB of text, more than the kernel's buffers hold
    await log.extend(events[:-1])  # open: the followers stay
    hostile = Hostile(session_socket(lambda websocket: log, lambda *_: None, max_frame_bytes=4096,
                                     max_send_bytes=max_send, send_timeout=1.0, frames_per_second=200,
                                     heartbeat=0.5))
    app = Starlette(routes=[WebSocketRoute("/{session_id}", hostile.endpoint)])
    tracemalloc.start()
    try:
        with serve_asgi(app, ws=ws, ws_max_size=65536) as url:
            port = int(url.rsplit(":", 1)[1])
            await anyio.sleep(0.2)
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            floods = 3
            await hostile.attack(port, "/s", stalled=6, stalled_frames=masked(b'{"type":"follow","after":null}'),
                                 floods=floods, flood=masked(b'{"type":"ping"}') * 2000,
                                 bad=[b"{", b"\xff", b'{"type":1}', b"[]"])
            grown = tracemalloc.get_traced_memory()[1] - base
            # The bound of docs/untrusted-peers.md per socket: the frame being read (uvicorn's ws_max_size)
            # and its copy, 4 x the frame being sent (its events, the frame, its text, uvicorn's copy) and
            # uvicorn's write buffer (64 KiB), plus 64 KiB for the socket's own objects; for a flood, uvicorn's
            # queue of every frame of one read (asyncio reads up to 256 KiB; about 100 bytes a frame); and
            # 2 MiB for what the process shares (the store's caches of what readers read, lazy imports).
            largest = max(max_send, 512 * 100 + 200)  # a frame of merged deltas: up to 512 of them
            per_socket = 2 * 65536 + 4 * largest + 64 * 1024 + 64 * 1024
            queue = 256 * 1024 // len(masked(b'{"type":"ping"}')) * 100
            bound = len(hostile.socks) * per_socket + floods * queue + 2 * 1024 * 1024
            assert grown < bound, (grown, bound)
            await hostile.leave()  # the floods were read at frames_per_second all along
            # A normal client, meanwhile and after: the exact reply.
            async with SessionSocket(ws_url(url, "/s")) as socket:
                await log.append(events[-1])
                got = await socket.run("r1")
            assert b"".join(wire_json.encode(m) for m in got.replies.values()) == _msg(events)
    finally:
        tracemalloc.stop()
