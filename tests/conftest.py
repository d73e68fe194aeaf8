"""Shared fixtures: each agentscope 2.0.11 vector, deterministic factories,
and anyio on both backends. What the tests share besides fixtures is in
``tests/helpers.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import CASES, Case, factories


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    vector: Case = request.param
    return vector


@pytest.fixture
def deterministic_factories() -> Iterator[None]:
    """agentscope's apply regime: a constant clock and apply-000001... ids."""
    counter = iter(range(1, 1_000_000))
    with factories(lambda: f"apply-{next(counter):06d}", lambda: "2000-01-01T00:00:00.000000"):
        yield


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend
