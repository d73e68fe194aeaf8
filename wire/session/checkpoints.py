"""The events a session's log carries besides the agent's own: checkpoints,
restarts and turns, and how a reply's Msg begins.

wire's servers (``wire.stores.memory.EventLog.sse``, mounted by
``wire.transports.http``) answer a reconnect carrying ``Last-Event-ID`` with a
checkpoint, a CUSTOM event named ``wire.checkpoint`` whose value holds the Msg
built so far (:func:`checkpoint`), then the events after it. A client replaces
its Msg with :func:`read_checkpoint`'s and goes on applying events; since the
reducer re-indexes a decoded Msg from its content, nothing is lost or doubled,
whatever the client had before. A plain CUSTOM event keeps the stream a pure
AgentEvent stream that any framing carries, and that agentscope front ends
skip (they ignore CUSTOM names they do not know).

A new turn goes into the log too, before the agent starts, as a CUSTOM event
named ``wire.turn`` holding the user's Msgs (:func:`turn`): agentscope's app
keeps the user's Msgs in its storage only, so without it a reader on another
replica never sees the prompt, and two turns posted at once could not see
each other (``wire.session.Session`` refuses a turn while one is pending).
A response to a turn carries the first reply not begun before it
(:func:`reply_of`), unless the turn is withdrawn first (:func:`withdrawn`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

import msgspec

from wire import json as wire_json
from wire._codec import ENCODE_ERRORS
from wire.blocks import ContentBlock, HintBlock
from wire.errors import DecodeError
from wire.events import CustomEvent, ReplyStartEvent, UserInterruptEvent
from wire.messages import Msg

__all__ = ("CHECKPOINT", "RESTART", "TURN", "begin_reply", "blocks_once", "checkpoint", "checkpoint_payload",
           "copy_msg", "join_reply", "read_checkpoint", "read_turn", "reply_of", "restart", "turn", "withdrawn")

CHECKPOINT = "wire.checkpoint"
RESTART = "wire.restart"
TURN = "wire.turn"


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
    A checkpoint whose Msg is not valid, or has no id, raises DecodeError."""
    if type(event) is not CustomEvent or event.name != CHECKPOINT:
        return None
    if "msg" not in event.value:
        raise DecodeError("a checkpoint without a msg", path="$.value.msg")
    msg = event.value["msg"]
    # A Msg without an id would be given a new one: a reply nobody wrote, which
    # every reader of the log would name differently.
    if isinstance(msg, dict) and "id" not in msg:
        raise DecodeError("a checkpoint whose msg has no id", path="$.id")  # relative to the Msg, as the decoder's
    try:
        data = msgspec.json.encode(msg)
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


def join_reply(reply_id: str) -> Msg:
    """The Msg of a reply a reader or writer joins without having seen its
    REPLY_START (it was trimmed, or written before the reader came): an
    assistant's, with no name yet. Every session begins such a reply this
    way, so all of them hold the same bytes."""
    return Msg(name="", role="assistant", content=[], id=reply_id)


def copy_msg(msg: Msg) -> Msg:
    """A Msg equal to ``msg`` that shares nothing with it: what a store
    hands out, so that a caller who changes it changes nobody else's."""
    return wire_json.decode_msg(wire_json.encode(msg))


def turn(msgs: Msg | list[Msg] | None) -> CustomEvent:
    """The ``wire.turn`` event of a new turn: the user's Msgs (none for a
    turn that asks the agent to go on), as agentscope's JSON."""
    items = [] if msgs is None else [msgs] if isinstance(msgs, Msg) else msgs
    return CustomEvent(name=TURN, value={"msgs": [wire_json._to_builtins(msg) for msg in items]})


def read_turn(event: object) -> list[Msg] | None:
    """The user's Msgs a ``wire.turn`` event carries, or None if ``event``
    is no turn. A turn whose Msgs are not valid raises DecodeError."""
    if type(event) is not CustomEvent or event.name != TURN:
        return None
    items = event.value.get("msgs")
    if not isinstance(items, list):
        raise DecodeError("a turn without a list of msgs", path="$.value.msgs")
    msgs = []
    for i, item in enumerate(items):
        try:
            msgs.append(wire_json.decode_msg(msgspec.json.encode(item)))
        except DecodeError as exc:
            exc.path = f"$.value.msgs[{i}]" + (exc.path or "$")[1:]
            raise
        except ENCODE_ERRORS as exc:
            raise DecodeError(f"a turn whose msg JSON cannot carry: {exc}", path=f"$.value.msgs[{i}]") from exc
    return msgs


def reply_of(event: object) -> str | None:
    """The reply an event is about: its ``reply_id``, or the id of a
    checkpoint's Msg; None for the other CUSTOM events. A response that
    carries a turn's reply takes the first reply not begun before the turn
    that an event is about (its REPLY_START, or its checkpoint on a trimmed
    log), as every door of a session does."""
    if type(event) is CustomEvent:
        msg = read_checkpoint(event)
        return msg.id if msg is not None else None
    reply_id: str | None = getattr(event, "reply_id", None)
    return reply_id


def withdrawn(event: object, known: Collection[str]) -> bool:
    """Whether ``event`` withdraws a turn before its reply began: the
    USER_INTERRUPT that names the turn (no reply among ``known``, those
    begun before it), which a door writes when its agent refuses the turn."""
    return type(event) is UserInterruptEvent and event.reply_id not in known

