"""A real agentscope 1.0.21, run in its own virtual environment (agentscope 1.x
and 2.x are one distribution name and cannot share one), answering requests
from tests/compat/test_agentscope1.py.

One JSON request per line on standard input, one JSON answer per line on
standard output:

* ``{"op": "load", "messages": [dict, ...]}``: each dict through
  ``Msg.from_dict``; the answer lists, per message, ``to_dict()`` with the
  ``invocation_id`` it read, its text and block types, or the error.
* ``{"op": "format", "messages": [dict, ...]}``: the messages through
  ``OpenAIChatFormatter.format``, as a 1.x agent sends them to a model.
* ``{"op": "samples"}``: messages built with 1.x's own ``Msg(...)`` and block
  constructors, as ``to_dict()`` writes them.

Runs only with agentscope 1.x installed; it imports nothing from wire.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import (
    AudioBlock,
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)


def load(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    answers = []
    for d in messages:
        try:
            msg = Msg.from_dict(d)
            answers.append({
                "to_dict": msg.to_dict(),
                "invocation_id": msg.invocation_id,
                "text": msg.get_text_content(),
                "block_types": [b["type"] for b in msg.get_content_blocks()],
            })
        except Exception as exc:  # report it: the test names the message
            answers.append({"error": f"{type(exc).__name__}: {exc}"})
    return answers


def format_(messages: list[dict[str, Any]]) -> Any:
    try:
        return asyncio.run(OpenAIChatFormatter().format([Msg.from_dict(d) for d in messages]))
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def samples() -> list[dict[str, Any]]:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    built = [
        Msg("user", "北京今天天气怎么样?", "user"),
        Msg("user", [
            TextBlock(type="text", text="请看这张天气图:"),
            ImageBlock(type="image", source=URLSource(type="url", url="https://example.com/weather-map.jpg")),
        ], "user"),
        Msg("user", [ImageBlock(type="image", source=Base64Source(type="base64", media_type="image/png",
                                                                   data=png))], "user"),
        Msg("Friday", [
            ThinkingBlock(type="thinking", thinking="The user wants the weather; call the tool."),
            TextBlock(type="text", text="Let me check."),
            ToolUseBlock(type="tool_use", id="toolu_abc123", name="get_weather", input={"city": "北京"},
                         raw_input='{"city": "北京"}'),
        ], "assistant", metadata={"note": "reasoning"}),
        Msg("system", [ToolResultBlock(type="tool_result", id="toolu_abc123", name="get_weather",
                                       output=[TextBlock(type="text", text="晴, 25°C")])], "system"),
        Msg("system", [ToolResultBlock(type="tool_result", id="toolu_x", name="speak",
                                       output=[AudioBlock(type="audio", source=Base64Source(
                                           type="base64", media_type="audio/wav", data="UklGRg=="))])], "system"),
        Msg("system", [ToolResultBlock(type="tool_result", id="toolu_y", name="noop", output="done")], "system"),
        Msg("Friday", "北京今天晴, 25°C。", "assistant", metadata={"answer": "sunny", "celsius": 25}),
        Msg("user", [VideoBlock(type="video", source=URLSource(type="url", url="https://example.com/clip.mp4"))],
            "user", invocation_id="call-1"),
        Msg("system", "You are Friday.", "system"),
        Msg("user", [], "user"),
    ]
    return [m.to_dict() for m in built]


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "load":
            answer: Any = load(request["messages"])
        elif op == "format":
            answer = format_(request["messages"])
        elif op == "samples":
            answer = samples()
        else:
            answer = {"error": f"unknown op {op!r}"}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
