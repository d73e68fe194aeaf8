"""``wire.bridges.agui_http.agui_endpoint`` over a session's log: a thread is
a session, a run is one reply. The real ``@ag-ui/client`` HttpAgent (real
fetch) holds a three-turn conversation with confirmations over uvicorn, on
the in-memory log and on Redis, while a wire ``Follower`` reads the same
session; and each way the endpoint used to go wrong over a session (issue 30)
has a test of its own: turn 2 served reply 1's first run, the application
had to check a ``resume`` itself, tool messages resent with the history
counted as answers, and invalid UTF-8 in a key the model ignores started a
run."""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import wire
from tests.bridges.agui_client import CLIENT_DIR, _node, mismatches, needs_client
from tests.helpers import serve_asgi
from tests.redis_server import RedisServer, redis_server
from tests.transports.chat_app import AGENT, Sessions, new_turn, resumed, user_of
from wire.bridges.agui import RunInput, answered_ids, parse_run_input
from wire.bridges.agui_http import agui_endpoint
from wire.errors import DecodeError
from wire.resume import Conversation
from wire.session import ANSWERS, ChatRequest, read_turn
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.client import Follower
from wire.transports.http import sse_endpoint

__all__ = ("redis_server",)  # the fixture, imported to be used here

ME = {"x-user-id": "alice"}


async def held_turn(log: EventStore, session_id: str, reply_id: str, gate: anyio.Event) -> None:
    """A reply that stops half-way through its text until the test lets it go on."""
    await log.extend([wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name=AGENT),
                      wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}-t"),
                      wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-t", delta="held, ")])
    await gate.wait()
    await log.extend([wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-t", delta="then done"),
                      wire.TextBlockEndEvent(reply_id=reply_id, block_id=f"{reply_id}-t"),
                      wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id)])


@dataclass
class Service:
    """tests/transports/chat_app.py's agent (a turn streams text and a
    ``delete_file`` call and parks for a confirmation, or for an external
    result when the user says "external"; the answer finishes the reply),
    served to AG-UI at ``POST /agui`` and to wire's readers at
    ``GET /sessions/{id}/stream``. A turn saying "silent" starts no agent;
    one saying "hold" stops half-way until ``POST /release``."""

    sessions: Sessions
    pause: float = 0.001
    handed: list[ChatRequest] = field(default_factory=list)
    gate: anyio.Event | None = None

    def app(self) -> Starlette:
        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            await self.sessions.open()
            self.gate = anyio.Event()
            async with anyio.create_task_group() as tasks:
                app.state.tasks = tasks
                yield
                tasks.cancel_scope.cancel()
            await self.sessions.aclose()

        async def authorize(request: Request, session_id: str) -> bool:
            owner = await self.sessions.owner(session_id)
            return owner is None or owner == user_of(request)

        async def find_log(request: Request, chat: ChatRequest | None = None) -> EventStore | None:
            return await self.sessions.find(chat.session_id if chat is not None else request.path_params["session_id"])

        async def on_input(chat: ChatRequest, log: EventStore, request: Request) -> None:
            self.handed.append(chat)
            tasks = request.app.state.tasks
            if isinstance(chat.input, ANSWERS):
                tasks.start_soon(resumed, log, chat.session_id, chat.input, self.pause)
                return
            msgs = chat.input if isinstance(chat.input, list) else [] if chat.input is None else [chat.input]
            text = " ".join(msg.get_text_content() or "" for msg in msgs)
            reply_id = f"r{len(await log.snapshot())}-{secrets.token_hex(3)}"
            if "hold" in text:
                assert self.gate is not None
                tasks.start_soon(held_turn, log, chat.session_id, reply_id, self.gate)
            elif "silent" not in text:
                tasks.start_soon(new_turn, log, chat.session_id, reply_id, "external" in text, self.pause)

        async def create(request: Request) -> Response:
            return JSONResponse({"session_id": await self.sessions.create(user_of(request))}, status_code=201)

        async def close(request: Request) -> Response:
            log = await self.sessions.find(request.path_params["session_id"])
            assert log is not None
            await log.close()
            return Response(status_code=204)

        async def release(request: Request) -> Response:
            assert self.gate is not None
            self.gate.set()
            return Response(status_code=204)

        return Starlette(lifespan=lifespan, routes=[
            Route("/sessions", create, methods=["POST"]),
            Route("/sessions/{session_id}/stream", sse_endpoint(find_log, authorize=authorize, heartbeat=0.5)),
            Route("/sessions/{session_id}/close", close, methods=["POST"]),
            Route("/release", release, methods=["POST"]),
            Route("/agui", agui_endpoint(find_log, on_input, authorize=authorize, heartbeat=0.5), methods=["POST"]),
        ])


