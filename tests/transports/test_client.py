"""``wire.transports.client`` against a real uvicorn on loopback, over both
stores: a chat with confirmations round trip; followers whose connections
are cut mid-session resume (checkpoint or replay, ``Last-Event-ID`` or
``?after=``) and end with the same Msg bytes as one that never dropped and
one that came afterwards; a 404, a refusal and an HTML page are errors that
name the status and the content type; a dead server is given up on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest

import wire
from tests.helpers import serve_asgi
from tests.redis_server import RedisServer, free_port, redis_server
from tests.transports.chat_app import TEXT_DELTAS, delete_call, make_app
from wire import json as wire_json
from wire.errors import DecodeError
from wire.framing import SSEEncoder
from wire.resume import Conversation, checkpoint, restart
from wire.transports.chat import confirmation, waiting
from wire.transports.client import (
    MAX_ANSWER_BYTES,
    MAX_RETRY_AFTER,
    ConnectionFailed,
    Follower,
    HTTPStatusError,
    ResponseTooLarge,
    answer,
)

__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings(
    "ignore:Async generator 'httpcore.:ResourceWarning", "ignore:Async generator 'httpx.:ResourceWarning")]

ALICE = {"x-user-id": "alice"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "redis"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    """The chat service on uvicorn, its logs in memory or in Redis."""
    url = None
    if request.param == "redis":
        pytest.importorskip("redis.asyncio")
        server: RedisServer = request.getfixturevalue("redis_server")
        url = server.url
    with serve_asgi(make_app(url, max_len=60 if url else None)) as found:
        yield found


def replies(conversation: Conversation) -> list[bytes]:
    return [wire_json.encode(msg) for msg in conversation.replies.values()]


async def new_session(http: httpx.AsyncClient, base: str) -> str:
    created = await http.post(f"{base}/sessions", headers=ALICE)
    assert created.status_code == 201
    session_id: str = created.json()["session_id"]
    return session_id


async def chat(http: httpx.AsyncClient, base: str, sid: str, follower: Follower, text: str,
               decide: Any) -> wire.Msg:
    """One turn: post the message, read to the park, answer it with
    ``decide(msg)``, read to the reply's end."""
    await answer(f"{base}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", text),
                 client=http, headers=ALICE)
    conversation = await follower.run(turn=True)
    msg = conversation.last
    assert msg is not None and waiting(msg).state == "parked"
    answered = await answer(f"{base}/chat", agent_id="friday", session_id=sid, input=decide(msg), client=http,
                            headers=ALICE)
    assert answered.entry_id is not None
    msg = (await follower.run(turn=True)).last
    assert msg is not None and waiting(msg).state == "ended"
    return msg


async def test_a_chat_with_confirmations(base: str) -> None:
    async with httpx.AsyncClient() as http:
        sid = await new_session(http, base)
        follower = Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE)
        allowed = await chat(http, base, sid, follower, "tidy up", lambda msg: confirmation(msg, True))
        assert "Done: notes.txt is gone." in (allowed.get_text_content() or "")
        assert [b.type for b in allowed.content] == ["text", "tool_call", "tool_result", "text"]
        denied = await chat(http, base, sid, follower, "tidy up again", lambda msg: confirmation(msg, False))
        assert "left notes.txt alone" in (denied.get_text_content() or "")
        # An external result instead of a confirmation.
        def result(msg: wire.Msg) -> wire.ExternalExecutionResultEvent:
            block = wire.ToolResultBlock(id=waiting(msg).external[0].id, name="delete_file", output="gone",
                                         state=wire.ToolResultState.SUCCESS)
            return wire.ExternalExecutionResultEvent(reply_id=msg.id, execution_results=[block])

        external = await chat(http, base, sid, follower, "external please", result)
        assert "Thanks" in (external.get_text_content() or "")
        assert len(follower.conversation.replies) == 3
        assert (await http.post(f"{base}/sessions/{sid}/close", headers=ALICE)).status_code == 204
        await follower.run()
        assert follower.closed
        late = await Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE).run()
        assert replies(late) == replies(follower.conversation)


@pytest.mark.parametrize(("resume", "cursor"), [("checkpoint", "header"), ("checkpoint", "query"),
                                                ("replay", "header"), ("replay", "query")])
