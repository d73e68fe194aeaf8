"""useChat over a session log: ai's real ``AbstractChat`` with its
``DefaultChatTransport`` (tests/clients-vercel/run.mjs, ``session``) against
``wire.bridges.vercel_http.chat_endpoint`` and ``resume_endpoint`` served by
uvicorn, on the in-memory log and on a real redis-server; a wire Follower of
the same session rebuilds every reply. Then the regressions of issue 30's
Vercel bullets, each failing on the code before it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import wire
from tests.bridges.confirming import S, asked, went_on
from tests.bridges.vercel_client import compare, needs_client, run_client
from tests.helpers import serve_asgi
from tests.redis_server import RedisServer, redis_server
from wire.blocks import PermissionBehavior, PermissionRule, ToolCallBlock, ToolCallState
from wire.bridges import vercel_http
from wire.bridges.vercel import VercelBridge
from wire.bridges.vercel_http import resume_endpoint, ui_message_stream_response
from wire.session import ChatRequest, checkpoint
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.client import Follower
from wire.transports.http import sse_endpoint

__all__ = ("redis_server",)  # the fixture, imported to be used here

async def agent(log: EventStore, chat: ChatRequest) -> None:
    """Stands in for an agent: each turn asks before deleting a file; the answer takes the reply on."""
    if isinstance(chat.input, wire.UserConfirmResultEvent):
        reply = chat.input.reply_id
        events = went_on(reply, f"{reply}-c", chat.input.confirm_results[0].confirmed)
    else:
        assert isinstance(chat.input, wire.Msg)
        n = len((await log.session()).replies) + 1
        events = asked(f"r{n}", f"r{n}-c", f"notes-{n}.txt")
    for event in events:  # paced, so that a response is read while its reply is written
        await log.append(event)
        await anyio.sleep(0.002)


class SessionApp:
    """useChat's backend: one log per chat, the agent started by the one hook."""

    def __init__(self, log_of: Callable[[str], EventStore]) -> None:
        self.log_of = log_of
        self.tasks: Any = None

    def find_log(self, request: Request, chat: ChatRequest | None = None) -> EventStore:
        return self.log_of(chat.session_id if chat is not None else request.path_params["id"])

    def on_input(self, chat: ChatRequest, log: EventStore, request: Request) -> None:
        self.tasks.start_soon(agent, log, chat)

    async def close(self, request: Request) -> Response:
        await self.find_log(request).close()
        return Response(status_code=204)

    def app(self, lifespan: Callable[[Starlette], Any] | None = None) -> Starlette:
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
            Route("/api/chat", vercel_http.chat_endpoint(self.find_log, self.on_input, heartbeat=0.2),
                  methods=["POST"]),
            Route("/api/chat/{id}/stream", resume_endpoint(self.find_log, heartbeat=0.2)),
            Route("/sessions/{id}/events", sse_endpoint(self.find_log, heartbeat=0.2)),
            Route("/sessions/{id}/close", self.close, methods=["POST"]),
        ])


TURNS = [{"text": "tidy up", "approve": True}, {"text": "and the rest", "approve": False},
         {"text": "one more", "approve": True}]


def run_session(base: str, tmp_path: Path) -> tuple[dict[str, Any], dict[str, wire.Msg], list[Any]]:
    """The client's three turns, then the session closed and read by a Follower."""
    result = json.loads(run_client("session", {"api": f"{base}/api/chat", "chatId": S, "turns": TURNS}, tmp_path))

    async def follow() -> tuple[dict[str, wire.Msg], list[Any]]:
        async with httpx.AsyncClient() as client:
            assert (await client.post(f"{base}/sessions/{S}/close")).status_code == 204
        conversation = await Follower(f"{base}/sessions/{S}/events").run()
        return conversation.replies, conversation.custom

    replies, custom = anyio.run(follow)
    return result, replies, custom


