"""Two replicas serve one reply from Redis; a client drops from the first and
resumes on the second with Last-Event-ID while the agent is still writing.

Runs against the Redis at REDIS_URL (tests/transports/test_redis_replicas.py runs it against
a redis-server it starts). In production each replica is its own process,
started with ``uvicorn yourapp:app``, and the agent writes from wherever it runs.
"""

import asyncio
import contextlib
import os
import uuid

import httpx
import redis.asyncio as redis
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

import wire
from wire.framing import SSEDecoder
from wire.resume import read_checkpoint
from wire.stores.redis import RedisEventLog
from wire.transports.http import sse_endpoint
from wire.transports.streams import iter_events

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
REPLY = uuid.uuid4().hex


def replica(client: redis.Redis) -> Starlette:
    """What every replica serves: any of them can answer any reply."""
    def find_log(request):
        return RedisEventLog(client, f"reply:{request.path_params['id']}")
    return Starlette(routes=[Route("/replies/{id}/events", sse_endpoint(find_log))])


async def agent_reply(client: redis.Redis) -> wire.Msg:
    """Stands in for your agent: it appends to the shared log."""
    msg = wire.AssistantMsg("Friday", [], id=REPLY)
    log = RedisEventLog(client, f"reply:{REPLY}", msg=msg, max_len=1000, ttl=3600)
    await log.append(wire.ReplyStartEvent(session_id="s1", reply_id=REPLY, name="Friday"))
    await log.append(wire.TextBlockStartEvent(reply_id=REPLY, block_id="b1"))
    for i in range(0, 3000, 100):  # 3,000 deltas: the stream keeps only about 1,000
        await log.extend(wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b1", delta=f"{j} ")
                         for j in range(i, i + 100))
        await asyncio.sleep(0.01)
    await log.append(wire.TextBlockEndEvent(reply_id=REPLY, block_id="b1"))
    await log.append(wire.ReplyEndEvent(session_id="s1", reply_id=REPLY))
    await log.close()
    return msg


async def read(http: httpx.AsyncClient, url: str, msg: wire.Msg, last_id: str, stop_after: int):
    """Apply the events of one connection to ``msg``; the id to resume from."""
    decoder = SSEDecoder(last_event_id=last_id)
    headers = {"Last-Event-ID": last_id} if last_id else {}
    async with (http.stream("GET", url, headers=headers) as response,
                contextlib.aclosing(iter_events(response.aiter_bytes(), decoder)) as events):
        async for event in events:
            snapshot = read_checkpoint(event)
            if snapshot is not None:
                msg = snapshot  # a resume: the Msg so far, then the events after it
            else:
                msg.append_event(event)
            stop_after -= 1
            if stop_after == 0:
                break  # the connection drops, mid-reply
    return msg, decoder.last_event_id


async def main() -> None:
    client = redis.Redis.from_url(REDIS_URL)
    servers = [uvicorn.Server(uvicorn.Config(replica(client), host="127.0.0.1", port=0, log_level="warning"))
               for _ in range(2)]
    serving = [asyncio.create_task(server.serve()) for server in servers]
    while not all(server.started for server in servers):
        await asyncio.sleep(0.01)
    first, second = (f"http://127.0.0.1:{s.servers[0].sockets[0].getsockname()[1]}" for s in servers)
    producing = asyncio.create_task(agent_reply(client))
    async with httpx.AsyncClient() as http:
        while not await client.exists(f"reply:{REPLY}"):
            await asyncio.sleep(0.01)
        msg = wire.AssistantMsg("Friday", [], id=REPLY)
        msg, last_id = await read(http, f"{first}/replies/{REPLY}/events", msg, "", stop_after=500)
        print(producing.done())  # False
        msg, _ = await read(http, f"{second}/replies/{REPLY}/events", msg, last_id, stop_after=0)
    expected = await producing
    print(msg.get_text_content() == expected.get_text_content(), msg.finished_reason)  # True completed
    for server in servers:
        server.should_exit = True
    await asyncio.gather(*serving)
    await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
