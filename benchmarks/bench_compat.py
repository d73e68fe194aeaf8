"""The AgentScope 1.x and AgentX converters (wire.compat).

* A 1.x history of 1,000 ReAct turns (4,000 messages: question, thinking and
  tool_use, the system message with the tool_result, the answer), as dicts:
  to 2.0 Msgs and back.
* An AgentX stream of 200 replies, each a tool call, its result and 50 text
  packets (10,400 packets) as NDJSON bytes: ``AgentXDecoder`` (frames cut,
  packets read, events made) beside the peer's own reading, AgentX's pydantic
  models (the document's, as in ``tests/compat/test_agentx.py``) validating
  each line; and the events back to packets.

Run: ``.venv/bin/python -m pytest benchmarks/bench_compat.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from wire.compat.agentscope1 import from_agentscope1_history, to_agentscope1_history
from wire.compat.agentx import AgentXDecoder, events_to_packets, packets_to_events


def _turn(i: int) -> list[dict[str, Any]]:
    stamp = f"2025-03-01 09:{i // 60 % 60:02d}:{i % 60:02d}.250"
    call = f"call_{i}"
    return [
        {"id": f"u{i}", "name": "user", "role": "user", "content": f"Weather in city {i}?", "metadata": {},
         "timestamp": stamp},
        {"id": f"a{i}", "name": "Friday", "role": "assistant", "metadata": {}, "timestamp": stamp, "content": [
            {"type": "thinking", "thinking": "I should call the weather tool. " * 4},
            {"type": "tool_use", "id": call, "name": "get_weather", "input": {"city": f"city {i}", "days": 3},
             "raw_input": json.dumps({"city": f"city {i}", "days": 3})}]},
        {"id": f"s{i}", "name": "system", "role": "system", "metadata": {}, "timestamp": stamp, "content": [
            {"type": "tool_result", "id": call, "name": "get_weather",
             "output": [{"type": "text", "text": "Sunny, 18°C; tomorrow rain. " * 3}]}]},
        {"id": f"f{i}", "name": "Friday", "role": "assistant", "content": "It is sunny, 18°C. " * 5,
         "metadata": {"celsius": 18}, "timestamp": stamp},
    ]


@cache
def _history() -> list[dict[str, Any]]:
    return [d for i in range(1000) for d in _turn(i)]


@cache
def _packets() -> list[dict[str, Any]]:
    packets: list[dict[str, Any]] = []
    for r in range(200):
        msg = f"msg_{r}"
        packets.append({"id": msg, "role": "assistant", "parts": [
            {"type": "tool_call", "tool_call_id": f"tc_{r}", "tool_name": "write_file",
             "args": {"path": f"/out/{r}.txt", "content": "Hello, world!"}}]})
        packets.append({"id": msg, "role": "assistant", "parts": [
            {"type": "tool_result", "tool_call_id": f"tc_{r}", "result": {"status": "success"}}]})
        packets += [{"id": msg, "role": "assistant", "parts": [{"type": "text", "text": f" token{k}"}]}
                    for k in range(50)]
    return packets


@cache
def _ndjson() -> bytes:
    return b"".join(json.dumps(p).encode() + b"\n" for p in _packets())


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ToolCallPart(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]


class ToolResultPart(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    result: Any


class ToolErrorPart(BaseModel):
    type: Literal["tool_error"] = "tool_error"
    tool_call_id: str
    error_type: Literal["VALIDATION", "EXECUTION"]
    message: str


class Message(BaseModel):
    id: str
    role: Literal["user", "assistant"]
    parts: list[TextPart | ToolCallPart | ToolResultPart | ToolErrorPart]


def test_agentscope1_history_to_2_0(benchmark: Any) -> None:
    history = _history()
    msgs = benchmark(from_agentscope1_history, history)
    assert len(msgs) == len(history)
    benchmark.extra_info["messages"] = len(history)


def test_agentscope1_history_back_to_1x(benchmark: Any) -> None:
    msgs = from_agentscope1_history(_history())
    back = benchmark(to_agentscope1_history, msgs)
    assert back == _history()


@pytest.mark.parametrize("case", ["wire AgentXDecoder (bytes to events)", "pydantic models (validate each line)"])
def test_agentx_ndjson_stream(benchmark: Any, case: str) -> None:
    data = _ndjson()

    def wire_decoder() -> int:
        decoder = AgentXDecoder("ndjson")
        return len(decoder.feed(data) + decoder.close())

    def pydantic_models() -> int:
        return len([Message.model_validate_json(line) for line in data.splitlines()])

    count = benchmark(wire_decoder if case.startswith("wire") else pydantic_models)
    assert count > 0
    benchmark.extra_info["packets"] = len(_packets())


def test_agentx_events_back_to_packets(benchmark: Any) -> None:
    events = packets_to_events(_packets())
    packets = benchmark(events_to_packets, events)
    assert packets == _packets()
