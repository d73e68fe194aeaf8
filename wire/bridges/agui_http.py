"""Serve an agentscope event log to an AG-UI client (CopilotKit, ``@ag-ui/client``'s
``HttpAgent``) with Starlette.

Needs the ``http`` extra. The log is any :class:`wire.stores.EventStore`:
the in-memory ``EventLog`` or a ``RedisEventLog``, so that any replica can
serve a reply from Redis; the serving rules (404, 413, 503, headers,
keep-alive, cursors) are ``wire.transports.http``'s.

AG-UI's unit is the run: ``HttpAgent.runAgent`` POSTs a ``RunAgentInput`` and
reads one run's events. A reply that parks (a tool call waiting for the
user's confirmation, or for the frontend to run it) is several runs
(``wire.bridges.agui``). So each request gets one run:

* a request that answers nothing gets the reply's first run;
* a request that answers a park (``resume`` entries naming the park's
  interrupts, or tool messages answering its ``pendingToolCallIds``) gets the
  run after the last park it answers. The runs before it are folded (the
  bridge is cheap) but not sent; the run it wants is sent live as the log
  grows, and the response ends with that run;
* a request that carries ``Last-Event-ID`` (each frame's ``id`` is the entry
  id of the event it came from) rejoins the run under way: RUN_STARTED, the
  reply so far with a START left open for every block still growing
  (``AGUIBridge.join``), then the live tail. AG-UI itself has no resume yet.

Passing the answer on to the agent (a USER_CONFIRM_RESULT or an
EXTERNAL_EXECUTION_RESULT) is the application's part: do it in ``find_log``,
which gets the request and its parsed :class:`~wire.bridges.agui.RunInput`::

    from starlette.applications import Starlette
    from starlette.routing import Route
    from wire.bridges.agui_http import agui_endpoint

    logs: dict[str, EventLog] = {}   # reply id -> the reply's log

    def find_log(request, run_input):
        return logs.get(request.path_params["reply_id"])

    app = Starlette(routes=[Route("/agui/{reply_id}", agui_endpoint(find_log), methods=["POST"])])
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from wire.bridges.agui import (
    CONTENT_TYPE,
    AGUIBridge,
    AGUIEvent,
    RunInput,
    answered_ids,
    encode_sse_into,
    parse_run_input,
)
from wire.stores import EventStore, Resume
from wire.transports.http import KEEP_ALIVE, MAX_BODY_BYTES, Authorize, serve, streaming

__all__ = ("agui_endpoint", "agui_response", "agui_run")

_RUN_ENDS = ("RUN_FINISHED", "RUN_ERROR")
# While looking for the requested run, an idle log this long means the run
# being held is the live one: nothing the client already has is still to come.
_SETTLE = 0.05


def _parks(event: AGUIEvent) -> set[str]:
    """The ids a run end leaves for the client to answer."""
    outcome = event.get("outcome") or {}
    return {i["id"] for i in outcome.get("interrupts", [])} | set(outcome.get("pendingToolCallIds", []))


async def agui_run(log: EventStore, *, answered: frozenset[str] = frozenset(), heartbeat: float | None = 15.0,
                   thread_id: str | None = None, last_event_id: str | None = None,
                   coalesce: bool | float = False) -> AsyncIterator[bytes]:
    """One AG-UI run of ``log`` as SSE bytes: the first run, the one after
    the last park whose ids ``answered`` holds, or, with ``last_event_id``,
    the run under way rejoined (see the module docstring). A ``:`` comment
    goes out after ``heartbeat`` idle seconds."""
    bridge = AGUIBridge(thread_id=thread_id)
    seeking = bool(answered) and not last_event_id
    held: list[tuple[bytes, AGUIEvent]] = []  # while seeking, the current run: dropped or sent when it ends
    buf = bytearray()
    # While seeking, follow() wakes every _SETTLE idle seconds; idle time is
    # added up so the keep-alive still goes out every `heartbeat` seconds.
    tick = (min(_SETTLE, heartbeat) if heartbeat is not None else _SETTLE) if seeking else heartbeat
    idle = 0.0

    def send(events: list[tuple[bytes, AGUIEvent]]) -> bool:
        """Encode ``events`` up to the end of the run; True if the run ended."""
        for entry_id, event in events:
            buf.extend(b"id: %s\n" % entry_id)
            encode_sse_into(event, buf)
            if event["type"] in _RUN_ENDS:
                return True
        return False

    def seek(events: list[tuple[bytes, AGUIEvent]]) -> bool:
        """Hold ``events``, dropping each run the client has; True once the
        run it wants has ended (then it is in ``buf``)."""
        nonlocal held, seeking
        for pair in events:
            held.append(pair)
            event = pair[1]
            if event["type"] in _RUN_ENDS:
                if event["type"] == "RUN_FINISHED" and _parks(event) & answered:
                    held = []  # a run the client has: not sent again
                    continue
                seeking = False
                return send(held)
        return False

    resume: Resume = "replay"
    last = b"0"
    if last_event_id:
        if await _catch_up(log, bridge, last_event_id):
            # The bridge holds what the client has: re-open what is open, then the events after it.
            last = last_event_id.encode()
            if send([(last, agui) for agui in bridge.rejoin()]):
                yield bytes(buf)
                return
        else:  # the log no longer holds the client's position: from the latest checkpoint
            resume = "checkpoint"
            bridge = AGUIBridge(thread_id=thread_id)
    async for batch in log.follow(last_event_id or None, resume=resume, heartbeat=tick, coalesce=coalesce):
        if not batch:
            idle += tick or 0.0
            if seeking and held:  # the log went quiet inside a run: it is the live one
                seeking = False
                ended = send(held)
                held = []
                yield bytes(buf)
                buf.clear()
                if ended:
                    return
            if heartbeat is not None and idle >= heartbeat:
                idle = 0.0
                yield KEEP_ALIVE
            continue
        idle = 0.0
        for entry_id, event in batch:
            last = entry_id.encode()
            out = [(last, agui) for agui in bridge.feed(event)]
            if seek(out) if seeking else send(out):
                yield bytes(buf)
                return
        if buf:
            yield bytes(buf)
            buf.clear()
    # The log is closed without ending the run: close it (RUN_ERROR, see AGUIBridge.close).
    if send(held + [(last, agui) for agui in bridge.close()]) or buf:
        yield bytes(buf)


async def _catch_up(log: EventStore, bridge: AGUIBridge, entry_id: str) -> bool:
    """Feed ``bridge`` the log up to entry ``entry_id`` (what a rejoining
    client has), dropping what it returns; False if the log does not reach
    that entry before it runs out of events waiting."""
    async with aclosing(log.follow(None, heartbeat=_SETTLE)) as batches:  # type: ignore[type-var]
        async for batch in batches:
            if not batch:
                return False
            for at, event in batch:
                bridge.feed(event)
                if at == entry_id:
                    return True
    return False


def agui_response(log: EventStore, run_input: RunInput | None = None, *, heartbeat: float | None = 15.0,
                  thread_id: str | None = None, last_event_id: str | None = None,
                  coalesce: bool | float = False) -> StreamingResponse:
    """A streaming response with the run of ``log`` that ``run_input`` asks
    for (or, with ``last_event_id``, the run under way, rejoined)."""
    given = run_input if run_input is not None else RunInput()
    body = agui_run(log, answered=answered_ids(given), heartbeat=heartbeat, last_event_id=last_event_id,
                    thread_id=thread_id if thread_id is not None else given.thread_id, coalesce=coalesce)
    return streaming(body, CONTENT_TYPE)


FindLog = Callable[[Request, RunInput], "EventStore | Awaitable[EventStore | None] | None"]


def agui_endpoint(find_log: FindLog, *, heartbeat: float | None = 15.0, coalesce: bool | float = False,
                  body_limit: int = MAX_BODY_BYTES, authorize: Authorize | None = None,
                  session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint for ``HttpAgent``'s POST: it parses the body as a
    ``RunAgentInput`` (400 naming the JSON path if it is not one, 413 past
    ``body_limit`` bytes) and serves the run it asks for from the log
    ``find_log(request, run_input)`` returns (it may be async), or 404 when
    that is None. ``Last-Event-ID`` rejoins the run under way. With
    ``authorize``, ``authorize(request, session_id)`` is asked first, before
    the body is read, about the session the route names
    (``wire.transports.http.session_of`` with ``session_param``: the body's
    ``threadId`` is the client's word, not the route's)."""

    def respond(log: EventStore, request: Request, run_input: Any) -> Response:
        return agui_response(log, run_input, heartbeat=heartbeat, coalesce=coalesce,
                             last_event_id=request.headers.get("last-event-id") or None)

    return serve(find_log, respond, parse=parse_run_input, body_limit=body_limit, authorize=authorize,
                 session_param=session_param)
