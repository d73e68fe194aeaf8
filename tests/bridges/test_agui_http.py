"""``wire.bridges.agui_http`` on a real socket: uvicorn on 127.0.0.1 serving
EventLogs, the real ``@ag-ui/client`` HttpAgent with the real fetch on the
other side, resuming a parked reply run by run."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

import wire
from tests.bridges.agui_client import custom_mismatches, mismatches, needs_client, run_client_at
from tests.helpers import CASES, serve_asgi
from wire.bridges.agui import RunInput, answered_ids, parse_run_input
from wire.bridges.agui_http import agui_endpoint
from wire.stores.memory import EventLog

PARKS = (wire.RequireUserConfirmEvent, wire.RequireExternalExecutionEvent)


class Replies:
    """One EventLog per vector, fed live by a producer task on the server's
    loop. A producer stops after a park until a request answers it, as an
    agent waits for the user; ``find_log`` is where the app hears the answer."""

    def __init__(self) -> None:
        self.logs: dict[str, EventLog] = {}
        self.answered: dict[str, anyio.Event] = {}
        self.task_group: Any = None

    async def produce(self, name: str, events: list[wire.AgentEvent], log: EventLog) -> None:
        for event in events:
            await log.append(event)
            await anyio.sleep(0.3 if "@slow" in name and isinstance(event, wire.ReplyStartEvent) else 0.001)
            if isinstance(event, PARKS):
                await self.answered[name].wait()
                self.answered[name] = anyio.Event()
        await log.close()

    async def find_log(self, request: Request, run_input: RunInput) -> EventLog | None:
        name = request.path_params["name"]
        if name not in self.logs:
            case = next((c for c in CASES if c.name == name.partition("@")[0]), None)
            if case is None:
                return None
            events = wire.json.decode_events(case.events_jsonl)
            log = self.logs[name] = EventLog(wire.AssistantMsg("Friday", [], id=events[0].reply_id))  # type: ignore[union-attr]
            self.answered[name] = anyio.Event()
            if name.endswith("@closed"):  # the whole reply is there before anyone asks
                await log.extend(events)
                await log.close()
            else:
                self.task_group.start_soon(self.produce, name, events, log)
        if answered_ids(run_input):
            self.answered[name].set()
        return self.logs[name]

    def app(self) -> Starlette:
        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with anyio.create_task_group() as tg:
                self.task_group = tg
                yield
                tg.cancel_scope.cancel()

        return Starlette(routes=[Route("/agui/{name}", agui_endpoint(self.find_log, heartbeat=0.2),
                                       methods=["POST"])], lifespan=lifespan)


def sse_frames(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    """Each SSE frame of an AG-UI body: its ``id`` (None without one) and its data, as JSON."""
    frames = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        data = [line[len("data: "):] for line in lines if line.startswith("data: ")]
        ids = [line[len("id: "):] for line in lines if line.startswith("id: ")]
        if data:
            frames.append((ids[-1] if ids else None, json.loads("\n".join(data))))
    return frames


def agui_frames(text: str) -> list[dict[str, Any]]:
    return [frame for _, frame in sse_frames(text)]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve_asgi(Replies().app()) as url:
        yield url


# The vectors whose parks a client can answer by resuming: confirmations. (An
# external-execution park is answered with tool messages, which the harness
# does not write; its vector also ends without a continuation.)
SERVED = [c.name for c in CASES if c.name != "external_execution_result_appended"]


@needs_client
@pytest.mark.parametrize("mode", ["live", "closed"])
@pytest.mark.parametrize("name", SERVED)
def test_the_real_client_resumes_a_served_reply(server: str, name: str, mode: str) -> None:
    case = next(c for c in CASES if c.name == name)
    report = run_client_at(f"{server}/agui/{name}@{mode}")
    assert mismatches(wire.json.decode_msg(case.expected_msg), report) == []
    assert custom_mismatches(wire.json.decode_events(case.events_jsonl), report) == []


@needs_client
@pytest.mark.parametrize("name", ["full_reply_all_events", "require_user_confirm_approved"])
def test_a_run_that_pauses_is_sent_live_with_keep_alives(server: str, name: str) -> None:
    """The producer pauses 0.3 s after each REPLY_START: the resumed run is found while it
    is still growing, and the 0.2 s heartbeat goes out in the pauses."""
    case = next(c for c in CASES if c.name == name)
    report = run_client_at(f"{server}/agui/{name}@slow")
    assert mismatches(wire.json.decode_msg(case.expected_msg), report) == []
    body = httpx.post(f"{server}/agui/{name}@slow2", json={"threadId": "t", "runId": "x", "messages": []},
                      timeout=30).text
    assert ": keep-alive\n\n" in body


def test_tool_messages_answer_an_external_execution_park(server: str) -> None:
    """The external-execution vector ends after its EXTERNAL_EXECUTION_RESULT: the run after
    the park holds the results and ends with RUN_ERROR (incomplete) when the log closes."""
    name = "external_execution_result_appended@closed"
    first = httpx.post(f"{server}/agui/{name}", json={"threadId": "t", "runId": "x", "messages": []}, timeout=30)
    frames = agui_frames(first.text)
    pending = frames[-1]["outcome"]["pendingToolCallIds"]
    answers = [{"id": f"{id}.answer", "role": "tool", "toolCallId": id, "content": "done"} for id in pending]
    second = httpx.post(f"{server}/agui/{name}", json={"threadId": "t", "runId": "y", "messages": answers},
                        timeout=30)
    frames = agui_frames(second.text)
    assert [f["type"] for f in frames] == ["RUN_STARTED", "TOOL_CALL_RESULT", "TOOL_CALL_RESULT", "CUSTOM",
                                           "RUN_ERROR"]
    assert {f["toolCallId"] for f in frames if f["type"] == "TOOL_CALL_RESULT"} == set(pending)


@needs_client
def test_each_request_gets_one_run(server: str) -> None:
    name = "full_reply_all_events@closed"
    first = httpx.post(f"{server}/agui/{name}", json={"threadId": "t", "runId": "x", "messages": []}, timeout=30)
    assert first.headers["content-type"].startswith("text/event-stream")
    frames = agui_frames(first.text)
    assert frames[0]["type"] == "RUN_STARTED" and frames[-1]["type"] == "RUN_FINISHED"
    assert [f["type"] for f in frames].count("RUN_STARTED") == 1
    [interrupt] = frames[-1]["outcome"]["interrupts"]
    second = httpx.post(f"{server}/agui/{name}", timeout=30, json={
        "threadId": "t", "runId": "y", "messages": [],
        "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]})
    frames = agui_frames(second.text)
    assert frames[0]["runId"].endswith(".1") and frames[-1]["outcome"] == {"type": "success"}
    # Each frame carries the id of the log entry it came from (for Last-Event-ID): in order,
    # and the second run goes on from the entries after the first run's park.
    ids = [[i for i, _ in sse_frames(response.text)] for response in (first, second)]
    epochs = {i.rpartition("-")[0] for run in ids for i in run if i is not None}
    positions = [[int(i.rpartition("-")[2]) for i in run if i is not None] for run in ids]
    assert len(epochs) == 1 and [len(run) for run in positions] == [len(run) for run in ids]
    assert all(run == sorted(run) for run in positions) and positions[1][0] > positions[0][-1]


def test_bad_bodies_and_unknown_logs(server: str) -> None:
    assert httpx.post(f"{server}/agui/plain_text", content=b"{", timeout=10).status_code == 400
    assert httpx.post(f"{server}/agui/plain_text", json=[1], timeout=10).status_code == 400
    assert httpx.post(f"{server}/agui/no-such-case", json={}, timeout=10).status_code == 404


def test_answered_ids() -> None:
    # A tool message followed by others is history the client resends, not an answer
    # (tests/bridges/test_agui_session.py has the regression test).
    assert answered_ids(parse_run_input(json.dumps({"resume": [{"interruptId": "a"}], "messages": [
        {"role": "tool", "toolCallId": "b"}, {"role": "user", "content": "hi"}]}).encode())) == {"a"}
    assert answered_ids(parse_run_input(json.dumps({"messages": [
        {"role": "user", "content": "hi"}, {"role": "tool", "toolCallId": "b"}]}).encode())) == {"b"}
    assert answered_ids(RunInput()) == set() == answered_ids(parse_run_input(b'{"resume": null}'))


