"""The seeded benchmark workload: one large, realistic agentscope 2.0 reply.

Its shape follows a large agentscope reply (about 24,800 events: 2,000
thinking deltas, 20,000 text deltas, 500 tool-call fragments, 2,000
tool-result deltas, 265 base64 chunks making about 1 MiB), in the order
agentscope's agent emits events:

* ``REPLY_START``, the runtime-state ``HINT_BLOCK`` the agent injects by default;
* model call 1: a thinking block (2,000 deltas), a text block (8,000 deltas),
  5 tool calls streamed as 100 JSON fragments each (fragments split escapes
  and multi-byte characters), ``MODEL_CALL_END`` with usage;
* 5 tool results of 400 text deltas each, ended with metadata;
* model call 2: a text block (12,000 deltas) and a 1 MiB data block in 265
  chunks of 3,960 bytes (5,280 base64 characters, the last one shorter),
  ``MODEL_CALL_END``;
* ``REPLY_END``.

With ``padded=True`` the same 1 MiB comes in 265 chunks of 3,958 to 3,962
bytes (3,960 plus or minus 1 or 2, never a multiple of 3, the last one
shorter), so each chunk's base64 is padded: audio as model APIs stream it,
each chunk encoded on its own. Joined, the chunks are the same bytes; a
reader must shift every chunk after a padded one by the bytes left over.

That is 24,800 events at ``scale=1``. Text deltas are 1 to 20 characters drawn
from prose with accents, CJK, emoji, quotes, backslashes, tabs and newlines.

Everything (ids, timestamps, text, bytes) comes from ``random.Random(seed)``
and fixed constants, never from the clock or uuid4, so the same ``seed`` and
``scale`` give byte-identical NDJSON in any process. ``scale`` multiplies every
delta count (at least one of each), for quick tests.

    >>> from benchmarks.workload import reply_events, initial_msg, ndjson
    >>> events = reply_events(seed=0, scale=0.01)
    >>> msg = initial_msg().extend_events(events)
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

import wire
from wire.blocks import ToolResultState
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
from wire.messages import AssistantMsg, Msg

__all__ = (
    "AGENT_NAME",
    "DATA_BYTES",
    "DATA_CHUNK",
    "REPLY_ID",
    "SESSION_ID",
    "START_TIME",
    "as_dicts",
    "data_delta_events",
    "initial_msg",
    "json_lines",
    "msgpack_array",
    "msgpack_frames",
    "ndjson",
    "reply_events",
    "text_delta_events",
)

REPLY_ID = "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8c"
SESSION_ID = "d4d4a0b1c2e3f405162738495a6b7c8d"
AGENT_NAME = "Friday"
START_TIME = "2026-01-01T10:00:00.000000+00:00"
_START = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC)

# The large reply's sizes. 3,960 bytes is a multiple of 3, so every chunk
# but the last is 5,280 base64 characters with no padding; 265 of them make 1 MiB.
THINKING_DELTAS = 2_000
TEXT_DELTAS = (8_000, 12_000)
TOOL_CALLS = 5
TOOL_CALL_FRAGMENTS = 100  # per call: 500 in all
TOOL_RESULT_DELTAS = 400  # per result: 2,000 in all
DATA_BYTES = 1 << 20
DATA_CHUNK = 3_960

_WORDS = (
    "the", "a", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "on", "agent",
    "message", "stream", "event", "block", "reply", "tool", "model", "token", "delta", "buffer",
    "decoder", "latency", "throughput", "schema", "value", "result", "function", "returns",
    "café", "naïve", "Zürich", "résumé", "façade", "jalapeño", "smörgåsbord", "Ærø", "Œuvre",
    "日本語", "中文字符", "東京", "数据流", "模型", "한국어", "Привет", "مرحبا", "שלום", "ελληνικά",
    "😀", "🚀", "👩‍💻", "🇫🇷", "✅", "→", "∑", "€", "½", "…", "—",
    '"quoted"', "'single'", "“curly”", "C:\\Users\\agent", "a\\nb", "\\\\server\\share",
    "{", "}", "[1, 2]", "<b>", "</script>", "&amp;", "x < y", "1e-9", "42", "3.14",
)
_SEPARATORS = (" ",) * 12 + (", ", ". ", "\n", "\n\n", "\t", ": ", "; ")

_COMMANDS = (
    "grep -rn 'TODO' src/ | head -50",
    'python -c "import sys; print(sys.version)"',
    "cat README.md",
    "ls -la /var/log/agent",
    "pytest -q tests/test_stream.py -k 'unicode and not slow'",
)


class _Gen:
    """One seeded source of ids, timestamps, text and bytes."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.t = _START + timedelta(seconds=seed % 86_400)

    def id(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def ts(self) -> str:
        self.t += timedelta(microseconds=self.rng.randint(20, 4_000))
        return self.t.isoformat(timespec="microseconds")

    def env(self) -> dict[str, Any]:
        """The fields every event has, in agentscope's order."""
        return {"id": self.id(), "created_at": self.ts()}

    def prose(self, n_chars: int) -> str:
        rng = self.rng
        parts: list[str] = []
        size = 0
        while size < n_chars:
            word = rng.choice(_WORDS)
            sep = rng.choice(_SEPARATORS)
            parts.append(word)
            parts.append(sep)
            size += len(word) + len(sep)
        return "".join(parts)[:n_chars]

    def deltas(self, n: int) -> list[str]:
        """``n`` consecutive slices of 1-20 characters of one prose text."""
        lengths = [self.rng.randint(1, 20) for _ in range(n)]
        text = self.prose(sum(lengths))
        out = []
        pos = 0
        for length in lengths:
            out.append(text[pos:pos + length])
            pos += length
        return out

    def cut(self, text: str, n: int) -> list[str]:
        """``text`` in exactly ``n`` non-empty pieces at random places (they
        may split a JSON escape or a multi-byte character, as providers do)."""
        n = max(1, min(n, len(text)))
        points = sorted(self.rng.sample(range(1, len(text)), n - 1))
        return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _n(count: int, scale: float) -> int:
    return max(1, round(count * scale))


def reply_events(seed: int = 0, scale: float = 1.0, *, padded: bool = False) -> list[AgentEvent]:
    """The reply as wire events (24,800 at ``scale=1``), for ``initial_msg()``;
    ``padded``: data chunks whose base64 is padded (see the module's docstring)."""
    g = _Gen(seed)
    r = REPLY_ID
    events: list[AgentEvent] = [
        ReplyStartEvent(**g.env(), session_id=SESSION_ID, reply_id=r, name=AGENT_NAME),
        HintBlockEvent(**g.env(), reply_id=r, block_id=g.id(),
                       source='{"label": "System", "sublabel": "Runtime State"}',
                       hint="<system-reminder>Current time: 2026-01-01 10:00:00 UTC. "
                            "Working directory: /home/agent/project.</system-reminder>"),
    ]

    # -- model call 1: thinking, text, tool calls ---------------------------------
    events.append(ModelCallStartEvent(**g.env(), reply_id=r, model_name="qwen3-max"))
    block = g.id()
    events.append(ThinkingBlockStartEvent(**g.env(), reply_id=r, block_id=block))
    events += [ThinkingBlockDeltaEvent(**g.env(), reply_id=r, block_id=block, delta=d)
               for d in g.deltas(_n(THINKING_DELTAS, scale))]
    events.append(ThinkingBlockEndEvent(**g.env(), reply_id=r, block_id=block))
    block = g.id()
    events.append(TextBlockStartEvent(**g.env(), reply_id=r, block_id=block))
    events += [TextBlockDeltaEvent(**g.env(), reply_id=r, block_id=block, delta=d)
               for d in g.deltas(_n(TEXT_DELTAS[0], scale))]
    events.append(TextBlockEndEvent(**g.env(), reply_id=r, block_id=block))

    calls: list[tuple[str, str]] = []
    fragments = _n(TOOL_CALL_FRAGMENTS, scale)
    for i in range(TOOL_CALLS):
        call_id = f"call_{g.rng.getrandbits(96):024x}"
        name = ("Bash", "Read", "Write", "Grep", "WebFetch")[i % 5]
        calls.append((call_id, name))
        args = {
            "command": _COMMANDS[i % len(_COMMANDS)],
            "description": g.prose(8 * fragments),
            "timeout": 120_000,
            "env": {"LANG": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin"},
        }
        # \uXXXX escapes for some calls, raw UTF-8 for others, as providers differ
        raw = json.dumps(args, ensure_ascii=bool(i % 2))
        events.append(ToolCallStartEvent(**g.env(), reply_id=r, tool_call_id=call_id, tool_call_name=name))
        events += [ToolCallDeltaEvent(**g.env(), reply_id=r, tool_call_id=call_id, delta=d)
                   for d in g.cut(raw, fragments)]
        events.append(ToolCallEndEvent(**g.env(), reply_id=r, tool_call_id=call_id))
    events.append(ModelCallEndEvent(**g.env(), reply_id=r, input_tokens=18_734, output_tokens=9_512,
                                    cache_input_tokens=12_288, cache_creation_input_tokens=1_024))

    # -- tool results ---------------------------------------------------------------
    for i, (call_id, name) in enumerate(calls):
        events.append(ToolResultStartEvent(**g.env(), reply_id=r, tool_call_id=call_id, tool_call_name=name))
        events += [ToolResultTextDeltaEvent(**g.env(), reply_id=r, tool_call_id=call_id, delta=d)
                   for d in g.deltas(_n(TOOL_RESULT_DELTAS, scale))]
        events.append(ToolResultEndEvent(**g.env(), reply_id=r, tool_call_id=call_id,
                                         state=ToolResultState.SUCCESS,
                                         metadata={"exit_code": 0, "duration_ms": 137 + 50 * i}))

    # -- model call 2: the answer and an attached 1 MiB file --------------------------
    events.append(ModelCallStartEvent(**g.env(), reply_id=r, model_name="qwen3-max"))
    block = g.id()
    events.append(TextBlockStartEvent(**g.env(), reply_id=r, block_id=block))
    events += [TextBlockDeltaEvent(**g.env(), reply_id=r, block_id=block, delta=d)
               for d in g.deltas(_n(TEXT_DELTAS[1], scale))]
    events.append(TextBlockEndEvent(**g.env(), reply_id=r, block_id=block))
    block = g.id()
    data = g.rng.randbytes(max(DATA_CHUNK, round(DATA_BYTES * scale)))
    events.append(DataBlockStartEvent(**g.env(), reply_id=r, block_id=block, media_type="audio/wav",
                                      name="answer.wav"))
    events += [DataBlockDeltaEvent(**g.env(), reply_id=r, block_id=block, media_type="audio/wav", data=chunk)
               for chunk in _data_chunks(data, g.rng if padded else None)]
    events.append(DataBlockEndEvent(**g.env(), reply_id=r, block_id=block))
    events.append(ModelCallEndEvent(**g.env(), reply_id=r, input_tokens=31_007, output_tokens=14_220,
                                    cache_input_tokens=18_432))
    events.append(ReplyEndEvent(**g.env(), session_id=SESSION_ID, reply_id=r))
    return events


def _data_chunks(data: bytes, rng: random.Random | None) -> list[bytes]:
    """``data`` in chunks of ``DATA_CHUNK`` bytes, or (with ``rng``) of
    ``DATA_CHUNK`` plus or minus 1 or 2, a length whose base64 is padded."""
    chunks = []
    at = 0
    while at < len(data):
        size = DATA_CHUNK if rng is None else DATA_CHUNK + rng.choice((-2, -1, 1, 2))
        chunks.append(data[at:at + size])
        at += size
    return chunks


def initial_msg() -> Msg:
    """The empty Msg the reply's events reduce into, made as agentscope's
    service makes it (``AssistantMsg(id=reply_id, name=..., content=[])``),
    with a fixed ``created_at``."""
    return AssistantMsg(name=AGENT_NAME, content=[], id=REPLY_ID, created_at=START_TIME)


# -- growth workloads ---------------------------------------------------------------


def text_delta_events(n: int, seed: int = 0) -> list[AgentEvent]:
    """TEXT_BLOCK_START, ``n`` TEXT_BLOCK_DELTAs of 1-20 mixed characters, TEXT_BLOCK_END."""
    g = _Gen(seed)
    block = g.id()
    deltas = g.deltas(n)
    ts = g.ts()
    # One timestamp and distinct cheap ids: generating 1M datetimes would dominate setup.
    return [
        TextBlockStartEvent(id=g.id(), created_at=ts, reply_id=REPLY_ID, block_id=block),
        *[TextBlockDeltaEvent(id=f"{i:032x}", created_at=ts, reply_id=REPLY_ID, block_id=block, delta=d)
          for i, d in enumerate(deltas)],
        TextBlockEndEvent(id=g.id(), created_at=ts, reply_id=REPLY_ID, block_id=block),
    ]


def data_delta_events(n: int, chunk: int = 4096, seed: int = 0) -> list[AgentEvent]:
    """DATA_BLOCK_START, ``n`` DATA_BLOCK_DELTAs of ``chunk`` bytes each, DATA_BLOCK_END."""
    g = _Gen(seed)
    block = g.id()
    payload = g.rng.randbytes(chunk * min(n, 64))  # reuse 64 distinct chunks: n=4096 is 16 MiB
    ts = g.ts()
    chunks = [payload[(i % 64) * chunk:(i % 64 + 1) * chunk] for i in range(n)]
    return [
        DataBlockStartEvent(id=g.id(), created_at=ts, reply_id=REPLY_ID, block_id=block,
                            media_type="application/octet-stream"),
        *[DataBlockDeltaEvent(id=f"{i:032x}", created_at=ts, reply_id=REPLY_ID, block_id=block,
                              media_type="application/octet-stream", data=c)
          for i, c in enumerate(chunks)],
        DataBlockEndEvent(id=g.id(), created_at=ts, reply_id=REPLY_ID, block_id=block),
    ]


# -- bytes --------------------------------------------------------------------------


def ndjson(events: list[AgentEvent]) -> bytes:
    """NDJSON, as ``wire.json.encode_events`` writes it."""
    return wire.json.encode_events(events)


def json_lines(events: list[AgentEvent]) -> list[bytes]:
    """One JSON document per event, without newlines."""
    return [wire.json.encode(e) for e in events]


def msgpack_array(events: list[AgentEvent]) -> bytes:
    """One MessagePack array, as ``wire.msgpack.encode_events`` writes it."""
    return wire.msgpack.encode_events(events)


def msgpack_frames(events: list[AgentEvent]) -> list[bytes]:
    """One MessagePack document per event (unframed payloads)."""
    return [wire.msgpack.encode(e) for e in events]


def as_dicts(events: list[AgentEvent]) -> list[dict[str, Any]]:
    """The events as the JSON-ready dicts wire writes (bytes as base64 str),
    for peers such as orjson that take plain dicts."""
    return [msgspec.json.decode(line) for line in json_lines(events)]
