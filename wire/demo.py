"""``python -m wire demo``: watch a recorded reply travel over a real connection.

A Starlette app served by uvicorn on 127.0.0.1 streams the reply in the
chosen framing (SSE, NDJSON or length-prefixed MessagePack) at a chosen pace;
an httpx client reads the bytes as they arrive, feeds them to wire's stream
decoder, reduces the events with ``append_event`` and shows the reply as a
person likes to watch it: thinking and text appearing live, tool calls and
their results marked, and a summary at the end.

:class:`DemoAgent` is the agent of ``python -m wire demo --web`` (a
session): the same recorded reply, made to ask before it runs its tool call
(REQUIRE_USER_CONFIRM with the call) and to go on from the user's answer.

An edge module like ``wire.cli``: it alone needs the ``demo`` extra
(starlette, uvicorn, httpx), imported when the demo runs.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import msgspec

import wire
from wire.clock import new_id, now
from wire.framing import FRAMINGS

__all__ = ("DemoAgent", "Summary", "run")


@dataclass
class Summary:
    """What the client saw: the Msg it rebuilt and what it cost."""

    msg: wire.Msg
    events: int = 0
    wire_bytes: int = 0
    chunks: int = 0
    seconds: float = 0.0
    anomalies: list[wire.Anomaly] = field(default_factory=list)


def run(reply: bytes, *, format: str = "sse", pace: float = 0.02, out: TextIO,
        color: bool | None = None) -> Summary:
    """Serve ``reply`` (NDJSON events of one reply) on 127.0.0.1 in ``format``,
    one event every ``pace`` seconds, read it back, and show it on ``out``."""
    events = wire.json.decode_events(reply)
    if color is None:
        color = out.isatty() and "NO_COLOR" not in os.environ
    return anyio.run(_run, events, format, pace, _Screen(out, color))


async def _run(events: list[wire.AgentEvent], format: str, pace: float, screen: _Screen) -> Summary:
    import httpx
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    framing = FRAMINGS[format]

    async def body() -> AsyncIterator[bytes]:
        encoder = framing.encoder()
        for event in events:
            yield encoder.encode(event)
            await anyio.sleep(pace)

    async def reply(request: Request) -> StreamingResponse:
        return StreamingResponse(body(), media_type=framing.media_type, headers={"Cache-Control": "no-cache"})

    app = Starlette(routes=[Route("/reply", reply)])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    host, port = sock.getsockname()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))

    start = next(e for e in events if isinstance(e, wire.ReplyStartEvent))
    summary = Summary(msg=wire.AssistantMsg(start.name, [], id=start.reply_id))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve, [sock])
        while not server.started:
            await anyio.sleep(0.01)
        screen.header(f"http://{host}:{port}/reply", format)
        began = time.perf_counter()
        decoder = framing.decoder()
        async with httpx.AsyncClient() as client, client.stream("GET", f"http://{host}:{port}/reply") as response:
            response.raise_for_status()
            async for chunk in response.aiter_raw():
                summary.chunks += 1
                summary.wire_bytes += len(chunk)
                for event in decoder.feed(chunk):
                    summary.events += 1
                    summary.msg.append_event(event)
                    screen.show(event, summary.msg)
            for event in decoder.close():
                summary.events += 1
                summary.msg.append_event(event)
                screen.show(event, summary.msg)
        summary.seconds = time.perf_counter() - began
        server.should_exit = True
    summary.anomalies = summary.msg.anomalies
    screen.summary(summary)
    return summary


class _Screen:
    """Turns events into what a person watching the reply wants to see."""

    def __init__(self, out: TextIO, color: bool) -> None:
        self.out = out
        self.color = color
        self.at_line_start = True

    def _style(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def write(self, text: str, code: str = "") -> None:
        if text:
            self.out.write(self._style(text, code) if code else text)
            self.at_line_start = text.endswith("\n")
            self.out.flush()

    def line(self, text: str = "", code: str = "") -> None:
        if not self.at_line_start:
            self.write("\n")
        self.write(text, code)
        self.write("\n")

    def header(self, url: str, format: str) -> None:
        self.line(f"wire demo: a recorded reply over {format.upper()} from {url}", "2")
        self.line()

    def show(self, event: wire.AgentEvent, msg: wire.Msg) -> None:
        if isinstance(event, wire.ThinkingBlockStartEvent):
            self.line("thinking ", "2;3")
        elif isinstance(event, wire.ThinkingBlockDeltaEvent):
            self.write(event.delta, "2;3")
        elif isinstance(event, wire.TextBlockStartEvent):
            self.line()
        elif isinstance(event, wire.TextBlockDeltaEvent):
            self.write(event.delta)
        elif isinstance(event, wire.ToolCallStartEvent):
            self.line()
            self.write(f"⚙ tool call {event.tool_call_name} ", "1;36")
        elif isinstance(event, wire.ToolCallDeltaEvent):
            self.write(event.delta, "36")
        elif isinstance(event, wire.ToolResultStartEvent):
            self.line(f"↳ {event.tool_call_name} result", "1;35")
        elif isinstance(event, wire.ToolResultTextDeltaEvent):
            self.write(event.delta, "35")
        elif isinstance(event, wire.ToolResultEndEvent):
            self.line(f"↳ {event.state.value} {dict(event.metadata) or ''}".rstrip(), "1;35")
        elif isinstance(event, wire.DataBlockEndEvent):
            block = next(b for b in msg.content if isinstance(b, wire.DataBlock) and b.id == event.block_id)
            source = block.source
            size = f"{len(source.data):,} bytes" if isinstance(source, wire.Base64Source) else source.url
            self.line(f"▣ {block.name or 'data'} ({source.media_type}, {size})", "1;33")
        elif isinstance(event, wire.ReplyEndEvent):
            self.line()
            self.line(f"■ reply {event.finished_reason.value}", "1")

    def summary(self, s: Summary) -> None:
        counts: dict[str, int] = {}
        for block in s.msg.content:
            counts[block.type] = counts.get(block.type, 0) + 1
        usage = s.msg.usage
        rate = s.events / s.seconds if s.seconds else 0.0
        self.line()
        self.line("summary", "1")
        self.line(f"  blocks     {', '.join(f'{n} {kind}' for kind, n in counts.items())}")
        if usage is not None:
            self.line(f"  usage      {usage.input_tokens:,} tokens in ({usage.cache_input_tokens:,} cached), "
                      f"{usage.output_tokens:,} out")
        self.line(f"  wire       {s.wire_bytes:,} bytes in {s.chunks:,} reads")
        self.line(f"  events     {s.events:,} in {s.seconds:.2f} s ({rate:,.0f} events/s)")
        if s.anomalies:
            self.line(f"  anomalies  {len(s.anomalies)}: {', '.join(a.kind for a in s.anomalies)}", "31")


class DemoAgent:
    """The recorded reply as an agent that asks first: a new turn streams the
    reply up to its tool call's end and parks at REQUIRE_USER_CONFIRM with
    the call (state ``asking``); the answer takes it on with the same reply
    id, as agentscope's agent goes on: a REPLY_START, then the recorded rest
    (the tool's result, the text, the chart) when allowed, or a denied
    result and a sentence saying so when denied. An interrupt ends it.

    Each reply gets its own reply id; every event of the recording is sent
    with that id and the session's, a new event id and the time it is sent."""

    def __init__(self, reply: bytes, *, pace: float = 0.05) -> None:
        events = wire.json.decode_events(reply)
        start = next(e for e in events if isinstance(e, wire.ReplyStartEvent))
        call_end = next(i for i, e in enumerate(events) if isinstance(e, wire.ToolCallEndEvent))
        call_start = next(e for e in events if isinstance(e, wire.ToolCallStartEvent))
        # The model call that made the tool call ends before the park, so the
        # Msg's usage is whole while it waits.
        split = call_end + 1
        while split < len(events) and isinstance(events[split], wire.ModelCallEndEvent):
            split += 1
        self.name = start.name
        self.asking = events[events.index(start) + 1:split]
        self.allowed = events[split:]
        self.call_id = call_start.tool_call_id
        self.call_name = call_start.tool_call_name
        self.call_input = "".join(e.delta for e in events[:split]
                                  if isinstance(e, wire.ToolCallDeltaEvent) and e.tool_call_id == self.call_id)
        self.pace = pace

    async def _stream(self, log: Any, events: Iterable[wire.AgentEvent], session_id: str, reply_id: str) -> None:
        """Append ``events`` one by one at the agent's pace, each as new: this
        reply's and session's ids, a new event id, the time it is sent."""
        for event in events:
            await anyio.sleep(self.pace)
            changes: dict[str, Any] = {"reply_id": reply_id, "id": new_id(), "created_at": now()}
            if hasattr(event, "session_id"):
                changes["session_id"] = session_id
            await log.append(msgspec.structs.replace(event, **changes))

    async def turn(self, log: Any, session_id: str, reply_id: str) -> None:
        """A reply to a new message, up to its park."""
        call = wire.ToolCallBlock(id=self.call_id, name=self.call_name, input=self.call_input,
                                  state=wire.ToolCallState.ASKING)
        await self._stream(log, [wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name=self.name),
                                 *self.asking, wire.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=[call])],
                           session_id, reply_id)

    async def resume(self, log: Any, session_id: str, answer: wire.UserConfirmResultEvent
                     | wire.ExternalExecutionResultEvent | wire.UserInterruptEvent) -> None:
        """The same reply, taken on after ``answer`` (a confirmation, an
        external result, which it takes as a denial, or an interrupt)."""
        reply_id = answer.reply_id
        if isinstance(answer, wire.UserInterruptEvent):
            await log.append(wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id,
                                                finished_reason=wire.ReplyFinishedReason.INTERRUPTED))
            return
        allowed = isinstance(answer, wire.UserConfirmResultEvent) and all(
            result.confirmed for result in answer.confirm_results)
        start = wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name=self.name)
        if allowed:
            await self._stream(log, [start, *self.allowed], session_id, reply_id)
            return
        call, text = self.call_id, f"{reply_id}-denied"
        sentence = "Understood: I did not run the command, so I have no chart to show. Ask again to let me run it."
        await self._stream(log, [
            start,
            wire.ToolResultStartEvent(reply_id=reply_id, tool_call_id=call, tool_call_name=self.call_name),
            wire.ToolResultTextDeltaEvent(reply_id=reply_id, tool_call_id=call, delta="denied by the user"),
            wire.ToolResultEndEvent(reply_id=reply_id, tool_call_id=call, state=wire.ToolResultState.DENIED),
            wire.TextBlockStartEvent(reply_id=reply_id, block_id=text),
            *(wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=text, delta=word + " ")
              for word in sentence.split(" ")),
            wire.TextBlockEndEvent(reply_id=reply_id, block_id=text),
            wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id)], session_id, reply_id)
