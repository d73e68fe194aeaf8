"""The benchmark harness (benchmarks/conftest.py) times the function and
nothing of its neighbours: every call starts with the previous calls'
arguments and results freed (issue 30: the reader targets' denominator ran
20 % faster on memory another case's Msg pinned)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from benchmarks import conftest


class _Benchmark:
    """What the harness uses of pytest-benchmark's fixture, holding a round's
    result through the next round's call as pytest-benchmark's pedantic does."""

    stats = None

    def __init__(self) -> None:
        self.extra_info: dict[str, Any] = {}

    def pedantic(self, target: Callable[..., Any], args: tuple[Any, ...] = (), kwargs: Any = None,
                 setup: Any = None, teardown: Any = None, rounds: int = 1, warmup_rounds: int = 0,
                 iterations: int = 1) -> Any:
        result = None
        for _ in range(warmup_rounds + rounds):
            a, k = setup() if setup is not None else (args, kwargs or {})
            result = target(*a, **k)
            if teardown is not None:
                teardown(*a, **k)
        return result


class _Box:
    pass


def _tracked() -> tuple[Callable[[], tuple[_Box]], Callable[[_Box], list[_Box]], list[int]]:
    """A maker of arguments and a function that records, at each call, how
    many arguments made so far are still alive (1: its own only)."""
    refs: list[weakref.ref[_Box]] = []
    alive: list[int] = []

    def make() -> tuple[_Box]:
        box = _Box()
        refs.append(weakref.ref(box))
        return (box,)

    def fn(box: _Box) -> list[_Box]:
        alive.append(sum(ref() is not None for ref in refs))
        return [box]  # the result holds the argument, as a filled Msg does

    return make, fn, alive


def test_interleaved_frees_each_cases_arguments_and_result_before_the_next_call() -> None:
    make, fn, alive = _tracked()
    medians = conftest.interleaved(_Benchmark(), {"a": (fn, make), "b": (fn, make), "c": (fn, make)},
                                   rounds=3, events=dict.fromkeys("abc", 1))
    assert set(medians) == {"a", "b", "c"}
    assert len(alive) == 12 and set(alive) == {1}


def test_run_frees_a_rounds_result_before_the_next_call_and_returns_the_last() -> None:
    make, fn, alive = _tracked()
    result = conftest.run(_Benchmark(), fn, setup=lambda: (make(), {}), rounds=4, events=1)
    assert len(alive) == 5 and set(alive) == {1}
    assert isinstance(result, list) and isinstance(result[0], _Box)
