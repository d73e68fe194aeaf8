"""The real Vercel AI SDK client (``ai`` in tests/clients-vercel, driven by
``run.mjs``) on the other side of the Vercel bridge, and the comparison of
the UIMessage it builds with agentscope's Msg, relaxed only where
``wire/bridges/README.md`` ("Vercel AI SDK", "Lossy spots") says the UI
message stream cannot carry the Msg; each relaxation names its spot."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec

from tests.helpers import ROOT, needs_npm, require_npm
from wire.blocks import DataBlock, TextBlock
from wire.events import AgentEvent, ToolCallDeltaEvent, ToolCallEndEvent

CLIENT = ROOT / "tests" / "clients-vercel"
NODE = shutil.which("node")
# Fails, naming the step, without node or `npm ci` in tests/clients-vercel (.ci/run does both).
needs_client = needs_npm("tests/clients-vercel")

def run_client(mode: str, payload: Any, tmp: Path) -> str:
    request = tmp / f"{mode}.json"
    request.write_text(json.dumps(payload), encoding="utf-8")
    node = require_npm("tests/clients-vercel")
    done = subprocess.run([node, "run.mjs", mode, str(request)], cwd=CLIENT, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def _output_items(output: Any) -> list[Any]:
    """A tool output in one comparable shape: ("text", text) / ("data", media type, base64 or URL)."""
    if isinstance(output, str):
        return [("text", output)] if output else []
    items: list[Any] = []
    for part in output:
        if part["type"] == "text":
            items.append(("text", part["text"]))
        elif part["type"] == "data":  # agentscope's DataBlock
            source = part["source"]
            items.append(("data", source["media_type"], source.get("data", source.get("url"))))
        else:  # the bridge's file item
            items.append(("data", part["mediaType"], _file_source(part["url"])))
    return items


def _file_source(url: str) -> str:
    """The base64 of a data URL (the payload agentscope's JSON holds), or the URL."""
    if url.startswith("data:"):
        return url.split(";base64,", 1)[1]
    return url


# The client's tool part state, as agentscope's ToolCallState would say it.
CALL_STATES = {
    "input-streaming": "pending", "input-available": "pending", "approval-requested": "asking",
    "output-available": "finished", "output-error": "finished", "output-denied": "finished",
}
# ...and the ToolResultState each output state stands for.
RESULT_STATES = {"output-available": {"success"}, "output-error": {"error", "interrupted"},
                 "output-denied": {"denied", "interrupted", "error"}}


def _hint(hint: Any) -> Any:
    """A hint's blocks through wire's model, so that defaults written or left out compare equal."""
    if isinstance(hint, str):
        return hint
    return msgspec.to_builtins(msgspec.json.decode(json.dumps(hint), type=list[TextBlock | DataBlock]))


def ui_blocks(message: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The blocks a UIMessage holds, in agentscope's shape: the content in
    order without tool results, and the tool results by call id."""
    blocks: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    for part in message["parts"]:
        kind = part["type"]
        if kind == "step-start":
            continue
        if kind in ("text", "reasoning"):
            id = part["providerMetadata"]["agentscope"]["block_id"] if kind == "text" else part["id"]
            # Lossy spot "END text that replaces the streamed text": shown as streamed, kept in metadata.
            text = part["providerMetadata"]["agentscope"].get("text", part["text"]) if kind == "text" else part["text"]
            field = "text" if kind == "text" else "thinking"
            same = [b for b in blocks if b["id"] == id and b["type"] == ("text" if kind == "text" else "thinking")]
            if same:  # Lossy spot "deltas after END": a second part with the rest of the text
                same[0][field] += text
            else:
                blocks.append({"type": "text" if kind == "text" else "thinking", "id": id, field: text})
        elif kind == "data-agentscope-hint":
            blocks.append({"type": "hint", "id": part["id"], "hint": _hint(part["data"]["hint"]),
                           "source": part["data"].get("source")})
        elif kind == "file":
            meta = part["providerMetadata"]["agentscope"]
            blocks.append({"type": "data", "id": meta["block_id"], "name": meta.get("name"),
                           "source": ("data", part["mediaType"], _file_source(part["url"]))})
        elif kind.startswith("tool-") or kind == "dynamic-tool":
            state = part["state"]
            call_state = CALL_STATES.get(state)
            if state == "approval-responded":
                call_state = "allowed" if part["approval"]["approved"] else "finished"
            input_error = "raw_input" in part.get("resultProviderMetadata", {}).get("agentscope", {})
            if input_error:  # Lossy spot: input that is not JSON shows as output-error, with no result
                call_state = "pending"
            raw = part["input"] if input_error else part["callProviderMetadata"]["agentscope"]["raw_input"]
            blocks.append({"type": "tool_call", "id": part["toolCallId"],
                           "name": part.get("toolName", kind.removeprefix("tool-")), "input": raw, "state": call_state})
            if state in RESULT_STATES and not input_error:
                results[part["toolCallId"]] = ui_result(part)
        else:
            raise AssertionError(f"a part the bridge never makes: {kind}")
    return blocks, results


def ui_result(part: dict[str, Any]) -> dict[str, Any]:
    state = part["state"]
    if state == "output-denied":
        # Lossy spot: an output-denied part keeps no result metadata; the text is the refusal's reason.
        reason = part["approval"].get("reason", "")
        return {"state": "denied", "output": [("text", reason)] if reason else [], "metadata": None}
    meta = part["resultProviderMetadata"]["agentscope"]
    assert meta["state"] in RESULT_STATES[state], (state, meta["state"])
    if state == "output-available":
        output = _output_items(part["output"])
    else:
        output = _output_items(meta["output"]) if "output" in meta else \
            [("text", part["errorText"])] if part["errorText"] else []
    return {"state": meta["state"], "output": output, "metadata": meta["metadata"], "name": meta["name"]}


def msg_blocks(msg: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The same shape from agentscope's Msg JSON."""
    blocks: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for block in msg["content"]:
        kind = block["type"]
        if kind != "hint" and kind != "tool_result":
            if (kind, block["id"]) in seen:
                continue  # Lossy spot: the orphan block of a duplicate START has no part
            seen.add((kind, block["id"]))
        if kind == "text":
            blocks.append({"type": "text", "id": block["id"], "text": block["text"]})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "id": block["id"], "thinking": block["thinking"]})
        elif kind == "hint":
            blocks.append({"type": "hint", "id": block["id"], "hint": _hint(block["hint"]),
                           "source": block.get("source")})
        elif kind == "data":
            source = block["source"]
            blocks.append({"type": "data", "id": block["id"], "name": block.get("name"),
                           "source": ("data", source["media_type"], source.get("data", source.get("url")))})
        elif kind == "tool_call":
            blocks.append({"type": "tool_call", "id": block["id"], "name": block["name"], "input": block["input"],
                           "state": block.get("state", "pending")})
        elif kind == "tool_result":
            if ("tool_call", block["id"]) not in seen and block["id"] not in results:
                # A result whose call never streamed: the bridge makes the part, with an empty input.
                blocks.append({"type": "tool_call", "id": block["id"], "name": block["name"], "input": "",
                               "state": "finished"})
            results.setdefault(block["id"], {
                "state": block.get("state", "running"), "output": _output_items(block["output"]),
                "metadata": block.get("metadata", {}), "name": block["name"]})
    return blocks, results


