"""The 0.1 module names (``wire.aio``, ``wire.http``, ``wire.sse``) still
give the very objects of their new homes, and nothing else; every other test
imports the new homes."""

from __future__ import annotations

import importlib

import pytest

pytest.importorskip("anyio")
pytest.importorskip("starlette")

# old module -> {name: its new home}
HOMES: dict[str, dict[str, str]] = {
    "wire.aio": {"EventLog": "wire.stores.memory", "EventReceiveStream": "wire.transports.streams",
                 "EventSendStream": "wire.transports.streams", "iter_events": "wire.transports.streams"},
    "wire.http": {name: "wire.transports.http"
                  for name in ("SSE_HEADERS", "ndjson_response", "sse_endpoint", "sse_response")},
    "wire.sse": {"CHECKPOINT": "wire.resume", "checkpoint": "wire.resume", "read_checkpoint": "wire.resume",
                 **{name: "wire.framing"
                    for name in ("DEFAULT_MAX_FRAME_BYTES", "RawFrame", "SSEDecoder", "SSEEncoder", "UnknownPolicy")}},
}


@pytest.mark.parametrize("old", HOMES)
def test_an_old_name_re_exports_the_objects_of_the_new_homes(old: str) -> None:
    module = importlib.import_module(old)
    assert set(module.__all__) == set(HOMES[old])
    for name, home in HOMES[old].items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), f"{old}.{name}"
