"""The benchmark workload generator: deterministic, and a well-formed reply."""

from __future__ import annotations

import pytest

import wire
from benchmarks import workload
from tests.helpers import expect


@pytest.mark.parametrize("seed", [0, 7])
def test_same_seed_same_bytes(seed: int) -> None:
    a = workload.reply_events(seed=seed, scale=0.02)
    b = workload.reply_events(seed=seed, scale=0.02)
    assert workload.ndjson(a) == workload.ndjson(b)
    assert workload.msgpack_array(a) == workload.msgpack_array(b)


def test_other_seed_other_bytes() -> None:
    assert workload.ndjson(workload.reply_events(0, 0.02)) != workload.ndjson(workload.reply_events(1, 0.02))


def test_reduces_to_the_expected_blocks() -> None:
    events = workload.reply_events(scale=0.02)
    assert wire.json.decode_events(workload.ndjson(events)) == events
    msg = workload.initial_msg().extend_events(events, strict=True)
    assert [b.type for b in msg.content] == [
        "hint", "thinking", "text", *["tool_call"] * 5, *["tool_result"] * 5, "text", "data",
    ]
    assert msg.finished_reason == wire.ReplyFinishedReason.COMPLETED
    assert msg.usage is not None and msg.usage.input_tokens > 0
    assert all(b.state == wire.ToolCallState.FINISHED for b in msg.content if isinstance(b, wire.ToolCallBlock))
    data = msg.content[-1]
    assert isinstance(data, wire.DataBlock) and isinstance(data.source, wire.Base64Source)
    assert len(data.source.data) == round(workload.DATA_BYTES * 0.02)


def test_full_scale_shape() -> None:
    counts: dict[str, int] = {}
    for e in workload.reply_events():
        counts[e.type] = counts.get(e.type, 0) + 1
    assert sum(counts.values()) == 24_800
    assert counts["TEXT_BLOCK_DELTA"] == 20_000
    assert counts["THINKING_BLOCK_DELTA"] == 2_000
    assert counts["TOOL_CALL_DELTA"] == 500
    assert counts["TOOL_RESULT_TEXT_DELTA"] == 2_000
    assert counts["DATA_BLOCK_DELTA"] == 265


def test_growth_workloads() -> None:
    msg = workload.initial_msg().extend_events(workload.text_delta_events(50), strict=True)
    assert len(msg.content) == 1 and msg.content[0].finished_at is not None
    msg = workload.initial_msg().extend_events(workload.data_delta_events(3, chunk=30), strict=True)
    source = expect(wire.Base64Source, expect(wire.DataBlock, msg.content[0]).source)
    assert len(source.data) == 90


def test_padded_chunks_are_the_same_bytes_each_padded() -> None:
    plain, padded = workload.reply_events(), workload.reply_events(padded=True)
    chunks = [e.data for e in padded if isinstance(e, wire.DataBlockDeltaEvent) and e.data is not None]
    assert len(padded) == len(plain) == 24_800 and len(chunks) == 265
    assert all(len(chunk) % 3 for chunk in chunks)  # so each chunk's base64 ends in = or ==
    assert b"".join(chunks) == b"".join(e.data for e in plain if isinstance(e, wire.DataBlockDeltaEvent) and e.data)
    assert workload.ndjson(plain) == workload.ndjson(workload.reply_events(padded=False))
