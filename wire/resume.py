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

import msgspec

from wire import json as wire_json
from wire.errors import DecodeError
from wire.events import CustomEvent
from wire.messages import Msg

__all__ = ("CHECKPOINT", "checkpoint", "checkpoint_payload", "read_checkpoint")

CHECKPOINT = "wire.checkpoint"


def checkpoint(msg: Msg) -> CustomEvent:
    """A CUSTOM event named ``wire.checkpoint`` carrying ``msg`` as it is now
    (a half-built reply), as agentscope's JSON. It goes through any framing
    and codec; :func:`read_checkpoint` gets the Msg back."""
    snapshot = msgspec.json.decode(wire_json.encode(msg))
    return CustomEvent(name=CHECKPOINT, value={"msg": snapshot})


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
    return wire_json.decode_msg(msgspec.json.encode(event.value["msg"]))
