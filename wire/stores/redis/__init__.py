"""A reply's events in a Redis Stream: resume on any replica, and share
agentscope's own session logs.

Needs the ``redis`` extra (redis-py's asyncio client, and anyio). This is the
only package of wire that imports redis: ``_common`` (keys, ids, the
checkpoint hash, the Lua scripts), ``_session`` (the session as the log
holds it), ``_producer`` (writes) and ``_reader`` (reads), joined here into :class:`RedisEventLog`, a
:class:`wire.stores.EventStore`.

The stream. One Redis Stream per log. Each entry is one field, ``payload``,
holding one event as JSON: the layout of agentscope 2.0.11's app
(``agentscope.app.message_bus._redis_message_bus``, whose ``log_read`` reads
what this module writes, and ``agentscope.app._bus_ops.publish_session_event``,
whose entries this module reads). :func:`agentscope_session_key` names a
session's stream the way agentscope does, and ``publish=True`` also publishes
each event on the Pub/Sub channel of the stream's name with ``_entry_id``
added, as ``publish_session_event`` does, so agentscope's own
``/sessions/{id}/stream`` serves what wire writes. Into agentscope's
session streams wire writes each event as agentscope does, every field
included (``agentscope_dump``, ``_dump``); elsewhere, its compact JSON.

The entry ids are the cursors: ``read(after=id)``, ``follow(after=id)``, and
the ``id:`` of every SSE frame, so a browser's ``Last-Event-ID`` resumes on
whichever replica it reaches (how a reader reads: ``_reader``).

Past MAXLEN. ``max_len`` trims the stream (``XADD MAXLEN ~``), which drops the
beginning of a long reply. A producer log made with ``msg=`` (the reply's Msg,
as for ``wire.stores.memory.EventLog``) therefore keeps a checkpoint beside the stream:
a hash holding the Msg as built so far and the id of the last entry it covers,
written by the same script as the entries it covers (atomically), at least
every ``checkpoint_every`` events and when the reply ends. A reader whose
cursor lies before a trimmed entry of the reply (or a fresh reader of a
trimmed reply) gets that checkpoint, a CUSTOM ``wire.checkpoint`` event whose
id is the entry it covers, then the entries after it, and so ends with the
exact Msg. The checkpoint key carries the stream key as its Redis Cluster hash
tag, so both live in one hash slot.

Many writers. Any number of objects may write one session (replicas, the
answer endpoint, agentscope's own ``publish_session_event``). A producer
keeps the whole session (``RedisEventLog.session()`` reads it: the
checkpoint hash and every entry after its cut), loaded from the log at its
first write, and never writes over entries it has not seen: its append
script refuses while the stream holds any, the producer folds them in and
writes again (``_producer``). Its checkpoints and its end mark are therefore
taken at the stream's newest entry and cover every reply, before its own
trim can drop an entry of them. ``extend(events, expect=session.last_id)``
writes only if the stream's newest entry is still that one and the log is
not closed, else :class:`wire.errors.Conflict` (the check and the write are
one script: of writers racing with one ``expect``, exactly one wins).
Unconditional writes to a closed session reopen it; entries a foreign writer
adds after the end mark reopen it too (an end mark older than a later entry
is no end).

Faults. Every Redis failure surfaces as :class:`wire.errors.StoreError`
naming the log's key, with redis-py's exception as ``__cause__``. Readers
retry a lost connection with backoff for ``retry_for`` seconds first; a
producer never retries (an ``XADD`` whose reply was lost may have been
applied), and a producer with ``msg=`` refuses further appends after a failed
one, since its Msg may no longer match the stream. redis-py itself (8.x)
resends a command once its connection fails, by its client's ``retry``
option; a producer that must never write a batch twice gives its client
``retry=Retry(NoBackoff(), 0)``. With ``appendfsync always``, an append that
returned is on disk and survives a crash of Redis.

After a failover that lost acknowledged writes (Redis replicates
asynchronously: a master that dies may take its last writes with it), the
stream ends before the newest entry the producer saw. Its next append
raises :class:`wire.errors.Conflict` naming both ids and writes nothing, and
the producer refuses every append after it, rather than going on as if its
session matched the stream (readers would then rebuild another text than
the producer holds). To go on, make a new log object on the same key (it
loads the session from the log at its first write, or now with
``await log.session()``), compare with what the agent produced, and append
again what is missing::

    try:
        await log.append(event)
    except Conflict:
        log = RedisEventLog(client, key, max_len=..., ttl=...)
        have = await log.session()          # what survived, up to have.last_id
        await log.extend(lost_events + [event])

Foreign entries. A shared stream may hold entries other producers wrote.
Entries without a ``payload`` field are skipped, as agentscope's ``log_read``
skips them. A ``wire.checkpoint`` event written into the stream is skipped
too: only the store's own checkpoints, kept in the hash, are served as
checkpoints. An event of a type wire does not know follows ``unknown``, the
decoders' policy (``"skip"`` by default here, since a session stream is
shared; ``"keep"`` passes it on; ``"raise"`` raises DecodeError). A payload
that is not an event at all raises DecodeError under ``"raise"`` and is
otherwise skipped and counted in :attr:`RedisEventLog.skipped`: a reader
(a browser's stream) never dies of a foreign producer's garbage.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from wire import json as wire_json
from wire.framing import UnknownPolicy
from wire.framing._base import Payloads
from wire.messages import Msg
from wire.session import Session
from wire.stores.redis._common import (
    AGENTSCOPE_SESSION_EVENTS,
    APPEND,
    LOAD,
    READ,
    TRIM,
    agentscope_session_key,
    checkpoint_key,
)
from wire.stores.redis._dump import encode as agentscope_encode
from wire.stores.redis._producer import Producer
from wire.stores.redis._reader import Reader
from wire.stores.redis._session import load

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from wire.stores import EventStore

__all__ = ("AGENTSCOPE_SESSION_EVENTS", "RedisEventLog", "agentscope_session_key", "checkpoint_key")


class RedisEventLog(Producer, Reader):
    """One log in a Redis Stream: ``key``, on redis-py's asyncio client
    (``redis.asyncio.Redis`` or ``RedisCluster``).

    The producer awaits :meth:`append` or :meth:`extend` (or runs :meth:`pump`)
    and :meth:`close` at the end; readers, in any process, :meth:`read`,
    :meth:`follow` or serve :meth:`sse` (any endpoint of
    ``wire.transports.http`` serves it, as it serves a
    ``wire.stores.memory.EventLog``).

    * ``max_len``: trim the stream to about this many entries on each append
      (``XADD MAXLEN ~``; Redis keeps at least that many).
    * ``ttl``: seconds after the last append at which Redis deletes the log.
    * ``msg``: the first reply's Msg, if it is not to begin at its
      REPLY_START (and the log holds no trace of it); the producer builds
      every reply's Msg of the session (:attr:`replies`, :attr:`msg` the
      latest) for the checkpoints.
    * ``keep_checkpoints``: keep checkpoints (see the module docstring); without
      them a reader left behind by the trim gets a StoreError.
    * ``publish``: also publish each event on the Pub/Sub channel ``key``
      with ``_entry_id``, as agentscope's ``publish_session_event`` does.
    * ``agentscope_dump``: write each event as agentscope's
      ``model_dump(mode="json")`` does, every field with its default
      included, rather than wire's compact JSON; by default (None), for a key
      under :data:`AGENTSCOPE_SESSION_EVENTS`.
    * ``checkpoint_every``: the most events between two checkpoints (kept
      below ``max_len / 2`` so the entries after a checkpoint outlive it).
    * ``unknown``: what a reader does with an entry of an unknown type (and,
      unless ``"raise"``, with one that is no event at all).
    * ``retry_for``: how long a reader retries a lost connection.

    Works with a client made either way (``decode_responses`` on or off);
    off saves a decode and encode of every payload.
    """

    def __init__(self, client: Redis, key: str, *, max_len: int | None = None, ttl: float | None = None,
                 msg: Msg | None = None, keep_checkpoints: bool = True, publish: bool = False,
                 checkpoint_every: int = 256, unknown: UnknownPolicy = "skip", retry_for: float = 30.0,
                 agentscope_dump: bool | None = None) -> None:
        if max_len is not None and max_len < 2:
            raise ValueError(f"max_len must be at least 2, not {max_len}")
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be positive, not {checkpoint_every}")
        if not inspect.iscoroutinefunction(getattr(client, "execute_command", None)):
            raise TypeError(f"RedisEventLog needs redis-py's asyncio client (redis.asyncio.Redis or "
                            f"RedisCluster), not {type(client).__module__}.{type(client).__qualname__}")
        self.client = client
        self.key = key
        self.checkpoint_key = checkpoint_key(key)
        self.max_len = max_len
        self.ttl = ttl
        self.keep_checkpoints = keep_checkpoints
        self.publish = publish
        if agentscope_dump is None:
            agentscope_dump = key.startswith(AGENTSCOPE_SESSION_EVENTS)
        self._encode = agentscope_encode if agentscope_dump else wire_json.encode
        self.checkpoint_every = min(checkpoint_every, max_len // 2) if max_len else checkpoint_every
        self.unknown = unknown
        self.retry_for = retry_for
        self.skipped = 0
        """Entries readers of this object skipped: no event at all, of an
        unknown type under ``unknown="skip"``, or a forged checkpoint."""
        self.last_id = None
        """The id of the last entry this producer wrote (None before any)."""
        self._closed = False
        self._script = client.register_script(APPEND)
        self._reader = client.register_script(READ)
        self._payloads = Payloads("json", raw=False, unknown=unknown)
        self._loader = client.register_script(LOAD)
        self._trimmer = client.register_script(TRIM)
        self._session = Session(*([msg] if msg is not None else []), keep_custom=False)
        self._loaded = False
        self._dirty = set() if msg is None else {msg.id}
        self._began = {}
        self._due = False
        self._since_checkpoint = 0
        self._failed = None
        # redis-py's cluster client refuses scripts in a pipeline.
        self._cluster = type(client).__name__ == "RedisCluster"

    def __repr__(self) -> str:
        return f"RedisEventLog({self.key!r})"

    async def session(self) -> Session:
        """The session as of the stream's newest entry: the checkpoint, and
        every writer's entries after its cut; the caller's own. A producer
        that has not loaded the log yet goes on from it too, so that a write
        decided from it (``expect=session.last_id``, as the answer endpoint
        writes) needs no second load."""
        session, folded = await load(self)
        if self.keep_checkpoints and not self._loaded:
            self._take_loaded(session.copy(), folded)
        return session

    @property
    def closed(self) -> bool:
        """True once this producer closed the log, or a read of this object
        met the log's end mark."""
        return self._closed


if TYPE_CHECKING:
    def _is_a_store(log: RedisEventLog) -> EventStore:
        return log  # mypy checks that RedisEventLog answers the store contract
