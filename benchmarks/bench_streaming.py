"""Streaming decoders and encoders on the 24,800-event reply.

Each stream is cut into chunks outside the timer; a case feeds every chunk to
a new decoder and closes it. "whole" feeds the stream in one call.

Targets (from ``test_target_*``, whose cases run round-robin so that load on
the shared machine lands on all of them alike; the ratios are in each
benchmark's ``extra_info["ratios"]``, as speed relative to the baseline):

* NDJSON fed in 4 KiB chunks >= 0.8x as fast as the whole buffer decoded at
  once (``wire.json.decode_events``, msgspec's ``decode_lines``); beside it,
  the floor of any exact line decoder (split, decode each line, nothing
  else) and one ``decode_lines`` per chunk (faster, but not exact);
* SSE in 4 KiB chunks >= 0.7x as fast as the same SSE bytes fed whole, in
  agentscope's service format and in wire's (with ids);
* MessagePack frames: reported (no target);
* 64-byte chunks cost <= 4x per byte what 64 KiB chunks do, per framing.

The ``test_stream_*`` cases give the detailed table (MB/s and events/s per
framing and chunk size) and ``test_encode_*`` the encoders' three paths.

Run: ``.venv/bin/python -m pytest benchmarks/bench_streaming.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import Any

import msgspec
import pytest

import wire
from benchmarks.conftest import Prepared, Reply, decode_lines_per_chunk, interleaved, run, split_lines_and_decode
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder, SSEEncoder

KIB = 1024
_EVENT = msgspec.json.Decoder(wire.AgentEvent)  # msgspec's own, for the reference loops


@cache
def _streams(reply: Reply) -> dict[str, tuple[bytes, Callable[[], Any]]]:
    """framing name -> (the reply's bytes in it, a decoder factory)."""
    agentscope = b"".join(
        b"data: " + json.dumps(msgspec.json.decode(line), ensure_ascii=False).encode() + b"\n\n"
        for line in reply.lines)
    return {
        "NDJSON": (NDJSONEncoder().encode_batch(reply.events), NDJSONDecoder),
        "SSE, agentscope format": (agentscope, SSEDecoder),
        "SSE, wire format (ids)": (SSEEncoder().encode_batch(reply.events), SSEDecoder),
        "SSE, wire format, CRLF": (
            SSEEncoder().encode_batch(reply.events).replace(b"\n", b"\r\n"), SSEDecoder),
        "MessagePack frames": (MsgpackFrameEncoder().encode_batch(reply.events), MsgpackFrameDecoder),
    }


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def _decode(make: Callable[[], Any]) -> Callable[[list[bytes]], int]:
    def decode(chunks: list[bytes]) -> int:
        decoder = make()
        feed = decoder.feed
        n = 0
        for chunk in chunks:
            n += len(feed(chunk))
        return n + len(decoder.close())
    return decode


def _ratios(medians: dict[str, float], pairs: dict[str, tuple[str, str]]) -> dict[str, float]:
    """label -> speed of the first case relative to the second (baseline time / case time)."""
    return {label: medians[base] / medians[case] for label, (case, base) in pairs.items()}


# -- detailed cases ---------------------------------------------------------------------------

SIZES = {"64 B": 64, "4 KiB": 4 * KIB, "64 KiB": 64 * KIB, "whole": 0}
FRAMINGS = ["NDJSON", "SSE, agentscope format", "SSE, wire format (ids)",
            "SSE, wire format, CRLF", "MessagePack frames"]


@pytest.mark.benchmark(group="streaming: decode")
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("framing", FRAMINGS)
def test_stream_decode(benchmark: Any, reply: Reply, framing: str, size: str) -> None:
    data, make = _streams(reply)[framing]
    chunks = _chunks(data, SIZES[size]) if SIZES[size] else [data]
    rounds = 5 if SIZES[size] == 64 else 15
    n = run(benchmark, _decode(make), (chunks,), rounds=rounds, events=reply.n, nbytes=len(data))
    assert n == reply.n


@pytest.mark.benchmark(group="streaming: decode")
def test_stream_decode_events_whole_ceiling(benchmark: Any, reply: Reply) -> None:
    """The ceiling: the whole NDJSON buffer in one ``decode_lines`` call."""
    data = _streams(reply)["NDJSON"][0]
    events = run(benchmark, wire.json.decode_events, (data,), rounds=15, events=reply.n, nbytes=len(data))
    assert len(events) == reply.n


# -- encoders: one frame per call, into one buffer, batch ---------------------------------------

ENCODERS: dict[str, Callable[[], Any]] = {
    "NDJSON": NDJSONEncoder, "SSE (ids)": SSEEncoder, "MessagePack frames": MsgpackFrameEncoder,
}


def _per_event(make: Callable[[], Any]) -> Callable[[list[Any]], list[bytes]]:
    def encode(events: list[Any]) -> list[bytes]:
        encode_one = make().encode
        return [encode_one(e) for e in events]
    return encode


def _into(make: Callable[[], Any]) -> Callable[[list[Any]], int]:
    def encode(events: list[Any]) -> int:
        """Coalesced writes: append events into one buffer, flush at 64 KiB."""
        encode_into = make().encode_into
        buf = bytearray()
        written = 0
        for event in events:
            encode_into(event, buf)
            if len(buf) >= 64 * KIB:
                written += len(bytes(buf))
                buf.clear()
        return written + len(bytes(buf))
    return encode


def _batch(make: Callable[[], Any]) -> Callable[[list[Any]], bytes]:
    def encode(events: list[Any]) -> bytes:
        return make().encode_batch(events)  # type: ignore[no-any-return]
    return encode


@pytest.mark.benchmark(group="streaming: encode")
@pytest.mark.parametrize("path", ["encode per event", "encode_into, 64 KiB writes", "encode_batch"])
@pytest.mark.parametrize("framing", list(ENCODERS))
def test_encode(benchmark: Any, reply: Reply, framing: str, path: str) -> None:
    make = ENCODERS[framing]
    fn = {"encode per event": _per_event, "encode_into, 64 KiB writes": _into, "encode_batch": _batch}[path](make)
    nbytes = len(make().encode_batch(reply.events))
    run(benchmark, fn, (reply.events,), rounds=15, events=reply.n, nbytes=nbytes)


# -- targets, round-robin --------------------------------------------------------------------------


def _args_of(arg: Any) -> Callable[[], tuple[Any, ...]]:
    return lambda: (arg,)


def _target(benchmark: Any, reply: Reply, cases: Mapping[str, tuple[Callable[..., Any], Any]],
            pairs: dict[str, tuple[str, str]], rounds: int) -> dict[str, float]:
    prepared: dict[str, Prepared] = {name: (fn, _args_of(arg)) for name, (fn, arg) in cases.items()}
    medians = interleaved(benchmark, prepared, rounds=rounds, events=dict.fromkeys(cases, reply.n))
    ratios = _ratios(medians, pairs)
    benchmark.extra_info["ratios"] = ratios
    return ratios


@pytest.mark.benchmark(group="streaming: targets")
def test_target_ndjson_chunked_vs_whole(benchmark: Any, reply: Reply) -> None:
    """With two reference loops: the floor of any exact line decoder, and
    one ``decode_lines`` per chunk, which is faster but not exact."""
    data, make = _streams(reply)["NDJSON"]
    chunks = _chunks(data, 4 * KIB)
    assert split_lines_and_decode(chunks, _EVENT.decode) == decode_lines_per_chunk(chunks, _EVENT.decode_lines) \
        == reply.n
    whole, chunked = "decode_events, whole buffer", "NDJSONDecoder, 4 KiB chunks"
    floor = "floor of an exact decoder: split each chunk, decode each line, 4 KiB chunks"
    inexact = "decode_lines per chunk (not exact), 4 KiB chunks"
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        whole: (wire.json.decode_events, data),
        "NDJSONDecoder, whole buffer in one feed": (_decode(make), [data]),
        chunked: (_decode(make), chunks),
        floor: (partial(split_lines_and_decode, decode=_EVENT.decode), chunks),
        inexact: (partial(decode_lines_per_chunk, decode_lines=_EVENT.decode_lines), chunks),
    }
    _target(benchmark, reply, cases, {
        "NDJSON 4 KiB chunks vs decode_events whole (>= 0.8)": (chunked, whole),
        "NDJSON 4 KiB chunks vs one feed (info)": (chunked, "NDJSONDecoder, whole buffer in one feed"),
        "NDJSON 4 KiB chunks vs the floor of an exact decoder (info)": (chunked, floor),
        "floor of an exact decoder, 4 KiB chunks, vs decode_events whole (info)": (floor, whole),
        "decode_lines per chunk (not exact), 4 KiB chunks, vs decode_events whole (info)": (inexact, whole),
    }, rounds=15)


