"""The readers' half of a Redis log: replay and live from one cursor, past
a trim by the checkpoint, as events or as SSE.

A reader reads replay and live the same way, from one cursor: a script
reads the entries after it (``XRANGE``) and joins their ids and payloads,
and when there are none yet, ``XREAD BLOCK`` from the same cursor waits for
the next. There is no seam between replay and live, so nothing is missed or
sent twice. The same script says whether the cursor's own entry is gone (a
trim or an ``XDEL`` passed the reader): the reader then checks the
checkpoint hash and goes on from the checkpoint if entries it had not read
were lost, or fails with StoreError if the log keeps no checkpoint; it never
skips entries silently.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing, suppress
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import anyio
import redis.exceptions

from wire import json as wire_json
from wire.errors import DecodeError, StoreError
from wire.events import CustomEvent
from wire.framing import RawFrame, SSEEncoder
from wire.framing._base import Payloads
from wire.framing.sse import _interleaved
from wire.messages import Msg
from wire.peek import peek_json_lines
from wire.session import CHECKPOINT, checkpoint_payload, restart
from wire.stores import Entry, Resume
from wire.stores._coalesce import Coalesce, Coalescer, CoalescerState, hold_of, join_hold
from wire.stores.redis._common import (
    ENTRY_ID,
    FAILURES,
    TRANSIENT,
    ZERO,
    Checkpoint,
    LogBase,
    as_bytes,
    order,
)

# How long one XREAD waits for entries. Well below redis-py's default socket
# timeout (5 s in redis-py 8), which would cut a longer wait short; a reader
# also notices the reply's end mark and a dead server within this time.
_BLOCK_MS = 1000
# A checkpoint written into the stream itself is no checkpoint of this store's
# (those live in the hash): a foreign writer's, never served as one.
_FORGED = b'"' + CHECKPOINT.encode() + b'"'


class Batch:
    """Entries as readers pass them on: their ids and payloads (bytes), and
    the payloads joined with LF when Redis joined them (the fast paths)."""

    __slots__ = ("coalesced", "entries", "frames", "held", "ids", "joined", "own", "payloads", "skipped")

    def __init__(self, ids: list[bytes], payloads: list[bytes], joined: bytes | None = None, *,
                 own: bool = False) -> None:
        self.own = own
        """A batch of the store's own checkpoint, not of stream entries."""
        self.ids = ids
        self.payloads = payloads
        self.joined = joined
        self.skipped = 0
        """Entries read without a payload field."""
        self.frames: bytes | None = None
        """The batch as SSE frames, once a reader wrote them."""
        self.coalesced: dict[CoalescerState, tuple[bytes, CoalescerState]] = {}
        """The batch coalesced as SSE frames, and the coalescer's state after
        it, by its state before it: what readers sharing the batch share."""
        self.entries: dict[CoalescerState | None, tuple[list[Entry], CoalescerState | None]] = {}
        """The batch decoded (None) or decoded and coalesced, as ``coalesced``
        holds it as SSE: the readers sharing a batch share its events."""
        self.held: tuple[Batch, Batch] | None = None
        """A batch read after a hold and this one joined to it: the readers
        that shared both reads share the joined batch (and its frames)."""

    def then(self, other: Batch) -> Batch:
        """This batch of the store's own entries, then ``other``'s."""
        return Batch(self.ids + other.ids, self.payloads + other.payloads, own=True)

    def and_then(self, more: Batch) -> Batch:
        """This batch of stream entries, then ``more`` read after it (a
        hold's second read): one batch for every reader that shared both
        reads, made once."""
        if self.held is not None and self.held[0] is more:
            return self.held[1]
        joined = None
        if self.joined is not None and more.joined is not None and self.ids and more.ids:
            joined = self.joined + b"\n" + more.joined  # each joined by Redis (no payload holds an LF)
        both = Batch(self.ids + more.ids, self.payloads + more.payloads, joined)
        self.held = (more, both)
        return both

    def plain(self) -> bytes | None:
        """The payloads joined with LF if each is one non-blank line without
        CR (what an SSE data line and an NDJSON line hold as they are), and
        none may be a forged checkpoint."""
        if not self.payloads:
            return None
        joined = self.joined if self.joined is not None else b"\n".join(self.payloads)
        # Only a payload that starts with a space, a tab or nothing can be blank,
        # and the least payload starts with the least first byte.
        if 13 in joined or min(self.payloads)[:1] <= b" " or _FORGED in joined:
            return None
        if self.joined is None and joined.count(b"\n") != len(self.payloads) - 1:
            return None
        return joined


