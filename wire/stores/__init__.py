"""Event logs that readers follow and resume: one contract, several stores.

A store keeps a reply's events in order, each under an entry id (a string
the store gives out, which is also the SSE ``id`` a browser sends back as
``Last-Event-ID``), and serves them to any number of readers, live, from
any position. Every store answers :class:`EventStore`, so an endpoint
(``wire.transports.http``, ``wire.bridges.agui_http``,
``wire.bridges.vercel_http``) never asks which one it has:

* :class:`wire.stores.memory.EventLog`: in one process (needs anyio).
* :class:`wire.stores.redis.RedisEventLog`: in a Redis Stream, so that any
  replica serves and resumes any reply (the ``redis`` extra).

``wire.stores.conformance`` holds the test suite every store passes; a new
store (Postgres, NATS, ...) proves itself by running it. Each store's
optional dependency is imported by its own module only; this package
imports none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from wire.errors import Conflict, LocalProtocolError
from wire.events import AgentEvent, CustomEvent, UnknownEvent
from wire.messages import Msg
from wire.session import CHECKPOINT, Session

__all__ = ("Entry", "EventStore", "Resume", "StoredEvent", "check_expected", "to_write")

Resume: TypeAlias = Literal["checkpoint", "replay"]
"""How a reader that comes back with an entry id resumes: ``"replay"`` gets
the entries after that id (it must have applied every one before it);
``"checkpoint"`` gets the latest checkpoint (the Msg so far, with the id of
the last entry it covers) and the entries after it, which is right whatever
the reader had, even after a page reload."""

StoredEvent: TypeAlias = AgentEvent | UnknownEvent
"""What a log holds: events, and (from a shared Redis stream, with
``unknown="keep"``) events of types wire does not know."""

Entry: TypeAlias = tuple[str, StoredEvent]
"""One entry as readers get it: its id and its event."""


@runtime_checkable
class EventStore(Protocol):
    """What every store answers: the producer's writes and the readers' reads.

    The producer awaits :meth:`extend` (or :meth:`append`) for each batch of
    events and :meth:`close` at the end. Readers :meth:`follow` the log from
    any entry id, or take it as an SSE body with :meth:`sse`.

    Entry ids are strings, unique and in the log's order. A reader whose
    position the store no longer keeps (a bounded or trimmed log) gets a
    checkpoint first: a CUSTOM ``wire.checkpoint`` event holding the Msg as
    built up to the entry whose id it carries (``wire.resume``), then the
    entries after that one, so it still ends with the exact Msg. Writing to
    a closed log, or a failing backend, raises :class:`wire.errors.StoreError`.

    Conditional appends. A write that depends on what the session holds (an
    answer, a new turn, a close decided from the state) reads the state with
    :meth:`session`, decides, and writes with ``expect=session.last_id``: the
    store checks that the log's newest entry is still that one, and that the
    log is not closed, and writes, as one atomic step (no await between them
    in memory, one Lua script in Redis); otherwise it raises
    :class:`wire.errors.Conflict` and writes nothing. Of any number of
    writers racing with the same ``expect``, exactly one wins. ``expect=""``
    expects a log with no entry; ``None`` writes unconditionally.
    """

    @property
    def closed(self) -> bool:
        """True once the log is closed, as far as this object knows (a
        reader of a remote store learns it when a read meets the end)."""
        ...

    async def extend(self, events: Iterable[AgentEvent], *, expect: str | None = None) -> list[str]:
        """Write ``events`` in order; their entry ids. With ``expect``, only
        if the log's newest entry is that id and the log is open, else
        :class:`wire.errors.Conflict`."""
        ...

    async def append(self, event: AgentEvent, *, expect: str | None = None) -> str:
        """Write one event; its entry id (``expect`` as for :meth:`extend`)."""
        ...

    async def close(self, *, expect: str | None = None) -> None:
        """No more events: readers stop once they have read them all. With
        ``expect``, a conditional close, as ``extend``'s: only if the log is
        open and its newest entry is still ``expect`` (a session ended by
        someone who looked at it: no answer or turn came in between), else
        :class:`wire.errors.Conflict` and the log stays as it was."""
        ...

    async def snapshot(self) -> dict[str, Msg]:
        """Every reply's Msg by reply id, in the order the replies began, as
        of the latest checkpoint (the in-memory log's: as of now). The Msgs
        are the caller's: changing one changes nothing in the store."""
        ...

    async def session(self) -> Session:
        """The session as of the log's newest entry, whose id is its
        ``last_id`` ("" for a log with no entry), and whether the log is
        ``closed``: what a conditional write decides from. The caller's own
        copy."""
        ...

    async def at_end(self, after: str | None = None) -> bool:
        """True when a reader at ``after`` (an entry id of this log; None
        for a new reader) would get nothing new, ever: the log is closed
        and holds no entry past that position (a store may still repeat, as
        a checkpoint, what such a reader has).
        The endpoints answer such a reader 204 No Content, which stops a
        browser's ``EventSource`` from reconnecting to a session that is
        over. Answered from what the store holds, never by waiting for an
        event. An id the log never gave out is not at the end: its reader
        gets a ``wire.restart``, then the log."""
        ...

    def follow(self, after: str | None = None, *, resume: Resume = "replay", heartbeat: float | None = None,
               max_batch: int = 512, coalesce: bool | float = False) -> AsyncIterator[list[Entry]]:
        """The entries after id ``after`` (from the first with None), then
        live ones as they come, in batches of at most ``max_batch``, until
        the log is closed; an empty batch after each ``heartbeat`` idle
        seconds. An id the log never gave out gets a ``wire.restart`` event
        (entry id ``""``), then the log from its first entry. ``resume``
        applies when ``after`` is given (see :data:`Resume`). ``coalesce``:
        True merges the deltas of one block that are already waiting into
        one event (the id of the last it covers); a number of seconds also
        holds a live reader's events that long to merge them. The Msg a
        reader builds is the same byte for byte either way.

        Each batch is the reader's own list, but readers in step (a crowd
        at the log's end) may be given the same (entry id, event) pairs, so
        that a batch is decoded, merged and encoded once for all of them:
        never change an event a store gave out."""
        ...

    def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
            heartbeat: float | None = 15.0, coalesce: bool | float = False) -> AsyncIterator[bytes]:
        """:meth:`follow` as an SSE body: each frame's ``id`` is its entry's
        id, and a ``:`` comment goes out after ``heartbeat`` idle seconds."""
        ...


