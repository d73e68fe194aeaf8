"""Bytes of peak memory per byte of ``max_frame_bytes``, per
decoder and stream shape (the shapes are in ``benchmarks/memory.py``).

Each case reads its shape once under ``tracemalloc`` (a memory figure, not a
timing: one round) and stores ``peak_per_limit`` for 64 KiB chunks and for
the stream fed in one piece in ``extra_info``. Fed in one piece, a decoder
returns every event of the piece at once, so that column also counts the
decoded events, which grow with the piece, not with the limit.

Run: ``.venv/bin/python -m pytest benchmarks/bench_memory.py --benchmark-only -p no:cacheprovider``
or, for the Markdown table of ``benchmarks/results/memory.md``:
``.venv/bin/python -m benchmarks.bench_memory``.
"""

from __future__ import annotations

import platform
import sys
from typing import Any

import pytest

from benchmarks import memory

LIMIT = 256 * 1024


@pytest.mark.benchmark(group="memory (the figures are extra_info's peak_per_limit; the time is one read)")
@pytest.mark.parametrize(("framing", "shape"), memory.shapes(LIMIT))
def test_peak_per_limit(benchmark: Any, framing: str, shape: str) -> None:
    chunked = benchmark.pedantic(memory.peak, args=(framing, shape, LIMIT), rounds=1, iterations=1)
    benchmark.extra_info.update(limit=LIMIT, peak_per_limit=chunked / LIMIT,
                                peak_per_limit_one_piece=memory.peak(framing, shape, LIMIT, None) / LIMIT)


def main() -> None:
    print(f"Python {platform.python_version()} on {platform.machine()}; "
          f"{sys.argv[0]} (tracemalloc peaks above the decoder's starting point)\n")
    for limit in (64 * 1024, 256 * 1024, 4 * 1024 * 1024):
        print(f"#### max_frame_bytes = {limit // 1024:,} KiB\n")
        print(memory.table(limit))
        print()


if __name__ == "__main__":
    main()