@dataclass
class Served:
    url: str
    service: Service
    store: str
    redis_url: str | None = None

    def new_session(self) -> str:
        created = httpx.post(f"{self.url}/sessions", headers=ME, timeout=10)
        assert created.status_code == 201
        return str(created.json()["session_id"])

    def replies(self, session_id: str) -> dict[str, wire.Msg]:
        """Every reply's Msg as the store holds it, read once the session is quiet."""
        async def read() -> dict[str, wire.Msg]:
            if self.redis_url is None:
                return await self.service.sessions.logs[session_id].snapshot()
            import redis.asyncio as aioredis

            from wire.stores.redis import RedisEventLog
            client = aioredis.Redis.from_url(self.redis_url)
            try:
                return await RedisEventLog(client, f"chat:{{{session_id}}}").snapshot()
            finally:
                await client.aclose()

        return anyio.run(read)


@contextlib.contextmanager
def serving(store: str, redis_url: str | None = None) -> Iterator[Served]:
    service = Service(Sessions(redis_url))
    with serve_asgi(service.app()) as url:
        yield Served(url, service, store, redis_url)


@pytest.fixture(scope="module")
def memory() -> Iterator[Served]:
    with serving("memory") as served:
        yield served


@pytest.fixture(scope="module")
def on_redis(redis_server: RedisServer) -> Iterator[Served]:
    with serving("redis", redis_server.url) as served:
        yield served


