"""ai's own socket over a session log: the real ``WebSocketChatTransport``
inside an ``AbstractChat`` in node, over the ``ws`` package
(tests/clients-vercel/run.mjs, ``socket``), against
``wire.bridges.vercel_ws.chat_socket`` served by uvicorn, on a bounded
in-memory log and on a trimmed Redis stream (a redis-server of the test's
own); a wire Follower of the same session rebuilds every reply the chat
shows. Then the protocol frame by frame, and hostile frames."""

from __future__ import annotations

import contextlib
import json
import tracemalloc
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

import wire
from tests.bridges.confirming import S, asked, went_on
from tests.bridges.vercel_client import compare, needs_client, run_client
from tests.helpers import serve_asgi
from tests.raw_ws import Hostile, masked
from tests.redis_server import running_server
from wire.bridges.vercel import VercelBridge
from wire.bridges.vercel_session import MAX_BATCH
from wire.bridges.vercel_ws import MAX_DELTA, chat_socket
from wire.session import ChatRequest, copy_msg
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.client import Follower
from wire.transports.http import sse_endpoint
from wire.transports.inputs import Refused

websockets = pytest.importorskip("websockets")
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # websockets' client runs on asyncio


class SocketApp:
    """The chat's backend: one log per chat, the agent started by the one hook.

    The agent writes each reply as the session tests' agent does (a turn asks
    before deleting a file, the answer takes the reply on); at ``holds``
    ((reply id, "send" or "answer") -> the index of an event) it waits, before
    writing that event, until one more socket has closed than when it began:
    the client cuts its connection there, mid-reply."""

    def __init__(self, log_of: Callable[[str], EventStore], holds: dict[tuple[str, str], int] | None = None) -> None:
        self.log_of = log_of
        self.holds = holds or {}
        # A client cut off mid-reply resumes after the reply has gone on, maybe to its end: with holds,
        # a resume replays the last reply whole, whatever it reached meanwhile.
        self.finished = bool(holds)
        self.tasks: Any = None
        self.closed = 0
        self.changed = anyio.Event()

    def find_log(self, connection: Any, chat: ChatRequest | None = None) -> EventStore:
        return self.log_of(chat.session_id if chat is not None else connection.path_params["id"])

    def on_input(self, chat: ChatRequest, log: EventStore, websocket: WebSocket) -> None:
        self.tasks.start_soon(self.agent, log, chat)

    async def agent(self, log: EventStore, chat: ChatRequest) -> None:
        closed = self.closed
        if isinstance(chat.input, wire.UserConfirmResultEvent):
            reply, phase = chat.input.reply_id, "answer"
            events = went_on(reply, f"{reply}-c", chat.input.confirm_results[0].confirmed)
        else:
            reply, phase = f"r{len((await log.session()).replies) + 1}", "send"
            events = asked(reply, f"{reply}-c", f"notes-{reply[1:]}.txt")
        for i, event in enumerate(events):
            if self.holds.get((reply, phase)) == i:
                while self.closed == closed:
                    await self.changed.wait()
            await log.append(event)
            await anyio.sleep(0.002)  # paced, so that a request is read while its reply is written

    async def socket(self, websocket: WebSocket) -> None:
        try:
            await self.inner(websocket)
        finally:
            self.closed += 1
            self.changed.set()
            self.changed = anyio.Event()

    async def close(self, request: Request) -> Response:
        await self.find_log(request).close()
        return Response(status_code=204)

    def app(self, lifespan: Callable[[Starlette], Any] | None = None) -> Starlette:
        self.inner = chat_socket(self.find_log, self.on_input, finished=self.finished)

        @contextlib.asynccontextmanager
        async def tasks(app: Starlette) -> AsyncIterator[None]:
            async with anyio.create_task_group() as tg:
                self.tasks = tg
                if lifespan is not None:
                    async with lifespan(app):
                        yield
                else:
                    yield
                tg.cancel_scope.cancel()

        return Starlette(lifespan=tasks, routes=[
            WebSocketRoute("/api/chat/socket", self.socket),
            Route("/sessions/{id}/events", sse_endpoint(self.find_log, heartbeat=0.2)),
            Route("/sessions/{id}/close", self.close, methods=["POST"]),
        ])


