"""Shared benchmark fixtures: the workload in every form, built once, outside the timers.

Every case runs through :func:`run`, which uses ``benchmark.pedantic`` with
one call per round so that the value a case returns is freed after the timer
stops and before the next call (pytest-benchmark's calibrated loop would free
it inside the next timed call, and pedantic alone keeps it through the next
call), and records what the report needs to compute events/s and MB/s.
Before each case, the objects alive so far are collected and frozen
(``gc.freeze``), so that garbage collections are paid by the case that
allocates, not by whoever runs next to a large fixture.
``WIRE_BENCH_ROUNDS=0.5`` (or 2, ...) scales every case's round count.
"""

from __future__ import annotations

import gc
import logging
import os
import resource
import statistics
import time
from collections.abc import Callable, Mapping
from functools import cached_property
from importlib import metadata
from typing import Any

import orjson
import pytest

from benchmarks import pydantic_models, workload

ROUNDS_SCALE = float(os.environ.get("WIRE_BENCH_ROUNDS", "1"))

# agentscope warns through the "as" logger about skipped events; a well-formed
# stream has none, and a handler writing lines would distort the timings.
logging.getLogger("as").setLevel(logging.ERROR)


def run(benchmark: Any, fn: Callable[..., Any], args: tuple[Any, ...] = (), *,
        setup: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
        rounds: int, events: int, nbytes: int | None = None, **info: Any) -> Any:
    """Time ``fn(*args)`` (or ``fn(*setup()...)``) for ``rounds`` rounds after one
    warm-up round, and store events/s and MB/s beside the stats."""
    rounds = max(2, round(rounds * ROUNDS_SCALE))
    # The session holds the workload in many forms (pydantic models, dicts...):
    # hundreds of thousands of GC-tracked objects. Freeze them so the collections a
    # case triggers scan only what the case itself allocates, whichever case runs.
    gc.collect()
    gc.freeze()
    benchmark.extra_info.update(info, events=events)
    if nbytes is not None:
        benchmark.extra_info["bytes"] = nbytes
    # pytest-benchmark keeps a round's result until the next round's call has
    # returned, so each call would run beside the previous one's result: the
    # result goes to ``held`` instead, and the teardown (after the timer)
    # frees it, keeping only the last round's for the caller.
    held: list[Any] = []
    last: list[Any] = []
    calls = [0]

    def timed(*a: Any, **k: Any) -> None:
        held.append(fn(*a, **k))

    def drop(*a: Any, **k: Any) -> None:
        calls[0] += 1
        if calls[0] == rounds + 1:  # the warm-up round, then ``rounds``
            last.extend(held)
        held.clear()

    try:
        if setup is not None:
            benchmark.pedantic(timed, setup=setup, teardown=drop, rounds=rounds, warmup_rounds=1)
        else:
            benchmark.pedantic(timed, args=args, teardown=drop, rounds=rounds, warmup_rounds=1, iterations=1)
    finally:
        gc.unfreeze()  # frozen objects are invisible to gc.get_referrers, which plugins use
    result = (last or held or [None])[-1]
    if benchmark.stats is None:  # --benchmark-disable: the case ran once, untimed
        return result
    median = benchmark.stats.stats.median
    benchmark.extra_info["events_per_s"] = events / median
    benchmark.extra_info["ns_per_event"] = median / events * 1e9
    if nbytes is not None:
        benchmark.extra_info["mb_per_s"] = nbytes / median / 1e6
    return result


def split_lines_and_decode(chunks: list[bytes], decode: Callable[[bytes], Any]) -> int:
    """The least an exact line decoder must do: cut each chunk's complete
    lines out (the first one joined with what the chunks before left) and
    decode each on its own. No offsets, limits, blank lines or errors: a
    floor to compare the real decoders with. Returns the number of lines."""
    parts: list[bytes] = []
    n = 0
    for chunk in chunks:
        if 10 not in chunk:
            parts.append(chunk)
            continue
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if parts:
            parts.append(lines[0])
            lines[0] = b"".join(parts)
            parts.clear()
        if tail:
            parts.append(tail)
        n += len(list(map(decode, lines)))
    return n


def decode_lines_per_chunk(chunks: list[bytes], decode_lines: Callable[[bytes], list[Any]]) -> int:
    """One ``decode_lines`` call per chunk over its complete lines (a
    batch splitter). Not exact: ``decode_lines``
    reads whitespace-separated values, so two events on one line, or one
    spread over two lines, decode or fail depending on where chunks end.
    What giving up exactness would buy. Returns the number of events."""
    parts: list[bytes] = []
    n = 0
    for chunk in chunks:
        end = chunk.rfind(10) + 1
        if not end:
            parts.append(chunk)
            continue
        if parts:
            parts.append(chunk[:end])
            n += len(decode_lines(b"".join(parts)))
            parts.clear()
        else:
            n += len(decode_lines(chunk[:end]))
        if end < len(chunk):
            parts.append(chunk[end:])
    return n


Prepared = tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]  # (fn, make its args)


