"""Zero-copy data chunks (wire.zerocopy): views decode and reduce exactly as
bytes do, and the copies of a 64 KiB chunk on its way from the MessagePack
frame to the finished block are counted here.

How copies are counted. Every copy of a chunk in this path allocates a new
buffer of the chunk's size (msgspec's ``bytes`` out of the frame, the block's
growing bytearray, the ``bytes`` it becomes at the block's END), so each stage
(decode, append, END, read) runs under tracemalloc and its peak of traced
memory, divided by the payload's size, counts the copies alive at once.
Within a stage nothing is freed before the stage ends, so the peak is the sum;
the per-stage overhead (a few Structs) is under 1 % of a chunk. Identity
checks back it: a view's ``.obj`` is the frame, and the frame's refcount shows
who still holds it.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from benchmarks import workload
from tests import strategies
from tests.helpers import CASES, CATALOG, Case, expect
from wire import zerocopy
from wire.events import AgentEvent, DataBlockDeltaEvent, EventType, ToolResultDataDeltaEvent
from wire.zerocopy import DataBlockDeltaView, ToolResultDataDeltaView

T = TypeVar("T")
CHUNK = 64 * 1024
VIEWS: dict[type[Any], type[Any]] = {DataBlockDeltaEvent: DataBlockDeltaView,
                                     ToolResultDataDeltaEvent: ToolResultDataDeltaView}


def as_event(decoded: Any) -> Any:
    return decoded.to_event() if type(decoded) in VIEWS.values() else decoded


# -- the views are the events, but for data ----------------------------------------------------


@pytest.mark.parametrize("event_cls", list(VIEWS), ids=lambda c: c.__name__)
def test_views_mirror_their_events(event_cls: type[Any]) -> None:
    view_cls = VIEWS[event_cls]
    for config in ("tag", "tag_field", "omit_defaults", "frozen"):
        assert getattr(view_cls.__struct_config__, config) == getattr(event_cls.__struct_config__, config)
    event_fields = msgspec.structs.fields(event_cls)
    view_fields = msgspec.structs.fields(view_cls)
    assert [f.name for f in view_fields] == [f.name for f in event_fields]
    for e, v in zip(event_fields, view_fields, strict=True):
        assert (v.required, v.default, v.default_factory) == (e.required, e.default, e.default_factory), e.name
        assert v.type == (memoryview | None if e.name == "data" else e.type), e.name


@pytest.mark.parametrize("event", CATALOG, ids=lambda e: e.type.value)
def test_decode_event_is_msgpack_decode_event_with_views(event: Any) -> None:
    frame = wire.msgpack.encode(event)
    decoded: Any = zerocopy.decode_event(frame)
    assert as_event(decoded) == wire.msgpack.decode_event(frame) == event
    if type(event) in VIEWS:
        assert type(decoded) is VIEWS[type(event)]
        assert decoded.type is event.type
        if event.data is not None:
            assert type(decoded.data) is memoryview
            assert decoded.data.obj is frame  # no copy: a window on the frame
            assert decoded.data == event.data
    else:
        assert type(decoded) is type(event)


@settings(max_examples=200, deadline=None)
@given(strategies.events())
def test_random_events_decode_as_msgpack_does(event: Any) -> None:
    frame = wire.msgpack.encode(event)
    assert as_event(zerocopy.decode_event(frame)) == wire.msgpack.decode_event(frame)


@pytest.mark.parametrize("value", [
    {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "m", "data": b"x", "url": "u"},
    {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "m"},
    {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "m", "data": "AAAA"},
    {"type": "TOOL_RESULT_DATA_DELTA", "reply_id": "r", "tool_call_id": "c", "block_id": None, "data": b"x"},
    {"type": "TOOL_RESULT_DATA_DELTA", "reply_id": "r", "media_type": "m", "data": b"x"},
    {"type": "FUTURE_EVENT"},
], ids=["data and url", "neither", "base64 str", "block_id null", "no tool_call_id", "unknown type"])
def test_bad_frames_fail_as_in_msgpack_decode_event(value: dict[str, Any]) -> None:
    frame = msgspec.msgpack.encode(value)
    with pytest.raises(wire.DecodeError) as viewed:
        zerocopy.decode_event(frame)
    with pytest.raises(wire.DecodeError) as decoded:
        wire.msgpack.decode_event(frame)
    assert (viewed.value.path, viewed.value.reason) == (decoded.value.path, decoded.value.reason)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=48) | strategies.events().map(wire.msgpack.encode).flatmap(
    lambda b: st.integers(0, len(b)).map(lambda n: b[:n] + b"\xc1" + b[n + 1:])))
def test_fuzz_frames_decode_or_raise_decode_error(frame: bytes) -> None:
    # A damaged key leaves a field to its default factory: make those agree.
    wire.set_id_factory(lambda: "generated")
    wire.set_timestamp_factory(lambda: "now")
    try:
        try:
            decoded = zerocopy.decode_event(frame)
        except wire.DecodeError:
            with pytest.raises((wire.DecodeError, UnicodeDecodeError)):  # see test_peek.attempt_full
                wire.msgpack.decode_event(frame)
        else:
            assert as_event(decoded) == wire.msgpack.decode_event(frame)
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)


# -- reducing through views --------------------------------------------------------------------


def reduce(frames: list[bytes], decode: Callable[[bytes], Any], initial: Callable[[], wire.Msg]) -> wire.Msg:
    msg = initial()  # a new one each time: replace() would share the content list
    for frame in frames:
        zerocopy.append_event(msg, decode(frame))
    return msg


def test_the_workload_reply_reduces_the_same() -> None:
    frames = workload.msgpack_frames(workload.reply_events(seed=0, scale=0.02))  # 6 data chunks
    by_bytes = reduce(frames, wire.msgpack.decode_event, workload.initial_msg)
    by_views = reduce(frames, zerocopy.decode_event, workload.initial_msg)
    assert wire.msgpack.encode(by_views) == wire.msgpack.encode(by_bytes)
    assert not by_views.anomalies


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_vectors_reduce_the_same(case: Case) -> None:
    frames = [wire.msgpack.encode(e) for e in wire.json.decode_events(case.events_jsonl)]
    def initial() -> wire.Msg:
        return wire.json.decode_msg(case.initial_msg)

    by_views = reduce(frames, zerocopy.decode_event, initial)
    assert by_views == reduce(frames, wire.msgpack.decode_event, initial)
    assert by_views.content or not frames


chunk_events = st.lists(st.tuples(st.booleans(), st.binary(max_size=40), st.booleans()), max_size=8)


@settings(max_examples=150, deadline=None)
@given(chunk_events)
def test_chunks_reduce_the_same_with_reads_between(chunks: list[tuple[bool, bytes, bool]]) -> None:
    """Data and tool-result chunks, merged into one block each, read (settled)
    at random points: views and bytes give the same Msg at every read."""
    start: list[AgentEvent] = [wire.DataBlockStartEvent(reply_id="r", block_id="b", media_type="m"),
             wire.ToolResultStartEvent(reply_id="r", tool_call_id="c", tool_call_name="t")]
    msgs = [wire.AssistantMsg(name="a", content=[], id="r", created_at="t") for _ in range(2)]
    for msg in msgs:
        msg.extend_events(start)
    for tool, data, read in chunks:
        event: Any = (ToolResultDataDeltaEvent(reply_id="r", tool_call_id="c", block_id="d", media_type="m",
                                               data=data) if tool else
                      DataBlockDeltaEvent(reply_id="r", block_id="b", media_type="m", data=data))
        frame = wire.msgpack.encode(event)
        zerocopy.append_event(msgs[0], wire.msgpack.decode_event(frame))
        zerocopy.append_event(msgs[1], zerocopy.decode_event(frame))
        if read:
            assert msgs[1] == msgs[0]
    assert wire.msgpack.encode(msgs[1]) == wire.msgpack.encode(msgs[0])


def test_strict_mode_and_anomalies_pass_through() -> None:
    msg = wire.AssistantMsg(name="a", content=[], id="r")
    frame = wire.msgpack.encode(DataBlockDeltaEvent(reply_id="r", block_id="nope", media_type="m", data=b"x"))
    with pytest.raises(wire.StreamOrderError):
        zerocopy.append_event(msg, zerocopy.decode_event(frame), strict=True)
    zerocopy.append_event(msg, zerocopy.decode_event(frame))
    assert [a.kind for a in msg.anomalies] == [wire.AnomalyKind.UNKNOWN_BLOCK]


# -- counting copies ---------------------------------------------------------------------------


def stage(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()`` and the peak of memory it allocated, in bytes (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak


def data_frames(n: int, *, tool: bool = False) -> tuple[bytes, list[bytes]]:
    payload = os.urandom(n * CHUNK)
    events: list[Any] = [
        ToolResultDataDeltaEvent(reply_id="r", tool_call_id="c", block_id="d", media_type="m",
                                 data=payload[i * CHUNK:(i + 1) * CHUNK]) if tool else
        DataBlockDeltaEvent(reply_id="r", block_id="b", media_type="m", data=payload[i * CHUNK:(i + 1) * CHUNK])
        for i in range(n)]
    return payload, [wire.msgpack.encode(e) for e in events]


def started_msg() -> wire.Msg:
    msg = wire.AssistantMsg(name="a", content=[], id="r")
    msg.append_event(wire.DataBlockStartEvent(reply_id="r", block_id="b", media_type="m"))
    msg.append_event(wire.ToolResultStartEvent(reply_id="r", tool_call_id="c", tool_call_name="t"))
    return msg


def read_data(msg: wire.Msg, tool: bool) -> bytes:
    block: object
    if tool:
        output = expect(wire.ToolResultBlock, msg.content[1]).output
        assert isinstance(output, list)
        block = output[0]
    else:
        block = msg.content[0]
    return expect(wire.Base64Source, expect(wire.DataBlock, block).source).data


def append_all(msg: wire.Msg, decoded: list[Any]) -> None:
    for d in decoded:
        zerocopy.append_event(msg, d)


def end_event(tool: bool) -> AgentEvent:
    if tool:
        return wire.ToolResultEndEvent(reply_id="r", tool_call_id="c", state=wire.ToolResultState.SUCCESS)
    return wire.DataBlockEndEvent(reply_id="r", block_id="b")


def count_copies(decode: Callable[[bytes], Any], n: int, *,
                 tool: bool = False) -> tuple[float, float, float, float]:
    """Copies of the payload made by each stage: decode the frames, append
    the events, end the block, read the block's data."""
    payload, frames = data_frames(n, tool=tool)
    msg = started_msg()
    decoded, at_decode = stage(lambda: [decode(f) for f in frames])
    _, at_append = stage(functools.partial(append_all, msg, decoded))
    del decoded  # the Msg holds what it needs
    _, at_end = stage(lambda: msg.append_event(end_event(tool)))
    data, at_read = stage(lambda: read_data(msg, tool))
    assert type(data) is bytes
    assert data == payload
    return tuple(stage / len(payload) for stage in (at_decode, at_append, at_end, at_read))  # type: ignore[return-value]