TURNS = [{"text": "tidy up", "approve": True}, {"text": "and the rest", "approve": False}]
# The first turn's connection cut as its reply says what it will do (before it parks); the
# second's as the answered reply says it kept the file.
DROPS = [{"phase": "send", "text": "I will delete notes-1.txt."}, {"phase": "answer", "text": "Kept it."}]
HOLDS = {("r1", "send"): 3, ("r2", "answer"): 6}


def run_chat(base: str, tmp_path: Path, drops: bool) -> tuple[dict[str, Any], dict[str, wire.Msg]]:
    """The client's turns over one socket, then the session closed and read by a Follower."""
    turns = [{**turn, "drop": drop} if drops else turn for turn, drop in zip(TURNS, DROPS, strict=True)]
    url = "ws" + base.removeprefix("http") + "/api/chat/socket"
    result = json.loads(run_client("socket", {"url": url, "chatId": S, "turns": turns}, tmp_path))

    async def follow() -> dict[str, wire.Msg]:
        async with httpx.AsyncClient() as client:
            assert (await client.post(f"{base}/sessions/{S}/close")).status_code == 204
        return (await Follower(f"{base}/sessions/{S}/events").run()).replies

    return result, anyio.run(follow)


def check_chat(result: dict[str, Any], followed: dict[str, wire.Msg], stored: dict[str, wire.Msg],
               drops: bool) -> None:
    steps = result["steps"]
    cut = "WebSocket chat network connection closed (code 1006)."
    if drops:
        assert [s["what"] for s in steps] == ["dropped send", "resumed send", "sent tidy up", "answered true",
                                              "sent and the rest", "dropped answer", "resumed answer",
                                              "answered false"]
        assert result["errors"] == [cut, cut]
        assert [(s["status"], s["error"]) for s in steps if s["what"].startswith("dropped")] == [("error", cut)] * 2
        assert result["connections"] == 3  # the first, and one for each resume
        # Cut mid-reply, the chat had part of it; the resume replaced it with the whole reply so far.
        parts = steps[0]["messages"][-1]["parts"]
        assert not any(p["type"] == "tool-delete_file" for p in parts)
    else:
        assert [s["what"] for s in steps] == ["sent tidy up", "answered true", "sent and the rest", "answered false"]
        assert result["errors"] == []
        assert result["connections"] == 1  # two turns and their answers over one socket
    assert all(s["status"] == "ready" for s in steps if not s["what"].startswith("dropped"))
    for step in steps:
        if step["what"].startswith("sent"):  # each turn's request ends at the park
            parts = step["messages"][-1]["parts"]
            assert [p["state"] for p in parts if p["type"] == "tool-delete_file"] == ["approval-requested"]
    messages = steps[-1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] * 2
    assert [m["id"] for m in messages[1::2]] == ["r1", "r2"]
    assert [m["parts"][-1]["text"] for m in messages[0::2]] == [t["text"] for t in TURNS]
    outcomes = [[(p["state"], p.get("approval", {}).get("approved")) for p in m["parts"]
                 if p["type"] == "tool-delete_file"] for m in messages[1::2]]
    assert outcomes == [[("output-available", True)], [("output-denied", False)]]
    assert [[p["text"] for p in m["parts"] if p["type"] == "text"] for m in messages[1::2]] == [
        ["I will delete notes-1.txt.", "Deleted."], ["I will delete notes-2.txt.", "Kept it."]]
    # What the chat shows is agentscope's Msg, exactly as the store and a wire Follower have it.
    assert list(followed) == ["r1", "r2"]
    for message in messages[1::2]:
        compare(message, json.loads(wire.json.encode(followed[message["id"]])), message["id"], set())
    assert followed == stored
    if drops:  # finished=True: a reloaded page gets the last reply, whole
        assert result["reloaded"]["status"] == "ready"
        assert result["reloaded"]["messages"] == [messages[-1]]
    else:  # nothing runs: no-active, and it stays empty
        assert result["reloaded"] == {"messages": [], "status": "ready"}


