"""Two uvicorn replicas of the chat service (``tests/transports/chat_app.py``),
each its own process, over one redis-server: a follower reads the session
on replica 1 while the turns and the answers are posted to replica 2, and
ends with the same bytes as a fresh reader of either replica; answers and turns
posted to both replicas at once are taken once, with no lock: the answer
endpoint's conditional append is what decides."""

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


async def _parked(http: httpx.AsyncClient, replicas: list[str]) -> tuple[str, Follower, wire.Msg | None]:
    """A new session whose turn was posted to replica 2, followed on replica 1
    up to its park: its id, the follower and the parked reply."""
    sid = (await http.post(f"{replicas[0]}/sessions", headers=ALICE)).json()["session_id"]
    follower = Follower(f"{replicas[0]}/sessions/{sid}/stream", client=http, headers=ALICE)
    await answer(f"{replicas[1]}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", "go"),
                 client=http, headers=ALICE)
    return sid, follower, (await follower.run(turn=True)).last


async def test_the_same_answer_posted_to_both_replicas_at_once_is_taken_once(replicas: list[str]) -> None:
    async with httpx.AsyncClient() as http:
        sid, follower, parked = await _parked(http, replicas)
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


async def _racing(http: httpx.AsyncClient, bases: list[str], sid: str, value: object) -> list[int]:
    """``value`` posted to every base in ``bases`` at once: the statuses."""
    content = b'{"agent_id":"friday","session_id":"' + sid.encode() + b'","input":' + wire_json.encode(value) + b"}"
    statuses: list[int] = []

    async def post(base: str) -> None:
        response = await http.post(f"{base}/chat", headers={**ALICE, "content-type": "application/json"},
                                   content=content)
        statuses.append(response.status_code)

    async with anyio.create_task_group() as tg:
        for base in bases:
            tg.start_soon(post, base)
    return sorted(statuses)


async def _log(http: httpx.AsyncClient, base: str, sid: str) -> list[object]:
    """Every event of the session, read to the end of its latest turn."""
    fresh = Follower(f"{base}/sessions/{sid}/replay", client=http, headers=ALICE)
    events: list[object] = []
    async for batch in fresh.batches(turn=True):
        events += batch
    return events


@pytest.mark.parametrize("trial", range(3))
async def test_twenty_confirmations_half_to_each_replica_one_is_taken(replicas: list[str], trial: int) -> None:
    # Before: without the lock= option, 2 of 20 were taken and two USER_CONFIRM_RESULTs were in the log.
    async with httpx.AsyncClient(timeout=30) as http:
        sid, follower, parked = await _parked(http, replicas)
        assert parked is not None and waiting(parked).state == "parked"
        statuses = await _racing(http, replicas * 10, sid, confirmation(parked, True))
        assert statuses == [200] + [409] * 19
        ended = (await follower.run(turn=True)).last
        assert ended is not None and (ended.get_text_content() or "").count("gone") == 1
        events = await _log(http, replicas[1], sid)
        assert sum(type(e) is wire.UserConfirmResultEvent for e in events) == 1


async def test_turns_posted_to_both_replicas_at_once_one_starts(replicas: list[str]) -> None:
    # Before: every turn got 200 and started a run of its own.
    async with httpx.AsyncClient(timeout=30) as http:
        sid = (await http.post(f"{replicas[0]}/sessions", headers=ALICE)).json()["session_id"]
        statuses = await _racing(http, replicas * 3, sid, wire.UserMsg("alice", "go"))
        assert statuses == [200] + [409] * 5
        follower = Follower(f"{replicas[0]}/sessions/{sid}/stream", client=http, headers=ALICE)
        parked = (await follower.run(turn=True)).last
        assert parked is not None and len(follower.conversation.replies) == 1
        turns = [e for e in await _log(http, replicas[1], sid)
                 if type(e) is wire.CustomEvent and e.name == wire.session.TURN]
        assert len(turns) == 1 and wire.session.read_turn(turns[0]) is not None


async def test_interrupts_posted_to_both_replicas_one_is_taken_and_the_reply_waits_no_more(
        replicas: list[str]) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        sid, follower, parked = await _parked(http, replicas)
        assert parked is not None
        assert await _racing(http, replicas * 2, sid, wire.UserInterruptEvent(reply_id=parked.id)) == [200, 409, 409,
                                                                                                      409]
        assert await _racing(http, replicas, sid, confirmation(parked, True)) == [409, 409]
        ended = (await follower.run(turn=True)).last
        assert ended is not None and ended.finished_reason == wire.ReplyFinishedReason.INTERRUPTED


async def test_inputs_over_a_socket_on_one_replica_reach_an_sse_follower_on_the_other(replicas: list[str]) -> None:
    pytest.importorskip("websockets")
    from wire.transports.ws_client import SessionSocket

    one, two = replicas
    async with httpx.AsyncClient(timeout=30) as http:
        sid = (await http.post(f"{two}/sessions", headers=ALICE)).json()["session_id"]
        follower = Follower(f"{one}/sessions/{sid}/stream", client=http, headers=ALICE)
        url = "ws" + two.removeprefix("http") + f"/sessions/{sid}/socket"
        async with SessionSocket(url, headers=ALICE, protocol="msgpack") as socket:
            await socket.send(wire.UserMsg("alice", "go"), agent_id="friday", session_id=sid)
            parked = (await follower.run(turn=True)).last
            assert parked is not None and waiting(parked).state == "parked"
            answered = await socket.send(confirmation(parked, True), agent_id="friday", session_id=sid)
            assert answered.entry_id is not None
            ended = (await follower.run(turn=True)).last
            assert ended is not None and "gone" in (ended.get_text_content() or "")
            mine = (await socket.run(turn=True)).last  # the socket's own reader, to the end of the turn
            while mine is not None and waiting(mine).state != "ended":
                mine = (await socket.run(turn=True)).last
        assert mine is not None and wire_json.encode(mine) == wire_json.encode(ended)