COUNTS = {
    # (decoder, chunks, tool result?) -> copies per stage (decode, append, END, read):
    # views are copied into the block's buffer as they are appended, which
    # becomes bytes once, at END; reading copies nothing.
    "views, 4 data chunks": (zerocopy.decode_event, 4, False, (0, 1, 1, 0)),
    "views, 1 data chunk": (zerocopy.decode_event, 1, False, (0, 1, 1, 0)),
    # Decoding to bytes copies once more.
    "bytes, 4 data chunks": (wire.msgpack.decode_event, 4, False, (1, 1, 1, 0)),
    "bytes, 1 data chunk": (wire.msgpack.decode_event, 1, False, (1, 1, 1, 0)),
    # Tool results take the same path, and end with the result.
    "views, 4 tool-result chunks": (zerocopy.decode_event, 4, True, (0, 1, 1, 0)),
    "bytes, 4 tool-result chunks": (wire.msgpack.decode_event, 4, True, (1, 1, 1, 0)),
}


@pytest.mark.parametrize("name", list(COUNTS))
def test_copies_from_frame_to_the_finished_block(name: str) -> None:
    decode, n, tool, expected = COUNTS[name]
    measured = count_copies(decode, n, tool=tool)
    assert measured == pytest.approx(expected, abs=0.05), measured