@pytest.mark.benchmark(group="streaming: targets")
def test_target_sse_chunked_vs_whole(benchmark: Any, reply: Reply) -> None:
    streams = _streams(reply)
    cases: dict[str, tuple[Callable[..., Any], Any]] = {}
    pairs = {}
    for framing in ("SSE, agentscope format", "SSE, wire format (ids)"):
        data, make = streams[framing]
        cases[f"{framing}, whole"] = (_decode(make), [data])
        cases[f"{framing}, 4 KiB chunks"] = (_decode(make), _chunks(data, 4 * KIB))
        pairs[f"{framing}: 4 KiB chunks vs whole (>= 0.7)"] = (f"{framing}, 4 KiB chunks", f"{framing}, whole")
    cases["NDJSON, 4 KiB chunks"] = (_decode(NDJSONDecoder), _chunks(streams["NDJSON"][0], 4 * KIB))
    pairs["SSE wire format vs NDJSON, both 4 KiB chunks (info)"] = (
        "SSE, wire format (ids), 4 KiB chunks", "NDJSON, 4 KiB chunks")
    _target(benchmark, reply, cases, pairs, rounds=11)


@pytest.mark.benchmark(group="streaming: targets")
def test_target_msgpack_frames(benchmark: Any, reply: Reply) -> None:
    data, make = _streams(reply)["MessagePack frames"]
    # Two baselines without any framing: the same events as one MessagePack
    # array (one msgspec call for all), and one typed decode per frame of the
    # frames already cut out (what the decoder does once it has cut them).
    per_frame = "wire.msgpack.decode_event per frame, frames pre-cut (no framing)"
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        "wire.msgpack.decode_events, one array": (wire.msgpack.decode_events, reply.msgpack),
        per_frame: (lambda frames: list(map(wire.msgpack.decode_event, frames)), reply.frames),
        "MsgpackFrameDecoder, whole": (_decode(make), [data]),
        "MsgpackFrameDecoder, 4 KiB chunks": (_decode(make), _chunks(data, 4 * KIB)),
        "NDJSONDecoder, 4 KiB chunks": (_decode(NDJSONDecoder), _chunks(_streams(reply)["NDJSON"][0], 4 * KIB)),
    }
    _target(benchmark, reply, cases, {
        "frames 4 KiB chunks vs whole (info)": ("MsgpackFrameDecoder, 4 KiB chunks", "MsgpackFrameDecoder, whole"),
        "frames 4 KiB chunks vs the same events as one msgpack array, one decode_events call (info)": (
            "MsgpackFrameDecoder, 4 KiB chunks", "wire.msgpack.decode_events, one array"),
        "frames 4 KiB chunks vs decode_event per frame, frames pre-cut (info)": (
            "MsgpackFrameDecoder, 4 KiB chunks", per_frame),
        "frames vs NDJSON, both 4 KiB chunks (info)": ("MsgpackFrameDecoder, 4 KiB chunks",
                                                      "NDJSONDecoder, 4 KiB chunks"),
    }, rounds=15)


@pytest.mark.benchmark(group="streaming: targets")
@pytest.mark.parametrize("framing", ["NDJSON", "SSE, wire format (ids)", "MessagePack frames"])
def test_target_small_chunks(benchmark: Any, reply: Reply, framing: str) -> None:
    """64 B against 64 KiB chunks of the same bytes: the ratio is the cost per byte."""
    data, make = _streams(reply)[framing]
    cases = {"64 B chunks": (_decode(make), _chunks(data, 64)),
             "64 KiB chunks": (_decode(make), _chunks(data, 64 * KIB))}
    ratios = _target(benchmark, reply, cases, {"64 KiB vs 64 B, time per byte (<= 4)": (
        "64 KiB chunks", "64 B chunks")}, rounds=7)
    # stored as speed like the others; the target reads as a cost ratio
    benchmark.extra_info["ratios"] = {"64 B / 64 KiB time per byte (<= 4)": next(iter(ratios.values()))}
