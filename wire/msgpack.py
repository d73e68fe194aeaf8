"""MessagePack with the same field names as the JSON.

Binary data travels as MessagePack ``bin``, with no base64 inflation. A stream
of events (``encode_events``/``decode_events``) is one MessagePack array;
``wire.framing`` frames single events for streaming.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from wire._codec import DECODE_ERRORS, Codec, _RawContent, unknown_event_hook
from wire.errors import decode_error_from_msgspec
from wire.events import AgentEvent, UnknownEvent
from wire.messages import Msg
from wire.peek import peek_msgpack as peek

__all__ = ("decode_event", "decode_events", "decode_msg", "encode", "encode_events", "peek")

_encoder = msgspec.msgpack.Encoder(enc_hook=unknown_event_hook("msgpack"))
_list_decoder = msgspec.msgpack.Decoder(list[AgentEvent])
_codec = Codec(
    encoder=_encoder,
    event_decoder=msgspec.msgpack.Decoder(AgentEvent),
    msg_decoder=msgspec.msgpack.Decoder(Msg),
    raw_content_decoder=msgspec.msgpack.Decoder(_RawContent),
    dict_decoder=msgspec.msgpack.Decoder(dict[str, Any]),
    builtin_types=(bytes, bytearray, memoryview),
)

encode = _codec.encode
decode_event = _codec.decode_event
decode_msg = _codec.decode_msg


def encode_events(events: Iterable[AgentEvent | UnknownEvent]) -> bytes:
    """One MessagePack array holding every event."""
    return _codec.encode_many(events if isinstance(events, list) else list(events), _encoder.encode)


_raw_list_decoder = msgspec.msgpack.Decoder(list[msgspec.Raw])
_event_decoder = msgspec.msgpack.Decoder(AgentEvent)


def decode_events(buf: bytes | bytearray | memoryview) -> list[AgentEvent]:
    """Every event of a MessagePack array.

    A bad event raises :class:`~wire.errors.DecodeError` with its ``index``
    and the ``events`` before it; a buffer that is no array of MessagePack
    values raises it with neither."""
    try:
        return _list_decoder.decode(buf)
    except DECODE_ERRORS:
        pass
    try:
        items = _raw_list_decoder.decode(buf)
    except DECODE_ERRORS as exc:
        raise decode_error_from_msgspec(exc) from exc
    events: list[AgentEvent] = []
    for item in items:
        try:
            events.append(_event_decoder.decode(item))
        except DECODE_ERRORS as exc:
            raise decode_error_from_msgspec(exc, index=len(events), events=events) from exc
    raise AssertionError("the array failed to decode but every item decodes")  # pragma: no cover
