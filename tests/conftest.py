"""Shared fixtures: the agentscope 2.0.11 conformance vectors, and anyio on both backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import wire

VECTORS = Path(__file__).parent / "vectors" / "agentscope-2.0.11"
MESSAGES = VECTORS / "_messages"
CASE_DIRS = sorted(p for p in VECTORS.iterdir() if p.is_dir() and not p.name.startswith("_"))


@dataclass(frozen=True)
class Case:
    """One reply recorded from agentscope: its events and the Msg they build."""

    name: str
    path: Path

    @property
    def events_jsonl(self) -> bytes:
        return (self.path / "events.jsonl").read_bytes()

    @property
    def event_lines(self) -> list[bytes]:
        return [line for line in self.events_jsonl.splitlines() if line.strip()]

    @property
    def initial_msg(self) -> bytes:
        return (self.path / "initial_msg.json").read_bytes()

    @property
    def expected_msg(self) -> bytes:
        return (self.path / "expected_msg.json").read_bytes()

    @property
    def sse(self) -> bytes | None:
        p = self.path / "events.sse"
        return p.read_bytes() if p.exists() else None

    @property
    def manifest(self) -> dict[str, object]:
        return json.loads((self.path / "manifest.json").read_bytes())  # type: ignore[no-any-return]


CASES = [Case(p.name, p) for p in CASE_DIRS]


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    return request.param  # type: ignore[no-any-return]


def standalone_messages() -> list[Path]:
    """The compact standalone messages written by agentscope."""
    return sorted(p for p in MESSAGES.glob("*.json")
                  if not p.name.endswith(".pretty.json") and p.name != "invalid_and_lax_inputs.json")


def catalog_lines() -> list[bytes]:
    """One event of each of the 28 types, as agentscope writes them."""
    return [line for line in (MESSAGES / "event_catalog.jsonl").read_bytes().splitlines() if line.strip()]


@pytest.fixture
def deterministic_factories() -> Iterator[None]:
    """agentscope's apply regime: a constant clock and apply-000001... ids."""
    counter = iter(range(1, 1_000_000))
    wire.set_id_factory(lambda: f"apply-{next(counter):06d}")
    wire.set_timestamp_factory(lambda: "2000-01-01T00:00:00.000000")
    try:
        yield
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return request.param  # type: ignore[no-any-return]
