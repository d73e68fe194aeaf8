"""wire.demo_web in process: the page's files, a session whose reply parks
on a confirmation and goes on after the answer (allowed, denied), answers
out of turn refused, the Msgs the server built, the CLI's --web options.
The page itself runs in headless Chromium in tests/test_browser.py."""

from __future__ import annotations

import io
from importlib.resources import files
from typing import Any

import msgspec
import pytest
from starlette.testclient import TestClient

import wire
from wire import cli, demo_web
from wire.framing import SSEDecoder
from wire.resume import Conversation
from wire.transports.chat import confirmation, waiting

REPLY = files("wire").joinpath("data", "demo-reply.jsonl").read_bytes()
EVENTS = wire.json.decode_events(REPLY)


@pytest.fixture
def client() -> TestClient:
    return TestClient(demo_web.create_app(REPLY, pace=0))


@pytest.mark.parametrize(("path", "media_type", "needle"), [
    ("/", "text/html", b'<script type="module" src="/app.js">'),
    ("/app.js", "text/javascript", b'from "/runtime.js"'),
    ("/runtime.js", "text/javascript", b"function followSession("),
    ("/style.css", "text/css", b".tool_call"),
])
def test_page_files(client: TestClient, path: str, media_type: str, needle: bytes) -> None:
    with client:
        response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media_type)
    assert needle in response.content


def read(client: TestClient, url: str, last_event_id: str, conversation: Conversation) -> str:
    """The session's events after ``last_event_id`` into ``conversation``,
    until its latest reply parks or ends (the stream itself goes on: the
    session is open); the last event id."""
    decoder: SSEDecoder[wire.AgentEvent] = SSEDecoder(last_event_id=last_event_id)
    headers = {"last-event-id": last_event_id} if last_event_id else {}
    with client.stream("GET", url, headers=headers) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for chunk in response.iter_bytes():
            events = decoder.feed(chunk)
            conversation.extend(events)
            if events and conversation.last is not None and waiting(conversation.last).state != "running":
                break
    return decoder.last_event_id


def ask(client: TestClient, session: str, input: object) -> Any:
    return client.post("/chat", json={"agent_id": "demo", "session_id": session, "input": input})


@pytest.mark.parametrize("allowed", [True, False])
def test_a_reply_parks_on_its_tool_call_and_goes_on_after_the_answer(client: TestClient, allowed: bool) -> None:
    with client:
        created = client.post("/sessions")
        assert created.status_code == 201
        session, stream = created.json()["id"], created.json()["stream"]
        user = wire.UserMsg("you", "why is the build slow?")
        assert ask(client, session, msgspec.json.decode(wire.json.encode(user))).status_code == 200
        conversation = Conversation()
        last = read(client, stream, "", conversation)
        msg = conversation.last
        assert msg is not None and waiting(msg).state == "parked"
        [call] = waiting(msg).confirm
        assert (call.name, call.id) == ("Bash", "call_7d1e") and "sort" in call.input
        # out of turn: a new message while the reply waits, an answer naming a call it did not ask about
        assert ask(client, session, msgspec.json.decode(wire.json.encode(user))).status_code == 409
        stray = confirmation(msg, True)
        stray.confirm_results[0].tool_call = msgspec.structs.replace(call, id="call-other")
        assert ask(client, session, msgspec.json.decode(wire.json.encode(stray))).status_code == 409
        answer = msgspec.json.decode(wire.json.encode(confirmation(msg, allowed)))
        assert ask(client, session, answer).status_code == 200
        assert ask(client, session, answer).status_code == 409  # answered twice
        read(client, stream, last, conversation)
        replies = client.get(f"/sessions/{session}/replies").json()
        assert client.get("/sessions/nope/replies").status_code == 404
        assert client.get("/sessions/nope/stream").status_code == 404
    msg = conversation.last
    assert msg is not None and msg.finished_reason == wire.ReplyFinishedReason.COMPLETED
    assert replies == [wire.json.encode(msg).decode()]  # the server's Msg, the reader's, the same text
    result = next(b for b in msg.content if isinstance(b, wire.ToolResultBlock))
    assert result.state == (wire.ToolResultState.SUCCESS if allowed else wire.ToolResultState.DENIED)
    assert any(isinstance(b, wire.DataBlock) for b in msg.content) == allowed
    assert ("did not run" in (msg.get_text_content() or "")) == (not allowed)


def test_cli_options() -> None:
    args = cli.build_parser().parse_args(["demo", "--web", "--port", "0"])
    assert (args.web, args.port, args.pace) == (True, 0, None)
    assert cli.build_parser().parse_args(["demo"]).web is False


def test_serve_writes_its_address_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """serve() binds, names the address, then hands the socket to uvicorn
    (stubbed here: the real server runs in tests/test_browser.py)."""
    import uvicorn

    served: list[int] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: served.append(sockets[0].getsockname()[1]))
    out = io.StringIO()
    demo_web.serve(REPLY, pace=0.01, port=0, out=out)
    first = out.getvalue().splitlines()[0]
    assert first == f"http://127.0.0.1:{served[0]}/"


def test_cli_demo_web_serves_and_returns_0(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)
    assert cli.main(["demo", "--web", "--port", "0"]) == 0
    assert capsys.readouterr().out.startswith("http://127.0.0.1:")
    assert cli.main(["demo", "--web", "--pace", "-1"]) == 1
