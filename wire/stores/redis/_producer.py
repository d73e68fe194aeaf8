"""The producer's half of a Redis log: appends, checkpoints, the end mark,
and the log's lifetime."""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable
from contextlib import suppress
from typing import Any

import redis.exceptions

from wire import json as wire_json
from wire.errors import DecodeError, StoreError
from wire.events import AgentEvent
from wire.messages import Msg
from wire.session import Session
from wire.session.state import OPENING
from wire.stores import to_write
from wire.stores.redis._common import FAILURES, LogBase, as_bytes

# One script call holds at most this many events: a script blocks Redis while
# it runs, so a long batch is cut into several calls.
SCRIPT_BATCH = 512


class Producer(LogBase):
    """Writes: each batch in one atomic script per chunk of ``SCRIPT_BATCH``
    events, with the checkpoint that is due: at least every
    ``checkpoint_every`` events, and whenever a reply begins, is taken on,
    ends or parks (the Msg then is what a late reader needs)."""

    keep_checkpoints: bool
    _replies: Session
    _applied: int
    _dirty: set[str]
    _since_checkpoint: int
    _failed: StoreError | None
    _cluster: bool
    _script: Any  # the APPEND script, registered on the client
    _encode: Callable[[AgentEvent], bytes]  # an event as the stream's payload

    async def append(self, event: AgentEvent) -> str:
        """Write one event; its entry id."""
        return (await self.extend((event,)))[0]

    async def extend(self, events: Iterable[AgentEvent]) -> list[str]:
        """Write ``events`` in order, in one round trip (one per chunk on
        Redis Cluster, which refuses scripts in a pipeline); their entry ids.

        With ``msg``, the events are applied to it and a checkpoint goes with
        the entries when one is due. Raises StoreError if Redis fails; the
        events may then be written or not."""
        events = to_write(self, self._closed, events)
        if not events:
            return []
        if self.keep_checkpoints:
            await self._take_on(events)
        # A checkpoint at least every checkpoint_every events, even inside one batch.
        size = min(SCRIPT_BATCH, self.checkpoint_every) if self.keep_checkpoints else SCRIPT_BATCH
        calls = [self._call(events[start:start + size], finish=False) for start in range(0, len(events), size)]
        return await self._run(calls)

    @property
    def msg(self) -> Msg | None:
        """The Msg of the reply this producer began last (None before any)."""
        return self._replies.last

    @property
    def replies(self) -> dict[str, Msg]:
        """The Msg of every reply this producer wrote, by reply id."""
        return self._replies.replies

    def take_on(self, msg: Msg) -> None:
        """Go on with a reply another writer began and left no checkpoint of
        (one agentscope's app parked, answered here): ``msg`` is its Msg as
        that writer left it (the producer keeps and updates it), so that this
        producer's checkpoints of the reply hold all of it. A reply with a
        checkpoint is taken on by itself at its first event."""
        self._replies.adopt(msg, [])

    async def close(self) -> None:
        """The session is over: write its final checkpoint and mark its end,
        where readers following the log stop (until a producer writes again)."""
        if self._closed:
            return
        await self._run([self._call([], finish=True)])
        self._closed = True

    async def pump(self, events: AsyncIterable[AgentEvent]) -> None:
        """Append every event of ``events`` as it comes, then close the log."""
        async for event in events:
            await self.append(event)
        await self.close()

    async def _take_on(self, events: list[AgentEvent]) -> None:
        """Load the replies of ``events`` that another producer began or
        may have continued (a parked reply answered on another replica, say)
        from the checkpoint hash and the entries after it, so that this
        producer's checkpoints of them hold all they had."""
        known, open_ = self._replies.replies, self._replies.open
        # Unknown replies, and known ones taken on again after their park or
        # end: another producer may have written them since (an answer posted
        # to another replica, the rest of the reply run there).
        new = {reply_id for event in events if (reply_id := getattr(event, "reply_id", None)) is not None
               and (reply_id not in known or (reply_id not in open_ and isinstance(event, OPENING)))}
        for reply_id in new:
            try:
                msg, at = await self.client.hmget(self.checkpoint_key, [f"msg:{reply_id}", f"at:{reply_id}"])
                if msg is None or at is None:
                    continue
                later: Any = await self.client.xrange(self.key, min=b"(" + as_bytes(at), max="+")
            except FAILURES as exc:
                raise self.error(exc, "read the checkpoint") from exc
            try:
                taken = wire_json.decode_msg(as_bytes(msg))
            except DecodeError as exc:
                raise StoreError(f"the checkpoint of reply {reply_id!r} is no Msg: {exc}", key=self.key) from exc
            after: list[AgentEvent] = []
            for _, fields in later:
                payload = fields.get(b"payload", fields.get("payload"))
                if payload is None:
                    continue
                with suppress(DecodeError):  # another writer's entries the readers skip too
                    event = wire_json.decode_event(as_bytes(payload))
                    if getattr(event, "reply_id", None) == reply_id:
                        after.append(event)
            self._replies.adopt(taken, after)

    def _call(self, chunk: list[AgentEvent], *, finish: bool) -> list[Any]:
        """The script's arguments for one chunk, applying it to the replies."""
        taken: list[Any] = []
        if self.keep_checkpoints:
            touched, turned = self._replies.apply(chunk)
            self._applied += len(chunk)
            self._dirty.update(touched)
            self._since_checkpoint += len(chunk)
            if turned or finish or self._since_checkpoint >= self.checkpoint_every:
                msgs = self._replies.replies
                for reply_id in self._dirty | self._replies.open:
                    taken += (reply_id, wire_json.encode(msgs[reply_id]))
                self._dirty.clear()
                self._since_checkpoint = 0
        ttl = round(self.ttl * 1000) if self.ttl else 0
        return [self.max_len or 0, ttl, int(self.publish), int(finish), self.last_id or "", len(taken) // 2,
                *taken, *map(self._encode, chunk)]

    async def _evalsha(self, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._script(keys=keys, args=args)
        except redis.exceptions.NoScriptError:
            # The node serving the key has not seen the script: a replica a
            # failover promoted, which redis-py's SCRIPT LOAD (sent to the
            # masters it knew) missed. The script did not run; EVAL runs it
            # there once, and caches it for the calls after.
            return await self.client.eval(self._script.script, len(keys), *keys, *args)

    async def _run(self, calls: list[list[Any]]) -> list[str]:
        if self._failed is not None:
            raise StoreError(f"an earlier append failed ({self._failed}); this log's Msg may not "
                             "match its stream any more", key=self.key) from self._failed
        keys = [self.key, self.checkpoint_key]
        try:
            if len(calls) == 1 or self._cluster:
                results = []
                for args in calls:
                    results.append(await self._evalsha(keys, args))
            else:
                async with self.client.pipeline(transaction=False) as pipe:
                    for args in calls:
                        await self._script(keys=keys, args=args, client=pipe)
                    results = await pipe.execute()
        except FAILURES as exc:
            error = self.error(exc, "append")
            if self.keep_checkpoints:
                self._failed = error
            raise error from exc
        ids = [entry_id.decode() if type(entry_id) is bytes else entry_id
               for result in results for entry_id in result]
        if ids:
            self.last_id = ids[-1]
        return ids

    # -- lifetime -----------------------------------------------------------------------

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
