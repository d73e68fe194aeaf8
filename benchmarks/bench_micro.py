"""The small measurements that comments in ``wire/`` cite ("benchmarks/README.md").

Each justifies a choice in a hot path by timing one statement against the
obvious alternative: ``timeit``, the median of 7 repeats of an automatically
sized loop, per call, stored in ``extra_info["micro"]`` (the pytest-benchmark
time of each case is the whole measurement, not a figure to read).

Run: ``.venv/bin/python -m pytest benchmarks/bench_micro.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import statistics
import struct
import timeit
from typing import Any

import pytest

from wire.blocks import TextBlock

_CHUNK = bytes(range(32, 96))  # 64 bytes, no LF, no CR: the whole chunk is searched
_LINES = [b'{"type":"TEXT_BLOCK_DELTA","delta":"%d"}' % i for i in range(1000)]
_P = struct.Struct(">I")
_BUF = bytearray(64)
_BLOCK = TextBlock(text="hello")

# where (the comment that cites it) -> (what, (statement, alternative))
MICRO: dict[str, tuple[str, tuple[str, str]]] = {
    "framing/ndjson.py: search a 64-byte chunk for LF": (
        "an int operand against a bytes one", ("10 in chunk", 'b"\\n" in chunk')),
    "framing/sse.py: search a 64-byte chunk for CR": (
        "an int operand against a bytes one", ("13 in chunk", 'b"\\r" in chunk')),
    "framing/lengthprefix.py: write a frame's length prefix": (
        "pack_into against slice assignment", ("P.pack_into(buf, 0, 1234)", "buf[0:4] = P.pack(1234)")),
    "framing/ndjson.py: is any of 1,000 lines blank": (
        "min against all(strip)", ('min(lines)[:1] > b" "', "all(line.strip() for line in lines)")),
    "reducer.py: read a block's text": (
        "attribute by name against the field's descriptor",
        ("block.text", "TextBlock.text.__get__(block, TextBlock)")),
}
_GLOBALS = {"chunk": _CHUNK, "lines": _LINES, "P": _P, "buf": _BUF, "block": _BLOCK, "TextBlock": TextBlock}


def outcome(statement: str) -> tuple[Any, bytes]:
    """What a statement gives (an expression's value) or does (to ``buf``)."""
    scope = dict(_GLOBALS, buf=bytearray(64))
    value: Any = None
    try:
        value = eval(statement, scope)
    except SyntaxError:  # an assignment
        exec(statement, scope)
    buf = scope["buf"]
    assert isinstance(buf, bytearray)
    return value, bytes(buf)


def per_call(statement: str) -> float:
    timer = timeit.Timer(statement, globals=_GLOBALS)
    number, _ = timer.autorange()
    return statistics.median(timer.repeat(repeat=7, number=number)) / number


@pytest.mark.benchmark(group="micro (figures in extra_info)")
@pytest.mark.parametrize("where", list(MICRO))
def test_micro(benchmark: Any, where: str) -> None:
    what, (statement, alternative) = MICRO[where]
    assert outcome(statement) == outcome(alternative)  # the same answer, or the same bytes written
    result: dict[str, float] = {}

    def measure() -> None:
        result.update(statement=per_call(statement), alternative=per_call(alternative))

    benchmark.pedantic(measure, rounds=1, iterations=1)
    benchmark.extra_info["micro"] = {"what": what, "statement": statement, "alternative": alternative,
                                     "statement_s": result["statement"], "alternative_s": result["alternative"]}