def check_session(result: dict[str, Any], replies: dict[str, wire.Msg], custom: list[Any],
                  stored: dict[str, wire.Msg]) -> None:
    assert result["errors"] == []
    steps = result["steps"]
    assert [s["what"] for s in steps] == ["sent tidy up", "answered true", "sent and the rest", "answered false",
                                          "sent one more", "answered true"]
    assert all(s["status"] == "ready" for s in steps), [(s["what"], s["status"]) for s in steps]
    # Each first response ends at the park: the call awaits approval.
    for step in steps[0::2]:
        parts = step["messages"][-1]["parts"]
        assert [p["state"] for p in parts if p["type"] == "tool-delete_file"] == ["approval-requested"]
    messages = steps[-1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3
    assert len({m["id"] for m in messages}) == 6  # every message once
    assert [m["id"] for m in messages[1::2]] == ["r1", "r2", "r3"]
    assert [m["parts"][-1]["text"] for m in messages[0::2]] == [t["text"] for t in TURNS]
    outcomes = [[(p["state"], p.get("approval", {}).get("approved")) for p in m["parts"]
                 if p["type"] == "tool-delete_file"] for m in messages[1::2]]
    assert outcomes == [[("output-available", True)], [("output-denied", False)], [("output-available", True)]]
    assert [[p["text"] for p in m["parts"] if p["type"] == "text"] for m in messages[1::2]] == [
        ["I will delete notes-1.txt.", "Deleted."], ["I will delete notes-2.txt.", "Kept it."],
        ["I will delete notes-3.txt.", "Deleted."]]
    # The same replies as agentscope's Msgs: the client's messages, and a wire Follower's, exactly.
    for message in messages[1::2]:
        compare(message, json.loads(wire.json.encode(stored[message["id"]])), message["id"], set())
    assert replies == stored
    assert list(replies) == ["r1", "r2", "r3"]
    # The turns the session holds are the user's messages, with the ids useChat gave them.
    turns = [c.value["msgs"][0] for c in custom if c.name == wire.session.TURN]
    assert [(t["id"], t["content"][0]["text"]) for t in turns] == [(m["id"], m["parts"][-1]["text"])
                                                                  for m in messages[0::2]]
    # A reloaded page resumes: nothing runs, 204, and it stays empty.
    assert result["reloaded"] == {"messages": [], "status": "ready"}


@needs_client
def test_use_chat_over_a_session_in_memory(tmp_path: Path) -> None:
    logs: dict[str, EventLog] = {}
    app = SessionApp(lambda id: logs.setdefault(id, EventLog()))
    with serve_asgi(app.app()) as base:
        result, replies, custom = run_session(base, tmp_path)
    check_session(result, replies, custom, logs[S].replies)


@needs_client
def test_use_chat_over_a_session_in_redis(tmp_path: Path, redis_server: RedisServer) -> None:
    aioredis = pytest.importorskip("redis.asyncio")
    from wire.stores.redis import RedisEventLog

    state: dict[str, Any] = {}
    key = f"vercel-session:{tmp_path.name}"

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state["client"] = aioredis.Redis.from_url(redis_server.url)
        yield
        await state["client"].aclose()

    # A new log object per request, as on replicas that share the Redis stream.
    app = SessionApp(lambda id: RedisEventLog(state["client"], f"{key}:{id}"))
    with serve_asgi(app.app(lifespan)) as base:
        result, replies, custom = run_session(base, tmp_path)

    async def stored() -> dict[str, wire.Msg]:
        client = aioredis.Redis.from_url(redis_server.url)
        try:
            return await RedisEventLog(client, f"{key}:{S}").snapshot()
        finally:
            await client.aclose()

    check_session(result, replies, custom, anyio.run(stored))


# -- the regressions of issue 30 ("Why", Vercel) ------------------------------------------------


def frames(body: bytes) -> list[Any]:
    """The chunks of a UI message stream body, ``[DONE]`` as the string."""
    out: list[Any] = []
    for frame in body.split(b"\n\n"):
        if frame.startswith(b"data: "):
            data = frame[6:]
            out.append("[DONE]" if data == b"[DONE]" else json.loads(data))
    return out


@contextlib.contextmanager
def served(log: EventStore, on_input: Callable[..., Any] | None = None) -> Iterator[httpx.Client]:
    find = lambda request, chat=None: log  # noqa: E731
    routes = [Route("/api/chat/{id}/stream", resume_endpoint(find, heartbeat=0.05))]
    if on_input is not None:
        routes.append(Route("/api/chat", vercel_http.chat_endpoint(find, on_input, heartbeat=0.05), methods=["POST"]))
    app = Starlette(routes=routes)
    with serve_asgi(app) as base, httpx.Client(base_url=base, timeout=10) as client:
        yield client


def user_message(id: str, text: str) -> dict[str, Any]:
    return {"id": id, "role": "user", "parts": [{"type": "text", "text": text}]}


def test_a_turns_response_ends_at_its_reply_end_though_the_session_stays_open() -> None:
    """Before, a response over a session log ended only when the log closed:
    useChat's status stayed "streaming" after the first answer."""
    log = EventLog()

    async def on_input(chat: ChatRequest, log: EventStore, request: Request) -> None:
        r = f"r{len((await log.session()).replies) + 1}"
        await log.extend([wire.ReplyStartEvent(session_id=S, reply_id=r, name="Friday"),
                          wire.TextBlockStartEvent(reply_id=r, block_id="t"),
                          wire.TextBlockDeltaEvent(reply_id=r, block_id="t", delta="Hello."),
                          wire.TextBlockEndEvent(reply_id=r, block_id="t"),
                          wire.ReplyEndEvent(session_id=S, reply_id=r)])

    with served(log, on_input) as client:
        response = client.post("/api/chat", json={"id": S, "messages": [user_message("u1", "hi")],
                                                  "trigger": "submit-message"})
        assert response.status_code == 200
        chunks = frames(response.content)
        assert chunks[0]["type"] == "start" and chunks[0]["messageId"] == "r1"
        assert chunks[-2:] == [{"type": "finish", "finishReason": "stop", "messageMetadata": {
            "agentscope": {"finished_reason": "completed"}}}, "[DONE]"]
        assert not log.closed
        # A second turn while none runs is taken; the answer is its own reply's only.
        response = client.post("/api/chat", json={"id": S, "messages": [user_message("u2", "again")]})
        assert response.status_code == 200
        assert {c["messageId"] for c in frames(response.content) if c != "[DONE]" and c["type"] == "start"} == {"r2"}


def test_after_the_park_on_a_trimmed_log_goes_on_from_the_checkpoint() -> None:
    """Before, ``ui_message_stream_response(log, after=<park>)`` on a bounded
    log waited for an entry with the park's id, which a checkpoint never has:
    the approval's response was just ``data: [DONE]``."""

    async def main() -> list[Any]:
        log = EventLog(max_events=3)
        ids = await log.extend(asked("r1", "c1", "a.txt"))
        park = ids[-1]
        await log.append(wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[
            wire.ConfirmResult(confirmed=True, tool_call=log.replies["r1"].content[1])]))  # type: ignore[arg-type]
        await log.extend(went_on("r1", "c1", True))
        await log.close()
        response = ui_message_stream_response(log, after=park)
        return frames(b"".join([bytes(p) async for p in response.body_iterator]))  # type: ignore[arg-type]

    chunks = anyio.run(main)
    assert chunks != ["[DONE]"]
    assert {"type": "text-delta", "id": "r1-t2", "delta": "Deleted."} in chunks
    assert {"type": "tool-output-available", "toolCallId": "c1", "output": "removed", "providerMetadata": {
        "agentscope": {"state": "success", "name": "delete_file", "metadata": {}}}} in chunks
    assert chunks[-1] == "[DONE]" and chunks[-2]["type"] == "finish"