@needs_client
@pytest.mark.parametrize("drops", [False, True], ids=["one-socket", "dropped-and-resumed"])
def test_web_socket_chat_transport_over_a_bounded_memory_log(tmp_path: Path, drops: bool) -> None:
    logs: dict[str, EventLog] = {}
    app = SocketApp(lambda id: logs.setdefault(id, EventLog(max_events=6)), HOLDS if drops else None)
    with serve_asgi(app.app(), ws="websockets-sansio") as base:
        result, followed = run_chat(base, tmp_path, drops)
    check_chat(result, followed, logs[S].replies, drops)


@needs_client
@pytest.mark.parametrize("drops", [False, True], ids=["one-socket", "dropped-and-resumed"])
def test_web_socket_chat_transport_over_a_trimmed_redis_log(tmp_path: Path, drops: bool) -> None:
    aioredis = pytest.importorskip("redis.asyncio")
    from wire.stores.redis import RedisEventLog

    key = f"vercel-ws:{tmp_path.name}"
    state: dict[str, Any] = {}
    with running_server(tmp_path) as server:

        async def configure() -> None:
            client = aioredis.Redis.from_url(server.url)
            # Small stream nodes, so that MAXLEN ~ trims a session this short (whole nodes go).
            await client.config_set("stream-node-max-entries", 2)
            await client.aclose()

        anyio.run(configure)

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            state["client"] = aioredis.Redis.from_url(server.url)
            yield
            await state["client"].aclose()

        # A new log object per request, as on replicas that share the Redis stream.
        app = SocketApp(lambda id: RedisEventLog(state["client"], f"{key}:{id}", max_len=6),
                        HOLDS if drops else None)
        with serve_asgi(app.app(lifespan), ws="wsproto") as base:
            result, followed = run_chat(base, tmp_path, drops)

        async def stored() -> tuple[dict[str, wire.Msg], int]:
            client = aioredis.Redis.from_url(server.url)
            try:
                return await RedisEventLog(client, f"{key}:{S}").snapshot(), await client.xlen(f"{key}:{S}")
            finally:
                await client.aclose()

        replies, kept = anyio.run(stored)
    assert kept < 20  # trimmed: the session wrote more than 30 entries
    check_chat(result, followed, replies, drops)


# -- the protocol frame by frame ---------------------------------------------------------------


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[str, dict[str, Any]]]:
    """Chat sockets with small limits over logs the tests fill: ``/chat`` (any
    session) and ``/named/{session_id}`` (one), authorized by ``?token=``,
    taking one input and one resume a socket; ``/fast``, at the default rates."""
    logs: dict[str, EventLog] = {}
    taken: list[ChatRequest] = []

    def find(websocket: WebSocket, chat: ChatRequest) -> EventStore | None:
        return logs.get(chat.session_id)

    async def on_input(chat: ChatRequest, log: EventStore, websocket: WebSocket) -> None:
        taken.append(chat)
        reply = f"r{len((await log.session()).replies) + 1}"
        await log.extend([wire.ReplyStartEvent(session_id=chat.session_id, reply_id=reply, name="Friday"),
                          wire.TextBlockStartEvent(reply_id=reply, block_id="t"),
                          wire.TextBlockDeltaEvent(reply_id=reply, block_id="t", delta="Hello."),
                          wire.TextBlockEndEvent(reply_id=reply, block_id="t"),
                          wire.ReplyEndEvent(session_id=chat.session_id, reply_id=reply)])

    def authorize(websocket: WebSocket, session_id: str) -> bool:
        token = websocket.query_params.get("token")
        if token == "expired":
            raise Refused(401, "the token expired")
        return token != "bob" or session_id != "secret"

    socket = chat_socket(find, on_input, authorize=authorize, max_frame_bytes=4096, inputs_per_second=0.001,
                         max_requests=2, send_timeout=2.0)
    fast = chat_socket(find, on_input, max_requests=2, send_timeout=2.0)
    app = Starlette(routes=[WebSocketRoute("/chat", socket), WebSocketRoute("/named/{session_id}", socket),
                            WebSocketRoute("/fast", fast)])
    with serve_asgi(app, ws="websockets-sansio") as url:
        yield "ws" + url.removeprefix("http"), {"logs": logs, "taken": taken}


