"""The in-memory event log: a reply's events and the Msg they build, served
to any number of readers in one process, live, from any entry id.

Needs anyio (the ``aio`` extra) for waiting on new events.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, Iterable
from contextlib import aclosing
from typing import Any

import anyio

from wire import json as wire_json
from wire.events import AgentEvent
from wire.framing import SSEEncoder
from wire.messages import Msg
from wire.session import Session, checkpoint, copy_msg, restart
from wire.stores import Entry, Resume, StoredEvent, check_expected, to_write
from wire.stores._coalesce import Coalesce, Coalescer, CoalescerState, hold_of, join_hold

__all__ = ("EventLog",)

_RESUMES = ("checkpoint", "replay")


class EventLog:
    """A session's events, kept in order, and the Msg of each of its
    replies, for readers that come and go: a :class:`wire.stores.EventStore`
    in memory.

    A log holds any number of replies, one after another; :meth:`close`
    ends the session. Each reply's Msg begins at its REPLY_START (its id,
    name, role and time: ``wire.resume.begin_reply``), or is ``msg`` when
    the log is made with one; :attr:`replies` holds them all and :attr:`msg`
    the latest, which is what checkpoints send.

    Entry ids are ``<epoch>-<position>``: the epoch is this log's own (made
    at random when the log is), the position counts every event ever
    appended. A reader that comes back with an id of another epoch (the log
    was lost and made again) gets a ``wire.restart`` event, then the log
    from its start.

    By default every event is kept; with ``max_events`` and/or ``max_bytes``
    (their JSON size) only the newest that fit are, and a reader whose
    position was dropped gets a checkpoint of each reply written since, then
    the events after them. The newest event is always kept. A slow or gone
    reader never holds the producer up. Drop the log once the session is
    closed and its readers are done.
    """

    def __init__(self, msg: Msg | None = None, *, max_events: int | None = None,
                 max_bytes: int | None = None) -> None:
        if max_events is not None and max_events < 1:
            raise ValueError("max_events must be 1 or more")
        if max_bytes is not None and max_bytes < 1:
            raise ValueError("max_bytes must be 1 or more")
        self._session = Session(*([msg] if msg is not None else []), keep_custom=False)
        self.epoch = secrets.token_hex(4)
        self._prefix = self.epoch + "-"
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._closed = False
        self._changed: anyio.Event | None = None
        # _kept[_head:] are the events kept, the first at position _base + _head;
        # dropped slots are cleared and the list compacted when half is dead.
        self._kept: list[AgentEvent | None] = []
        self._base = 0
        self._head = 0
        self._sizes: deque[int] = deque()
        self._bytes = 0
        self._encoder = SSEEncoder(next_id=None)
        # What the readers at one position share (see _span and _frames), by position.
        self._spans: dict[tuple[int, int], list[Entry]] = {}
        self._encoded: dict[tuple[Any, ...], tuple[bytes, CoalescerState | None]] = {}
        self._merged: dict[tuple[Any, ...], tuple[list[Entry], CoalescerState]] = {}
        # The end of the hold under way, by its length: the readers that hold together read together.
        self._holds: dict[float, float] = {}

    def __repr__(self) -> str:
        return f"<EventLog {self.first}..{self.end}{' closed' if self._closed else ''}>"

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def msg(self) -> Msg | None:
        """The Msg of the reply that began last (None before any)."""
        return self._session.last

    @property
    def replies(self) -> dict[str, Msg]:
        """Every reply's Msg so far, by reply id, in the order they began
        (the log's own: do not change them)."""
        return self._session.replies

    async def snapshot(self) -> dict[str, Msg]:
        return {reply_id: copy_msg(msg) for reply_id, msg in self._session.replies.items()}

    async def session(self) -> Session:
        session = self._session.copy()
        session.last_id = self._last_id()
        session.closed = self._closed
        return session

    def _last_id(self) -> str:
        return self._prefix + str(self.end - 1) if self.end else ""

    async def at_end(self, after: str | None = None) -> bool:
        if not self._closed:
            return False
        if not after:
            return self.end == 0
        return self._position(after) == self.end - 1

    @property
    def events(self) -> list[AgentEvent]:
        """The events still kept, oldest first (do not change the list). Its
        first event is at position :attr:`first`, not 0, once events were
        dropped."""
        kept = self._kept if not self._head else self._kept[self._head:]
        return kept  # type: ignore[return-value]  # no None from _head on

    @property
    def first(self) -> int:
        """The position of the oldest event kept."""
        return self._base + self._head

    @property
    def end(self) -> int:
        """The position the next event will have: how many were ever appended."""
        return self._base + len(self._kept)

    # -- the producer -------------------------------------------------------------------

    async def append(self, event: AgentEvent, *, expect: str | None = None) -> str:
        return (await self.extend((event,), expect=expect))[0]

    async def extend(self, events: Iterable[AgentEvent], *, expect: str | None = None) -> list[str]:
        # No await from the check to the write: nothing else runs between them.
        if expect is not None:
            check_expected(self, expect, self._last_id(), self._closed)
        batch = to_write(self, self._closed, events)
        if not batch:
            return []
        start = self.end
        self._session.apply(batch)
        self._keep(batch)
        self._wake()
        return self._ids(start, len(batch))

    async def close(self, *, expect: str | None = None) -> None:
        if expect is not None:
            check_expected(self, expect, self._last_id(), self._closed)
        self._closed = True
        self._wake()

    async def pump(self, events: AsyncIterable[AgentEvent]) -> None:
        """Append every event of ``events`` as it comes, then close the log."""
        try:
            async for event in events:
                await self.extend((event,))
        finally:
            await self.close()

    def _keep(self, batch: list[AgentEvent]) -> None:
        self._kept.extend(batch)
        if self.max_bytes is not None:
            sizes = [len(wire_json.encode(event)) for event in batch]
            self._sizes.extend(sizes)
            self._bytes += sum(sizes)
        drop, kept = 0, len(self._kept) - self._head
        while kept - drop > 1 and (
                (self.max_events is not None and kept - drop > self.max_events)
                or (self.max_bytes is not None and self._bytes > self.max_bytes)):
            if self.max_bytes is not None:
                self._bytes -= self._sizes.popleft()
            drop += 1
        if drop:
            new_head = self._head + drop
            self._kept[self._head:new_head] = [None] * drop
            self._head = new_head
            if self._head * 2 > len(self._kept):
                del self._kept[:self._head]
                self._base += self._head
                self._head = 0

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    # -- readers ------------------------------------------------------------------------

    def _ids(self, start: int, count: int) -> list[str]:
        prefix = self._prefix
        return [prefix + str(pos) for pos in range(start, start + count)]

    def _position(self, entry_id: str) -> int | None:
        """The position of an id this log gave out, else None. Only ASCII
        digits (``int`` takes "١٢" too), no longer than a position can be
        (``int`` of 4,300+ digits raises)."""
        epoch, _, digits = entry_id.rpartition("-")
        if epoch != self.epoch or not (digits.isascii() and digits.isdigit() and len(digits) <= 19):
            return None
        pos = int(digits)
        return pos if pos < self.end and str(pos) == digits else None

    def _checkpoints(self, since: int) -> list[Entry]:
        """A checkpoint of each reply written at or after position ``since``,
        as it is now, in the order the replies began (as a live reader holds
        them). Each is its reply as of the newest entry, but only the last
        carries that entry's id: the others carry the id the reader holds
        (the one before ``since``), so a reader that drops among them comes
        back for all of them."""
        positions = self._session.positions
        msgs = [msg for reply_id, msg in self._session.replies.items() if positions.get(reply_id, -1) >= since]
        if not msgs:
            return []
        held = self._prefix + str(since - 1) if since > 0 else ""
        ids = [held] * (len(msgs) - 1) + [self._last_id()]
        return [(entry_id, checkpoint(msg)) for entry_id, msg in zip(ids, msgs, strict=True)]

    async def follow(self, after: str | None = None, *, resume: Resume = "replay", heartbeat: float | None = None,
                     max_batch: int = 512, coalesce: Coalesce = False) -> AsyncGenerator[list[Entry], None]:
        hold = hold_of(coalesce)
        merger = Coalescer() if coalesce is not False else None
        async with aclosing(self._follow(after, resume, heartbeat, max_batch, hold)) as batches:
            async for batch in batches:
                if isinstance(batch, tuple):
                    yield self._entries(batch, merger)
                else:
                    yield merger.batch(batch) if merger is not None and batch else batch

    async def _follow(self, after: str | None, resume: Resume, heartbeat: float | None, max_batch: int,
                      hold: float) -> AsyncGenerator[list[Entry] | tuple[int, int], None]:
        """A reader's batches: entries made for it (checkpoints, a restart,
        ``[]`` for a heartbeat), or the position and count of kept events,
        which the caller takes with :meth:`_span` before it awaits anything
        (they are kept until then)."""
        if resume not in _RESUMES:
            raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
        if max_batch < 1:
            raise ValueError("max_batch must be 1 or more")
        pos = 0
        held = False
        if after:
            at = self._position(after)
            if at is None:
                # Its id is empty: an SSE client's last event id is reset with it.
                yield [("", restart(f"{after[:80]!r} is no entry id of this log"))]
            elif resume == "checkpoint":
                # Right whatever the reader had: each reply written since is replaced.
                # The checkpoints and their position are taken together (no await between).
                pos = self.end
                if ckpts := self._checkpoints(at + 1):
                    yield ckpts
            else:
                pos = at + 1
        while True:
            if pos < self.first:  # dropped while this reader was away or behind
                since, pos = pos, self.end
                if ckpts := self._checkpoints(since):
                    yield ckpts
                continue
            if pos < self.end:
                if hold and not held and self.end - pos < max_batch and not self._closed:
                    held = True
                    # A live reader: what comes within the hold goes in this batch. The
                    # readers holding together wake in one turn of the loop, with no write
                    # between them, and read the same batch, which they share (_frames).
                    await anyio.sleep_until(join_hold(self._holds, hold, hold, anyio.current_time()))
                    continue
                held = False
                count = min(max_batch, self.end - pos)
                yield pos, count
                pos += count
                continue
            if self._closed:
                return
            if self._changed is None:
                self._changed = anyio.Event()
            changed = self._changed
            if heartbeat is None:
                await changed.wait()
                continue
            with anyio.move_on_after(heartbeat):
                await changed.wait()
            if not changed.is_set():
                yield []

    def _span(self, pos: int, count: int) -> list[Entry]:
        """The entries of ``count`` kept events from position ``pos``: made
        once for the readers that read them (a crowd at one position), not
        an id string per event per reader. The events at a position never
        change, so a span kept is never stale; a few recent ones are kept."""
        span = self._spans.get((pos, count))
        if span is None:
            at = pos - self._base
            events: list[StoredEvent] = self._kept[at:at + count]  # type: ignore[assignment]  # kept: no None
            span = self._spans[pos, count] = list(zip(self._ids(pos, count), events, strict=True))
            if len(self._spans) > _ENCODED:
                del self._spans[next(iter(self._spans))]  # the oldest
        return span

    def _entries(self, span: tuple[int, int], merger: Coalescer | None) -> list[Entry]:
        """The kept events of ``span`` as a reader's entries, coalesced for
        ``merger``'s reader: merged once for the readers in the same state,
        as :meth:`_frames` encodes once (the list is each reader's own, the
        events are shared and not to be changed)."""
        if merger is None:
            return list(self._span(*span))
        key = (span, merger.state)
        cached = self._merged.get(key)
        if cached is None:
            cached = self._merged[key] = (merger.batch(self._span(*span)), merger.state)
            if len(self._merged) > _ENCODED:
                del self._merged[next(iter(self._merged))]  # the oldest
        else:
            merger.state = cached[1]
        return list(cached[0])

    async def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
                  heartbeat: float | None = 15.0, coalesce: Coalesce = False) -> AsyncGenerator[bytes, None]:
        hold = hold_of(coalesce)
        merger = Coalescer() if coalesce is not False else None
        keep_alive = SSEEncoder.comment()
        batches = self._follow(last_event_id or None, resume, heartbeat, 512, hold)
        async with aclosing(batches):
            async for batch in batches:
                if isinstance(batch, tuple):
                    frames = self._frames(batch, merger)
                elif batch:
                    frames = self._encode(batch, merger)
                else:
                    yield keep_alive
                    continue
                if frames:
                    yield frames

    def _frames(self, span: tuple[int, int], merger: Coalescer | None) -> bytes:
        """The kept events of ``span`` as SSE frames (coalesced for
        ``merger``'s reader). The readers of a log mostly read the same
        batches (the live ones all wait at its end, and wake together): the
        frames depend only on the events and, coalesced, on the coalescer's
        state (``Coalescer.state``), so a few recent batches are kept, merged
        and encoded once for all."""
        before = merger.state if merger is not None else None
        key = (span, before)
        cached = self._encoded.get(key)
        if cached is not None:
            if merger is not None and cached[1] is not None:
                merger.state = cached[1]
            return cached[0]
        frames = self._encode(self._span(*span), merger)
        self._encoded[key] = (frames, merger.state if merger is not None else None)
        if len(self._encoded) > _ENCODED:
            del self._encoded[next(iter(self._encoded))]  # the oldest
        return frames

    def _encode(self, batch: list[Entry], merger: Coalescer | None) -> bytes:
        """``batch`` as SSE frames, coalesced for ``merger``'s reader."""
        entries = merger.batch(batch) if merger is not None else batch
        if not entries:
            return b""
        ids, events = zip(*entries, strict=True)
        return self._encoder.encode_entries(ids, events)


# Recent batches kept encoded for the other readers: enough for the live
# readers' batch and a few crowds replaying in step, little memory.
_ENCODED = 16
