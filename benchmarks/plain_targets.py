"""The functions of bench_targets.py's target cases, timed in a plain loop.

No pytest, no pytest-benchmark, no ``conftest.interleaved``: for each target
(``bench_targets.TARGETS``) its cases run round-robin (A B C, then C B A),
each call with ``gc.collect()`` before it and its result and arguments freed
after the timer, for 15 rounds after one warm-up round; the medians are the
figures. ``benchmarks/report.py`` runs this after the pytest suite and shows
each target from both beside each other in benchmarks/README.md: where the
harness adds something of its own, the two disagree.

    .venv/bin/python -m benchmarks.plain_targets [--rounds 15] [--json FILE] [test id ...]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import bench_targets
from benchmarks.conftest import Reply, minor_faults


def time_cases(cases: dict[str, Any], rounds: int) -> tuple[dict[str, float], dict[str, float]]:
    """(name -> median seconds of ``fn(*make())``, name -> median minor page
    faults of a call), round-robin."""
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    faults: dict[str, list[int]] = {name: [] for name in names}
    for turn in range(rounds + 1):  # turn 0 warms up
        for name in names if turn % 2 == 0 else names[::-1]:
            fn, make = cases[name]
            args = make()
            gc.collect()
            f0 = minor_faults()
            t0 = time.perf_counter()
            result = fn(*args)
            t1 = time.perf_counter()
            f1 = minor_faults()
            del result, args
            if turn:
                times[name].append(t1 - t0)
                faults[name].append(f1 - f0)
    return ({name: statistics.median(values) for name, values in times.items()},
            {name: statistics.median(values) for name, values in faults.items()})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tests", nargs="*", help="test ids of bench_targets.TARGETS (default: all)")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--json", type=Path, help="write {test id: {case: median seconds}} here, and the page "
                   "faults as {\"faults\": {test id: {case: median}}}")
    args = p.parse_args(argv)
    replies: dict[bool, Reply] = {}

    def get(padded: bool) -> Reply:
        if padded not in replies:
            replies[padded] = Reply(padded=padded)
        return replies[padded]

    out: dict[str, dict[str, Any]] = {"faults": {}}
    for test_id in args.tests or list(bench_targets.TARGETS):
        cases, _, _ = bench_targets.TARGETS[test_id](get)
        out[test_id], out["faults"][test_id] = medians, _ = time_cases(cases, args.rounds)
        print(test_id, {name: f"{m * 1e3:.2f} ms" for name, m in medians.items()}, file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
