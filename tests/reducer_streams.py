"""Hypothesis strategies for well-formed event streams of one reply.

A stream is a set of blocks (text, thinking, base64 data, URL data, tool call
with its result, hint) whose START/delta/END events are interleaved at random,
each block's own events staying in order, with model-call usage in between
and a REPLY_END at the close. Event ids and timestamps are unique and
increasing, as a real producer writes them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import wire

REPLY = "reply-1"
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
chunks = st.binary(max_size=24)


@st.composite
def _block_program(draw: st.DrawFn, n: int) -> list[tuple[str, dict[str, Any]]]:
    """The events of block number ``n`` as (event class name, fields) pairs."""
    kind = draw(st.sampled_from(["text", "thinking", "data", "url", "tool", "hint"]))
    bid = f"b{n}"
    if kind in ("text", "thinking"):
        cls = "TextBlock" if kind == "text" else "ThinkingBlock"
        ops = [(f"{cls}StartEvent", {"block_id": bid})]
        ops += [(f"{cls}DeltaEvent", {"block_id": bid, "delta": d}) for d in draw(st.lists(texts, max_size=6))]
        end: dict[str, Any] = {"block_id": bid}
        if kind == "text" and draw(st.booleans()):
            end["text"] = draw(texts)
        ops.append((f"{cls}EndEvent", end))
        return ops
    if kind in ("data", "url"):
        ops = [("DataBlockStartEvent", {"block_id": bid, "media_type": "image/png",
                                        "name": draw(st.none() | st.just("x.png"))})]
        ops += [("DataBlockDeltaEvent", {"block_id": bid, "media_type": "image/png", "data": c})
                for c in draw(st.lists(chunks, max_size=5))]
        if kind == "url":
            ops.append(("DataBlockDeltaEvent", {"block_id": bid, "media_type": "image/jpeg",
                                                "url": f"https://example.com/{n}.jpg"}))
        ops.append(("DataBlockEndEvent", {"block_id": bid}))
        return ops
    if kind == "hint":
        hint: Any = draw(texts | st.just([wire.TextBlock(text="note", id=f"h{n}", created_at="t0")]))
        return [("HintBlockEvent", {"block_id": bid, "hint": hint, "source": draw(st.none() | texts)})]
    call = f"call_{n}"
    ops = [("ToolCallStartEvent", {"tool_call_id": call, "tool_call_name": "Bash"})]
    ops += [("ToolCallDeltaEvent", {"tool_call_id": call, "delta": d}) for d in draw(st.lists(texts, max_size=4))]
    ops.append(("ToolCallEndEvent", {"tool_call_id": call}))
    ops.append(("ToolResultStartEvent", {"tool_call_id": call, "tool_call_name": "Bash"}))
    for part in draw(st.lists(st.tuples(st.booleans(), texts, chunks, st.sampled_from(["d1", "d2"])), max_size=5)):
        is_text, text, data, data_id = part
        if is_text:
            ops.append(("ToolResultTextDeltaEvent", {"tool_call_id": call, "delta": text}))
        else:
            ops.append(("ToolResultDataDeltaEvent", {"tool_call_id": call, "block_id": f"{call}-{data_id}",
                                                     "media_type": "image/png", "data": data}))
    state = draw(st.sampled_from(list(wire.ToolResultState)))
    ops.append(("ToolResultEndEvent", {"tool_call_id": call, "state": state,
                                       "metadata": draw(st.just({}) | st.just({"exit_code": 0}))}))
    return ops


@st.composite
def reply_streams(draw: st.DrawFn, max_blocks: int = 5) -> list[wire.AgentEvent]:
    """A well-formed reply: REPLY_START, interleaved block events, usage, REPLY_END."""
    programs = [draw(_block_program(n)) for n in range(draw(st.integers(0, max_blocks)))]
    for _ in range(draw(st.integers(0, 2))):
        programs.append([("ModelCallEndEvent", {"input_tokens": draw(st.integers(0, 99)),
                                                "output_tokens": draw(st.integers(0, 99))})])
    ops: list[tuple[str, dict[str, Any]]] = []
    cursors = [0] * len(programs)
    while any(c < len(p) for c, p in zip(cursors, programs, strict=True)):
        live = [i for i, (c, p) in enumerate(zip(cursors, programs, strict=True)) if c < len(p)]
        i = draw(st.sampled_from(live))
        ops.append(programs[i][cursors[i]])
        cursors[i] += 1
    ops.insert(0, ("ReplyStartEvent", {"session_id": "s", "name": "Friday"}))
    ops.append(("ReplyEndEvent", {"session_id": "s"}))
    return [getattr(wire, cls)(id=f"e{i:05d}", created_at=f"2026-01-01T00:00:{i // 1000:02d}.{i % 1000:06d}",
                               reply_id=REPLY, **fields)
            for i, (cls, fields) in enumerate(ops)]


def initial_msg() -> wire.Msg:
    return wire.Msg(name="Friday", content=[], role="assistant", id=REPLY, created_at="2026-01-01T00:00:00")
