"""The answer endpoint (``wire.transports.http.answer_endpoint``) over both
stores: what it takes, appends and hands on; every malformed or out-of-turn
answer gets its 4xx and leaves the log as it was; one user can neither read
nor answer another's session; any body bytes get a 2xx or a 4xx; and every
body wire's client sends is one agentscope's own ``ChatRequest`` accepts."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

import wire
from tests.redis_server import RedisServer, redis_server
from wire import json as wire_json
from wire.blocks import ToolCallBlock, ToolCallState, ToolResultBlock, ToolResultState
from wire.stores import EventStore
from wire.stores.conformance import session
from wire.stores.memory import EventLog
from wire.transports.chat import ChatRequest, confirmation, decode_chat_request, encode_chat_request, waiting
from wire.transports.client import HTTPStatusError, answer
from wire.transports.http import Admit, Refused, answer_endpoint, sse_endpoint

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio

LIMIT = 8192


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def parked_session() -> tuple[list[wire.AgentEvent], wire.RequireUserConfirmEvent]:
    """The conformance session's events up to the park of its second reply
    (r1, tool call c1 asking); the first reply (r0) is over."""
    _, events = session(3)
    park = next(i for i, e in enumerate(events) if type(e) is wire.RequireUserConfirmEvent)
    request = events[park]
    assert isinstance(request, wire.RequireUserConfirmEvent)
    return events[:park + 1], request


def external_session() -> list[wire.AgentEvent]:
    """One reply (x1) parked on an external execution of call e1."""
    call = ToolCallBlock(id="e1", name="lookup", input="{}", state=ToolCallState.SUBMITTED)
    return [wire.ReplyStartEvent(session_id="s", reply_id="x1", name="Friday"),
            wire.ToolCallStartEvent(reply_id="x1", tool_call_id="e1", tool_call_name="lookup"),
            wire.ToolCallDeltaEvent(reply_id="x1", tool_call_id="e1", delta="{}"),
            wire.ToolCallEndEvent(reply_id="x1", tool_call_id="e1"),
            wire.RequireExternalExecutionEvent(reply_id="x1", tool_calls=[call])]


def result(call_id: str) -> ToolResultBlock:
    return ToolResultBlock(id=call_id, name="lookup", output="42", state=ToolResultState.SUCCESS)


@dataclass
class Service:
    """An app serving sessions owned by alice, with the store's logs."""

    http: httpx.AsyncClient
    logs: dict[str, EventStore]
    writer: Callable[[str], EventStore]
    """The log as another writer opens it (over Redis a new object, which
    takes on the replies others wrote)."""
    handed: list[ChatRequest] = field(default_factory=list)

    async def entries(self, session_id: str) -> list[tuple[str, bytes]]:
        log = self.logs[session_id]
        if isinstance(log, EventLog):
            return [(f"{log.epoch}-{log.first + i}", wire_json.encode(e)) for i, e in enumerate(log.events)]
        read = await log.read()  # type: ignore[attr-defined]
        return [(i, wire_json.encode(e)) for i, e in read]

    async def post(self, body: bytes | dict[str, Any], user: str | None = "alice") -> httpx.Response:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"content-type": "application/json", **({"x-user-id": user} if user else {})}
        return await self.http.post("/chat", content=content, headers=headers)