_EMPTY = Batch([], [])
_Poll = tuple[Batch, bytes | None, bytes | None, bool]


class Reader(LogBase):
    """Reads: :meth:`read`, :meth:`follow`, :meth:`sse`."""

    _reader: Any  # the READ script, registered on the client
    _payloads: Payloads

    async def checkpoints(self) -> dict[str, tuple[str, Msg]]:
        """The checkpoint the producers last wrote, by reply id, in the
        order the replies began: the id of the entry it was taken at and
        the reply's Msg then (empty if the log keeps none)."""
        found = Checkpoint(await self._retrying("read the checkpoint", self.client.hgetall, self.checkpoint_key),
                           self.key)
        taken = found.in_order(found.msgs)
        try:
            return {reply.decode(): (found.at[reply].decode(), wire_json.decode_msg(found.msgs[reply]))
                    for reply in taken}
        except DecodeError as exc:
            raise StoreError(f"a reply's checkpoint in the hash is no Msg: {exc}", key=self.key) from exc

    async def snapshot(self) -> dict[str, Msg]:
        return {reply: msg for reply, (_, msg) in (await self.checkpoints()).items()}

    async def at_end(self, after: str | None = None) -> bool:
        """Whether a reader at ``after`` would get nothing: one ``HGET`` of
        the end mark while the log is open (the common case, which this
        answers without delaying a live reader), and where it is closed, the
        look a reader opens with (a trimmed log's checkpoints, a restart)."""
        end = await self._retrying("look for the end", self.client.hget, self.checkpoint_key, "end")
        if end is None:
            return False
        cursor, first, end = await self._open(after, "replay")
        return end is not None and not first.ids and order(cursor) >= order(end)

    async def read(self, after: str | None = None, count: int | None = None) -> list[Entry]:
        """The entries strictly after id ``after`` (all with None), at most
        ``count``, as (id, event) pairs. Plain ``XRANGE``: no checkpoint.
        Retries a lost connection for ``retry_for`` seconds."""
        start = "-" if after is None else "(" + after
        args: list[Any] = ["XRANGE", self.key, start, "+"]
        if count is not None:
            args += ["COUNT", count]
        batch = self._batch(await self._retrying("read", self.client.execute_command, *args))
        self.skipped += batch.skipped
        return self._decode(batch)[0]

    async def follow(self, after: str | None = None, *, resume: Resume = "replay", heartbeat: float | None = None,
                     max_batch: int = 512, coalesce: Coalesce = False) -> AsyncGenerator[list[Entry], None]:
        """The entries after id ``after`` (all with None), then live ones as
        they come, in batches of at most ``max_batch`` (id, event) pairs,
        until the session is closed; with ``heartbeat``, an empty batch
        after that many idle seconds. Where entries after the cursor were
        trimmed, the checkpoints of the replies written since come first
        (CUSTOM ``wire.checkpoint`` events, each with the id of the entry it
        was taken at). ``coalesce`` merges the deltas waiting for a reader
        (``wire.stores._coalesce``)."""
        _check(resume, max_batch)
        merger = Coalescer() if coalesce is not False else None
        cursor, first, end = await self._open(after, resume)
        async with aclosing(self._follow(cursor, first, end, heartbeat, max_batch, hold_of(coalesce))) as batches:
            async for batch in batches:
                yield self._entries(batch, merger) if batch.ids else []

    async def sse(self, last_event_id: str | None = None, *, resume: Resume = "checkpoint",
                  heartbeat: float | None = 15.0, coalesce: Coalesce = False) -> AsyncGenerator[bytes, None]:
        """The log as an SSE body, each frame's ``id`` its entry id, each
        payload's bytes as Redis holds them as its ``data`` (never decoded
        and re-encoded per reader; the readers of one client share a read
        that is under way); a ``:`` comment after ``heartbeat`` idle seconds.
        Resumes as :meth:`follow` does, from the latest checkpoint by
        default. With ``coalesce``, the entries are decoded to be merged
        (``wire.stores._coalesce``) and written again."""
        _check(resume, 512)
        merger = Coalescer() if coalesce is not False else None
        cursor, first, end = await self._open(last_event_id or None, resume)
        heartbeat_frame = SSEEncoder.comment()
        async with aclosing(self._follow(cursor, first, end, heartbeat, 512, hold_of(coalesce))) as batches:
            async for batch in batches:
                if not batch.ids:
                    yield heartbeat_frame
                elif merger is None:
                    yield self._sse_frames(batch)
                else:
                    frames = self._coalesced_frames(batch, merger)
                    if frames:
                        yield frames

    def _entries(self, batch: Batch, merger: Coalescer | None) -> list[Entry]:
        """``batch`` decoded for a reader, coalesced for ``merger``'s. The
        readers sharing a batch of plain events (a crowd at the log's end)
        decode and merge it once and share the events (``Batch.entries``):
        the list is each reader's own, the events are not to be changed."""
        before = merger.state if merger is not None else None
        cached = batch.entries.get(before)
        if cached is not None:
            if merger is not None and cached[1] is not None:
                merger.state = cached[1]
            return list(cached[0])
        entries, shareable = self._decode(batch)
        if merger is not None:
            entries = merger.batch(entries)
        if shareable:
            batch.entries[before] = (entries, merger.state if merger is not None else None)
            return list(entries)
        return entries

    def _coalesced_frames(self, batch: Batch, merger: Coalescer) -> bytes:
        """``batch`` coalesced for a reader, as SSE. What comes out depends
        only on the entries and the coalescer's state (``Coalescer.state``), so
        the readers sharing a batch of plain events (most of a crowd) merge
        and encode it once."""
        before = merger.state
        cached = batch.coalesced.get(before)
        if cached is not None:
            merger.state = cached[1]
            return cached[0]
        decoded, shareable = self._decode(batch)
        entries = merger.batch(decoded)
        frames = b""
        if entries:
            ids, events = zip(*entries, strict=True)
            frames = _ENCODER.encode_entries(ids, events)
        if shareable:
            batch.coalesced[before] = (frames, merger.state)
        return frames

    # -- entries to items -----------------------------------------------------------

    def _batch(self, raw: Any) -> Batch:
        """The ids and payloads of XRANGE entries, as bytes; entries without
        a payload field are skipped, as agentscope's ``log_read`` skips them."""
        batch = Batch([], [])
        for entry_id, fields in raw:
            payload = fields.get(b"payload")
            if payload is None:
                payload = fields.get("payload")
                if payload is None:
                    batch.skipped += 1
                    continue
            batch.ids.append(as_bytes(entry_id))
            batch.payloads.append(as_bytes(payload))
        return batch

    def _checked(self, batch: Batch, *, raw: bool) -> tuple[list[bytes], list[Any]]:
        """The ids and items of ``batch`` one entry at a time (the slow path,
        for a batch that holds anything but plain events of known types):
        the decoders' unknown-event policy, and forged checkpoints dropped.
        A payload that is no event at all raises DecodeError under
        ``"raise"`` (naming the key and the entry, with the items before it
        as ``events``) and is otherwise skipped and counted: a reader never
        dies of a foreign producer's garbage."""
        ids: list[bytes] = []
        items: list[Any] = []
        for entry_id, payload in zip(batch.ids, batch.payloads, strict=True):
            out: list[Any] = []
            try:
                self._payloads.one(payload, out, offset=0, index=len(ids))
            except DecodeError as exc:
                if self.unknown == "raise":
                    error = DecodeError(f"{self.key} entry {entry_id.decode()}: {exc.reason}", path=exc.path,
                                        offset=exc.offset, events=list(zip(ids, items, strict=True)))
                    raise error from exc
            item = out[0] if out else None
            if item is None or _forged(item):
                self.skipped += 1
                continue
            ids.append(entry_id)
            items.append(RawFrame(payload) if raw else item)
        return ids, items

    def _decode(self, batch: Batch) -> tuple[list[Entry], bool]:
        """The entries of ``batch``, and whether any reader would decode
        them the same (stream entries, each an event of a known type,
        decoded on the fast path: no reader's unknown-event policy in it)."""
        if batch.own:
            own: list[Entry] = [(i.decode(), wire_json.decode_event(p))
                                for i, p in zip(batch.ids, batch.payloads, strict=True)]
            return own, False
        joined = batch.plain()
        if joined is not None:
            # One msgspec call for the batch; a blank line, or two values on one, would change the count.
            with suppress(DecodeError):
                events = wire_json.decode_events(joined)
                if len(events) == len(batch.ids):
                    return list(zip(map(bytes.decode, batch.ids), events, strict=True)), True
        ids, items = self._checked(batch, raw=False)
        return list(zip(map(bytes.decode, ids), items, strict=True)), False

    def _sse_frames(self, batch: Batch) -> bytes:
        if batch.frames is not None:  # another reader of a shared batch wrote them already
            return batch.frames
        if batch.own:
            return _ENCODER.encode_entries(batch.ids, list(map(RawFrame, batch.payloads)))
        joined = batch.plain()
        plain = False
        if joined is not None:
            with suppress(DecodeError):  # every payload an event of a known type: one msgspec call checks all
                plain = len(peek_json_lines(joined)) == len(batch.ids)
        if plain:
            # plain() checked what encode_entries would (one line each, no CR,
            # none blank), and the ids are Redis's: the frames are joined as they are.
            frames = _interleaved(batch.ids, batch.payloads)
            batch.frames = frames  # the same whatever a reader's policy: kept for the other readers
            return frames
        ids, frames_of = self._checked(batch, raw=True)
        return _ENCODER.encode_entries(ids, frames_of) if ids else b""

    # -- where a reader starts ------------------------------------------------------

    async def _open(self, after: str | None, resume: Resume) -> tuple[bytes, Batch, bytes | None]:
        """Where a reader starts: its cursor, the entries to send before the
        ones after it (checkpoints, a restart, or none), and the log's end
        mark if a producer closed it already."""
        found, info = await self._retrying("open", self._shared_look)
        if found.end is not None:
            self._closed = True
        if not after:
            return (*self._past_trim(ZERO, found, info), found.end)
        cursor = after.encode() if ENTRY_ID.fullmatch(after.encode()) else None
        last_generated = info.get("last-generated-id") if info else None
        if cursor is None or last_generated is None or order(cursor) > order(as_bytes(last_generated)) or (
                found.first is not None and order(cursor) < order(found.first)):
            # An id this log never gave out (one of a log that was lost and made
            # again, whose first entry comes later): start over, and say so.
            at, batch = self._past_trim(ZERO, found, info)
            said = Batch([b""], [wire_json.encode(restart(f"{after[:80]!r} is no entry id of this log"))], own=True)
            return at, said.then(batch), found.end
        if found.usable and resume == "checkpoint":
            return (*self._from_checkpoint(found, cursor), found.end)
        return (*self._past_trim(cursor, found, info), found.end)

    def _past_trim(self, cursor: bytes, found: Checkpoint, info: dict[str, Any] | None) -> tuple[bytes, Batch]:
        """From ``cursor``, or from the checkpoint if entries after ``cursor``
        may be gone: trimming removes a stream's oldest entries, so that is
        when the oldest entry left comes after both the cursor and the
        session's first entry (or, for ``XDEL``, when Redis's
        ``max-deleted-entry-id`` does). A checkpoint sent when nothing was
        lost costs a frame, never exactness. Entries lost with no checkpoint
        to stand for them are a StoreError, but for a new reader of a log
        that keeps none (agentscope's own), who reads what is kept."""
        if not found.usable and cursor == ZERO:
            return cursor, _EMPTY
        at = order(cursor)
        first = order(found.first) if found.first is not None else (0, 0)
        head = info.get("first-entry") if info else None
        if not head:  # no stream, or an empty one: whatever the session had is gone
            gone = found.cut is not None and at < order(found.cut)
        else:
            oldest = order(as_bytes(head[0]))
            gone = oldest > at and oldest > first
        deleted = info.get("max-deleted-entry-id") if info else None
        if deleted is not None and deleted not in (b"0-0", "0-0"):
            lost = order(as_bytes(deleted))
            gone = gone or (lost > at and lost >= first)
        if not gone:
            return cursor, _EMPTY
        if not found.usable:
            raise StoreError(f"entries after {cursor.decode()} were trimmed before this reader read them, and "
                             "the log keeps no checkpoint to stand for them", key=self.key)
        return self._from_checkpoint(found, cursor)

    def _shared(self) -> _SharedReads:
        """What the readers of this client share: reads, looks, waits and holds under way."""
        shared = _SHARED.get(self.client)
        if shared is None:
            shared = _SHARED[self.client] = _SharedReads()
        return shared

    async def _shared_look(self) -> tuple[Checkpoint, dict[str, Any] | None]:
        """:meth:`_look`, shared with the other readers of this key on this
        client that open at the same moment (a crowd arriving together costs
        one look, and one connection, not one each)."""
        return await self._shared().get(("look", self.key), self._look)

    async def _look(self) -> tuple[Checkpoint, dict[str, Any] | None]:
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
        return Checkpoint(fields, self.key), info

    def _from_checkpoint(self, found: Checkpoint, cursor: bytes) -> tuple[bytes, Batch]:
        """Go on from the cut: the checkpoint of each reply a reader at
        ``cursor`` needs (``Checkpoint.since``), in the order the replies
        began. The last carries the cut's id; those before it the reader's
        own cursor (none for a new reader), since their replies may have
        begun in any order of their entries: a reader that drops after some
        of them comes back from where it was and is given them all again,
        never from the cut without the rest."""
        assert found.cut is not None  # checked by the callers
        payloads: list[bytes] = []
        for msg in found.since(cursor):
            try:  # served as it is, so checked first: a damaged hash is never sent on
                wire_json.decode_msg(msg)
            except DecodeError as exc:
                raise StoreError(f"a reply's checkpoint in the hash is no Msg: {exc}", key=self.key) from exc
            payloads.append(checkpoint_payload(msg))
        before = b"" if cursor == ZERO else cursor
        ids = [before] * (len(payloads) - 1) + [found.cut] if payloads else []
        return found.cut, Batch(ids, payloads, own=True)

    # -- reading ----------------------------------------------------------------------

    async def _retrying(self, doing: str, step: Any, *args: Any) -> Any:
        """``await step(*args)``, retried with backoff while Redis is away
        (at most ``retry_for`` seconds), any failure a StoreError."""
        delay = 0.05
        deadline = _now() + self.retry_for
        while True:
            try:
                return await step(*args)
            except TRANSIENT as exc:
                if _now() + delay > deadline:
                    raise self.error(exc, doing) from exc
            except FAILURES as exc:
                raise self.error(exc, doing) from exc
            except AttributeError as exc:
                # redis-py (8.x) can write on a connection another task has just dropped
                # during a cluster failover: "'NoneType' object has no attribute
                # 'writelines'" from its own connection code. That is a lost connection.
                if not _raised_in_redis(exc) or _now() + delay > deadline:
                    raise
            await anyio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _poll(self, cursor: bytes, count: int) -> _Poll:
        """The entries after ``cursor`` (at most ``count``), the log's end
        mark, the id of the last entry read (with or without a payload) and
        whether the cursor's entry is gone, in one script call: Redis joins
        the ids and the payloads, so a batch reaches Python as two strings,
        not an object per entry."""
        last, end, skipped, lines, ids, payloads, gone = await self._reader(
            keys=[self.key, self.checkpoint_key], args=[cursor, count])
        last, end = as_bytes(last), as_bytes(end)
        if not last:
            return _EMPTY, end or None, None, bool(int(gone))
        if int(lines):  # a payload holds a line break: joined with LF they cannot be split again
            batch = self._batch(await self.client.xrange(self.key, min=b"(" + cursor, max=last))
            return batch, end or None, last, bool(int(gone))
        joined = as_bytes(payloads)
        batch = Batch(as_bytes(ids).split(b" ") if ids else [], joined.split(b"\n") if ids else [], joined)
        batch.skipped = int(skipped)
        return batch, end or None, last, bool(int(gone))

    async def _shared_poll(self, cursor: bytes, count: int) -> _Poll:
        """:meth:`_poll`, shared with the other readers of this key on this
        client (see :class:`_SharedReads`)."""
        return await self._shared().get((self.key, cursor, count), lambda: self._poll(cursor, count))

    async def _shared_wait(self, cursor: bytes, block_ms: int) -> None:
        """:meth:`_wait`, shared with the other readers of this key on this
        client: the live readers of a log all wait at its newest entry, and
        one blocking XREAD (one connection) serves them all, rather than a
        connection held per reader."""
        await self._shared().get(("wait", self.key, cursor, block_ms), lambda: self._wait(cursor, block_ms))

    async def _wait(self, cursor: bytes, block_ms: int) -> None:
        """Until an entry after ``cursor`` exists, or ``block_ms`` passed.
        Nothing appended between the last read and this wait is missed:
        XREAD from an id answers at once when entries after it exist."""
        try:
            await self.client.xread({self.key: cursor}, count=1, block=block_ms)
        except redis.exceptions.ResponseError as exc:
            # The node turned replica under the wait (a Redis Cluster failover
            # answers the blocked XREAD with UNBLOCKED): the next read goes to the new master.
            if not str(exc).startswith("UNBLOCKED"):
                raise

    async def _follow(self, cursor: bytes, first: Batch, end: bytes | None, heartbeat: float | None,
                      max_batch: int, hold: float = 0.0) -> AsyncGenerator[Batch, None]:
        """Batches of entries from ``cursor`` on (``first`` before them),
        until the end mark; an empty batch after each idle ``heartbeat``.
        With ``hold``, a batch that is not full waits that long for more."""
        if first.ids:
            yield first
        if end is not None and order(cursor) >= order(end):
            return
        block_ms = min(_BLOCK_MS, max(1, round(heartbeat * 1000))) if heartbeat else _BLOCK_MS
        idle_since = _now()
        while True:
            batch, end, last, gone = await self._retrying("follow", self._shared_poll, cursor, max_batch)
            if end is not None:
                self._closed = True
            if gone:
                found, info = await self._retrying("follow", self._look)
                at, checkpoints = self._past_trim(cursor, found, info)
                if checkpoints.ids:  # entries this reader had not read were trimmed: go on from the checkpoint
                    cursor = at
                    yield checkpoints
                    continue
            self.skipped += batch.skipped
            if last is None:
                if end is not None and order(cursor) >= order(end):
                    return
                if heartbeat is not None and _now() - idle_since >= heartbeat:
                    idle_since = _now()
                    yield _EMPTY
                await self._retrying("follow", self._shared_wait, cursor, block_ms)
                continue
            idle_since = _now()
            cursor = last
            if hold and len(batch.ids) < max_batch and end is None:
                # A live reader: what comes within the hold goes in this batch. The
                # readers that shared the first read join one hold (ending sooner,
                # never later), so they wake together and share the second read too.
                await anyio.sleep_until(join_hold(self._shared().holds, (self.key, hold), hold, anyio.current_time()))
                more, end, later, _ = await self._retrying("follow", self._shared_poll, cursor,
                                                           max_batch - len(batch.ids))
                self.skipped += more.skipped
                if later is not None:
                    cursor = later
                    if more.ids:
                        batch = batch.and_then(more)
            if batch.ids:
                yield batch
            if end is not None and order(cursor) >= order(end):
                return


