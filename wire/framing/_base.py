"""What the framings share: the decoder contract, payload decoding, raw
frames, the unknown-event policy and the encoders' hooks.

NDJSON, length-prefixed MessagePack and SSE are siblings; they share through
this module, which sits on the codecs. It does no IO and cuts no frames: a
framing hands it payload bytes and their positions.

Decoding is all-or-nothing per batch. A framing first decodes every payload of
a chunk with one C-level ``map`` over msgspec's decoder (no Python work per
event); if anything in the batch fails, it decodes that batch again one payload
at a time, which finds the exact payload, byte offset and event index, keeps
the events before it, and applies the unknown-event policy. Well-formed
streams never pay for the second pass.

Relays. With ``raw=True`` a framing hands out :class:`RawFrame` payloads,
and with ``peek=True`` as well each frame carries its envelope (type, reply,
session, block and tool call ids), read by :mod:`wire.peek`'s decoder in the
same kind of ``map``: a relay routes frames by reply without decoding events,
and the decoder runs no Python per frame. The encoders write a batch of
frames by joining their payloads (:func:`line_payloads`).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter, countOf
from typing import Any, Generic, Literal, NoReturn, TypeAlias, TypeVar

import msgspec

from wire._codec import DECODE_ERRORS, JSON, KNOWN_TAGS, MSGPACK, Head, decode_error
from wire.errors import EncodeError, LocalProtocolError, RemoteProtocolError
from wire.events import AgentEvent, UnknownEvent
from wire.framing._buffer import WINDOW
from wire.peek import Envelope, UnknownEnvelope, _json_unknown, _msgpack_unknown
from wire.peek import _json_decoder as _json_peek
from wire.peek import _msgpack_decoder as _msgpack_peek

__all__ = (
    "DEFAULT_MAX_FRAME_BYTES",
    "Item",
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

# How many bytes of its first frame an error shows when the stream is no
# stream of its framing (an HTML error page, another framing): enough for
# "<!DOCTYPE html>" and a little more.
HEAD_BYTES = 40


class _NotAnEvent:
    """The value of RawFrame's hidden field: an object msgspec cannot encode.

    RawFrame is a Struct so that decoders build frames in C (a ``map`` over
    the payloads, no Python ``__init__`` per frame). msgspec would write a Struct as an object,
    ``{"payload": ..., "envelope": ...}``; this field makes it reach the
    ``enc_hook`` instead, so a RawFrame handed to ``wire.json.encode`` or to
    a bare msgspec encoder still fails as it did when RawFrame was a plain
    class. wire's framing encoders never give a RawFrame to msgspec: they
    write its payload themselves."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "_NOT_AN_EVENT"  # the module's singleton: frames unpickle equal


# msgspec's error names the type it cannot encode: the frame's.
_NotAnEvent.__name__ = _NotAnEvent.__qualname__ = "RawFrame"
_NOT_AN_EVENT = _NotAnEvent()


class _Unencodable(msgspec.Struct, kw_only=True, gc=False):
    # A keyword-only field of a base class comes after the subclass's own
    # fields, so ``RawFrame(payload, envelope)`` cannot reach it.
    _not_an_event: _NotAnEvent = _NOT_AN_EVENT


class RawFrame(_Unencodable, gc=False):
    """One frame's payload, not decoded: the exact bytes between the framing
    (an NDJSON line without its line end, the joined ``data`` of an SSE frame,
    a MessagePack frame after its length prefix).

    Decoders made with ``raw=True`` return these, and every streaming encoder
    writes ``payload`` unchanged, so a relay can pass events through without
    decoding them. ``envelope`` is for routing data read from the payload
    without a full decode: decoders made with ``raw=True, peek=True`` fill it
    with the payload's :class:`~wire.peek.Envelope`; it is never written.

    Two frames are equal when their payloads and envelopes are. Only wire's
    framing encoders write a RawFrame; any other encoder refuses it. Frames
    are not tracked by the garbage collector (building them is cheaper, and a
    payload and an envelope cannot form a cycle): an ``envelope`` you set
    yourself must not refer back to its frame.
    """

    payload: bytes
    envelope: Any = None

    def __repr__(self) -> str:
        if self.envelope is None:
            return f"RawFrame({self.payload!r})"
        return f"RawFrame({self.payload!r}, envelope={self.envelope!r})"

    def __rich_repr__(self) -> Any:  # msgspec's own would show the hidden field
        yield self.payload
        if self.envelope is not None:
            yield "envelope", self.envelope


