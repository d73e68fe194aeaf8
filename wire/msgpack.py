"""MessagePack with the same field names as the JSON.

Binary data travels as MessagePack ``bin``, with no base64 inflation. A stream
of events (``encode_events``/``decode_events``) is one MessagePack array;
``wire.framing`` frames single events for streaming.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from wire._codec import DECODE_ERRORS, MSGPACK, Codec, decode_error, unknown_event_hook
from wire.events import AgentEvent, UnknownEvent
from wire.peek import peek_msgpack as peek

__all__ = ("decode_event", "decode_events", "decode_msg", "encode", "encode_events", "peek")

_encoder = msgspec.msgpack.Encoder(enc_hook=unknown_event_hook("msgpack"))
_codec = Codec(encoder=_encoder, decoders=MSGPACK, builtin_types=(bytes, bytearray, memoryview))

encode = _codec.encode
decode_event = _codec.decode_event
decode_msg = _codec.decode_msg


def encode_events(events: Iterable[AgentEvent | UnknownEvent]) -> bytes:
    """One MessagePack array holding every event."""
    return _codec.encode_many(events if isinstance(events, list) else list(events), _encoder.encode)


def decode_events(buf: bytes | bytearray | memoryview) -> list[AgentEvent]:
    """Every event of a MessagePack array.

    A bad event raises :class:`~wire.errors.DecodeError` with its ``index``
    and the ``events`` before it; a buffer that is no array of MessagePack
    values raises it with neither."""
    try:
        return MSGPACK.event_list.decode(buf)
    except DECODE_ERRORS:
        pass
    try:
        items = MSGPACK.raw_list.decode(buf)
    except DECODE_ERRORS as exc:
        raise decode_error(exc) from exc
    events: list[AgentEvent] = []
    for item in items:
        try:
            events.append(MSGPACK.event.decode(item))
        except DECODE_ERRORS as exc:
            raise decode_error(exc, index=len(events), events=events, data=buf) from exc
    raise AssertionError("the array failed to decode but every item decodes")  # pragma: no cover