RULES = [PermissionRule(tool_name="delete_file", rule_content="a.txt", behavior=PermissionBehavior.ALLOW,
                        source="session")]


def approvals(chunks: list[Any]) -> list[Any]:
    return [c for c in chunks if isinstance(c, dict) and c["type"].startswith("tool-approval")]


def test_join_sends_the_approval_request_with_its_descriptor() -> None:
    """Before, a catch-up from a checkpoint after the answer sent
    ``tool-approval-request`` without the ``approvalDescriptor`` the live
    stream carries."""
    events = [*asked("r1", "c1", "a.txt", RULES),
              wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[wire.ConfirmResult(
                  confirmed=True, tool_call=ToolCallBlock(id="c1", name="delete_file", input=""))]),
              wire.ReplyStartEvent(session_id=S, reply_id="r1", name="Friday")]
    live = approvals(VercelBridge().feed_all(events))
    joined = approvals(VercelBridge().feed(checkpoint(_msg_of(events))))
    assert live == joined == [
        {"type": "tool-approval-request", "approvalId": "c1.confirm", "toolCallId": "c1", "approvalDescriptor": {
            "agentscope": {"suggested_rules": [{"tool_name": "delete_file", "rule_content": "a.txt",
                                                "behavior": "allow", "source": "session"}]}}},
        {"type": "tool-approval-response", "approvalId": "c1.confirm", "approved": True}]


