"""``python -m wire demo``: watch a recorded reply travel over a real connection.

A Starlette app served by uvicorn on 127.0.0.1 streams the reply in the
chosen framing (SSE, NDJSON or length-prefixed MessagePack) at a chosen pace;
an httpx client reads the bytes as they arrive, feeds them to wire's stream
decoder, reduces the events with ``append_event`` and shows the reply as a
person likes to watch it: thinking and text appearing live, tool calls and
their results marked, and a summary at the end.

An edge module like ``wire.cli``: it alone needs the ``demo`` extra
(starlette, uvicorn, httpx), imported when the demo runs.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TextIO

import anyio

import wire
from wire.framing import FRAMINGS

__all__ = ("Summary", "run")


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
