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
REQUIRE_EXTERNAL_EXECUTION) writes that reply's Msg, as of that event, with
the storage's own ``upsert_message``, then moves the cursor to that event's
entry, under agentscope's lock, as ``ChatService`` does. A batch is written
up to each such event before the history follows, so the Msg stored is never
ahead of the cursor. Should the storage fail, the cursor stays where it
was: it never promises a reply the storage lacks.

Replies of one session may be written by wire and by agentscope in turn. A
reply this producer did not begin (a reply agentscope parked, answered here)
is taken from the storage, where agentscope put it at its park, then
continued (and handed to the log, whose checkpoints of it then hold all of
it: a reader left behind by the stream's trim still rebuilds it).
agentscope is imported when an :class:`AgentscopeHistory` is made; wire
does not depend on it.

What it does not do: hold the app's run lock (``is_running`` stays false
while wire writes), write the agent's state (``update_session_state``), or
trim the stream at the cursor as ``ChatService`` does (the log's own
``max_len`` bounds it, and its checkpoints serve what the trim drops).

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
    ReplyEndEvent,
    ReplyStartEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
)
from wire.messages import Msg
from wire.resume import begin_reply

if TYPE_CHECKING:
    from wire.stores.redis import RedisEventLog

__all__ = ("AgentscopeHistory",)

# Where a reply ends or waits (agentscope.app.channel._stream): its Msg then goes to storage.
TERMINAL = (ReplyEndEvent, RequireUserConfirmEvent, RequireExternalExecutionEvent)


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
        """The Msg of every reply written through this object, by reply id."""
        self.cursor: str | None = None
        """The entry the app's cursor was last moved to by this object."""
        self._keys = MessageBusKeys
        self._agentscope_msg = AgentscopeMsg

    async def append(self, event: AgentEvent) -> str:
        """Write one event; its entry id."""
        return (await self.extend((event,)))[0]

    async def extend(self, events: Iterable[AgentEvent]) -> list[str]:
        """Write ``events`` in order; their entry ids. At each end or park,
        the reply's Msg goes to storage and the cursor to that entry."""
        events = list(events)
        ids: list[str] = []
        start = 0
        for i, event in enumerate(events):
            if isinstance(event, TERMINAL):
                ids += await self._write(events[start:i + 1])
                await self._keep(event.reply_id, ids[-1])
                start = i + 1
        if start < len(events):
            ids += await self._write(events[start:])
        return ids

    async def close(self) -> None:
        """End the session (the log's end mark; the history holds every ended
        or parked reply already)."""
        await self.log.close()

    async def _write(self, events: list[AgentEvent]) -> list[str]:
        for event in events:  # replies met for the first time, before the log applies them
            reply_id: str | None = getattr(event, "reply_id", None)  # CUSTOM has none
            if reply_id is not None and reply_id not in self.replies:
                self.replies[reply_id] = await self._begin(event)
        ids = await self.log.extend(events)
        for event in events:
            if type(event) is not CustomEvent:
                self.replies[event.reply_id].append_event(event)  # type: ignore[union-attr]
        return ids

    async def _begin(self, event: AgentEvent) -> Msg:
        """The Msg of a reply met for the first time: begun at its REPLY_START,
        or else one agentscope began, as its storage holds it (the log gets
        it too, for its checkpoints of the reply)."""
        if type(event) is ReplyStartEvent:
            return begin_reply(event)
        reply_id: str = event.reply_id  # type: ignore[union-attr]
        stored = await self.storage.get_message(self.user_id, self.session_id, reply_id)
        if stored is None:
            return Msg(name="", role="assistant", content=[], id=reply_id)  # as wire.resume.Conversation joins one
        data = stored.model_dump_json()
        if reply_id not in self.log.replies:
            self.log.take_on(wire_json.decode_msg(data))
        return wire_json.decode_msg(data)

    async def _keep(self, reply_id: str, entry_id: str) -> None:
        keys = self._keys
        msg = self._agentscope_msg.model_validate_json(wire_json.encode(self.replies[reply_id]))
        async with self.bus.acquire_lock(keys.session_event_checkpoint_lock(self.session_id),
                                         ttl_secs=keys.SESSION_EVENT_CHECKPOINT_LOCK_TTL_SECS):
            await self.storage.upsert_message(self.user_id, self.session_id, msg)
            await self.bus.registry_set(keys.session_event_checkpoint(self.session_id),
                                        keys.SESSION_EVENT_CURSOR_FIELD, entry_id)
        self.cursor = entry_id
