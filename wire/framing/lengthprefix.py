"""Sans-IO length-prefixed MessagePack: frames of a 4-byte big-endian payload
length and one MessagePack event of exactly that length, a decoder and an
encoder. Binary data travels as ``bin``, without base64.

The decoder contract is :class:`~wire.framing.StreamDecoder`'s. Each frame
needs one Python step to read its length prefix; a length above
``max_frame_bytes`` fails before any payload byte is kept.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from itertools import chain
from typing import Any, Literal, TypeVar, overload

import msgspec

from wire._codec import DECODE_ERRORS, ENCODE_ERRORS, encode_error
from wire.errors import EncodeError, FrameError
from wire.events import AgentEvent, UnknownEvent
from wire.framing._base import (
    DEFAULT_MAX_FRAME_BYTES,
    HEAD_BYTES,
    Item,
    Payloads,
    RawFrame,
    StreamDecoder,
    UnknownPolicy,
    frame_payloads,
    raw_payload,
)
from wire.framing._buffer import ReceiveBuffer

__all__ = ("MsgpackFrameDecoder", "MsgpackFrameEncoder")

T = TypeVar("T")



_PREFIX = struct.Struct(">I")
_MAX_PREFIXED = 2**32 - 1


class MsgpackFrameDecoder(StreamDecoder[T]):
    """Events from frames of a 4-byte big-endian length and one MessagePack event.

    Follows the :class:`~wire.framing.StreamDecoder` contract. A length
    above ``max_frame_bytes`` raises FrameError as soon as its 4 bytes are
    in, before any of the payload is buffered. With ``raw=True`` each item is
    a :class:`RawFrame` holding the payload (without the prefix), and with
    ``peek=True`` too its envelope, as :class:`~wire.framing.NDJSONDecoder` does.
    """

    @overload
    def __init__(self: MsgpackFrameDecoder[AgentEvent], *, raw: Literal[False] = False,
                 unknown: Literal["raise", "skip"] = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...
    @overload
    def __init__(self: MsgpackFrameDecoder[AgentEvent | UnknownEvent], *, raw: Literal[False] = False,
                 unknown: Literal["keep"], max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...
    @overload
    def __init__(self: MsgpackFrameDecoder[RawFrame], *, raw: Literal[True], peek: bool = False,
                 unknown: UnknownPolicy = "raise", max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...

    def __init__(self, *, raw: bool = False, peek: bool = False, unknown: UnknownPolicy = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        super().__init__(Payloads("msgpack", raw=raw, unknown=unknown, peek=peek), max_frame_bytes)
        self._buf = ReceiveBuffer(max_frame_bytes)  # the start of an incomplete frame
        self._need = 4  # len(self._buf) at which a frame may be complete

    def feed(self, data: bytes | bytearray | memoryview) -> list[T]:
        # Inline like NDJSONDecoder.feed; see StreamDecoder for the contract.
        if type(data) is not bytes:
            data = bytes(data)
        buf = self._buf
        view: Any
        if buf:
            need = self._need
            buf += data
            if len(buf) < need:  # the frame (or prefix) in progress is still short
                return []
            view = buf
        else:
            view = data  # nothing buffered: cut frames straight from the chunk
        out: list[T] = []
        n = len(view)
        pos = 0
        try:
            payloads = self._payloads
            raw = payloads.raw
            decode = payloads._decode
            peek = payloads.peek
            unpack = _PREFIX.unpack_from
            limit = self._max
            while n - pos >= 4:
                (size,) = unpack(view, pos)
                if size > limit:
                    self._saw(view[pos:pos + HEAD_BYTES + 1])
                    buf.too_long(f"frame (its prefix says {size} bytes)", buf.offset + pos, self._index)
                end = pos + 4 + size
                if end > n:
                    break
                # Decode from a copy: a decoded memoryview would pin the receive buffer
                # (see wire.zerocopy for when pinning is worth it).
                payload = view[pos + 4:end]
                if raw:
                    payload = bytes(payload)
                    if peek is None:
                        out.append(RawFrame(payload))  # type: ignore[arg-type]
                    else:
                        try:
                            out.append(RawFrame(payload, peek(payload)))  # type: ignore[arg-type]
                        except DECODE_ERRORS:
                            self._saw(view[pos:pos + HEAD_BYTES + 1])
                            payloads.one(payload, out, offset=buf.offset + pos + 4, index=self._index)
                else:
                    try:
                        out.append(decode(payload))
                    except DECODE_ERRORS:
                        self._saw(view[pos:pos + HEAD_BYTES + 1])
                        payloads.one(bytes(payload), out, offset=buf.offset + pos + 4, index=self._index)
                self._index += 1
                pos = end
        except BaseException as exc:
            self._fail(exc, out)
            raise
        if view is buf:
            del buf[:pos]  # O(1): CPython moves the start of a bytearray
        else:
            buf += view[pos:]
        buf.offset += pos
        # Bytes needed before another frame can complete: a whole prefix, or
        # the frame the prefix announces (its length is within the limit here).
        self._need = 4 if len(buf) < 4 else 4 + _PREFIX.unpack_from(buf)[0]
        return out

    _NAME = "a stream of length-prefixed MessagePack frames"

    @staticmethod
    def _looks_right(head: bytes) -> bool:
        """A 4-byte length, then an event: a MessagePack map (fixmap, map 16
        or map 32). Short of the fifth byte, a length of printable ASCII
        (text) is no length of a frame within any sane limit."""
        if len(head) > 4:
            return 0x80 <= head[4] <= 0x8F or head[4] in (0xDE, 0xDF)
        return not 0x20 <= head[0] < 0x7F

    def _close(self, out: list[T]) -> None:
        if not self._buf:
            return
        have = len(self._buf)
        if have < 4:
            what = f"inside a length prefix ({have} of 4 bytes)"
        else:
            what = f"inside a frame ({have - 4} of {_PREFIX.unpack_from(self._buf)[0]} payload bytes)"
        self._saw(self._buf)
        raise FrameError(f"the stream ended {what}", offset=self._buf.offset, index=self._index)


def _msgpack_hook(obj: Any) -> Any:
    return msgspec.Raw(raw_payload(obj, "msgpack"))


def _fits(payload: bytes) -> bytes:
    if len(payload) > _MAX_PREFIXED:
        raise EncodeError(f"a {len(payload)}-byte payload does not fit a 4-byte length")
    return payload


class MsgpackFrameEncoder:
    """Frames of a 4-byte big-endian length and one MessagePack event.

    Takes AgentEvents, UnknownEvents read from MessagePack, and RawFrames
    (payload written unchanged). ``encode``, ``encode_into`` and
    ``encode_batch`` are used as :class:`~wire.framing.NDJSONEncoder`'s are; here the batch
    path writes every frame into one bytearray (a batch of RawFrames: their
    prefixes and payloads joined, without msgspec).
    """

    def __init__(self) -> None:
        self._encoder = msgspec.msgpack.Encoder(enc_hook=_msgpack_hook)
        self._buf = bytearray(4)

    def encode(self, item: Item) -> bytes:
        if type(item) is RawFrame:  # a Struct: msgspec would write it as a map
            payload = _fits(bytes(item.payload))
            return _PREFIX.pack(len(payload)) + payload
        buf = self._buf
        try:
            self._encoder.encode_into(item, buf, 4)  # after the prefix; keeps the capacity
        except ENCODE_ERRORS as exc:
            raise encode_error(item, exc) from exc
        size = len(buf) - 4
        if size > _MAX_PREFIXED:
            raise EncodeError(f"a {size}-byte payload does not fit a 4-byte length")
        _PREFIX.pack_into(buf, 0, size)
        return bytes(buf)

    def encode_into(self, item: Item, buf: bytearray) -> None:
        if type(item) is RawFrame:
            payload = _fits(bytes(item.payload))
            buf += _PREFIX.pack(len(payload))
            buf += payload
            return
        start = len(buf)
        buf += b"\0\0\0\0"
        try:
            self._encoder.encode_into(item, buf, -1)
        except ENCODE_ERRORS as exc:
            del buf[start:]
            raise encode_error(item, exc) from exc
        size = len(buf) - start - 4
        if size > _MAX_PREFIXED:
            del buf[start:]
            raise EncodeError(f"a {size}-byte payload does not fit a 4-byte length")
        # pack_into, not slice assignment: cheaper per frame (benchmarks/README.md,
        # "Figures quoted in the code").
        _PREFIX.pack_into(buf, start, size)

    def encode_batch(self, items: Iterable[Item]) -> bytes:
        items = items if isinstance(items, list) else list(items)
        payloads = frame_payloads(items) if items and type(items[0]) is RawFrame else None
        if payloads is not None and max(map(len, payloads)) <= _MAX_PREFIXED:
            prefixes = map(_PREFIX.pack, map(len, payloads))
            return b"".join(chain.from_iterable(zip(prefixes, payloads, strict=True)))
        buf = bytearray()
        encode_into = self.encode_into
        for item in items:
            encode_into(item, buf)
        return bytes(buf)
