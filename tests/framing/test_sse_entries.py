"""``SSEEncoder.encode_entries``: its batch paths (events written by one
msgspec call, plain raw payloads joined in C) write exactly the frames the
one-item-at-a-time path writes, for every mix of items and ids, and fail
as it does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.strategies import reply_streams
from wire.events import UnknownEvent
from wire.framing import RawFrame, SSEDecoder, SSEEncoder


def one_by_one(ids: list[str | bytes], items: list[Any]) -> bytes:
    """What encode_entries must write: each item's frame, its id first."""
    encoder = SSEEncoder(next_id=None)
    out = bytearray()
    for entry_id, item in zip(ids, items, strict=True):
        out += b"id: " + (entry_id if isinstance(entry_id, bytes) else entry_id.encode()) + b"\n"
        out += encoder.encode(item)
    return bytes(out)


def _variant(event: wire.AgentEvent, how: int) -> Any:
    """The event as a store may hold it: itself, its raw payload (one line,
    pretty with LF, with CR), or an unknown event's raw bytes."""
    payload = wire.json.encode(event)
    if how == 1:
        return RawFrame(payload)
    if how == 2:
        return RawFrame(payload.replace(b",", b",\n", 1))
    if how == 3:
        return RawFrame(payload.replace(b",", b",\r", 1))
    if how == 4:
        return UnknownEvent("FUTURE", payload, "json")
    if how == 5:
        return UnknownEvent("FUTURE", payload.replace(b",", b",\n", 1), "json")
    return event


_ids = st.one_of(st.from_regex(r"[0-9]{1,13}-[0-9]{1,4}", fullmatch=True), st.just(""), st.just("a b"),
                 st.text(st.characters(blacklist_characters="\r\n\0", blacklist_categories=["Cs"]), max_size=6))


@settings(max_examples=300, deadline=None)
@given(events=reply_streams(), hows=st.lists(st.sampled_from([0, 0, 0, 1, 1, 2, 3, 4, 5]), min_size=1),
       ids=st.lists(st.tuples(_ids, st.booleans()), min_size=1), uniform=st.integers(0, 5))
def test_batch_paths_write_what_one_item_at_a_time_writes(events: list[wire.AgentEvent], hows: list[int],
                                                          ids: list[tuple[str, bool]], uniform: int) -> None:
    # Half the batches are all of one kind (the fast paths' case), half mixed.
    kinds = [uniform] * len(events) if uniform in (0, 1) else [hows[i % len(hows)] for i in range(len(events))]
    items = [_variant(event, how) for event, how in zip(events, kinds, strict=True)]
    marks: list[str | bytes] = [(i.encode() if as_bytes else i) for i, as_bytes in
                                (ids[k % len(ids)] for k in range(len(items)))]
    encoder = SSEEncoder(next_id=3)
    body = encoder.encode_entries(marks, items)
    assert body == one_by_one(marks, items)
    assert encoder.next_id == 3
    decoder = SSEDecoder(raw=True)
    assert len(decoder.feed(body)) == len(items)


def test_a_failing_item_fails_the_batch_as_it_fails_alone() -> None:
    good = [wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="x")]
    for bad in (UnknownEvent("FUTURE", b"  ", "json"), UnknownEvent("FUTURE", b"\x81\xa1a\x01", "msgpack")):
        with pytest.raises(wire.EncodeError) as alone:
            SSEEncoder().encode(bad)
        with pytest.raises(wire.EncodeError) as batched:
            SSEEncoder(next_id=None).encode_entries(["1-1", "1-2"], [*good, bad])
        assert str(batched.value) == str(alone.value)