def to_write(log: object, closed: bool, events: Iterable[AgentEvent]) -> list[AgentEvent]:
    """``events`` as a list the store ``log`` may write: LocalProtocolError
    if it is ``closed``, or if they hold a ``wire.checkpoint`` event (only a store
    makes checkpoints, of its own Msgs, so that one a producer wrote, or
    relayed from a peer, never replaces its readers' Msg)."""
    if closed:
        raise LocalProtocolError(f"{log!r} is closed: no event can be added")
    batch = list(events)
    for event in batch:
        if type(event) is CustomEvent and event.name == CHECKPOINT:
            raise LocalProtocolError("a wire.checkpoint event cannot be appended: only the store makes checkpoints")
    return batch


def check_expected(log: object, expect: str, actual: str, closed: bool) -> None:
    """Conflict unless the log ``log`` is open and its newest entry is
    ``expect`` (``actual`` is; "" for none)."""
    if closed:
        raise Conflict("the log is closed: nothing was written", key=repr(log), expected=expect, actual=actual)
    if expect != actual:
        raise Conflict(f"the log's newest entry is {actual or 'none'!r}, not {expect or 'none'!r} as the writer "
                       "saw it: nothing was written; read the session again and decide anew",
                       key=repr(log), expected=expect, actual=actual)
