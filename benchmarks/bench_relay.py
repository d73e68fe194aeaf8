"""A relay that routes NDJSON frames by reply id, raw against decoded.

Both relays read the stream in 4 KiB chunks and do the same per chunk: feed
the decoder, group what it returns by reply id (a dict of lists, one Python
step per item), and write each reply's group with ``NDJSONEncoder.encode_batch``.
They differ only in what the decoder returns and what the encoder writes:

* raw: ``NDJSONDecoder(raw=True, peek=True, unknown="keep")``, routed by
  ``frame.envelope.reply_id``; the encoder joins the payloads.
* decoded: ``NDJSONDecoder()``, routed by ``event.reply_id``; msgspec
  re-encodes every event.

Workloads: the 24,800-event benchmark reply (7.2 MB, one reply id: one group
per chunk), and four replies at a quarter of its size (seeds 0-3, 24,908
events, 7.2 MB) with their own reply ids, interleaved event by event at random
(about four groups per chunk). The relays' outputs are checked equal.

Target: the raw relay >= 3x as fast as the decoded one. The same
run times where the raw relay's time goes: its decoder with and without the
peek, and the full decoder, alone; and the floor of any relay that forwards
frames it has checked, a bare loop that splits the chunks into lines (a bytes
object per frame, which the frames' payloads are) and peeks each line (the
check and the reply id), with no frames, routing or writing. The decoded
relay against that floor is the most a raw relay could gain (``(info)``).
``test_target_peek`` compares a whole-stream peek with a whole-stream decode.

Run: ``.venv/bin/python -m pytest benchmarks/bench_relay.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import Any

import msgspec
import pytest

import wire
from benchmarks.conftest import Reply, interleaved, split_lines_and_decode
from benchmarks.workload import reply_events
from wire.framing import NDJSONDecoder, NDJSONEncoder
from wire.peek import _json_decoder, peek_json_lines

CHUNK = 4 * 1024


def _chunks(data: bytes) -> list[bytes]:
    return [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]


@cache
def _four_replies() -> list[wire.AgentEvent]:
    """Four quarter-size replies with their own reply ids, merged at random
    (each keeps its order), as a relay between agents and clients sees them."""
    rng = random.Random(7)
    queues = [[msgspec.structs.replace(e, reply_id=f"reply-{seed}") for e in reply_events(seed=seed, scale=0.25)]
              for seed in range(4)]
    for queue in queues:
        queue.reverse()  # pop() from the end
    merged = []
    while any(queues):
        merged.append(rng.choice([q for q in queues if q]).pop())
    return merged


def _stream(reply: Reply, workload: str) -> tuple[bytes, int]:
    """The workload as NDJSON, and its number of events."""
    events = reply.events if workload == "1 reply" else _four_replies()
    return NDJSONEncoder().encode_batch(events), len(events)


def _relay(make_decoder: Callable[[], Any],
           key: Callable[[Any], Any]) -> Callable[[list[bytes]], dict[Any, list[bytes]]]:
    """A relay over ``chunks``: what it writes to each reply's subscriber."""

    def relay(chunks: list[bytes]) -> dict[Any, list[bytes]]:
        decoder = make_decoder()
        encoder = NDJSONEncoder()
        written: dict[Any, list[bytes]] = defaultdict(list)
        for chunk in chunks:
            routes = defaultdict(list)
            for item in decoder.feed(chunk):
                routes[key(item)].append(item)
            for reply_id, items in routes.items():
                written[reply_id].append(encoder.encode_batch(items))
        decoder.close()
        return written

    return relay


def _raw_decoder() -> NDJSONDecoder[Any]:
    return NDJSONDecoder(raw=True, peek=True, unknown="keep")


RAW_RELAY = _relay(_raw_decoder, attrgetter("envelope.reply_id"))
DECODED_RELAY = _relay(NDJSONDecoder, attrgetter("reply_id"))


def _split_and_peek(chunks: list[bytes]) -> int:
    """The floor: each chunk's complete lines as bytes, each peeked; nothing
    else (no frames, no checks of the framing, no routing, no writing)."""
    return split_lines_and_decode(chunks, _json_decoder.decode)


def _feed(make_decoder: Callable[[], Any]) -> Callable[[list[bytes]], int]:
    def feed(chunks: list[bytes]) -> int:
        decoder = make_decoder()
        return sum(len(decoder.feed(chunk)) for chunk in chunks) + len(decoder.close())
    return feed


@pytest.mark.benchmark(group="relay: targets")
@pytest.mark.parametrize("workload", ["1 reply", "4 interleaved replies"])
def test_target_relay(benchmark: Any, reply: Reply, workload: str) -> None:
    data, n = _stream(reply, workload)
    chunks = _chunks(data)
    raw, decoded = RAW_RELAY(chunks), DECODED_RELAY(chunks)
    assert {k: b"".join(v) for k, v in raw.items()} == {k: b"".join(v) for k, v in decoded.items()}
    assert sum(map(len, raw.values())) >= len(chunks) * (1 if workload == "1 reply" else 3) // 2
    del raw, decoded
    cases: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
        "raw relay (peek, route, join)": (RAW_RELAY, lambda: (chunks,)),
        "decoded relay (decode, route, re-encode)": (DECODED_RELAY, lambda: (chunks,)),
        "raw decoder with peek, alone": (_feed(_raw_decoder), lambda: (chunks,)),
        "raw decoder without peek, alone": (_feed(lambda: NDJSONDecoder(raw=True)), lambda: (chunks,)),
        "full decoder, alone": (_feed(NDJSONDecoder), lambda: (chunks,)),
        "floor: split into lines and peek each, nothing else": (_split_and_peek, lambda: (chunks,)),
    }
    medians = interleaved(benchmark, cases, rounds=15, events=dict.fromkeys(cases, n))
    benchmark.extra_info["ratios"] = {
        f"raw relay vs decoded relay, 4 KiB chunks, {workload} (>= 3)":
            medians["decoded relay (decode, route, re-encode)"] / medians["raw relay (peek, route, join)"],
        f"raw decoder with peek vs full decoder, 4 KiB chunks, {workload} (info)":
            medians["full decoder, alone"] / medians["raw decoder with peek, alone"],
        f"decoded relay vs the floor (split and peek only), {workload} (info)":
            medians["decoded relay (decode, route, re-encode)"]
            / medians["floor: split into lines and peek each, nothing else"],
    }


@pytest.mark.benchmark(group="relay: targets")
def test_target_peek(benchmark: Any, reply: Reply) -> None:
    """The whole 24,800-event reply peeked against fully decoded, one buffer each."""
    data = reply.ndjson
    cases: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
        "peek_json_lines, whole stream": (peek_json_lines, lambda: (data,)),
        "decode_events, whole stream": (wire.json.decode_events, lambda: (data,)),
    }
    medians = interleaved(benchmark, cases, rounds=21, events=dict.fromkeys(cases, reply.n))
    benchmark.extra_info["ratios"] = {
        "peek_json_lines vs decode_events, whole stream (info)":
            medians["decode_events, whole stream"] / medians["peek_json_lines, whole stream"],
    }
