"""A chat service with confirmations, for the tests and the latency benchmark:
sessions owned by the caller's ``X-User-ID``, each a log (in memory, or a
Redis stream that any replica serves), read at ``GET /sessions/{id}/stream``
and answered at ``POST /chat`` (``wire.transports.http.answer_endpoint``), or
both over one WebSocket at ``/sessions/{id}/socket`` (``wire.transports.ws``).

The agent is a script: a new turn streams some text and a ``delete_file``
tool call, and parks asking for a confirmation (or, when the user's text
says "external", for an external result); the answer resumes it with the
same reply id: the tool's result (or the denial) and a last sentence. An
interrupt ends the reply.

    REDIS_URL=redis://127.0.0.1:6379/0 uvicorn tests.transports.chat_app:app --port 8001

runs one replica over Redis (without ``REDIS_URL``, a single process with
logs in memory). ``make_app`` builds either in a test's own process.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute

import wire
from wire.blocks import ToolCallBlock, ToolCallState, ToolResultState
from wire.stores import EventStore
from wire.stores.memory import EventLog
from wire.transports.chat import ChatRequest
from wire.transports.http import Refused, answer_endpoint, sse_endpoint
from wire.transports.ws import session_socket

AGENT = "Friday"
TEXT_DELTAS = 40


def user_of(request: HTTPConnection) -> str:
    user = request.headers.get("x-user-id", "")
    if not user:
        raise Refused(401, "who are you? (an X-User-ID header)")
    return user


class Sessions:
    """Who owns each session, and its log: in this process, or in Redis."""

    def __init__(self, redis_url: str | None = None, *, max_len: int | None = None) -> None:
        self.redis_url = redis_url
        self.max_len = max_len
        self.client: Any = None
        self.owners: dict[str, str] = {}
        self.logs: dict[str, EventLog] = {}

    async def open(self) -> None:
        if self.redis_url:
            import redis.asyncio as aioredis

            self.client = aioredis.Redis.from_url(self.redis_url)

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()

    async def create(self, user: str) -> str:
        session_id = secrets.token_hex(6)
        if self.client is not None:
            await self.client.set(f"chat:owner:{session_id}", user, ex=3600)
        else:
            self.owners[session_id] = user
            self.logs[session_id] = EventLog()
        return session_id

    async def owner(self, session_id: str) -> str | None:
        if self.client is not None:
            found = await self.client.get(f"chat:owner:{session_id}")
            return found.decode() if found is not None else None
        return self.owners.get(session_id)

    def log(self, session_id: str) -> EventStore:
        """The session's log. Over Redis a new object each time: whoever
        writes next takes on the replies another replica wrote."""
        if self.client is not None:
            from wire.stores.redis import RedisEventLog

            return RedisEventLog(self.client, f"chat:{{{session_id}}}", max_len=self.max_len, ttl=3600)
        return self.logs[session_id]

    async def find(self, session_id: str) -> EventStore | None:
        return self.log(session_id) if await self.owner(session_id) is not None else None


def delete_call(reply_id: str) -> list[wire.AgentEvent]:
    call = f"{reply_id}-call"
    return [wire.ToolCallStartEvent(reply_id=reply_id, tool_call_id=call, tool_call_name="delete_file"),
            wire.ToolCallDeltaEvent(reply_id=reply_id, tool_call_id=call, delta='{"path": "notes.txt"}'),
            wire.ToolCallEndEvent(reply_id=reply_id, tool_call_id=call)]


async def new_turn(log: EventStore, session_id: str, reply_id: str, external: bool, pause: float) -> None:
    """The agent's reply to a new message, up to its park."""
    await log.extend([wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name=AGENT),
                      wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}-t")])
    for i in range(TEXT_DELTAS):
        await log.append(wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-t", delta=f"{i} é "))
        await anyio.sleep(pause)
    await log.extend([wire.TextBlockEndEvent(reply_id=reply_id, block_id=f"{reply_id}-t"), *delete_call(reply_id)])
    call = ToolCallBlock(id=f"{reply_id}-call", name="delete_file", input='{"path": "notes.txt"}')
    if external:
        call.state = ToolCallState.SUBMITTED
        await log.append(wire.RequireExternalExecutionEvent(reply_id=reply_id, tool_calls=[call]))
    else:
        call.state = ToolCallState.ASKING
        await log.append(wire.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=[call]))


async def resumed(log: EventStore, session_id: str, answer: Any, pause: float) -> None:
    """The same reply, taken on after its answer."""
    reply_id: str = answer.reply_id
    if isinstance(answer, wire.UserInterruptEvent):
        await log.append(wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id,
                                            finished_reason=wire.ReplyFinishedReason.INTERRUPTED))
        return
    call = f"{reply_id}-call"
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name=AGENT)]
    if isinstance(answer, wire.UserConfirmResultEvent):
        allowed = answer.confirm_results[0].confirmed
        if allowed:
            events += [wire.ToolResultStartEvent(reply_id=reply_id, tool_call_id=call, tool_call_name="delete_file"),
                       wire.ToolResultTextDeltaEvent(reply_id=reply_id, tool_call_id=call, delta="deleted"),
                       wire.ToolResultEndEvent(reply_id=reply_id, tool_call_id=call, state=ToolResultState.SUCCESS)]
        closing = "Done: notes.txt is gone." if allowed else "Fine, I left notes.txt alone."
    else:
        closing = "Thanks, I have the result."
    events += [wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}-end")]
    for word in closing.split(" "):
        await log.extend(events)
        events = [wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-end", delta=word + " ")]
        await anyio.sleep(pause)
    await log.extend([*events, wire.TextBlockEndEvent(reply_id=reply_id, block_id=f"{reply_id}-end"),
                      wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id)])


