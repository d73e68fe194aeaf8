"""A streaming tool call's input shown after every delta, in Python.

``partial-json``: 4,000 one-character deltas of a 4,000-character tool call
input, the value read after each. Like for like (the same value after every
delta, checked before timing): ``wire.partial_json.PartialJSON`` (each
character parsed once) against re-parsing the whole buffer per delta, the
open strings and brackets closed and ``json.loads`` called, as re-parsing
clients do. For information only, ``json.loads`` of the raw buffer per
delta: it fails on almost every prefix and yields no value (a floor of
re-parsing, not a view). The TypeScript side of the same measurement is
benchmarks/ts/partial.mjs.

Run: ``.venv/bin/python -m pytest benchmarks/bench_partial_json.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.conftest import Prepared, interleaved
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


def repair_and_parse(buffer: str) -> Any:
    """Close what is open in a JSON prefix and parse it: a re-parsing
    client's view (the same repair as benchmarks/ts/partial.mjs)."""
    closers: list[str] = []
    in_string = escaped = False
    for c in buffer:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            closers.append("}" if c == "{" else "]")
        elif c in "}]":
            closers.pop()
    cut = len(buffer)
    if not in_string:  # a number at the very end may still grow (1 -> 12): leave it out
        j = cut
        while j > 0 and buffer[j - 1] in "0123456789+-.eE":
            j -= 1
        if j < cut and buffer[j] in "0123456789-":
            cut = j
    text = buffer[:cut]
    if in_string:
        if escaped:
            text = text[:-1]
        u = text.rfind("\\u")
        if u >= 0 and u > len(text) - 6:
            text = text[:u]
        text += '"'
    end = "".join(reversed(closers))
    while True:  # a dangling key, colon or comma: drop back to the last complete member
        try:
            return json.loads(text + end)
        except ValueError:
            at = max(text.rfind(","), text.rfind("{"), text.rfind("["))
            if at < 0:
                return None
            text = text[:at] if text[at] == "," else text[:at + 1]


def reparse(deltas: list[str]) -> Any:
    buffer = ""
    value = None
    for delta in deltas:
        buffer += delta
        value = repair_and_parse(buffer)
    return value


def reparse_floor(deltas: list[str]) -> Any:
    buffer = ""
    value = None
    for delta in deltas:
        buffer += delta
        with contextlib.suppress(ValueError):
            value = json.loads(buffer)
    return value


CASES: dict[str, Callable[[list[str]], Any]] = {
    "PartialJSON": partial_view,
    "re-parse: close the buffer, json.loads, per delta": reparse,
    "info, not a view: json.loads of the raw buffer per delta (fails, no value)": reparse_floor,
}


def check_the_pair_shows_the_same_value_after_every_delta() -> None:
    view = PartialJSON()
    buffer = ""
    for i, delta in enumerate(DELTAS):
        view.feed(delta)
        buffer += delta
        assert view.value == repair_and_parse(buffer), f"after delta {i}"


@pytest.mark.benchmark(group="partial-json")
def test_partial_json(benchmark: Any) -> None:
    check_the_pair_shows_the_same_value_after_every_delta()
    for fn in CASES.values():
        assert fn(DELTAS) == json.loads(TEXT)
    cases: dict[str, Prepared] = {name: (fn, lambda: (DELTAS,)) for name, fn in CASES.items()}
    medians = interleaved(benchmark, cases, rounds=15, events=dict.fromkeys(cases, len(DELTAS)))
    view, reparsed = medians["PartialJSON"], medians["re-parse: close the buffer, json.loads, per delta"]
    benchmark.extra_info["ratios"] = {
        "Python partial JSON, 4,000 deltas, value read after each: re-parse (close + json.loads) / PartialJSON "
        "(info)": reparsed / view}