def send_frame(request_id: str, session: str, text: str = "hi", **extra: Any) -> str:
    return json.dumps({"type": "send", "requestId": request_id, "id": session, "trigger": "submit-message",
                       "messageId": None, "headers": {}, "body": {}, "metadata": None,
                       "messages": [{"id": f"u-{request_id}", "role": "user",
                                     "parts": [{"type": "text", "text": text}]}],
                       **extra})


async def frames_of(ws: ClientConnection, request_id: str) -> list[dict[str, Any]]:
    """The frames of one request, up to its end, error or no-active."""
    out: list[dict[str, Any]] = []
    while True:
        frame = json.loads(await ws.recv())
        if frame["requestId"] == request_id:
            out.append(frame)
            if frame["type"] in ("end", "error", "no-active"):
                return out


async def closed(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(websockets.exceptions.ConnectionClosed) as done:
        while True:
            await ws.recv()
    assert done.value.rcvd is not None
    return done.value.rcvd.code, done.value.rcvd.reason


@pytest.mark.anyio
async def test_a_send_is_a_turn_whose_reply_comes_in_sequence(lab: tuple[str, dict[str, Any]]) -> None:
    url, state = lab
    state["logs"]["a"] = EventLog()
    async with connect(f"{url}/chat") as ws:
        await ws.send(send_frame("q1", "a"))
        frames = await frames_of(ws, "q1")
        assert frames[0] == {"type": "start", "requestId": "q1"} and frames[-1] == {"type": "end", "requestId": "q1"}
        chunks = [f["chunk"] for f in frames[1:-1]]
        assert [f["sequence"] for f in frames[1:-1]] == list(range(len(chunks)))
        assert chunks[0]["type"] == "start" and chunks[0]["messageId"] == "r1" and chunks[-1]["type"] == "finish"
        # Nothing runs now: a resume says so; a send while the log is unknown is a 404.
        await ws.send(json.dumps({"type": "resume", "requestId": "q2", "id": "a", "headers": {}, "body": {}}))
        assert await frames_of(ws, "q2") == [{"type": "no-active", "requestId": "q2"}]
        await ws.send(json.dumps({"type": "resume", "requestId": "q3", "id": "a", "lastSequence": 3,
                                  "headers": {}, "body": {}}))
        [error] = await frames_of(ws, "q3")
        assert error["type"] == "error" and error["errorText"].startswith("400: lastSequence")
    assert [chat.input.id for chat in state["taken"] if isinstance(chat.input, wire.Msg)][-1] == "u-q1"


@pytest.mark.anyio
async def test_refusals_are_error_frames_with_the_chat_endpoints_statuses(lab: tuple[str, dict[str, Any]]) -> None:
    url, state = lab
    state["logs"]["secret"] = EventLog()
    state["logs"]["b"] = log = EventLog()
    await log.extend(asked("r1", "c1", "a.txt"))  # parked: a new message is refused
    cases = [
        (send_frame("e1", "nosuch"), "404: no such session"),
        (send_frame("e2", "b"), "409: "),
        (json.dumps({"type": "send", "requestId": "e3", "id": "b", "messages": []}),
         "400: the request body is not valid"),
        (send_frame("e4", "b", trigger="regenerate-message"), "400: the request body is not valid"),
    ]
    for frame, text in cases:
        async with connect(f"{url}/chat?token=bob") as ws:  # a socket each: the lab takes one input a socket
            await ws.send(frame)
            [error] = await frames_of(ws, json.loads(frame)["requestId"])
            assert error["type"] == "error" and error["errorText"].startswith(text), (text, error)
    async with connect(f"{url}/chat?token=bob") as ws:
        await ws.send(send_frame("e5", "secret"))  # bob may not use this session
        assert await frames_of(ws, "e5") == [{"type": "error", "requestId": "e5", "errorText": "403: not allowed"}]
    assert log.end == 8 and state["logs"]["secret"].end == 0  # nothing was written


@pytest.mark.anyio
async def test_a_route_that_names_its_session_is_authorized_before_anything(lab: tuple[str, dict[str, Any]]) -> None:
    url, state = lab
    state["logs"]["secret"] = EventLog()
    for query, reason in (("?token=bob", "403 not allowed"), ("?token=expired", "401 the token expired")):
        async with connect(f"{url}/named/secret{query}") as ws:
            assert await closed(ws) == (1008, reason)
    assert state["logs"]["secret"].end == 0
    async with connect(f"{url}/named/c") as ws:  # another session than the route's: 400
        await ws.send(send_frame("y", "d"))
        [error] = await frames_of(ws, "y")
        assert error["errorText"] == "400: the frame's id is not 'c', the route's session"


@pytest.mark.anyio
async def test_bad_frames_are_closed_with_wires_codes(lab: tuple[str, dict[str, Any]]) -> None:
    url, _ = lab
    cases: list[tuple[str, str | bytes, int]] = [
        ("not json", "{nope", 1007),
        ("no type", "{}", 1007),
        ("unknown type", '{"type":"dance","requestId":"1"}', 1007),
        ("no request id", '{"type":"abort"}', 1007),
        ("a long request id", json.dumps({"type": "abort", "requestId": "1" * 300}), 1007),
        ("messages not a list", '{"type":"send","requestId":"1","id":"a","messages":{}}', 1007),
        ("a negative lastSequence", '{"type":"resume","requestId":"1","id":"a","lastSequence":-1}', 1007),
        ("binary", b"{}", 1003),
        ("too large", send_frame("1", "a", text="x" * 5000), 1009),
    ]
    for name, frame, code in cases:
        async with connect(f"{url}/chat") as ws:
            await ws.send(frame)
            got = await closed(ws)
            assert got[0] == code, (name, got)
            assert len(got[1].encode()) <= 123
    async with connect(f"{url}/chat", subprotocols=["graphql-ws"]) as ws:  # type: ignore[list-item]
        assert (await closed(ws))[0] == 1002


@pytest.mark.anyio
async def test_inputs_over_the_rate_and_requests_over_the_limit_are_429(lab: tuple[str, dict[str, Any]]) -> None:
    url, state = lab
    state["logs"]["r"] = log = EventLog()
    await log.extend(asked("r1", "c1", "a.txt")[:3])  # a reply running: a resume follows it until it ends
    resume = {"type": "resume", "id": "r", "headers": {}, "body": {}}
    async with connect(f"{url}/fast") as ws:
        for request_id in ("a", "b", "c"):
            await ws.send(json.dumps({**resume, "requestId": request_id}))
        [error] = await frames_of(ws, "c")  # max_requests=2 are running
        assert error["errorText"].startswith("429: too many requests")
        await ws.send(json.dumps({"type": "abort", "requestId": "a"}))  # the server stops a's chunks
        await ws.send(json.dumps({**resume, "requestId": "d"}))
        while (frame := json.loads(await ws.recv()))["requestId"] != "d":
            pass
        assert frame == {"type": "start", "requestId": "d"}  # the reply runs on: no end
    async with connect(f"{url}/chat") as ws:
        state["logs"]["s"] = EventLog()
        await ws.send(send_frame("s1", "s"))  # the lab's inputs_per_second=0.001: one input, then 429
        assert (await frames_of(ws, "s1"))[-1]["type"] == "end"
        await ws.send(send_frame("s2", "s"))
        [error] = await frames_of(ws, "s2")
        assert error["errorText"].startswith("429: too many inputs")
        # A resume has a bucket of its own (it reads the whole session, as a send does): one, then 429.
        await ws.send(json.dumps({**resume, "id": "s", "requestId": "s3"}))
        assert await frames_of(ws, "s3") == [{"type": "no-active", "requestId": "s3"}]
        await ws.send(json.dumps({**resume, "id": "s", "requestId": "s4"}))
        [error] = await frames_of(ws, "s4")
        assert error["errorText"].startswith("429: too many resumes")


@pytest.mark.anyio
async def test_a_resume_replays_the_reply_parked_for_the_user(lab: tuple[str, dict[str, Any]]) -> None:
    """A client cut off mid-reply that comes back once the reply has parked
    gets it whole, up to the question it must answer (no-active would leave
    it with half a reply and a session that refuses its next message)."""
    url, state = lab
    state["logs"]["p"] = log = EventLog()
    await log.extend(asked("r1", "c1", "a.txt"))
    async with connect(f"{url}/chat") as ws:
        await ws.send(json.dumps({"type": "resume", "requestId": "p1", "id": "p", "headers": {}, "body": {}}))
        frames = await frames_of(ws, "p1")
    chunks = [f["chunk"] for f in frames if f["type"] == "chunk"]
    assert frames[-1] == {"type": "end", "requestId": "p1"}
    assert chunks[0]["messageId"] == "r1"
    assert [c["type"] for c in chunks[-2:]] == ["tool-approval-request", "finish"]


class _ChunkFrame(msgspec.Struct):
    type: str
    chunk: msgspec.Raw = msgspec.Raw()  # the chunk's JSON text, as the frame holds it


@pytest.mark.anyio
async def test_a_chunk_is_the_json_text_the_resume_endpoint_writes(lab: tuple[str, dict[str, Any]]) -> None:
    """A chunk's free-form values (here a tool's input) are written as
    JSON.stringify writes them (1e+21, 1, integer-like keys first), as the
    HTTP endpoints write them (``encode_chunks``): a chunk is the same text on
    every Vercel door, and the frame the text a JavaScript server would send."""
    from wire.blocks import ToolCallBlock, ToolCallState
    from wire.bridges.vercel import encode_chunks

    url, state = lab
    state["logs"]["js"] = log = EventLog()
    raw = '{"b": 1, "0": 2, "f": [1e21, 1.0, 1e-7, 0.5]}'
    block = ToolCallBlock(id="c1", name="set", input=raw, state=ToolCallState.ASKING)
    await log.extend([wire.ReplyStartEvent(session_id="js", reply_id="r1", name="Friday"),
                      wire.ToolCallStartEvent(reply_id="r1", tool_call_id="c1", tool_call_name="set"),
                      wire.ToolCallDeltaEvent(reply_id="r1", tool_call_id="c1", delta=raw),
                      wire.ToolCallEndEvent(reply_id="r1", tool_call_id="c1"),
                      wire.RequireUserConfirmEvent(reply_id="r1", tool_calls=[block])])
    async with connect(f"{url}/chat") as ws:
        await ws.send(json.dumps({"type": "resume", "requestId": "j1", "id": "js", "headers": {}, "body": {}}))
        frames: list[_ChunkFrame] = []
        while not frames or frames[-1].type not in ("end", "error"):
            frames.append(msgspec.json.decode(await ws.recv(), type=_ChunkFrame))
    assert frames[-1].type == "end"
    chunks = [bytes(f.chunk) for f in frames if f.type == "chunk"]
    assert b'"input":{"0":2,"b":1,"f":[1e+21,1,1e-7,0.5]}' in b"".join(chunks)
    assert [b"data: " + c + b"\n\n" for c in chunks] == \
        [encode_chunks([json.loads(c)]) for c in chunks]

# -- hostile peers: what one process holds ----------------------------------------------------------


def long_reply(n: int, reply_id: str = "r1") -> list[wire.AgentEvent]:
    """A reply of one text block in ``n`` deltas of 108 bytes of UTF-8 (non-ASCII), its end last."""
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s", reply_id=reply_id, name="Friday"),
                                     wire.TextBlockStartEvent(reply_id=reply_id, block_id="b")]
    events += [wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="b", delta=f"{i:05} é " * 12) for i in range(n)]
    return [*events, wire.TextBlockEndEvent(reply_id=reply_id, block_id="b"),
            wire.ReplyEndEvent(session_id="s", reply_id=reply_id)]


