"""The 24,800-event reply as Vercel UI message stream bytes.

Input: the benchmark reply's events, decoded (``workload.reply_events``), as a
server holding an EventLog has them. Output: the whole response body, every
``data:`` frame and ``data: [DONE]``. Cases, round-robin in one run:

* ``wire: to_sse``: :func:`wire.bridges.vercel.to_sse`, the bridge (which
  folds every event into a Msg with ``append_event``, so values follow
  agentscope's rules and bad streams stay well-formed for the client) and
  msgspec's encoder.
* ``dicts + orjson.dumps``: what an app writes without wire, with the
  fastest serializer it could pick. A hand-written mapping for the event
  types this reply has (no reducer, no duplicate or order checks) builds the
  same chunks as dicts, and each is written with ``orjson.dumps``: compact
  UTF-8 JSON, as JSON.stringify writes it (stdlib ``json.dumps`` writes the
  same bytes, slower). Its bytes are checked equal to wire's before timing.
* two (info) cases splitting wire's time: the bridge alone (chunks as dicts),
  and ``encode_chunks`` alone over those chunks.

Run: ``.venv/bin/python -m pytest benchmarks/bench_bridges_vercel.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from benchmarks.conftest import Reply, interleaved
from wire.bridges.vercel import DONE, encode_chunks, to_chunks, to_sse
from wire.events import (
    AgentEvent,
    DataBlockDeltaEvent,
    DataBlockEndEvent,
    DataBlockStartEvent,
    HintBlockEvent,
    ModelCallEndEvent,
    ModelCallStartEvent,
    ReplyEndEvent,
    ReplyStartEvent,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ThinkingBlockDeltaEvent,
    ThinkingBlockEndEvent,
    ThinkingBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
)

_FINISH = {"completed": "stop", "interrupted": "interrupted", "exceed_max_iters": "other"}
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens")


def hand_written(events: list[AgentEvent]) -> bytes:
    """The baseline: chunks as dicts, mapped by hand, each one written by orjson."""
    out: list[bytes] = []
    dumps = orjson.dumps

    def emit(chunk: dict[str, Any]) -> None:
        out.append(b"data: " + dumps(chunk) + b"\n\n")

    usage = dict.fromkeys(_USAGE_KEYS, 0)
    raw_inputs: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    results: dict[str, list[str]] = {}
    data: dict[str, tuple[str, str | None, list[bytes]]] = {}
    for e in events:
        if isinstance(e, TextBlockDeltaEvent):
            emit({"type": "text-delta", "id": e.block_id, "delta": e.delta})
        elif isinstance(e, ThinkingBlockDeltaEvent):
            emit({"type": "reasoning-delta", "id": e.block_id, "delta": e.delta})
        elif isinstance(e, ToolCallDeltaEvent):
            raw_inputs[e.tool_call_id].append(e.delta)
            emit({"type": "tool-input-delta", "toolCallId": e.tool_call_id, "inputTextDelta": e.delta})
        elif isinstance(e, ToolResultTextDeltaEvent):
            results[e.tool_call_id].append(e.delta)
        elif isinstance(e, DataBlockDeltaEvent):
            data[e.block_id][2].append(e.data or b"")
        elif isinstance(e, ReplyStartEvent):
            emit({"type": "start", "messageId": e.reply_id, "messageMetadata": {"agentscope": {
                "name": e.name, "role": e.role, "session_id": e.session_id, "reply_id": e.reply_id}}})
        elif isinstance(e, HintBlockEvent):
            hint: dict[str, Any] = {"hint": e.hint}
            if e.source is not None:
                hint["source"] = e.source
            emit({"type": "data-agentscope-hint", "id": e.block_id, "data": hint})
        elif isinstance(e, ModelCallStartEvent):
            emit({"type": "start-step"})
        elif isinstance(e, ModelCallEndEvent):
            for key in _USAGE_KEYS:
                usage[key] += getattr(e, key)
            emit({"type": "finish-step"})
            emit({"type": "message-metadata", "messageMetadata": {"agentscope": {"usage": dict(usage)}}})
        elif isinstance(e, TextBlockStartEvent):
            emit({"type": "text-start", "id": e.block_id, "providerMetadata": {"agentscope": {"block_id": e.block_id}}})
        elif isinstance(e, TextBlockEndEvent):
            emit({"type": "text-end", "id": e.block_id})
        elif isinstance(e, ThinkingBlockStartEvent):
            emit({"type": "reasoning-start", "id": e.block_id})
        elif isinstance(e, ThinkingBlockEndEvent):
            emit({"type": "reasoning-end", "id": e.block_id})
        elif isinstance(e, ToolCallStartEvent):
            raw_inputs[e.tool_call_id] = []
            names[e.tool_call_id] = e.tool_call_name
            emit({"type": "tool-input-start", "toolCallId": e.tool_call_id, "toolName": e.tool_call_name,
                  "providerExecuted": True})
        elif isinstance(e, ToolCallEndEvent):
            raw = "".join(raw_inputs[e.tool_call_id])
            emit({"type": "tool-input-available", "toolCallId": e.tool_call_id, "toolName": names[e.tool_call_id],
                  "input": orjson.loads(raw) if raw.strip() else {}, "providerExecuted": True,
                  "providerMetadata": {"agentscope": {"raw_input": raw}}})
        elif isinstance(e, ToolResultStartEvent):
            results[e.tool_call_id] = []
            names[e.tool_call_id] = e.tool_call_name
        elif isinstance(e, ToolResultEndEvent):
            emit({"type": "tool-output-available", "toolCallId": e.tool_call_id,
                  "output": "".join(results[e.tool_call_id]), "providerMetadata": {"agentscope": {
                      "state": e.state.value, "name": names[e.tool_call_id], "metadata": e.metadata}}})
        elif isinstance(e, DataBlockStartEvent):
            data[e.block_id] = (e.media_type, e.name, [])
        elif isinstance(e, DataBlockEndEvent):
            media_type, name, parts = data[e.block_id]
            url = f"data:{media_type};base64,{base64.b64encode(b''.join(parts)).decode('ascii')}"
            meta = {"block_id": e.block_id} if name is None else {"block_id": e.block_id, "name": name}
            emit({"type": "file", "url": url, "mediaType": media_type, "providerMetadata": {"agentscope": meta}})
        elif isinstance(e, ReplyEndEvent):
            emit({"type": "finish", "finishReason": _FINISH[e.finished_reason.value], "messageMetadata": {
                "agentscope": {"finished_reason": e.finished_reason.value, "usage": dict(usage)}}})
        else:
            raise AssertionError(f"the benchmark reply has no {e.type}")
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def test_the_baseline_writes_the_same_bytes(reply: Reply) -> None:
    from benchmarks.workload import reply_events

    events = reply_events(seed=0, scale=0.02)
    assert hand_written(events) == to_sse(events)


@pytest.mark.benchmark(group="bridges: targets")
def test_target_vercel_sse(benchmark: Any, reply: Reply) -> None:
    events = reply.events
    body = to_sse(events)
    assert hand_written(events) == body
    chunks = to_chunks(events)
    assert encode_chunks(chunks) + DONE == body
    cases: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
        "wire: to_sse (bridge + encode)": (to_sse, lambda: (events,)),
        "dicts + orjson.dumps (hand-written mapping)": (hand_written, lambda: (events,)),
        "wire: bridge alone (chunk dicts)": (to_chunks, lambda: (events,)),
        "wire: encode_chunks alone": (encode_chunks, lambda: (chunks,)),
    }
    medians = interleaved(benchmark, cases, rounds=15, events=dict.fromkeys(cases, reply.n))
    benchmark.extra_info["ratios"] = {
        "Vercel SSE: wire vs dicts + orjson.dumps, 24,800 events (info)":
            medians["dicts + orjson.dumps (hand-written mapping)"] / medians["wire: to_sse (bridge + encode)"],
        "Vercel SSE: encode_chunks share of to_sse (info)":
            medians["wire: encode_chunks alone"] / medians["wire: to_sse (bridge + encode)"],
    }
