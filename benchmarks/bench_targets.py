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
  beside it;
* the same two whole-reply targets on the reply with padded data chunks
  (``workload.reply_events(padded=True)``), as audio arrives from model APIs.

Each target's cases are made by a function of ``TARGETS`` (test id -> cases,
rounds), which ``benchmarks/plain_targets.py`` also times in a plain loop,
without pytest or this harness, so the README can show both.

Run: ``.venv/bin/python -m pytest benchmarks/bench_targets.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

from collections.abc import Callable
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


# A target's cases: (the cases, rounds, events per case), from a getter of the
# reply (``get(padded)``: the workload reply, or the one with padded chunks).
Cases = tuple[dict[str, Prepared], int, dict[str, int]]
GetReply = Callable[[bool], Reply]


def decode_cases(get: GetReply) -> Cases:
    reply = get(False)
    lines, array, ndjson = reply.lines, reply.json_array, reply.ndjson
    cases: dict[str, Prepared] = {
        "wire.json decode_events": (wire.json.decode_events, lambda: (ndjson,)),
        "pydantic validate_json per line": (
            _per_item(pydantic_models.EventAdapter.validate_json), lambda: (lines,)),
        "pydantic validate_json array": (pydantic_models.EventListAdapter.validate_json, lambda: (array,)),
    }
    return cases, 11, _same(reply.n, list(cases))


# Growth times ``extend_events`` alone, the reducer's cost per delta; joining the
# parts into one str or bytes afterwards is one copy of the result, timed in
# bench_reducer.py ("+ read"). Sizes run in adjacent pairs: interleaving a 10k
# round with a 1M one would make the 10k round pay page faults for the memory
# the 1M round gave back.


def _args(events: Callable[[int], list[AgentEvent]], n: int) -> Callable[[], tuple[Any, ...]]:
    return lambda: (workload.initial_msg(), events(n))


def text_growth_cases(sizes: tuple[int, int]) -> Callable[[GetReply], Cases]:
    def make(get: GetReply) -> Cases:
        cases: dict[str, Prepared] = {f"text {n}": (_extend, _args(_text_events, n)) for n in sizes}
        return cases, 7 if sizes[1] < 10**6 else 3, {f"text {n}": n for n in sizes}
    return make


def data_growth_cases(sizes: tuple[int, int]) -> Callable[[GetReply], Cases]:
    def make(get: GetReply) -> Cases:
        cases: dict[str, Prepared] = {f"data {n}": (_extend, _args(_data_events, n)) for n in sizes}
        return cases, 9, {f"data {n}": n for n in sizes}
    return make


def reply_cases(get: GetReply) -> Cases:
    reply = get(False)
    events, as_events = reply.events, reply.agentscope
    cases: dict[str, Prepared] = {
        "wire extend_events": (_wire_reduce, lambda: (workload.initial_msg(), events)),
        "agentscope append_event": (agentscope_reduce, lambda: (agentscope_msg(), as_events)),
    }
    return cases, 5, _same(reply.n, list(cases))


_bare = msgspec.json.Decoder(AgentEvent)


def _bare_freed(data: bytes) -> None:
    """Bare ``decode_lines`` whose events are freed before the clock stops,
    as a reader loop's events are (each dies once applied): the same work
    the loops do to their events, without the Msg."""
    events = _bare.decode_lines(data)
    del events


def bytes_to_msg_cases(padded: bool) -> Callable[[GetReply], Cases]:
    def make(get: GetReply) -> Cases:
        reply = get(padded)
        ndjson = reply.ndjson
        cases: dict[str, Prepared] = {
            "wire decode_events + extend_events": (_json_to_msg, lambda: (workload.initial_msg(), ndjson)),
            "msgspec decode_lines (bare)": (_bare.decode_lines, lambda: (ndjson,)),
        }
        return cases, 31, _same(reply.n, list(cases))
    return make


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


def reader_loop_cases(writer: str) -> Callable[[GetReply], Cases]:
    """``writer``: "wire" (wire's NDJSON), "agentscope" (the same reply as
    agentscope writes it) or "wire, padded chunks"."""
    def make(get: GetReply) -> Cases:
        reply = get(writer.endswith("padded chunks"))
        data = reply.agentscope_ndjson if writer == "agentscope" else reply.ndjson
        chunks = [data[at:at + _CHUNK] for at in range(0, len(data), _CHUNK)]
        want = _json_to_msg(workload.initial_msg(), reply.ndjson)[0]
        assert _loop(workload.initial_msg(), chunks) == want == _batch(workload.initial_msg(), chunks)
        cases: dict[str, Prepared] = {
            "feed + append_event per event": (_loop, lambda: (workload.initial_msg(), chunks)),
            "feed + extend_events": (_batch, lambda: (workload.initial_msg(), chunks)),
            "msgspec decode_lines (bare)": (_bare.decode_lines, lambda: (data,)),
            "msgspec decode_lines (bare), events freed": (_bare_freed, lambda: (data,)),
        }
        return cases, 31, _same(reply.n, list(cases))
    return make


READERS = ("wire", "agentscope", "wire, padded chunks")
TARGETS: dict[str, Callable[[GetReply], Cases]] = {
    "test_target_decode": decode_cases,
    "test_target_text_growth[10k-100k]": text_growth_cases((10_000, 100_000)),
    "test_target_text_growth[100k-1M]": text_growth_cases((100_000, 1_000_000)),
    "test_target_data_growth[64-512]": data_growth_cases((64, 512)),
    "test_target_data_growth[512-4096]": data_growth_cases((512, 4_096)),
    "test_target_reply": reply_cases,
    "test_target_bytes_to_msg[reply]": bytes_to_msg_cases(False),
    "test_target_bytes_to_msg[padded chunks]": bytes_to_msg_cases(True),
    **{f"test_target_reader_loops[{w}]": reader_loop_cases(w) for w in READERS},
}
"""Test id -> its cases; the tests below run each through ``interleaved``."""


def _run(benchmark: Any, request: Any, test_id: str) -> None:
    def get(padded: bool) -> Reply:
        reply: Reply = request.getfixturevalue("padded_reply" if padded else "reply")
        return reply

    cases, rounds, events = TARGETS[test_id](get)
    interleaved(benchmark, cases, rounds=rounds, events=events)


@pytest.mark.benchmark(group="targets")
def test_target_decode(benchmark: Any, request: Any) -> None:
    _run(benchmark, request, "test_target_decode")


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("sizes", ["10k-100k", "100k-1M"])
def test_target_text_growth(benchmark: Any, request: Any, sizes: str) -> None:
    _run(benchmark, request, f"test_target_text_growth[{sizes}]")


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("sizes", ["64-512", "512-4096"])
def test_target_data_growth(benchmark: Any, request: Any, sizes: str) -> None:
    _run(benchmark, request, f"test_target_data_growth[{sizes}]")


@pytest.mark.benchmark(group="targets")
def test_target_reply(benchmark: Any, request: Any) -> None:
    _run(benchmark, request, "test_target_reply")


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("workload_", ["reply", "padded chunks"])
def test_target_bytes_to_msg(benchmark: Any, request: Any, workload_: str) -> None:
    _run(benchmark, request, f"test_target_bytes_to_msg[{workload_}]")


@pytest.mark.benchmark(group="targets")
@pytest.mark.parametrize("writer", READERS)
def test_target_reader_loops(benchmark: Any, request: Any, writer: str) -> None:
    _run(benchmark, request, f"test_target_reader_loops[{writer}]")
