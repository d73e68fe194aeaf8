"""A session of agentscope 2.0.11's app written by wire, on real
redis-servers: agentscope's history kept in step (``wire.compat.agentscope_app``),
replies of wire and of agentscope mixed in one session and rebuilt by every
reader, and agentscope's own app, started unmodified (``tests/agentscope_app.py``),
serving wire's sessions through ``/sessions/{sid}/stream`` and
``/sessions/{sid}/messages``."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

import wire
from tests.helpers import mask_apply_time
from tests.redis_server import RedisServer, connect, redis_server, sse_events

pytest.importorskip("redis.asyncio")
pytest.importorskip("agentscope.app")
pytest.importorskip("uvicorn")
from tests.agentscope_app import (
    AgentscopeApp,
    AppSession,
    agentscope_app,
    agentscope_dumps,
    agentscope_events,
    agentscope_rebuilds,
    agentscope_writes,
    session_events,
)
from wire.blocks import ToolCallBlock, ToolCallState, ToolResultState
from wire.compat.agentscope_app import AgentscopeHistory
from wire.resume import Conversation
from wire.stores.conformance import reply
from wire.stores.redis import RedisEventLog, agentscope_session_key
from wire.transports.chat import confirmation
from wire.transports.http import answer_endpoint

USER = "alice"
MAX_LEN = 1000  # agentscope's SESSION_REPLAY_MAX_LEN


@asynccontextmanager
async def agentscope_stores(server: RedisServer) -> AsyncIterator[tuple[Any, Any]]:
    """agentscope's own storage and bus over ``server``, as the app makes them."""
    from agentscope.app.message_bus import RedisMessageBus
    from agentscope.app.storage import RedisStorage

    async with RedisStorage(host="127.0.0.1", port=server.port) as storage, \
            RedisMessageBus(host="127.0.0.1", port=server.port) as bus:
        yield storage, bus


def replies_of(events: list[Any], *msgs: wire.Msg) -> dict[str, bytes]:
    """Each reply's Msg, as wire's JSON, that ``events`` build (on top of ``msgs``)."""
    conversation = Conversation(*msgs)
    conversation.extend(events)
    return {reply_id: wire.json.encode(msg) for reply_id, msg in conversation.replies.items()}


def encoded(msgs: dict[str, wire.Msg]) -> dict[str, bytes]:
    return {reply_id: wire.json.encode(msg) for reply_id, msg in msgs.items()}


def masked(replies: dict[str, bytes]) -> dict[str, Any]:
    """Replies with the fields agentscope's reducer stamps with its own clock
    (a block's ``created_at``...) masked: where agentscope's ``append_event``
    built a Msg, only those may differ from wire's (tests/helpers.py)."""
    return {reply_id: mask_apply_time(json.loads(msg)) for reply_id, msg in replies.items()}


def stored_msgs(messages: list[Any]) -> list[wire.Msg]:
    """agentscope's stored Msgs as wire reads them."""
    return [wire.json.decode_msg(m.model_dump_json()) for m in messages]


