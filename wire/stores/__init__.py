"""Where a reply's events are kept so that readers can come and go.

``wire.aio.EventLog`` keeps them in this process's memory;
``wire.stores.redis.RedisEventLog`` (the ``redis`` extra) keeps them in a
Redis Stream, so that every replica of a service serves the same reply and
a client can resume on any of them.

Both answer :class:`EventStore`: an SSE body from a ``Last-Event-ID``, which
is all ``wire.http.sse_response`` and ``wire.http.sse_endpoint`` need. Their
producer sides differ on purpose (appending to memory is a plain call,
appending to Redis is a round trip to await), so the protocol names only
what a server does with a log: serve it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal, Protocol

__all__ = ("EventStore", "Resume")

Resume = Literal["checkpoint", "replay"]


class EventStore(Protocol):
    """A log a server can stream as SSE, whatever keeps it.

    ``sse(last_event_id)`` yields the body: every event for a new client
    (``last_event_id`` None or empty); for a client that reconnects, with
    ``resume="checkpoint"`` a ``wire.checkpoint`` CUSTOM event holding the
    Msg so far and the events after it, with ``resume="replay"`` the events
    after that id. A ``:`` comment goes out after ``heartbeat`` idle seconds.
    """

    def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
            heartbeat: float | None = 15.0) -> AsyncIterator[bytes]: ...