@contextlib.asynccontextmanager
async def service(store: str, server: RedisServer | None, sessions: dict[str, list[wire.AgentEvent]],
                  closed: tuple[str, ...] = (), *, admit: Admit | None = None,
                  refuse: Callable[[ChatRequest], bool] = lambda chat: False) -> AsyncIterator[Service]:
    """Sessions named by ``sessions``, written with their events, owned by
    alice, served in this process (httpx's ASGI transport)."""
    async with contextlib.AsyncExitStack() as stack:
        logs: dict[str, EventStore] = {}
        make: Any
        if store == "redis":
            assert server is not None
            import redis.asyncio as aioredis

            from wire.stores.redis import RedisEventLog

            client = await stack.enter_async_context(aioredis.Redis.from_url(server.url))
            prefix = uuid.uuid4().hex

            def make(sid: str) -> EventStore:  # a new object per request, as a replica makes it
                return RedisEventLog(client, f"answers:{prefix}:{sid}")
        else:
            def make(sid: str) -> EventStore:
                return logs[sid]
        for sid, events in sessions.items():
            logs[sid] = EventLog() if store == "memory" else make(sid)
            await logs[sid].extend(events)
            if sid in closed:
                await logs[sid].close()

        def authorize(request: Request, session_id: str) -> bool:
            user = request.headers.get("x-user-id")
            if not user:
                raise Refused(401, "who are you?")
            return session_id not in logs or user == "alice"

        def find_log(request: Request, chat: ChatRequest | None = None) -> EventStore | None:
            sid = chat.session_id if chat is not None else request.path_params["session_id"]
            return make(sid) if sid in logs else None

        handed: list[ChatRequest] = []

        def on_answer(chat: ChatRequest, log: EventStore, request: Request) -> None:
            if refuse(chat):
                raise Refused(409, "the agent will not start")
            handed.append(chat)

        app = Starlette(routes=[
            Route("/chat", answer_endpoint(find_log, on_answer, authorize=authorize, admit=admit,
                                           body_limit=LIMIT), methods=["POST"]),
            Route("/sessions/{session_id}/chat", answer_endpoint(find_log, lambda *_: None, authorize=authorize),
                  methods=["POST"]),
            Route("/sessions/{session_id}/stream", sse_endpoint(find_log, authorize=authorize, heartbeat=None)),
        ])
        transport = httpx.ASGITransport(app=app)
        http = await stack.enter_async_context(httpx.AsyncClient(transport=transport, base_url="http://test"))
        service = Service(http, logs, make)
        service.handed = handed
        yield service


STORES = ["memory", "redis"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def server(store: str, request: pytest.FixtureRequest) -> RedisServer | None:
    if store == "memory":
        return None
    pytest.importorskip("redis.asyncio")
    found: RedisServer = request.getfixturevalue("redis_server")
    return found


def body(value: Any, session_id: str = "s1") -> bytes:
    return encode_chat_request(ChatRequest(agent_id="a1", session_id=session_id, input=value))


def parked_msg() -> wire.Msg:
    events, _ = parked_session()
    conversation = wire.resume.Conversation()
    conversation.extend(events)
    msg = conversation.replies["r1"]
    return msg


async def test_a_confirmation_is_appended_handed_on_and_cannot_be_given_twice(
        store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}) as svc:
        before = await svc.entries("s1")
        answer_event = confirmation(parked_msg(), True)
        response = await svc.post(body(answer_event))
        assert response.status_code == 200, response.text
        reply = response.json()
        assert reply["status"] == "started" and reply["session_id"] == "s1"
        after = await svc.entries("s1")
        assert after[:-1] == before and after[-1][1] == wire_json.encode(answer_event)
        assert reply["entry_id"] == after[-1][0]
        assert [chat.input for chat in svc.handed] == [answer_event]
        assert type(svc.handed[0].input) is wire.UserConfirmResultEvent
        msg = (await svc.logs["s1"].snapshot())["r1"]
        assert waiting(msg).state == "running" and not waiting(msg).confirm
        again = await svc.post(body(answer_event))
        assert again.status_code == 409 and "waits for no confirmation" in again.text, again.text
        assert await svc.entries("s1") == after and len(svc.handed) == 1