async def page_reads(storage: Any, bus: Any, session_id: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """What a page builds that loads the session's messages and cursor (as
    ``/sessions/{sid}/messages`` reads them, under the checkpoint lock) and
    then streams from the cursor: with agentscope's reader (``log_read`` and
    ``Msg.append_event``) and with wire's (``read(after=)`` and Conversation)."""
    from agentscope.app.message_bus import MessageBusKeys as Keys

    async with bus.acquire_lock(Keys.session_event_checkpoint_lock(session_id),
                                ttl_secs=Keys.SESSION_EVENT_CHECKPOINT_LOCK_TTL_SECS):
        cursor = await bus.registry_get(Keys.session_event_checkpoint(session_id), Keys.SESSION_EVENT_CURSOR_FIELD)
        stored, has_more = await storage.list_messages(USER, session_id, limit=200)
    assert not has_more
    key = agentscope_session_key(session_id)
    dumps = [payload for _, payload in await bus.log_read(key, since=cursor, max_count=100_000)]
    theirs = encoded(agentscope_rebuilds(dumps, stored))
    ours = replies_of([event for _, event in await RedisEventLog(bus.get_client(), key).read(after=cursor)],
                      *stored_msgs(stored))
    return theirs, ours


# -- wire keeps agentscope's history ---------------------------------------------------------------------


async def test_wire_and_agentscope_write_one_session_and_every_reader_rebuilds_every_reply(
        redis_server: RedisServer) -> None:
    sid = uuid.uuid4().hex
    key = agentscope_session_key(sid)
    wire_replies = session_events(3, "w-", sid)  # w-r1 parks on a confirmation and is answered
    _, first = reply(8, "x0")
    parked = session_events(2, "x-", sid)
    end = next(i for i, e in enumerate(parked) if isinstance(e, wire.ReplyEndEvent)) + 1
    park = next(i for i, e in enumerate(parked) if isinstance(e, wire.RequireUserConfirmEvent)) + 1
    # who writes what, in order: agentscope, wire, agentscope (a reply, then one up to its park), and wire
    # answers that park and goes on
    runs: list[tuple[str, list[Any]]] = [("agentscope", renamed_session(first, sid)), ("wire", wire_replies),
                                         ("agentscope", parked[:end]), ("agentscope", parked[end:park]),
                                         ("wire", parked[park:])]
    written: list[Any] = []
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        history = AgentscopeHistory(RedisEventLog(client, key, publish=True, max_len=MAX_LEN),
                                    storage=storage, bus=bus, user_id=USER, session_id=sid)
        followed: list[Any] = []

        async def follow() -> None:
            async with aclosing(RedisEventLog(client, key).follow()) as batches:
                async for batch in batches:
                    followed.extend(event for _, event in batch)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(follow)
                for writer, events in runs:
                    if writer == "wire":
                        await history.extend(events)
                    else:
                        await agentscope_writes(bus, storage, USER, sid, events)
                    written += events
                    # a page loaded now sees every reply so far exactly once, with either reader
                    theirs, ours = await page_reads(storage, bus, sid)
                    assert masked(theirs) == masked(ours) == masked(replies_of(written)), writer
                    if writer == "wire" and written[0] in wire_replies:  # no Msg built by agentscope yet
                        assert ours == replies_of(written)
                await history.close()

        expected = replies_of(written)
        assert list(expected) == ["x0", "w-r0", "w-r1", "w-r2", "x-r0", "x-r1"]
        assert b'"allowed"' in expected["x-r1"] and b'"finished_reason":"completed"' in expected["x-r1"]
        # every reader of the whole session
        assert replies_of(followed) == expected                                   # wire's live follower
        assert replies_of([e for _, e in await RedisEventLog(client, key).read()]) == expected  # wire's read
        sse, _ = await sse_events(RedisEventLog(client, key))
        assert replies_of(sse) == expected                                        # wire's SSE
        dumps = [payload for _, payload in await bus.log_read(key, max_count=100_000)]
        assert dumps == agentscope_dumps(written)                                # agentscope's log_read
        assert masked(encoded(agentscope_rebuilds(dumps))) == masked(expected)  # and Msg.append_event
        stored, _ = await storage.list_messages(USER, sid, limit=200)
        in_storage = encoded({m.id: m for m in stored_msgs(stored)})            # the app's storage
        assert masked(in_storage) == masked(expected)
        by_wire = ("w-r0", "w-r1", "w-r2")
        assert {r: in_storage[r] for r in by_wire} == {r: expected[r] for r in by_wire}


async def test_a_reader_left_behind_by_the_trim_rebuilds_a_reply_agentscope_parked_and_wire_finished(
        redis_server: RedisServer) -> None:
    sid = uuid.uuid4().hex
    key = agentscope_session_key(sid)
    events = session_events(2, "x-", sid)
    end = next(i for i, e in enumerate(events) if isinstance(e, wire.ReplyEndEvent)) + 1
    park = next(i for i, e in enumerate(events) if isinstance(e, wire.RequireUserConfirmEvent)) + 1
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        await agentscope_writes(bus, storage, USER, sid, events[:end])
        await agentscope_writes(bus, storage, USER, sid, events[end:park])
        log = RedisEventLog(client, key, publish=True)
        history = AgentscopeHistory(log, storage=storage, bus=bus, user_id=USER, session_id=sid)
        ids = await history.extend(events[park:])
        await history.close()
        await log.trim(ids[-1])  # all but the last entry (REPLY_END) gone
        expected = masked(replies_of(events))["x-r1"]
        assert masked(encoded(await RedisEventLog(client, key).snapshot()))["x-r1"] == expected
        followed: list[Any] = []
        with anyio.fail_after(10):
            async with aclosing(RedisEventLog(client, key).follow()) as batches:
                async for batch in batches:
                    followed.extend(event for _, event in batch)
        assert masked(replies_of(followed))["x-r1"] == expected


async def test_the_cursor_moves_at_each_end_and_park_only(redis_server: RedisServer) -> None:
    from agentscope.app.message_bus import MessageBusKeys as Keys

    sid = uuid.uuid4().hex
    events = session_events(3, "", sid)
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        history = AgentscopeHistory(RedisEventLog(client, agentscope_session_key(sid), publish=True),
                                    storage=storage, bus=bus, user_id=USER, session_id=sid)
        moved, kept = [], []
        for event in events:
            entry_id = await history.append(event)
            cursor = await bus.registry_get(Keys.session_event_checkpoint(sid), Keys.SESSION_EVENT_CURSOR_FIELD)
            moved.append(cursor == entry_id)
            if isinstance(event, (wire.ReplyEndEvent, wire.RequireUserConfirmEvent)) and event.reply_id not in kept:
                kept.append(event.reply_id)
            stored, _ = await storage.list_messages(USER, sid)
            assert [m.id for m in stored] == kept  # every reply ended or parked, and no other
        assert moved == [isinstance(e, (wire.ReplyEndEvent, wire.RequireUserConfirmEvent)) for e in events]


async def test_a_batch_holding_a_park_and_its_answer_stores_the_msg_as_of_the_park(redis_server: RedisServer) -> None:
    sid = uuid.uuid4().hex
    events = session_events(2, "", sid)  # r1 parks, is answered and ends: all in one batch
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        calls: list[tuple[str, bytes]] = []
        upsert = storage.upsert_message

        async def spy(user: str, session_id: str, msg: Any) -> None:
            calls.append((msg.id, msg.model_dump_json().encode()))
            await upsert(user, session_id, msg)

        storage.upsert_message = spy
        history = AgentscopeHistory(RedisEventLog(client, agentscope_session_key(sid), publish=True),
                                    storage=storage, bus=bus, user_id=USER, session_id=sid)
        ids = await history.extend(events)
        assert len(ids) == len(events)
        park = next(i for i, e in enumerate(events) if isinstance(e, wire.RequireUserConfirmEvent))
        assert [reply_id for reply_id, _ in calls] == ["r0", "r1", "r1"]
        assert wire.json.encode(wire.json.decode_msg(calls[1][1])) == replies_of(events[:park + 1])["r1"]
        assert history.cursor == ids[-1]


async def test_a_bare_log_loses_wires_replies_once_agentscope_trims_at_its_cursor(redis_server: RedisServer) -> None:
    """Why the history must be kept: agentscope trims its stream at its cursor
    after each run (``ChatService._persist``); replies that only the stream
    held, before that cursor, are then gone from the page. Through
    AgentscopeHistory they are in storage."""
    for keep in (False, True):
        sid = uuid.uuid4().hex
        key = agentscope_session_key(sid)
        async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
            log = RedisEventLog(client, key, publish=True)
            producer: Any = AgentscopeHistory(log, storage=storage, bus=bus, user_id=USER, session_id=sid) \
                if keep else log
            wire_events = session_events(1, "w-", sid)
            await producer.extend(wire_events)
            _, theirs = reply(6, "x0")
            agentscope_events = renamed_session(theirs, sid)
            await agentscope_writes(bus, storage, USER, sid, agentscope_events, trim=True)
            page, _ = await page_reads(storage, bus, sid)
            if keep:
                assert masked(page) == masked(replies_of(wire_events + agentscope_events))
            else:
                assert list(page) == ["x0"]  # w-r0 is nowhere


def renamed_session(events: list[Any], session_id: str) -> list[Any]:
    import msgspec

    return [msgspec.structs.replace(e, session_id=session_id) if hasattr(e, "session_id") else e for e in events]


# -- agentscope's own app serves wire's sessions ---------------------------------------------------------


@pytest.fixture(scope="module")
def app(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentscopeApp]:
    with agentscope_app(redis_server, tmp_path_factory.mktemp("workspaces")) as running:
        yield running


async def wait_subscribed(client: Any, key: str) -> None:
    """Until the app's stream listens on the session's channel (so what
    comes next reaches it live, not by its replay)."""
    with anyio.fail_after(10):
        while (await client.pubsub_numsub(key))[0][1] < 1:
            await anyio.sleep(0.01)


async def test_the_apps_stream_serves_a_wire_session_live_after_and_resumed(
        app: AgentscopeApp, redis_server: RedisServer) -> None:
    session_ = app.session()
    sid = session_.session_id
    key = agentscope_session_key(sid)
    events = session_events(3, "", sid)
    park = next(i for i, e in enumerate(events) if isinstance(e, wire.RequireUserConfirmEvent)) + 1
    dumps = agentscope_dumps(events)
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        history = AgentscopeHistory(RedisEventLog(client, key, publish=True, max_len=MAX_LEN),
                                    storage=storage, bus=bus, user_id=USER, session_id=sid)
        with session_.stream() as live:
            await wait_subscribed(client, key)
            ids = await history.extend(events[:park])                 # r0, then r1 up to its park
            assert live.take(park) == dumps[:park]
            assert session_.messages()["event_cursor"] == ids[-1]   # the park is stored
            ids += await history.extend(events[park:])                # the answer, and the rest
            assert live.take(len(events)) == dumps                   # live, exactly
        with session_.stream() as after:
            assert after.take(len(events)) == dumps                  # after: the replay
        for k in (0, park - 2, park - 1, park, len(events) - 2):      # resumed at any wire entry id
            with session_.stream(after=ids[k]) as resumed:
                assert resumed.take(len(events) - k - 1) == dumps[k + 1:], k
        page = session_.messages()
        assert page["event_cursor"] == ids[-1] and page["is_running"] is False
        assert encoded({m.id: m for m in json_msgs(page["messages"])}) == replies_of(events)


async def test_the_apps_messages_then_stream_from_its_cursor_give_every_reply_once(
        app: AgentscopeApp, redis_server: RedisServer) -> None:
    session_ = app.session()
    sid = session_.session_id
    key = agentscope_session_key(sid)
    events = session_events(3, "", sid)
    _, fourth = reply(12, "r3")
    events += renamed_session(fourth, sid)
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        history = AgentscopeHistory(RedisEventLog(client, key, publish=True, max_len=MAX_LEN),
                                    storage=storage, bus=bus, user_id=USER, session_id=sid)
        written = 0
        # a page loaded at every kind of moment: mid-reply, at a park, mid-answer, between replies
        park = next(i for i, e in enumerate(events) if isinstance(e, wire.RequireUserConfirmEvent)) + 1
        ends = [i + 1 for i, e in enumerate(events) if isinstance(e, wire.ReplyEndEvent)]
        for upto in sorted({5, ends[0], ends[0] + 3, park, park + 4, ends[2] - 1, ends[2], len(events) - 4,
                            len(events)}):
            await history.extend(events[written:upto])
            written = upto
            theirs, ours = await app_page_reads(session_, client)
            assert masked(theirs) == masked(replies_of(events[:upto])), upto
            assert ours == replies_of(events[:upto]), upto


async def app_page_reads(session_: AppSession, client: Any) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """What a page of agentscope's own app builds: ``/sessions/{sid}/messages``,
    then ``/sessions/{sid}/stream?after=<event_cursor>``, with agentscope's
    reader (``Msg.append_event``) and with wire's (Conversation)."""
    page = session_.messages()
    stored = json_msgs(page["messages"])
    with session_.stream(after=page["event_cursor"]) as stream:
        after = await RedisEventLog(client, agentscope_session_key(session_.session_id)).read(
            after=page["event_cursor"])
        tail = stream.take(len(after))
    theirs = encoded(agentscope_rebuilds(tail, stored_agentscope(page["messages"])))
    ours = replies_of([wire.json.decode_event(wire_json_bytes(d)) for d in tail], *stored)
    return theirs, ours


ANSWER = {"c1": True, "c2": True, "c3": False}


def answered_reply(reply_id: str, session_id: str) -> tuple[list[wire.AgentEvent], list[wire.AgentEvent]]:
    """A reply up to its park (thinking, text, three tool calls asking for a
    confirmation), and its continuation once the first two are allowed and
    the third denied (:data:`ANSWER`), as agentscope's ``ChatService`` writes
    it (Case B): a REPLY_START with the same reply id, the two tool results,
    a text, the end. Only the answer finishes the denied call."""
    calls = list(ANSWER)
    before: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name="Friday"),
        wire.ThinkingBlockStartEvent(reply_id=reply_id, block_id="k"),
        wire.ThinkingBlockDeltaEvent(reply_id=reply_id, block_id="k", delta="three lookups"),
        wire.ThinkingBlockEndEvent(reply_id=reply_id, block_id="k"),
        wire.TextBlockStartEvent(reply_id=reply_id, block_id="t1"),
        wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="t1", delta="Let me look."),
        wire.TextBlockEndEvent(reply_id=reply_id, block_id="t1")]
    for call in calls:
        before += [wire.ToolCallStartEvent(reply_id=reply_id, tool_call_id=call, tool_call_name="search"),
                   wire.ToolCallDeltaEvent(reply_id=reply_id, tool_call_id=call, delta='{"q": "x"}'),
                   wire.ToolCallEndEvent(reply_id=reply_id, tool_call_id=call)]
    asking = [ToolCallBlock(id=call, name="search", input='{"q": "x"}', state=ToolCallState.ASKING) for call in calls]
    before.append(wire.RequireUserConfirmEvent(reply_id=reply_id, tool_calls=asking))
    after: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id=session_id, reply_id=reply_id, name="Friday")]
    for call in calls[:2]:
        after += [wire.ToolResultStartEvent(reply_id=reply_id, tool_call_id=call, tool_call_name="search"),
                  wire.ToolResultTextDeltaEvent(reply_id=reply_id, tool_call_id=call, delta=f"found {call}"),
                  wire.ToolResultEndEvent(reply_id=reply_id, tool_call_id=call, state=ToolResultState.SUCCESS)]
    after += [wire.TextBlockStartEvent(reply_id=reply_id, block_id="t2"),
              wire.TextBlockDeltaEvent(reply_id=reply_id, block_id="t2", delta="Both found."),
              wire.TextBlockEndEvent(reply_id=reply_id, block_id="t2"),
              wire.ReplyEndEvent(session_id=session_id, reply_id=reply_id)]
    return before, after


