"""agentscope 2.0.11's own app, unmodified, for the tests: ``create_app``
over a test's redis-server (agentscope's ``RedisStorage`` and
``RedisMessageBus``), no scheduler, no channel worker, no index worker,
served by uvicorn in a thread; an agent and a session made through its own
API (``POST /agent/``, ``POST /sessions/``, header ``X-User-ID``). No model is
configured and no agent ever runs: the tests write a session's events
themselves and read them back through the app's endpoints.

Helpers for those endpoints (:meth:`AppSession.stream`, ``GET
/sessions/{sid}/stream``; :meth:`AppSession.messages`, ``GET
/sessions/{sid}/messages``), and for the sessions the tests write:
:func:`session_events` (``wire.stores.conformance.session`` with reply ids
of the test's choosing), :func:`agentscope_writes` (what agentscope's
``ChatService`` writes for a run: each event's ``model_dump`` through
``publish_session_event``, then the reply's Msg and the cursor under the
checkpoint lock) and :func:`agentscope_rebuilds` (what agentscope's own
reader does with a stream: ``Msg.append_event``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import httpx
import msgspec

import wire
from tests.helpers import serve_asgi
from tests.redis_server import RedisServer
from wire.stores.conformance import session

USER = "alice"


@dataclass
class AppSession:
    """A session the app made, through its own API, for ``user``."""

    url: str
    user: str
    agent_id: str
    session_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-User-ID": self.user}

    def messages(self) -> dict[str, Any]:
        """``GET /sessions/{sid}/messages``: the stored messages, ``event_cursor``, ``is_running``."""
        response = httpx.get(f"{self.url}/sessions/{self.session_id}/messages",
                             params={"agent_id": self.agent_id}, headers=self.headers, timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    @contextlib.contextmanager
    def stream(self, after: str | None = None) -> Iterator[StreamReader]:
        """``GET /sessions/{sid}/stream[?after=]``, open while the block runs;
        read its events with the :class:`StreamReader` yielded."""
        params = {"agent_id": self.agent_id} | ({"after": after} if after is not None else {})
        with httpx.Client(timeout=httpx.Timeout(10, read=30)) as client, \
                client.stream("GET", f"{self.url}/sessions/{self.session_id}/stream", params=params,
                              headers=self.headers) as response:
            assert response.status_code == 200, response.read()
            assert response.headers["content-type"].startswith("text/event-stream")
            yield StreamReader(response)


@dataclass
class AgentscopeApp:
    """The app's base URL."""

    url: str

    def session(self, user: str = USER) -> AppSession:
        """A new agent and a session of it for ``user``, made through the
        app's API (the app keeps one session per agent and workspace, so each
        session gets its own agent)."""
        agent = _request("POST", f"{self.url}/agent/", user, json={"name": "Friday"})
        session = _request("POST", f"{self.url}/sessions/", user, json={"agent_id": agent["agent_id"]})
        return AppSession(self.url, user, agent["agent_id"], session["session_id"])


