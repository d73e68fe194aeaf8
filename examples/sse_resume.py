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
from wire.stores.memory import EventLog
from wire.transports.client import Follower
from wire.transports.http import sse_endpoint

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
    log = logs[REPLY] = EventLog()  # a reply's Msg begins at its REPLY_START
    request.app.state.tasks.start_soon(agent_reply, log)
    return Response(status_code=201)


app = Starlette(lifespan=lifespan, routes=[
    Route("/replies", start_reply, methods=["POST"]),
    Route("/replies/{id}/events", sse_endpoint(lambda request: logs.get(request.path_params["id"]))),
])


async def follow(http: httpx.AsyncClient, url: str) -> wire.Msg:
    """Read a reply; the first connection drops mid-reply, the second resumes
    from the last entry id the client saw (a checkpoint, then the rest)."""
    follower = Follower(url, client=http)  # checks the status and content type, retries with backoff
    async with contextlib.aclosing(follower.batches(REPLY)) as batches:
        seen = 0
        async for batch in batches:
            seen += len(batch)
            if seen >= 20:
                break  # this demo drops its first connection here, mid-reply
    await follower.run(REPLY)  # resumes with Last-Event-ID until the reply ends
    return follower.conversation.replies[REPLY]


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
