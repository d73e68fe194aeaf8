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
from wire.stores.redis import RedisEventLog
from wire.transports.client import Follower
from wire.transports.http import sse_endpoint

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
REPLY = uuid.uuid4().hex


def replica(client: redis.Redis) -> Starlette:
    """What every replica serves: any of them can answer any reply."""
    def find_log(request):
        return RedisEventLog(client, f"reply:{request.path_params['id']}")
    return Starlette(routes=[Route("/replies/{id}/events", sse_endpoint(find_log))])


async def agent_reply(client: redis.Redis) -> wire.Msg:
    """Stands in for your agent: it appends to the shared log."""
    log = RedisEventLog(client, f"reply:{REPLY}", max_len=1000, ttl=3600)  # the Msg begins at REPLY_START
    await log.append(wire.ReplyStartEvent(session_id="s1", reply_id=REPLY, name="Friday"))
    await log.append(wire.TextBlockStartEvent(reply_id=REPLY, block_id="b1"))
    for i in range(0, 3000, 100):  # 3,000 deltas: the stream keeps only about 1,000
        await log.extend(wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b1", delta=f"{j} ")
                         for j in range(i, i + 100))
        await asyncio.sleep(0.01)
    await log.append(wire.TextBlockEndEvent(reply_id=REPLY, block_id="b1"))
    await log.append(wire.ReplyEndEvent(session_id="s1", reply_id=REPLY))
    await log.close()
    assert log.msg is not None
    return log.msg


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
        on_first = Follower(f"{first}/replies/{REPLY}/events", client=http)
        async with contextlib.aclosing(on_first.batches(REPLY)) as batches:
            async for _ in batches:
                if on_first.conversation.replies[REPLY].get_text_content().count(" ") >= 500:
                    break  # the connection drops, mid-reply
        print(producing.done())  # False
        on_second = Follower(f"{second}/replies/{REPLY}/events", client=http,
                             conversation=on_first.conversation, after=on_first.last_event_id)
        msg = (await on_second.run(REPLY)).replies[REPLY]
    expected = await producing
    print(msg.get_text_content() == expected.get_text_content(), msg.finished_reason)  # True completed
    for server in servers:
        server.should_exit = True
    await asyncio.gather(*serving)
    await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