def out_of_turn() -> list[tuple[str, bytes, int, str]]:
    """(what, body, status, a phrase of the reason) for answers the parked
    session s1 must refuse; r1 waits for a confirmation of c1."""
    msg = parked_msg()
    call = waiting(msg).confirm[0]
    good = confirmation(msg, True)
    valid = json.loads(body(good))

    def edit(path: list[Any], value: Any) -> bytes:
        data = json.loads(body(good))
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return json.dumps(data).encode()

    stray = ToolCallBlock(id="c9", name="search", input="{}")
    return [
        ("a call the request did not name", body(wire.UserConfirmResultEvent(
            reply_id="r1", confirm_results=[wire.ConfirmResult(confirmed=True, tool_call=stray)])), 409, "'c9'"),
        ("one call twice", body(wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[
            wire.ConfirmResult(confirmed=True, tool_call=call), wire.ConfirmResult(confirmed=False, tool_call=call)])),
         409, "twice"),
        ("no call at all", body(wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[])), 409, "no tool call"),
        ("an external result for a confirmation", body(wire.ExternalExecutionResultEvent(
            reply_id="r1", execution_results=[result("c1")])), 409, "no external result"),
        ("a reply that is over", body(wire.UserConfirmResultEvent(reply_id="r0", confirm_results=[
            wire.ConfirmResult(confirmed=True, tool_call=call)])), 409, "is over"),
        ("a reply the session never had", body(wire.UserConfirmResultEvent(reply_id="r7", confirm_results=[
            wire.ConfirmResult(confirmed=True, tool_call=call)])), 409, "no reply 'r7'"),
        ("an interrupt of a reply that is over", body(wire.UserInterruptEvent(reply_id="r0")), 409, "is over"),
        ("a new message while a reply is parked", body(wire.UserMsg("user", "and now?")), 409, "answer or interrupt"),
        ("null while a reply is parked", body(None), 409, "waits for an answer"),
        ("a list of messages while parked", body([wire.UserMsg("user", "hi")]), 409, "waits for an answer"),
        ("not JSON", b"{agent_id: 1}", 400, "malformed"),
        ("not an object", b"[1, 2]", 400, "at $"),
        ("no input", b'{"agent_id": "a1", "session_id": "s1"}', 400, "`input`"),
        ("a session id that is no string", edit(["session_id"], 5), 400, "$.session_id"),
        ("a tool call id that is no string", edit(["input", "confirm_results", 0, "tool_call", "id"], 1), 400,
         "$.input.confirm_results[0].tool_call.id"),
        ("confirmed that is no bool", edit(["input", "confirm_results", 0, "confirmed"], "yes"), 400,
         "$.input.confirm_results[0].confirmed"),
        ("an event that answers nothing", edit(["input"], {"type": "TEXT_BLOCK_DELTA", "reply_id": "r1"}), 400,
         "$.input.type"),
        ("a Msg of a bad role", edit(["input"], {"name": "u", "role": "robot", "content": []}), 400, "$.input.role"),
        ("a bad Msg in a list", edit(["input"], [json.loads(wire_json.encode(wire.UserMsg("u", "x"))),
                                                {"name": "u"}]), 400, "$.input[1]"),
        ("a number for input", edit(["input"], 7), 400, "$.input"),
        ("over the limit", json.dumps({**valid, "pad": "x" * LIMIT}).encode(), 413, "limit"),
        ("a session that does not exist", body(good, "nope"), 404, "no such session"),
    ]


async def test_every_malformed_or_out_of_turn_answer_gets_its_4xx_and_changes_nothing(
        store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}) as svc:
        before = await svc.entries("s1")
        snapshot = [wire_json.encode(m) for m in (await svc.logs["s1"].snapshot()).values()]
        for what, sent, status, reason in out_of_turn():
            response = await svc.post(sent)
            assert (response.status_code, reason in response.text) == (status, True), (what, response.text)
            assert await svc.entries("s1") == before, what
        assert not svc.handed
        assert [wire_json.encode(m) for m in (await svc.logs["s1"].snapshot()).values()] == snapshot
        # Answers from the wrong caller, or from nobody, are refused before the log is looked at.
        good = body(confirmation(parked_msg(), True))
        assert (await svc.post(good, user="mallory")).status_code == 403
        assert (await svc.post(good, user=None)).status_code == 401
        mismatch = await svc.http.post("/sessions/s2/chat", content=good, headers={"x-user-id": "alice"})
        assert mismatch.status_code == 400 and "URL" in mismatch.text
        assert await svc.entries("s1") == before and not svc.handed


