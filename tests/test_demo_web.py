"""wire.demo_web in process: the page's files, a reply started and streamed
over SSE to its end, the Msg the server built, the CLI's --web options.
The page itself runs in headless Chromium in tests/test_browser.py."""

from __future__ import annotations

import io
from importlib.resources import files

import pytest
from starlette.testclient import TestClient

import wire
from wire import cli, demo_web
from wire.framing import SSEDecoder

REPLY = files("wire").joinpath("data", "demo-reply.jsonl").read_bytes()
EVENTS = wire.json.decode_events(REPLY)


@pytest.fixture
def client() -> TestClient:
    return TestClient(demo_web.create_app(REPLY, pace=0))


@pytest.mark.parametrize(("path", "media_type", "needle"), [
    ("/", "text/html", b'<script type="module" src="/app.js">'),
    ("/app.js", "text/javascript", b'from "/runtime.js"'),
    ("/runtime.js", "text/javascript", b"function followReply("),
    ("/style.css", "text/css", b".tool_call"),
])
def test_page_files(client: TestClient, path: str, media_type: str, needle: bytes) -> None:
    with client:
        response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media_type)
    assert needle in response.content


def test_a_reply_streams_to_its_end_and_the_server_keeps_its_msg(client: TestClient) -> None:
    with client:
        started = client.post("/replies")
        assert started.status_code == 201
        events_url = started.json()["events"]
        decoder = SSEDecoder()
        received: list[wire.AgentEvent] = []
        with client.stream("GET", events_url) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for chunk in response.iter_bytes():
                received.extend(decoder.feed(chunk))
        received.extend(decoder.close())
        assert received == EVENTS
        assert decoder.last_event_id.endswith(f"-{len(EVENTS) - 1}")  # <epoch>-<position>
        msg = wire.json.decode_msg(client.get(f"/replies/{started.json()['id']}/msg").content)
        assert client.get("/replies/nope/msg").status_code == 404
        assert client.get("/replies/nope/events").status_code == 404
    start = EVENTS[0]
    assert isinstance(start, wire.ReplyStartEvent)
    expected = wire.AssistantMsg(start.name, [], id=start.reply_id, created_at=start.created_at)
    expected.extend_events(EVENTS)
    assert wire.json.encode(msg) == wire.json.encode(expected)
    assert msg.finished_reason == wire.ReplyFinishedReason.COMPLETED


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
