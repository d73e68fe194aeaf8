"""SSE against a hostile server: retry values past any integer limit, frames
named for other listeners, and frames built to cost far more memory than
their bytes."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import wire
from wire.framing import SSEDecoder

EVENT = wire.json.encode(wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="x"))
FRAME = b"data: " + EVENT + b"\n\n"


def in_chunks(decoder: SSEDecoder[Any], data: bytes, size: int = 4096) -> list[Any]:
    out: list[Any] = []
    for start in range(0, len(data), size):
        out += decoder.feed(data[start:start + size])
    return out + decoder.close()


@pytest.mark.parametrize("digits", [19, 20, 4_301, 50_000])
def test_a_retry_of_any_length_neither_raises_nor_loses_events(digits: int) -> None:
    decoder = SSEDecoder()
    events = in_chunks(decoder, FRAME + b"retry: " + b"9" * digits + b"\n\n" + FRAME)
    assert len(events) == 2
    assert decoder.retry is None  # past 64 bits: no usable delay


def test_a_retry_that_fits_64_bits_is_kept() -> None:
    decoder = SSEDecoder()
    assert in_chunks(decoder, b"retry: 9223372036854775807\n\n" + FRAME) != []
    assert decoder.retry == 2**63 - 1
    decoder = SSEDecoder()
    in_chunks(decoder, b"retry: 9223372036854775808\n\nretry: 1500\n\n")
    assert decoder.retry == 1500


@pytest.mark.parametrize("ends", [b"\n", b"\r\n", b"\r"])
def test_frames_named_for_other_listeners_are_skipped(ends: bytes) -> None:
    stream = (b"event: ping" + ends + b"data: {}" + ends + ends + FRAME.replace(b"\n", ends)
              + b"event: message" + ends + b"data: " + EVENT + ends + ends)
    assert len(in_chunks(SSEDecoder(), stream, 7)) == 2
    assert len(in_chunks(SSEDecoder(raw=True), stream, 7)) == 2


def test_named_decode_reads_every_frame() -> None:
    stream = b"event: TEXT_BLOCK_DELTA\ndata: " + EVENT + b"\n\n"
    assert in_chunks(SSEDecoder(named="decode"), stream) == [wire.json.decode_event(EVENT)]
    assert in_chunks(SSEDecoder(), stream) == []
    with pytest.raises(wire.DecodeError):  # the ping's "{}" is no event when named frames are read
        in_chunks(SSEDecoder(named="decode"), b"event: ping\ndata: {}\n\n")
    with pytest.raises(ValueError, match="named"):
        SSEDecoder(named="keep")  # type: ignore[call-overload]


def peak_of(feed: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        feed()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


LIMIT = 1 << 20


@pytest.mark.parametrize("shape", [b"data:xy\n", b":\n", b": comment\n", b"data:xy\r", b"id:1\n"])
def test_memory_stays_within_a_multiple_of_the_frame_limit(shape: bytes) -> None:
    """A frame just under the limit made of tiny lines, fed in 64 KiB chunks:
    the decoder's peak stays within 4x the limit, whatever the line shape."""
    frame = shape * ((LIMIT - 1024) // len(shape))
    stream = frame + shape[-1:] + FRAME

    def read() -> None:
        decoder = SSEDecoder(max_frame_bytes=LIMIT, named="skip")
        events: list[wire.AgentEvent] = []
        for start in range(0, len(stream), 65536):
            try:
                events += decoder.feed(stream[start:start + 65536])
            except wire.DecodeError:  # a data-only frame of "xy" lines is no event: that is fine here
                return

    assert peak_of(read) < 4 * LIMIT + 256 * 1024


@pytest.mark.parametrize("zeros", [0, 1, 18, 19, 40, 5_000])
def test_leading_zeros_of_a_retry_do_not_count_against_its_limit(zeros: int) -> None:
    """The spec reads the digits as a base-ten integer: ``retry: 000...05`` is
    5 however many zeros lead (it used to be ignored past 19 characters)."""
    decoder = SSEDecoder()
    assert len(in_chunks(decoder, b"retry: " + b"0" * zeros + b"5\n\n" + FRAME, 7)) == 1
    assert decoder.retry == 5
    decoder = SSEDecoder()
    in_chunks(decoder, b"retry: " + b"0" * zeros + b"0\n\n")
    assert decoder.retry == 0
    decoder = SSEDecoder()  # zeros before a value past 64 bits do not bring it back
    in_chunks(decoder, b"retry: 1500\n\nretry: " + b"0" * zeros + b"9223372036854775808\n\n")
    assert decoder.retry == 1500
