"""NDJSON over HTTP: a Starlette endpoint streams a reply, an httpx client
rebuilds the Msg while it arrives (README, "NDJSON over HTTP")."""

import asyncio

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import wire
from wire.framing import NDJSONDecoder, NDJSONEncoder
from wire.transports.streams import iter_events

REPLY = "reply-1"


async def agent_reply():
    """Stands in for your agent: events as the model produces them."""
    yield wire.ReplyStartEvent(session_id="s1", reply_id=REPLY, name="Friday")
    yield wire.TextBlockStartEvent(reply_id=REPLY, block_id="b1")
    for word in ("Streaming ", "over ", "HTTP."):
        await asyncio.sleep(0.01)
        yield wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b1", delta=word)
    yield wire.TextBlockEndEvent(reply_id=REPLY, block_id="b1")
    yield wire.ReplyEndEvent(session_id="s1", reply_id=REPLY)


async def reply_endpoint(request: Request) -> StreamingResponse:
    encoder = NDJSONEncoder()

    async def body():
        async for event in agent_reply():
            yield encoder.encode(event)

    return StreamingResponse(body(), media_type="application/x-ndjson")


app = Starlette(routes=[Route("/reply", reply_endpoint)])


async def read_reply(url: str) -> wire.Msg:
    msg = wire.AssistantMsg("Friday", [], id=REPLY)
    async with httpx.AsyncClient() as http, http.stream("GET", url) as response:
        async for event in iter_events(response.aiter_bytes(), NDJSONDecoder()):
            msg.append_event(event)
    return msg


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    msg = await read_reply(f"http://127.0.0.1:{port}/reply")
    print(msg.get_text_content(), msg.finished_reason)  # Streaming over HTTP. completed
    server.should_exit = True
    await serving


asyncio.run(main())