def test_join_sends_the_approval_of_a_call_that_already_ran() -> None:
    """Before, a catch-up from a checkpoint taken after an approved call ran
    sent no approval at all: the client's part had an output and no answer."""
    events = [*asked("r1", "c1", "a.txt", RULES),
              wire.UserConfirmResultEvent(reply_id="r1", confirm_results=[wire.ConfirmResult(
                  confirmed=True, tool_call=ToolCallBlock(id="c1", name="delete_file", input=""))]),
              *went_on("r1", "c1", True)]
    live = approvals(VercelBridge().feed_all(events))
    joined = approvals(VercelBridge().feed(checkpoint(_msg_of(events))))
    assert joined == live and len(live) == 2


def _msg_of(events: list[wire.AgentEvent]) -> wire.Msg:
    msg = wire.Msg(name="Friday", role="assistant", content=[], id="r1")
    msg.extend_events(events)
    return msg


def test_resume_answers_204_when_the_last_reply_is_parked() -> None:
    """Before, ``resume_endpoint`` over an open session log with one reply
    ended and the next parked answered 200 with the ended reply's chunks and
    never ended."""

    async def fill(log: EventLog) -> None:
        await log.extend([wire.ReplyStartEvent(session_id=S, reply_id="r0", name="Friday"),
                          wire.ReplyEndEvent(session_id=S, reply_id="r0"), *asked("r1", "c1", "a.txt")])

    log = EventLog()
    anyio.run(fill, log)
    with served(log) as client, client.stream("GET", f"/api/chat/{S}/stream") as response:
        assert response.status_code == 204  # (before: 200, and a body that never ended)


def test_resume_sends_the_running_reply_only_and_ends_at_its_end() -> None:
    log = EventLog()
    ended: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id=S, reply_id="r0", name="Friday"),
             wire.TextBlockStartEvent(reply_id="r0", block_id="old"),
             wire.TextBlockDeltaEvent(reply_id="r0", block_id="old", delta="old"),
             wire.TextBlockEndEvent(reply_id="r0", block_id="old"),
             wire.ReplyEndEvent(session_id=S, reply_id="r0")]
    head = asked("r1", "c1", "a.txt")[:3]
    tail: list[wire.AgentEvent] = [wire.TextBlockEndEvent(reply_id="r1", block_id="r1-t1"),
                                                   wire.ReplyEndEvent(session_id=S, reply_id="r1")]
    anyio.run(log.extend, [*ended, *head])

    async def main(base: str) -> list[Any]:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client, \
                client.stream("GET", f"/api/chat/{S}/stream") as response:
            assert response.status_code == 200
            body = b""
            async for piece in response.aiter_bytes():
                body += piece
                if b"I will delete" in body and not tail_sent:
                    tail_sent.append(True)
                    await client.post("/tail")
                if b'"type":"finish"' in body:
                    break  # a reply's end: the response must end here (before, it went on)
        return frames(body)

    tail_sent: list[bool] = []

    async def write_tail(request: Request) -> Response:
        await log.extend(tail)
        return Response(status_code=204)

    find = lambda request: log  # noqa: E731
    app = Starlette(routes=[Route("/api/chat/{id}/stream", resume_endpoint(find, heartbeat=0.05)),
                            Route("/tail", write_tail, methods=["POST"])])
    with serve_asgi(app) as base:
        chunks = anyio.run(main, base)
    assert not log.closed
    assert [c["type"] for c in chunks if c != "[DONE]"] == [
        "start", "text-start", "text-delta", "text-end", "finish"]
    assert chunks[0]["messageId"] == "r1" and chunks[-1] == "[DONE]"