async def test_one_user_can_neither_read_nor_answer_anothers_session(
        store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}, closed=("s1",)) as svc:
        for user, status in (("mallory", 403), (None, 401)):
            headers = {"x-user-id": user} if user else {}
            read = await svc.http.get("/sessions/s1/stream", headers=headers)
            assert read.status_code == status and "r1" not in read.text
            posted = await svc.post(body(confirmation(parked_msg(), True)), user=user)
            assert posted.status_code == status
        read = await svc.http.get("/sessions/s1/stream", headers={"x-user-id": "alice"})
        assert read.status_code == 200 and '"reply_id":"r1"' in read.text
        missing = await svc.http.get("/sessions/nope/stream", headers={"x-user-id": "alice"})
        assert missing.status_code == 404
        closed = await svc.post(body(confirmation(parked_msg(), True)))
        assert closed.status_code == 409 or store == "redis"  # only this process knows the memory log closed


async def test_an_external_result_then_an_interrupt(store: str, server: RedisServer | None) -> None:
    async with service(store, server, {"s1": external_session()}) as svc:
        wrong = await svc.post(body(wire.ExternalExecutionResultEvent(reply_id="x1", execution_results=[
            result("e1"), result("e2")])))
        assert wrong.status_code == 409 and "'e2'" in wrong.text
        done = wire.ExternalExecutionResultEvent(reply_id="x1", execution_results=[result("e1")])
        assert (await svc.post(body(done))).status_code == 200
        assert (await svc.post(body(done))).status_code == 409  # answered: e1 has its result
        assert (await svc.post(body(wire.UserMsg("user", "next")))).status_code == 409  # x1 still runs
        stop = wire.UserInterruptEvent(reply_id="x1")
        assert (await svc.post(body(stop))).status_code == 200
        assert [type(chat.input) for chat in svc.handed] == [wire.ExternalExecutionResultEvent,
                                                              wire.UserInterruptEvent]
        await svc.writer("s1").append(wire.ReplyEndEvent(session_id="s", reply_id="x1",
                                                       finished_reason=wire.ReplyFinishedReason.INTERRUPTED))
        assert (await svc.post(body(stop))).status_code == 409
        assert (await svc.post(body(wire.UserMsg("user", "next")))).status_code == 200  # a new turn


async def test_two_answers_at_once_one_is_taken(store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}) as svc:
        sent = body(confirmation(parked_msg(), True))
        statuses: list[int] = []

        async def post() -> None:
            statuses.append((await svc.post(sent)).status_code)

        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(post)
        assert sorted(statuses) == [200, 409, 409, 409]
        assert len(svc.handed) == 1


def ended_session() -> list[wire.AgentEvent]:
    """One reply (r0), over."""
    return [wire.ReplyStartEvent(session_id="s1", reply_id="r0", name="Friday"),
            wire.TextBlockStartEvent(reply_id="r0", block_id="t"),
            wire.TextBlockDeltaEvent(reply_id="r0", block_id="t", delta="hi"),
            wire.TextBlockEndEvent(reply_id="r0", block_id="t"),
            wire.ReplyEndEvent(session_id="s1", reply_id="r0")]


async def turns_in(svc: Service, session_id: str = "s1") -> list[wire.CustomEvent]:
    return [event for _, raw in await svc.entries(session_id)
            if type(event := wire_json.decode_event(raw)) is wire.CustomEvent and event.name == wire.session.TURN]


