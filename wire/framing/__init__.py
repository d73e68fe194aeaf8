"""Sans-IO framings for event streams: bytes in, events out, and back.

Nothing here reads or writes a socket: feed a decoder whatever bytes arrive,
in chunks of any size, and send what an encoder returns (``wire.transports``
runs them over anyio streams and HTTP). Three framings, one contract:

* NDJSON (:mod:`wire.framing.ndjson`): one compact JSON event per line.
* Length-prefixed MessagePack (:mod:`wire.framing.lengthprefix`): a 4-byte
  big-endian length, then one MessagePack event.
* Server-Sent Events (:mod:`wire.framing.sse`): agentscope's format and
  wire's own, with ids for resuming.

Every decoder is a :class:`StreamDecoder` (its docstring is the contract:
``feed``, ``close``, EOF, errors and the state after them) and every encoder
an :class:`Encoder`. Each decoder can return raw frames instead of events
(``raw=True``) for relays, with each frame's envelope peeked
(``raw=True, peek=True``), and an ``unknown=`` policy decides what an event of
a type wire does not know does (``"raise"``, ``"skip"``, or ``"keep"`` it as
an :class:`~wire.events.UnknownEvent` that the encoders write back unchanged).

:data:`FRAMINGS` names each framing once, for the command line, the demo and
anyone choosing a framing by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from wire.framing._base import DEFAULT_MAX_FRAME_BYTES, Item, RawFrame, StreamDecoder, UnknownPolicy
from wire.framing.lengthprefix import MsgpackFrameDecoder, MsgpackFrameEncoder
from wire.framing.ndjson import NDJSONDecoder, NDJSONEncoder
from wire.framing.sse import SSEDecoder, SSEEncoder

__all__ = (
    "DEFAULT_MAX_FRAME_BYTES",
    "FRAMINGS",
    "Encoder",
    "Framing",
    "Item",
    "MsgpackFrameDecoder",
    "MsgpackFrameEncoder",
    "NDJSONDecoder",
    "NDJSONEncoder",
    "RawFrame",
    "SSEDecoder",
    "SSEEncoder",
    "StreamDecoder",
    "UnknownPolicy",
)


class Encoder(Protocol):
    """What writers of a stream need of an encoder (every framing's has it)."""

    def encode(self, item: Item, /) -> bytes: ...
    def encode_into(self, item: Item, buf: bytearray, /) -> None: ...
    def encode_batch(self, items: Iterable[Item], /) -> bytes: ...


@dataclass(frozen=True)
class Framing:
    """One framing: its name, its decoder and encoder classes, the codec of
    its payloads and the HTTP media type it travels as."""

    name: str
    decoder: Callable[..., StreamDecoder[Any]]
    encoder: Callable[[], Encoder]
    codec: str
    media_type: str


FRAMINGS: dict[str, Framing] = {
    "ndjson": Framing("ndjson", NDJSONDecoder, NDJSONEncoder, "json", "application/x-ndjson"),
    "sse": Framing("sse", SSEDecoder, SSEEncoder, "json", "text/event-stream"),
    "msgpack": Framing("msgpack", MsgpackFrameDecoder, MsgpackFrameEncoder, "msgpack",
                       "application/vnd.msgpack"),
}