# What an encoder takes: events, events of unknown type kept by a decoder, and
# raw frames (written unchanged).
Item: TypeAlias = AgentEvent | UnknownEvent | RawFrame


# -- payloads -> items ------------------------------------------------------------


_PEEK: dict[str, Callable[[bytes], Envelope]] = {"json": _json_peek.decode, "msgpack": _msgpack_peek.decode}
_PEEK_UNKNOWN: dict[str, Callable[[bytes], UnknownEnvelope]] = {
    "json": _json_unknown.decode, "msgpack": _msgpack_unknown.decode}


class Payloads:
    """Turns payload bytes into the items a decoder returns: events (with
    unknown ones raised, skipped or kept) or RawFrames, with their envelopes
    when ``peek`` (an unknown type is then raised, skipped, or kept with an
    UnknownEnvelope)."""

    __slots__ = ("_decode", "_head", "_peek", "_peek_unknown", "format", "raw", "unknown")

    def __init__(self, format: Literal["json", "msgpack"], *, raw: bool, unknown: UnknownPolicy,
                 peek: bool = False) -> None:
        if unknown not in _POLICIES:
            raise ValueError(f"unknown must be one of {_POLICIES}, not {unknown!r}")
        if peek and not raw:
            raise ValueError("peek=True fills the envelopes of raw frames: it needs raw=True")
        self.format = format
        self.raw = raw
        self.unknown = unknown
        decoders = JSON if format == "json" else MSGPACK
        self._decode: Callable[[bytes], Any] = decoders.event.decode
        self._head: Callable[[bytes], Head] = decoders.head.decode
        # wire.peek's decoders: the envelope union, and UnknownEnvelope for
        # the unknown types that are kept. None: frames without envelopes.
        self._peek: Callable[[bytes], Envelope] | None = None
        self._peek_unknown: Callable[[bytes], UnknownEnvelope] = _PEEK_UNKNOWN[format]
        if peek:
            self._peek = _PEEK[format]

    @property
    def peek(self) -> Callable[[bytes], Envelope] | None:
        """The envelope decoder a raw framing applies to each payload, or None."""
        return self._peek

    def batch(self, payloads: list[bytes]) -> list[Any] | None:
        """Every payload decoded, or None if any of them fails (the caller
        then goes one by one with :meth:`one`). No Python code runs per item:
        RawFrame is a Struct, built by ``map`` in C like the envelopes."""
        if self.raw:
            peek = self._peek
            if peek is None:
                return list(map(RawFrame, payloads))
            try:
                return list(map(RawFrame, payloads, map(peek, payloads)))
            except DECODE_ERRORS:
                return None
        try:
            return list(map(self._decode, payloads))
        except DECODE_ERRORS:
            return None

    def one(self, payload: bytes, out: list[Any], *, offset: int, index: int, exact: bool = True) -> None:
        """Decode one payload into ``out``; a bad one raises DecodeError at
        ``offset`` (plus msgspec's byte position inside the payload when
        ``exact``, that is when the payload is contiguous in the stream)."""
        try:
            if not self.raw:
                out.append(self._decode(payload))
            elif self._peek is None:
                out.append(RawFrame(payload))
            else:
                out.append(RawFrame(payload, self._peek(payload)))
            return
        except DECODE_ERRORS as exc:
            error: BaseException = exc
        if self.unknown != "raise":
            tag = self.unknown_type(payload)
            if tag is not None:
                if self.unknown == "keep":
                    if not self.raw:
                        out.append(UnknownEvent(tag, payload, self.format))
                        return
                    try:  # the ids must still be strings (or null), as wire.peek requires
                        out.append(RawFrame(payload, self._peek_unknown(payload)))
                        return
                    except DECODE_ERRORS as exc:
                        error = exc
                else:
                    return
        raise decode_error(error, offset=offset, index=index, exact=exact, data=payload)

    def check_object(self, payload: bytes) -> None:
        """Raise DecodeError unless ``payload`` is a whole object with a str
        ``type`` (of any event, known or not): what raw mode can check."""
        try:
            self._head(payload)
        except DECODE_ERRORS as exc:
            raise decode_error(exc, offset=0, index=0, data=payload) from exc

    def unknown_type(self, payload: bytes) -> str | None:
        """The tag of an event whose type wire does not know; None when the
        payload is no such event (broken, or a known type with bad fields)."""
        try:
            tag = self._head(payload).type
        except DECODE_ERRORS:
            return None
        return None if tag in KNOWN_TAGS else tag


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
        # The first bytes of the frame that failed, when no frame carried an
        # event before it: set by the framing where it raises (never on the
        # way of a frame that decodes), read by _fail.
        self._first = b""

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

    # What the framing is called in an error, and whether a stream's first
    # bytes can start a stream of it; each framing says.
    _NAME = "a stream of this framing"

    @staticmethod
    def _looks_right(head: bytes) -> bool:
        return True

    def _saw(self, frame: bytes | bytearray) -> None:
        """Note the start of a frame about to fail, if it is the first."""
        if self._index == 0 and not self._first:
            self._first = bytes(frame[:HEAD_BYTES + 1])

    def _feed_windows(self, data: bytes, size: int = WINDOW) -> list[T]:
        """``feed`` a buffer longer than ``size`` one window at a time."""
        out: list[T] = []
        try:
            for start in range(0, len(data), size):
                out += self.feed(data[start:start + size])
        except RemoteProtocolError as exc:
            exc.events = out + exc.events  # the windows before it came first
            raise
        return out

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
        if isinstance(exc, RemoteProtocolError) and self._index == 0 and not out and self._first \
                and not self._looks_right(self._first):
            # No event yet, and bytes that cannot start this framing: say so,
            # and what they are (an HTML error page says far more than "byte 0").
            shown = repr(self._first[:HEAD_BYTES]) + ("..." if len(self._first) > HEAD_BYTES else "")
            exc.reason = f"not {self._NAME}: its first frame starts with {shown}; {exc.reason}"
        if isinstance(exc, RemoteProtocolError):
            # A nested feed (after a BOM) may have set the events that came
            # before the error inside it; ours came before those.
            exc.events = out + exc.events if exc.events is not out else out

    def _close(self, out: list[T]) -> None:
        raise NotImplementedError


