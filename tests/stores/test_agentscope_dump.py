"""What wire writes into agentscope's session streams is what agentscope
writes there: each entry's payload holds every key of agentscope 2.0.11's
own ``event.model_dump(mode="json")`` of that event, with the same values,
in the same order (``wire.stores.redis._dump``). Checked against pydantic
over every vector, the catalog of all 28 events and generated events, then
through a real redis-server: the stream entries and the Pub/Sub messages
agentscope's own bus reads."""

from __future__ import annotations

import json
import uuid
import warnings
from typing import Annotated, Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings

import wire
from tests.helpers import CASES, CATALOG
from tests.redis_server import RedisServer, connect, redis_server
from tests.strategies import events

pytest.importorskip("redis.asyncio")
from wire.stores.redis import RedisEventLog, agentscope_session_key
from wire.stores.redis._dump import encode

as_bus_module = pytest.importorskip("agentscope.app.message_bus._redis_message_bus")
as_event = pytest.importorskip("agentscope.event")
pydantic = pytest.importorskip("pydantic")
_as_events = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])

VECTOR_EVENTS = [wire.json.decode_event(line) for case in CASES for line in case.event_lines]


def agentscope_dump(event: Any) -> Any:
    """agentscope's own ``model_dump(mode="json")`` of the event wire's JSON
    holds (agentscope reads it back unchanged: tests/test_differential.py)."""
    with warnings.catch_warnings():  # EXCEED_MAX_ITERS is deprecated in agentscope: its warning, not wire's
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return _as_events.validate_json(wire.json.encode(event)).model_dump(mode="json")


def keys_in_order(value: Any) -> Any:
    """``value`` with every object's keys as a list, so that == compares key order too."""
    if isinstance(value, dict):
        return [(key, keys_in_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [keys_in_order(item) for item in value]
    return value


def assert_as_agentscope_dumps(event: Any, payload: bytes | str) -> None:
    ours, theirs = json.loads(payload), agentscope_dump(event)
    assert set(ours) == set(theirs), f"{event.type}: keys {sorted(set(theirs) ^ set(ours))}"
    assert ours == theirs, event.type
    assert keys_in_order(ours) == keys_in_order(theirs), event.type


def test_every_vector_and_every_event_type() -> None:
    assert len({type(event) for event in CATALOG}) == 28
    for event in [*VECTOR_EVENTS, *CATALOG]:
        assert_as_agentscope_dumps(event, encode(event))


def test_wires_compact_json_lacks_keys_that_agentscope_writes() -> None:
    """Why the dump exists: the compact JSON leaves out defaulted keys
    (and this test's comparison sees it)."""
    lacking = [event for event in VECTOR_EVENTS
               if set(json.loads(wire.json.encode(event))) != set(agentscope_dump(event))]
    assert len(lacking) > len(VECTOR_EVENTS) // 2
    with pytest.raises(AssertionError, match="keys"):
        assert_as_agentscope_dumps(lacking[0], wire.json.encode(lacking[0]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events())
def test_generated_events(event: Any) -> None:
    assert_as_agentscope_dumps(event, encode(event))


@given(events())
@settings(max_examples=40, deadline=None)
def test_the_dump_reads_back_as_the_same_event(event: Any) -> None:
    assert wire.json.decode_event(encode(event)) == event


def test_an_unknown_event_is_written_as_it_was_read() -> None:
    line = b'{"type":"FUTURE_EVENT","id":"e1","x":1}'
    unknown = wire.framing.NDJSONDecoder(unknown="keep").feed(line + b"\n")[0]
    assert encode(unknown) == line


async def test_the_stream_and_the_channel_hold_agentscopes_dump(redis_server: RedisServer) -> None:
    session = f"s-{uuid.uuid4().hex}"
    key = agentscope_session_key(session)
    written = [*VECTOR_EVENTS, *CATALOG]
    async with as_bus_module.RedisMessageBus(host="127.0.0.1", port=redis_server.port) as bus, \
            connect(redis_server) as client:
        ready = anyio.Event()
        heard: list[dict[str, Any]] = []

        async def listen() -> None:
            async for payload in bus.subscribe(key, on_ready=ready.set):
                heard.append(payload)
                if len(heard) == len(written):
                    return

        async with anyio.create_task_group() as tg:
            tg.start_soon(listen)
            await ready.wait()
            ids = await RedisEventLog(client, key, publish=True).extend(written)
        entries = await client.xrange(key)
        assert [entry_id.decode() for entry_id, _ in entries] == ids
        for event, (_, fields), live, entry_id in zip(written, entries, heard, ids, strict=True):
            assert_as_agentscope_dumps(event, fields[b"payload"])
            assert live == {**agentscope_dump(event), "_entry_id": entry_id}
        # what agentscope's own reader hands its page
        assert [payload for _, payload in await bus.log_read(key, max_count=10_000)] == \
            [agentscope_dump(event) for event in written]


async def test_other_keys_stay_compact_and_the_option_overrides(redis_server: RedisServer) -> None:
    event = VECTOR_EVENTS[0]
    async with connect(redis_server) as client:
        for key, option, payload in [
            (f"wire:{uuid.uuid4().hex}", None, wire.json.encode(event)),
            (f"wire:{uuid.uuid4().hex}", True, encode(event)),
            (agentscope_session_key(uuid.uuid4().hex), False, wire.json.encode(event)),
            (agentscope_session_key(uuid.uuid4().hex), None, encode(event)),
        ]:
            await RedisEventLog(client, key, agentscope_dump=option).append(event)
            [(_, fields)] = await client.xrange(key)
            assert fields[b"payload"] == payload, (key, option)
            assert [e for _, e in await RedisEventLog(client, key).read()] == [event]


__all__ = ("redis_server",)  # the fixture, imported to be used here
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