def minor_faults() -> int:
    """The process's minor page faults so far: a call that needs fresh memory
    pays one per 4 KiB page, which is most of what separates a case run in a
    process whose earlier work left freed memory mapped from the same case
    in a fresh one (benchmarks/README.md, Method)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def interleaved(benchmark: Any, cases: Mapping[str, Prepared], *, rounds: int,
                events: dict[str, int]) -> dict[str, float]:
    """Time several cases round-robin (A B C, then C B A, ...) and return the
    median of each; a burst of noise on the shared machine then lands on every
    case alike instead of on whichever ran during it. pytest-benchmark records
    the time of a whole round; the per-case medians and counts go in
    ``extra_info``, where ``report.py`` reads the target ratios from.

    Each call starts from the same state, whatever ran before it: its
    arguments are made just before it, garbage is collected, and after the
    timer both its result and its arguments are freed. Arguments made for a
    whole round at once (as this function did until issue 30) keep every
    case's filled Msg alive until the round ends; the memory those Msgs pin
    lets the next case's allocations skip the page faults they would
    otherwise pay (bare ``decode_lines`` then took a third of the page
    faults, 966 against 3,057, and 20 % less time), which moved the reader
    targets' ratios by 0.3-0.4x.
    ``benchmarks/plain_targets.py`` times the same functions without this
    harness, and the README shows both."""
    rounds = max(3, round(rounds * ROUNDS_SCALE))
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    faults: dict[str, list[int]] = {name: [] for name in names}
    turn = [0]

    def order() -> tuple[tuple[list[str]], dict[str, Any]]:
        turn[0] += 1
        return ((names if turn[0] % 2 else names[::-1]),), {}

    def one_round(ordered: list[str]) -> None:
        for name in ordered:
            fn, make = cases[name]
            args = make()
            gc.collect()
            f0 = minor_faults()
            t0 = time.perf_counter()
            result = fn(*args)
            t1 = time.perf_counter()
            faults[name].append(minor_faults() - f0)
            del result, args  # freed between timings, not inside one
            times[name].append(t1 - t0)

    gc.collect()
    gc.freeze()
    try:
        benchmark.pedantic(one_round, setup=order, rounds=rounds, warmup_rounds=1)
    finally:
        gc.unfreeze()
    # ts[0] is the warm-up round (the only round under --benchmark-disable)
    medians = {name: statistics.median(ts[1:] or ts) for name, ts in times.items()}
    benchmark.extra_info.update(medians=medians, events=events,
                                faults={n: statistics.median(f[1:] or f) for n, f in faults.items()},
                                ns_per_event={n: medians[n] / events[n] * 1e9 for n in names})
    return medians


class Reply:
    """The 24,800-event reply and everything derived from it, built on first
    use; ``padded``: the same reply with padded data chunks (workload.py)."""

    def __init__(self, *, padded: bool = False) -> None:
        self.events = workload.reply_events(seed=0, padded=padded)
        self.n = len(self.events)

    @cached_property
    def ndjson(self) -> bytes:
        return workload.ndjson(self.events)

    @cached_property
    def agentscope_ndjson(self) -> bytes:
        """The reply as agentscope's app writes each event (``model_dump(mode="json")``,
        every key, defaults included), one per line: 1.6x wire's bytes."""
        from wire.stores.redis._dump import encode

        return b"".join(encode(event) + b"\n" for event in self.events)

    @cached_property
    def lines(self) -> list[bytes]:
        return self.ndjson.splitlines()

    @cached_property
    def lines_bytes(self) -> int:
        return sum(map(len, self.lines))

    @cached_property
    def json_array(self) -> bytes:
        return b"[" + b",".join(self.lines) + b"]"

    @cached_property
    def msgpack(self) -> bytes:
        return workload.msgpack_array(self.events)

    @cached_property
    def frames(self) -> list[bytes]:
        return workload.msgpack_frames(self.events)

    @cached_property
    def dicts(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.lines]

    @cached_property
    def pydantic(self) -> list[Any]:
        return pydantic_models.EventListAdapter.validate_json(self.json_array)

    @cached_property
    def agentscope_adapter(self) -> Any:
        return agentscope_adapter()

    @cached_property
    def agentscope(self) -> list[Any]:
        validate = self.agentscope_adapter.validate_json
        return [validate(line) for line in self.lines]


def agentscope_adapter() -> Any:
    """The discriminated TypeAdapter agentscope's protocol middleware uses."""
    pytest.importorskip("agentscope")
    from typing import Annotated

    from agentscope.event import AgentEvent
    from pydantic import Field, TypeAdapter

    return TypeAdapter(Annotated[AgentEvent, Field(discriminator="type")])


def agentscope_msg() -> Any:
    """The empty reply Msg, made as agentscope's service makes it."""
    from agentscope.message import AssistantMsg

    return AssistantMsg(id=workload.REPLY_ID, name=workload.AGENT_NAME, content=[])


def agentscope_reduce(msg: Any, events: list[Any]) -> Any:
    append = msg.append_event
    for event in events:
        append(event)
    return msg


@pytest.fixture(scope="session")
def reply() -> Reply:
    return Reply()


@pytest.fixture(scope="session")
def padded_reply() -> Reply:
    return Reply(padded=True)


def pytest_benchmark_update_machine_info(config: Any, machine_info: dict[str, Any]) -> None:
    versions: dict[str, str | None] = {"wire": metadata.version("wire")}
    for dist in ("msgspec", "orjson", "pydantic", "pydantic-core", "agentscope", "pytest-benchmark"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    machine_info["versions"] = versions
    machine_info["cpu_count_affinity"] = len(os.sched_getaffinity(0))


def pytest_collect_file(file_path: Any, parent: Any) -> Any:
    """Collect ``bench_*.py`` here (pytest's default pattern is ``test_*.py``)."""
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):  # named on the command line: pytest collects it
        return pytest.Module.from_parent(parent, path=file_path)
    return None