def compare(message: dict[str, Any], expected: dict[str, Any], where: str, late_inputs: set[str]) -> None:
    """The client's message against agentscope's Msg, block by block."""
    assert message["id"] == expected["id"], where
    meta = message["metadata"]["agentscope"]
    assert meta["name"] == expected["name"], where
    usage = expected.get("usage")
    zeros = {"cache_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert meta.get("usage") == (None if usage is None else zeros | usage), where
    if expected.get("finished_reason") is not None:
        assert meta["finished_reason"] == expected["finished_reason"], where
    if expected.get("error") is not None:
        assert meta["error"] == {"type": "unknown", **expected["error"]} | expected["error"], where

    got, got_results = ui_blocks(message)
    want, want_results = msg_blocks(expected)
    for block in want:
        if block["type"] == "tool_call" and block["state"] == "submitted":
            # Lossy spot: agentscope leaves an externally run call "submitted" after its result.
            block["state"] = "finished" if block["id"] in want_results else "pending"
    for block in want:
        if block["type"] == "tool_call" and want_results.get(block["id"], {}).get("state") == "running":
            # Lossy spot: a result that ENDs "running" has no output state; the part stays input-available.
            block["state"] = "pending"
    for block in got:
        if block["type"] == "tool_call" and block["id"] in late_inputs:
            # Lossy spot: input deltas after the call's END are not sent (they would regress the part).
            wanted = next(b for b in want if b["type"] == "tool_call" and b["id"] == block["id"])
            assert wanted["input"].startswith(block["input"]), where
            block["input"] = wanted["input"]
    assert len({(b["type"], b["id"]) for b in got}) == len(got), where  # no part twice
    # Lossy spot: a file part lands where its data block ENDS, not where it started.
    assert [b for b in got if b["type"] != "data"] == [b for b in want if b["type"] != "data"], where
    assert sorted((b for b in got if b["type"] == "data"), key=lambda b: b["id"]) == \
        sorted((b for b in want if b["type"] == "data"), key=lambda b: b["id"]), where
    running = {id for id, r in want_results.items() if r["state"] == "running"}
    assert set(got_results) == set(want_results) - running, where  # Lossy spot: "running" has no output state
    for id, result in got_results.items():
        wanted = want_results[id]
        if result["metadata"] is None:  # output-denied
            wanted = {**wanted, "metadata": None}
            result = {**result, "name": wanted["name"]}
        if result["state"] == "denied" and wanted["state"] == "interrupted":
            # Lossy spot: a call interrupted while awaiting approval can only be shown denied.
            wanted = {**wanted, "state": "denied"}
        assert result == wanted, (where, id)


def late_inputs(events: list[AgentEvent]) -> set[str]:
    ended: set[str] = set()
    late: set[str] = set()
    for event in events:
        if isinstance(event, ToolCallEndEvent):
            ended.add(event.tool_call_id)
        elif isinstance(event, ToolCallDeltaEvent) and event.tool_call_id in ended:
            late.add(event.tool_call_id)
    return late
