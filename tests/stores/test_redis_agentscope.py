"""wire.stores.redis and agentscope 2.0.11's app on one real redis-server, both ways:
agentscope's RedisMessageBus reads (and hears live, over Pub/Sub) what
wire writes, and wire reads and serves what agentscope's
publish_session_event writes, on the shared vectors."""

from __future__ import annotations

import json
import uuid
import warnings
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import Annotated, Any

import anyio
import pytest

import wire
from tests.helpers import CASES, Case, expect
from tests.redis_server import RedisServer, case_events, connect, rebuilt, redis_server, reduced, sse_events

pytest.importorskip("redis.asyncio")
from wire.stores.redis import RedisEventLog, agentscope_session_key, checkpoint_key

as_bus_module = pytest.importorskip("agentscope.app.message_bus._redis_message_bus")
as_bus_ops = pytest.importorskip("agentscope.app._bus_ops")
as_keys = pytest.importorskip("agentscope.app.message_bus._keys")
as_event = pytest.importorskip("agentscope.event")
pydantic = pytest.importorskip("pydantic")
_as_events = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])


def as_parse(data: Any) -> Any:
    with warnings.catch_warnings():  # EXCEED_MAX_ITERS is deprecated in agentscope: its warning, not wire's
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return _as_events.validate_json(data) if isinstance(data, bytes | str) else _as_events.validate_python(data)


@asynccontextmanager
async def agentscope_bus(server: RedisServer) -> AsyncIterator[Any]:
    async with as_bus_module.RedisMessageBus(host="127.0.0.1", port=server.port) as bus:
        yield bus


def test_the_session_key_is_agentscopes() -> None:
    assert agentscope_session_key("abc") == as_keys.MessageBusKeys.session_events("abc")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_agentscope_reads_what_wire_writes_and_hears_it_live(redis_server: RedisServer, case: Case) -> None:
    session = f"s-{uuid.uuid4().hex}"
    key = agentscope_session_key(session)
    async with agentscope_bus(redis_server) as bus, connect(redis_server) as client:
        ready = anyio.Event()
        heard: list[dict[str, Any]] = []
        events = case_events(case)

        async def listen() -> None:
            async for payload in bus.subscribe(key, on_ready=ready.set):
                heard.append(payload)
                if len(heard) == len(events):
                    return

        async with anyio.create_task_group() as tg:
            tg.start_soon(listen)
            await ready.wait()
            log = RedisEventLog(client, key, publish=True, max_len=as_keys.MessageBusKeys.SESSION_REPLAY_MAX_LEN)
            ids = await log.extend(events)
            with anyio.fail_after(10):
                while len(heard) < len(events):
                    await anyio.sleep(0.01)
        read = await bus.log_read(key, max_count=10_000)
        assert [entry_id for entry_id, _ in read] == ids
        for line, (_, payload), live, entry_id in zip(case.event_lines, read, heard, ids, strict=True):
            assert as_parse(payload) == as_parse(line)
            assert live == {**payload, "_entry_id": entry_id}
        # agentscope's cursor read from a wire id
        assert [entry_id for entry_id, _ in await bus.log_read(key, since=ids[2], max_count=3)] == ids[3:6]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_wire_reads_and_serves_what_agentscope_writes(redis_server: RedisServer, case: Case) -> None:
    session = f"s-{uuid.uuid4().hex}"
    key = agentscope_session_key(session)
    async with agentscope_bus(redis_server) as bus:
        dicts = [as_parse(line).model_dump(mode="json") for line in case.event_lines]
        ids = [await as_bus_ops.publish_session_event(bus, session, event) for event in dicts]
        # agentscope's own client (decode_responses=True), and a bytes one
        async with connect(redis_server) as client:
            for reader_client in (bus.get_client(), client):
                log = RedisEventLog(reader_client, key)
                read = await log.read()
                assert [entry_id for entry_id, _ in read] == ids
                assert [event for _, event in read] == case_events(case)
                assert wire.json.encode(rebuilt(case, [event for _, event in read])) == reduced(case)
        await bus.get_client().hset(checkpoint_key(key), "end", ids[-1])
        async with aclosing(RedisEventLog(bus.get_client(), key).sse(heartbeat=None)) as body:
            stream = b"".join([chunk async for chunk in body])
        expected = b"".join(b"id: %s\ndata: %s\n\n" % (entry_id.encode(), json.dumps(event, ensure_ascii=False)
                                                        .encode()) for entry_id, event in zip(ids, dicts, strict=True))
        assert stream == expected  # agentscope's own bytes, with ids, never decoded and re-encoded


async def test_a_session_key_with_several_replies_and_custom_events(redis_server: RedisServer) -> None:
    session = f"s-{uuid.uuid4().hex}"
    key = agentscope_session_key(session)
    first, second = CASES[0], CASES[1]
    async with agentscope_bus(redis_server) as bus, connect(redis_server) as client:
        for line in first.event_lines:
            await as_bus_ops.publish_session_event(bus, session, as_parse(line).model_dump(mode="json"))
        custom = {"type": "CUSTOM", "id": "c1", "created_at": "2026-01-01T00:00:00", "metadata": {},
                  "name": "session_updated", "value": {"title": "Hi"}}
        await as_bus_ops.publish_session_event(bus, session, custom)
        log = RedisEventLog(client, key, msg=wire.json.decode_msg(second.initial_msg), publish=True)
        await log.extend(case_events(second))
        await log.close()
        read = [event for _, event in await RedisEventLog(client, key).read()]
        n = len(first.event_lines)
        assert read[:n] == case_events(first) and read[n + 1:] == case_events(second)
        assert expect(wire.CustomEvent, read[n]).name == "session_updated"
        everything, _ = await sse_events(RedisEventLog(client, key))
        assert everything == read
        assert len(await bus.log_read(key, max_count=10_000)) == len(read)




__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
