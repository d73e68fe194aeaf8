"""The in-memory event log: one reply's events and the Msg they build, served
to any number of readers, live, from any position, with heartbeats and
checkpoint resume for SSE (``wire.transports.http`` mounts it).

Needs anyio (the ``aio`` extra) for waiting on new events.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, Iterable
from typing import Literal

import anyio

from wire import json as wire_json
from wire.events import AgentEvent
from wire.framing import Encoder, SSEEncoder
from wire.messages import Msg
from wire.resume import checkpoint

__all__ = ("EventLog",)


class EventLog:
    """One reply's events, kept in order, and the Msg they build, for readers
    that come and go.

    The producer calls :meth:`append` (or runs :meth:`pump` over an async
    iterator) and :meth:`close` at the end. Each reader follows the log from
    any position with :meth:`follow`, :meth:`frames` or :meth:`sse`, gets
    what is there at once, then waits for more; a slow or gone reader never
    holds the producer up. ``msg`` is the Msg so far (``msg.append_event``
    of every event), which is what a checkpoint sends.

    Positions count every event ever appended. By default every event is
    kept; with ``max_events`` and/or ``max_bytes`` (their JSON size) only the
    newest that fit are, and a reader whose position was dropped gets a
    checkpoint of the Msg so far (``wire.resume.checkpoint``) and then the
    events after it. The newest event is always kept. Make one log per reply
    and drop it once it is closed and its readers are done.
    """

    def __init__(self, msg: Msg, *, max_events: int | None = None, max_bytes: int | None = None) -> None:
        if max_events is not None and max_events < 1:
            raise ValueError("max_events must be 1 or more")
        self.msg = msg
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.closed = False
        self._changed: anyio.Event | None = None
        # _kept[_head:] are the events kept, the first at position _base + _head;
        # dropped slots are cleared and the list compacted when half is dead.
        self._kept: list[AgentEvent | None] = []
        self._base = 0
        self._head = 0
        self._sizes: deque[int] = deque()
        self._bytes = 0

    @property
    def events(self) -> list[AgentEvent]:
        """The events still kept, oldest first: the log's own list (do not
        change it) unless some were dropped since it was last compacted, then
        a copy. Its first event is at position :attr:`first`, not 0, once
        events were dropped."""
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

    def append(self, event: AgentEvent) -> None:
        if self.closed:
            raise RuntimeError("append() to a closed EventLog")
        self.msg.append_event(event)
        self._keep([event])
        self._wake()

    def extend(self, events: Iterable[AgentEvent]) -> None:
        if self.closed:
            raise RuntimeError("extend() on a closed EventLog")
        batch = list(events)
        self.msg.extend_events(batch)
        self._keep(batch)
        self._wake()

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

    def close(self) -> None:
        """No more events: readers stop once they have read them all."""
        self.closed = True
        self._wake()

    async def pump(self, events: AsyncIterable[AgentEvent]) -> None:
        """Append every event of ``events`` as it comes, then close the log."""
        try:
            async for event in events:
                self.append(event)
        finally:
            self.close()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def _batches(self, start: int, heartbeat: float | None,
                       max_batch: int) -> AsyncGenerator[tuple[int, list[AgentEvent]], None]:
        """``follow``'s batches, each with the position of its first event; a
        checkpoint stands for the Msg up to the position before the next batch."""
        pos = start
        while True:
            if pos < self.first:  # dropped while this reader was away or behind
                pos = self.end
                yield pos - 1, [checkpoint(self.msg)]
                continue
            if pos < self.end:
                at = pos - self._base
                batch: list[AgentEvent] = self._kept[at:at + max_batch]  # type: ignore[assignment]
                yield pos, batch
                pos += len(batch)
                continue
            if self.closed:
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
                yield pos, []

    async def follow(self, start: int = 0, *, heartbeat: float | None = None,
                     max_batch: int = 512) -> AsyncGenerator[list[AgentEvent], None]:
        """The events from position ``start`` on, in batches of what is there
        (at most ``max_batch``), waiting for more until the log is closed.
        With ``heartbeat``, an empty batch is yielded after that many seconds
        without events, so that a server can keep an idle connection alive.
        When the reader's position was dropped (see ``max_events``), it gets a
        batch of one checkpoint event, then the events that follow."""
        async for _, batch in self._batches(start, heartbeat, max_batch):
            yield batch

    async def replay(self, *, heartbeat: float | None = None) -> AsyncGenerator[list[AgentEvent], None]:
        """:meth:`follow` from the first event: :class:`wire.stores.Replayable`."""
        async for batch in self.follow(0, heartbeat=heartbeat):
            yield batch

    async def frames(self, encoder: Encoder, start: int = 0, *, heartbeat: float | None = None,
                     heartbeat_frame: bytes = b"") -> AsyncGenerator[bytes, None]:
        """The events from ``start`` on, encoded: one bytes object per batch
        (an HTTP response body, or chunks for a socket). ``heartbeat_frame``
        is sent after ``heartbeat`` idle seconds (NDJSON has none: a blank
        line, ``b"\\n"``, is ignored by wire's decoder). An SSEEncoder's ids
        are the events' positions."""
        buf = bytearray()
        async for pos, batch in self._batches(start, heartbeat, 512):
            if not batch:
                if heartbeat_frame:
                    yield heartbeat_frame
                continue
            if isinstance(encoder, SSEEncoder) and encoder.next_id is not None:
                encoder.next_id = pos
            for event in batch:
                encoder.encode_into(event, buf)
            yield bytes(buf)
            buf.clear()

    async def sse(self, last_event_id: str | None = None, *,
                  resume: Literal["checkpoint", "replay"] = "checkpoint",
                  heartbeat: float | None = 15.0) -> AsyncGenerator[bytes, None]:
        """The log as an SSE body: frame ``id`` is the event's position in
        the log, and a ``:`` comment goes out after ``heartbeat`` idle seconds.

        A fresh client (``last_event_id`` None or empty) gets every event from
        the first. A client that reconnects with ``Last-Event-ID`` gets, with
        ``resume="checkpoint"``, a checkpoint event holding the Msg as built
        so far (``wire.resume.read_checkpoint`` reads it; its id is that of the
        last event it includes) and then the events after it: correct whatever
        the client had, even after a reload. With ``resume="replay"`` it gets
        the events after that id, which a client must then have applied all
        of; an id this log never sent starts it from the beginning. Either
        way a position the log no longer keeps gets a checkpoint instead.
        """
        encoder = SSEEncoder()
        start = 0
        if last_event_id:
            if resume == "checkpoint":
                start = self.end  # the snapshot and its position, taken together
                if start:
                    encoder.next_id = start - 1
                    yield encoder.encode(checkpoint(self.msg))
            elif resume == "replay":
                # Only the ids this log writes: ASCII digits (int() takes "١٢"
                # too), and no longer than a position can be (int() of 4,300+
                # digits raises).
                sent = last_event_id.isascii() and last_event_id.isdigit() and len(last_event_id) <= 19
                start = int(last_event_id) + 1 if sent else 0
                if start > self.end:
                    start = 0
            else:
                raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
        encoder.next_id = start
        async for chunk in self.frames(encoder, start, heartbeat=heartbeat, heartbeat_frame=SSEEncoder.comment()):
            yield chunk
