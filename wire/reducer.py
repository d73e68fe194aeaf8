"""The reducer behind ``Msg.append_event``: events in, one Msg out.

Semantics are agentscope 2.0.11's ``Msg.append_event`` (``agentscope.message``): the same
blocks, text, inputs, outputs, states, rules, usage and finish fields for every
well-formed stream. What differs, on purpose:

* Cost. agentscope scans every block per event, copies the whole text per
  delta and re-encodes the whole base64 payload per data chunk. Here blocks are
  found through dicts and text and bytes grow in place (below): O(1) amortized
  per event.
* Determinism. Blocks take ``created_at`` from the event that made them, and a
  TextBlock made inside a tool result takes the id of the delta that made it,
  so replaying the same events gives byte-identical JSON at any time.
  agentscope stamps these with the apply-time clock and fresh ids.
* Bad streams. Everything agentscope would warn about and skip, or do
  silently, or crash on, is recorded as an :class:`Anomaly` with the event's
  index. By default the reducer then does what agentscope does (append the
  orphan block of a duplicate START, append a delta after END...) except where
  agentscope crashes or would break the Msg (a data chunk after a URL, a block
  the role forbids): those events are skipped. With ``strict=True`` the first
  anomaly raises :class:`~wire.errors.StreamOrderError` before anything changes.

Growing in place. A block's fields always hold its whole value between two
calls (a copy, ``msgspec.structs.asdict`` or a bare msgspec encode of a Msg
still being built sees all of it), yet appending costs no copy of what is
there:

* Text (``text``, ``thinking``, ``input``, a tool result's text) grows by
  str concatenation after the block has let go of its reference, so that the
  string has one owner and CPython resizes it in place instead of copying it
  (``_grow_text``). A string somebody else holds (a reader kept ``block.text``)
  is copied once, so what they hold never changes. Runs of deltas to one block
  in ``extend_events`` are joined first and concatenated once.
* Bytes of an open data block grow in a ``bytearray`` held by the source,
  which becomes ``bytes`` at the block's END (``_append_data``, ``_seal``).
  A bytearray somebody else holds is copied before it grows, for the same
  reason. msgspec writes a bytearray exactly as bytes (base64 in JSON, bin in
  MessagePack), so an open block encodes as a finished one would.
* Nothing the reducer keeps is shared with an event: blocks carried by an
  event (an EXTERNAL_EXECUTION_RESULT's outputs, a HINT_BLOCK's parts) are
  copied down to their sources, and metadata, errors and permission rules
  down to their scalars, before they join the Msg, so neither later chunks
  nor a caller changing the Msg ever change the event a log keeps.
* Events built in Python are not type-checked by their constructors
  (msgspec checks types when decoding, not in ``__init__``): a delta, data
  chunk, URL or block id of the wrong type is an anomaly (``wrong_type``)
  and skipped, before anything changes.

No bytes and no IO here: events are already decoded.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from msgspec import Struct, structs

from wire import events as ev
from wire._portable import saturated
from wire.blocks import (
    ROLE_BLOCKS,
    Base64Source,
    ContentBlock,
    DataBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallState,
    ToolResultBlock,
    URLSource,
)
from wire.errors import StreamOrderError

if TYPE_CHECKING:
    from wire.messages import Msg

# A block the reducer finds by id (each kind has its own table).
B = TypeVar("B", TextBlock, ThinkingBlock, DataBlock, ToolCallBlock, ToolResultBlock)
# What an anomaly can be about: an event of this version, or one of a newer type.
Applied: TypeAlias = ev.AgentEvent | ev.UnknownEvent

__all__ = ("MAX_ANOMALIES", "Anomaly", "AnomalyKind", "Reducer")

# A hostile stream must not grow a Msg without bound: the first MAX_ANOMALIES
# are kept in ``anomalies``, later ones only counted in ``anomalies_dropped``
# (set ``wire.reducer.MAX_ANOMALIES`` to change it); an id quoted in a detail
# is cut to _ID_SHOWN characters.
MAX_ANOMALIES = 1000
_ID_SHOWN = 64


class AnomalyKind(enum.StrEnum):
    """The names an :class:`Anomaly` ``kind`` takes (strings, like every
    other vocabulary of wire's)."""

    OTHER_REPLY = "other_reply"  # reply_id differs from the Msg's id: skipped
    UNKNOWN_BLOCK = "unknown_block"  # delta/END before its START or for no block: skipped
    DUPLICATE_START = "duplicate_start"  # START for an id that exists: orphan block appended
    AFTER_END = "after_end"  # delta or END for a finished block: applied anyway
    DATA_AFTER_URL = "data_after_url"  # base64 chunk into a URL-sourced block: skipped
    INVALID_URL = "invalid_url"  # a URL that is not absolute: skipped
    UNKNOWN_TOOL_CALL = "unknown_tool_call"  # REQUIRE_*/USER_CONFIRM_RESULT for no call: ignored
    NOT_ASKING = "not_asking"  # USER_CONFIRM_RESULT for a call that was not asking: ignored
    ROLE_FORBIDS = "role_forbids"  # a block the Msg's role does not allow: skipped
    UNKNOWN_EVENT = "unknown_event"  # an UnknownEvent (a type newer than wire): skipped
    AFTER_REPLY_END = "after_reply_end"  # a block started after the reply's REPLY_END: applied anyway
    WRONG_TYPE = "wrong_type"  # a value of the wrong type (an event built without checks): skipped


class Anomaly(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Something in the stream the reducer could not apply as a well-formed
    stream would have it. ``index`` counts events applied to this Msg from 0."""

    index: int
    kind: AnomalyKind
    event_type: str
    id: str | None = None
    detail: str = ""


class Reducer:
    """The reducer state of one Msg: block indexes and anomalies.

    Built lazily from the Msg's content, so a Msg decoded from a checkpoint
    snapshot resumes exactly where the one that was encoded stopped. Open
    blocks are those whose ``finished_at`` is still null, which the snapshot
    carries too.
    """

    __slots__ = (
        "allowed",
        "anomalies",
        "anomalies_dropped",
        "calls",
        "data",
        "index",
        "msg",
        "result_data",
        "results",
        "run_block",
        "run_by_call",
        "run_grow",
        "run_id",
        "run_type",
        "strict",
        "text",
        "thinking",
    )

    def __init__(self, msg: Msg) -> None:
        self.msg = msg
        self.index = 0
        self.anomalies: list[Anomaly] = []
        self.anomalies_dropped = 0
        self.strict = False
        # First block wins for a repeated id, as agentscope's linear scan does.
        self.text: dict[str, TextBlock] = {}
        self.thinking: dict[str, ThinkingBlock] = {}
        self.data: dict[str, DataBlock] = {}
        self.calls: dict[str, ToolCallBlock] = {}
        self.results: dict[str, ToolResultBlock] = {}
        # tool_call_id -> {block_id: source of the first base64 DataBlock with
        # that id in the result's output}: later chunks with the id merge there.
        self.result_data: dict[str, dict[str, Base64Source]] = {}
        rule = ROLE_BLOCKS[msg.role]
        self.allowed = rule[0] if rule is not None else None
        # The run of deltas the last event began or continued (see apply):
        # its delta type (None: no run), block id, block, grower, and whether
        # its events name the block by tool_call_id (else block_id).
        self.run_type: type | None = None
        self.run_id = ""
        self.run_block: Any = None
        self.run_grow: Callable[[Any, str], None] = _grow_text
        self.run_by_call = False
        for block in msg.content:
            self._index(block)

    # -- indexing -------------------------------------------------------------

    def _index(self, block: ContentBlock) -> None:
        table = self._table(type(block))
        if table is not None:
            table.setdefault(block.id, block)

    def _table(self, cls: type) -> dict[str, Any] | None:  # the dict of cls's blocks
        if cls is TextBlock:
            return self.text
        if cls is ThinkingBlock:
            return self.thinking
        if cls is DataBlock:
            return self.data
        if cls is ToolCallBlock:
            return self.calls
        if cls is ToolResultBlock:
            return self.results
        return None

    def _add(self, block: ContentBlock, event: ev.AgentEvent, table: dict[str, B] | None) -> None:
        if type(block.id) is not str:
            self.anomaly(AnomalyKind.WRONG_TYPE, event, None, _wrong("the block's id", block.id, "a string"))
            return
        if self.msg.finished_at is not None:  # agentscope appends it all the same
            self.anomaly(AnomalyKind.AFTER_REPLY_END, event, block.id,
                         "the reply had already ended; the block is still appended")
        if self.allowed is not None and type(block) not in self.allowed:
            self.anomaly(AnomalyKind.ROLE_FORBIDS, event, block.id,
                         f"a {self.msg.role} message cannot hold a {block.type!r} block")
            return
        if table is not None and block.id in table:
            self.anomaly(AnomalyKind.DUPLICATE_START, event, block.id,
                         "a block with this id exists; the new one is an orphan")
            self.msg.content.append(block)
            return
        self.msg.content.append(block)
        self._index(block)

    # -- anomalies --------------------------------------------------------------

    def anomaly(self, kind: AnomalyKind, event: Applied, id: str | None, detail: str) -> None:
        self._record(kind, event.type, id, detail)

    def _record(self, kind: AnomalyKind, event_type: str, id: str | None, detail: str) -> None:
        if self.strict:
            raise StreamOrderError(f"{event_type}: {detail}" + (f" (id {id[:_ID_SHOWN]!r})" if id else ""),
                                   kind=kind, index=self.index)
        if len(self.anomalies) >= MAX_ANOMALIES:
            self.anomalies_dropped += 1
            return
        self.anomalies.append(Anomaly(index=self.index, kind=kind, event_type=event_type, id=id, detail=detail))

    def find(self, table: dict[str, B], event: ev.AgentEvent, id: str) -> B | None:
        block = table.get(id)
        if block is None:
            self.anomaly(AnomalyKind.UNKNOWN_BLOCK, event, id, "no block was started with this id")
        return block

    # -- entry points -------------------------------------------------------------

    def apply(self, event: ev.AgentEvent | ev.UnknownEvent) -> None:
        """Apply one event; ``self.index`` counts it whether or not it applies.

        A delta that grew an open block cleanly (no anomaly) begins a run:
        the next deltas of its type to the same block of this reply can only
        append to it, which ``Msg.append_event`` and ``apply_all`` then do
        without coming back here (``run_*``). Any other event ends the run."""
        self.run_type = None
        cls = type(event)
        handler = _HANDLERS.get(cls)
        if handler is None:
            if type(event) is not ev.UnknownEvent:
                raise TypeError(f"not an AgentEvent: {type(event).__name__}")
            try:  # a newer peer's event type: nothing this version can apply
                self.anomaly(AnomalyKind.UNKNOWN_EVENT, event, None,
                             f"wire does not know the event type {event.type!r}; skipped")
            finally:
                self.index += 1
            return
        try:
            if type(event) is not ev.CustomEvent and event.reply_id != self.msg.id:  # type: ignore[union-attr]
                self.anomaly(AnomalyKind.OTHER_REPLY, event, event.reply_id,  # type: ignore[union-attr]
                             f"the message's id is {self.msg.id[:_ID_SHOWN]!r}")
                return
            seen = len(self.anomalies) + self.anomalies_dropped
            handler(self, event)
            run = _RUNS.get(cls)
            if run is not None and len(self.anomalies) + self.anomalies_dropped == seen:
                table, grow, by_call = run
                id = event.tool_call_id if by_call else event.block_id  # type: ignore[union-attr]
                block = getattr(self, table)[id]
                if block.finished_at is None:
                    self.run_type, self.run_id, self.run_block = cls, id, block
                    self.run_grow, self.run_by_call = grow, by_call
        finally:
            self.index += 1

    def apply_all(self, events: Iterable[ev.AgentEvent | ev.UnknownEvent]) -> None:
        """``apply`` for each event, faster for runs of deltas.

        Nearly every event of a reply is a delta to the block the previous
        event touched. Once a delta has gone through ``apply`` cleanly, the
        next deltas of the same type to the same open block are collected and
        joined onto the block once, when the run ends (before any other event
        is applied, and before this call returns, even by an exception). Any
        other event goes through ``apply`` and ends the run, so an END, a
        duplicate START or an anomaly is never skipped.
        """
        msg_id = self.msg.id
        # The run's delta type, block id, block and grower (see apply): the
        # one the last call left, if its block is still open (a reader
        # feeding batches goes on with the run across them).
        run_type, run_id, run_block = self.run_type, self.run_id, self.run_block
        run_grow, by_call = self.run_grow, self.run_by_call
        if run_type is not None and run_block.finished_at is not None:
            run_type = None
        # The deltas of the run, whose indexes follow self.index (counted when
        # the run is joined). Their type is checked by the join, not per delta.
        parts: list[Any] = []
        append = parts.append
        try:
            for event in events:
                cls = type(event)
                if cls is run_type and event.reply_id == msg_id and (  # type: ignore[union-attr]
                        event.tool_call_id if by_call else event.block_id) == run_id:  # type: ignore[union-attr]
                    append(event.delta)  # type: ignore[union-attr]
                    continue
                if parts:
                    self._join(run_block, run_grow, parts, run_type)  # type: ignore[arg-type]
                self.apply(event)
                run_type = self.run_type
                if run_type is not None:
                    run_id, run_block, run_grow, by_call = self.run_id, self.run_block, self.run_grow, self.run_by_call
        finally:
            if parts:
                self._join(run_block, run_grow, parts, run_type)  # type: ignore[arg-type]

    def _join(self, block: Any, grow: Callable[[Any, str], None], parts: list[Any], cls: type) -> None:
        """Grow ``block`` by a run of deltas (and count them), then empty
        ``parts``. A delta that is not a string (an event built in Python:
        constructors do not check types) is the anomaly ``apply`` would
        record, at its own index, and the run's other deltas still apply; with
        ``strict`` it raises after the deltas before it, as ``apply`` would."""
        start = self.index
        try:
            joined = "".join(parts)
        except TypeError:
            good: list[str] = []
            try:
                for k, part in enumerate(parts):
                    if type(part) is str:
                        good.append(part)
                        continue
                    if good:
                        grow(block, "".join(good))
                        good.clear()
                    self.index = start + k
                    self._record(AnomalyKind.WRONG_TYPE, cls.event_type,  # type: ignore[attr-defined]
                                 None, _wrong("delta", part, "a string"))
                joined = "".join(good)
            except BaseException:
                self.index += 1  # the offending delta counts, as apply counts it
                parts.clear()
                raise
        grow(block, joined)
        self.index = start + len(parts)
        parts.clear()


# Text grows in place: each grower makes the block let go of its string
# first, so that the local name holds the only reference and CPython's
# in-place str concatenation resizes the string instead of copying it
# (linear in the number of deltas: the growth cases of
# benchmarks/bench_reducer.py compare 10k, 100k and 1M). A string held
# elsewhere as well is copied, as ``+`` always does. One function per field:
# attribute access by name is cheaper than through the field's descriptor
# (benchmarks/README.md), and this is the reducer's hottest line.


def _grow_text(block: TextBlock, part: str) -> None:
    text = block.text
    block.text = ""
    text += part
    block.text = text


def _grow_thinking(block: ThinkingBlock, part: str) -> None:
    thinking = block.thinking
    block.thinking = ""
    thinking += part
    block.thinking = thinking


def _grow_input(block: ToolCallBlock, part: str) -> None:
    input = block.input
    block.input = ""
    input += part
    block.input = input


def _append_data(source: Base64Source, chunk: bytes | memoryview) -> None:
    """Append ``chunk`` to an open source's data, a bytearray from the first
    chunk on. One held by anyone but the source (``getrefcount`` counts its
    argument, this local and the source's slot) is copied first, so that
    what a reader took never changes under them."""
    data: Any = source.data
    if type(data) is bytearray and sys.getrefcount(data) <= 3:
        data += chunk
        return
    grown = bytearray(data)
    grown += chunk
    # A bytearray stands in for bytes until the block ends (see the module docstring).
    source.data = cast(bytes, grown)


def _grow_output(block: ToolResultBlock, part: str) -> None:
    """A tool result's text delta in a run: its output's last item is the
    text block the run's first delta grew or made."""
    _grow_text(cast(TextBlock, cast(list[Any], block.output)[-1]), part)


def _seal(source: object) -> None:
    """An ended data block's bytes become ``bytes``."""
    if type(source) is Base64Source:
        data: Any = source.data
        if type(data) is bytearray:
            source.data = bytes(data)


def _finish(r: Reducer, table: dict[str, B], event: ev.AgentEvent, id: str) -> B | None:
    block = r.find(table, event, id)
    if block is not None:
        if block.finished_at is not None:
            r.anomaly(AnomalyKind.AFTER_END, event, id, "the block had already ended")
        block.finished_at = event.created_at
    return block


def _grow(r: Reducer, table: dict[str, B], grow: Callable[[B, str], None], event: ev.AgentEvent, id: str,
          part: str) -> None:
    if type(part) is not str:  # before anything changes: the grower lets go of the text first
        r.anomaly(AnomalyKind.WRONG_TYPE, event, None, _wrong("delta", part, "a string"))
        return
    block = r.find(table, event, id)
    if block is None:
        return
    if block.finished_at is not None:
        r.anomaly(AnomalyKind.AFTER_END, event, id, "a delta after the block's END is still appended")
    grow(block, part)


# -- handlers, one per event type ------------------------------------------------


def _ignore(r: Reducer, event: Any) -> None:
    """Events with no effect on the Msg (CUSTOM has no reply_id at all)."""


def _reply_end(r: Reducer, e: ev.ReplyEndEvent) -> None:
    msg = r.msg
    msg.finished_at = e.created_at
    msg.finished_reason = e.finished_reason
    msg.error = None if e.error is None else structs.replace(e.error)


def _model_call_end(r: Reducer, e: ev.ModelCallEndEvent) -> None:
    msg = r.msg
    u = msg.usage
    if u is None:
        msg.usage = ev.Usage(input_tokens=e.input_tokens, output_tokens=e.output_tokens,
                          cache_input_tokens=e.cache_input_tokens,
                          cache_creation_input_tokens=e.cache_creation_input_tokens)
    else:
        msg.usage = ev.Usage(input_tokens=saturated(u.input_tokens + e.input_tokens),
                          output_tokens=saturated(u.output_tokens + e.output_tokens),
                          cache_input_tokens=saturated(u.cache_input_tokens + e.cache_input_tokens),
                          cache_creation_input_tokens=saturated(u.cache_creation_input_tokens
                                                                + e.cache_creation_input_tokens))


def _text_start(r: Reducer, e: ev.TextBlockStartEvent) -> None:
    r._add(TextBlock(text="", id=e.block_id, created_at=e.created_at), e, r.text)


def _text_delta(r: Reducer, e: ev.TextBlockDeltaEvent) -> None:
    _grow(r, r.text, _grow_text, e, e.block_id, e.delta)


def _text_end(r: Reducer, e: ev.TextBlockEndEvent) -> None:
    if e.text is not None and type(e.text) is not str:
        r.anomaly(AnomalyKind.WRONG_TYPE, e, None, _wrong("text", e.text, "a string or null"))
        return
    block = _finish(r, r.text, e, e.block_id)
    if block is not None and e.text is not None:
        block.text = e.text


def _thinking_start(r: Reducer, e: ev.ThinkingBlockStartEvent) -> None:
    r._add(ThinkingBlock(thinking="", id=e.block_id, created_at=e.created_at), e, r.thinking)


def _thinking_delta(r: Reducer, e: ev.ThinkingBlockDeltaEvent) -> None:
    _grow(r, r.thinking, _grow_thinking, e, e.block_id, e.delta)


def _thinking_end(r: Reducer, e: ev.ThinkingBlockEndEvent) -> None:
    _finish(r, r.thinking, e, e.block_id)


def _data_start(r: Reducer, e: ev.DataBlockStartEvent) -> None:
    source = Base64Source(data=b"", media_type=e.media_type)
    r._add(DataBlock(id=e.block_id, source=source, name=e.name, created_at=e.created_at), e, r.data)


def _data_delta(r: Reducer, e: ev.DataBlockDeltaEvent) -> None:
    if not _chunk_typed(r, e):
        return
    # agentscope tests truthiness here: an empty data or url chunk is a no-op.
    if e.url:
        block = r.find(r.data, e, e.block_id)
        if block is None:
            return
        try:
            source = URLSource(url=e.url, media_type=e.media_type)
        except ValueError as exc:
            r.anomaly(AnomalyKind.INVALID_URL, e, e.block_id, str(exc))
            return
        if block.finished_at is not None:
            r.anomaly(AnomalyKind.AFTER_END, e, e.block_id, "a chunk after the block's END is still applied")
        block.source = source  # discards any base64 so far, as agentscope does
    elif e.data:
        block = r.find(r.data, e, e.block_id)
        if block is None:
            return
        if not isinstance(block.source, Base64Source):
            r.anomaly(AnomalyKind.DATA_AFTER_URL, e, e.block_id,
                      "a base64 chunk cannot follow a URL (agentscope raises AttributeError)")
            return
        if block.finished_at is not None:
            r.anomaly(AnomalyKind.AFTER_END, e, e.block_id, "a chunk after the block's END is still appended")
        # The delta's media_type is ignored: the START's stays (as in agentscope).
        _append_data(block.source, e.data)


def _data_end(r: Reducer, e: ev.DataBlockEndEvent) -> None:
    block = _finish(r, r.data, e, e.block_id)
    if block is not None:
        _seal(block.source)


def _hint(r: Reducer, e: ev.HintBlockEvent) -> None:
    hint = [_own(part) for part in e.hint] if isinstance(e.hint, list) else e.hint
    block = HintBlock(hint=hint, id=e.block_id, source=e.source,
                      created_at=e.created_at, finished_at=e.created_at)
    r._add(block, e, None)


def _call_start(r: Reducer, e: ev.ToolCallStartEvent) -> None:
    block = ToolCallBlock(id=e.tool_call_id, name=e.tool_call_name, input="", created_at=e.created_at)
    r._add(block, e, r.calls)


def _call_delta(r: Reducer, e: ev.ToolCallDeltaEvent) -> None:
    _grow(r, r.calls, _grow_input, e, e.tool_call_id, e.delta)


def _call_end(r: Reducer, e: ev.ToolCallEndEvent) -> None:
    _finish(r, r.calls, e, e.tool_call_id)


def _result_start(r: Reducer, e: ev.ToolResultStartEvent) -> None:
    block = ToolResultBlock(id=e.tool_call_id, name=e.tool_call_name, output=[], created_at=e.created_at)
    r._add(block, e, r.results)


def _output_list(block: ToolResultBlock, e: Any) -> list[TextBlock | DataBlock]:
    """A str output becomes one TextBlock first, as in agentscope; its id is the
    id of the event that forced the change, so replays agree."""
    output = block.output
    if isinstance(output, str):
        output = block.output = [TextBlock(text=output, id=e.id, created_at=e.created_at)]
    return output


def _result_text(r: Reducer, e: ev.ToolResultTextDeltaEvent) -> None:
    if type(e.delta) is not str:
        r.anomaly(AnomalyKind.WRONG_TYPE, e, None, _wrong("delta", e.delta, "a string"))
        return
    block = r.find(r.results, e, e.tool_call_id)
    if block is None:
        return
    if block.finished_at is not None:
        r.anomaly(AnomalyKind.AFTER_END, e, e.tool_call_id, "a delta after the result's END is still appended")
    output = _output_list(block, e)
    if output and type(last := output[-1]) is TextBlock:
        _grow_text(last, e.delta)
    else:
        output.append(TextBlock(text=e.delta, id=e.id, created_at=e.created_at))


def _result_data(r: Reducer, e: ev.ToolResultDataDeltaEvent) -> None:
    if not _chunk_typed(r, e):
        return
    block = r.find(r.results, e, e.tool_call_id)
    if block is None:
        return
    source: Base64Source | URLSource
    if e.data is not None:
        source = Base64Source(data=b"", media_type=e.media_type)
    else:
        try:
            source = URLSource(url=e.url or "", media_type=e.media_type)
        except ValueError as exc:
            r.anomaly(AnomalyKind.INVALID_URL, e, e.block_id, str(exc))
            return
    if block.finished_at is not None:
        r.anomaly(AnomalyKind.AFTER_END, e, e.tool_call_id, "a chunk after the result's END is still applied")
    output = _output_list(block, e)
    chunks = r.result_data.get(block.id)
    if chunks is None:
        chunks = r.result_data[block.id] = _data_index(output)
    if isinstance(source, Base64Source) and e.data is not None:
        target = chunks.get(e.block_id)
        if target is not None:
            _append_data(target, e.data)
            if source.media_type:  # an empty media_type keeps the old one, as in agentscope
                target.media_type = source.media_type
            return
        _append_data(source, e.data)
        chunks[e.block_id] = source
    output.append(DataBlock(id=e.block_id, source=source, created_at=e.created_at))


def _data_index(output: list[Any]) -> dict[str, Base64Source]:
    """block_id -> the source of the first base64 DataBlock of one result's
    output (URL blocks never take chunks)."""
    index: dict[str, Base64Source] = {}
    for part in output:
        if type(part) is DataBlock and type(part.source) is Base64Source:
            index.setdefault(part.id, part.source)
    return index


def _result_end(r: Reducer, e: ev.ToolResultEndEvent) -> None:
    block = _finish(r, r.results, e, e.tool_call_id)
    if block is None:
        return
    block.state = e.state
    block.metadata = _copied(e.metadata)  # replaced, not merged, as in agentscope
    if isinstance(block.output, list):
        for part in block.output:
            if type(part) is DataBlock:
                _seal(part.source)
    call = r.calls.get(e.tool_call_id)
    if call is not None:
        call.state = ToolCallState.FINISHED


def _calls(r: Reducer, e: Any, ids: Iterable[str]) -> list[ToolCallBlock | None]:
    """The Msg's tool call for each id (None for an unknown one, an anomaly).

    Every id of a multi-call event is looked up before the caller changes
    anything, so in strict mode an unknown id leaves the Msg as it was."""
    found: list[ToolCallBlock | None] = []
    for id in ids:
        call = r.calls.get(id)
        if call is None:
            r.anomaly(AnomalyKind.UNKNOWN_TOOL_CALL, e, id, "no tool call with this id")
        found.append(call)
    return found


def _require_confirm(r: Reducer, e: ev.RequireUserConfirmEvent) -> None:
    for asked, call in zip(e.tool_calls, _calls(r, e, [c.id for c in e.tool_calls]), strict=True):
        if call is not None:
            call.state = ToolCallState.ASKING
            call.suggested_rules = [structs.replace(rule) for rule in asked.suggested_rules]


def _require_external(r: Reducer, e: ev.RequireExternalExecutionEvent) -> None:
    for call in _calls(r, e, [c.id for c in e.tool_calls]):
        if call is not None:
            call.state = ToolCallState.SUBMITTED  # from any state, even finished


def _confirm_result(r: Reducer, e: ev.UserConfirmResultEvent) -> None:
    # Results apply in order (a second result for one call sees the state the
    # first left, as in agentscope); they are worked out before any is applied.
    states: dict[str, ToolCallState] = {}
    calls = _calls(r, e, [result.tool_call.id for result in e.confirm_results])
    for result, call in zip(e.confirm_results, calls, strict=True):
        if call is None:
            continue
        state = states.get(call.id, call.state)
        if state != ToolCallState.ASKING:
            r.anomaly(AnomalyKind.NOT_ASKING, e, call.id, f"the call is {state.value}, not asking")
        else:
            # The user's edited name and input are not copied, as in agentscope.
            states[call.id] = ToolCallState.ALLOWED if result.confirmed else ToolCallState.FINISHED
    for id, state in states.items():
        r.calls[id].state = state


def _external_result(r: Reducer, e: ev.ExternalExecutionResultEvent) -> None:
    existing = set(r.results)  # taken once: duplicates inside one event both append
    for result in e.execution_results:
        if result.id in existing:
            continue  # normal: the agent already streamed this result
        output = [_own(part) for part in result.output] if isinstance(result.output, list) else result.output
        copy = structs.replace(result, output=output, metadata=_copied(result.metadata),
                               finished_at=e.created_at if result.finished_at is None else result.finished_at)
        r._add(copy, e, None)


def _copied(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a free-form value (JSON's data model, wire._portable) down
    to its scalars, without recursion: nesting as deep as a decoder allows
    costs no stack. Empty, the common case, costs one dict."""
    if not value:
        return {}
    top: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(value, top)]
    while stack:
        source, target = stack.pop()
        for key, item in (source.items() if type(source) is dict else enumerate(source)):
            cls = type(item)
            if cls is dict or cls is list:
                copy: Any = {} if cls is dict else [None] * len(item)
                stack.append((item, copy))
                item = copy
            target[key] = item
    return top


def _chunk_typed(r: Reducer, e: ev.DataBlockDeltaEvent | ev.ToolResultDataDeltaEvent) -> bool:
    """Whether a data chunk's payload has its type (bytes, or a URL string);
    an anomaly otherwise."""
    if e.data is not None and not isinstance(e.data, (bytes, bytearray, memoryview)):
        r.anomaly(AnomalyKind.WRONG_TYPE, e, None, _wrong("data", e.data, "bytes"))
        return False
    if e.url is not None and type(e.url) is not str:
        r.anomaly(AnomalyKind.WRONG_TYPE, e, None, _wrong("url", e.url, "a string"))
        return False
    return True


def _wrong(field: str, value: object, wanted: str) -> str:
    return f"{field} is {type(value).__name__}, not {wanted} (an event built without its types checked); skipped"


def _own(part: TextBlock | DataBlock) -> TextBlock | DataBlock:
    """A copy of an event's output part for the Msg, down to its source,
    so that chunks the Msg takes later never reach the event."""
    if type(part) is DataBlock:
        return structs.replace(part, source=structs.replace(part.source))
    return structs.replace(part)


_HANDLERS: dict[type, Callable[[Reducer, Any], None]] = {
    ev.ReplyStartEvent: _ignore,  # a continuation REPLY_START must not reset anything
    ev.ReplyEndEvent: _reply_end,
    ev.ModelCallStartEvent: _ignore,
    ev.ModelCallEndEvent: _model_call_end,
    ev.TextBlockStartEvent: _text_start,
    ev.TextBlockDeltaEvent: _text_delta,
    ev.TextBlockEndEvent: _text_end,
    ev.DataBlockStartEvent: _data_start,
    ev.DataBlockDeltaEvent: _data_delta,
    ev.DataBlockEndEvent: _data_end,
    ev.ThinkingBlockStartEvent: _thinking_start,
    ev.ThinkingBlockDeltaEvent: _thinking_delta,
    ev.ThinkingBlockEndEvent: _thinking_end,
    ev.HintBlockEvent: _hint,
    ev.ToolCallStartEvent: _call_start,
    ev.ToolCallDeltaEvent: _call_delta,
    ev.ToolCallEndEvent: _call_end,
    ev.ToolResultStartEvent: _result_start,
    ev.ToolResultTextDeltaEvent: _result_text,
    ev.ToolResultDataDeltaEvent: _result_data,
    ev.ToolResultEndEvent: _result_end,
    ev.ExceedMaxItersEvent: _ignore,
    ev.RequireUserConfirmEvent: _require_confirm,
    ev.RequireExternalExecutionEvent: _require_external,
    ev.UserConfirmResultEvent: _confirm_result,
    ev.UserInterruptEvent: _ignore,
    ev.ExternalExecutionResultEvent: _external_result,
    ev.CustomEvent: _ignore,
}

# Delta types that make runs (Reducer.apply): the Reducer table that holds
# their blocks, the grower of the field they grow (a tool result's text
# deltas grow its output's last text block), and whether the event names its
# block by ``tool_call_id`` (else ``block_id``).
_RUNS: dict[type, tuple[str, Callable[[Any, str], None], bool]] = {
    ev.TextBlockDeltaEvent: ("text", _grow_text, False),
    ev.ThinkingBlockDeltaEvent: ("thinking", _grow_thinking, False),
    ev.ToolCallDeltaEvent: ("calls", _grow_input, True),
    ev.ToolResultTextDeltaEvent: ("results", _grow_output, True),
}