# -- encoders ------------------------------------------------------------------------


class RawFrameInside(Exception):
    """What the encoders' hooks raise when msgspec meets a RawFrame in a
    batch (it reaches the hook through the frame's hidden field). The encoder
    then writes the batch again with each frame's payload spliced in; batches
    of events alone never pay for a check per item."""


def raw_payload(obj: Any, format: Literal["json", "msgpack"]) -> bytes:
    """The bytes an encoder writes unchanged for a RawFrame or UnknownEvent;
    RawFrameInside for a RawFrame's hidden field; TypeError (which msgspec
    reports as unsupported) for anything else."""
    if type(obj) is RawFrame:
        return bytes(obj.payload)  # a bytes payload is returned as is, not copied
    if type(obj) is UnknownEvent:
        if obj.format != format:
            raise EncodeError(f"an UnknownEvent read from {obj.format} cannot be written as {format}")
        return obj.raw
    if obj is _NOT_AN_EVENT:
        raise RawFrameInside
    raise TypeError(f"cannot encode {type(obj).__name__}")


def splice_frames(items: list[Any], check: Callable[[bytes], bytes]) -> list[Any]:
    """``items`` with each RawFrame replaced by its payload, checked by
    ``check``, as a ``msgspec.Raw`` (which msgspec writes unchanged)."""
    return [msgspec.Raw(check(bytes(item.payload))) if type(item) is RawFrame else item for item in items]


_payload_of = attrgetter("payload")


def frame_payloads(items: list[Any]) -> list[bytes] | None:
    """The payloads of ``items`` if every one is a RawFrame, else None. Two
    C-level passes, no Python per item: the batch encoders' fast path for a
    relay. The payloads are bytes-like (the decoders' are bytes)."""
    if countOf(map(type, items), RawFrame) != len(items):
        return None
    return list(map(_payload_of, items))


def line_payloads(items: list[Any]) -> list[bytes] | None:
    """The payloads of ``items`` if every one is a RawFrame whose payload is
    one non-blank line (no CR, no LF), else None: what NDJSON and SSE can
    write as they are. A few C-level passes, no Python per item."""
    payloads = frame_payloads(items)
    if payloads is None:
        return None
    try:
        # Only a payload that starts with a space, a tab or nothing can be
        # blank, and the least payload starts with the least first byte.
        if min(payloads)[:1] <= b" ":
            return None
    except TypeError:  # memoryviews do not compare: the caller looks closer
        return None
    # One memchr each over the joined payloads finds any line break (counting
    # the newlines of the output instead is slower: bytes.count has no memchr).
    whole = b"".join(payloads)
    if 10 in whole or 13 in whole:
        return None
    return payloads
