"""The 24,800-event reply to AG-UI SSE bytes.

* wire: ``wire.bridges.agui.to_agui_sse`` on the decoded events: the whole
  transcoding (runs, open constructs, the tool results and the 1 MiB data
  block folded by wire's reducer) and the encoding, one bridge per reply.
* ag-ui-protocol: the Python SDK of AG-UI (PyPI ``ag-ui-protocol``), given
  the AG-UI events wire produced as dicts, built into its pydantic models
  (``model_validate``, camelCase aliases) and written with its own
  ``EventEncoder``: what a server written with the SDK pays per event. It
  does none of the transcoding, so the ratio understates wire's lead.

Both write the same bytes (checked before timing; ``EventEncoder.encode``
returns str, so the SDK case ends with one ``"".join(...).encode()``).
Target: wire at least 5x faster (ratio of medians, same run).

Run: ``.venv/bin/python -m pytest benchmarks/bench_bridges_agui.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from benchmarks import workload
from benchmarks.conftest import run
from wire.bridges.agui import AGUIEvent, to_agui, to_agui_sse

ROUNDS = 7

ag_ui_core = pytest.importorskip("ag_ui.core")
ag_ui_encoder = pytest.importorskip("ag_ui.encoder")


@cache
def _events() -> list[Any]:
    return workload.reply_events(seed=0)


@cache
def _agui_events() -> list[AGUIEvent]:
    return to_agui(_events())


def _models() -> dict[str, Any]:
    """AG-UI event type -> the SDK's pydantic model for it."""
    models: dict[str, Any] = {}
    for name in dir(ag_ui_core):
        cls = getattr(ag_ui_core, name)
        fields = getattr(cls, "model_fields", {})
        if name.endswith("Event") and "type" in fields and fields["type"].default is not None:
            models[str(getattr(fields["type"].default, "value", fields["type"].default))] = cls
    return models


MODELS = _models()


def _sdk_encode(events: list[AGUIEvent]) -> bytes:
    encode = ag_ui_encoder.EventEncoder().encode
    return "".join([encode(MODELS[event["type"]].model_validate(event)) for event in events]).encode()


def test_both_write_the_same_bytes() -> None:
    assert _sdk_encode(_agui_events()) == to_agui_sse(_events())


@pytest.mark.benchmark(group="bridges: 24,800-event reply to AG-UI SSE")
def test_wire_to_agui_sse(benchmark: Any) -> None:
    events = _events()
    out = run(benchmark, to_agui_sse, (events,), rounds=ROUNDS, events=len(events))
    assert out.startswith(b"data: {")


@pytest.mark.benchmark(group="bridges: 24,800-event reply to AG-UI SSE")
def test_ag_ui_protocol_models_and_encoder(benchmark: Any) -> None:
    agui = _agui_events()
    out = run(benchmark, _sdk_encode, (agui,), rounds=ROUNDS, events=len(_events()))
    assert out.startswith(b"data: {")
