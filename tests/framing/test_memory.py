"""The decoders' memory against ``max_frame_bytes``, at a small limit as well
as the usual one: peak <= 4 x limit + a fixed term (``benchmarks/memory.py``:
the events one 64 KiB chunk decodes to, and the line objects of one split),
for every framing and every shape a peer can send, line ends alone included
(a split of 64 KiB of CRs used to cost 2.6 MB whatever the limit)."""

from __future__ import annotations

import pytest

from benchmarks import memory

LIMITS = [64 * 1024, 256 * 1024]


@pytest.mark.parametrize("limit", LIMITS, ids=["64KiB", "256KiB"])
@pytest.mark.parametrize(("framing", "shape"), memory.shapes(LIMITS[0]))
def test_peak_memory_is_four_times_the_limit_plus_a_fixed_term(framing: str, shape: str, limit: int) -> None:
    used = memory.peak(framing, shape, limit)
    assert used <= memory.bound(limit), f"{used / 1024:.0f} KiB: {(used - 4 * limit) / 1024:.0f} KiB over 4 x limit"


@pytest.mark.parametrize("end", [b"\r", b"\r\n", b"\n", b"\n\r"])
def test_a_stream_of_line_ends_costs_no_more_than_its_window(end: bytes) -> None:
    """The reproducer: 32 windows of 64 KiB of line ends, at a 256 KiB limit,
    peaked at 2.7 MB (10.5 x the limit) in the SSE decoder."""
    for framing in memory.FRAMINGS:
        if framing == "MessagePack frames":
            continue
        factory = memory.FRAMINGS[framing][0]
        window = end * (memory.CHUNK // len(end))
        used = memory.peak_of_chunks(factory, 256 * 1024, [window] * 32)
        # the limit (NDJSON reads CRs as one long line) and a few windows of lines
        assert used <= (256 + 128) * 1024, f"{framing}: {used / 1024:.0f} KiB"
