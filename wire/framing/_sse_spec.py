"""The SSE stream format, as the WHATWG spec reads it, one line at a time.

https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

This is the reference reading of an SSE byte stream: :class:`SpecParser`
takes bytes in any chunks and hands out dispatched frames (data, where it
starts, the event id in force). It knows nothing of events or JSON.
``wire.framing.sse.SSEDecoder`` reads the common shapes of a stream with fast
paths and hands everything else to this parser; the tests check the fast
paths against this parser alone on damaged and random streams.

Where wire reads stricter than a browser (an id that is not UTF-8 is a
FrameError, not U+FFFD) or skips more (a frame named other than
``message``, a frame whose data is blank) is said in ``wire.framing.sse``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from wire.errors import FrameError
from wire.framing._buffer import SPLIT_BYTES, windows

# A line end, kept by split() so that offsets stay exact: CRLF, CR or LF.
_LINE_END = re.compile(rb"(\r\n|\r|\n)")
# JSON's whitespace: data made only of it carries no event (a keep-alive).
JSON_WS = b" \t\r\n"
# The largest retry kept: a longer one asks for no usable delay.
_MAX_RETRY = 2**63 - 1


class Frame(NamedTuple):
    """A dispatched frame that carries data."""

    payload: bytes  # the data lines, joined with LF
    offset: int  # stream offset of the payload's first byte
    contiguous: bool  # one data line: the payload is contiguous in the stream
    event_id: str  # the last event id when the frame was dispatched


class SpecParser:
    """Reads SSE lines and fields, and dispatches frames; and holds the
    state of the stream that outlives a frame, for the fast paths of
    ``wire.framing.sse`` too: the last event id, the retry, the offset.

    ``feed(data, frames, at)`` reads ``data`` (the stream's next bytes from
    offset ``at``, or ``pos`` where it stopped) and appends to ``frames`` each frame a blank line
    dispatched. A frame longer than ``max_frame_bytes`` (from its first line
    to the end of its last) raises FrameError as soon as it is; its index is
    the caller's to set. ``named_frames`` says whether frames with an
    ``event`` name other than ``message`` are dispatched (True) or dropped.
    """

    __slots__ = (
        "_data", "_data_lines", "_data_offset", "_fields", "_last_id", "_line", "_line_start", "_max",
        "_named", "_named_frames", "cr", "dispatched", "fast_id", "first_line", "frame_start", "id_buffer",
        "pos", "retry",
    )

    def __init__(self, max_frame_bytes: int, last_event_id: str, *, named_frames: bool) -> None:
        self._max = max_frame_bytes
        self._named_frames = named_frames
        self.pos = 0  # stream offset of the next byte read
        self.retry: int | None = None
        self.id_buffer = last_event_id  # the spec's "last event ID buffer"
        self.dispatched = last_event_id  # ...and the id it had at the last dispatch
        self._last_id = last_event_id  # ...and when the last event handed out was dispatched
        # An id the fast paths read, kept as bytes (ASCII, or checked UTF-8)
        # until someone asks: decoding it per frame costs more than it buys.
        # It is the id of the last dispatch and of the last event.
        self.fast_id: bytes | None = None
        # The start of the first line read (for an error saying what the
        # stream was, when it was no SSE).
        self.first_line: bytes | None = None
        self.cr = False  # the last byte read was a CR: an LF next belongs to it
        self.frame_start: int | None = None  # stream offset of the open frame's first line
        self._line = bytearray()  # an incomplete line
        self._line_start = 0
        self._fields = False  # the open frame has a field line (not only comments)
        # The frame's data lines joined with LF as they come: one buffer, so a
        # frame of many short lines costs its size, not an object per line.
        self._data = bytearray()
        self._data_lines = 0
        self._data_offset = 0
        self._named = False  # the open frame is named other than "message"

    @property
    def last_event_id(self) -> str:
        """The id in force when the last event handed out was dispatched."""
        if self.fast_id is not None:
            self._take_fast_id()
        return self._last_id

    @last_event_id.setter
    def last_event_id(self, value: str) -> None:
        self._last_id = value

    def _take_fast_id(self) -> None:
        assert self.fast_id is not None
        self._last_id = self.id_buffer = self.dispatched = self.fast_id.decode()
        self.fast_id = None

    def feed(self, data: bytes, frames: list[Frame], at: int | None = None) -> None:
        if at is not None:
            self.pos = at
        if self.fast_id is not None:
            self._take_fast_id()
        # A few KiB at a time: a split makes two objects per line end, so a
        # window of line ends alone costs some 16 bytes of list per byte.
        for window in windows(data, SPLIT_BYTES):
            self._lines(window, frames)

    def head(self) -> bytes:
        """The start of the first line read, or of the line not yet ended."""
        return self.first_line if self.first_line is not None else bytes(self._line[:64])

    def in_frame(self) -> int | None:
        """Where the open frame starts, if the stream has one (a field, or a
        line not yet ended that is no comment); None between frames. At EOF
        such a frame was cut off."""
        line = self._line
        if self._data_lines or self._fields or (line and line[:1] != b":"):
            return self.frame_start if self.frame_start is not None else self._line_start
        return None

    def _lines(self, data: bytes, frames: list[Frame]) -> None:
        pos = self.pos
        if self.cr:
            self.cr = False
            if data[:1] == b"\n":  # the LF of a CRLF cut between two chunks
                data = data[1:]
                pos += 1
                self._check_size(pos)
        if 13 in data:
            # segment, line end, segment, ..., line end, tail
            parts = _LINE_END.split(data)
            step = 2
            self.cr = parts[-2:] == [b"\r", b""] if len(parts) > 1 else False
        else:
            parts = data.split(b"\n")  # segment, ..., tail
            step = 1
        tail = parts[-1]
        for i in range(0, len(parts) - 1, step):
            segment = parts[i]
            start = pos
            pos += len(segment) + (1 if step == 1 else len(parts[i + 1]))
            if self._line:
                segment = bytes(self._line) + segment
                start = self._line_start
                self._line.clear()
            self._line_done(segment, start, pos, frames)
        if tail:
            if not self._line:
                self._line_start = pos
            self._line += tail
            pos += len(tail)
            if self.frame_start is None:
                self.frame_start = self._line_start
            self._check_size(pos)
        self.pos = pos

    def _check_size(self, end: int) -> None:
        """Raise if the open frame, read up to stream offset ``end``, is too long."""
        if self.frame_start is not None and end - self.frame_start > self._max:
            raise FrameError(f"frame longer than max_frame_bytes ({self._max})", offset=self.frame_start)

    def _line_done(self, line: bytes, start: int, end: int, frames: list[Frame]) -> None:
        """One complete line starting at stream offset ``start``; ``end`` is
        the offset after its line end."""
        if self.first_line is None:
            self.first_line = line[:64]
        if not line:
            self._dispatch(frames)
            return
        if self.frame_start is None:
            self.frame_start = start
        self._check_size(end)
        if line[0] == 0x3A:  # ":" a comment
            return
        self._fields = True
        field, colon, value = line.partition(b":")
        skip = len(field) + len(colon)
        if value[:1] == b" ":
            value = value[1:]
            skip += 1
        if field == b"data":
            if self._data_lines:
                self._data.append(10)
            else:
                self._data_offset = start + skip
            self._data += value
            self._data_lines += 1
        elif field == b"id":
            if b"\0" not in value:
                try:
                    self.id_buffer = value.decode()
                except UnicodeDecodeError as exc:
                    raise FrameError("an id that is not UTF-8", offset=start) from exc
        elif field == b"retry":
            # ASCII digits only, as the spec asks, read as base ten: leading
            # zeros count for nothing (00005 is 5). A value past 64 bits asks
            # for no usable delay (and int() refuses over 4,300 digits): ignored.
            if value.isdigit():
                digits = value.lstrip(b"0")
                if len(digits) <= 19 and (retry := int(digits or b"0")) <= _MAX_RETRY:
                    self.retry = retry
        elif field == b"event":
            # A browser's onmessage sees only frames named "message" (or not
            # named); the others are for other listeners.
            self._named = value != b"message"
        # Other fields: ignored, as the spec asks.

    def _dispatch(self, frames: list[Frame]) -> None:
        self.dispatched = self.id_buffer
        if self._data_lines:
            payload = bytes(self._data)
            if payload.strip(JSON_WS) and (self._named_frames or not self._named):
                frames.append(Frame(payload, self._data_offset, self._data_lines == 1, self.dispatched))
            self._data.clear()
            self._data_lines = 0
        self.frame_start = None
        self._fields = False
        self._named = False