@pytest.mark.parametrize(("body", "where"), [
    (b'{"id": "chat-1", "messages": [], "x": "\xff"}', "invalid UTF-8"),
    (b'{"id": 1, "messages": []}', "$.id"),
    (b'{"id": "chat-1", "messages": []}', "$.messages"),
    (b'{"id": "chat-1", "messages": [{"id": "u1", "role": "robot", "parts": []}]}', "$.messages[0].role"),
    (b'{"id": "chat-1", "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text"}]}]}', "$.parts[0].text"),
    (b'{"id": "chat-1", "trigger": "regenerate-message", "messages": [{"id": "u1", "role": "user"}]}', "$.trigger"),
])
def test_a_body_that_is_not_use_chats_is_a_400_naming_where(body: bytes, where: str) -> None:
    log = EventLog()
    with served(log, lambda chat, log, request: None) as client:
        response = client.post("/api/chat", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400 and where in response.text, response.text
    assert log.end == 0


def test_answers_the_session_cannot_take_are_409() -> None:
    log = EventLog()
    anyio.run(log.extend, asked("r1", "c1", "a.txt"))
    answered = {"id": "r1", "role": "assistant", "parts": [
        {"type": "tool-delete_file", "toolCallId": "c1", "state": "approval-responded", "input": {},
         "approval": {"id": "c1.confirm", "approved": True}}]}
    with served(log, lambda chat, log, request: agent(log, chat)) as client:
        # A new message while the reply waits for its answer.
        assert client.post("/api/chat", json={"id": S, "messages": [user_message("u2", "hi")]}).status_code == 409
        # An answer to a reply the session does not have, or naming no call it asked about.
        assert client.post("/api/chat", json={"id": S, "messages": [{**answered, "id": "r9"}]}).status_code == 409
        stray = {**answered, "parts": [{**answered["parts"][0], "toolCallId": "c9"}]}  # type: ignore[dict-item]
        response = client.post("/api/chat", json={"id": S, "messages": [stray]})
        assert response.status_code == 409 and "c9" in response.text
        # The answer is taken once; the same answer again is refused.
        first = client.post("/api/chat", json={"id": S, "messages": [answered]})
        assert first.status_code == 200 and frames(first.content)[0]["type"] == "tool-approval-response"
        assert client.post("/api/chat", json={"id": S, "messages": [answered]}).status_code == 409
    assert sum(isinstance(e, wire.UserConfirmResultEvent) for e in log.events) == 1


def test_outputs_of_tools_the_frontend_ran_answer_a_reply_handed_over() -> None:
    """useChat's addToolOutput for a call REQUIRE_EXTERNAL_EXECUTION handed to
    the frontend: the posted message's output is the EXTERNAL_EXECUTION_RESULT."""
    log = EventLog()
    call = ToolCallBlock(id="c1", name="locate", input="{}", state=ToolCallState.SUBMITTED)
    parked: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(session_id=S, reply_id="r1", name="Friday"),
        wire.ToolCallStartEvent(reply_id="r1", tool_call_id="c1", tool_call_name="locate"),
        wire.ToolCallEndEvent(reply_id="r1", tool_call_id="c1"),
        wire.RequireExternalExecutionEvent(reply_id="r1", tool_calls=[call])]
    anyio.run(log.extend, parked)

    async def on_input(chat: ChatRequest, log: EventStore, request: Request) -> None:
        await log.append(wire.ReplyEndEvent(session_id=S, reply_id="r1"))

    ran = {"id": "r1", "role": "assistant", "parts": [
        {"type": "tool-locate", "toolCallId": "c1", "state": "output-available", "input": {},
         "output": {"city": "Paris"}, "providerExecuted": False}]}
    with served(log, on_input) as client:
        response = client.post("/api/chat", json={"id": S, "messages": [ran]})
    assert response.status_code == 200 and frames(response.content)[-2]["type"] == "finish"
    [result] = [e for e in log.events if isinstance(e, wire.ExternalExecutionResultEvent)]
    assert [(r.id, r.output, r.state) for r in result.execution_results] == [("c1", '{"city":"Paris"}', "success")]