def make_app(redis_url: str | None = None, *, pause: float = 0.001, max_len: int | None = None,
             on_turn: Callable[[ChatRequest], None] | None = None, socket_rate: float | None = None) -> Starlette:
    """The service. ``on_turn`` sees every input the endpoint took;
    ``socket_rate`` raises the socket's ``inputs_per_second`` and
    ``frames_per_second`` (the latency benchmark sends a turn and an answer
    every few milliseconds, which the defaults of 5 and 50 would refuse and
    pace)."""
    sessions = Sessions(redis_url, max_len=max_len)
    drops: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await sessions.open()
        async with anyio.create_task_group() as tasks:
            app.state.tasks = tasks
            yield
            tasks.cancel_scope.cancel()
        await sessions.aclose()

    async def authorize(request: HTTPConnection, session_id: str) -> bool:
        user = user_of(request)
        owner = await sessions.owner(session_id)
        return owner is None or owner == user  # an unknown session is find_log's 404

    async def find_log(request: HTTPConnection, chat: ChatRequest | None = None) -> EventStore | None:
        session_id = chat.session_id if chat is not None else request.path_params["session_id"]
        return await sessions.find(session_id)

    async def on_answer(chat: ChatRequest, log: EventStore, request: HTTPConnection) -> None:
        if on_turn is not None:
            on_turn(chat)
        value = chat.input
        if isinstance(value, wire.UserConfirmResultEvent | wire.ExternalExecutionResultEvent
                      | wire.UserInterruptEvent):
            request.app.state.tasks.start_soon(resumed, log, chat.session_id, value, pause)
            return
        text = " ".join(msg.get_text_content() or "" for msg in (value if isinstance(value, list) else [value]
                                                                  if value is not None else []))
        reply_id = f"r{len(await log.snapshot())}-{secrets.token_hex(3)}"
        request.app.state.tasks.start_soon(new_turn, log, chat.session_id, reply_id, "external" in text, pause)

    async def create(request: Request) -> Response:
        return JSONResponse({"session_id": await sessions.create(user_of(request))}, status_code=201)

    async def close(request: Request) -> Response:
        log = await sessions.find(request.path_params["session_id"])
        if log is None:
            return Response(status_code=404)
        await log.close()
        return Response(status_code=204)

    stream = sse_endpoint(find_log, authorize=authorize, heartbeat=1.0)
    replay = sse_endpoint(find_log, authorize=authorize, heartbeat=1.0, resume="replay")

    async def flaky(request: Request) -> Response:
        """The stream, but each of the first ``?drops=`` connections to a
        session is cut (abruptly, mid-body) after ``?after_chunks=`` chunks."""
        session_id = request.path_params["session_id"]
        inner = await (replay if request.query_params.get("resume") == "replay" else stream)(request)
        made = drops.get(session_id, 0)
        if not isinstance(inner, StreamingResponse) or made >= int(request.query_params.get("drops", "0")):
            return inner
        drops[session_id] = made + 1
        limit = int(request.query_params.get("after_chunks", "3"))
        body = inner.body_iterator

        async def cut() -> AsyncIterator[Any]:
            sent = 0
            async for chunk in body:
                yield chunk
                sent += 1
                if sent >= limit:
                    raise ConnectionAbortedError("the test cuts this connection")

        inner.body_iterator = cut()
        return inner

    async def html(request: Request) -> Response:
        return Response("<!doctype html><title>Sign in</title>", media_type="text/html")

    rate = 5.0 if socket_rate is None else socket_rate  # session_socket's default inputs_per_second
    return Starlette(lifespan=lifespan, routes=[
        Route("/sessions", create, methods=["POST"]),
        Route("/sessions/{session_id}/stream", stream),
        Route("/sessions/{session_id}/replay", replay),
        Route("/sessions/{session_id}/flaky", flaky),
        Route("/sessions/{session_id}/close", close, methods=["POST"]),
        Route("/login", html),
        Route("/chat", answer_endpoint(find_log, on_answer, authorize=authorize),
              methods=["POST"]),
        WebSocketRoute("/sessions/{session_id}/socket", session_socket(find_log, on_answer, authorize=authorize,
                                                                        heartbeat=1.0, inputs_per_second=rate,
                                                                        frames_per_second=max(rate, 50.0))),
    ])


app = make_app(os.environ.get("REDIS_URL") or None, pause=float(os.environ.get("CHAT_PAUSE", "0.001")),
               socket_rate=float(os.environ["CHAT_SOCKET_RATE"]) if os.environ.get("CHAT_SOCKET_RATE") else None)
