"""JSON, exactly as agentscope 2.0 reads and writes it.

Compact UTF-8 with the tag first; fields holding their default are left out
(agentscope fills them back in). Binary data is standard padded base64.
Encoders and decoders are built once, here.

>>> import wire
>>> event = wire.TextBlockDeltaEvent(id="e1", created_at="2026-01-01T00:00:00",
...                                  reply_id="r1", block_id="b1", delta="Hi")
>>> wire.json.encode(event)
b'{"type":"TEXT_BLOCK_DELTA","id":"e1","created_at":"2026-01-01T00:00:00","reply_id":"r1","block_id":"b1","delta":"Hi"}'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import msgspec

from wire._codec import DECODE_ERRORS, JSON, Codec, decode_error, unknown_event_hook
from wire.events import AgentEvent, UnknownEvent
from wire.peek import peek_json as peek

__all__ = ("decode_event", "decode_events", "decode_msg", "encode", "encode_events", "peek")

_encoder = msgspec.json.Encoder(enc_hook=unknown_event_hook("json"))
_events_decoder = cast("msgspec.json.Decoder[AgentEvent]", JSON.event)  # decode_lines is JSON's alone
_codec = Codec(encoder=_encoder, decoders=JSON)

encode = _codec.encode
decode_event = _codec.decode_event
decode_msg = _codec.decode_msg
# ``msgspec.json.decode(encode(obj))`` without the JSON in between, for
# wire.resume's checkpoints: about a third of the cost for a whole reply's Msg.
_to_builtins = _codec.builtins


def encode_events(events: Iterable[AgentEvent | UnknownEvent]) -> bytes:
    """NDJSON: one JSON event per line, each line ending in ``\\n``."""
    return _codec.encode_many(events if isinstance(events, list) else list(events), _encoder.encode_lines)


def decode_events(ndjson: bytes | bytearray | memoryview | str) -> list[AgentEvent]:
    """Every event of an NDJSON buffer (blank lines are skipped).

    One msgspec ``decode_lines`` call, which reads events separated by any
    JSON whitespace: two events on one line, or one spread over several,
    are read too. :class:`~wire.framing.NDJSONDecoder` holds a stream to
    exactly one event per line (a stream must decode the same however it
    is cut) at about 1.6x the cost (benchmarks/README.md).

    On bad input raises :class:`~wire.errors.DecodeError` whose ``index`` is
    the bad line, ``offset`` the byte of the buffer where the problem is (the
    line's first byte, or the exact byte of malformed JSON) and ``events`` the
    events of the lines before it."""
    try:
        return _events_decoder.decode_lines(ndjson)
    except DECODE_ERRORS:
        pass
    # Find the first bad line again, one line at a time, to say where it is.
    data = ndjson.encode() if isinstance(ndjson, str) else bytes(ndjson)
    events: list[AgentEvent] = []
    offset = 0
    for line in data.split(b"\n"):
        if line.strip(b" \t\r"):  # JSON whitespace; decode_lines skips such lines
            try:
                events.append(_events_decoder.decode(line))
            except DECODE_ERRORS as exc:
                raise decode_error(exc, index=len(events), offset=offset, events=events, data=line) from exc
        offset += len(line) + 1
    raise AssertionError("decode_lines failed but every line decodes")  # pragma: no cover
