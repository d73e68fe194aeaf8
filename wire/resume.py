"""Resuming a reply: a checkpoint is the Msg built so far, sent as an event.

wire's servers (``wire.stores.memory.EventLog.sse``, mounted by
``wire.transports.http``) answer a reconnect carrying ``Last-Event-ID`` with a
checkpoint, a CUSTOM event named ``wire.checkpoint`` whose value holds the Msg
built so far (:func:`checkpoint`), then the events after it. A client replaces
its Msg with :func:`read_checkpoint`'s and goes on applying events; since the
reducer re-indexes a decoded Msg from its content, nothing is lost or doubled,
whatever the client had before. A plain CUSTOM event keeps the stream a pure
AgentEvent stream that any framing carries, and that agentscope front ends
skip (they ignore CUSTOM names they do not know).
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from wire import json as wire_json
from wire._codec import ENCODE_ERRORS
from wire.blocks import ContentBlock, HintBlock
from wire.errors import DecodeError
from wire.events import AgentEvent, CustomEvent, ReplyStartEvent, UnknownEvent
from wire.messages import Msg

__all__ = ("CHECKPOINT", "RESTART", "Conversation", "begin_reply", "blocks_once", "checkpoint",
           "checkpoint_payload", "read_checkpoint", "restart")

CHECKPOINT = "wire.checkpoint"
RESTART = "wire.restart"


def checkpoint(msg: Msg) -> CustomEvent:
    """A CUSTOM event named ``wire.checkpoint`` carrying ``msg`` as it is now
    (a half-built reply), as agentscope's JSON. It goes through any framing
    and codec; :func:`read_checkpoint` gets the Msg back."""
    return CustomEvent(name=CHECKPOINT, value={"msg": wire_json._to_builtins(msg)})


def checkpoint_payload(msg_json: bytes) -> bytes:
    """The JSON of a checkpoint event around a Msg already written as JSON
    (``wire.json.encode(msg)``, as a store keeps it): the Msg's bytes are
    passed through, never decoded. The same bytes as encoding
    :func:`checkpoint` of that Msg, but for the event's own id and time."""
    head = wire_json.encode(CustomEvent(name=CHECKPOINT, value={"msg": 0}))
    return head[:-3] + msg_json + b"}}"  # the value is the last field: {..."value":{"msg":0}}


def read_checkpoint(event: object) -> Msg | None:
    """The Msg a checkpoint event carries, or None if ``event`` is no
    checkpoint. Go on with ``msg.append_event`` for the events after it.
    A checkpoint whose Msg is not valid raises DecodeError."""
    if type(event) is not CustomEvent or event.name != CHECKPOINT:
        return None
    if "msg" not in event.value:
        raise DecodeError("a checkpoint without a msg", path="$.value.msg")
    try:
        data = msgspec.json.encode(event.value["msg"])
    except ENCODE_ERRORS as exc:  # made in this process from a Msg JSON cannot carry (a lone surrogate)
        raise DecodeError(f"a checkpoint whose msg JSON cannot carry: {exc}", path="$.value.msg") from exc
    return wire_json.decode_msg(data)


def blocks_once(msg: Msg) -> Iterator[ContentBlock]:
    """The blocks of a checkpoint's Msg as a live stream shows them: a
    duplicate START makes agentscope append an orphan block under an id it
    has already (its deltas go to the first), which no client is sent, so
    it is left out here too; hints keep every occurrence (a hint's id may
    repeat)."""
    seen: set[tuple[str, str]] = set()
    for block in msg.content:
        key = (block.type, block.id)
        if key in seen and type(block) is not HintBlock:
            continue
        seen.add(key)
        yield block


def restart(reason: str) -> CustomEvent:
    """A CUSTOM event named ``wire.restart``: the reader's position belongs to
    no entry of this log (the log was lost and made again, a Redis restarted
    without persistence, a key deleted or expired), so what it built from
    the log before is not this log's: it drops it and reads on from here."""
    return CustomEvent(name=RESTART, value={"reason": reason})


def begin_reply(event: ReplyStartEvent) -> Msg:
    """The Msg a reply begins as, from its REPLY_START: its id, name, role and
    time. Stores and readers both begin replies this way, so a reader that
    resumed from a checkpoint and one that never dropped hold the same bytes."""
    return Msg(name=event.name, role=event.role, content=[], id=event.reply_id, created_at=event.created_at)


class Conversation:
    """What a reader of a session keeps: the Msg of every reply, in the
    order the replies began, built from a log's events as a store serves
    them. A REPLY_START of a new reply begins its Msg; a checkpoint replaces
    the Msg of its reply (or adds it); a restart drops everything; other
    events go to their reply's Msg (events of no reply, CUSTOM, are kept in
    :attr:`custom`, in order)."""

    def __init__(self, *msgs: Msg) -> None:
        self.replies: dict[str, Msg] = {msg.id: msg for msg in msgs}
        self.custom: list[CustomEvent] = []

    @property
    def last(self) -> Msg | None:
        """The Msg of the reply that began last."""
        return next(reversed(self.replies.values()), None)

    def apply(self, event: AgentEvent | UnknownEvent) -> None:
        cls = type(event)
        if cls is CustomEvent:
            assert isinstance(event, CustomEvent)
            if event.name == CHECKPOINT:
                msg = read_checkpoint(event)
                assert msg is not None
                self.replies[msg.id] = msg
            elif event.name == RESTART:
                self.replies.clear()
                self.custom.clear()
            else:
                self.custom.append(event)
            return
        if cls is UnknownEvent:
            return
        reply_id: str = event.reply_id  # type: ignore[union-attr]  # every other event has one
        msg = self.replies.get(reply_id)
        if msg is None:
            if cls is not ReplyStartEvent:
                msg = Msg(name="", role="assistant", content=[], id=reply_id)  # joined without its start
            else:
                msg = begin_reply(event)  # type: ignore[arg-type]
            self.replies[reply_id] = msg
        msg.append_event(event)

    def extend(self, events: list[AgentEvent] | list[AgentEvent | UnknownEvent]) -> None:
        for event in events:
            self.apply(event)
