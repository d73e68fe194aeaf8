"""Shared fixtures: each agentscope 2.0.11 vector, deterministic factories,
and anyio on both backends. What the tests share besides fixtures is in
``tests/helpers.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import CASES, Case, factories, require_npm


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "npm(folder): runs node against folder/node_modules (tests.helpers.needs_npm)")


@pytest.hookimpl(trylast=True)  # after skip marks: a skipped test needs nothing
def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("npm"):
        require_npm(*mark.args)
