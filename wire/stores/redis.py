"""A reply's events in a Redis Stream: resume on any replica, and share
agentscope's own session logs.

Needs the ``redis`` extra (redis-py's asyncio client, and anyio). This is the
only module of wire that imports redis.

The stream. One Redis Stream per log. Each entry is one field, ``payload``,
holding one event as JSON: the layout of agentscope 2.0.11's app
(``agentscope.app.message_bus._redis_message_bus``, whose ``log_read`` reads
what this module writes, and ``agentscope.app._bus_ops.publish_session_event``,
whose entries this module reads). :func:`agentscope_session_key` names a
session's stream the way agentscope does, and ``publish=True`` also publishes
each event on the Pub/Sub channel of the stream's name with ``_entry_id``
added, as ``publish_session_event`` does, so agentscope's own
``/sessions/{id}/stream`` serves what wire writes.

The entry ids are the cursors: ``read(after=id)``, ``follow(after=id)``, and
the ``id:`` of every SSE frame, so a browser's ``Last-Event-ID`` resumes on
whichever replica it reaches. A reader reads replay and live the same way,
from one cursor: a script reads the entries after it (``XRANGE``) and joins
their ids and payloads, and when there are none yet, ``XREAD BLOCK`` from the
same cursor waits for the next. There is no seam between replay and live, so
nothing is missed or sent twice and nothing has to be de-duplicated. The SSE
body carries each payload's bytes as Redis holds them, never decoded and
re-encoded per reader, and the readers of one client share a read that is
under way (a crowd following one reply costs Redis about one read per batch).

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

Foreign entries. A shared stream may hold entries other producers wrote.
Entries without a ``payload`` field are skipped, as agentscope's ``log_read``
skips them. An event of a type wire does not know follows ``unknown``, the
decoders' policy (``"skip"`` by default here, since a session stream is
shared; ``"keep"`` passes it on; ``"raise"`` raises DecodeError). A payload
that is not an event at all raises DecodeError under ``"raise"`` and is
otherwise skipped and counted in :attr:`RedisEventLog.skipped`: a reader
(a browser's stream) never dies of a foreign producer's garbage.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from contextlib import suppress
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import anyio
import redis.exceptions
from redis.crc import key_slot

from wire import json as wire_json
from wire.errors import DecodeError, StoreError
from wire.events import (
    AgentEvent,
    ReplyEndEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    UnknownEvent,
)
from wire.framing import RawFrame, SSEEncoder, UnknownPolicy
from wire.messages import Msg
from wire.peek import UnknownEnvelope, peek_json, peek_json_lines
from wire.resume import checkpoint
from wire.stores import Resume

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from wire.stores import SSESource

__all__ = ("AGENTSCOPE_SESSION_EVENTS", "RedisEventLog", "agentscope_session_key", "checkpoint_key")

# agentscope.app.message_bus._keys.MessageBusKeys.session_events
AGENTSCOPE_SESSION_EVENTS = "agentscope:session:events:"

Event = AgentEvent | UnknownEvent

# The events after which a reply waits or is over (agentscope.app.channel._stream).
_TERMINAL = (ReplyEndEvent, RequireUserConfirmEvent, RequireExternalExecutionEvent)
_ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_ZERO = b"0-0"
# How long one XREAD waits for entries. Well below redis-py's default socket
# timeout (5 s in redis-py 8), which would cut a longer wait short; a reader
# also notices the reply's end mark and a dead server within this time.
_BLOCK_MS = 1000
# One script call holds at most this many events: a script blocks Redis while
# it runs, so a long batch is cut into several calls, sent in one pipeline.
_SCRIPT_BATCH = 512
# Read errors worth retrying: the server went away, is restarting or is
# loading its AOF (BusyLoadingError is a ConnectionError).
_TRANSIENT = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)

# KEYS: the stream, the checkpoint. ARGV: max_len (0: none), ttl in ms (0:
# none), publish (1/0), reset the checkpoint first (1/0), the Msg snapshot
# ("" : no checkpoint in this call), finish (1/0: mark the reply's end), the
# last id the producer wrote ("" if none), then the payloads.
_APPEND = """
local key, ck = KEYS[1], KEYS[2]
local max_len, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
local publish, reset, msg, finish = ARGV[3] == '1', ARGV[4] == '1', ARGV[5], ARGV[6] == '1'
local last = ARGV[7]
if last == '' then last = '0-0' end
if reset then redis.call('DEL', ck) end
local ids = {}
for i = 8, #ARGV do
  local payload = ARGV[i]
  local id
  if max_len > 0 then
    id = redis.call('XADD', key, 'MAXLEN', '~', max_len, '*', 'payload', payload)
  else
    id = redis.call('XADD', key, '*', 'payload', payload)
  end
  ids[#ids + 1] = id
  last = id
  if publish then
    redis.call('PUBLISH', key, string.sub(payload, 1, -2) .. ',"_entry_id":"' .. id .. '"}')
  end
end
if reset and #ids > 0 then redis.call('HSET', ck, 'first', ids[1]) end
if msg ~= '' then redis.call('HSET', ck, 'id', last, 'msg', msg) end
if finish then redis.call('HSET', ck, 'end', last) end
if ttl > 0 then
  redis.call('PEXPIRE', key, ttl)
  redis.call('PEXPIRE', ck, ttl)
end
return ids
"""


# KEYS: the stream, the checkpoint. ARGV: the cursor, the most entries to read.
# Returns the id of the last entry read ("" if none), the end mark ("" if
# none), how many entries had no payload, 1 if a payload holds an LF, the ids
# joined with spaces and the payloads joined with LF.
_READ = r"""
local entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', tonumber(ARGV[2]))
local ids, payloads, skipped, lines, last = {}, {}, 0, 0, ''
for _, entry in ipairs(entries) do
  local fields, payload = entry[2], nil
  for j = 1, #fields, 2 do
    if fields[j] == 'payload' then payload = fields[j + 1] break end
  end
  last = entry[1]
  if payload then
    ids[#ids + 1] = entry[1]
    payloads[#payloads + 1] = payload
    if string.find(payload, '\n', 1, true) then lines = 1 end
  else
    skipped = skipped + 1
  end
end
local ending = redis.call('HGET', KEYS[2], 'end') or ''
return {last, ending, skipped, lines, table.concat(ids, ' '), table.concat(payloads, '\n')}
"""


def agentscope_session_key(session_id: str) -> str:
    """The stream agentscope 2.0.11's app keeps a session's events in."""
    return AGENTSCOPE_SESSION_EVENTS + session_id


def checkpoint_key(key: str) -> str:
    """The hash beside stream ``key`` that holds its reply's checkpoint.

    Redis Cluster hashes only a key's first ``{...}`` tag when it has one, so
    a key without a tag becomes the tag (``{key}``) and a key with one keeps
    it: either way the hash lands in the stream's slot."""
    tagged = key if _hash_tag(key) is not None else "{" + key + "}"
    name = tagged + ":wire.checkpoint"
    if key_slot(name.encode()) != key_slot(key.encode()):
        raise ValueError(f"no checkpoint key shares the hash slot of {key!r}")
    return name


def _hash_tag(key: str) -> str | None:
    start = key.find("{")
    if start < 0:
        return None
    end = key.find("}", start + 1)
    return key[start + 1:end] if end > start + 1 else None


def _order(entry_id: bytes) -> tuple[int, int]:
    ms, _, seq = entry_id.partition(b"-")
    return int(ms), int(seq or 0)


def _as_bytes(value: Any) -> bytes:
    return value if type(value) is bytes else str(value).encode()


class _Checkpoint:
    """The checkpoint hash, read: the entry it covers, the Msg then, the
    reply's first entry and, once the producer closed it, its last."""

    __slots__ = ("end", "first", "id", "msg")

    def __init__(self, fields: dict[Any, Any]) -> None:
        got = {_as_bytes(k): _as_bytes(v) for k, v in fields.items()}
        self.id = got.get(b"id")
        self.msg = got.get(b"msg")
        self.first = got.get(b"first")
        self.end = got.get(b"end")


class RedisEventLog:
    """One log in a Redis Stream: ``key``, on redis-py's asyncio client.

    The producer awaits :meth:`append` or :meth:`extend` (or runs :meth:`pump`)
    and :meth:`close` at the end; readers, in any process, :meth:`read`,
    :meth:`follow` or serve :meth:`sse` (``wire.transports.http.sse_endpoint`` mounts it
    as it mounts a ``wire.stores.memory.EventLog``).

    * ``max_len``: trim the stream to about this many entries on each append
      (``XADD MAXLEN ~``; Redis keeps at least that many).
    * ``ttl``: seconds after the last append at which Redis deletes the log.
    * ``msg``: the reply's Msg, for a producer that keeps checkpoints (see
      the module docstring); :attr:`msg` is then the Msg so far.
    * ``publish``: also publish each event on the Pub/Sub channel ``key``
      with ``_entry_id``, as agentscope's ``publish_session_event`` does.
    * ``checkpoint_every``: the most events between two checkpoints (kept
      below ``max_len / 2`` so the entries after a checkpoint outlive it).
    * ``unknown``: what a reader does with an entry of an unknown type (and,
      unless ``"raise"``, with one that is no event at all).
    * ``retry_for``: how long a reader retries a lost connection.

    Works with a client made either way (``decode_responses`` on or off);
    off saves a decode and encode of every payload.
    """

    def __init__(self, client: Redis, key: str, *, max_len: int | None = None, ttl: float | None = None,
                 msg: Msg | None = None, publish: bool = False, checkpoint_every: int = 256,
                 unknown: UnknownPolicy = "skip", retry_for: float = 30.0) -> None:
        if max_len is not None and max_len < 2:
            raise ValueError(f"max_len must be at least 2, not {max_len}")
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be positive, not {checkpoint_every}")
        self.client = client
        self.key = key
        self.checkpoint_key = checkpoint_key(key)
        self.max_len = max_len
        self.ttl = ttl
        self.msg = msg
        self.publish = publish
        self.checkpoint_every = min(checkpoint_every, max_len // 2) if max_len else checkpoint_every
        self.unknown: UnknownPolicy = unknown
        self.retry_for = retry_for
        self.skipped = 0
        """Entries readers of this object skipped: no event at all, or of an
        unknown type under ``unknown="skip"``."""
        self.last_id: str | None = None
        """The id of the last entry this producer wrote."""
        self._script = client.register_script(_APPEND)
        self._reader = client.register_script(_READ)
        self._since_checkpoint = 0
        self._started = False
        self._failed: StoreError | None = None

    def __repr__(self) -> str:
        return f"RedisEventLog({self.key!r})"

    def _error(self, exc: BaseException, doing: str) -> StoreError:
        error = StoreError(f"{doing} failed: {type(exc).__name__}: {exc}", key=self.key)
        error.__cause__ = exc
        return error

    # -- the producer -------------------------------------------------------------------

    async def append(self, event: AgentEvent) -> str:
        """Write one event; its entry id."""
        return (await self.extend([event]))[0]

    async def extend(self, events: Iterable[AgentEvent]) -> list[str]:
        """Write ``events`` in order, in one round trip; their entry ids.

        With ``msg``, the events are applied to it and a checkpoint goes with
        the entries when one is due. Raises StoreError if Redis fails; the
        events may then be written or not."""
        events = list(events)
        if not events:
            return []
        # With a Msg, a checkpoint at least every checkpoint_every events, even inside one batch.
        size = min(_SCRIPT_BATCH, self.checkpoint_every) if self.msg is not None else _SCRIPT_BATCH
        calls = [self._call(events[start:start + size], finish=False) for start in range(0, len(events), size)]
        ids = await self._run(calls)
        self.last_id = ids[-1]
        return ids

    async def close(self) -> None:
        """The reply is over: write its final checkpoint (with ``msg``) and
        mark its end, where readers following the log stop."""
        await self._run([self._call([], finish=True)])

    async def pump(self, events: AsyncIterable[AgentEvent]) -> None:
        """Append every event of ``events`` as it comes, then close the log."""
        async for event in events:
            await self.append(event)
        await self.close()

    def _call(self, chunk: list[AgentEvent], *, finish: bool) -> list[Any]:
        """The script's arguments for one chunk, applying it to ``msg``."""
        snapshot = b""
        reset = not self._started and self.msg is not None
        if self.msg is not None:
            self.msg.extend_events(chunk)
            self._since_checkpoint += len(chunk)
            due = self._since_checkpoint >= self.checkpoint_every or finish or reset
            if due or any(isinstance(event, _TERMINAL) for event in chunk):
                snapshot = wire_json.encode(self.msg)
                self._since_checkpoint = 0
        self._started = True
        ttl = round(self.ttl * 1000) if self.ttl else 0
        return [self.max_len or 0, ttl, int(self.publish), int(reset), snapshot, int(finish),
                self.last_id or "", *map(wire_json.encode, chunk)]

    async def _run(self, calls: list[list[Any]]) -> list[str]:
        if self._failed is not None:
            raise StoreError(f"an earlier append failed ({self._failed}); this log's Msg may not "
                             "match its stream any more", key=self.key) from self._failed
        keys = [self.key, self.checkpoint_key]
        try:
            if len(calls) == 1:
                results = [await self._script(keys=keys, args=calls[0])]
            else:
                async with self.client.pipeline(transaction=False) as pipe:
                    for args in calls:
                        await self._script(keys=keys, args=args, client=pipe)
                    results = await pipe.execute()
        except (redis.exceptions.RedisError, OSError) as exc:
            error = self._error(exc, "append")
            if self.msg is not None:
                self._failed = error
            raise error from exc
        ids = [entry_id.decode() if type(entry_id) is bytes else entry_id
               for result in results for entry_id in result]
        if ids:
            self.last_id = ids[-1]
        return ids

    # -- lifecycle ----------------------------------------------------------------------

    async def trim(self, before: str) -> int:
        """Drop the entries older than id ``before`` (``XTRIM MINID``); how
        many went. The checkpoint stays: readers of the trimmed part get it."""
        return int(await self._command("trim", "XTRIM", self.key, "MINID", before))

    async def delete(self) -> None:
        """Delete the log: its stream and its checkpoint."""
        await self._command("delete", "DEL", self.key, self.checkpoint_key)

    async def expire(self, seconds: float) -> None:
        """Delete the log ``seconds`` from now (a finished reply's lifetime)."""
        ms = round(seconds * 1000)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.pexpire(self.key, ms)
            pipe.pexpire(self.checkpoint_key, ms)
            try:
                await pipe.execute()
            except (redis.exceptions.RedisError, OSError) as exc:
                raise self._error(exc, "expire") from exc

    async def _command(self, doing: str, *args: Any) -> Any:
        try:
            return await self.client.execute_command(*args)  # type: ignore[no-untyped-call]
        except (redis.exceptions.RedisError, OSError) as exc:
            raise self._error(exc, doing) from exc

    # -- readers ------------------------------------------------------------------------

    async def last_checkpoint(self) -> tuple[str, Msg] | None:
        """The checkpoint the producer last wrote: the id of the last entry
        it covers and the Msg then; None if there is none."""
        found = _Checkpoint(await self._retrying("read the checkpoint", self.client.hgetall, self.checkpoint_key))
        if found.id is None or found.msg is None:
            return None
        return found.id.decode(), wire_json.decode_msg(found.msg)

    async def read(self, after: str | None = None, count: int | None = None) -> list[tuple[str, Event]]:
        """The entries strictly after id ``after`` (all with None), at most
        ``count``, as (id, event) pairs. Plain ``XRANGE``: no checkpoint.
        Retries a lost connection for ``retry_for`` seconds."""
        start = "-" if after is None else "(" + after
        args: list[Any] = ["XRANGE", self.key, start, "+"]
        if count is not None:
            args += ["COUNT", count]
        batch = self._batch(await self._retrying("read", self.client.execute_command, *args))
        self.skipped += batch.skipped
        return self._decode(batch)

    async def follow(self, after: str | None = None, *, heartbeat: float | None = None,
                     max_batch: int = 512) -> AsyncGenerator[list[tuple[str, Event]], None]:
        """The entries after id ``after`` (all with None), then live ones as
        they come, in batches of at most ``max_batch`` (id, event) pairs,
        until the producer closes the log. With ``heartbeat``, an empty batch
        after that many idle seconds. Where entries after the cursor were
        trimmed and the reply has a checkpoint, it comes first (a CUSTOM
        ``wire.checkpoint`` event, with the id of the entry it covers)."""
        cursor, first, end = await self._open(after, "replay")
        async for batch in self._follow(cursor, first, end, heartbeat, max_batch):
            yield self._decode(batch) if batch.ids else []

    async def replay(self, *, heartbeat: float | None = None) -> AsyncGenerator[list[Event], None]:
        """:meth:`follow` from the first entry, without the entry ids: the
        reply's events in batches (an empty one after ``heartbeat`` idle
        seconds) until the log closes; :class:`wire.stores.Replayable`."""
        async for batch in self.follow(None, heartbeat=heartbeat):
            yield [event for _, event in batch]

    async def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
                  heartbeat: float | None = 15.0) -> AsyncGenerator[bytes, None]:
        """The log as an SSE body, each frame's ``id`` its entry id, the
        payload's bytes as its ``data``; a ``:`` comment after ``heartbeat``
        idle seconds.

        As ``wire.stores.memory.EventLog.sse``: a fresh client gets every event (past
        a trimmed beginning: the checkpoint, then the events after it). A
        client that reconnects with ``Last-Event-ID`` gets, with
        ``resume="checkpoint"`` and a reply that keeps checkpoints, the
        latest checkpoint (id: the entry it covers) and the events after it;
        otherwise, or with ``resume="replay"``, the events after that id (an
        id this log never sent starts it from the beginning), with the
        checkpoint first if some of them were trimmed."""
        if resume not in ("checkpoint", "replay"):
            raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
        cursor, first, end = await self._open(last_event_id or None, resume)
        heartbeat_frame = SSEEncoder.comment()
        async for batch in self._follow(cursor, first, end, heartbeat, 512):
            yield self._sse_frames(batch) if batch.ids else heartbeat_frame

    # -- reading, inside --------------------------------------------------------------

    def _batch(self, raw: Any) -> _Batch:
        """The ids and payloads of XRANGE/XREAD entries, as bytes; entries
        without a payload field are skipped, as agentscope's ``log_read``
        skips them."""
        batch = _Batch([], [])
        for entry_id, fields in raw:
            payload = fields.get(b"payload")
            if payload is None:
                payload = fields.get("payload")
                if payload is None:
                    batch.skipped += 1
                    continue
            batch.ids.append(_as_bytes(entry_id))
            batch.payloads.append(_as_bytes(payload))
        return batch

    def _checked(self, batch: _Batch, *, raw: bool) -> tuple[list[bytes], list[Any]]:
        """The ids and items of ``batch`` one entry at a time (the slow path,
        for a batch that holds anything but plain events of known types):
        events, or with ``raw`` checked payloads, under the unknown-event
        policy. Under ``"raise"`` a bad entry raises DecodeError naming the
        key and the entry, with the items before it as ``events``."""
        ids: list[bytes] = []
        items: list[Any] = []
        for entry_id, payload in zip(batch.ids, batch.payloads, strict=True):
            try:
                item = self._one(payload, raw=raw)
            except DecodeError as exc:
                error = DecodeError(f"{self.key} entry {entry_id.decode()}: {exc.reason}", path=exc.path,
                                    offset=exc.offset, events=list(zip(ids, items, strict=True)))
                raise error from exc
            if item is None:
                self.skipped += 1
            else:
                ids.append(entry_id)
                items.append(item)
        return ids, items

    def _one(self, payload: bytes, *, raw: bool) -> Any:
        """One payload as the decoders' policy has it: the event (with
        ``raw``: the payload, its envelope checked), an UnknownEvent (or its
        payload) kept, None to skip; DecodeError under ``"raise"``."""
        try:
            if raw:
                peek_json(payload)
                # JSON holds a CR only as whitespace (one in a string is
                # escaped), and SSE data cannot hold one: a space means the same.
                return payload.replace(b"\r", b" ")
            return wire_json.decode_event(payload)
        except DecodeError:
            if self.unknown == "raise":
                raise
        try:
            envelope = peek_json(payload, unknown="keep")
        except DecodeError:
            return None  # no event at all
        if self.unknown == "keep" and isinstance(envelope, UnknownEnvelope):
            return payload.replace(b"\r", b" ") if raw else UnknownEvent(envelope.type, payload, "json")
        return None

    def _decode(self, batch: _Batch) -> list[tuple[str, Event]]:
        joined = batch.plain()
        if joined is not None:
            # One msgspec call for the batch; a blank line, or two values on one, would change the count.
            with suppress(DecodeError):
                events = wire_json.decode_events(joined)
                if len(events) == len(batch.ids):
                    return list(zip(map(bytes.decode, batch.ids), events, strict=True))
        ids, items = self._checked(batch, raw=False)
        return list(zip(map(bytes.decode, ids), items, strict=True))

    def _sse_frames(self, batch: _Batch) -> bytes:
        if batch.frames is not None:  # another reader of a shared batch wrote them already
            return batch.frames
        ids, payloads = batch.ids, batch.payloads
        joined = batch.plain()
        plain = False
        if joined is not None:
            with suppress(DecodeError):  # every payload an event of a known type: one msgspec call checks all
                plain = len(peek_json_lines(joined)) == len(ids)
        if not plain:
            ids, payloads = self._checked(batch, raw=True)
            if any(b"\n" in payload for payload in payloads):  # one data line per payload line
                encoder = SSEEncoder(next_id=None)
                return b"".join(b"id: %s\n%s" % (entry_id, encoder.encode(RawFrame(payload)))
                                for entry_id, payload in zip(ids, payloads, strict=True))
        prefixes = map(b"id: %s\ndata: ".__mod__, ids)
        frames = b"".join(chain.from_iterable(zip(prefixes, payloads, repeat(b"\n\n"))))
        if plain:  # the same whatever a reader's policy: kept for the other readers of the batch
            batch.frames = frames
        return frames

    async def _open(self, after: str | None, resume: Resume) -> tuple[bytes, _Batch, bytes | None]:
        """Where a reader starts: its cursor, the checkpoint entry to send
        before the entries after it (none when none is due), and the reply's
        end mark if the producer closed it already."""
        found, info = await self._retrying("open", self._look)
        cursor = after.encode() if after is not None and _ENTRY_ID.fullmatch(after) else None
        last_generated = info.get("last-generated-id") if info else None
        if cursor is not None and (last_generated is None or _order(cursor) > _order(_as_bytes(last_generated))):
            cursor = None  # an id this log never gave out: from the beginning, as EventLog.sse does
        if found.id is not None and found.msg is not None and cursor is not None and resume == "checkpoint":
            return (*self._from_checkpoint(found), found.end)
        return (*self._past_trim(cursor or _ZERO, found, info), found.end)

    def _past_trim(self, cursor: bytes, found: _Checkpoint, info: dict[str, Any] | None) -> tuple[bytes, _Batch]:
        """From ``cursor``, or from the checkpoint if entries of its reply
        after ``cursor`` may be gone: trimming removes a stream's oldest
        entries, so that is when the oldest entry left comes after both the
        cursor and the reply's first entry (or, for ``XDEL``, when Redis's
        ``max-deleted-entry-id`` does). A checkpoint sent when nothing was
        lost costs a frame, never exactness."""
        if found.id is None or found.msg is None:
            return cursor, _Batch([], [])
        at = _order(cursor)
        first = _order(found.first) if found.first is not None else (0, 0)
        head = info.get("first-entry") if info else None
        if not head:  # no stream, or an empty one: whatever the reply had is gone
            gone = at < _order(found.id)
        else:
            oldest = _order(_as_bytes(head[0]))
            gone = oldest > at and oldest > first
        deleted = info.get("max-deleted-entry-id") if info else None
        if deleted is not None:
            lost = _order(_as_bytes(deleted))
            gone = gone or (lost > at and lost >= first)
        return self._from_checkpoint(found) if gone else (cursor, _Batch([], []))

    async def _look(self) -> tuple[_Checkpoint, dict[str, Any] | None]:
        """The checkpoint and the stream's XINFO (None if there is no stream), together."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hgetall(self.checkpoint_key)
            pipe.xinfo_stream(self.key)
            fields, info = await pipe.execute(raise_on_error=False)
        if isinstance(fields, Exception):
            raise fields
        if isinstance(info, redis.exceptions.ResponseError) and "no such key" in str(info).lower():
            info = None
        elif isinstance(info, Exception):
            raise info
        return _Checkpoint(fields), info

    def _from_checkpoint(self, found: _Checkpoint) -> tuple[bytes, _Batch]:
        assert found.id is not None and found.msg is not None  # checked by the callers
        event = checkpoint(wire_json.decode_msg(found.msg))
        return found.id, _Batch([found.id], [wire_json.encode(event)])

    async def _retrying(self, doing: str, step: Any, *args: Any) -> Any:
        """``await step(*args)``, retried with backoff while Redis is away
        (at most ``retry_for`` seconds), any failure a StoreError."""
        delay = 0.05
        deadline = anyio.current_time() + self.retry_for
        while True:
            try:
                return await step(*args)
            except _TRANSIENT as exc:
                if anyio.current_time() + delay > deadline:
                    raise self._error(exc, doing) from exc
            except redis.exceptions.RedisError as exc:
                raise self._error(exc, doing) from exc
            await anyio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _poll(self, cursor: bytes, count: int) -> tuple[_Batch, bytes | None, bytes | None]:
        """The entries after ``cursor`` (at most ``count``), the reply's end
        mark and the id of the last entry read (with or without a payload),
        in one script call: Redis joins the ids and the payloads, so a batch
        reaches Python as two strings, not an object per entry."""
        last, end, skipped, lines, ids, payloads = await self._reader(
            keys=[self.key, self.checkpoint_key], args=[cursor, count])
        last, end = _as_bytes(last), _as_bytes(end)
        if not last:
            return _Batch([], []), end or None, None
        if int(lines):  # a payload holds a line break: joined with LF they cannot be split again
            batch = self._batch(await self.client.xrange(self.key, min=b"(" + cursor, max=last))
            return batch, end or None, last
        joined = _as_bytes(payloads)
        batch = _Batch(_as_bytes(ids).split(b" ") if ids else [], joined.split(b"\n") if ids else [], joined)
        batch.skipped = int(skipped)
        return batch, end or None, last

    async def _shared_poll(self, cursor: bytes, count: int) -> tuple[_Batch, bytes | None, bytes | None]:
        """:meth:`_poll`, shared with the other readers of this key on this
        client (see :class:`_SharedReads`)."""
        shared = _SHARED.get(self.client)
        if shared is None:
            shared = _SHARED[self.client] = _SharedReads()
        return await shared.get((self.key, cursor, count), lambda: self._poll(cursor, count))

    async def _wait(self, cursor: bytes, block_ms: int) -> None:
        """Until an entry after ``cursor`` exists, or ``block_ms`` passed.
        Nothing appended between the last read and this wait is missed:
        XREAD from an id answers at once when entries after it exist."""
        await self.client.xread({self.key: cursor}, count=1, block=block_ms)

    async def _follow(self, cursor: bytes, first: _Batch, end: bytes | None, heartbeat: float | None,
                      max_batch: int) -> AsyncGenerator[_Batch, None]:
        """Batches of entries from ``cursor`` on (``first`` before them),
        until the end mark; an empty batch after each idle ``heartbeat``."""
        if first.ids:
            yield first
        if end is not None and _order(cursor) >= _order(end):
            return
        block_ms = min(_BLOCK_MS, max(1, round(heartbeat * 1000))) if heartbeat else _BLOCK_MS
        idle_since = anyio.current_time()
        while True:
            batch, end, last = await self._retrying("follow", self._shared_poll, cursor, max_batch)
            self.skipped += batch.skipped
            if last is None:
                if end is not None and _order(cursor) >= _order(end):
                    return
                if heartbeat is not None and anyio.current_time() - idle_since >= heartbeat:
                    idle_since = anyio.current_time()
                    yield _Batch([], [])
                await self._retrying("follow", self._wait, cursor, block_ms)
                continue
            if len(batch.ids) >= max_batch and (restart := await self._lagging(cursor)) is not None:
                cursor, first = restart  # this reader fell behind the trim: go on from the checkpoint
                yield first
                continue
            idle_since = anyio.current_time()
            cursor = last
            if batch.ids:
                yield batch
            if end is not None and _order(cursor) >= _order(end):
                return

    async def _lagging(self, cursor: bytes) -> tuple[bytes, _Batch] | None:
        """For a reader reading full batches: the checkpoint to go on from
        if entries after ``cursor`` were trimmed before it read them."""
        found, info = await self._retrying("follow", self._look)
        cursor, first = self._past_trim(cursor, found, info)
        return (cursor, first) if first.ids else None


class _Batch:
    """Entries as readers pass them on: their ids and payloads (bytes), and
    the payloads joined with LF when Redis joined them (the fast paths)."""

    __slots__ = ("frames", "ids", "joined", "payloads", "skipped")

    def __init__(self, ids: list[bytes], payloads: list[bytes], joined: bytes | None = None) -> None:
        self.ids = ids
        self.payloads = payloads
        self.joined = joined
        self.skipped = 0
        """Entries read without a payload field."""
        self.frames: bytes | None = None
        """The batch as SSE frames, once a reader wrote them."""

    def plain(self) -> bytes | None:
        """The payloads joined with LF if each is one non-blank line without
        CR (what an SSE data line and an NDJSON line hold as they are)."""
        if not self.payloads:
            return None
        joined = self.joined if self.joined is not None else b"\n".join(self.payloads)
        # Only a payload that starts with a space, a tab or nothing can be blank,
        # and the least payload starts with the least first byte.
        if 13 in joined or min(self.payloads)[:1] <= b" ":
            return None
        if self.joined is None and joined.count(b"\n") != len(self.payloads) - 1:
            return None
        return joined


if TYPE_CHECKING:
    def _serves_as_a_store(log: RedisEventLog) -> SSESource:
        return log  # mypy checks that an SSE endpoint can serve this log


_PollKey = tuple[str, bytes, int]
_Poll = tuple[_Batch, bytes | None, bytes | None]


class _SharedReads:
    """The reads of one client's readers, shared while they are under way.
    Readers of one reply in one process mostly ask for the same batch at the
    same time: the live ones all wait at the newest entry, and a crowd that
    arrives together replays in step. A reader that asks for a key, cursor
    and count another reader is reading already awaits that read instead of
    sending its own. That read began before the reader asked, so its answer
    is a prefix of what the reader's own read would have returned (the
    entries after the same cursor); entries added since come with the
    reader's next read. Nothing is kept once a read is
    over, so nothing can go stale (a log deleted and written again)."""

    def __init__(self) -> None:
        # A read under way: set when it ends, with its result (none if it failed).
        self.reading: dict[_PollKey, tuple[anyio.Event, list[_Poll]]] = {}

    async def get(self, key: _PollKey, read: Callable[[], Awaitable[_Poll]]) -> _Poll:
        under_way = self.reading.get(key)
        if under_way is not None:
            done, result = under_way
            await done.wait()
            if result:
                return result[0]
            return await read()  # it failed there: try here (the caller retries as it does)
        done, result = self.reading[key] = (anyio.Event(), [])
        try:
            result.append(await read())
        finally:
            del self.reading[key]
            done.set()
        return result[0]


_SHARED: WeakKeyDictionary[Any, _SharedReads] = WeakKeyDictionary()
