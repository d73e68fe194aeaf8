"""Sans-IO NDJSON: one compact JSON event per line, a decoder (bytes in,
events out) and an encoder.

``\\n`` ends each line (``\\r\\n`` accepted). Blank lines are ignored. A
last line without its newline is accepted at ``close()`` if it holds a whole
event. The decoder contract (what ``feed`` and ``close`` return, EOF, errors,
the state after an error), raw frames, peeking and the unknown-event policy
are :class:`~wire.framing.StreamDecoder`'s, shared by every framing.

Speed. The cost of streaming in Python is per-frame Python work, not parsing.
The decoder looks only at the bytes each chunk adds: a chunk without a newline
is just appended to one bytearray (so a long line arriving in tiny chunks
stays linear); a chunk with newlines is split once and every complete line decoded
in one C-level ``map`` over msgspec's decoder, with no Python code per event.
Only a chunk holding something wrong (a blank line, a bad or unknown event) is
decoded again line by line to say exactly where. A buffer longer than 64 KiB
is taken in 64 KiB windows, so that the copies of its lines are not all alive
at once (``wire.framing._buffer``).

Why not one ``decode_lines`` over each chunk's complete lines (about 1.3x
faster on the benchmark reply, benchmarks/README.md): it reads whitespace-separated values, so an
event spread over two lines, or two events on one line, would decode or fail
depending on where a chunk ended, and a peer's bad framing would pass some
runs and fail others. Proving that each line held exactly one event needs the
newlines counted and their neighbours checked, at least one more pass over
every byte (``bytes.count`` has no ``memchr`` path): as dear as the split it
would save. The split makes each line exactly one event, and the decoder runs
within a few percent of a bare split-and-decode loop
(``benchmarks/bench_streaming.py``).

>>> from wire.framing import NDJSONDecoder, NDJSONEncoder
>>> import wire
>>> event = wire.TextBlockDeltaEvent(id="e1", created_at="t", reply_id="r", block_id="b", delta="Hi")
>>> data = NDJSONEncoder().encode(event)
>>> decoder = NDJSONDecoder()
>>> decoder.feed(data[:10]), decoder.feed(data[10:]) == [event]
([], True)
>>> decoder.close()
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar, overload

import msgspec

from wire._codec import DECODE_ERRORS, ENCODE_ERRORS, encode_error
from wire.errors import DecodeError, EncodeError, FrameError
from wire.events import AgentEvent, UnknownEvent
from wire.framing._base import (
    DEFAULT_MAX_FRAME_BYTES,
    Item,
    Payloads,
    RawFrame,
    RawFrameInside,
    StreamDecoder,
    UnknownPolicy,
    line_payloads,
    raw_payload,
    splice_frames,
)
from wire.framing._buffer import SPLIT_BYTES, WINDOW, ReceiveBuffer
from wire.peek import Envelope

__all__ = ("NDJSONDecoder", "NDJSONEncoder")

T = TypeVar("T")



class NDJSONDecoder(StreamDecoder[T]):
    """Events from NDJSON bytes, one JSON event per line.

    Follows the :class:`~wire.framing.StreamDecoder` contract. A line
    longer than ``max_frame_bytes`` (not counting its ``\\n``) raises
    FrameError as soon as the buffered part passes the limit. With
    ``raw=True`` each item is a :class:`RawFrame` holding the line without its
    line end; raw mode checks the framing only, not the JSON. With
    ``raw=True, peek=True`` each frame's ``envelope`` is its
    :class:`~wire.peek.Envelope`: the line is checked as
    :func:`~wire.peek.peek_json` checks it (a bad one raises DecodeError), and
    ``unknown`` says what an event of an unknown type does (``"keep"``: its
    frame comes with an :class:`~wire.peek.UnknownEnvelope`).
    """

    @overload
    def __init__(self: NDJSONDecoder[AgentEvent], *, raw: Literal[False] = False,
                 unknown: Literal["raise", "skip"] = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...
    @overload
    def __init__(self: NDJSONDecoder[AgentEvent | UnknownEvent], *, raw: Literal[False] = False,
                 unknown: Literal["keep"], max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...
    @overload
    def __init__(self: NDJSONDecoder[RawFrame], *, raw: Literal[True], peek: bool = False,
                 unknown: UnknownPolicy = "raise", max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None: ...

    def __init__(self, *, raw: bool = False, peek: bool = False, unknown: UnknownPolicy = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        super().__init__(Payloads("json", raw=raw, unknown=unknown, peek=peek), max_frame_bytes)
        # msgspec's decode, or None in raw mode; the envelope decoder with
        # peek=True (looked up once, not per feed)
        self._decode: Callable[[bytes], Any] | None = None if raw else self._payloads._decode
        self._peek: Callable[[bytes], Envelope] | None = self._payloads.peek
        # The incomplete last line: it holds no newline (every byte of it
        # was searched). A bytearray, so that it costs its length however
        # small the chunks it came in: within max_frame_bytes, whatever the peer does.
        self._pending = ReceiveBuffer(max_frame_bytes)

    def feed(self, data: bytes | bytearray | memoryview) -> list[T]:
        # The common cases are inline, and the state is not checked here (a
        # closed or failed decoder replaces feed): at 64-byte chunks every
        # Python step per call shows. See StreamDecoder for the contract.
        if type(data) is not bytes:
            data = bytes(data)
        pending = self._pending
        # Only the new bytes are searched: the pending bytes hold no newline. (An int
        # operand takes memchr, much cheaper than b"\n": benchmarks/README.md.)
        if 10 not in data:
            return [] if pending.keep(data) else self._run(self._too_long, data)
        if len(data) > WINDOW:
            return self._feed_windows(data)
        lines = data.split(b"\n", SPLIT_BYTES)
        tail = lines.pop()
        if 10 in tail:  # lines this short: a few KiB at a time (wire.framing._buffer)
            return self._feed_windows(data, SPLIT_BYTES)
        out: list[T] = []
        try:
            limit = self._max
            base = pending.offset
            # the complete lines and their newlines
            size = limit - pending.room + len(data) - len(tail)
            if pending:
                pending += lines[0]
                lines[0] = bytes(pending)  # each buffered byte is copied out once: linear
                pending.clear()
            pending.offset = base + size
            if size - len(lines) <= limit or max(map(len, lines)) <= limit:
                decode = self._decode
                if decode is not None:
                    try:
                        # One C-level pass, no Python per line; a blank line
                        # fails it too, and is skipped line by line below.
                        if len(lines) == 1:  # small chunks: mostly one line each
                            out = [decode(lines[0])]
                            self._index += 1
                        else:
                            out = list(map(decode, lines))
                            self._index += len(out)
                    except DECODE_ERRORS:
                        out = []
                        self._lines(lines, base, out)
                # Raw frames. A CR ending a line must go, and a CR ending the
                # first line may have come with the buffered part (a CRLF cut
                # between chunks): line by line.
                elif 13 in data or lines[0][-1:] == b"\r":
                    self._lines(lines, base, out)
                elif self._peek is not None:
                    try:
                        # The envelopes and the frames in one C-level pass each,
                        # no Python per line; a blank line fails the peek too.
                        out = list(map(RawFrame, lines, map(self._peek, lines)))  # type: ignore[arg-type]
                        self._index += len(out)
                    except DECODE_ERRORS:
                        out = []
                        self._lines(lines, base, out)
                # A blank line is skipped: only a line that starts with a space,
                # a tab or nothing can be blank, and the least line starts with
                # the least byte (one C-level pass, cheaper than a strip per line).
                elif min(lines)[:1] > b" ":
                    out = list(map(RawFrame, lines))  # type: ignore[arg-type]
                    self._index += len(out)
                else:
                    self._lines(lines, base, out)
            else:
                self._lines(lines, base, out)
            pending.room = limit
            if tail and not pending.keep(tail):
                self._too_long(tail)
        except BaseException as exc:
            self._fail(exc, out)
            raise
        return out

    _NAME = "an NDJSON stream"

    @staticmethod
    def _looks_right(head: bytes) -> bool:
        """Every line is an event, a JSON object: the first byte that is
        not blank is ``{``."""
        return head.lstrip(b" \t\r\n")[:1] in (b"{", b"")

    def _too_long(self, part: bytes, out: list[T] | None = None) -> None:
        """Raise: buffering ``part`` makes the line too long."""
        self._saw(self._pending or part)
        self._pending.too_long("line", self._pending.offset, self._index)

    def _lines(self, lines: list[bytes], base: int, out: list[T]) -> None:
        """Complete lines one by one, from stream offset ``base``: exact
        offsets and indexes, blank lines skipped, the unknown-event policy."""
        pos = base
        for line in lines:
            start = pos
            pos += len(line) + 1
            if len(line) > self._max:
                self._saw(line)
                self._pending.too_long("line", start, self._index)
            if line[-1:] == b"\r":
                line = line[:-1]
            if not line.strip(b" \t\r"):
                continue
            try:
                self._payloads.one(line, out, offset=start, index=self._index)
            except DecodeError:
                self._saw(line)
                raise
            self._index += 1

    def _close(self, out: list[T]) -> None:
        if not self._pending:
            return
        line = bytes(self._pending)
        self._pending.clear()
        offset = self._pending.offset
        if line[-1:] == b"\r":
            line = line[:-1]
        if not line.strip(b" \t\r"):
            return
        try:
            if self._payloads.raw:
                # A relay must not pass on a cut line: it has to be a whole object.
                self._payloads.check_object(line)
            self._payloads.one(line, out, offset=offset, index=self._index)
        except DecodeError as exc:
            self._saw(line)
            raise FrameError("the stream ended inside a line that is not a whole event",
                             offset=offset, index=self._index) from exc
        self._index += 1


def _line(payload: bytes) -> bytes:
    """A raw payload that can be an NDJSON line, or EncodeError."""
    if 10 in payload or 13 in payload or not payload.strip(b" \t"):
        raise EncodeError("a raw payload with a line break, or a blank one, cannot be an NDJSON line")
    return payload


def _json_hook(obj: Any) -> Any:
    return msgspec.Raw(_line(raw_payload(obj, "json")))


class NDJSONEncoder:
    """NDJSON lines: each event as compact JSON followed by ``\\n``.

    Takes AgentEvents, UnknownEvents read from JSON, and RawFrames (payload
    written unchanged; it must not hold a line break). Three ways to write:

    * ``encode(item)`` returns one line, encoded into a bytearray the encoder
      reuses: send each event as it is produced.
    * ``encode_into(item, buf)`` appends one line to your bytearray: collect
      every event produced since the last write and send them in one go,
      then ``buf.clear()`` and reuse it.
    * ``encode_batch(items)`` returns all lines from one msgspec call: the
      fastest per event, for a list you already have (a replay, a log). A
      batch of RawFrames is the payloads joined, without msgspec.

    A failed encode raises EncodeError and leaves ``buf`` as it was.
    """

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder(enc_hook=_json_hook)
        self._buf = bytearray()

    def encode(self, item: Item) -> bytes:
        if type(item) is RawFrame:  # a Struct: msgspec would write it as an object
            return _line(bytes(item.payload)) + b"\n"
        buf = self._buf
        try:
            self._encoder.encode_into(item, buf, 0)  # overwrites, keeps the capacity
        except ENCODE_ERRORS as exc:
            raise encode_error(item, exc) from exc
        buf.append(10)
        return bytes(buf)

    def encode_into(self, item: Item, buf: bytearray) -> None:
        if type(item) is RawFrame:
            buf += _line(bytes(item.payload))
            buf.append(10)
            return
        start = len(buf)
        try:
            self._encoder.encode_into(item, buf, -1)
        except ENCODE_ERRORS as exc:
            del buf[start:]
            raise encode_error(item, exc) from exc
        buf.append(10)

    def encode_batch(self, items: Iterable[Item]) -> bytes:
        items = items if isinstance(items, list) else list(items)
        payloads = line_payloads(items) if items and type(items[0]) is RawFrame else None
        if payloads is not None:  # frames: their payloads joined, no msgspec
            payloads.append(b"")  # the last line's newline
            return b"\n".join(payloads)
        try:
            try:
                return self._encoder.encode_lines(items)
            except RawFrameInside:  # frames among events: write their payloads in place
                return self._encoder.encode_lines(splice_frames(items, _line))
        except ENCODE_ERRORS as exc:
            raise encode_error(items, exc) from exc
