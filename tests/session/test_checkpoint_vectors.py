"""Checkpoint Msgs wire reads or refuses: the shared vectors in
tests/vectors/checkpoints, which schemas/test/checkpoint-vectors.test.mjs
holds the TypeScript runtime to. Python is the reference: each refused Msg is
a DecodeError at the recorded path, each accepted one writes the recorded
wire JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

import wire
from tests.helpers import ROOT
from wire.session.checkpoints import CHECKPOINT, read_checkpoint

CASES: list[dict[str, Any]] = json.loads(
    (ROOT / "tests" / "vectors" / "checkpoints" / "cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vector(case: dict[str, Any]) -> None:
    event = wire.CustomEvent(name=CHECKPOINT, value={"msg": case["msg"]})
    if case["accepted"]:
        msg = read_checkpoint(event)
        assert msg is not None and wire.json.encode(msg).decode() == case["wire_json"]
    else:
        with pytest.raises(wire.DecodeError) as caught:
            read_checkpoint(event)
        assert caught.value.path == case["path"]


def test_the_vectors_cover_the_cases_issue_30_names() -> None:
    names = {c["name"] for c in CASES if not c["accepted"]}
    assert {"a user Msg holding a tool call", "an unknown block type", "a Msg id that is an int"} <= names
    assert len(names) >= 50 and sum(c["accepted"] for c in CASES) >= 10
