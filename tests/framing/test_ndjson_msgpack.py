"""NDJSON and length-prefixed MessagePack framings: every chunking gives the
same events and the same errors, bad input raises wire's errors with where,
limits hold, and raw frames and unknown events round-trip byte for byte."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import CASES, CATALOG, Case, cut, growth_ratio, mutate, run
from tests.strategies import edits, points, reply_streams
from wire.events import UnknownEvent
from wire.framing import (
    DEFAULT_MAX_FRAME_BYTES,
    FRAMINGS,
    MsgpackFrameDecoder,
    MsgpackFrameEncoder,
    NDJSONDecoder,
    NDJSONEncoder,
    RawFrame,
)

# SSE, the registry's third framing, has its own tests (tests/framing/test_sse.py).
LINE_AND_LENGTH = {name: FRAMINGS[name] for name in ("ndjson", "msgpack")}


def decode_all(decoder_type: Callable[[], Any], data: bytes) -> list[Any]:
    items, error = run(decoder_type(), [data])
    assert error is None
    return items




# -- every chunking, same events ---------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_vectors_any_chunking(case: Case) -> None:
    expected = wire.json.decode_events(case.events_jsonl)
    data = case.events_jsonl
    for size in (1, 2, 3, 7, 64, 4096, len(data)):
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        assert run(NDJSONDecoder(), chunks) == (expected, None)
    framed = MsgpackFrameEncoder().encode_batch(expected)
    for size in (1, 3, 5, 4096, len(framed)):
        chunks = [framed[i:i + size] for i in range(0, len(framed), size)]
        assert run(MsgpackFrameDecoder(), chunks) == (expected, None)


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=reply_streams(), cuts=points)
def test_any_chunking_same_events(framing: str, events: list[wire.AgentEvent], cuts: list[int]) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    data = encoder_type().encode_batch(events + CATALOG)
    assert run(decoder_type(), cut(data, cuts)) == (events + CATALOG, None)


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_byte_by_byte(framing: str) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    data = encoder_type().encode_batch(CATALOG)
    assert run(decoder_type(), [data[i:i + 1] for i in range(len(data))]) == (CATALOG, None)


def test_ndjson_split_inside_utf8_sequences() -> None:
    event = wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b",
                                     delta="é中😀\u2028 \\\"x")
    data = NDJSONEncoder().encode(event) * 2
    assert "😀".encode() in data
    for i in range(len(data) + 1):
        for j in range(i, len(data) + 1):
            if j - i in (0, 1, 2, 3):
                assert run(NDJSONDecoder(), [data[:i], data[i:j], data[j:]]) == ([event, event], None)


def test_msgpack_split_inside_length_prefix() -> None:
    data = MsgpackFrameEncoder().encode_batch(CATALOG[:3])
    first = struct.unpack(">I", data[:4])[0]
    for i in range(9):
        for j in (4 + first, 4 + first + 2, 4 + first + 4):
            assert run(MsgpackFrameDecoder(), [data[:i], data[i:j], data[j:]]) == (CATALOG[:3], None)


def test_ndjson_crlf_blank_lines_and_no_final_newline() -> None:
    lines = [wire.json.encode(e) for e in CATALOG[:4]]
    data = b"\r\n".join(lines[:2]) + b"\r\n\r\n  \t\r\n\n" + b"\n".join(lines[2:])
    for size in (1, 5, len(data)):
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        assert run(NDJSONDecoder(), chunks) == (CATALOG[:4], None)


# -- encoders ---------------------------------------------------------------------------------


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_encode_paths_agree(framing: str) -> None:
    encoder_type = FRAMINGS[framing].encoder
    batch = encoder_type().encode_batch(iter(CATALOG))
    encoder = encoder_type()
    assert b"".join(encoder.encode(e) for e in CATALOG) == batch
    buf = bytearray(b"kept")
    for event in CATALOG:
        encoder.encode_into(event, buf)
    assert bytes(buf) == b"kept" + batch


def test_ndjson_encoder_writes_what_wire_json_writes() -> None:
    assert NDJSONEncoder().encode_batch(CATALOG) == wire.json.encode_events(CATALOG)
    for event in CATALOG:
        assert NDJSONEncoder().encode(event) == wire.json.encode(event) + b"\n"
        assert MsgpackFrameEncoder().encode(event)[4:] == wire.msgpack.encode(event)


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_failed_encode_leaves_buffer_untouched(framing: str) -> None:
    encoder_type = FRAMINGS[framing].encoder
    bad = wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="\ud800")  # lone surrogate
    encoder = encoder_type()
    buf = bytearray(b"before")
    with pytest.raises(wire.EncodeError):
        encoder.encode_into(bad, buf)
    assert buf == b"before"
    with pytest.raises(wire.EncodeError):
        encoder.encode(bad)
    with pytest.raises(wire.EncodeError):
        encoder.encode_batch([CATALOG[0], bad])
    with pytest.raises(wire.EncodeError):
        encoder.encode(object())  # type: ignore[arg-type]


# -- bad input --------------------------------------------------------------------------------


GOOD = wire.json.encode(CATALOG[0])
GOOD_MP = wire.msgpack.encode(CATALOG[0])


@pytest.mark.parametrize(("bad", "error", "path"), [
    (b"garbage", wire.DecodeError, None),
    (b"[1, 2]", wire.DecodeError, "$"),
    (b'{"a": 1}', wire.DecodeError, "$"),
    (b'{"type": "TEXT_BLOCK_DELTA", "reply_id": "r"}', wire.DecodeError, "$"),
    (b'{"type": "TEXT_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "delta": "\xff"}', wire.DecodeError, None),
    (b'{"type": "CUSTOM", "name": "x", "value": {"a": ' + b"[" * 5000 + b"]" * 5000 + b"}}",
     wire.DecodeError, None),
    (b'{"type": "FUTURE_EVENT"}', wire.DecodeError, "$.type"),
])
def test_ndjson_bad_line_says_where(bad: bytes, error: type[Exception], path: str | None) -> None:
    data = GOOD + b"\n\n" + GOOD + b"\n" + bad + b"\n" + GOOD + b"\n"
    start = data.index(bad)
    for size in (1, 3, len(data)):
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        decoder = NDJSONDecoder()
        got: list[Any] = []
        with pytest.raises(error) as info:
            for chunk in chunks:
                got += decoder.feed(chunk)
        exc = info.value
        assert isinstance(exc, wire.RemoteProtocolError)
        assert got + exc.events == CATALOG[:1] * 2
        assert exc.index == 2
        assert exc.offset is not None and start <= exc.offset < start + len(bad)
        assert exc.path == path
        with pytest.raises(wire.LocalProtocolError):
            decoder.feed(GOOD + b"\n")
        with pytest.raises(wire.LocalProtocolError):
            decoder.close()


def test_ndjson_decode_error_points_at_the_byte() -> None:
    data = GOOD + b"\n" + b'{"type": x}\n'
    with pytest.raises(wire.DecodeError) as info:
        NDJSONDecoder().feed(data)
    assert info.value.offset == len(GOOD) + 1 + data[len(GOOD) + 1:].index(b"x")


@pytest.mark.parametrize("sep", [b" ", b"", b"\n\n", b"\r\n"])
def test_one_event_per_line_in_a_stream_any_whitespace_in_decode_events(sep: bytes) -> None:
    """As documented: decode_events reads what decode_lines reads; the stream
    decoder holds a line to one whole event, however the bytes are cut."""
    a, b = (wire.json.encode(e) for e in CATALOG[:2])
    one_line = a + sep + b + b"\n"
    spread = a[:-1] + b"\n" + a[-1:] + b"\n"  # the closing brace on a line of its own
    assert wire.json.decode_events(one_line) == CATALOG[:2]
    assert wire.json.decode_events(spread) == CATALOG[:1]
    if b"\n" not in sep:
        assert run(NDJSONDecoder(), [one_line])[1] == ("DecodeError", len(a) + len(sep), 0)
    for i in range(len(spread) + 1):  # the first line is cut short: its first byte is where
        assert run(NDJSONDecoder(), [spread[:i], spread[i:]]) == ([], ("DecodeError", 0, 0))


def test_ndjson_truncated_last_line() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(GOOD + b"\n" + GOOD[:-5]) == [CATALOG[0]]
    with pytest.raises(wire.FrameError) as info:
        decoder.close()
    assert (info.value.offset, info.value.index) == (len(GOOD) + 1, 1)
    with pytest.raises(wire.LocalProtocolError):
        decoder.close()


def test_msgpack_bad_payload_and_truncation() -> None:
    frame = MsgpackFrameEncoder().encode(CATALOG[0])
    bad = b"\x00\x00\x00\x02\xc1\xc1"
    data = frame + frame + bad + frame
    for size in (1, 4, len(data)):
        items, error = run(MsgpackFrameDecoder(), [data[i:i + size] for i in range(0, len(data), size)])
        assert items == CATALOG[:1] * 2
        assert error == ("DecodeError", 2 * len(frame) + 4, 2)
    for end in (1, 3, 4, 7, len(frame) - 1):
        items, error = run(MsgpackFrameDecoder(), [frame + frame[:end]])
        assert items == CATALOG[:1]
        assert error == ("FrameError", len(frame), 1)


def test_feed_after_close_and_close_twice() -> None:
    for decoder_type in (NDJSONDecoder, MsgpackFrameDecoder):
        decoder = decoder_type()
        assert decoder.close() == []
        assert decoder.close() == []
        with pytest.raises(wire.LocalProtocolError):
            decoder.feed(b"")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown"):
        NDJSONDecoder(unknown="ignore")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="max_frame_bytes"):
        MsgpackFrameDecoder(max_frame_bytes=0)


# -- fuzz: wire's errors only, and the same outcome under any chunking ----------------------


@pytest.mark.parametrize("decoder_type", [NDJSONDecoder, MsgpackFrameDecoder])
@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=200), cuts=points)
def test_arbitrary_bytes(decoder_type: Callable[[], Any], data: bytes, cuts: list[int]) -> None:
    whole = run(decoder_type(), [data])  # raises anything that is not wire's
    assert run(decoder_type(), cut(data, cuts)) == whole


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
@settings(max_examples=200, deadline=None)
@given(mutations=edits, cuts=points, unknown=st.sampled_from(["raise", "skip", "keep"]), raw=st.booleans(),
       crlf=st.booleans())
def test_damaged_streams(framing: str, mutations: list[tuple[int, int, bytes]], cuts: list[int],
                         unknown: str, raw: bool, crlf: bool) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    data = encoder_type().encode_batch(CATALOG[:8])
    if crlf and framing == "ndjson":
        data = data.replace(b"\n", b"\r\n")
    data = mutate(data, mutations)

    def new() -> Any:
        if raw:
            return decoder_type(raw=True, max_frame_bytes=600)
        return decoder_type(unknown=unknown, max_frame_bytes=600)

    whole = run(new(), [data])
    assert run(new(), cut(data, cuts)) == whole


# -- limits -------------------------------------------------------------------------------------


def test_default_limit() -> None:
    assert NDJSONDecoder().max_frame_bytes == DEFAULT_MAX_FRAME_BYTES == 32 * 1024 * 1024


def test_ndjson_line_limit_same_error_however_it_arrives() -> None:
    long = wire.json.encode(wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="x" * 500))
    data = GOOD + b"\n" + long + b"\n" + GOOD + b"\n"
    limit = len(long) - 1
    for size in (1, 64, len(data)):
        items, error = run(NDJSONDecoder(max_frame_bytes=limit),
                           [data[i:i + size] for i in range(0, len(data), size)])
        assert items == CATALOG[:1]
        assert error == ("FrameError", len(GOOD) + 1, 1)
    assert len(decode_all(lambda: NDJSONDecoder(max_frame_bytes=len(long)), data)) == 3


def test_msgpack_length_checked_before_buffering() -> None:
    decoder = MsgpackFrameDecoder(max_frame_bytes=1000)
    assert decoder.feed(MsgpackFrameEncoder().encode(CATALOG[0])) == CATALOG[:1]
    with pytest.raises(wire.FrameError) as info:
        decoder.feed(struct.pack(">I", 2**32 - 1))  # only the prefix has arrived
    assert (info.value.offset, info.value.index) == (4 + len(GOOD_MP), 1)


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 12), slack=st.integers(-3, 3), cuts=points, raw=st.booleans())
def test_limit_near_frame_sizes(framing: str, n: int, slack: int, cuts: list[int], raw: bool) -> None:
    """A limit around the frames' sizes: the same outcome whole, cut anywhere,
    and one frame per chunk."""
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    frames = [encoder_type().encode(e) for e in CATALOG[:n]]
    sizes = sorted(len(f) - (1 if framing == "ndjson" else 4) for f in frames)
    limit = max(1, sizes[len(sizes) // 2] + slack)
    data = b"".join(frames)

    def new() -> Any:
        return decoder_type(raw=True, max_frame_bytes=limit) if raw else decoder_type(max_frame_bytes=limit)

    whole = run(new(), [data])
    assert whole[1] is not None or max(sizes) <= limit
    assert run(new(), cut(data, cuts)) == whole
    assert run(new(), frames) == whole


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_linear_time_with_tiny_chunks(framing: str) -> None:
    """One big frame fed one byte at a time: four times the bytes take about
    four times as long. A splitter that re-scanned or copied its buffer for
    every chunk would take about sixteen times as long."""
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder

    def one_byte_feeds(size: int) -> Callable[[], None]:
        big = wire.DataBlockDeltaEvent(reply_id="r", block_id="b", media_type="x/y", data=b"\1" * size)
        data = encoder_type().encode(big)
        chunks = [data[i:i + 1] for i in range(len(data))]
        decoder = decoder_type()

        def feed_all() -> None:
            feed = decoder.feed
            for chunk in chunks:
                feed(chunk)
            assert decoder.close() == [] and decoder.frames == 1

        return feed_all

    ratio = growth_ratio(one_byte_feeds, 50_000)
    assert ratio < 8, f"4x the bytes took {ratio:.1f}x the time"


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
@pytest.mark.parametrize("damage_at", [None, 0.0, 0.3, 0.7, 1.0])
def test_big_buffer_in_one_feed(framing: str, damage_at: float | None) -> None:
    """A buffer of several 64 KiB windows fed at once gives what small chunks
    give; an error in a later window carries the events of the earlier ones."""
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    items: list[Any] = CATALOG * 40
    if damage_at is not None:  # a frame whose payload is no event
        items.insert(int(len(items) * damage_at), RawFrame(b"{oops" if framing == "ndjson" else b"\xc1"))
    data = encoder_type().encode_batch(items)
    assert len(data) > 3 * 64 * 1024
    chunked = run(decoder_type(), cut(data, range(0, len(data), 4096)))
    assert (chunked[1] is None) == (damage_at is None)
    assert run(decoder_type(), [data]) == chunked


# -- unknown events and raw frames ------------------------------------------------------------


FUTURE = {"type": "FUTURE_EVENT", "id": "f1", "payload": {"x": [1, 2.5, None]}, "b": "é"}


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_unknown_policies(framing: str) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    fmt = "json" if framing == "ndjson" else "msgpack"
    future = msgspec.json.encode(FUTURE) if fmt == "json" else msgspec.msgpack.encode(FUTURE)
    encoder = encoder_type()
    data = encoder.encode(CATALOG[0]) + encoder.encode(RawFrame(future)) + encoder.encode(CATALOG[1])

    items, error = run(decoder_type(), [data])
    assert items == CATALOG[:1] and error is not None and error[0] == "DecodeError" and error[2] == 1

    assert decode_all(lambda: decoder_type(unknown="skip"), data) == CATALOG[:2]

    kept = decode_all(lambda: decoder_type(unknown="keep"), data)
    assert kept[0] == CATALOG[0] and kept[2] == CATALOG[1]
    assert kept[1] == UnknownEvent("FUTURE_EVENT", future, fmt)  # type: ignore[arg-type]
    assert encoder_type().encode_batch(kept) == data
    assert b"".join(map(encoder_type().encode, kept)) == data
    codec = wire.json if fmt == "json" else wire.msgpack
    assert codec.encode(kept[1]) == future
    other = MsgpackFrameEncoder() if fmt == "json" else NDJSONEncoder()
    with pytest.raises(wire.EncodeError, match="cannot be written"):
        other.encode(kept[1])


def test_known_type_with_bad_fields_is_not_unknown() -> None:
    bad = b'{"type": "TEXT_BLOCK_DELTA", "reply_id": 5}'
    items, error = run(NDJSONDecoder(unknown="keep"), [GOOD + b"\n" + bad + b"\n"])
    assert items == CATALOG[:1] and error == ("DecodeError", len(GOOD) + 1, 1)


@pytest.mark.parametrize("framing", LINE_AND_LENGTH)
def test_raw_frames_round_trip(framing: str) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    data = encoder_type().encode_batch(CATALOG)
    for size in (1, 100, len(data)):
        frames, error = run(decoder_type(raw=True), [data[i:i + size] for i in range(0, len(data), size)])
        assert error is None
        assert all(type(f) is RawFrame and type(f.payload) is bytes and f.envelope is None for f in frames)
        codec = wire.json if framing == "ndjson" else wire.msgpack
        assert [f.payload for f in frames] == [codec.encode(e) for e in CATALOG]
        assert encoder_type().encode_batch(frames) == data
        buf = bytearray()
        for frame in frames:
            encoder_type().encode_into(frame, buf)
        assert bytes(buf) == data


def test_raw_ndjson_strips_line_ends_and_skips_blank_lines() -> None:
    for data in (GOOD + b"\r\n\r\n \n" + GOOD + b"\n" + GOOD,
                 GOOD + b"\r\n" + GOOD + b"\n" + GOOD):  # after the CRLF, no CR: the fast path
        for i in range(len(data) + 1):  # a CRLF cut between chunks too
            assert run(NDJSONDecoder(raw=True), [data[:i], data[i:]]) == ([RawFrame(GOOD)] * 3, None)
    decoder = NDJSONDecoder(raw=True)
    decoder.feed(GOOD[:-1])
    with pytest.raises(wire.FrameError):
        decoder.close()


def test_raw_payload_must_fit_the_framing() -> None:
    for payload in (b"{}\n{}", b"{}\r", b"", b"  "):
        with pytest.raises(wire.EncodeError):
            NDJSONEncoder().encode(RawFrame(payload))
    assert RawFrame(b"x", envelope=1) != RawFrame(b"x")
    assert repr(RawFrame(b"x")) == "RawFrame(b'x')"
