"""Peeking envelopes against full decoding, and MessagePack data
chunks as bytes against views.

* ``peek-ndjson``: the 24,800-event reply as NDJSON, every event fully decoded
  (``wire.json.decode_events``) or only peeked (``wire.peek.peek_json_lines``).
  Target: the peek at least 2x faster, same run.
* ``peek-msgpack-frames``: the same reply as one MessagePack payload per
  event (what a length-prefixed framing yields), decoded or peeked one by one.
* ``chunk-64k-decode``: 16 frames of one 64 KiB DATA_BLOCK_DELTA each (1 MiB),
  decoded to bytes (one copy), to views (none) or peeked.
* ``chunk-64k-to-msg``: the same 16 frames into a Msg and the block's data
  read once: decode, ``wire.zerocopy.append_event``, ``source.data``. Bytes
  copy every chunk twice (decode, join); views once (join).

Run: ``.venv/bin/python -m pytest benchmarks/bench_peek.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from typing import Any

import pytest

import wire
from benchmarks import workload
from benchmarks.conftest import Reply, run
from wire import zerocopy
from wire.events import DataBlockDeltaEvent, DataBlockStartEvent
from wire.peek import peek_json_lines, peek_msgpack

CHUNK = 64 * 1024
CHUNKS = 16


def _per_item(fn: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    def each(items: list[Any]) -> list[Any]:
        return [fn(item) for item in items]
    return each


# -- envelopes ----------------------------------------------------------------------------------

NDJSON: dict[str, Callable[[bytes], list[Any]]] = {
    "wire.json decode_events (NDJSON)": wire.json.decode_events,
    "wire.peek peek_json_lines (NDJSON)": peek_json_lines,
}


@pytest.mark.benchmark(group="peek-ndjson")
@pytest.mark.parametrize("case", list(NDJSON))
def test_peek_ndjson(benchmark: Any, reply: Reply, case: str) -> None:
    result = run(benchmark, NDJSON[case], (reply.ndjson,), rounds=30, events=reply.n, nbytes=len(reply.ndjson))
    assert len(result) == reply.n
    assert [e.type for e in result] == [e.type for e in reply.events]


FRAMES: dict[str, Callable[[Any], Any]] = {
    "wire.msgpack decode_event per frame": wire.msgpack.decode_event,
    "wire.msgpack peek per frame": peek_msgpack,
}


@pytest.mark.benchmark(group="peek-msgpack-frames")
@pytest.mark.parametrize("case", list(FRAMES))
def test_peek_msgpack_frames(benchmark: Any, reply: Reply, case: str) -> None:
    nbytes = sum(map(len, reply.frames))
    result = run(benchmark, _per_item(FRAMES[case]), (reply.frames,), rounds=30, events=reply.n, nbytes=nbytes)
    assert len(result) == reply.n


# -- 64 KiB data chunks -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chunk_frames() -> list[bytes]:
    payload = os.urandom(CHUNK * CHUNKS)
    return [wire.msgpack.encode(DataBlockDeltaEvent(
        reply_id=workload.REPLY_ID, block_id="b", media_type="audio/wav",
        data=payload[i * CHUNK:(i + 1) * CHUNK])) for i in range(CHUNKS)]


DECODERS: dict[str, Callable[[Any], Any]] = {
    "wire.msgpack decode_event (bytes, 1 copy)": wire.msgpack.decode_event,
    "wire.zerocopy decode_event (memoryview, 0 copies)": zerocopy.decode_event,
    "wire.msgpack peek (envelope only)": peek_msgpack,
}


@pytest.mark.benchmark(group="chunk-64k-decode")
@pytest.mark.parametrize("case", list(DECODERS))
def test_chunk_decode(benchmark: Any, chunk_frames: list[bytes], case: str) -> None:
    nbytes = sum(map(len, chunk_frames))
    result = run(benchmark, _per_item(DECODERS[case]), (chunk_frames,), rounds=200, events=CHUNKS, nbytes=nbytes)
    assert len(result) == CHUNKS


def _fresh_msg() -> tuple[tuple[Any, ...], dict[str, Any]]:
    # A Msg and its reducer form a cycle: collect the last round's now, outside
    # the timer, so that its 1 MiB buffer is free for this round. Otherwise a
    # round pays for faulting in fresh pages or not depending on when the
    # collector last ran (measured: the 1 MiB join takes 34 us into reused
    # memory and 400 us into fresh pages), which swamps the copies compared here.
    gc.collect()
    msg = workload.initial_msg()
    msg.append_event(DataBlockStartEvent(reply_id=workload.REPLY_ID, block_id="b", media_type="audio/wav"))
    return (msg,), {}


def _to_msg(decode: Callable[[Any], Any], frames: list[bytes]) -> Callable[[wire.Msg], bytes]:
    def reduce(msg: wire.Msg) -> bytes:
        for frame in frames:
            zerocopy.append_event(msg, decode(frame))
        return msg.content[0].source.data  # type: ignore[union-attr]  # the join: the one copy (or second)
    return reduce


TO_MSG: dict[str, Callable[[Any], Any]] = {
    "bytes: decode, append, read (2 copies)": wire.msgpack.decode_event,
    "views: decode, append, read (1 copy)": zerocopy.decode_event,
}


@pytest.mark.benchmark(group="chunk-64k-to-msg")
@pytest.mark.parametrize("case", list(TO_MSG))
def test_chunk_to_msg(benchmark: Any, chunk_frames: list[bytes], case: str) -> None:
    nbytes = CHUNK * CHUNKS
    data = run(benchmark, _to_msg(TO_MSG[case], chunk_frames), setup=_fresh_msg, rounds=200,
               events=CHUNKS, nbytes=nbytes)
    assert len(data) == nbytes
