"""A session of agentscope 2.0.11's app written by wire, with the app's
history kept in step.

agentscope's app keeps a session in two places: its events in a Redis
Stream (``agentscope:session:events:{sid}``, what ``/sessions/{sid}/stream``
replays) and its messages in the app's storage (what
``/sessions/{sid}/messages`` returns, with ``event_cursor``). The cursor
(``agentscope:session:event_checkpoint:{sid}``, field ``cursor``) promises
that storage holds every reply up to that entry: a page loads the messages,
then streams with ``?after=<event_cursor>``, and sees each reply once.
agentscope's ``ChatService`` keeps that promise by writing a finished (or
parked) reply's Msg with ``storage.upsert_message`` and then the cursor,
both under the lock ``agentscope:session:event_checkpoint:lock:{sid}``
(``agentscope/app/_service/_chat.py``).

A :class:`wire.stores.redis.RedisEventLog` alone writes the stream only: the
app then lists none of wire's replies and its cursor never moves past them.
:class:`AgentscopeHistory` is the producer to use instead when the
application hands wire its agentscope storage and bus: it writes through the
log, and at each reply's end or park (REPLY_END, REQUIRE_USER_CONFIRM,
REQUIRE_EXTERNAL_EXECUTION) moves the cursor and writes, with the storage's
own ``upsert_message``, the Msg of every reply the move passes, under
agentscope's lock, as ``ChatService`` does. A batch is written up to each
such event before the history follows. Should the storage fail, the cursor
stays where it was: it never promises a reply the storage lacks. (Storage
and the bus are two stores, so a failure between two of these writes can
leave a reply stored ahead of the cursor, as it can ``ChatService``'s; the
entries between the cursor and that Msg are then in both, and this history
would apply them twice when it next reads the reply.)

Many writers. A session may be written by several of them in turn or at
once: agentscope's ``ChatService``, wire's answer endpoint, and this class
on any number of replicas (each a new object, knowing nothing of what the
others wrote). All their entries are in the stream, so the history reads
what it needs there rather than trusting what this object wrote:

* A reply this object has not begun, or has seen end or park, may be one
  another writer began or continued: agentscope's ``ChatService`` answers a
  park by publishing the answer, then a REPLY_START with the same reply id,
  then the rest (``agentscope/app/_service/_chat.py``, "Case B"); wire's
  answer endpoint appends the answer through a log of its own. So at its
  first event here a reply is loaded as a page would load it, under the
  lock: the Msg storage holds (as of the cursor) and the reply's entries
  after the cursor, the answer included. Only a reply found in neither is
  new (and begins at its REPLY_START). The log is handed the loaded Msg, so
  its checkpoints of the reply hold all of it.
* The cursor moves, at this object's end or park, to the newest entry, up
  to that end or park, at which no reply is open (begun or taken on, not
  yet ended or parked) whoever writes it, read from the stream between the
  cursor and that event; and the Msg of every reply with entries up to
  there is written as of there (storage's Msg and the reply's entries since
  the cursor). Moving past the beginning of a reply that is still running
  would lose that beginning for a page loaded then; and a reply that ended
  while an earlier one still runs is stored once the cursor can pass both
  (stored earlier, a page would rebuild it from storage and again from the
  stream after the cursor). Until then the stream alone holds it, as it
  holds a running reply.

agentscope is imported when an :class:`AgentscopeHistory` is made; wire
does not depend on it.

What it does not do: hold the app's run lock (``is_running`` stays false
while wire writes), write the agent's state (``update_session_state``), or
trim the stream at the cursor as ``ChatService`` does (the log's own
``max_len`` bounds it, and its checkpoints serve what the trim drops). Two
writers of one reply at once are not supported; neither is a stream the
log's ``max_len`` trimmed past the cursor (the entries read from it are
then the reply's remainder only).

::

    log = RedisEventLog(client, agentscope_session_key(sid), publish=True, max_len=1000)
    history = AgentscopeHistory(log, storage=storage, bus=bus, user_id=user, session_id=sid)
    async for event in agent_events:
        await history.append(event)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from wire import json as wire_json
from wire.events import (
    AgentEvent,
    CustomEvent,
    ReplyStartEvent,
    UnknownEvent,
)
from wire.messages import Msg
from wire.session import begin_reply, join_reply
from wire.session.state import TERMINAL  # where a reply ends or parks: its Msg then goes to storage

if TYPE_CHECKING:
    from wire.stores import Entry, StoredEvent
    from wire.stores.redis import RedisEventLog

__all__ = ("AgentscopeHistory",)


class AgentscopeHistory:
    """Writes a session's events through ``log`` (a
    :class:`~wire.stores.redis.RedisEventLog` on
    ``agentscope_session_key(session_id)``, made with ``publish=True`` so the
    app's stream hears them live) and keeps agentscope's history of it:
    ``storage`` (the app's ``StorageBase``) and ``bus`` (its ``MessageBus``)
    are the ones the app was made with, ``user_id`` the session's owner."""

    def __init__(self, log: RedisEventLog, *, storage: Any, bus: Any, user_id: str, session_id: str) -> None:
        from agentscope.app.message_bus import MessageBusKeys
        from agentscope.message import Msg as AgentscopeMsg

        self.log = log
        self.storage = storage
        self.bus = bus
        self.user_id = user_id
        self.session_id = session_id
        self.replies: dict[str, Msg] = {}
        """The Msg of every reply written through this object, by reply id:
        as loaded when this object met it (with what other writers wrote of
        it before) and with this object's events since."""
        self.cursor: str | None = None
        """The entry the app's cursor was last moved to by this object."""
        self._open: set[str] = set()
        """Replies this object is writing: met, not ended or parked since."""
        self._keys = MessageBusKeys
        self._agentscope_msg = AgentscopeMsg

    async def append(self, event: AgentEvent) -> str:
        """Write one event; its entry id."""
        return (await self.extend((event,)))[0]

    async def extend(self, events: Iterable[AgentEvent]) -> list[str]:
        """Write ``events`` in order; their entry ids. At each end or park,
        the cursor moves as far as no running reply forbids and storage
        gets the Msg of every reply it passed."""
        events = list(events)
        ids: list[str] = []
        start = 0
        for i, event in enumerate(events):
            if isinstance(event, TERMINAL):
                ids += await self._write(events[start:i + 1])
                await self._keep(ids[-1])
                start = i + 1
        if start < len(events):
            ids += await self._write(events[start:])
        return ids

    async def close(self, *, expect: str | None = None) -> None:
        """End the session (the log's end mark; the history holds every reply
        the cursor passed already); ``expect`` as ``EventStore.close``'s."""
        await self.log.close(expect=expect)

    async def _write(self, events: list[AgentEvent]) -> list[str]:
        for event in events:  # replies met, before the log applies them
            reply_id: str | None = getattr(event, "reply_id", None)  # CUSTOM has none
            if reply_id is not None and reply_id not in self._open:
                self.replies[reply_id] = await self._meet(reply_id, event)
                self._open.add(reply_id)
        ids = await self.log.extend(events)
        for event in events:
            if type(event) is not CustomEvent:
                reply_id = event.reply_id  # type: ignore[union-attr]
                self.replies[reply_id].append_event(event)
                if isinstance(event, TERMINAL):
                    self._open.discard(reply_id)
        return ids

    async def _meet(self, reply_id: str, event: AgentEvent) -> Msg:
        """The Msg of a reply at its first event here (or its first since
        it ended or parked): as the session holds it, if any writer began
        it (the log takes it on too, for its checkpoints of it), else begun
        at this event."""
        async with self._lock():
            cursor = await self._cursor()
            stored = await self._stored(reply_id)
            entries = await self.log.read(after=cursor)
        msg = _build(reply_id, stored, (e for _, e in entries))
        if msg is None:
            return begin_reply(event) if type(event) is ReplyStartEvent else join_reply(reply_id)
        data = wire_json.encode(msg)
        self.log.take_on(wire_json.decode_msg(data))  # its own copy: the log goes on updating it
        return wire_json.decode_msg(data)

    async def _keep(self, entry_id: str) -> None:
        """After this object's end or park at ``entry_id``: move the cursor
        to the newest entry up to there at which no reply is open, and store
        the Msg, as of there, of every reply with entries up to there."""
        keys = self._keys
        async with self._lock():
            cursor = await self._cursor()
            entries = await self.log.read(after=cursor)
            to = _quiet(entries, entry_id)
            if to < 0:
                return  # a reply that began since the cursor still runs (or the cursor is past entry_id)
            passed = entries[:to + 1]
            for reply_id in dict.fromkeys(getattr(e, "reply_id", None) for _, e in passed):
                if reply_id is None:
                    continue
                msg = _build(reply_id, await self._stored(reply_id), (e for _, e in passed))
                assert msg is not None  # it has entries
                await self.storage.upsert_message(self.user_id, self.session_id,
                                                  self._agentscope_msg.model_validate_json(wire_json.encode(msg)))
            await self.bus.registry_set(keys.session_event_checkpoint(self.session_id),
                                        keys.SESSION_EVENT_CURSOR_FIELD, passed[-1][0])
        self.cursor = passed[-1][0]

    def _lock(self) -> Any:
        """agentscope's checkpoint lock: storage and the cursor change together under it."""
        keys = self._keys
        return self.bus.acquire_lock(keys.session_event_checkpoint_lock(self.session_id),
                                     ttl_secs=keys.SESSION_EVENT_CHECKPOINT_LOCK_TTL_SECS)

    async def _cursor(self) -> str | None:
        keys = self._keys
        cursor: str | None = await self.bus.registry_get(keys.session_event_checkpoint(self.session_id),
                                                         keys.SESSION_EVENT_CURSOR_FIELD)
        return cursor or None

    async def _stored(self, reply_id: str) -> Msg | None:
        """The reply's Msg in storage (as of the cursor), or None."""
        stored = await self.storage.get_message(self.user_id, self.session_id, reply_id)
        return None if stored is None else wire_json.decode_msg(stored.model_dump_json())


def _build(reply_id: str, stored: Msg | None, events: Iterable[StoredEvent]) -> Msg | None:
    """A reply as a page builds it: ``stored``, then its ``events`` (those
    after the cursor); None if neither has any of it. A REPLY_START of a
    reply already begun is a continuation (the reducer ignores it)."""
    msg = stored
    for event in events:
        if type(event) is UnknownEvent or getattr(event, "reply_id", None) != reply_id:
            continue
        if msg is None:
            msg = begin_reply(event) if type(event) is ReplyStartEvent else join_reply(reply_id)
        msg.append_event(event)
    return msg


def _quiet(entries: list[Entry], until: str) -> int:
    """The index of the last entry, up to the one with id ``until``, after
    which no reply is open (it began or was taken on after the cursor, the
    entries' start, and has not ended or parked since); -1 for none, or if
    ``until`` is not among ``entries``. At the cursor itself none is open:
    whoever moved it there moved it so."""
    open_: set[str] = set()
    quiet = -1
    for i, (entry_id, event) in enumerate(entries):
        reply_id: str | None = getattr(event, "reply_id", None)
        if reply_id is not None:
            if isinstance(event, TERMINAL):
                open_.discard(reply_id)
            else:
                open_.add(reply_id)
        if not open_:
            quiet = i
        if entry_id == until:
            return quiet
    return -1