def test_views_save_the_decode_copy() -> None:
    by_view = sum(count_copies(zerocopy.decode_event, 4))
    by_bytes = sum(count_copies(wire.msgpack.decode_event, 4))
    assert by_bytes - by_view == pytest.approx(1, abs=0.05)


# -- what a view pins --------------------------------------------------------------------------


def test_views_pin_their_frames_until_appended() -> None:
    payload, frames = data_frames(3)
    held = [sys.getrefcount(f) for f in frames]
    msg = started_msg()
    views = [zerocopy.decode_event(f) for f in frames]
    assert [sys.getrefcount(f) for f in frames] == [h + 1 for h in held]  # one export each
    for view in views:
        zerocopy.append_event(msg, view)
    del views, view
    assert [sys.getrefcount(f) for f in frames] == held  # the block copied them
    assert read_data(msg, tool=False) == payload


def test_a_receive_buffer_is_free_again_once_appended() -> None:
    _, (frame_bytes,) = data_frames(1)
    frame = bytearray(frame_bytes)
    msg = started_msg()
    view: Any = zerocopy.decode_event(frame)
    with pytest.raises(BufferError, match="Existing exports"):
        frame += b"next frame"  # the view pins it
    zerocopy.append_event(msg, view)
    del view
    frame[-1] ^= 0xFF
    frame += b"next frame"  # released: the block holds its own copy
    data = read_data(msg, tool=False)
    assert data == bytes(frame_bytes[-CHUNK:])


def test_a_detached_view_pins_nothing() -> None:
    _, (frame_bytes,) = data_frames(1)
    frame = bytearray(frame_bytes)
    view: Any = zerocopy.decode_event(frame)
    event = view.to_event()
    del view
    frame += b"x"
    assert type(event.data) is bytes
    assert event.type is EventType.DATA_BLOCK_DELTA
