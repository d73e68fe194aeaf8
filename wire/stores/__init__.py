"""Event logs that readers follow and resume: one reply's events kept in
order, served live from any position.

* :class:`wire.stores.memory.EventLog`: in one process (needs anyio).
* :class:`wire.stores.redis.RedisEventLog`: in a Redis Stream, so that any
  replica serves and resumes any reply (the ``redis`` extra).

Every store answers :class:`SSESource`, so ``wire.transports.http`` serves
any of them, and :class:`Replayable`, so the bridges' helpers serve any of
them too. Each store's optional dependency is imported by its own module
only; this package imports none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol, TypeAlias

__all__ = ("Replayable", "Resume", "SSESource")

Resume: TypeAlias = Literal["checkpoint", "replay"]


class SSESource(Protocol):
    """What an SSE endpoint needs of a store: the log as an SSE body, for a
    new reader (``last_event_id`` None) or one that resumes after the id it
    last saw, with a ``:`` comment after ``heartbeat`` idle seconds."""

    def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
            heartbeat: float | None = 15.0) -> AsyncIterator[bytes]: ...


class Replayable(Protocol):
    """What a server that transcodes a reply from its start needs of a store
    (``wire.bridges.agui_http``): the reply's events in batches, an empty
    batch after ``heartbeat`` idle seconds, until the log closes."""

    def replay(self, *, heartbeat: float | None = None) -> AsyncIterator[list[Any]]: ...
