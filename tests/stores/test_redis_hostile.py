"""A Redis log whose stream or checkpoint hash another writer damaged: every
reader (``follow``, ``sse``, both resume modes, ``snapshot``) gives events or
one of wire's errors, never another exception, and never serves a damaged
checkpoint or a forged one."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.redis_server import RedisServer, connect, redis_server
from wire.errors import WireError
from wire.framing import SSEDecoder
from wire.resume import CHECKPOINT, Conversation
from wire.stores.conformance import session

__all__ = ("redis_server",)  # the fixture, imported to be used here

_keys = itertools.count()
FIELDS = ["cut", "first", "end", "msg:r0", "at:r0", "msg:r1", "at:r1", "msg:evil", "at:evil", "id", "zz"]
VALUES = st.one_of(st.binary(max_size=40), st.sampled_from([b"5", b"1-x", b"abc", b"0-0", b"99999999999999-0",
                                                             b"{}", b'{"name":"evil"}', b"[", b"-1-1"]))


async def _read_everything(log: Any) -> None:
    """Every way a reader reads ``log``; wire's errors are allowed, others not."""
    for after, resume in ((None, "replay"), ("0-1", "replay"), ("0-1", "checkpoint"), ("1-0", "checkpoint")):
        for read in ("follow", "sse"):
            try:
                async with asyncio.timeout(5):
                    if read == "follow":
                        async for _ in log.follow(after, resume=resume):
                            pass
                    else:
                        decoder: SSEDecoder[Any] = SSEDecoder()
                        async for chunk in log.sse(after, resume=resume, heartbeat=None):
                            decoder.feed(chunk)
                        decoder.close()
            except WireError:
                pass
    with contextlib.suppress(WireError):
        await log.snapshot()


@pytest.fixture(scope="module")
def loop() -> Any:
    runner = asyncio.Runner()
    yield runner
    runner.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5),
       payloads=st.lists(st.binary(max_size=60) | st.sampled_from([b'{"type":"CUSTOM","name":"wire.checkpoint"}',
                                                                   b'{"type":"TEXT_BLOCK_DELTA"}', b"null"]),
                         max_size=4))
def test_damaged_hash_and_stream_give_events_or_wire_errors(redis_server: RedisServer, loop: Any,
                                                            fields: dict[str, bytes], payloads: list[bytes]) -> None:
    from wire.stores.redis import RedisEventLog

    async def run() -> None:
        async with connect(redis_server) as client:
            key = f"hostile:{next(_keys)}"
            log = RedisEventLog(client, key, max_len=8)
            _, events = session(2)
            await log.extend(events[:10])
            for payload in payloads:
                await client.xadd(key, {"payload": payload})
            if fields:
                await client.hset(log.checkpoint_key, mapping=fields)
            await log.extend(events[10:20])
            await log.close()
            await _read_everything(RedisEventLog(client, key))
            await _read_everything(RedisEventLog(client, key, unknown="raise"))
            await log.delete()

    loop.run(run())


@pytest.mark.parametrize(("field", "value"), [("end", b"zzz"), ("first", b"1-x"), ("cut", b"abc"), ("cut", b"5"),
                                              ("at:r0", b"5"), ("msg:r0", b"[")])
def test_each_damaged_field_is_a_store_error_naming_it(redis_server: RedisServer, loop: Any, field: str,
                                                       value: bytes) -> None:
    from wire.stores.redis import RedisEventLog

    async def run() -> None:
        async with connect(redis_server) as client:
            key = f"hostile:{next(_keys)}"
            log = RedisEventLog(client, key, max_len=4)
            _, events = session(1)
            await log.extend(events)
            await log.close()
            await client.hset(log.checkpoint_key, field, value)
            with pytest.raises(wire.StoreError) as caught:
                async for _ in RedisEventLog(client, key).sse("1-0"):
                    pass
            assert key in str(caught.value)
            await log.delete()

    loop.run(run())


def test_a_forged_checkpoint_in_the_stream_never_replaces_a_reply(redis_server: RedisServer, loop: Any) -> None:
    from wire.stores.redis import RedisEventLog

    async def run() -> None:
        async with connect(redis_server) as client:
            key = f"hostile:{next(_keys)}"
            expected, events = session(1)
            log = RedisEventLog(client, key)
            await log.extend(events[:5])
            evil = wire.AssistantMsg("evil", [], id=expected[0].id)
            forged = wire.json.encode(wire.CustomEvent(name=CHECKPOINT,
                                                       value={"msg": msgspec.json.decode(wire.json.encode(evil))}))
            await client.xadd(key, {"payload": forged})
            await log.extend(events[5:])
            await log.close()
            for unknown in ("skip", "keep", "raise"):
                reader = RedisEventLog(client, key, unknown=unknown)
                conversation = Conversation()
                async for batch in reader.follow():
                    conversation.extend([event for _, event in batch])
                assert [wire.json.encode(m) for m in conversation.replies.values()] == [
                    wire.json.encode(m) for m in expected]
                assert reader.skipped == 1
            await log.delete()

    loop.run(run())


def test_only_redis_pys_own_attribute_errors_are_taken_for_a_lost_connection() -> None:
    from wire.stores.redis._reader import _raised_in_redis

    def raise_from(module: str) -> AttributeError:
        code = compile("def write(writer):\n    writer.writelines([b'x'])\n", module, "exec")
        space: dict[str, Any] = {"__name__": module}
        exec(code, space)
        try:
            space["write"](None)
        except AttributeError as exc:
            return exc
        raise AssertionError("no AttributeError")

    assert _raised_in_redis(raise_from("redis.asyncio.connection"))
    assert not _raised_in_redis(raise_from("wire.stores.redis._reader"))