def frames(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    """Each SSE frame of an AG-UI body: its ``id`` and its data as JSON."""
    out = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        data = [line[len("data: "):] for line in lines if line.startswith("data: ")]
        ids = [line[len("id: "):] for line in lines if line.startswith("id: ")]
        if data:
            out.append((ids[-1] if ids else None, json.loads("\n".join(data))))
    return out


def events(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    return [event for _, event in frames(response.text)]


def run(served: Served, session_id: str, messages: list[dict[str, Any]], **fields: Any) -> httpx.Response:
    body = {"threadId": session_id, "runId": secrets.token_hex(4), "messages": messages, **fields}
    return httpx.post(f"{served.url}/agui", json=body, headers=ME, timeout=30)


def user(n: int, text: str = "tidy up") -> dict[str, Any]:
    return {"id": f"user-{n}", "role": "user", "content": text}


def text_of(agui: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in agui if e["type"] == "TEXT_MESSAGE_CONTENT")


def approve(interrupt: str, approved: bool = True, **payload: Any) -> list[dict[str, Any]]:
    return [{"interruptId": interrupt, "status": "resolved", "payload": {"approved": approved, **payload}}]


# -- the real client, three turns ------------------------------------------------------------------


@needs_client
@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_real_client_holds_a_three_turn_session(request: pytest.FixtureRequest, store: str) -> None:
    """allow, deny, allow: every run ends, each turn is two runs of its own
    reply (the interrupt, then the rest), every message is held once and
    matches its reply's Msg, and a Follower of the same session, reading
    while the client talks, rebuilds every reply byte for byte. In memory,
    and on a real redis-server."""
    served: Served = request.getfixturevalue("memory" if store == "memory" else "on_redis")
    session_id = served.new_session()
    plan = ["allow", "deny", "allow"]

    async def talk() -> tuple[subprocess.CompletedProcess[bytes], Conversation]:
        follower = Follower(f"{served.url}/sessions/{session_id}/stream", headers=ME)
        read: dict[str, Any] = {}

        async def follow() -> None:
            read["conversation"] = await follower.run()

        with anyio.fail_after(120):  # a hang guard: a response that never ends fails here
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(follow)
                done = await anyio.run_process(
                    [_node(), "run-session.mjs", f"{served.url}/agui", session_id, ",".join(plan), json.dumps(ME)],
                    cwd=CLIENT_DIR, check=False)
                async with httpx.AsyncClient() as http:
                    closed = await http.post(f"{served.url}/sessions/{session_id}/close", headers=ME)
                    assert closed.status_code == 204
        return done, read["conversation"]

    done, conversation = anyio.run(talk)
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    replies = served.replies(session_id)
    assert len(replies) == 3 and report["warnings"] == []

    # Each turn: its own reply's first run, ending at the park, then the run after the answer.
    for turn, decision, reply_id in zip(report["turns"], plan, replies, strict=True):
        runs = turn["runs"]
        assert [r["runId"] for r in runs] == [reply_id, f"{reply_id}.1"], runs
        assert [r["outcome"]["type"] for r in runs] == ["interrupt", "success"]
        assert all("error" not in r and "runError" not in r for r in runs)
        assert [i["id"] for i in runs[0]["outcome"]["interrupts"]] == [f"{reply_id}-call.confirm"]
        assert [entry["payload"]["approved"] for entry in runs[1]["resume"]] == [decision == "allow"]
        assert turn["pendingInterrupts"] == []

    # Every message once; the users' in the log as the client wrote them; each reply as its Msg.
    messages = report["messages"]
    assert len({m["id"] for m in messages}) == len(messages)
    assert [m["id"] for m in messages if m["role"] == "user"] == ["user-1", "user-2", "user-3"]
    turns = [read_turn(event) for event in conversation.custom]
    assert [[msg.id for msg in msgs] for msgs in turns if msgs is not None] == [["user-1"], ["user-2"], ["user-3"]]
    for (reply_id, msg), turn in zip(replies.items(), report["turns"], strict=True):
        ids = {block.id for block in msg.content} | {f"{block.id}.result" for block in msg.content
                                                     if isinstance(block, wire.ToolResultBlock)}
        mine = {"messages": [m for m in messages if m["id"] in ids], "runs": turn["runs"], "warnings": []}
        assert mismatches(msg, mine) == [], reply_id
    outcomes = [[m["content"] for m in messages if m["role"] == "tool" and m["id"].startswith(r)] for r in replies]
    assert outcomes == [["deleted"], [], ["deleted"]]
    assert all(m["role"] == "user" or any(m["id"].startswith(r) for r in replies) for m in messages)

    # The Follower read the same session and built the same bytes.
    assert list(conversation.replies) == list(replies)
    for reply_id, msg in replies.items():
        assert wire.json.encode(conversation.replies[reply_id]) == wire.json.encode(msg)


# -- regressions (issue 30) ------------------------------------------------------------------------


def test_turn_two_gets_its_own_reply_not_reply_one_again(memory: Served) -> None:
    """Over a session log, the second turn's response began with reply 1's
    first run again (same runId, the old interrupt)."""
    session_id = memory.new_session()
    first = events(run(memory, session_id, [user(1)]))
    [interrupt] = first[-1]["outcome"]["interrupts"]
    rest = events(run(memory, session_id, [user(1)], resume=approve(interrupt["id"])))
    assert rest[-1]["outcome"] == {"type": "success"}
    second = events(run(memory, session_id, [user(1), user(2)]))
    reply_1, reply_2 = memory.service.sessions.logs[session_id].replies
    assert first[0]["runId"] == reply_1 and rest[0]["runId"] == f"{reply_1}.1"
    assert [e["runId"] for e in second if e["type"].startswith("RUN_")] == [reply_2, reply_2]
    assert {e.get("messageId") for e in second} - {None} == {f"{reply_2}-t"}
    assert second[-1]["outcome"]["interrupts"][0]["id"] == f"{reply_2}-call.confirm"


def test_a_resume_is_checked_and_written_by_the_endpoint(memory: Served) -> None:
    """The application no longer re-implements the answer checks for
    ``resume``: the endpoint builds the USER_CONFIRM_RESULT from the parked
    reply, the session refuses what it cannot take (nothing written), and
    on_input gets the answer once it is in the log."""
    session_id = memory.new_session()
    log = memory.service.sessions.logs[session_id]
    park = events(run(memory, session_id, [user(1)]))[-1]
    [interrupt] = park["outcome"]["interrupts"]
    written = len(log.events)

    stray = run(memory, session_id, [user(1)], resume=approve("nobody.confirm"))
    assert stray.status_code == 409 and "no reply of the session made" in stray.text
    bad = run(memory, session_id, [user(1)], resume=[{"interruptId": interrupt["id"], "status": "resolved",
                                                     "payload": {"approved": "yes"}}])
    assert bad.status_code == 400 and "$.resume[0].payload.approved" in bad.text
    turn = run(memory, session_id, [user(1), user(2)])
    assert turn.status_code == 409 and "waits for an answer" in turn.text
    assert len(log.events) == written

    edited = {"path": "other.txt"}
    taken = events(run(memory, session_id, [user(1)], resume=approve(interrupt["id"], editedArgs=edited)))
    assert taken[0]["input"]["resume"][0]["payload"] == {"approved": True, "editedArgs": edited}
    answer = memory.service.handed[-1].input
    assert isinstance(answer, wire.UserConfirmResultEvent) and answer.reply_id == park["runId"]
    [result] = answer.confirm_results
    assert result.confirmed and result.tool_call.id == interrupt["toolCallId"]
    assert json.loads(result.tool_call.input) == edited
    assert sum(type(e) is wire.UserConfirmResultEvent for e in log.events) == 1

    again = run(memory, session_id, [user(1)], resume=approve(interrupt["id"]))
    assert again.status_code == 409 and "over" in again.text
    assert sum(type(e) is wire.UserConfirmResultEvent for e in log.events) == 1


def test_a_cancelled_interrupt_denies_the_call(memory: Served) -> None:
    session_id = memory.new_session()
    [interrupt] = events(run(memory, session_id, [user(1)]))[-1]["outcome"]["interrupts"]
    rest = events(run(memory, session_id, [user(1)], resume=[{"interruptId": interrupt["id"], "status": "cancelled"}]))
    assert rest[-1]["outcome"] == {"type": "success"} and "left notes.txt alone" in text_of(rest)
    answer = memory.service.handed[-1].input
    assert isinstance(answer, wire.UserConfirmResultEvent) and not answer.confirm_results[0].confirmed


def test_answered_ids_counts_only_the_tool_messages_added_since_the_last_run() -> None:
    """``answered_ids`` counted every tool message of ``messages``, and the
    client resends them all with every run; only the ones it added since its
    last run (at the end) answer."""
    history = {"resume": [{"interruptId": "a"}], "messages": [
        {"role": "tool", "toolCallId": "old"}, {"role": "assistant", "id": "m"}, {"role": "user", "content": "hi"}]}
    assert answered_ids(parse_run_input(json.dumps(history).encode())) == {"a"}
    fresh = {"messages": [{"role": "tool", "toolCallId": "old"}, {"role": "assistant", "id": "m"},
                          {"role": "tool", "toolCallId": "b"}, {"role": "tool", "toolCallId": "c"}]}
    assert answered_ids(parse_run_input(json.dumps(fresh).encode())) == {"b", "c"}
    assert answered_ids(RunInput()) == set()


def test_tool_messages_resent_with_the_history_are_not_answers(memory: Served) -> None:
    """Over a session: an external result answered with a tool message, then
    a new turn whose history holds that tool message is a turn, not a second
    answer (which the session would refuse: 409)."""
    session_id = memory.new_session()
    first = events(run(memory, session_id, [user(1, "run it external")]))
    [call_id] = first[-1]["outcome"]["pendingToolCallIds"]
    said = [user(1, "run it external"), {"id": "a1", "role": "assistant", "content": text_of(first)},
            {"id": "tool-1", "role": "tool", "toolCallId": call_id, "content": "42"}]
    rest = events(run(memory, session_id, said))
    assert rest[-1]["outcome"] == {"type": "success"} and "have the result" in text_of(rest)
    # The client holds its own tool message: no second one for the same call.
    assert [e for e in rest if e["type"] == "TOOL_CALL_RESULT"] == []
    answer = memory.service.handed[-1].input
    assert isinstance(answer, wire.ExternalExecutionResultEvent)
    assert [(r.id, r.output) for r in answer.execution_results] == [(call_id, "42")]
    second = run(memory, session_id, [*said, {"id": "a2", "role": "assistant", "content": text_of(rest)}, user(2)])
    reply_2 = list(memory.service.sessions.logs[session_id].replies)[1]
    assert events(second)[0]["runId"] == reply_2


BAD_UTF8 = b'{"threadId":"t","messages":[],"state":{"note":"ok \xc3"}}'  # byte 50 begins a sequence it never ends


def test_invalid_utf8_in_an_ignored_key_is_a_decode_error_naming_the_byte() -> None:
    """Keys RunInput does not name are skipped by msgspec without reading
    their strings, so ``{"a":"\\xff"}`` started a run."""
    for body, at in ((b'{"a":"\xff"}', 6), (BAD_UTF8, 50)):
        with pytest.raises(DecodeError) as raised:
            parse_run_input(body)
        assert raised.value.offset == at and "invalid UTF-8" in str(raised.value)
    logs = {"r": EventLog()}
    app = Starlette(routes=[Route("/agui/{id}", agui_endpoint(lambda request, run_input: logs["r"]),
                                  methods=["POST"])])
    with serve_asgi(app) as url:
        response = httpx.post(f"{url}/agui/r", content=BAD_UTF8, timeout=10)
    assert response.status_code == 400 and "invalid UTF-8" in response.text and "byte 50" in response.text


def test_invalid_utf8_anywhere_is_a_400_on_a_session_too(memory: Served) -> None:
    response = httpx.post(f"{memory.url}/agui", content=BAD_UTF8, headers=ME, timeout=10)
    assert response.status_code == 400 and "invalid UTF-8" in response.text and "byte 50" in response.text


# -- what else a session needs ---------------------------------------------------------------------


def test_rejoining_a_run_mid_way_with_last_event_id(memory: Served) -> None:
    """A client cut off inside a turn's run comes back with the id of the
    last frame it read: the same run, re-opened (issue 20's prelude), and
    the rest; no text twice, none missing."""
    memory.service.pause = 0.01
    try:
        session_id = memory.new_session()
        body = {"threadId": session_id, "runId": "x", "messages": [user(1)]}
        got: list[tuple[str | None, dict[str, Any]]] = []
        with httpx.stream("POST", f"{memory.url}/agui", json=body, headers=ME, timeout=30) as response:
            buffer = ""
            for chunk in response.iter_text():
                buffer += chunk
                complete, _, buffer = buffer.rpartition("\n\n")
                got += frames(complete)
                if sum(e["type"] == "TEXT_MESSAGE_CONTENT" for _, e in got) >= 5:
                    break
        cut = got[-1][0]
        assert cut is not None
        rejoined = httpx.post(f"{memory.url}/agui", json={"threadId": session_id}, timeout=30,
                              headers={**ME, "last-event-id": cut})
        rest = events(rejoined)
    finally:
        memory.service.pause = 0.001
    reply_id = next(iter(memory.service.sessions.logs[session_id].replies))
    assert rest[0] == {"type": "RUN_STARTED", "threadId": session_id, "runId": reply_id}
    assert rest[1]["type"] == "TEXT_MESSAGE_START" and rest[1]["messageId"] == f"{reply_id}-t"
    msg = memory.service.sessions.logs[session_id].replies[reply_id]
    assert text_of([e for _, e in got]) + text_of(rest) == msg.content[0].text  # type: ignore[union-attr]
    assert rest[-1]["outcome"]["type"] == "interrupt"
    # At the park the run is over: nothing to rejoin.
    at_park = httpx.post(f"{memory.url}/agui", json={"threadId": session_id}, timeout=30,
                         headers={**ME, "last-event-id": frames(rejoined.text)[-1][0] or ""})
    assert at_park.status_code == 204


def test_a_request_with_nothing_new_joins_the_reply_under_way(memory: Served) -> None:
    """A second tab (or a reload) runs with the history and no new message
    while a reply streams: it gets the join prelude and the live rest, and
    no turn is taken."""
    session_id = memory.new_session()

    async def data(lines: AsyncIterator[str], until: str | None = None) -> list[dict[str, Any]]:
        got = []
        async for line in lines:
            if line.startswith("data: "):
                got.append(json.loads(line[6:]))
                if until is not None and got[-1]["type"] == until:
                    break
        return got

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        with anyio.fail_after(60):  # a hang guard
            return await talk()

    async def talk() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with httpx.AsyncClient(base_url=memory.url, headers=ME, timeout=30) as http:
            body = {"threadId": session_id, "runId": "x", "messages": [user(1, "hold on")]}
            async with http.stream("POST", "/agui", json=body) as first:
                first_lines = first.aiter_lines()
                head = await data(first_lines, until="TEXT_MESSAGE_CONTENT")  # the reply is held after this
                again = {**body, "messages": [user(1, "hold on"), {"id": "a", "role": "assistant"}]}
                async with http.stream("POST", "/agui", json=again) as second:
                    second_lines = second.aiter_lines()
                    joined = await data(second_lines, until="TEXT_MESSAGE_CONTENT")  # the prelude
                    assert (await http.post("/release")).status_code == 204
                    joined += await data(second_lines)
                head += await data(first_lines)
        return head, joined

    head, joined = anyio.run(scenario)
    reply_id = next(iter(memory.service.sessions.logs[session_id].replies))
    assert joined[0] == {"type": "RUN_STARTED", "threadId": session_id, "runId": reply_id}
    assert text_of(joined) == text_of(head) == "held, then done"
    assert joined[-1]["outcome"] == {"type": "success"} and head[-1] == joined[-1]
    assert len([c for c in memory.service.handed if c.session_id == session_id]) == 1  # no second turn


def test_an_answer_on_a_trimmed_log_starts_from_the_park(memory: Served) -> None:
    """A bounded log no longer holds the reply's beginning: the bridge starts
    from the parked reply's Msg and the run after the answer is still whole."""
    session_id = memory.new_session()
    memory.service.sessions.logs[session_id] = EventLog(max_events=8)
    [interrupt] = events(run(memory, session_id, [user(1)]))[-1]["outcome"]["interrupts"]
    rest = events(run(memory, session_id, [user(1)], resume=approve(interrupt["id"])))
    reply_id = next(iter(memory.service.sessions.logs[session_id].replies))
    assert rest[0]["runId"] == f"{reply_id}.1"
    assert rest[0]["input"]["resume"][0]["interruptId"] == interrupt["id"]
    assert [e["content"] for e in rest if e["type"] == "TOOL_CALL_RESULT"] == ["deleted"]
    assert text_of(rest) == "Done: notes.txt is gone. " and rest[-1]["outcome"] == {"type": "success"}


def test_a_turn_whose_reply_never_begins_ends_when_the_session_closes(memory: Served) -> None:
    session_id = memory.new_session()

    async def scenario() -> httpx.Response:
        got: dict[str, httpx.Response] = {}
        with anyio.fail_after(60):  # a hang guard
            async with httpx.AsyncClient(base_url=memory.url, headers=ME, timeout=30) as http:
                async def turn() -> None:
                    got["r"] = await http.post("/agui", json={"threadId": session_id, "messages": [user(1, "silent")]})

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(turn)
                    while not memory.service.sessions.logs[session_id].events:  # the turn is written
                        await anyio.sleep(0.01)
                    assert (await http.post(f"/sessions/{session_id}/close")).status_code == 204
        return got["r"]

    response = anyio.run(scenario)
    agui = events(response)
    assert [e["type"] for e in agui] == ["RUN_STARTED", "RUN_ERROR"]
    assert agui[-1]["code"] == "agentscope.incomplete"


def test_bad_requests(memory: Served) -> None:
    session_id = memory.new_session()
    assert httpx.post(f"{memory.url}/agui", json={"messages": [user(1)]}, headers=ME, timeout=10).status_code == 400
    assert run(memory, "no-such-session", [user(1)]).status_code == 404
    other = httpx.post(f"{memory.url}/agui", json={"threadId": session_id, "messages": [user(1)]}, timeout=10,
                       headers={"x-user-id": "mallory"})
    assert other.status_code == 403
    part = run(memory, session_id, [{"id": "u", "role": "user", "content": [{"type": "image", "source": {
        "type": "file", "value": "f1"}}]}])
    assert part.status_code == 400 and "$.messages[0].content[0].source" in part.text
    assert memory.service.sessions.logs[session_id].events == []
