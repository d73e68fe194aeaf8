"""Serve a session to an AG-UI client (CopilotKit, ``@ag-ui/client``'s
``HttpAgent``) with Starlette: a thread is a session, a run is one reply.

Needs the ``http`` extra. The log is any :class:`wire.stores.EventStore`
holding a whole session (the in-memory ``EventLog``, or a ``RedisEventLog``
that any replica serves); the serving rules (404, 413, 503, headers,
keep-alive) are ``wire.transports.http``'s, and what a request may write is
the session's (``wire.session.Session.refusal``), through the one agent hook
every door shares (``wire.transports.inputs.take_input``).

``HttpAgent.runAgent`` POSTs a ``RunAgentInput`` carrying the thread's whole
history and reads one run. :func:`agui_endpoint` reads what is new in it:

* ``resume`` entries answer the interrupts of a reply parked for a
  confirmation (``"{tool_call_id}.confirm"``): a USER_CONFIRM_RESULT built
  from the parked reply (``wire.bridges.agui.answer_of``);
* else the tool messages at the end of ``messages`` (added since the last
  run; earlier ones are history the client resends) answer a reply parked
  for an external execution: an EXTERNAL_EXECUTION_RESULT;
* else the user messages at the end of ``messages`` are a new turn;
* else nothing is new: the client is shown the reply under way (the join
  prelude, ``AGUIBridge.join``, then the live tail), or the reply of the
  turn waiting to begin; with neither, the request is agentscope's
  ``input: null`` turn ("go on").

An input is checked against the session, written (a turn as a ``wire.turn``
event) and handed to the application's ``on_input(chat, log, request)``,
exactly as ``wire.transports.http.answer_endpoint`` does it (409 for what the
session cannot take now, such as a second answer to one interrupt).

The response is that turn's reply only: from its REPLY_START (for a turn) or
from its park (for an answer), to RUN_FINISHED at the reply's end or next
park (the interrupt outcome, or ``pendingToolCallIds``), although the
session's log stays open for the next turn. For an answer, the bridge
folding the reply is caught up by reading the log from its start (one read
of the session per answer), so the run ids and message ids are the ones the
client saw before; on a bounded or trimmed log it starts from the parked
reply's Msg instead (``wire/bridges/README.md``, "Runs before a checkpoint").

A request with ``Last-Event-ID`` (each frame's ``id`` is the entry id of the
event it came from) rejoins the run under way: RUN_STARTED again, a START
left open for every block still growing (``AGUIBridge.rejoin``), then the
live tail; 204 No Content when no run was open at that entry. AG-UI itself
has no resume yet.

::

    from starlette.applications import Starlette
    from starlette.routing import Route
    from wire.bridges.agui_http import agui_endpoint

    logs: dict[str, EventLog] = {}   # session id -> the session's log

    def find_log(request, chat):
        return logs.get(chat.session_id)   # the thread's id

    def on_input(chat, log, request):
        ...  # start the agent on chat.input (a turn's Msgs, or the answer), and return

    app = Starlette(routes=[Route("/agui", agui_endpoint(find_log, on_input), methods=["POST"])])

Without ``on_input``, :func:`agui_endpoint` serves a log that holds one
reply (wire's first AG-UI endpoint): each request gets one run of it, the
first or the one after the park its ``resume`` answers (:func:`agui_run`),
and passing the answer on to the agent is ``find_log(request, run_input)``'s
part.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from wire.bridges.agui import (
    CONTENT_TYPE,
    INCOMPLETE_CODE,
    AGUIBridge,
    AGUIEvent,
    RunInput,
    answer_of,
    answered_ids,
    encode_sse_into,
    parse_run_input,
    user_msgs,
)
from wire.errors import DecodeError, RemoteProtocolError, StoreError
from wire.events import (
    CustomEvent,
    ExternalExecutionResultEvent,
)
from wire.messages import Msg
from wire.session import CHECKPOINT, RESTART, ChatRequest, Session, reply_of, withdrawn
from wire.stores import EventStore, Resume
from wire.transports.http import (
    KEEP_ALIVE,
    MAX_BODY_BYTES,
    Authorize,
    Refused,
    check_session,
    find,
    parsed_body,
    refused,
    serve,
    session_of,
    streaming,
)
from wire.transports.inputs import Admit, OnInput, take_input

__all__ = ("FindLog", "agui_endpoint", "agui_response", "agui_run")

# -- a log of one reply: one run per request ---------------------------------------------------

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


# -- a session: one reply per request -------------------------------------------------------------


@dataclass
class _Start:
    """Where a response begins: the bridge of its reply, caught up with
    what the client has (None while the turn's reply has not begun), the
    entry after which the log is read, and the events to send first."""

    bridge: AGUIBridge | None
    after: str
    thread_id: str
    prelude: list[AGUIEvent] = field(default_factory=list)
    known: frozenset[str] = frozenset()
    """The replies begun before the turn: the turn's reply is the first other one."""


def _no_run(start: _Start, run_id: str, end: AGUIEvent) -> list[AGUIEvent]:
    """A run for a turn whose reply never began: AG-UI wants a run to end."""
    return [{"type": "RUN_STARTED", "threadId": start.thread_id, "runId": run_id}, end]


async def _reply_body(log: EventStore, start: _Start, *, heartbeat: float | None,
                      coalesce: bool | float) -> AsyncIterator[bytes]:
    """One reply of a session as AG-UI SSE bytes, from ``start`` to the end
    of the run under way (the reply's end or park): see the module docstring."""
    bridge = start.bridge
    buf = bytearray()
    last = start.after.encode()
    opened = False

    def send(events: list[AGUIEvent]) -> bool:
        """Encode ``events`` up to the end of the run; True if the run ended."""
        nonlocal opened
        for event in events:
            buf.extend(b"id: %s\n" % last)
            encode_sse_into(event, buf)
            opened = opened or event["type"] == "RUN_STARTED"
            if event["type"] in _RUN_ENDS:
                return True
        return False

    if send(start.prelude):
        yield bytes(buf)
        return
    if buf:  # the prelude goes out now: the live tail may be long in coming
        yield bytes(buf)
        buf.clear()
    batches = log.follow(start.after, resume="replay", heartbeat=heartbeat, coalesce=coalesce)
    async with aclosing(batches):  # type: ignore[type-var]
        async for batch in batches:
            if not batch:
                yield KEEP_ALIVE
                continue
            for entry_id, event in batch:
                last = entry_id.encode()
                if type(event) is CustomEvent and event.name == RESTART:
                    break  # the log was lost and made again: what follows is another log's, so the run ends
                if bridge is None:
                    if withdrawn(event, start.known):  # the turn, interrupted before its reply began
                        run_id = event.reply_id  # type: ignore[union-attr]  # a USER_INTERRUPT
                        send(_no_run(start, run_id, {
                            "type": "RUN_FINISHED", "metadata": {"agentscope": {"finished_reason": "interrupted"}},
                            "threadId": start.thread_id, "runId": run_id, "outcome": {"type": "cancelled"}}))
                        yield bytes(buf)
                        return
                    reply_id = reply_of(event)
                    if reply_id is None or reply_id in start.known:
                        continue  # the session's other replies, CUSTOM events
                    bridge = AGUIBridge(reply_id=reply_id, thread_id=start.thread_id)
                if send(bridge.feed(event)):
                    yield bytes(buf)
                    return
            else:  # the batch did not end the run
                if buf:
                    yield bytes(buf)
                    buf.clear()
                continue
            break  # a restart
    # The log closed (or was lost) before the run ended: end it with RUN_ERROR.
    tail = bridge.close() if bridge is not None else []
    if not send(tail):
        error: AGUIEvent = {"type": "RUN_ERROR", "message": "the session's log ended before the reply did",
                            "code": INCOMPLETE_CODE}
        send([error] if opened else _no_run(start, start.after, error))
    yield bytes(buf)


async def _fold_to(log: EventStore, to: str, until: str, thread_id: str,
                   reply_id: str | None = None) -> AGUIBridge | None:
    """A bridge of the reply of entry ``to`` (or of ``reply_id``), fed every
    event of the log up to that entry (included; not with ``reply_id``, whose
    caller feeds ``to`` itself), as a response that never dropped would have
    fed it (from the reply's first event on; what it produces is dropped:
    the client has it). None when the log holds a checkpoint or a restart
    before it (trimmed or lost: the fold would not be exact), or does not
    reach it by ``until``."""
    bridges: dict[str, AGUIBridge] = {}
    current: AGUIBridge | None = None
    async with aclosing(log.follow(None, heartbeat=_SETTLE)) as batches:  # type: ignore[type-var]
        async for batch in batches:
            if not batch:
                return None
            for at, event in batch:
                if type(event) is CustomEvent and event.name in (CHECKPOINT, RESTART):
                    return None
                if at == to and reply_id is not None:
                    return bridges.get(reply_id)
                named: str | None = getattr(event, "reply_id", None)
                if named is None:  # CUSTOM, or an event of a type wire does not know: every bridge sees it
                    for each in bridges.values():
                        each.feed(event)
                elif reply_id is None or named == reply_id:
                    current = bridges.get(named)
                    if current is None:
                        current = bridges[named] = AGUIBridge(reply_id=named, thread_id=thread_id)
                    current.feed(event)
                if at == to:
                    return current
                if at == until:
                    return None
    return None


def _running(session: Session, thread_id: str) -> _Start | None:
    """The reply under way, joined (RUN_STARTED, its content so far, a START
    left open for every block still growing), or the turn waiting for its
    reply; None when the session has neither."""
    running = [reply_id for reply_id in session.replies if reply_id in session.open]
    if running:
        bridge = AGUIBridge(reply_id=running[-1], thread_id=thread_id)
        prelude = bridge.join(session.replies[running[-1]])
        return _Start(bridge, session.last_id, thread_id, prelude)
    if session.turn is not None:
        return _Start(None, session.last_id, thread_id, known=frozenset(session.replies))
    return None


async def _answer(log: EventStore, run_input: RunInput, chat: ChatRequest, request: Request, on_input: OnInput,
                  admit: Admit | None) -> _Start:
    """Take the answer ``run_input`` carries, and start from the park it answers."""
    session = await log.session()
    answer = answer_of(run_input, session)
    assert answer is not None  # the caller saw resume entries or tool messages
    parked = session.replies[answer.reply_id]
    entry_id = await take_input(log, ChatRequest(agent_id=chat.agent_id, session_id=chat.session_id, input=answer),
                                request, on_input, admit=admit)
    bridge = await _fold_to(log, entry_id, entry_id, chat.session_id, answer.reply_id)
    if bridge is None:  # a bounded or trimmed log: from the reply as it parked
        bridge = AGUIBridge(reply_id=answer.reply_id, thread_id=chat.session_id)
        bridge.join(parked)
    if isinstance(answer, ExternalExecutionResultEvent):
        bridge.results_known(result.id for result in answer.execution_results)
    bridge.feed(answer)  # what it produces is held for the run it opens: sent with it
    return _Start(bridge, entry_id, chat.session_id)


async def _begin(log: EventStore, run_input: RunInput, chat: ChatRequest, request: Request, on_input: OnInput,
                 admit: Admit | None) -> _Start | None:
    """Where the response to ``run_input`` begins (see the module
    docstring), after taking its input; None for nothing to send (204)."""
    last_event_id = request.headers.get("last-event-id") or None
    if last_event_id:
        session = await log.session()
        bridge = await _fold_to(log, last_event_id, session.last_id, chat.session_id)
        if bridge is None:  # the log no longer holds the client's position: the reply under way, joined
            return _running(session, chat.session_id)
        prelude = bridge.rejoin()
        return _Start(bridge, last_event_id, chat.session_id, prelude) if prelude else None
    if run_input.resume or (run_input.messages and run_input.messages[-1].role == "tool"):
        return await _answer(log, run_input, chat, request, on_input, admit)
    session = await log.session()
    if chat.input is None and (joined := _running(session, chat.session_id)) is not None:
        return joined
    known = frozenset(session.replies)
    entry_id = await take_input(log, chat, request, on_input, admit=admit)
    return _Start(None, entry_id, chat.session_id, known=known)


def _run_input(body: bytes) -> tuple[RunInput, list[Msg]]:
    """A POST's ``RunAgentInput`` and the user Msgs at its end."""
    run_input = parse_run_input(body)
    return run_input, user_msgs(run_input)


FindLog = Callable[..., "EventStore | Awaitable[EventStore | None] | None"]
"""The application's lookup: ``find_log(request, chat)`` for a session (see
:func:`agui_endpoint`), ``find_log(request, run_input)`` for a log of one reply."""


def agui_endpoint(find_log: FindLog, on_input: OnInput | None = None, *, agent_id: str = "agent",
                  heartbeat: float | None = 15.0, coalesce: bool | float = False, body_limit: int = MAX_BODY_BYTES,
                  authorize: Authorize | None = None, admit: Admit | None = None,
                  session_param: str = "session_id") -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint for ``HttpAgent``'s POST over a session's log
    (the module docstring says what each request gets). In order:

    * 413 past ``body_limit`` bytes; 400 for a body that is not a
      ``RunAgentInput`` (invalid UTF-8 anywhere in it included: the message
      names the JSON path or the byte), that names no thread, or whose
      ``threadId`` is not the session the route names (``session_of``), if
      it names one;
    * ``authorize(request, thread_id)``, if given: 403, or its
      :class:`~wire.transports.http.Refused` status;
    * ``find_log(request, chat)`` (sync or async) names the session's log,
      as ``answer_endpoint`` asks it: ``chat`` is agentscope's chat body,
      ``chat.session_id`` the thread, ``chat.agent_id`` the route's
      ``{agent_id}`` or ``agent_id``, and ``chat.input`` a new turn's Msgs
      (None otherwise: an answer is built from the parked reply once the
      log is found). 404 when it is None;
    * the input is taken as ``answer_endpoint`` takes it
      (``wire.transports.inputs.take_input``): 409 when the session cannot
      take it now, or when an answer names an interrupt or tool call no
      reply of the session made; ``admit(chat, session, request)``'s
      refusal; then ``on_input(chat, log, request)``;
    * 503 when the store fails before the response starts.

    Without ``on_input``, the log holds one reply and each request gets one
    run of it (wire's first AG-UI endpoint): ``find_log(request,
    run_input)``, ``authorize`` asked before the body is read, with
    ``session_of(request, session_param)``."""
    if on_input is None:
        return _reply_endpoint(find_log, heartbeat=heartbeat, coalesce=coalesce, body_limit=body_limit,
                               authorize=authorize, session_param=session_param)

    async def endpoint(request: Request) -> Response:
        parsed = await parsed_body(request, body_limit, _run_input)
        if isinstance(parsed, Response):
            return parsed
        run_input, msgs = parsed
        named = session_of(request, session_param) if request.path_params.keys() - {"agent_id"} else None
        thread_id = run_input.thread_id if run_input.thread_id is not None else named
        if thread_id is None:
            return PlainTextResponse("the request names no thread (threadId)", status_code=400)
        answers = bool(run_input.resume) or bool(run_input.messages and run_input.messages[-1].role == "tool")
        chat = ChatRequest(agent_id=str(request.path_params.get("agent_id", agent_id)), session_id=thread_id,
                           input=msgs if msgs and not answers else None)
        try:
            await check_session(request, thread_id, authorize, named)
            log: EventStore | None = await find(find_log, request, chat)
            if log is None:
                return PlainTextResponse("no such session", status_code=404)
            start = await _begin(log, run_input, chat, request, on_input, admit)
        except StoreError as exc:
            return PlainTextResponse(f"the store failed: {exc}", status_code=503)
        except Refused as exc:
            return refused(exc)
        except DecodeError as exc:
            return PlainTextResponse(f"the request body is not valid: {exc}", status_code=400)
        except RemoteProtocolError as exc:
            return PlainTextResponse(str(exc), status_code=409)
        if start is None:
            return Response(status_code=204)
        return streaming(_reply_body(log, start, heartbeat=heartbeat, coalesce=coalesce), CONTENT_TYPE)

    return endpoint


def _reply_endpoint(find_log: FindLog, *, heartbeat: float | None, coalesce: bool | float, body_limit: int,
                    authorize: Authorize | None, session_param: str) -> Callable[[Request], Awaitable[Response]]:
    """:func:`agui_endpoint` over a log of one reply: the run each request asks for."""

    def respond(log: EventStore, request: Request, run_input: Any) -> Response:
        return agui_response(log, run_input, heartbeat=heartbeat, coalesce=coalesce,
                             last_event_id=request.headers.get("last-event-id") or None)

    return serve(find_log, respond, parse=parse_run_input, body_limit=body_limit, authorize=authorize,
                 session_param=session_param)
