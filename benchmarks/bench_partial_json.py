"""A streaming tool call's input shown after every delta, in Python.

``partial-json``: 4,000 one-character deltas of a 4,000-character tool call
input, the value read after each: ``wire.partial_json.PartialJSON`` (each
character parsed once) against ``json.loads`` of the whole buffer per delta,
the least a re-parsing view pays (it does not even close what is open, so
most of its calls fail: a floor, not a usable view). The TypeScript side of
the same measurement is benchmarks/ts/partial.mjs.

Run: ``.venv/bin/python -m pytest benchmarks/bench_partial_json.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.conftest import run
from wire.partial_json import PartialJSON


def arguments_text(length: int) -> str:
    """Arguments of exactly ``length`` characters: a path, a list, and a long string streamed last."""
    head, tail = '{"path": "src/report.md", "lines": [12, 48, 96], "content": "', '"}'
    words = 'the quick brown fox jumps over the lazy dog; \\"quoted\\" and a newline\\n '
    body = (words * (length // len(words) + 1))[:length - len(head) - len(tail)]
    if body.endswith("\\") and not body.endswith("\\\\"):
        body = body[:-1] + "x"
    return head + body + tail


TEXT = arguments_text(4000)
DELTAS = list(TEXT)


def partial_view(deltas: list[str]) -> Any:
    view = PartialJSON()
    for delta in deltas:
        view.feed(delta)
        view.value  # noqa: B018  # the read is what a renderer does after every delta
    return view.close()


def reparse_floor(deltas: list[str]) -> Any:
    buffer = ""
    value = None
    for delta in deltas:
        buffer += delta
        with contextlib.suppress(ValueError):
            value = json.loads(buffer)
    return value


CASES: dict[str, Callable[[list[str]], Any]] = {"PartialJSON": partial_view, "json.loads per delta": reparse_floor}


@pytest.mark.parametrize("case", list(CASES))
def test_partial_json(benchmark: Any, case: str) -> None:
    result = run(benchmark, CASES[case], (DELTAS,), rounds=15, events=len(DELTAS), nbytes=len(TEXT))
    assert result == json.loads(TEXT)
