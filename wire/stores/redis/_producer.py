"""The producer's half of a Redis log: appends, checkpoints, the end mark,
and the log's lifetime.

Many writers. A session's stream is written by many hands: this producer,
another replica's, the answer endpoint, agentscope's own
``publish_session_event``. A producer keeps the whole session
(:class:`wire.session.Session`, loaded from the log before its first write:
``_session``) and the newest entry it covers, and never writes over entries
it has not seen: the append script refuses while the stream holds entries
after that one and hands them over (one round trip when this producer is the
only writer); the producer folds them into its session and writes again.
So its checkpoints, and its end mark, are taken at the stream's newest
entry and cover every reply, whoever wrote it, before its own ``MAXLEN``
trim can drop a single entry of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable
from typing import Any

from wire import json as wire_json
from wire.errors import Conflict, StoreError
from wire.events import AgentEvent, CustomEvent, UserInterruptEvent
from wire.messages import Msg
from wire.session import Session, copy_msg
from wire.session.state import OPENING, TERMINAL
from wire.stores import to_write
from wire.stores.redis._common import FAILURES, LogBase, as_bytes
from wire.stores.redis._session import Folded, begun, encode_state, fold, load

# One script call holds at most this many events: a script blocks Redis while
# it runs, so a long batch is cut into several calls.
SCRIPT_BATCH = 512
# The events after which a reply may have begun, been taken on, ended or
# parked, or the session changed otherwise (a superset of those after which
# Session.apply says it turned): a checkpoint goes with them.
_TURNING = (*OPENING, *TERMINAL, UserInterruptEvent, CustomEvent)


class Producer(LogBase):
    """Writes: each batch in one atomic script per chunk of ``SCRIPT_BATCH``
    events, with the checkpoint that is due: at least every
    ``checkpoint_every`` events, and whenever a reply begins, is taken on,
    ends or parks (the Msg then is what a late reader needs), or another
    writer's entries were folded in."""

    keep_checkpoints: bool
    _session: Session
    _loaded: bool
    _dirty: set[str]
    _began: dict[str, str]
    _due: bool
    _since_checkpoint: int
    _failed: StoreError | None
    _script: Any  # the APPEND script, registered on the client
    _encode: Callable[[AgentEvent], bytes]  # an event as the stream's payload

    async def append(self, event: AgentEvent, *, expect: str | None = None) -> str:
        """Write one event; its entry id (``expect`` as for :meth:`extend`)."""
        return (await self.extend((event,), expect=expect))[0]

    async def extend(self, events: Iterable[AgentEvent], *, expect: str | None = None) -> list[str]:
        """Write ``events`` in order; their entry ids. One round trip per
        chunk of ``SCRIPT_BATCH`` (or ``checkpoint_every``) events when no
        other writer wrote since this producer's last look; else the
        producer first folds their entries into its session.

        With ``expect``, only if the log's newest entry is that id ("" for
        none) and the log is not closed, else :class:`wire.errors.Conflict`
        and nothing is written; the batch is then one script call, whatever
        its length (atomic). Raises Conflict too (and refuses every later
        append) when the stream lost entries this producer saw (see the
        package docstring), and StoreError if Redis fails; the events may
        then be written or not."""
        # A conditional write to a log this object closed is the log's to
        # refuse (the Conflict), as the in-memory log does; it is open again
        # if another writer wrote since.
        events = to_write(self, self._closed and expect is None, events)
        if expect is not None:
            return await self._write(events, finish=False, expect=expect)
        size = min(SCRIPT_BATCH, self.checkpoint_every) if self.keep_checkpoints else SCRIPT_BATCH
        ids: list[str] = []
        for start in range(0, len(events), size):
            ids += await self._write(events[start:start + size], finish=False, expect=None)
        return ids

    @property
    def msg(self) -> Msg | None:
        """The Msg of the reply that began last in this producer's session
        (None before any)."""
        return self._session.last

    @property
    def replies(self) -> dict[str, Msg]:
        """The Msg of every reply of this producer's session, by reply id,
        as of its last write (the producer's own: do not change them)."""
        return self._session.replies

    def take_on(self, msg: Msg) -> None:
        """Go on with a reply another writer began and the log holds no
        trace of (one agentscope's app parked and kept in its storage only,
        answered here): ``msg`` is its Msg as that writer left it (the
        producer keeps and updates it), so that this producer's checkpoints
        of the reply hold all of it. A reply the log holds is loaded from it
        (its checkpoint, and every entry after it) at the producer's first
        write, whoever wrote it."""
        self._session.adopt(msg, [])
        self._dirty.add(msg.id)

    async def close(self, *, expect: str | None = None) -> None:
        """The session is over: write its final checkpoint and mark its end
        at the stream's newest entry, where readers following the log stop
        (until a producer writes again). With ``expect``, only if the log is
        open and that is still its newest entry (one script call checks and
        closes), else :class:`~wire.errors.Conflict`."""
        if self._closed and expect is None:
            return
        await self._write([], finish=True, expect=expect)
        self._closed = True

    async def pump(self, events: AsyncIterable[AgentEvent]) -> None:
        """Append every event of ``events`` as it comes, then close the log."""
        async for event in events:
            await self.append(event)
        await self.close()

    # -- one script call ------------------------------------------------------------------

    async def _write(self, chunk: list[AgentEvent], *, finish: bool, expect: str | None,
                     checkpoint: bool = False) -> list[str]:
        """One script call for ``chunk`` (again after folding in what other
        writers wrote, until the stream holds nothing this producer has not
        seen); ``checkpoint`` makes the call for an empty chunk too."""
        if self._failed is not None:
            raise StoreError(f"an earlier append failed ({self._failed}); this log's Msg may not "
                             "match its stream any more", key=self.key) from self._failed
        if not chunk and not finish and expect is None and not checkpoint:
            return []
        keep = self.keep_checkpoints
        while True:
            due = keep and (finish or self._due or self._since_checkpoint + len(chunk) >= self.checkpoint_every
                            or any(isinstance(event, _TURNING) for event in chunk))
            undo = _Undo(self._session, chunk) if due else None
            taken: list[Any] = self._take(chunk) if due else []
            seen = self._session.last_id if keep else (self.last_id or "")
            fold_mode = ("1" if self._loaded else "2") if keep else "0"
            ttl = round(self.ttl * 1000) if self.ttl else 0
            args = [self.max_len or 0, ttl, int(self.publish), int(finish), seen, fold_mode,
                    "" if expect is None else "=" + expect,
                    encode_state(self._session) if taken else "", len(taken) // 3, *taken,
                    *map(self._encode, chunk)]
            try:
                result = await self.run_script(self._script, args)
            except FAILURES as exc:
                error = self.error(exc, "append")
                if keep:
                    self._failed = error
                raise error from exc
            status = as_bytes(result[0])
            if status == b"ok":
                ids = [as_bytes(entry_id).decode() for entry_id in result[1:]]
                self._written(chunk, ids, checkpointed=due)
                return ids
            if undo is not None:
                self._session = undo.restore()
            if status == b"conflict":
                actual = as_bytes(result[1]).decode()
                closed = as_bytes(result[2]) == b"1"
                assert expect is not None
                raise Conflict("the log is closed: nothing was written" if closed else
                               f"the log's newest entry is {actual or 'none'!r}, not {expect or 'none'!r} as "
                               "the writer saw it: nothing was written; read the session again and decide anew",
                               key=self.key, expected=expect, actual=actual)
            if status == b"lost":
                actual = as_bytes(result[1]).decode()
                lost = Conflict(f"the stream ends at {actual or 'nothing'!r}, before entry {seen!r} this producer "
                                "saw or wrote: a failover lost acknowledged writes (or the log was deleted). "
                                "Nothing was written; make a new log object (it loads the session from the "
                                "log) and append again what is missing", key=self.key, expected=seen,
                                actual=actual)
                self._failed = lost
                raise lost
            # "unseen": other writers' entries to fold in first.
            if as_bytes(result[1]) == b"1" or not self._loaded:
                await self._load()
            else:
                self._fold(result[2])

    def _take(self, chunk: list[AgentEvent]) -> list[Any]:
        """Apply ``chunk`` to the session; the script's (reply id, Msg JSON,
        where it began) of every reply the checkpoint takes: those touched
        since the last checkpoint (this chunk included) and those open."""
        before = set(self._session.replies)
        touched = self._session.apply(chunk).replies
        began = begun(before, self._session, ((f"+{k}", event) for k, event in enumerate(chunk, 1)))
        began.update(self._began)
        msgs = self._session.replies
        taken: list[Any] = []
        for reply_id in msgs:  # the order the replies began in
            if reply_id in self._dirty or reply_id in touched or reply_id in self._session.open:
                taken += (reply_id, wire_json.encode(msgs[reply_id]), began.get(reply_id, ""))
        return taken

    def _written(self, chunk: list[AgentEvent], ids: list[str], *, checkpointed: bool) -> None:
        """The script wrote ``chunk`` as ``ids`` (with a checkpoint, for which
        the chunk was applied already, or without)."""
        if ids:
            self.last_id = ids[-1]
            self._closed = False  # written: the log is open again, whoever closed it
        if not self.keep_checkpoints:
            return
        if checkpointed:
            self._dirty.clear()
            self._began.clear()
            self._due = False
            self._since_checkpoint = 0
        elif chunk:  # no checkpoint was due: the chunk is applied now that it is written
            before = set(self._session.replies)
            changed = self._session.apply(chunk)
            self._note((changed.replies, begun(before, self._session, zip(ids, chunk, strict=True)), changed.turned))
            self._since_checkpoint += len(chunk)
        if ids:
            self._session.last_id = ids[-1]
        self._loaded = True  # the script found nothing this producer had not seen

    def _note(self, folded: tuple[list[str], dict[str, str], bool]) -> None:
        touched, began, turned = folded
        self._dirty.update(touched)
        for reply_id, entry_id in began.items():
            self._began.setdefault(reply_id, entry_id)
        self._due |= turned

    def _fold(self, entries: Any) -> None:
        """Other writers' entries, after the newest this producer saw."""
        folded = fold(self._session, entries)
        self._note((folded.touched, folded.began, True))  # a checkpoint covers them before a trim can drop them
        if folded.last is not None:
            self._session.last_id = folded.last

    async def _load(self) -> None:
        """Load the session from the log (before the first write, or when
        entries this producer had not seen may have been trimmed). Replies
        of this producer's session the log has no trace of (``msg=``, or
        one taken on) are kept."""
        self._take_loaded(*await load(self))

    def _take_loaded(self, session: Session, folded: Folded) -> None:
        """Go on from ``session``, loaded from the log (``_session.load``)."""
        for reply_id, msg in self._session.replies.items():
            if reply_id not in session.replies:
                session.adopt(msg, [])
                folded.touched.append(reply_id)
        self._session = session
        self._dirty = set(folded.touched)
        self._began = dict(folded.began)
        self._due = True
        self._since_checkpoint = 0
        self._loaded = True

    # -- lifetime -----------------------------------------------------------------------

    async def trim(self, before: str) -> int:
        """Drop the entries older than id ``before`` (``XTRIM MINID``); how
        many went. A log that keeps checkpoints first takes one at the
        stream's newest entry, folding in what other writers wrote, and
        drops nothing the checkpoint does not cover (nothing after its cut,
        which a later checkpoint only moves on): readers of the trimmed part
        and ``session()`` get every reply, whoever wrote it. Without
        checkpoints, readers of the trimmed part fail (``StoreError``)."""
        if self.keep_checkpoints:
            self._due = True
            await self._write([], finish=False, expect=None, checkpoint=True)
        try:
            return int(await self.run_script(self._trimmer, [before, int(self.keep_checkpoints)]))
        except FAILURES as exc:
            raise self.error(exc, "trim") from exc

    async def delete(self) -> None:
        """Delete the log: its stream and its checkpoint. This producer may
        write to it again (what it wrote before is no entry it saw any more)."""
        await self._command("delete", "DEL", self.key, self.checkpoint_key)
        self.last_id = None
        self._session.last_id = ""

    async def expire(self, seconds: float) -> None:
        """Delete the log ``seconds`` from now (a finished reply's lifetime)."""
        ms = round(seconds * 1000)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.pexpire(self.key, ms)
                pipe.pexpire(self.checkpoint_key, ms)
                await pipe.execute()
        except FAILURES as exc:
            raise self.error(exc, "expire") from exc

    async def _command(self, doing: str, *args: Any) -> Any:
        try:
            return await self.client.execute_command(*args)  # type: ignore[no-untyped-call]
        except FAILURES as exc:
            raise self.error(exc, doing) from exc


class _Undo:
    """A session as it was before a chunk was applied to it, for when the
    script refuses the chunk: the Msgs the chunk changes are copied (all of
    them if it holds a CUSTOM event, which may be a restart)."""

    def __init__(self, session: Session, chunk: list[AgentEvent]) -> None:
        self.session = session
        self.whole = session.copy() if any(type(event) is CustomEvent for event in chunk) else None
        ids = {reply_id for event in chunk if (reply_id := getattr(event, "reply_id", None)) is not None}
        self.msgs = {reply_id: copy_msg(session.replies[reply_id]) for reply_id in ids
                     if reply_id in session.replies} if self.whole is None else {}
        self.order = list(session.replies)
        self.open, self.interrupted, self.turn = set(session.open), set(session.interrupted), session.turn
        self.positions = dict(session.positions)

    def restore(self) -> Session:
        if self.whole is not None:
            return self.whole
        session, replies = self.session, self.session.replies
        session.replies = {reply_id: self.msgs.get(reply_id, replies[reply_id]) for reply_id in self.order}
        session.open, session.interrupted, session.turn = self.open, self.interrupted, self.turn
        session.positions = self.positions
        return session
