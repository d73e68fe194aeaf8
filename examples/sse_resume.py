"""SSE with resume: a client loses its connection mid-reply and resumes with
Last-Event-ID (README, "SSE to a browser, with resume")."""

import asyncio
import contextlib

import anyio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import wire
from wire.framing import SSEDecoder
from wire.resume import read_checkpoint
from wire.stores.memory import EventLog
from wire.transports.http import sse_endpoint
from wire.transports.streams import iter_events

REPLY = "reply-1"
logs: dict[str, EventLog] = {}


async def agent_reply(log: EventLog) -> None:
    """Stands in for your agent: it appends to the log as the model produces."""
    await log.append(wire.ReplyStartEvent(session_id="s1", reply_id=REPLY, name="Friday"))
    await log.append(wire.TextBlockStartEvent(reply_id=REPLY, block_id="b1"))
    for i in range(200):
        await log.append(wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b1", delta=f"{i} "))
        await anyio.sleep(0.001)
    await log.append(wire.TextBlockEndEvent(reply_id=REPLY, block_id="b1"))
    await log.append(wire.ReplyEndEvent(session_id="s1", reply_id=REPLY))
    await log.close()


@contextlib.asynccontextmanager
async def lifespan(app: Starlette):
    async with anyio.create_task_group() as tg:
        app.state.tasks = tg
        yield
        tg.cancel_scope.cancel()


async def start_reply(request: Request) -> Response:
    log = logs[REPLY] = EventLog(wire.AssistantMsg("Friday", [], id=REPLY))
    request.app.state.tasks.start_soon(agent_reply, log)
    return Response(status_code=201)


app = Starlette(lifespan=lifespan, routes=[
    Route("/replies", start_reply, methods=["POST"]),
    Route("/replies/{id}/events", sse_endpoint(lambda request: logs.get(request.path_params["id"]))),
])


async def follow(http: httpx.AsyncClient, url: str) -> wire.Msg:
    """Read a reply, reconnecting with Last-Event-ID until it is complete."""
    msg = wire.AssistantMsg("Friday", [], id=REPLY)
    last_id = ""
    drop_after = 20  # this demo drops its first connection after 20 events
    while msg.finished_at is None:
        decoder = SSEDecoder(last_event_id=last_id)  # a new decoder per connection
        headers = {"Last-Event-ID": last_id} if last_id else {}
        try:
            async with (
                http.stream("GET", url, headers=headers) as response,
                contextlib.aclosing(iter_events(response.aiter_bytes(), decoder)) as events,
            ):
                async for event in events:
                    snapshot = read_checkpoint(event)
                    if snapshot is not None:
                        msg = snapshot
                    else:
                        msg.append_event(event)
                    drop_after -= 1
                    if drop_after == 0:
                        break  # the connection drops, mid-reply
        except (httpx.TransportError, wire.FrameError):
            await anyio.sleep(0.1)  # a real drop: wait, then resume
        last_id = decoder.last_event_id
    return msg


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    async with httpx.AsyncClient(base_url=base) as http:
        await http.post("/replies")
        msg = await follow(http, f"/replies/{REPLY}/events")
    expected = " ".join(str(i) for i in range(200)) + " "
    print(msg.get_text_content() == expected, msg.finished_reason)  # True completed
    server.should_exit = True
    await serving


asyncio.run(main())