async def test_turns_posted_at_once_one_is_taken_and_written(store: str, server: RedisServer | None) -> None:
    # A double click, two tabs: before, every turn got 200 and started an agent run.
    async with service(store, server, {"s1": ended_session()}) as svc:
        statuses: list[int] = []

        async def post(text: str) -> None:
            statuses.append((await svc.post(body(wire.UserMsg("alice", text)))).status_code)

        async with anyio.create_task_group() as tg:
            for text in ("one", "two", "three"):
                tg.start_soon(post, text)
        assert sorted(statuses) == [200, 409, 409]
        assert len(svc.handed) == 1
        turns = await turns_in(svc)
        assert len(turns) == 1  # the turn is in the log: every reader on every replica sees the prompt
        msgs = wire.session.read_turn(turns[0])
        assert msgs is not None and svc.handed[0].input == msgs[0]


async def test_a_refusal_by_the_application_leaves_the_log_as_it_was(store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    refusing = True

    def admit(chat: ChatRequest, session: wire.session.Session, request: Request) -> None:
        if refusing:
            raise Refused(429, "too many requests")

    async with service(store, server, {"s1": events}, admit=admit) as svc:
        before = await svc.entries("s1")
        sent = body(confirmation(parked_msg(), True))
        assert (await svc.post(sent)).status_code == 429
        assert await svc.entries("s1") == before
        refusing = False
        assert (await svc.post(sent)).status_code == 200  # the retry is taken
        assert len(await svc.entries("s1")) == len(before) + 1


async def test_a_turn_the_agent_hook_refuses_is_withdrawn(store: str, server: RedisServer | None) -> None:
    refused: list[ChatRequest] = []

    def refuse(chat: ChatRequest) -> bool:
        if not refused:
            refused.append(chat)
            return True
        return False

    async with service(store, server, {"s1": ended_session()}, refuse=refuse) as svc:
        assert (await svc.post(body(wire.UserMsg("alice", "hi")))).status_code == 409
        assert (await svc.post(body(wire.UserMsg("alice", "hi")))).status_code == 200  # not stuck on the first
        assert len(svc.handed) == 1


async def test_an_interrupt_ends_the_replys_wait(store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}) as svc:
        stop = body(wire.UserInterruptEvent(reply_id="r1"))
        assert (await svc.post(stop)).status_code == 200
        second = await svc.post(stop)
        assert second.status_code == 409 and "interrupted" in second.text
        late = await svc.post(body(confirmation(parked_msg(), True)))
        assert late.status_code == 409 and "interrupted" in late.text
        assert [type(chat.input) for chat in svc.handed] == [wire.UserInterruptEvent]


async def test_a_closed_session_refuses_every_input(store: str, server: RedisServer | None) -> None:
    # On Redis an answer to a closed session got 200 and reopened it.
    events, _ = parked_session()
    async with service(store, server, {"s1": events}, closed=("s1",)) as svc:
        before = await svc.entries("s1")
        for value in (confirmation(parked_msg(), True), wire.UserInterruptEvent(reply_id="r1"),
                      wire.UserMsg("alice", "hi")):
            response = await svc.post(body(value))
            assert response.status_code == 409 and "closed" in response.text
        assert await svc.entries("s1") == before and not svc.handed


async def test_a_failing_store_is_a_503() -> None:
    class Failing(EventLog):
        async def session(self) -> wire.session.Session:
            raise wire.StoreError("the connection went away", key="s1")

    log = Failing()
    app = Starlette(routes=[Route("/chat", answer_endpoint(lambda request, chat: log, lambda *_: None),
                                  methods=["POST"])])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        response = await http.post("/chat", content=body(wire.UserMsg("alice", "hi")))
    assert response.status_code == 503 and "went away" in response.text


# -- any bytes: a 2xx or a 4xx, never a 500 ---------------------------------------------------------


def json_values() -> st.SearchStrategy[Any]:
    return st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                     max_size=3), max_leaves=12)


