"""What the streaming framings share: the decoder contract, payload decoding,
raw frames, the unknown-event policy and the encoders' hooks.

``wire.framing`` (NDJSON, length-prefixed MessagePack) and ``wire.sse`` are
siblings; they share through this module, which sits on the codecs. It does no
IO and cuts no frames: a framing hands it payload bytes and their positions.

Decoding is all-or-nothing per batch. A framing first decodes every payload of
a chunk with one C-level ``map`` over msgspec's decoder (no Python work per
event); if anything in the batch fails, it decodes that batch again one payload
at a time, which finds the exact payload, byte offset and event index, keeps
the events before it, and applies the unknown-event policy. Well-formed
streams never pay for the second pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Literal, NoReturn, TypeAlias, TypeVar

import msgspec

from wire._codec import DECODE_ERRORS
from wire.errors import DecodeError, EncodeError, LocalProtocolError, RemoteProtocolError, decode_error_from_msgspec
from wire.events import AgentEvent, UnknownEvent

__all__ = (
    "DEFAULT_MAX_FRAME_BYTES",
    "RawFrame",
    "StreamDecoder",
    "UnknownPolicy",
)

# One frame holds one event, and the largest legitimate event is a data chunk:
# agentscope streams a file as several DATA_BLOCK_DELTAs, but a producer may
# send a whole image in one. Model APIs accept inline images up to about 20 MB,
# which base64 in JSON turns into 26.7 MB; 32 MiB admits that plus the event's
# other fields. The limit bounds what one peer can make a connection buffer:
# a longer line or SSE frame fails as soon as the buffer passes it, and a
# MessagePack length prefix above it fails before any payload byte is kept.
DEFAULT_MAX_FRAME_BYTES = 32 * 1024 * 1024

UnknownPolicy: TypeAlias = Literal["raise", "skip", "keep"]
_POLICIES = ("raise", "skip", "keep")

T = TypeVar("T")

# A decoder's states, compared by identity on every feed.
OPEN, CLOSED, FAILED = "open", "closed", "failed"

_DECODE_ERRORS = DECODE_ERRORS  # one name for the framings, which import it from here


class RawFrame:
    """One frame's payload, not decoded: the exact bytes between the framing
    (an NDJSON line without its line end, the joined ``data`` of an SSE frame,
    a MessagePack frame after its length prefix).

    Decoders made with ``raw=True`` return these, and every streaming encoder
    writes ``payload`` unchanged, so a relay can pass events through without
    decoding them. ``envelope`` is free for routing data read from the payload
    without a full decode (``wire.peek`` fills it); it is never written.

    A plain class rather than a Struct, for the same reason as UnknownEvent:
    msgspec hands it to the encoders' ``enc_hook``, which splices the payload
    into batch output without a Python check per item.
    """

    __slots__ = ("envelope", "payload")

    def __init__(self, payload: bytes, envelope: Any = None) -> None:
        self.payload = payload
        self.envelope = envelope

    def __eq__(self, other: object) -> bool:
        if type(other) is not RawFrame:
            return NotImplemented
        return self.payload == other.payload and self.envelope == other.envelope

    __hash__ = None  # type: ignore[assignment]  # mutable: the envelope is filled in later

    def __repr__(self) -> str:
        if self.envelope is None:
            return f"RawFrame({self.payload!r})"
        return f"RawFrame({self.payload!r}, envelope={self.envelope!r})"


# -- payloads -> items ------------------------------------------------------------


class _Head(msgspec.Struct):
    """Just the tag, to tell an event of an unknown type from a broken one."""

    type: str


_KNOWN_TAGS = frozenset(cls.__struct_config__.tag for cls in AgentEvent.__args__)
_JSON_EVENT = msgspec.json.Decoder(AgentEvent)
_JSON_HEAD = msgspec.json.Decoder(_Head)
_MSGPACK_EVENT = msgspec.msgpack.Decoder(AgentEvent)
_MSGPACK_HEAD = msgspec.msgpack.Decoder(_Head)


class Payloads:
    """Turns payload bytes into the items a decoder returns: events (with
    unknown ones raised, skipped or kept) or RawFrames."""

    __slots__ = ("_decode", "_head", "format", "raw", "unknown")

    def __init__(self, format: Literal["json", "msgpack"], *, raw: bool, unknown: UnknownPolicy) -> None:
        if unknown not in _POLICIES:
            raise ValueError(f"unknown must be one of {_POLICIES}, not {unknown!r}")
        self.format = format
        self.raw = raw
        self.unknown = unknown
        decoder, head = (_JSON_EVENT, _JSON_HEAD) if format == "json" else (_MSGPACK_EVENT, _MSGPACK_HEAD)
        self._decode: Callable[[bytes], Any] = decoder.decode
        self._head: Callable[[bytes], _Head] = head.decode

    def batch(self, payloads: list[bytes]) -> list[Any] | None:
        """Every payload decoded, or None if any of them fails (the caller
        then goes one by one with :meth:`one`). No Python code runs per item."""
        if self.raw:
            return list(map(RawFrame, payloads))
        try:
            return list(map(self._decode, payloads))
        except _DECODE_ERRORS:
            return None

    def one(self, payload: bytes, out: list[Any], *, offset: int, index: int, exact: bool = True) -> None:
        """Decode one payload into ``out``; a bad one raises DecodeError at
        ``offset`` (plus msgspec's byte position inside the payload when
        ``exact``, that is when the payload is contiguous in the stream)."""
        if self.raw:
            out.append(RawFrame(payload))
            return
        try:
            out.append(self._decode(payload))
            return
        except _DECODE_ERRORS as exc:
            error: BaseException = exc
        if self.unknown != "raise":
            tag = self.unknown_type(payload)
            if tag is not None:
                if self.unknown == "keep":
                    out.append(UnknownEvent(tag, payload, self.format))
                return
        raise payload_error(error, offset=offset, index=index, exact=exact)

    def check_object(self, payload: bytes) -> None:
        """Raise DecodeError unless ``payload`` is a whole object with a str
        ``type`` (of any event, known or not): what raw mode can check."""
        try:
            self._head(payload)
        except _DECODE_ERRORS as exc:
            raise payload_error(exc, offset=0, index=0) from exc

    def unknown_type(self, payload: bytes) -> str | None:
        """The tag of an event whose type wire does not know; None when the
        payload is no such event (broken, or a known type with bad fields)."""
        try:
            tag = self._head(payload).type
        except _DECODE_ERRORS:
            return None
        return None if tag in _KNOWN_TAGS else tag


def payload_error(exc: BaseException, *, offset: int, index: int, exact: bool = True) -> DecodeError:
    """A DecodeError for one bad payload, with ``exc`` as its cause."""
    if isinstance(exc, msgspec.DecodeError):
        err = decode_error_from_msgspec(exc, index=index, offset=offset)
        if not exact:
            err.offset = offset
        return err
    reason = f"invalid UTF-8 ({exc.reason})" if isinstance(exc, UnicodeDecodeError) else "nesting too deep"
    err = DecodeError(reason, index=index, offset=offset)
    err.__cause__ = exc
    return err


# -- the decoder contract ------------------------------------------------------------


class StreamDecoder(Generic[T]):
    """Base of the sans-IO decoders: bytes in, items out, no IO.

    The contract, for every framing:

    * ``feed(data)`` takes the next bytes of the stream, in chunks of any size
      (``b""`` is allowed and means nothing, not EOF). It returns the items
      of every frame that ``data`` completed, in stream order, and keeps the
      bytes of an incomplete frame for the next call. Splitting the stream
      differently never changes the items, the order, or an error.
    * ``close()`` says the stream has ended (EOF). It returns the items of a
      frame the end completes (an NDJSON line without its final newline) and
      raises FrameError if the stream ended inside a frame. Calling it again
      returns ``[]``; ``feed`` after ``close`` raises LocalProtocolError.
    * Bad input raises a RemoteProtocolError (FrameError for the framing,
      DecodeError for a payload) whose ``offset`` is the byte in the whole
      stream where the bad frame (FrameError) or payload (DecodeError, plus
      the position msgspec names inside it) starts, and whose ``index`` is
      the number of frames before it that carried an event. Its ``events``
      are the items this call decoded before the problem; earlier calls
      already returned theirs, so together nothing before the error is lost.
    * After raising, the decoder is failed: ``feed`` and ``close`` raise
      LocalProtocolError. A stream cannot be resynchronised after garbage.
    """

    def __init__(self, payloads: Payloads, max_frame_bytes: int) -> None:
        if max_frame_bytes < 1:
            raise ValueError(f"max_frame_bytes must be positive, not {max_frame_bytes}")
        self._payloads = payloads
        self._max = max_frame_bytes
        self._state = OPEN
        # Frames that carried an event so far: the ``index`` errors report.
        self._index = 0

    @property
    def max_frame_bytes(self) -> int:
        return self._max

    @property
    def frames(self) -> int:
        """How many frames carrying an event (or a raw payload) were read."""
        return self._index

    def feed(self, data: bytes | bytearray | memoryview) -> list[T]:
        """Each framing defines its own ``feed``, with its common case inline:
        at 64-byte chunks one more Python call per ``feed`` is measurable."""
        raise NotImplementedError

    def _run(self, step: Callable[[bytes, list[T]], None], data: bytes) -> list[T]:
        """``step(data, out)`` under the contract: an error fails the decoder
        and carries the items decoded before it."""
        out: list[T] = []
        try:
            step(data, out)
        except BaseException as exc:
            self._fail(exc, out)
            raise
        return out

    def _refuse(self, what: str) -> NoReturn:
        raise LocalProtocolError(f"{what}() on a decoder that is {self._state}")

    def _refuse_feed(self, data: bytes | bytearray | memoryview) -> list[T]:
        self._refuse("feed")

    def _stop(self, state: str) -> None:
        """Leave the open state. ``feed`` is then replaced on the instance by
        one that refuses, so that an open decoder's ``feed`` checks nothing."""
        self._state = state
        self.feed = self._refuse_feed  # type: ignore[method-assign]

    def close(self) -> list[T]:
        if self._state is CLOSED:
            return []
        if self._state is FAILED:
            self._refuse("close")
        out: list[T] = []
        try:
            self._close(out)
        except BaseException as exc:
            self._fail(exc, out)
            raise
        self._stop(CLOSED)
        return out

    def _fail(self, exc: BaseException, out: list[T]) -> None:
        self._stop(FAILED)
        if isinstance(exc, RemoteProtocolError):
            # A nested feed (after a BOM) may have set the events that came
            # before the error inside it; ours came before those.
            exc.events = out + exc.events if exc.events is not out else out

    def _close(self, out: list[T]) -> None:
        raise NotImplementedError


# -- encoders ------------------------------------------------------------------------


def raw_payload(obj: Any, format: Literal["json", "msgpack"]) -> bytes:
    """The bytes an encoder writes unchanged for a RawFrame or UnknownEvent;
    TypeError (which msgspec reports as unsupported) for anything else."""
    if type(obj) is RawFrame:
        return bytes(obj.payload)
    if type(obj) is UnknownEvent:
        if obj.format != format:
            raise EncodeError(f"an UnknownEvent read from {obj.format} cannot be written as {format}")
        return obj.raw
    raise TypeError(f"cannot encode {type(obj).__name__}")


