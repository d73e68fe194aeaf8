"""Two uvicorn replicas of the chat service (``tests/transports/chat_app.py``),
each its own process, over one redis-server: a follower reads the session
on replica 1 while the turns and the answers are posted to replica 2, and
ends with the same bytes as a fresh reader of either replica; answers posted
to both replicas at once are taken once."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx
import pytest

import wire
from tests.redis_server import RedisServer, redis_server, replica_processes
from wire import json as wire_json
from wire.transports.chat import confirmation, waiting
from wire.transports.client import Follower, answer

pytest.importorskip("redis.asyncio")

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings(
    "ignore:Async generator 'httpcore.:ResourceWarning", "ignore:Async generator 'httpx.:ResourceWarning")]
ALICE = {"x-user-id": "alice"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def replicas(redis_server: RedisServer) -> Iterator[list[str]]:
    with replica_processes("tests.transports.chat_app:app", redis_server.url) as urls:
        yield urls


async def test_a_follower_on_one_replica_and_answers_on_the_other(replicas: list[str]) -> None:
    one, two = replicas
    async with httpx.AsyncClient() as http:
        sid = (await http.post(f"{two}/sessions", headers=ALICE)).json()["session_id"]
        follower = Follower(f"{one}/sessions/{sid}/stream", client=http, headers=ALICE)
        for turn, allow in enumerate((True, False, True)):
            await answer(f"{two}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", f"t{turn}"),
                         client=http, headers=ALICE)
            parked = (await follower.run(turn=True)).last
            assert parked is not None and waiting(parked).state == "parked"
            answered = await answer(f"{two}/chat", agent_id="friday", session_id=sid,
                                    input=confirmation(parked, allow), client=http, headers=ALICE)
            assert answered.entry_id is not None
            ended = (await follower.run(turn=True)).last
            assert ended is not None and waiting(ended).state == "ended"
            assert ("gone" if allow else "alone") in (ended.get_text_content() or "")
        mine = [wire_json.encode(m) for m in follower.conversation.replies.values()]
        assert len(mine) == 3
        for base in replicas:  # a fresh reader, to the end of the last turn: the same bytes
            fresh = await Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE).run(turn=True)
            assert [wire_json.encode(m) for m in fresh.replies.values()] == mine
        # Nobody else reads it, on either replica.
        for base in replicas:
            assert (await http.get(f"{base}/sessions/{sid}/stream", headers={"x-user-id": "bob"})).status_code == 403


async def test_the_same_answer_posted_to_both_replicas_at_once_is_taken_once(replicas: list[str]) -> None:
    async with httpx.AsyncClient() as http:
        sid = (await http.post(f"{replicas[0]}/sessions", headers=ALICE)).json()["session_id"]
        follower = Follower(f"{replicas[0]}/sessions/{sid}/stream", client=http, headers=ALICE)
        await answer(f"{replicas[1]}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", "go"),
                     client=http, headers=ALICE)
        parked = (await follower.run(turn=True)).last
        assert parked is not None
        body = confirmation(parked, True)
        statuses: list[int] = []

        async def post(base: str) -> None:
            response = await http.post(f"{base}/chat", headers=ALICE, content=wire_json.encode(body).join(
                [b'{"agent_id":"friday","session_id":"' + sid.encode() + b'","input":', b"}"]))
            statuses.append(response.status_code)

        async with anyio.create_task_group() as tg:
            for base in replicas * 3:
                tg.start_soon(post, base)
        assert sorted(statuses) == [200, 409, 409, 409, 409, 409]
        ended = (await follower.run(turn=True)).last
        assert ended is not None and ended.get_text_content() is not None
        assert ended.get_text_content().count("gone") == 1  # type: ignore[union-attr]  # one run, not two
