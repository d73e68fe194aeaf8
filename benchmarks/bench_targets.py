"""The target ratios of the codecs and the reducer, each measured round-robin.

bench_codecs.py and bench_reducer.py time every case on its own, one case
after another, which gives the detailed tables; on a shared machine a burst of
load during one case skews any ratio taken between cases. Here the cases a
target compares run interleaved (A B, then B A, ...), and ``report.py`` takes
the target ratios from these medians. The encode targets, each pair writing
the same bytes, are in bench_gaps.py.

* decode: wire.json ``decode_events`` >= 5x pydantic (per line, and as an array);
* growth: ``extend_events`` time per delta flat (the 100k text run within 12x the 10k run);
* reply: wire's reducer >= 100x agentscope's ``append_event``;
* NDJSON to a finished Msg within 1.5x of bare ``decode_lines``;
* a reader's loops, bytes arriving in 64 KiB chunks: ``NDJSONDecoder.feed``
  then ``append_event`` per event (the loop the README teaches) within 1.3x
  of bare ``decode_lines`` over the whole buffer, and ``feed`` then
  ``extend_events`` (the batch path) within 1.0x; on wire's NDJSON of the
  reply and on the same reply as agentscope writes it (every key). The bare
  decode's events outlive its timing (freed after the clock stops), where
  the loops free theirs inside it (``_json_to_msg`` returns its events, so
  the whole-buffer target frees neither); the same bare decode with its
  events freed inside the timing is the loops' like-for-like floor, shown
  beside it.

Run: ``.venv/bin/python -m pytest benchmarks/bench_targets.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import wire
from benchmarks import pydantic_models, workload
from benchmarks.bench_codecs import _per_item
from benchmarks.bench_reducer import _data_events, _extend, _json_to_msg, _text_events, _wire_reduce
from benchmarks.conftest import Prepared, Reply, agentscope_msg, agentscope_reduce, interleaved
from wire.events import AgentEvent
from wire.framing import NDJSONDecoder


def _same(n: int, names: list[str]) -> dict[str, int]:
    return dict.fromkeys(names, n)


@pytest.mark.benchmark(group="targets")
def test_target_decode(benchmark: Any, reply: Reply) -> None:
    lines, array, ndjson = reply.lines, reply.json_array, reply.ndjson
    cases: dict[str, Prepared] = {
        "wire.json decode_events": (wire.json.decode_events, lambda: (ndjson,)),
        "pydantic validate_json per line": (
            _per_item(pydantic_models.EventAdapter.validate_json), lambda: (lines,)),
        "pydantic validate_json array": (pydantic_models.EventListAdapter.validate_json, lambda: (array,)),
    }
    interleaved(benchmark, cases, rounds=11, events=_same(reply.n, list(cases)))


# Growth times ``extend_events`` alone, the reducer's cost per delta; joining the
# parts into one str or bytes afterwards is one copy of the result, timed in
# bench_reducer.py ("+ read"). Sizes run in adjacent pairs: interleaving a 10k
# round with a 1M one would make the 10k round pay page faults for the memory
# the 1M round gave back.


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("sizes", [(10_000, 100_000), (100_000, 1_000_000)], ids=["10k-100k", "100k-1M"])
def test_target_text_growth(benchmark: Any, sizes: tuple[int, int]) -> None:
    cases = {f"text {n}": (_extend, lambda n=n: (workload.initial_msg(), _text_events(n)))
             for n in sizes}
    interleaved(benchmark, cases, rounds=7 if sizes[1] < 10**6 else 3,
                events={f"text {n}": n for n in sizes})


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("sizes", [(64, 512), (512, 4_096)], ids=["64-512", "512-4096"])
def test_target_data_growth(benchmark: Any, sizes: tuple[int, int]) -> None:
    cases = {f"data {n}": (_extend, lambda n=n: (workload.initial_msg(), _data_events(n)))
             for n in sizes}
    interleaved(benchmark, cases, rounds=9, events={f"data {n}": n for n in sizes})


@pytest.mark.benchmark(group="targets")
def test_target_reply(benchmark: Any, reply: Reply) -> None:
    events, as_events = reply.events, reply.agentscope
    cases = {
        "wire extend_events": (_wire_reduce, lambda: (workload.initial_msg(), events)),
        "agentscope append_event": (agentscope_reduce, lambda: (agentscope_msg(), as_events)),
    }
    interleaved(benchmark, cases, rounds=5, events=_same(reply.n, list(cases)))


_bare = msgspec.json.Decoder(AgentEvent)


def _bare_freed(data: bytes) -> None:
    """Bare ``decode_lines`` whose events are freed before the clock stops,
    as a reader loop's events are (each dies once applied): the same work
    the loops do to their events, without the Msg."""
    events = _bare.decode_lines(data)
    del events


@pytest.mark.benchmark(group="targets")
def test_target_bytes_to_msg(benchmark: Any, reply: Reply) -> None:
    ndjson = reply.ndjson
    cases: dict[str, Prepared] = {
        "wire decode_events + extend_events": (_json_to_msg, lambda: (workload.initial_msg(), ndjson)),
        "msgspec decode_lines (bare)": (_bare.decode_lines, lambda: (ndjson,)),
    }
    interleaved(benchmark, cases, rounds=31, events=_same(reply.n, list(cases)))


_CHUNK = 64 * 1024


def _loop(msg: wire.Msg, chunks: list[bytes]) -> wire.Msg:
    decoder = NDJSONDecoder()
    append = msg.append_event
    for chunk in chunks:
        for event in decoder.feed(chunk):
            append(event)
    for event in decoder.close():
        append(event)
    return msg


def _batch(msg: wire.Msg, chunks: list[bytes]) -> wire.Msg:
    decoder = NDJSONDecoder()
    for chunk in chunks:
        msg.extend_events(decoder.feed(chunk))
    return msg.extend_events(decoder.close())


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("writer", ["wire", "agentscope"])
def test_target_reader_loops(benchmark: Any, reply: Reply, writer: str) -> None:
    data = reply.ndjson if writer == "wire" else reply.agentscope_ndjson
    chunks = [data[at:at + _CHUNK] for at in range(0, len(data), _CHUNK)]
    want = _json_to_msg(workload.initial_msg(), reply.ndjson)[0]
    assert _loop(workload.initial_msg(), chunks) == want == _batch(workload.initial_msg(), chunks)
    cases: dict[str, Prepared] = {
        "feed + append_event per event": (_loop, lambda: (workload.initial_msg(), chunks)),
        "feed + extend_events": (_batch, lambda: (workload.initial_msg(), chunks)),
        "msgspec decode_lines (bare)": (_bare.decode_lines, lambda: (data,)),
        "msgspec decode_lines (bare), events freed": (_bare_freed, lambda: (data,)),
    }
    interleaved(benchmark, cases, rounds=31, events=_same(reply.n, list(cases)))