class StreamReader:
    """The events of one open stream, as agentscope serves them: ``data:``
    frames without ids, ``:`` heartbeats between them."""

    def __init__(self, response: httpx.Response) -> None:
        self._lines = response.iter_lines()
        self.events: list[dict[str, Any]] = []

    def until(self, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        """Read frames until ``done(events so far)``; every event read."""
        while not done(self.events):
            line = next(self._lines)
            if line.startswith("data: "):
                self.events.append(json.loads(line[6:]))
            else:
                assert line == "" or line.startswith(":"), line
        return self.events

    def take(self, n: int) -> list[dict[str, Any]]:
        """Read until ``n`` events have come; those ``n``."""
        return self.until(lambda events: len(events) >= n)[:n]


def _request(method: str, url: str, user: str, **kwargs: Any) -> Any:
    response = httpx.request(method, url, headers={"X-User-ID": user}, timeout=10, **kwargs)
    assert response.status_code < 300, (method, url, response.status_code, response.text)
    return response.json()


@contextlib.contextmanager
def agentscope_app(server: RedisServer, workspace: Path) -> Iterator[AgentscopeApp]:
    """agentscope's app over ``server``, served until the block ends."""
    from agentscope.app import create_app
    from agentscope.app.message_bus import RedisMessageBus
    from agentscope.app.storage import RedisStorage
    from agentscope.app.workspace_manager import LocalWorkspaceManager

    app = create_app(RedisStorage(host="127.0.0.1", port=server.port),
                     RedisMessageBus(host="127.0.0.1", port=server.port),
                     LocalWorkspaceManager(basedir=str(workspace)),
                     enable_index_worker=False, enable_scheduler=False, enable_channel_worker=False)
    with serve_asgi(app) as url:
        yield AgentscopeApp(url)




# -- the sessions the tests write ------------------------------------------------------------------------


def session_events(n: int, prefix: str, session_id: str = "s1") -> list[wire.AgentEvent]:
    """``wire.stores.conformance.session(n)``: ``n`` replies, the second parked on a
    confirmation and resumed, its reply ids ``r0``... as ``{prefix}r0``..."""
    _, events = session(n)
    renamed: list[wire.AgentEvent] = []
    for event in events:
        changes: dict[str, Any] = {"reply_id": prefix + event.reply_id}  # type: ignore[union-attr]
        if hasattr(event, "session_id"):
            changes["session_id"] = session_id
        renamed.append(msgspec.structs.replace(event, **changes))
    return renamed


@functools.cache
def _agentscope_events() -> Any:
    from agentscope.event import AgentEvent as AgentscopeEvent
    from pydantic import Field, TypeAdapter

    return TypeAdapter(Annotated[AgentscopeEvent, Field(discriminator="type")])


def agentscope_events(items: list[Any]) -> list[Any]:
    """agentscope's event objects of ``items`` (wire events, or dumps)."""
    with warnings.catch_warnings():  # EXCEED_MAX_ITERS is deprecated in agentscope: its warning
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return [_agentscope_events().validate_python(item) if isinstance(item, dict)
                else _agentscope_events().validate_json(wire.json.encode(item)) for item in items]


def agentscope_dumps(events: list[wire.AgentEvent]) -> list[dict[str, Any]]:
    """Each event as agentscope's own model dumps it: ``model_dump(mode="json")``."""
    return [event.model_dump(mode="json") for event in agentscope_events(events)]


async def agentscope_writes(bus: Any, storage: Any, user: str, session_id: str, events: list[wire.AgentEvent],
                            *, trim: bool = False) -> list[str]:
    """What agentscope's ``ChatService`` writes for a run of ``events`` (one
    reply, to its end or park; or the answer to a park and the rest of that
    reply): each event through ``publish_session_event``, the reply's Msg
    (built with ``Msg.append_event``: taken from storage when the run answers
    a park, else begun at REPLY_START) with ``upsert_message``, then the
    cursor, under the checkpoint lock; with ``trim``, the stream trimmed at
    the cursor as ``ChatService._persist`` does. The Msg's ``created_at`` is
    the REPLY_START's (agentscope's own stamps its clock there: the one
    field where the two would differ by design)."""
    from agentscope.app._bus_ops import publish_session_event
    from agentscope.app.message_bus import MessageBusKeys as Keys
    from agentscope.message import AssistantMsg

    dumps = agentscope_dumps(events)
    first = dumps[0]
    if first["type"] == "REPLY_START":
        msg = AssistantMsg(id=first["reply_id"], name=first["name"], content=[], created_at=first["created_at"])
    else:
        msg = await storage.get_message(user, session_id, first["reply_id"])
        assert msg is not None
    ids = []
    for dump, parsed in zip(dumps, agentscope_events(dumps), strict=True):
        if dump["type"] != "REPLY_START":
            msg.append_event(parsed)
        ids.append(await publish_session_event(bus, session_id, dump))
    async with bus.acquire_lock(Keys.session_event_checkpoint_lock(session_id),
                                ttl_secs=Keys.SESSION_EVENT_CHECKPOINT_LOCK_TTL_SECS):
        await storage.upsert_message(user, session_id, msg)
        await bus.registry_set(Keys.session_event_checkpoint(session_id), Keys.SESSION_EVENT_CURSOR_FIELD, ids[-1])
        if trim:
            await bus.log_trim(Keys.session_events(session_id), before_id=ids[-1])
    return ids


def agentscope_rebuilds(dumps: list[dict[str, Any]], stored: list[Any] | None = None) -> dict[str, wire.Msg]:
    """What agentscope's own reader builds of a stream's events (``log_read``
    payloads), starting from the messages ``stored`` (agentscope Msgs): a
    REPLY_START of a new reply begins its Msg, as ``ChatService`` does (with
    the event's ``created_at``), every other event goes through
    ``Msg.append_event``. Each Msg as wire reads its JSON, by reply id."""
    from agentscope.message import AssistantMsg

    msgs = {msg.id: msg for msg in stored or []}
    for dump, event in zip(dumps, agentscope_events(dumps), strict=True):
        if dump["type"] == "CUSTOM":
            continue
        msg = msgs.get(dump["reply_id"])
        if msg is None:
            assert dump["type"] == "REPLY_START", dump
            msgs[dump["reply_id"]] = AssistantMsg(id=dump["reply_id"], name=dump["name"], content=[],
                                                  created_at=dump["created_at"])
        elif dump["type"] != "REPLY_START":
            msg.append_event(event)
    return {reply_id: wire.json.decode_msg(msg.model_dump_json()) for reply_id, msg in msgs.items()}


__all__ = ("USER", "AgentscopeApp", "AppSession", "StreamReader", "agentscope_app", "agentscope_dumps",
           "agentscope_events", "agentscope_rebuilds", "agentscope_writes", "session_events")