async def test_followers_that_drop_mid_session_end_with_the_same_bytes(base: str, resume: str, cursor: Any) -> None:
    async with httpx.AsyncClient() as http:
        sid = await new_session(http, base)
        steady = Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE)
        # Each of its first 6 connections is cut after 2 chunks, while the session is written.
        flaky = Follower(f"{base}/sessions/{sid}/flaky?drops=6&after_chunks=2&resume={resume}", client=http,
                         headers=ALICE, cursor=cursor, backoff=0.01, retries=3)
        async with anyio.create_task_group() as tg:
            tg.start_soon(flaky.run)
            for turn in range(3):
                await chat(http, base, sid, steady, f"turn {turn}", lambda msg: confirmation(msg, True))
            await http.post(f"{base}/sessions/{sid}/close", headers=ALICE)
        await steady.run()
        assert flaky.connections == 7  # 6 cut, and the last read to the end
        late = await Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE).run()
        assert len(steady.conversation.replies) == 3
        assert replies(flaky.conversation) == replies(steady.conversation) == replies(late)
        for msg in steady.conversation.replies.values():  # begun at REPLY_START: the server's time, on every reader
            assert len((msg.get_text_content() or "").split("é")) > TEXT_DELTAS


async def test_a_404_a_refusal_and_an_html_page_name_their_status_and_type(base: str) -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(HTTPStatusError) as missing:
            await Follower(f"{base}/sessions/nope/stream", client=http, headers=ALICE, backoff=0).run()
        assert (missing.value.status, missing.value.content_type.split(";")[0]) == (404, "text/plain")
        assert "404" in str(missing.value) and "text/plain" in str(missing.value)
        with pytest.raises(HTTPStatusError) as page:
            await Follower(f"{base}/login", client=http, backoff=0).run()
        assert (page.value.status, page.value.content_type.split(";")[0]) == (200, "text/html")
        assert "text/html" in str(page.value) and "Sign in" in str(page.value)
        sid = await new_session(http, base)
        for headers, status in (({"x-user-id": "mallory"}, 403), ({}, 401)):
            follower = Follower(f"{base}/sessions/{sid}/stream", client=http, headers=headers, backoff=0)
            with pytest.raises(HTTPStatusError) as refused:
                await follower.run()
            assert refused.value.status == status and follower.connections == 1  # never retried
            with pytest.raises(HTTPStatusError) as refused:
                await answer(f"{base}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("m", "hi"),
                             client=http, headers=headers)
            assert refused.value.status == status


async def test_a_server_that_is_gone_is_given_up_after_the_retries() -> None:
    follower = Follower(f"http://127.0.0.1:{free_port()}/sessions/s/stream", retries=2, backoff=0.01)
    with pytest.raises(ConnectionFailed) as gone:
        await follower.run()
    assert follower.connections == 3 and gone.value.attempts == 3
    assert isinstance(gone.value.__cause__, httpx.ConnectError)


def _turn(reply_id: str, *, park: bool) -> list[wire.AgentEvent]:
    """A reply that parks on a confirmation, or one that ends."""
    events: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(session_id="s", reply_id=reply_id, name="friday"),
        wire.TextBlockStartEvent(reply_id=reply_id, block_id=f"{reply_id}-t"),
        wire.TextBlockDeltaEvent(reply_id=reply_id, block_id=f"{reply_id}-t", delta="Shall I?"),
        wire.TextBlockEndEvent(reply_id=reply_id, block_id=f"{reply_id}-t")]
    if not park:
        return [*events, wire.ReplyEndEvent(session_id="s", reply_id=reply_id)]
    call = wire.ToolCallBlock(id=f"{reply_id}-call", name="delete_file", input='{"path": "notes.txt"}',
                              state=wire.ToolCallState.ASKING)
    return [*events, *delete_call(reply_id), wire.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=[call])]


async def test_a_checkpoint_repeating_what_the_follower_holds_ends_no_turn() -> None:
    """A reconnect whose position was trimmed starts with checkpoints of the
    replies the follower already has, in a chunk of their own: the parked
    reply it is waiting on, then the ended one before a new turn. Neither
    ends the turn; the news that follows does."""
    encoder = SSEEncoder(next_id=1)
    parked = _turn("a", park=True)
    answered: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s", reply_id="a", name="friday"),
                                       wire.ReplyEndEvent(session_id="s", reply_id="a")]
    held = Conversation()
    held.extend(parked)
    parked_again = encoder.encode(checkpoint(held.replies["a"]))  # taken before the answer changes the Msg
    held.extend(answered)
    ended_again = encoder.encode(checkpoint(held.replies["a"]))
    bodies = [[b"".join(map(encoder.encode, parked))],
              [parked_again, b"".join(map(encoder.encode, answered))],
              [ended_again, b"".join(map(encoder.encode, _turn("b", park=False)))]]

    async def serve(request: httpx.Request) -> httpx.Response:
        chunks = bodies[follower.connections - 1]

        async def body() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    async with httpx.AsyncClient(transport=httpx.MockTransport(serve)) as http:
        follower = Follower("http://wire.test/sessions/s/stream", client=http)
        states = []
        for _ in bodies:
            last = (await follower.run(turn=True)).last
            assert last is not None
            states.append((last.id, waiting(last).state))
    assert states == [("a", "parked"), ("a", "ended"), ("b", "ended")]
    assert follower.connections == 3


