"""Coalescing: the deltas waiting for a reader that is behind, merged.

A reader that is behind (a slow phone, a tab that woke up, a late joiner)
does not need 20,000 text deltas one by one; it needs the text. When the
entries waiting for it hold consecutive deltas of one block, they go out as
one delta whose entry id is the last one it covers, so ``Last-Event-ID``
still resumes exactly.

Merging must not change what any reducer builds, anomalies and strict mode
included, so only deltas whose effect is a plain append are merged, and
only into a block this reader knows to be open, as a session reader
(``wire.session.Session``) holds it: a delta to an unknown or finished block
is an anomaly the reader must see once per delta. A block is open from a
START its reducer took (the first with its id in its reply, of a type the
reply's role allows: a START again, even after the END, makes an orphan
and the deltas go to the first; a forbidden one is skipped), or from a
checkpoint that holds it unfinished (the first block with its id: the
reducer indexes that one), until its END; a ``wire.restart`` forgets every
reply. So the coalescer keeps, per reply, the block ids its Msg holds and
the role it began with (a reply joined without its REPLY_START is an
assistant's). For a reader that resumed by replay, it knows only what it
read: blocks begun before are not open for it (their deltas pass one by
one).

* text, thinking and tool-call input deltas: their strings joined;
* tool-result text deltas: joined, keeping the first event's id and time
  (the reducer names a new output item after the event that starts it);
* data-block base64 chunks of one media type: their bytes joined.

Deltas with metadata, of another type than the field holds, URL chunks,
and base64 chunks into a block whose source became a URL are passed on as
they are.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeAlias

from msgspec.structs import replace

from wire import events as ev
from wire.blocks import (
    ROLE_BLOCKS,
    Base64Source,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from wire.resume import RESTART, read_checkpoint
from wire.stores import Entry

__all__ = ("Coalesce", "CoalescerState", "Coalescer", "hold_of", "join_hold")

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
# Role -> the kinds of block a reply of that role may hold (None: any), from the role table.
_ALLOWED: dict[str, frozenset[str] | None] = {
    role: None if rule is None else frozenset(_BLOCKS[cls] for cls in rule[0] if cls in _BLOCKS)
    for role, rule in ROLE_BLOCKS.items()}
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


class _Reply(NamedTuple):
    """What a coalescer knows of one reply's Msg."""

    allowed: frozenset[str] | None
    """The kinds of block its role allows (None: any)."""
    seen: frozenset[tuple[str, str]]
    """(kind, block id) of every block its Msg indexes: a START of one of
    them makes an orphan, never opens a block."""


class CoalescerState:
    """A coalescer's state between batches, immutable and hashable: what the
    stores key the batches they merge once for many readers by (readers in
    the same state get the same merged entries). Equal states compare equal
    whoever made them; the replies' part is shared, not copied, between the
    readers that take a state from such a cache."""

    __slots__ = ("_hash", "open", "replies", "replies_hash")

    def __init__(self, open: frozenset[tuple[str, str, str]], replies: dict[str, _Reply], replies_hash: int) -> None:
        self.open = open
        self.replies = replies  # never changed once in a state
        self.replies_hash = replies_hash
        self._hash = hash((open, replies_hash))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is CoalescerState and self._hash == other._hash
                                 and self.open == other.open
                                 and (self.replies is other.replies or self.replies == other.replies))


_MASK = (1 << 64) - 1


class Coalescer:
    """One reader's coalescing: which blocks it knows to be open, and what
    each reply's Msg holds, across the batches it reads."""

    __slots__ = ("_owned", "_replies", "_replies_hash", "open")

    def __init__(self) -> None:
        self.open: set[tuple[str, str, str]] = set()
        """(reply id, kind, block id) of the blocks open for this reader."""
        self._replies: dict[str, _Reply] = {}
        # The sum of hash((reply id, _Reply)) over _replies (mod 2**64), kept as they change: a state's
        # hash costs nothing per batch however many replies the session has.
        self._replies_hash = 0
        self._owned = True  # _replies is this coalescer's own (not a state's): it may be changed in place

    @property
    def state(self) -> CoalescerState:
        """Where this coalescer is; a coalescer given a state goes on from it."""
        self._owned = False  # the state holds _replies now: the next change copies it
        return CoalescerState(frozenset(self.open), self._replies, self._replies_hash)

    @state.setter
    def state(self, state: CoalescerState) -> None:
        self.open = set(state.open)
        self._replies = state.replies
        self._replies_hash = state.replies_hash
        self._owned = False

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
            self._start(event, shape[0], getattr(event, shape[1]))
        elif (shape := _ENDS.get(cls)) is not None:
            self.open.discard((event.reply_id, shape[0], getattr(event, shape[1])))
        elif cls is ev.ReplyStartEvent:
            if event.reply_id not in self._replies:  # a continuation's REPLY_START changes nothing
                self._set(event.reply_id, _Reply(_ALLOWED.get(event.role), frozenset()))
        elif cls is ev.DataBlockDeltaEvent and event.url:
            # The block's source is a URL now: a base64 chunk after it is an anomaly, one per chunk.
            self.open.discard((event.reply_id, _DATA, event.block_id))
        elif cls is ev.CustomEvent:
            if event.name == RESTART:  # the reader drops every reply
                self.open = set()
                self._replies, self._replies_hash, self._owned = {}, 0, True
            elif (msg := read_checkpoint(event)) is not None:
                self._checkpoint(msg)

    def _start(self, event: Any, kind: str, block_id: Any) -> None:
        """A START, as the reader's reducer takes it: it opens a block only
        if the reply's role allows it and its Msg has no block of that id."""
        reply_id = event.reply_id
        reply = self._replies.get(reply_id)
        if reply is None:  # joined: the reader begins an assistant's Msg (join_reply)
            reply = _Reply(None, frozenset())
        if type(block_id) is not str or (reply.allowed is not None and kind not in reply.allowed):
            return  # never added (a wrong type, or ROLE_FORBIDS): its deltas are each an anomaly
        if (kind, block_id) in reply.seen:
            return  # DUPLICATE_START: an orphan; the first block with the id stays as it was
        self._set(reply_id, _Reply(reply.allowed, reply.seen | {(kind, block_id)}))
        self.open.add((reply_id, kind, block_id))

    def _checkpoint(self, msg: Any) -> None:
        """A checkpoint replaces its reply's Msg: the blocks it holds, open
        where the first block of an id (the one the reducer indexes) is
        unfinished."""
        self.open = {block for block in self.open if block[0] != msg.id}
        seen: set[tuple[str, str]] = set()
        for item in msg.content:
            kind = _BLOCKS.get(type(item))
            if kind is None or (kind, item.id) in seen:
                continue
            seen.add((kind, item.id))
            if item.finished_at is None and not (kind == _DATA and not isinstance(item.source, Base64Source)):
                self.open.add((msg.id, kind, item.id))
        self._set(msg.id, _Reply(_ALLOWED.get(msg.role), frozenset(seen)))

    def _set(self, reply_id: str, reply: _Reply) -> None:
        if not self._owned:
            self._replies, self._owned = dict(self._replies), True
        old = self._replies.get(reply_id)
        total = self._replies_hash + hash((reply_id, reply))
        if old is not None:
            total -= hash((reply_id, old))
        self._replies[reply_id] = reply
        self._replies_hash = total & _MASK


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