def merged(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chunks`` with each run of deltas to one part joined (the client appends them)."""
    out: list[dict[str, Any]] = []
    for chunk in chunks:
        last = out[-1] if out else None
        if last is not None and chunk["type"] == last["type"] == "text-delta" and chunk["id"] == last["id"]:
            out[-1] = {**last, "delta": last["delta"] + chunk["delta"]}
        else:
            out.append(chunk)
    return out


@pytest.mark.anyio
async def test_a_flood_of_resumes_and_aborts_is_paced_by_the_resume_bucket() -> None:
    """A resume reads the whole session (a copy of every reply) and an abort
    frees its place at once: a client that resumes and aborts in a loop
    made the server copy a long session at every pair, up to
    frames_per_second / 2 times a second (an 8 MB reply: 20 to 50 ms of CPU
    each, a core for one socket). Resumes have a bucket of
    ``inputs_per_second``, as sends do; those past it get a 429 before
    anything is read."""
    log = EventLog()
    await log.extend(long_reply(2000)[:-1])  # running: each resume replays it, then follows
    looked: list[str] = []

    def find_log(websocket: WebSocket, chat: ChatRequest) -> EventStore:
        looked.append(chat.session_id)
        return log

    app = Starlette(routes=[WebSocketRoute("/chat", chat_socket(find_log, lambda *_: None, frames_per_second=1000,
                                                                 inputs_per_second=5))])
    with serve_asgi(app, ws="websockets-sansio") as url:
        async with connect("ws" + url.removeprefix("http") + "/chat", max_size=None) as ws:
            pairs = 200
            began = anyio.current_time()
            for i in range(pairs):
                await ws.send(json.dumps({"type": "resume", "requestId": f"q{i}", "id": "s"}))
                await ws.send(json.dumps({"type": "abort", "requestId": f"q{i}"}))
            await ws.send(json.dumps({"type": "resume", "requestId": "last", "id": "s"}))
            refused = 0
            while (frame := json.loads(await ws.recv()))["requestId"] != "last" or frame["type"] == "chunk":
                refused += frame["type"] == "error" and frame["errorText"].startswith("429: too many resumes")
            took = anyio.current_time() - began
    # The bucket's burst (5) and 5 a second after it; every other resume was refused before find_log.
    assert len(looked) <= 5 + 5 * took + 1, (len(looked), took)
    assert refused >= pairs - len(looked)


@pytest.mark.anyio
@pytest.mark.parametrize("ws", ["websockets-sansio", "wsproto"])
async def test_hostile_clients_never_crash_the_server_nor_grow_it_past_the_bound(ws: str) -> None:
    """Clients that never read (``max_requests`` resumes of a long running
    reply each, or floods of resumes and aborts), frames over the limits,
    malformed frames: every one of their sockets is closed, the server's
    traced memory stays under the bound docs/untrusted-peers.md states for
    Vercel's socket, and a normal client still reads the exact reply."""
    max_requests = 3
    log = EventLog()
    events = long_reply(80_000)  # 8.6 MB of text: far more than the kernel's buffers hold
    await log.extend(events[:-1])  # open: the requests stay
    hostile = Hostile(chat_socket(lambda websocket, chat: log if chat.session_id == "s" else None,
                                  lambda *_: None, max_frame_bytes=4096, send_timeout=1.0, frames_per_second=100,
                                  max_requests=max_requests))

    async def end(request: Request) -> Response:  # the reply's end, written on the server's loop
        await log.append(events[-1])
        return Response(status_code=204)

    app = Starlette(routes=[WebSocketRoute("/chat", hostile.endpoint), Route("/end", end, methods=["POST"])])
    never, floods = 4, 3
    reply = len(wire.json.encode(log.replies["r1"]))  # the reply so far, as JSON (more than its Python text)
    bridge = VercelBridge()  # what a resume of the running reply carries: its catch-up, then its end
    expected = bridge.join(copy_msg(log.replies["r1"])) + bridge.feed(events[-1])
    tracemalloc.start()
    try:
        with serve_asgi(app, ws=ws, ws_max_size=65536) as url:
            port = int(url.rsplit(":", 1)[1])
            await anyio.sleep(0.2)
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            resumes = b"".join(masked(json.dumps({"type": "resume", "requestId": f"q{i}", "id": "s"}).encode())
                               for i in range(max_requests))
            # Resumes of no session and aborts of no request: a no-active each, then (past the resume bucket)
            # a 429 each, the aborts unanswered; the server's answers fill the buffers only slowly.
            flood = (masked(b'{"type":"resume","requestId":"f","id":"nosuch"}')
                     + masked(b'{"type":"abort","requestId":"f"}')) * 1000
            await hostile.attack(port, "/chat", stalled=never, stalled_frames=resumes, floods=floods, flood=flood,
                                 bad=[b"{", b"\xff", b'{"type":"resume","requestId":1}', b"[]"])
            grown = tracemalloc.get_traced_memory()[1] - base
            # The bound of docs/untrusted-peers.md for Vercel's socket. Every socket: the frame being read
            # (uvicorn's ws_max_size) and the endpoint's copy; 4 x the frame being sent (made once the socket
            # is free: the frame, its text, uvicorn's bytes and its serialisation), a chunk's frame, at most
            # MAX_DELTA characters of a delta (6 bytes each, escaped) or a batch's merged delta (512 of the log's
            # deltas); uvicorn's write buffer (64 KiB) and 64 KiB of the socket's own objects.
            frame = max(6 * MAX_DELTA, MAX_BATCH * 120) + 200
            per_socket = 2 * 65536 + 4 * frame + 64 * 1024 + 64 * 1024
            # A socket that resumes: max_requests requests, each with its bridge's copy of the reply (its Msg)
            # and the piece of chunks it is sending (up to a batch of 512 entries, ~1 KiB each as chunks);
            # and, while its reader takes a resume, the session's copy at its peak (the Msg as JSON and
            # decoded, 4 x the reply).
            per_resumer = max_requests * (reply + MAX_BATCH * 1024) + 4 * reply
            # A flood: uvicorn's queue of every frame of one read (asyncio reads up to 256 KiB; ~100 bytes each).
            queue = 256 * 1024 // len(masked(b'{"type":"abort","requestId":"f"}')) * 100
            # What the process shares: the log's Msg's text as UTF-8 (msgspec's first encode caches it in
            # the str), and 2 MiB (lazy imports, the store's caches).
            bound = len(hostile.socks) * per_socket + never * per_resumer + floods * queue + reply + 2 * 1024 * 1024
            assert grown < bound, (grown, bound)
            await hostile.leave()  # the floods were read at frames_per_second all along
            # A normal client, after: the reply so far, then its end, exactly.
            async with connect("ws" + url.removeprefix("http") + "/chat", max_size=None) as client:
                await client.send(json.dumps({"type": "resume", "requestId": "x", "id": "s"}))
                assert json.loads(await client.recv()) == {"type": "start", "requestId": "x"}
                async with httpx.AsyncClient() as http:
                    assert (await http.post(f"{url}/end")).status_code == 204
                frames = await frames_of(client, "x")
    finally:
        tracemalloc.stop()
    assert frames[-1] == {"type": "end", "requestId": "x"}
    assert [f["sequence"] for f in frames[:-1]] == list(range(len(frames) - 1))
    chunks = [f["chunk"] for f in frames[:-1]]
    # The catch-up's text went out in deltas of at most MAX_DELTA characters, the same text.
    assert max(len(c["delta"]) for c in chunks if c["type"] == "text-delta") == MAX_DELTA
    assert merged(chunks) == expected
