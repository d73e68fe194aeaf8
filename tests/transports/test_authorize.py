"""``authorize`` is asked about the session the route names, at every
endpoint that reads a log: ``sse_endpoint``, ``ndjson_endpoint``,
``agui_endpoint`` and the Vercel ``resume_endpoint``, whatever the route's
parameter is called (``{session_id}``, ``{id}``, ``{sid}``). The
application's check is the one ``tests/transports/chat_app.py`` writes: an
unknown session is let through, for ``find_log``'s 404. Asked about ``""``
(what a route without ``{session_id}`` used to give it), that check let a
second user read the first one's session."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

import wire
from wire.bridges.agui_http import agui_endpoint
from wire.bridges.vercel_http import resume_endpoint
from wire.errors import LocalProtocolError
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.http import ndjson_endpoint, session_of, sse_endpoint

OWNERS = {"s-alice": "alice", "s-bob": "bob"}
NAMES = ("session_id", "id", "sid")
ENDPOINTS = ("sse", "ndjson", "agui", "vercel")
TEXT = "the-owners-secret"  # in every reply's text: what a reader that got the log reads


def reply(session_id: str) -> list[wire.AgentEvent]:
    reply_id = f"{session_id}-r1"
    return [wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name="Friday"),
            wire.TextBlockStartEvent(reply_id=reply_id, block_id="t"),
            wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="t", delta=TEXT),
            wire.TextBlockEndEvent(reply_id=reply_id, block_id="t"),
            wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id)]


class App:
    """Two users' sessions behind every endpoint, on routes that name the
    session differently; what ``authorize`` was asked, by whom."""

    def __init__(self) -> None:
        self.logs: dict[str, EventLog] = {}
        for session in OWNERS:
            log = self.logs[session] = EventLog()
            anyio.run(log.extend, reply(session))
            anyio.run(log.close)
        self.asked: list[tuple[str, str]] = []

    def authorize(self, request: Request, session_id: str) -> bool:
        user = request.headers.get("x-user-id", "")
        self.asked.append((user, session_id))
        owner = OWNERS.get(session_id)
        return owner is None or owner == user  # an unknown session is find_log's 404

    def find_by(self, param: str) -> Callable[..., EventStore | None]:
        def find_log(request: Request, *_: Any) -> EventStore | None:
            return self.logs.get(request.path_params[param])

        return find_log

    def endpoint(self, kind: str, param: str, **options: Any) -> Callable[[Request], Any]:
        find, check = self.find_by(param), self.authorize
        if kind == "sse":
            return sse_endpoint(find, authorize=check, heartbeat=None, **options)
        if kind == "ndjson":
            return ndjson_endpoint(find, authorize=check, heartbeat=None, **options)
        if kind == "agui":
            return agui_endpoint(find, authorize=check, heartbeat=None, **options)
        return resume_endpoint(find, authorize=check, finished=True, heartbeat=None, **options)

    def app(self) -> Starlette:
        routes = [Route(f"/{kind}/{name}/{{{name}}}", self.endpoint(kind, name),
                        methods=["POST"] if kind == "agui" else ["GET"])
                  for kind in ENDPOINTS for name in NAMES]
        # Two path parameters: which one holds the session is said with session_param.
        routes += [Route(f"/{kind}/two/{{user}}/{{sid}}", self.endpoint(kind, "sid", session_param="sid"),
                         methods=["POST"] if kind == "agui" else ["GET"]) for kind in ENDPOINTS]
        return Starlette(routes=routes)


def call(client: TestClient, kind: str, path: str, user: str) -> Any:
    headers = {"x-user-id": user}
    if kind == "agui":
        return client.post(path, json={"threadId": "t"}, headers=headers)
    return client.get(path, headers=headers)


@pytest.fixture
def app() -> Iterator[tuple[App, TestClient]]:
    served = App()
    with TestClient(served.app()) as client:
        yield served, client


@pytest.mark.parametrize("kind", ENDPOINTS)
def test_a_second_user_never_reads_the_first_users_session(app: tuple[App, TestClient], kind: str) -> None:
    served, client = app
    for name in NAMES:
        path = f"/{kind}/{name}/s-alice"
        served.asked.clear()
        refused = call(client, kind, path, "bob")
        assert (refused.status_code, refused.text) == (403, "not allowed"), (name, refused.text[:200])
        assert served.asked == [("bob", "s-alice")], name
        read = call(client, kind, path, "alice")
        assert read.status_code == 200 and TEXT in read.text, (name, read.status_code)
        assert served.asked[-1] == ("alice", "s-alice"), name
    # Two path parameters, session_param naming the session's: the user in the
    # path is bob's, the session alice's, and the session is what authorize is asked about.
    served.asked.clear()
    assert call(client, kind, f"/{kind}/two/bob/s-alice", "bob").status_code == 403
    assert served.asked == [("bob", "s-alice")]
    assert call(client, kind, f"/{kind}/two/alice/s-alice", "alice").status_code == 200


@pytest.mark.parametrize("kind", ENDPOINTS)
@pytest.mark.parametrize("path", ["/{kind}/{{user}}/{{chat}}", "/{kind}/all"])
def test_a_route_that_does_not_say_which_session_is_a_server_error(kind: str, path: str) -> None:
    """Several path parameters and none named ``session_param``, or none at
    all: the endpoint refuses to serve (500, the error naming the fix),
    and ``authorize`` is never asked about a session ``""``."""
    served = App()
    route = path.format(kind=kind)
    app = Starlette(routes=[Route(route, served.endpoint(kind, "chat") if "{chat}" in route else
                                  served.endpoint(kind, "unused"), methods=["POST"] if kind == "agui" else ["GET"])])
    concrete = route.replace("{user}", "bob").replace("{chat}", "s-alice")
    with TestClient(app) as client, pytest.raises(LocalProtocolError, match="pass session_param="):
        call(client, kind, concrete, "bob")
    assert served.asked == []
    with TestClient(app, raise_server_exceptions=False) as client:
        response = call(client, kind, concrete, "bob")
    assert response.status_code == 500 and TEXT not in response.text
    assert served.asked == []


def test_session_of() -> None:
    def request(**params: str) -> Request:
        return Request({"type": "http", "method": "GET", "path": "/x", "headers": [], "path_params": params})

    assert session_of(request(session_id="a", id="b")) == "a"
    assert session_of(request(id="b")) == "b"
    assert session_of(request(user="u", sid="c"), "sid") == "c"
    for params in ({}, {"user": "u", "chat": "c"}):
        with pytest.raises(LocalProtocolError, match="session_param="):
            session_of(request(**params))


def test_a_refused_caller_costs_no_body_read() -> None:
    """authorize comes before the body: a refused caller gets 403 for a
    body that would be 413, and find_log is never asked."""
    served = App()
    found: list[Any] = []

    def find_log(request: Request, *args: Any) -> EventStore | None:
        found.append(args)
        return served.logs.get(request.path_params["id"])

    app = Starlette(routes=[Route("/agui/{id}", agui_endpoint(find_log, authorize=served.authorize, body_limit=10),
                                  methods=["POST"])])
    with TestClient(app) as client:
        response = client.post("/agui/s-alice", content=b'{"threadId": "' + b"x" * 100 + b'"}',
                               headers={"x-user-id": "bob"})
    assert response.status_code == 403 and found == []

