"""The real ``@ag-ui/client`` on the other side of the AG-UI bridge: running
it over bytes (an injected fetch, or a URL), re-encoding with
``@ag-ui/encoder``, and comparing what it built with a Msg, relaxed only where
``wire/bridges/README.md`` ("AG-UI", "Lossy spots") says AG-UI cannot carry
the Msg."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec

import wire
from tests.helpers import ROOT, needs_npm, require_npm
from wire.bridges.agui import INCOMPLETE_CODE

CLIENT_DIR = ROOT / "tests" / "clients-agui"
NODE = shutil.which("node")
# Fails, naming the step, without node or `npm ci` in tests/clients-agui (.ci/run does both).
needs_client = needs_npm("tests/clients-agui")


def _node() -> str:
    return require_npm("tests/clients-agui")

Json = Any


def run_client(body: bytes, tmp_path: Path, chunk: int = 61) -> Json:
    path = tmp_path / "body.sse"
    path.write_bytes(body)
    done = subprocess.run([_node(), "run-client.mjs", str(path), "--chunk", str(chunk)], cwd=CLIENT_DIR,
                          capture_output=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def node_reencode(body: bytes, tmp_path: Path) -> bytes:
    path = tmp_path / "frames.sse"
    path.write_bytes(body)
    done = subprocess.run([_node(), "reencode.mjs", str(path)], cwd=CLIENT_DIR, capture_output=True, check=False,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


# -- what the client should have built ----------------------------------------------------------


def _agentscope_json(obj: Any) -> Json:
    return msgspec.json.decode(wire.json.encode(obj))


def _source(source: wire.Base64Source | wire.URLSource) -> Json:
    if isinstance(source, wire.Base64Source):
        return {"type": "data", "value": base64.b64encode(source.data).decode(), "mimeType": source.media_type}
    return {"type": "url", "value": source.url, "mimeType": source.media_type}


def _tool_content(output: str | list[wire.TextBlock | wire.DataBlock]) -> Json:
    if isinstance(output, str):
        return output
    if len(output) == 1 and isinstance(output[0], wire.TextBlock):
        return output[0].text
    parts = []
    for part in output:
        if isinstance(part, wire.TextBlock):
            # Lossy spot "tool output text ids": a text part's id and timestamps are not carried.
            parts.append({"type": "text", "text": part.text})
        else:
            kind = part.source.media_type.partition("/")[0]
            parts.append({"type": kind if kind in ("image", "audio", "video") else "document", "id": part.id,
                          "source": _source(part.source)})
    return parts


def mismatches(msg: wire.Msg, report: Json, *, from_checkpoint: bool = False) -> list[str]:
    """Where what the client built differs from ``msg``, block by block.
    ``from_checkpoint``: the stream began at a checkpoint, so the runs that
    parked before it are not there to leave a call pending (lossy spot
    "runs before a checkpoint")."""
    problems: list[str] = []
    if report["warnings"]:
        problems.append(f"client warnings: {report['warnings']}")
    for run in report["runs"]:
        if run.get("error") and not run.get("runError"):
            problems.append(f"run {run['runId']} rejected by the client: {run['error']}")
    messages = {m["id"]: m for m in report["messages"]}
    if len(messages) != len(report["messages"]):
        problems.append("the client holds two messages with one id")
    accounted: set[str] = set()
    order: list[str] = []  # ids of the blocks that are client messages, in Msg order
    calls: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for block in msg.content:
        if (block.type, block.id) in seen and not isinstance(block, wire.HintBlock):
            # Lossy spot "duplicate STARTs": agentscope appends an orphan block under an id it
            # already has (deltas go to the first); AG-UI ids are unique, the bridge drops it.
            continue
        seen.add((block.type, block.id))
        if isinstance(block, wire.TextBlock | wire.ThinkingBlock | wire.HintBlock | wire.DataBlock):
            got = messages.get(block.id)
            accounted.add(block.id)
            order.append(block.id)
            if got is None:
                problems.append(f"{block.type} block {block.id}: no client message")
                continue
        if isinstance(block, wire.TextBlock):
            # Lossy spot "TEXT_BLOCK_END.text": a replacement that does not extend the streamed
            # text cannot replace an AG-UI message's content; it travels in metadata.
            replaced = (got.get("metadata") or {}).get("agentscope", {}).get("text")
            if got["role"] != msg.role or (got["content"] != block.text and replaced != block.text):
                problems.append(f"text {block.id}: {got!r} != {block.text!r} ({msg.role})")
            if got.get("name") != msg.name:
                problems.append(f"text {block.id}: name {got.get('name')!r} != {msg.name!r}")
        elif isinstance(block, wire.ThinkingBlock):
            if got != {"id": block.id, "role": "reasoning", "content": block.thinking}:
                problems.append(f"thinking {block.id}: {got!r}")
        elif isinstance(block, wire.HintBlock):
            # Lossy spot "hints": an activity message, the hint in agentscope's JSON.
            content: Json = {"hint": block.hint if isinstance(block.hint, str) else _agentscope_json(block.hint)}
            if block.source is not None:
                content["source"] = block.source
            if got.get("activityType") != "agentscope.hint" or got["content"] != content:
                problems.append(f"hint {block.id}: {got!r} != {content!r}")
        elif isinstance(block, wire.DataBlock):
            # Lossy spot "data blocks": AG-UI 1.0 has no assistant media, so an activity message.
            want: Json = {"status": "done", "mediaType": block.source.media_type}
            if block.name is not None:
                want["name"] = block.name
            want["source"] = _source(block.source)
            if block.finished_at is None:  # never ended: only the START's snapshot arrived
                want = {"status": "streaming", "mediaType": block.source.media_type,
                        **({"name": block.name} if block.name is not None else {})}
            if got.get("activityType") != "agentscope.data" or got["content"] != want:
                problems.append(f"data {block.id}: {got.get('content')!r} != {want!r}")
        elif isinstance(block, wire.ToolCallBlock):
            calls.append((block.id, block.name, block.input))
        elif isinstance(block, wire.ToolResultBlock):
            got = messages.get(f"{block.id}.result")
            accounted.add(f"{block.id}.result")
            if block.finished_at is None:  # still running: AG-UI results are atomic, sent at END
                if got is not None:
                    problems.append(f"result {block.id}: sent before its END")
                continue
            if got is None:
                problems.append(f"result {block.id}: no tool message")
                continue
            # Lossy spot "tool result state": no field in TOOL_CALL_RESULT, so metadata.
            want_meta = {"agentscope": {"state": str(block.state), "name": block.name, "metadata": block.metadata}}
            if (got["toolCallId"] != block.id or got["content"] != _tool_content(block.output)
                    or got.get("metadata") != want_meta):
                problems.append(f"result {block.id}: {got!r}")
    # Tool calls: every call, in order, with its arguments byte for byte.
    got_calls = [(c["id"], c["function"]["name"], c["function"]["arguments"])
                 for m in report["messages"] if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    if got_calls != calls:
        problems.append(f"tool calls: {got_calls!r} != {calls!r}")
    for m in report["messages"]:
        if m["role"] == "assistant" and m.get("toolCalls"):
            accounted.add(m["id"])  # a call's parent message: a text block or the model call's own
    # Lossy spot "one Msg, many messages": the order of the blocks is kept, tool messages
    # sit right after their call's message.
    got_order = [m["id"] for m in report["messages"] if m["id"] in set(order)]
    if got_order != order:
        problems.append(f"order: {got_order} != {order}")
    extra = [m["id"] for m in report["messages"] if m["id"] not in accounted]
    if extra:
        problems.append(f"messages the Msg has no block for: {extra}")
    # Call states that survive as run outcomes: asking = a pending interrupt, submitted = a pending call.
    for block in msg.content:
        if (isinstance(block, wire.ToolCallBlock) and block.state == wire.ToolCallState.ASKING
                and f"{block.id}.confirm" not in report["runs"][-1]["pendingInterrupts"]):
            problems.append(f"call {block.id} is asking, but no interrupt is pending")
        if (isinstance(block, wire.ToolCallBlock) and block.state == wire.ToolCallState.SUBMITTED
                and not from_checkpoint and not any(block.id in (r.get("outcome") or {}).get("pendingToolCallIds", [])
                            for r in report["runs"])):
            problems.append(f"call {block.id} is submitted, but no run left it pending")
    # Usage: the runs' TokenUsage entries add up to the Msg's usage.
    totals = [0, 0, 0, 0]
    for run in report["runs"]:
        for entry in (run.get("usage") or (run.get("runError") or {}).get("usage") or []):
            totals = [t + entry[k] for t, k in zip(totals, ("inputTokens", "outputTokens", "cachedInputTokens",
                                                           "cacheWriteInputTokens"), strict=True)]
            if entry["totalTokens"] != entry["inputTokens"] + entry["outputTokens"]:
                problems.append(f"usage entry {entry}: totalTokens is not input + output")
    u = msg.usage
    want_usage = [0, 0, 0, 0] if u is None else [u.input_tokens, u.output_tokens, u.cache_input_tokens,
                                                  u.cache_creation_input_tokens]
    if totals != want_usage:
        problems.append(f"usage {totals} != {want_usage}")
    # How the reply ended.
    last = report["runs"][-1] if report["runs"] else {}
    reason = msg.finished_reason
    if reason == wire.ReplyFinishedReason.ERROR:
        error = last.get("runError") or {}
        assert msg.error is not None
        if (error.get("message"), error.get("code")) != (msg.error.message, str(msg.error.type)):
            problems.append(f"error {error} != {msg.error}")
    elif reason is not None:
        outcome = {"interrupted": "cancelled"}.get(str(reason), "success")
        if (last.get("outcome") or {}).get("type") != outcome or \
                (last.get("metadata") or {}).get("agentscope", {}).get("finished_reason") != str(reason):
            problems.append(f"end {last} != {reason!s}")
    elif not ((last.get("runError") or {}).get("code") == INCOMPLETE_CODE
              or (last.get("metadata") or {}).get("agentscope", {}).get("parked")):
        problems.append(f"an unfinished reply ended its last run with {last}")
    return problems


def custom_mismatches(events: list[wire.AgentEvent], report: Json) -> list[str]:
    """CUSTOM events reach onCustomEvent unchanged, in order."""
    want = [{"name": e.name, "value": e.value} for e in events if isinstance(e, wire.CustomEvent)]
    got = [c for c in report["custom"] if not c["name"].startswith("agentscope.")]
    return [] if got == want else [f"custom events {got} != {want}"]


def run_client_at(url: str) -> Any:
    done = subprocess.run([_node(), "run-client.mjs", "--url", url], cwd=CLIENT_DIR, capture_output=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)
