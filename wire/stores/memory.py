"""The in-memory event log: one reply's events and the Msg they build, served
to any number of readers, live, from any position, with heartbeats and
checkpoint resume for SSE (``wire.transports.http`` mounts it).

Needs anyio (the ``aio`` extra) for waiting on new events.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Literal

import anyio

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

    Events are kept for the log's lifetime; make one log per reply.
    """

    def __init__(self, msg: Msg) -> None:
        self.msg = msg
        self.events: list[AgentEvent] = []
        self.closed = False
        self._changed: anyio.Event | None = None

    def append(self, event: AgentEvent) -> None:
        if self.closed:
            raise RuntimeError("append() to a closed EventLog")
        self.events.append(event)
        self.msg.append_event(event)
        self._wake()

    def extend(self, events: Iterable[AgentEvent]) -> None:
        if self.closed:
            raise RuntimeError("extend() on a closed EventLog")
        start = len(self.events)
        self.events.extend(events)
        self.msg.extend_events(self.events[start:])
        self._wake()

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

    async def follow(self, start: int = 0, *, heartbeat: float | None = None,
                     max_batch: int = 512) -> AsyncIterator[list[AgentEvent]]:
        """The events from position ``start`` on, in batches of what is there
        (at most ``max_batch``), waiting for more until the log is closed.
        With ``heartbeat``, an empty batch is yielded after that many seconds
        without events, so that a server can keep an idle connection alive."""
        pos = start
        while True:
            if pos < len(self.events):
                batch = self.events[pos:pos + max_batch]
                pos += len(batch)
                yield batch
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
                yield []

    async def frames(self, encoder: Encoder, start: int = 0, *, heartbeat: float | None = None,
                     heartbeat_frame: bytes = b"") -> AsyncIterator[bytes]:
        """The events from ``start`` on, encoded: one bytes object per batch
        (an HTTP response body, or chunks for a socket). ``heartbeat_frame``
        is sent after ``heartbeat`` idle seconds (NDJSON has none: a blank
        line, ``b"\\n"``, is ignored by wire's decoder)."""
        buf = bytearray()
        async for batch in self.follow(start, heartbeat=heartbeat):
            if not batch:
                if heartbeat_frame:
                    yield heartbeat_frame
                continue
            for event in batch:
                encoder.encode_into(event, buf)
            yield bytes(buf)
            buf.clear()

    async def sse(self, last_event_id: str | None = None, *,
                  resume: Literal["checkpoint", "replay"] = "checkpoint",
                  heartbeat: float | None = 15.0) -> AsyncIterator[bytes]:
        """The log as an SSE body: frame ``id`` is the event's position in
        the log, and a ``:`` comment goes out after ``heartbeat`` idle seconds.

        A fresh client (``last_event_id`` None or empty) gets every event from
        the first. A client that reconnects with ``Last-Event-ID`` gets, with
        ``resume="checkpoint"``, a checkpoint event holding the Msg as built
        so far (``wire.resume.read_checkpoint`` reads it; its id is that of the
        last event it includes) and then the events after it: correct whatever
        the client had, even after a reload. With ``resume="replay"`` it gets
        the events after that id, which a client must then have applied all
        of; an id this log never sent starts it from the beginning.
        """
        encoder = SSEEncoder()
        start = 0
        if last_event_id:
            if resume == "checkpoint":
                start = len(self.events)  # the snapshot and its position, taken together
                if start:
                    encoder.next_id = start - 1
                    yield encoder.encode(checkpoint(self.msg))
            elif resume == "replay":
                digits = last_event_id.isascii() and last_event_id.isdigit()  # int() takes "١٢" too
                start = int(last_event_id) + 1 if digits else 0
                if start > len(self.events):
                    start = 0
            else:
                raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
        encoder.next_id = start
        async for chunk in self.frames(encoder, start, heartbeat=heartbeat, heartbeat_frame=SSEEncoder.comment()):
            yield chunk