@pytest.mark.parametrize("continued_by", ["another replica", "the replica that parked it"])
async def test_an_answered_reply_is_stored_whole_whoever_continues_it(
        app: AgentscopeApp, redis_server: RedisServer, continued_by: str) -> None:
    """A replica writes each reply up to its park; the answer, agentscope's
    own ChatRequest body, is posted to wire's answer endpoint (which appends
    it through a log of its own); then the continuation, REPLY_START first
    as agentscope writes it, comes from a new history (another replica) or
    from the one that parked the reply. The app's /messages then holds every
    reply whole, the answer included, as the log does."""
    from agentscope.app._router._schema._chat import ChatRequest as AgentscopeChatRequest

    session_ = app.session()
    sid = session_.session_id
    key = agentscope_session_key(sid)
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        def replica() -> AgentscopeHistory:  # a producer as a new process makes it
            return AgentscopeHistory(RedisEventLog(client, key, publish=True, max_len=MAX_LEN),
                                     storage=storage, bus=bus, user_id=USER, session_id=sid)

        answered: list[Any] = []
        endpoint = answer_endpoint(lambda request, chat: RedisEventLog(client, key, publish=True),
                                   lambda chat, log, request: answered.append(chat.input))
        wire_app = Starlette(routes=[Route("/chat", endpoint, methods=["POST"])])
        parking = replica()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=wire_app), base_url="http://wire") as http:
            for r in range(3):
                before, after = answered_reply(f"r{r}", sid)
                await parking.extend(before)
                parked = wire.json.decode_msg(replies_of([e for _, e in await parking.log.read()])[f"r{r}"])
                body = AgentscopeChatRequest(agent_id=session_.agent_id, session_id=sid,
                                             input=agentscope_events([confirmation(parked, ANSWER)])[0])
                response = await http.post("/chat", content=body.model_dump_json(),
                                           headers={"content-type": "application/json"})
                assert response.status_code == 200, response.text
                continuing = replica() if continued_by == "another replica" else parking
                ids = await continuing.extend(after)
                parking = continuing

                logged = [e for _, e in await RedisEventLog(client, key).read()]
                expected = replies_of(logged)
                whole = wire.json.decode_msg(expected[f"r{r}"])
                assert [b.type for b in whole.content] == \
                    ["thinking", "text", "tool_call", "tool_call", "tool_call", "tool_result", "tool_result", "text"]
                assert [b.state for b in whole.content if isinstance(b, ToolCallBlock)] == ["finished"] * 3
                assert type(logged[-len(after) - 1]) is wire.UserConfirmResultEvent  # the endpoint's
                page = session_.messages()
                assert page["event_cursor"] == ids[-1]
                assert encoded({m.id: m for m in json_msgs(page["messages"])}) == expected, r
                with session_.stream() as stream:  # and agentscope's own reader of the whole stream
                    dumps = stream.take(len(logged))
                assert masked(encoded(agentscope_rebuilds(dumps))) == masked(expected)
        assert len(answered) == 3