_ENCODER = SSEEncoder(next_id=None)
# For the spans a reader measures itself (a retry's deadline, idle time): a
# monotonic clock, read at every read and wait of every reader, without
# anyio.current_time()'s look-up of the running backend at each call (a
# tenth of the server's CPU serving a crowd of coalesced readers,
# benchmarks/fanout.py --profile).
_now = time.monotonic


def _check(resume: str, max_batch: int) -> None:
    if resume not in ("checkpoint", "replay"):
        raise ValueError(f"resume must be 'checkpoint' or 'replay', not {resume!r}")
    if max_batch < 1:
        raise ValueError("max_batch must be 1 or more")


def _forged(item: Any) -> bool:
    """A ``wire.checkpoint`` entry in the stream: not the store's own."""
    if type(item) is CustomEvent:
        return item.name == CHECKPOINT
    return type(item) is RawFrame and _FORGED in bytes(item.payload)


T = TypeVar("T")


class _SharedReads:
    """The reads of one client's readers, shared while they are under way.
    Readers of one log in one process mostly ask for the same batch at the
    same time: the live ones all wait at the newest entry, and a crowd that
    arrives together replays in step. A reader that asks for a key, cursor
    and count another reader is reading already awaits that read instead of
    sending its own. That read began before the reader asked, so its answer
    is a prefix of what the reader's own read would have returned (the
    entries after the same cursor); entries added since come with the
    reader's next read. Nothing is kept once a read is over, so nothing can
    go stale (a log deleted and written again)."""

    def __init__(self) -> None:
        # A read under way: set when it ends, with its result (none if it failed).
        self.reading: dict[tuple[Any, ...], tuple[anyio.Event, list[Any]]] = {}
        # The end of the hold under way, by key and length (join_hold); one per log read.
        self.holds: dict[tuple[str, float], float] = {}

    async def get(self, key: tuple[Any, ...], read: Callable[[], Awaitable[T]]) -> T:
        under_way = self.reading.get(key)
        if under_way is not None:
            done, result = under_way
            await done.wait()
            if result:
                return result[0]  # type: ignore[no-any-return]
            return await read()  # it failed there: try here (the caller retries as it does)
        done, result = self.reading[key] = (anyio.Event(), [])
        try:
            result.append(await read())
        finally:
            del self.reading[key]
            done.set()
        return result[0]  # type: ignore[no-any-return]


_SHARED: WeakKeyDictionary[Any, _SharedReads] = WeakKeyDictionary()


def _raised_in_redis(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside redis-py's own code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__", "").startswith("redis.")
