"""Property tests: every valid object survives both codecs.

For random valid events, messages and blocks (``tests.strategies``): decoding
the encoding gives an equal object, re-encoding that object gives the same
bytes, and the JSON and MessagePack paths agree with each other.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import expect
from tests.strategies import EVENT_STRATEGIES, ROLE_BLOCKS, block_strategy, events, msgs, payloads

CODECS = [wire.json, wire.msgpack]
FAST = settings(max_examples=60, deadline=None)


def test_the_event_strategies_cover_all_28_events() -> None:
    assert set(EVENT_STRATEGIES) == set(wire.AgentEvent.__args__)
    assert len(EVENT_STRATEGIES) == 28


@pytest.mark.parametrize("codec", CODECS, ids=["json", "msgpack"])
@FAST
@given(event=events())
def test_events_round_trip(codec: Any, event: Any) -> None:
    data = codec.encode(event)
    back = codec.decode_event(data)
    assert type(back) is type(event)
    assert back == event
    assert codec.encode(back) == data


@pytest.mark.parametrize("cls", list(EVENT_STRATEGIES), ids=lambda c: c.__name__)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_every_event_type_round_trips_in_both_codecs(cls: type[Any], data: st.DataObject) -> None:
    event = data.draw(EVENT_STRATEGIES[cls])
    for codec in CODECS:
        assert codec.decode_event(codec.encode(event)) == event


@pytest.mark.parametrize("codec", CODECS, ids=["json", "msgpack"])
@FAST
@given(msg=msgs())
def test_msgs_round_trip(codec: Any, msg: wire.Msg) -> None:
    data = codec.encode(msg)
    back = codec.decode_msg(data)
    assert back == msg
    assert codec.encode(back) == data
    # equality covers the provider keys of thinking blocks; check them by name too
    for ours, theirs in zip(back.content, msg.content, strict=True):
        if isinstance(theirs, wire.ThinkingBlock):
            assert vars(ours) == vars(theirs)


@pytest.mark.parametrize(("role", "cls"), [(r, c) for r, classes in ROLE_BLOCKS.items() for c in classes],
                         ids=lambda v: v if isinstance(v, str) else v.__name__)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_each_block_type_round_trips_inside_each_role(role: str, cls: type[Any], data: st.DataObject) -> None:
    blocks = data.draw(st.lists(block_strategy(cls), min_size=1, max_size=3))
    msg = wire.Msg(name="n", content=blocks, role=role, id="m", created_at="t")  # type: ignore[arg-type]
    for codec in CODECS:
        back = codec.decode_msg(codec.encode(msg))
        assert back.content == blocks
        assert [type(b) for b in back.content] == [cls] * len(blocks)


@FAST
@given(msg=msgs())
def test_json_and_msgpack_decode_to_the_same_msg(msg: wire.Msg) -> None:
    assert wire.json.decode_msg(wire.json.encode(msg)) == wire.msgpack.decode_msg(wire.msgpack.encode(msg))


@FAST
@given(event=events())
def test_json_and_msgpack_carry_the_same_fields(event: Any) -> None:
    """Same names, same values; only bytes differ in form (base64 text vs bin)."""
    as_json = json.loads(wire.json.encode(event))
    as_msgpack = msgspec.msgpack.decode(wire.msgpack.encode(event))
    assert as_json == _bytes_as_base64(as_msgpack)


def _bytes_as_base64(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _bytes_as_base64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bytes_as_base64(v) for v in value]
    return value


@pytest.mark.parametrize("codec", CODECS, ids=["json", "msgpack"])
@settings(max_examples=30, deadline=None)
@given(batch=st.lists(events(), max_size=6))
def test_event_streams_round_trip(codec: Any, batch: list[Any]) -> None:
    data = codec.encode_events(batch)
    assert codec.decode_events(data) == batch
    assert codec.encode_events(iter(batch)) == data  # any iterable, not only a list


@FAST
@given(chunk=payloads)
def test_binary_payloads_are_bytes_in_memory_base64_in_json_bin_in_msgpack(chunk: bytes) -> None:
    event = wire.DataBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", media_type="x", data=chunk)
    assert json.loads(wire.json.encode(event))["data"] == base64.b64encode(chunk).decode("ascii")
    raw = msgspec.msgpack.decode(wire.msgpack.encode(event))
    assert type(raw["data"]) is bytes and raw["data"] == chunk
    assert type(expect(wire.DataBlockDeltaEvent, wire.json.decode_event(wire.json.encode(event))).data) is bytes
