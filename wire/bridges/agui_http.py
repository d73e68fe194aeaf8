"""Serve an agentscope event log to an AG-UI client (CopilotKit, ``@ag-ui/client``'s
``HttpAgent``) with Starlette.

Needs the ``http`` extra. The log is any :class:`wire.stores.Replayable`:
the in-memory ``EventLog`` or a ``RedisEventLog``, so that any replica can
serve a reply from Redis.

AG-UI's unit is the run: ``HttpAgent.runAgent`` POSTs a ``RunAgentInput`` and
reads one run's events. A reply that parks (a tool call waiting for the
user's confirmation, or for the frontend to run it) is several runs
(``wire.bridges.agui``). So each request gets one run:

* a request that answers nothing gets the reply's first run;
* a request that answers a park (``resume`` entries naming the park's
  interrupts, or tool messages answering its ``pendingToolCallIds``) gets the
  run after the last park it answers. The runs before it are folded (the
  bridge is cheap) but not sent; the run it wants is sent live as the log
  grows, and the response ends with that run.

Passing the answer on to the agent (a USER_CONFIRM_RESULT or an
EXTERNAL_EXECUTION_RESULT) is the application's part: do it in ``find_log``,
which gets the request and its parsed ``RunAgentInput``::

    from starlette.applications import Starlette
    from starlette.routing import Route
    from wire.bridges.agui_http import agui_endpoint

    logs: dict[str, EventLog] = {}   # reply id -> the reply's log

    def find_log(request, run_input):
        return logs.get(request.path_params["reply_id"])

    app = Starlette(routes=[Route("/agui/{reply_id}", agui_endpoint(find_log), methods=["POST"])])
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.bridges.agui import CONTENT_TYPE, AGUIBridge, AGUIEvent, encode_sse_into
from wire.stores import Replayable

__all__ = ("agui_endpoint", "agui_response", "agui_run", "answered_ids")

# no-cache: a stream is never a cached document. X-Accel-Buffering: nginx
# would otherwise buffer the body and hold events back.
_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
_COMMENT = b": keep-alive\n\n"  # AG-UI's SSE parser reads only data: lines
_RUN_ENDS = ("RUN_FINISHED", "RUN_ERROR")
# While looking for the requested run, an idle log this long means the run
# being held is the live one: nothing the client already has is still to come.
_SETTLE = 0.05


def answered_ids(run_input: Any) -> set[str]:
    """The interrupt ids (``resume[].interruptId``) and tool call ids (tool
    messages) a ``RunAgentInput`` answers."""
    if not isinstance(run_input, dict):
        return set()
    ids = {entry.get("interruptId") for entry in run_input.get("resume") or [] if isinstance(entry, dict)}
    ids |= {m.get("toolCallId") for m in run_input.get("messages") or []
            if isinstance(m, dict) and m.get("role") == "tool"}
    return {id for id in ids if isinstance(id, str)}


def _parks(event: AGUIEvent) -> set[str]:
    """The ids a run end leaves for the client to answer."""
    outcome = event.get("outcome") or {}
    return {i["id"] for i in outcome.get("interrupts", [])} | set(outcome.get("pendingToolCallIds", []))


async def agui_run(log: Replayable, *, answered: set[str] | frozenset[str] = frozenset(),
                   heartbeat: float | None = 15.0, thread_id: str | None = None) -> AsyncIterator[bytes]:
    """One AG-UI run of ``log`` as SSE bytes: the first run, or the one after
    the last park whose ids ``answered`` holds (see the module docstring). A
    ``:`` comment goes out after ``heartbeat`` idle seconds."""
    bridge = AGUIBridge(thread_id=thread_id)
    seeking = bool(answered)
    held: list[AGUIEvent] = []  # while seeking, the current run: dropped or sent when it ends
    buf = bytearray()
    # While seeking, follow() wakes every _SETTLE idle seconds; idle time is
    # added up so the keep-alive still goes out every `heartbeat` seconds.
    tick = (min(_SETTLE, heartbeat) if heartbeat is not None else _SETTLE) if seeking else heartbeat
    idle = 0.0

    def send(events: list[AGUIEvent]) -> bool:
        """Encode ``events`` up to the end of the run; True if the run ended."""
        for event in events:
            encode_sse_into(event, buf)
            if event["type"] in _RUN_ENDS:
                return True
        return False

    def seek(events: list[AGUIEvent]) -> bool:
        """Hold ``events``, dropping each run the client has; True once the
        run it wants has ended (then it is in ``buf``)."""
        nonlocal held, seeking
        for agui in events:
            held.append(agui)
            if agui["type"] in _RUN_ENDS:
                if agui["type"] == "RUN_FINISHED" and _parks(agui) & answered:
                    held = []  # a run the client has: not sent again
                    continue
                seeking = False
                return send(held)
        return False

    async for batch in log.replay(heartbeat=tick):
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
                yield _COMMENT
            continue
        idle = 0.0
        for event in batch:
            out = bridge.feed(event)
            if seek(out) if seeking else send(out):
                yield bytes(buf)
                return
        if buf:
            yield bytes(buf)
            buf.clear()
    # The log is closed without ending the run: close it (RUN_ERROR, see AGUIBridge.close).
    if send(held + bridge.close()) or buf:
        yield bytes(buf)


def agui_response(log: Replayable, run_input: Any = None, *, heartbeat: float | None = 15.0,
                  thread_id: str | None = None) -> StreamingResponse:
    """A streaming response with the run of ``log`` that ``run_input`` (a
    parsed ``RunAgentInput``, or None) asks for."""
    body = agui_run(log, answered=answered_ids(run_input), heartbeat=heartbeat,
                    thread_id=thread_id if thread_id is not None else (run_input or {}).get("threadId"))
    return StreamingResponse(body, media_type=CONTENT_TYPE, headers=_HEADERS)


FindLog = Callable[[Request, Any], "Replayable | Awaitable[Replayable | None] | None"]


def agui_endpoint(find_log: FindLog, *, heartbeat: float | None = 15.0) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint for ``HttpAgent``'s POST: it parses the body as a
    ``RunAgentInput`` and serves the run it asks for from the log
    ``find_log(request, run_input)`` returns (it may be async), or 404 when
    that is None; 400 if the body is not a JSON object."""

    async def endpoint(request: Request) -> Response:
        try:
            run_input = msgspec.json.decode(await request.body())
        except msgspec.DecodeError as exc:
            return PlainTextResponse(f"the body is not JSON: {exc}", status_code=400)
        if not isinstance(run_input, dict):
            return PlainTextResponse("the body is not a RunAgentInput object", status_code=400)
        found = find_log(request, run_input)
        log = await found if inspect.isawaitable(found) else found
        if log is None:
            return PlainTextResponse("no such reply", status_code=404)
        return agui_response(log, run_input, heartbeat=heartbeat)

    return endpoint