async def test_a_page_loaded_while_two_writers_interleave_replies_holds_every_reply_whole(
        app: AgentscopeApp, redis_server: RedisServer) -> None:
    """Two histories (two replicas) write one session, their replies
    interleaved: one's reply ends while the other's runs (and parks, is
    answered, goes on). A page loaded at any moment (storage and cursor,
    then the stream after the cursor; and every third time the app's own
    /messages and stream) rebuilds every reply whole: the cursor never
    passes the beginning of a reply still running."""
    from agentscope.app.message_bus import MessageBusKeys as Keys

    session_ = app.session()
    sid = session_.session_id
    key = agentscope_session_key(sid)
    first = session_events(3, "a-", sid)  # a-r1 parks on a confirmation and is answered
    second: list[Any] = []
    for n, reply_id in ((12, "b0"), (40, "b1"), (9, "b2"), (30, "b3")):
        _, events = reply(n, reply_id)
        second += renamed_session(events, sid)
    async with agentscope_stores(redis_server) as (storage, bus), connect(redis_server) as client:
        writers = [AgentscopeHistory(RedisEventLog(client, key, publish=True, max_len=MAX_LEN),
                                     storage=storage, bus=bus, user_id=USER, session_id=sid) for _ in range(2)]
        # in turns of 7 events and 4 events: each writer's replies begin and end while the other's run
        turns = [[first[i:i + 7] for i in range(0, len(first), 7)],
                 [second[i:i + 4] for i in range(0, len(second), 4)]]
        steps = [(writer, turns[writer][i]) for i in range(max(map(len, turns))) for writer in (0, 1)
                 if i < len(turns[writer])]
        written: list[Any] = []
        cursors: list[str | None] = []
        for step, (writer, events) in enumerate(steps):
            await writers[writer].extend(events)
            written += events
            theirs, ours = await page_reads(storage, bus, sid)
            assert ours == replies_of(written), len(written)
            assert masked(theirs) == masked(ours), len(written)
            if step % 3 == 0:
                theirs, ours = await app_page_reads(session_, client)
                assert ours == replies_of(written), len(written)
                assert masked(theirs) == masked(ours), len(written)
            cursors.append(await bus.registry_get(Keys.session_event_checkpoint(sid),
                                                  Keys.SESSION_EVENT_CURSOR_FIELD))
        assert len(set(cursors) - {None}) >= 2, cursors  # the cursor did move along the way
        ids = [entry_id for entry_id, _ in await RedisEventLog(client, key).read()]
        assert cursors[-1] == ids[-1]  # at the end nothing runs: everything is stored
        stored, _ = await storage.list_messages(USER, sid, limit=200)
        assert encoded({m.id: m for m in stored_msgs(stored)}) == replies_of(written)


def json_msgs(messages: list[dict[str, Any]]) -> list[wire.Msg]:
    return [wire.json.decode_msg(wire_json_bytes(m)) for m in messages]


def stored_agentscope(messages: list[dict[str, Any]]) -> list[Any]:
    from agentscope.message import Msg

    return [Msg.model_validate(m) for m in messages]


def wire_json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