def mutated_bodies() -> st.SearchStrategy[bytes]:
    """Valid bodies with one value replaced anywhere, or cut short."""
    bases = [json.loads(body(b)) for b in (confirmation(parked_msg(), True), wire.UserMsg("u", "x"), None,
                                           wire.UserInterruptEvent(reply_id="r1"))]

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        data = json.loads(json.dumps(draw(st.sampled_from(bases))))
        node = data
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node)) if isinstance(node, dict) else st.integers(0, len(node) - 1))
            if not isinstance(node[key], dict | list) or draw(st.booleans()):
                node[key] = draw(json_values())
                break
            node = node[key]
        raw = json.dumps(data).encode()
        return raw[:draw(st.integers(0, len(raw)))] if draw(st.booleans()) else raw

    return build()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | mutated_bodies())
def test_any_body_gets_a_2xx_or_a_4xx_never_a_500(sent: bytes) -> None:
    events, _ = parked_session()

    async def main() -> int:
        async with service("memory", None, {"s1": events}) as svc:
            response = await svc.post(sent)
            return response.status_code

    status = anyio.run(main)
    assert 200 <= status < 300 or 400 <= status < 500, status


# -- agentscope's own ChatRequest accepts what wire's client sends -----------------------------------


def bodies_the_client_sends() -> Iterator[tuple[str, Any]]:
    msg = parked_msg()
    yield "allow", confirmation(msg, True)
    yield "deny", confirmation(msg, {"c1": False})
    yield "external", wire.ExternalExecutionResultEvent(reply_id="x1", execution_results=[
        result("e1"), ToolResultBlock(id="e2", name="f", output=[wire.TextBlock(text="ok")])])
    yield "a message", wire.UserMsg("user", "What is in notes.txt?")
    yield "messages", [wire.UserMsg("user", "one"), wire.UserMsg("user", "two")]
    yield "null", None


async def test_agentscope_chat_request_accepts_every_body_the_client_sends() -> None:
    schema = pytest.importorskip("agentscope.app._router._schema._chat")
    sent: list[bytes] = []

    def capture(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        return httpx.Response(200, json={"status": "started", "session_id": "s1"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(capture)) as http:
        for what, value in bodies_the_client_sends():
            answered = await answer("http://test/chat", agent_id="a1", session_id="s1", input=value, client=http)
            assert answered.status == 200 and answered.entry_id is None, what
            parsed = schema.ChatRequest.model_validate_json(sent[-1])
            theirs = parsed.input
            if value is None:
                assert theirs is None
            elif isinstance(value, list):
                assert [m.id for m in theirs] == [m.id for m in value], what
            else:
                assert type(theirs).__name__ == type(value).__name__, what
                if hasattr(value, "reply_id"):
                    assert theirs.reply_id == value.reply_id
            # And what agentscope writes of it, wire reads back to the same input.
            again = decode_chat_request(parsed.model_dump_json().encode())
            mine = decode_chat_request(sent[-1])
            assert body(again.input) == body(mine.input), what


async def test_the_client_raises_the_servers_refusal(store: str, server: RedisServer | None) -> None:
    events, _ = parked_session()
    async with service(store, server, {"s1": events}) as svc:
        with pytest.raises(HTTPStatusError) as refused:
            await answer("http://test/chat", agent_id="a1", session_id="s1", input=wire.UserMsg("u", "hi"),
                         client=svc.http, headers={"x-user-id": "alice"})
        assert refused.value.status == 409 and "answer or interrupt" in str(refused.value)
        assert refused.value.content_type.startswith("text/plain")
        answered = await answer("http://test/chat", agent_id="a1", session_id="s1",
                                input=confirmation(parked_msg(), False), client=svc.http,
                                headers={"x-user-id": "alice"})
        assert answered.status == 200 and answered.entry_id == (await svc.entries("s1"))[-1][0]
