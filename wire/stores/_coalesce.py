"""Coalescing: the deltas waiting for a reader that is behind, merged.

A reader that is behind (a slow phone, a tab that woke up, a late joiner)
does not need 20,000 text deltas one by one; it needs the text. When the
entries waiting for it hold consecutive deltas of one block, they go out as
one delta whose entry id is the last one it covers, so ``Last-Event-ID``
still resumes exactly.

Merging must not change what any reducer builds, anomalies and strict mode
included, so only deltas whose effect is a plain append are merged, and
only into a block this reader knows to be open (its START passed, or a
checkpoint showed it unfinished, and no END since): a delta to an unknown
or finished block is an anomaly the reader must see once per delta.

* text, thinking and tool-call input deltas: their strings joined;
* tool-result text deltas: joined, keeping the first event's id and time
  (the reducer names a new output item after the event that starts it);
* data-block base64 chunks of one media type: their bytes joined.

Deltas with metadata, of another type than the field holds, URL chunks,
and base64 chunks into a block whose source became a URL are passed on as
they are.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from msgspec.structs import replace

from wire import events as ev
from wire.blocks import Base64Source, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from wire.resume import read_checkpoint
from wire.stores import Entry

__all__ = ("Coalesce", "Coalescer", "hold_of", "join_hold")

_TEXT, _THINKING, _DATA, _CALL, _RESULT = "text", "thinking", "data", "call", "result"

# Event type -> (kind of block, field naming the block) for STARTs and ENDs.
_STARTS: dict[type[Any], tuple[str, str]] = {
    ev.TextBlockStartEvent: (_TEXT, "block_id"), ev.ThinkingBlockStartEvent: (_THINKING, "block_id"),
    ev.DataBlockStartEvent: (_DATA, "block_id"), ev.ToolCallStartEvent: (_CALL, "tool_call_id"),
    ev.ToolResultStartEvent: (_RESULT, "tool_call_id")}
_ENDS: dict[type[Any], tuple[str, str]] = {
    ev.TextBlockEndEvent: (_TEXT, "block_id"), ev.ThinkingBlockEndEvent: (_THINKING, "block_id"),
    ev.DataBlockEndEvent: (_DATA, "block_id"), ev.ToolCallEndEvent: (_CALL, "tool_call_id"),
    ev.ToolResultEndEvent: (_RESULT, "tool_call_id")}
_BLOCKS: dict[type[Any], str] = {TextBlock: _TEXT, ThinkingBlock: _THINKING, DataBlock: _DATA,
                                 ToolCallBlock: _CALL, ToolResultBlock: _RESULT}
# Delta type -> (kind of block, field naming the block, field holding the piece).
_DELTAS: dict[type[Any], tuple[str, str, str]] = {
    ev.TextBlockDeltaEvent: (_TEXT, "block_id", "delta"),
    ev.ThinkingBlockDeltaEvent: (_THINKING, "block_id", "delta"),
    ev.ToolCallDeltaEvent: (_CALL, "tool_call_id", "delta"),
    ev.ToolResultTextDeltaEvent: (_RESULT, "tool_call_id", "delta"),
    ev.DataBlockDeltaEvent: (_DATA, "block_id", "data")}


Coalesce: TypeAlias = bool | float
"""A reader's coalescing: False (every event as written), True (merge what
is already waiting for it), or a number of seconds a live reader's events
are also held, at most, to be merged."""


def hold_of(coalesce: Coalesce) -> float:
    """How long a live reader's events are held: the seconds, or 0."""
    if coalesce is True or coalesce is False:
        return 0.0
    if not coalesce >= 0:
        raise ValueError(f"coalesce must be a bool or a number of seconds >= 0, not {coalesce!r}")
    return float(coalesce)


def join_hold(holds: dict[Any, float], key: Any, hold: float, now: float) -> float:
    """When a hold of ``hold`` seconds that begins at ``now`` ends: at the
    end of the one under way under ``key`` (ending sooner, never later), or
    ``hold`` from now. Readers that hold together wake together and read,
    merge and encode one batch for all of them."""
    until = holds.get(key, 0.0)
    if until <= now:
        until = holds[key] = now + hold
    return until


class Coalescer:
    """One reader's coalescing: which blocks it knows to be open, across
    the batches it reads."""

    __slots__ = ("open",)

    def __init__(self) -> None:
        self.open: set[tuple[str, str, str]] = set()
        """(reply id, kind, block id) of the blocks open for this reader."""

    def batch(self, entries: list[Entry]) -> list[Entry]:
        """``entries`` with each run of mergeable deltas of one open block
        as one entry, carrying the last entry's id."""
        out: list[Entry] = []
        run: list[Any] = []  # the deltas of the run being merged
        run_key: tuple[Any, ...] | None = None
        for entry in entries:
            event = entry[1]
            cls = type(event)
            shape = _DELTAS.get(cls)
            key: tuple[Any, ...] | None = None
            if shape is not None:
                kind, field, piece = shape
                block = (event.reply_id, kind, getattr(event, field))  # type: ignore[union-attr]
                value = getattr(event, piece)
                if block in self.open and not event.metadata and (  # type: ignore[union-attr]
                        type(value) is str if cls is not ev.DataBlockDeltaEvent else
                        type(value) is bytes and event.url is None):  # type: ignore[union-attr]
                    key = (cls, block, getattr(event, "media_type", None))
            if key is not None and key == run_key:
                run.append(entry)
                continue
            if run:
                out.append(_merged(run))
            run, run_key = ([entry], key) if key is not None else ([], None)
            if key is None:
                out.append(entry)
                self._track(event)
        if run:
            out.append(_merged(run))
        return out

    def _track(self, event: Any) -> None:
        cls = type(event)
        if (shape := _STARTS.get(cls)) is not None:
            self.open.add((event.reply_id, shape[0], getattr(event, shape[1])))
        elif (shape := _ENDS.get(cls)) is not None:
            self.open.discard((event.reply_id, shape[0], getattr(event, shape[1])))
        elif cls is ev.DataBlockDeltaEvent and event.url:
            # The block's source is a URL now: a base64 chunk after it is an anomaly, one per chunk.
            self.open.discard((event.reply_id, _DATA, event.block_id))
        elif cls is ev.CustomEvent and (msg := read_checkpoint(event)) is not None:
            self.open = {block for block in self.open if block[0] != msg.id}
            for item in msg.content:
                kind = _BLOCKS.get(type(item))
                if kind is not None and item.finished_at is None and not (
                        kind == _DATA and not isinstance(item.source, Base64Source)):  # type: ignore[union-attr]
                    self.open.add((msg.id, kind, item.id))


def _merged(run: list[Entry]) -> Entry:
    """One entry for a run of deltas: the last entry's id, the first event
    with every piece."""
    if len(run) == 1:
        return run[0]
    first = run[0][1]
    if type(first) is ev.DataBlockDeltaEvent:
        data = b"".join(event.data for _, event in run)  # type: ignore[union-attr, misc]
        return run[-1][0], ev.DataBlockDeltaEvent(id=first.id, created_at=first.created_at, reply_id=first.reply_id,
                                               block_id=first.block_id, media_type=first.media_type, data=data)
    joined = "".join(event.delta for _, event in run)  # type: ignore[union-attr]
    return run[-1][0], replace(first, delta=joined)  # type: ignore[type-var]
