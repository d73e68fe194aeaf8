"""The answer endpoint's latency across replicas: a script, not a timed test.

On a real redis-server (a free 127.0.0.1 port, persistence off) two uvicorn
replicas of the chat service in ``tests/transports/chat_app.py`` run, each
its own process. One session; a follower (``wire.transports.client.Follower``)
reads it on replica 1 while every turn and every answer is posted to
replica 2 (``wire.transports.client.answer``). Each round trip: a new turn
is posted and read up to its park (the agent asks to confirm a tool call);
then the clock starts, the confirmation is posted to replica 2, and the
clock stops when the follower on replica 1 holds the resumed reply's next
event (the agent's continuation REPLY_START, written by replica 2's agent
after the endpoint appended the answer); the time to the answer's own event
at the follower is noted too. Then the reply is read to its end.

Reported: median and p99 over ``--rounds`` round trips (200 by default),
after 10 warm-up rounds. The agent pauses 0 s between its events here.

Run: ``.venv/bin/python -m benchmarks.bench_answer_latency [--rounds 200]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from contextlib import aclosing
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx

import wire
from tests.redis_server import running_server, start_replica
from wire.transports.chat import confirmation
from wire.transports.client import Follower, answer

ALICE = {"x-user-id": "alice"}


async def rounds(one: str, two: str, count: int) -> tuple[list[float], list[float]]:
    """(to the continuation, to the answer's event) in seconds, per round.
    The follower holds one connection for the whole run: no round pays
    for connecting."""
    to_reply: list[float] = []
    to_answer: list[float] = []
    send, receive = anyio.create_memory_object_stream[tuple[float, Any]](1 << 20)
    async with httpx.AsyncClient(timeout=30) as http:
        sid = (await http.post(f"{two}/sessions", headers=ALICE)).json()["session_id"]
        follower = Follower(f"{one}/sessions/{sid}/stream", client=http, headers=ALICE)

        async def read() -> None:
            async with aclosing(follower.batches()) as batches:
                async for batch in batches:
                    now = time.perf_counter()
                    for event in batch:
                        send.send_nowait((now, event))

        async def until(kind: type, reply_id: str | None = None) -> float:
            async for at, event in receive:
                if type(event) is kind and (reply_id is None or getattr(event, "reply_id", None) == reply_id):
                    return at
            raise RuntimeError("the stream ended")

        async with anyio.create_task_group() as tg:
            tg.start_soon(read)
            for _ in range(count):
                await answer(f"{two}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", "tidy"),
                             client=http, headers=ALICE)
                await until(wire.RequireUserConfirmEvent)
                parked = follower.conversation.last
                assert parked is not None
                sent = confirmation(parked, True)
                start = time.perf_counter()
                tg.start_soon(partial(answer, f"{two}/chat", agent_id="friday", session_id=sid, input=sent,
                                      client=http, headers=ALICE))
                to_answer.append(await until(wire.UserConfirmResultEvent, parked.id) - start)
                to_reply.append(await until(wire.ReplyStartEvent, parked.id) - start)
                await until(wire.ReplyEndEvent, parked.id)
            tg.cancel_scope.cancel()
    return to_reply, to_answer


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) >= 2 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with running_server(Path(tempfile.mkdtemp())) as server:
        started = [start_replica("tests.transports.chat_app:app", server.url, {"CHAT_PAUSE": "0"})
                   for _ in range(2)]
        try:
            (one, _), (two, _) = [(url, p) for p, url in started]
            anyio.run(rounds, one, two, 10)  # warm-up
            to_reply, to_answer = anyio.run(rounds, one, two, args.rounds)
        finally:
            for process, _ in started:
                process.terminate()
                process.wait(10)
    ms = 1000
    print(f"{len(to_reply)} round trips: POST the answer to replica 2 -> at the follower on replica 1")
    print(f"  the resumed reply's next event: median {statistics.median(to_reply) * ms:.2f} ms, "
          f"p99 {p99(to_reply) * ms:.2f} ms, max {max(to_reply) * ms:.2f} ms")
    print(f"  the answer's own event:         median {statistics.median(to_answer) * ms:.2f} ms, "
          f"p99 {p99(to_answer) * ms:.2f} ms")


if __name__ == "__main__":
    main()