async def test_a_turn_that_ended_while_the_follower_was_away_is_seen_at_once(base: str) -> None:
    """A follower that comes back after the reply ended gets it as a
    checkpoint (no event of it names the reply): the turn is over all the same."""
    async with httpx.AsyncClient() as http:
        sid = await new_session(http, base)
        follower = Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE)
        await answer(f"{base}/chat", agent_id="friday", session_id=sid, input=wire.UserMsg("alice", "tidy up"),
                     client=http, headers=ALICE)
        parked = (await follower.run(turn=True)).last
        assert parked is not None
        await answer(f"{base}/chat", agent_id="friday", session_id=sid, input=confirmation(parked, True),
                     client=http, headers=ALICE)
        other = Follower(f"{base}/sessions/{sid}/stream", client=http, headers=ALICE)
        while (await other.run(turn=True)).last.finished_at is None:  # type: ignore[union-attr]
            pass
        with anyio.fail_after(20):
            ended = (await follower.run(turn=True)).last
        assert ended is not None and waiting(ended).state == "ended"
        assert replies(follower.conversation) == replies(other.conversation)


# -- clients that always end, and say why (issue 30) -------------------------------------


def _scripted(script: Any) -> tuple[httpx.AsyncClient, list[httpx.Request]]:
    """A client whose server answers the n-th request (from 1) with
    ``script(n, request)``: a status, headers and chunks, and whether the
    body then drops (a read error) or ends. Past 20 requests it answers
    404, so that a follower that never gives up fails instead of hanging."""
    requests: list[httpx.Request] = []

    async def serve(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if len(requests) > 20:
            return httpx.Response(404, headers={"content-type": "text/plain"}, content=b"no more")
        status, headers, chunks, drop = script(len(requests), request)

        async def body() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk
            if drop:
                raise httpx.ReadError("the connection dropped")
        return httpx.Response(status, headers={"content-type": "text/event-stream", **headers}, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(serve)), requests


class _Sleeps:
    """anyio as the client module sees it, with sleeps recorded, not slept."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def sleep(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> _Sleeps:
    recorded = _Sleeps()
    monkeypatch.setattr("wire.transports.client.anyio", recorded)
    return recorded


def _frames(events: list[Any], first_id: int, *, prefix: str = "") -> bytes:
    return b"".join(b"id: %s%d\ndata: %s\n\n" % (prefix.encode(), first_id + i, wire_json.encode(event))
                    for i, event in enumerate(events))


async def test_a_server_repeating_one_checkpoint_is_given_up_after_the_retries(sleeps: _Sleeps) -> None:
    """Every connection brings the same checkpoint, then drops: no news,
    so each counts against the retries (it used to start the count over:
    about 480 connections in 10 s with retries=3)."""
    held = Conversation()
    held.apply(_turn("a", park=False)[:3])
    frame = b"id: 7\ndata: " + wire_json.encode(checkpoint(held.replies["a"])) + b"\n\n"
    http, requests = _scripted(lambda n, request: (200, {}, [frame], True))
    async with http:
        follower = Follower("http://wire.test/s", client=http, retries=3)
        with pytest.raises(ConnectionFailed) as gave_up:
            await follower.run()
    assert follower.connections == 4 and gave_up.value.attempts == 4
    assert isinstance(gave_up.value.__cause__, httpx.ReadError) and "dropped" in str(gave_up.value)
    assert [r.headers.get("last-event-id") for r in requests] == [None, "7", "7", "7"]


async def test_a_body_cut_inside_a_frame_is_resumed_from_the_last_entry_applied(sleeps: _Sleeps) -> None:
    events = _turn("a", park=False)
    whole = _frames(events, 1)
    cut = whole.index(b"id: 4\n") + 20  # inside the fourth frame
    bodies = {1: [whole[:cut]], 2: [_frames(events[3:], 4)]}
    http, requests = _scripted(lambda n, request: (200, {}, bodies[n], False))
    async with http:
        follower = Follower("http://wire.test/s", client=http)
        conversation = await follower.run()
    assert follower.connections == 2 and follower.closed
    assert requests[1].headers["last-event-id"] == "3"
    expected = Conversation()
    expected.apply(events)
    assert replies(conversation) == replies(expected)


async def test_a_checkpoint_without_an_id_is_a_decode_error() -> None:
    held = Conversation()
    held.apply(_turn("a", park=False))
    value = wire_json._to_builtins(checkpoint(held.replies["a"]))
    del value["value"]["msg"]["id"]
    frame = b"id: 1\ndata: " + json.dumps(value).encode() + b"\n\n"
    http, _ = _scripted(lambda n, request: (200, {}, [frame], False))
    async with http:
        follower = Follower("http://wire.test/s", client=http)
        with pytest.raises(DecodeError) as malformed:
            await follower.run()
    assert malformed.value.path == "$.id" and "no id" in str(malformed.value)
    assert follower.connections == 1 and not follower.conversation.replies


async def test_a_server_that_restarts_every_connection_is_given_up_saying_so(sleeps: _Sleeps) -> None:
    """Each connection starts the log over (``wire.restart``, then the
    reply under new ids) and drops: the follower gives up, naming the
    restarts (it used to reconnect for ever: 477 connections in 10 s)."""
    events = _turn("a", park=True)[:4]

    def script(n: int, request: httpx.Request) -> tuple[int, dict[str, str], list[bytes], bool]:
        lost = b"id: \ndata: " + wire_json.encode(restart("the log was lost")) + b"\n\n"
        return 200, {}, [lost + _frames(events, 1, prefix=f"epoch{n}-")], True

    http, _ = _scripted(script)
    async with http:
        follower = Follower("http://wire.test/s", client=http, retries=3)
        with pytest.raises(ConnectionFailed) as gave_up:
            await follower.run()
    assert follower.connections == 4
    assert "wire.restart: the log was lost" in str(gave_up.value) and "4 connections in a row" in str(gave_up.value)
    assert isinstance(gave_up.value.__cause__, wire.RemoteProtocolError)


async def test_retry_after_is_honoured_up_to_a_cap_and_5xx_425_are_retried(sleeps: _Sleeps) -> None:
    events = _turn("a", park=False)
    answers = {1: (500, {}), 2: (503, {"retry-after": "7"}), 3: (429, {"retry-after": "86400"}),
               4: (425, {}), 5: (503, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})}

    def script(n: int, request: httpx.Request) -> tuple[int, dict[str, str], list[bytes], bool]:
        if n in answers:
            status, headers = answers[n]
            return status, {"content-type": "text/plain", **headers}, [b"busy"], False
        return 200, {}, [_frames(events, 1)], False

    http, _ = _scripted(script)
    async with http:
        follower = Follower("http://wire.test/s", client=http, retries=5, backoff=0.01)
        await follower.run()
    assert follower.connections == 6 and follower.closed
    assert sleeps.delays[0] < 1 and sleeps.delays[3] < 1 and sleeps.delays[4] < 1  # no Retry-After, or one past
    assert sleeps.delays[1] == 7 and sleeps.delays[2] == MAX_RETRY_AFTER


async def test_answer_reads_a_bounded_body() -> None:
    """A 2xx JSON body longer than ``max_bytes`` is refused as soon as it is
    (it used to be read whole: 150 MB of body cost 513 MB), with or without
    a Content-Length."""
    served = []

    async def serve(request: httpx.Request) -> httpx.Response:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"pad": "'
            for i in range(1000):
                served.append(i)
                yield b"x" * 1000
            yield b'"}'
        headers = {"content-type": "application/json"}
        if request.url.path == "/sized":
            return httpx.Response(200, headers=headers, content=b'{"pad": "' + b"x" * 10_000 + b'"}')
        return httpx.Response(200, headers=headers, content=body())

    async with httpx.AsyncClient(transport=httpx.MockTransport(serve)) as http:
        for path in ("/streamed", "/sized"):
            with pytest.raises(ResponseTooLarge) as large:
                await answer(f"http://wire.test{path}", agent_id="a", session_id="s", input=None, client=http,
                             max_bytes=4096)
            assert large.value.limit == 4096 and "4096 bytes" in str(large.value)
        assert len(served) < 10
        assert MAX_ANSWER_BYTES == 1 << 20
