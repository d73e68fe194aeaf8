"""Sans-IO Server-Sent Events: a decoder that reads any SSE stream of agent
events by the WHATWG rules, and an encoder whose frames carry sequence ids.

SSE is its own small spec (https://html.spec.whatwg.org/multipage/server-sent-events.html):

* Lines end in CR, LF or CRLF, and a CR at the end of one chunk may be the
  first half of a CRLF whose LF starts the next chunk. One leading BOM is
  dropped.
* A line starting with ``:`` is a comment (agentscope's ``:`` heartbeat).
  Otherwise ``field: value`` (one space after the colon is dropped; a line
  without a colon is a field with an empty value). ``data`` lines add to the
  frame's data, joined with LF; ``id`` sets the last event id unless the
  value holds NUL; ``retry`` sets the reconnection time if it is all ASCII
  digits (and fits 64 bits: a longer one is ignored); ``event`` names the
  frame's type; other fields are ignored.
* A blank line ends the frame. A frame with data is one message.

Each message's data is one JSON event. That covers agentscope's service
format (``data: `` + ``json.dumps(..., ensure_ascii=False)``, spaces after
the separators, ``:`` heartbeats, no ids) and wire's own (compact JSON, an
``id:`` sequence number on every frame, so a client can resume with
``Last-Event-ID``). The JSON says an event's type, so the ``event`` field is
not needed; a frame named other than ``message`` is skipped by default
(``named="skip"``), as a browser's ``onmessage`` never sees it: such frames
are other listeners' (a server's ``event: ping`` keep-alive with ``data: {}``
is the common one). ``named="decode"`` reads them as events too, for a server
that names each frame after its event's type.

Where wire is stricter than a browser, on purpose, because it must not drop
or alter an event silently: bytes that are not UTF-8 fail (in the JSON, or an
``id``) instead of becoming U+FFFD; the stream ending inside a frame that has
fields raises FrameError instead of dropping the frame; and a frame whose data
is empty or only whitespace carries no event and is skipped (a keep-alive).

Resuming (``Last-Event-ID`` answered with a checkpoint) is ``wire.resume``'s.

Speed. Most of a stream is plain runs of ``data: <json>`` frames, with or
without an ``id:`` line each. The decoder looks only at the bytes each chunk
adds for the last ``\n\n``; a chunk that completes no frame is just kept. A
region that is one frame (the usual case when chunks are smaller than frames)
is checked and cut in place; a longer run is cut with a few C-level passes
(``split``, slices, ``map``) and decoded in one ``map`` over msgspec's decoder.
Both check the shape exactly, so nothing is accepted that the spec parser
would read differently. Lines that end in CRLF (sse-starlette's default) take
the same paths once their CRs are deleted, at about 1.35x the cost of LF
(benchmarks/README.md); a CR alone, a heartbeat, multi-line data or other
fields go through the spec parser (``wire.framing._sse_spec``), which follows
every rule above one line at a time, more slowly. How the decoder reads the stream is one
mode, settled by what it has seen so far (``_BOM_MODE``, ``_LF``, ``_CRLF``,
``_SPEC``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import chain, repeat
from operator import countOf, itemgetter, methodcaller
from typing import Any, Literal, TypeAlias, TypeVar, overload

import msgspec

from wire._codec import DECODE_ERRORS, ENCODE_ERRORS, encode_error
from wire.errors import EncodeError, FrameError
from wire.events import AgentEvent, UnknownEvent
from wire.framing._base import (
    DEFAULT_MAX_FRAME_BYTES,
    Item,
    Payloads,
    RawFrame,
    StreamDecoder,
    UnknownPolicy,
    line_payloads,
    raw_payload,
)
from wire.framing._buffer import WINDOW, ReceiveBuffer
from wire.framing._sse_spec import JSON_WS, Frame, SpecParser

__all__ = ("NamedPolicy", "SSEDecoder", "SSEEncoder")

T = TypeVar("T")

_BOM = b"\xef\xbb\xbf"
# A line end, and the field names SSE defines (b"": a comment or a blank line).
_LINE_END = re.compile(rb"\r\n|\r|\n")
_FIELDS = (b"", b"data", b"id", b"event", b"retry")
# A CR that is not the first half of a CRLF: a line end of its own.
_LONE_CR = re.compile(rb"\r(?!\n)")
_data_prefix = itemgetter(slice(6))
_after_data = itemgetter(slice(6, None))
_strip_ws = methodcaller("strip", b" \t")
# The largest region the fast path splits in one go (a 64 KiB window and the
# pending bytes before it). Bigger regions come from a large frame trickling
# in, which the one-frame fast path reads in place.
_FAST_REGION = 2 * WINDOW
# Lines of a plain run are long: a frame is at least ``data: `` and an event
# of some 50 bytes, then a blank line (with ``id: N`` first, three lines of 60
# bytes or more). The fast path splits at most one line per _LINE_BYTES bytes,
# so a region of tiny lines costs a few times its size in line objects, not
# twenty, and goes to the spec parser.
_LINE_BYTES = 16

# What a frame with an ``event:`` name other than "message" does: skipped, as
# a browser's ``onmessage`` never sees it, or decoded like any other frame.
NamedPolicy: TypeAlias = Literal["skip", "decode"]

# How the decoder reads the stream, settled by what it has seen so far:
# the first bytes, until a BOM is ruled in or out; then LF line ends, read by
# the fast paths; CRLF line ends (every CR half of a CRLF so far), read by the
# fast paths once the CRs are deleted; and, once a CR stands alone, the spec
# parser for every byte from there on.
_BOM_MODE, _LF, _CRLF, _SPEC = "bom", "lf", "crlf", "spec"


class SSEDecoder(StreamDecoder[T]):
    """Events from an SSE byte stream (see the module docstring for the rules).

    Follows the :class:`~wire.framing.StreamDecoder` contract. A frame
    counts from its first line to the blank line that ends it; one longer than
    ``max_frame_bytes`` raises FrameError as soon as the buffered part passes
    the limit. ``raw=True`` returns a :class:`RawFrame` per message holding its
    data (lines joined with LF), not decoded; ``peek=True`` as well gives each
    frame its envelope, as :class:`~wire.framing.NDJSONDecoder` does.

    ``named`` says what a frame with an ``event:`` name other than
    ``message`` does: ``"skip"`` (the default) or ``"decode"`` (see the
    module docstring).

    ``last_event_id`` is the id to send as ``Last-Event-ID`` when
    reconnecting: the id in force when the last event returned was dispatched
    (start it from a previous connection's value). ``retry`` is the
    reconnection time in milliseconds the server asked for, or None.

    A consumer that may stop before it has applied every item a call
    returned (``wire.transports.streams.iter_events``, when the loop over it
    breaks) feeds with :meth:`feed_keeping_ids` and :meth:`close_keeping_ids`
    and says where it stopped with :meth:`took`: ``last_event_id`` is then the
    id of the last item it took, so a reconnection resumes after that item,
    never after one it was not handed.
    """

    @overload
    def __init__(self: SSEDecoder[AgentEvent], *, raw: Literal[False] = False,
                 unknown: Literal["raise", "skip"] = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, last_event_id: str = "",
                 named: NamedPolicy = "skip") -> None: ...
    @overload
    def __init__(self: SSEDecoder[AgentEvent | UnknownEvent], *, raw: Literal[False] = False,
                 unknown: Literal["keep"], max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                 last_event_id: str = "", named: NamedPolicy = "skip") -> None: ...
    @overload
    def __init__(self: SSEDecoder[RawFrame], *, raw: Literal[True], peek: bool = False,
                 unknown: UnknownPolicy = "raise", max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                 last_event_id: str = "", named: NamedPolicy = "skip") -> None: ...

    def __init__(self, *, raw: bool = False, peek: bool = False, unknown: UnknownPolicy = "raise",
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, last_event_id: str = "",
                 named: NamedPolicy = "skip") -> None:
        if named not in ("skip", "decode"):
            raise ValueError(f"named must be 'skip' or 'decode', not {named!r}")
        super().__init__(Payloads("json", raw=raw, unknown=unknown, peek=peek), max_frame_bytes)
        # The stream's state that outlives a frame (the last event id, retry,
        # the offset the spec parser reads from, its partial frame): one
        # object, which the fast paths update too.
        self._spec = SpecParser(max_frame_bytes, last_event_id, named_frames=named == "decode")
        self._mode = _BOM_MODE
        self._head = b""  # the stream's first bytes, while the BOM is not ruled in or out
        self._after_bom = _LF  # the mode once it is (the tests' reference decoder: _SPEC)
        # The fast paths' pending bytes: after the last blank line seen, not
        # read yet (the spec parser's state is clean at their start). They
        # cost their length however small the chunks they came in, so a frame
        # stays within a small multiple of max_frame_bytes whatever the peer does.
        self._pending = ReceiveBuffer(max_frame_bytes)
        # CRLF mode only: a CR cut off from its LF by a chunk's end.
        self._cut_cr = False  # the pending bytes end in a CR, whose LF must come next
        self._skip_lf = False  # the last region ended in a CR; an LF next belongs to it
        # While a call that keeps ids runs: for each item it returns, in order,
        # the id it was dispatched with (bytes or str; None: the id in force
        # before it), and _Dispatched marks where a frame without data moved the
        # id on. None otherwise: the fast paths pay one check per frame or region.
        self._ids: list[Any] | None = None
        self._kept: tuple[str, list[Any]] = ("", [])  # the last such call's: the id before it, its ids

    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the server asked for, or None."""
        return self._spec.retry

    @property
    def last_event_id(self) -> str:
        return self._spec.last_event_id

    # -- where a consumer that stops early resumes --------------------------------------

    def feed_keeping_ids(self, data: bytes | bytearray | memoryview) -> list[T]:
        """:meth:`feed`, remembering each item's id for :meth:`took`."""
        return self._keeping_ids(self.feed, data)

    def close_keeping_ids(self) -> list[T]:
        """:meth:`close`, remembering each item's id for :meth:`took`."""
        return self._keeping_ids(self.close)

    def _keeping_ids(self, step: Any, *args: Any) -> list[T]:
        before = self.last_event_id
        ids: list[Any] = []
        self._ids = ids
        try:
            items: list[T] = step(*args)
        finally:
            self._ids = None
            self._kept = (before, ids)
        return items

    def took(self, count: int) -> None:
        """The consumer applied only the first ``count`` items that the last
        :meth:`feed_keeping_ids` or :meth:`close_keeping_ids` returned (or
        that its error carried), and stops: :attr:`last_event_id` becomes the
        id in force when the last of them was dispatched (the id before the
        call for none). Call it when the consumer stops; the decoder is not
        fed again (a new connection takes a new decoder)."""
        current, ids = self._kept
        taken = 0
        for mark in ids:
            if taken == count:
                break
            if type(mark) is _Dispatched:
                current = mark.event_id
                continue
            taken += 1
            if mark is not None:
                current = mark.decode() if type(mark) is bytes else mark
        spec = self._spec
        spec.fast_id = None
        spec.last_event_id = current

    # -- feeding ------------------------------------------------------------------

    def feed(self, data: bytes | bytearray | memoryview) -> list[T]:
        # The common case is inline (see StreamDecoder for the contract): no
        # CR, and either no frame end yet, or frames that end in this chunk.
        # A closed or failed decoder replaces feed, so no state check here.
        if type(data) is not bytes:
            data = bytes(data)
        # Membership of an int takes memchr, much cheaper than b"\r" (benchmarks/README.md).
        if self._mode is not _LF or 13 in data:
            if len(data) > WINDOW:
                return self._feed_windows(data)
            return self._run(self._feed_crlf if self._mode is _CRLF else self._feed_slow, data)
        pending = self._pending
        # Search only the new bytes: searching the whole buffer is quadratic
        # when a big frame trickles in. A "\n\n" across the boundary needs a
        # look at the last byte only when the chunk starts with LF.
        end = data.rfind(b"\n\n") if 10 in data else -1
        if end < 0:
            if data[:1] == b"\n" and pending[-1:] == b"\n":
                end = -1  # the frame ends at data[0]
            else:
                return [] if pending.keep(data) else self._run(self._near_limit, data)
        if len(data) > WINDOW:
            return self._feed_windows(data)
        size = end + 2  # the bytes of data up to the last frame end
        base = pending.offset
        region = pending.take(data, size)
        out: list[T] = []
        try:
            if not self._fast_frame(region, len(region) - 2, out) and not self._fast_region(region, out):
                self._parse(region, out, base)
            if size < len(data):
                self._near_limit(data[size:])
        except BaseException as exc:
            self._fail(exc, out)
            raise
        return out

    def _feed_slow(self, data: bytes, out: list[T]) -> None:
        """Every feed that the LF fast path in ``feed`` does not take."""
        if self._mode is _BOM_MODE:
            data = self._drop_bom(data)
            if not data:
                return
        if self._mode is _SPEC:
            self._parse(data, out)
        elif 13 in data:
            self._mode = _CRLF
            self._feed_crlf(data, out)
        else:  # the BOM is settled: back to the fast path
            out += self.feed(data)

    def _feed_crlf(self, data: bytes, out: list[T]) -> None:
        """CRLF mode, for servers whose lines end in CRLF (sse-starlette's
        default). While every CR is half of a CRLF, a frame ends where an LF
        is followed by CRLF, by LF, or by a CR that is the last byte so far
        (a CR ends its line at once), and deleting the CRs of a region of
        whole frames changes nothing: the fast paths read it so. A CR alone
        can end a line anywhere, so blank lines can no longer be found with a
        search: a server that sends one is read by the spec parser from
        there on. Limits and errors are the spec parser's, on the bytes as
        they came."""
        pending = self._pending
        if self._skip_lf:  # the last region ended in the CR of a CRLF: its LF
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
                pending.offset += 1
            if not data:
                return
        if 10 not in data and (data != b"\r" or not pending):
            # No frame ends here (only a CR after an LF could end one), and a
            # CR before the last byte stands alone. Small chunks mostly: short.
            if not self._cut_cr and 13 not in data[:-1]:
                self._cut_cr = data[-1:] == b"\r"
                self._keep(data)
                return
        elif not (self._cut_cr and data[:1] != b"\n") and not _LONE_CR.search(
                data, 0, len(data) - (data[-1:] == b"\r")):
            self._take_crlf(data, out)
            return
        self._mode = _SPEC
        base = pending.offset
        self._parse(pending.take(data, len(data)), out, base)

    def _take_crlf(self, data: bytes, out: list[T]) -> None:
        """CRLF mode: take ``data``, which has line ends and no CR alone."""
        pending = self._pending
        # The end of the last blank line in the new bytes, and in the two
        # pending bytes before them (a blank line cut between chunks).
        before = bytes(pending[-2:])
        joint = before + data if before else data
        if joint[-2:] == b"\n\r":
            size = len(joint)
        else:
            end = joint.rfind(b"\n\r\n")
            size = end + 3 if end >= 0 else 0
            end = joint.rfind(b"\n\n", max(end, 0))
            if end >= 0:
                size = max(size, end + 2)
        size -= len(before)
        self._cut_cr = data[-1:] == b"\r" and size < len(data)
        if size <= 0:
            self._keep(data)
            return
        base = pending.offset
        region = pending.take(data, size)
        lf = region.translate(None, b"\r")
        if region[-1:] == b"\r":
            lf += b"\n"
            self._skip_lf = True
        if len(region) > self._max or not (self._fast_frame(lf, len(lf) - 2, out) or self._fast_region(lf, out)):
            self._parse(region, out, base)
            self._spec.cr = False  # the spec parser's note of a CR just read: _skip_lf has it
        if size < len(data):
            self._near_limit(data[size:])

    def _drop_bom(self, data: bytes) -> bytes:
        head = self._head + data
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head
            return b""
        self._head = b""
        self._mode = self._after_bom
        if head.startswith(_BOM):
            self._pending.offset = self._spec.pos = len(_BOM)
            return head[len(_BOM):]
        return head

    def _keep(self, data: bytes) -> None:
        """Add ``data`` to the pending bytes (no frame ends in it)."""
        if not self._pending.keep(data):
            self._near_limit(data)

    def _near_limit(self, data: bytes, out: list[T] | None = None) -> None:
        """Keep ``data`` pending, unless the frame it belongs to is now too
        long. The room count includes the line end of a blank line before
        the frame (LF, CRLF, or the CR of one whose LF is still to come),
        which is not part of it, so the exact size is taken here."""
        pending = self._pending
        size = len(pending) + len(data)
        if size > self._max:  # only then can the line end before the frame matter
            first = (bytes(pending[:2]) + data[:2])[:2]
            frame = size - (2 if first == b"\r\n" else first[:1] in (b"\n", b"\r"))
            if frame > self._max:
                self._saw((bytes(pending[:64]) + data[:64]).lstrip(b"\r\n"))
                pending.too_long("frame", pending.offset + size - frame, self._index)
        pending.room = self._max - size
        pending += data

    def _fast_frame(self, buf: Any, end: int, out: list[T]) -> bool:
        """The region ``buf[:end + 2]`` if it is one ``data: `` frame, or one
        with an ``id: `` line first (the usual region when chunks are smaller
        than frames), read in place: no copy of the region, no split."""
        if end >= self._max:  # the frame is end + 1 bytes: the spec parser decides
            return False
        eol = buf.find(b"\n")
        if buf.startswith(b"data: "):
            if eol != end:
                return False
            payload = buf[6:end]
            raw_id = None
        elif buf.startswith(b"id: "):
            if not buf.startswith(b"data: ", eol + 1) or buf.find(b"\n", eol + 1) != end:
                return False
            raw_id = bytes(buf[4:eol])
            # Non-ASCII or NUL: the spec parser decides (UTF-8 check, or ignore).
            if not raw_id.isascii() or 0 in raw_id:
                return False
            payload = buf[eol + 7:end]
        else:
            return False
        payloads = self._payloads
        if payloads.raw:
            peek = payloads.peek
            payload = bytes(payload)
            if peek is None:
                if not payload.strip(b" \t"):
                    return False
                out.append(RawFrame(payload))  # type: ignore[arg-type]
            else:
                try:  # a blank payload fails the peek too
                    out.append(RawFrame(payload, peek(payload)))  # type: ignore[arg-type]
                except DECODE_ERRORS:
                    return False
        else:
            try:
                out.append(payloads._decode(payload))
            except DECODE_ERRORS:
                return False
        self._index += 1
        if raw_id is not None:
            self._spec.fast_id = raw_id
        if self._ids is not None:
            self._ids.append(raw_id)
        return True

    def _fast_region(self, region: bytes, out: list[T]) -> bool:
        """Decode ``region`` (whole frames, no CR) if it is a plain run of
        ``data: `` frames, each with or without one ``id: `` line before its
        data; False, with nothing changed, for anything else. A region past
        ``_FAST_REGION``, or of lines too short for such a run, goes to the
        spec parser, which reads it in windows: split at once, a frame of a
        million short lines would cost a million line objects."""
        if len(region) > self._max or len(region) > _FAST_REGION:
            return False
        lines = region.split(b"\n", len(region) // _LINE_BYTES + 2)
        if 10 in lines[-1]:  # lines shorter than a plain run's
            return False
        new_id: bytes | None = None
        if region[:6] == b"data: ":
            frames, rest = divmod(len(lines) - 1, 2)
            if rest or any(lines[1:2 * frames:2]):
                return False
            datas = lines[0:2 * frames:2]
        elif region[:4] == b"id: ":
            frames, rest = divmod(len(lines) - 1, 3)
            if rest or any(lines[2:3 * frames:3]):
                return False
            ids = lines[0:3 * frames:3]
            # The first id line starts with "id: " (the region does). No line
            # holds an LF, so in the ids joined with LF, "\nid: " occurs once
            # per later line that starts so: one short search in C instead of
            # a call per line (about 5% of this path's time).
            joined = b"\n".join(ids)
            if joined.count(b"\nid: ") != frames - 1:
                return False
            if 0 in joined:  # an id with NUL is ignored: the spec parser's job
                return False
            try:
                joined.decode()
            except UnicodeDecodeError:
                return False
            new_id = ids[-1][4:]
            datas = lines[1:3 * frames:3]
        else:
            return False
        # Every data line starts "data: " exactly when their first six bytes,
        # joined, are that many "data: " (a shorter line makes the join
        # shorter): about 3x cheaper than a startswith call per line.
        if b"".join(map(_data_prefix, datas)) != b"data: " * len(datas):
            return False
        payloads = list(map(_after_data, datas))
        # A blank payload is skipped, which the spec parser does. Only one
        # that starts with a space, a tab or nothing can be blank, and the least
        # payload starts with the least byte; with peek=True, a blank one fails it.
        if self._payloads.raw and self._payloads.peek is None and min(payloads)[:1] <= b" " \
                and not all(map(_strip_ws, payloads)):
            return False
        items = self._payloads.batch(payloads)
        if items is None:
            return False
        out += items
        self._index += len(items)
        if new_id is not None:
            self._spec.fast_id = new_id
        if self._ids is not None:
            self._ids += [line[4:] for line in ids] if new_id is not None else [None] * len(items)
        return True

    # -- the spec parser ------------------------------------------------------------

    def _parse(self, data: bytes, out: list[T], at: int | None = None) -> None:
        """Read ``data`` (any bytes, from stream offset ``at``, or where the
        spec parser stopped) with the spec parser, and decode the frames it
        dispatches."""
        frames: list[Frame] = []
        try:
            self._spec.feed(data, frames, at)
        except FrameError as exc:
            # The frames dispatched before it come first in the stream, and
            # count in its index.
            self._saw(self._spec.head())
            self._decode_frames(frames, out)
            exc.index = self._index
            raise
        self._decode_frames(frames, out)

    def _decode_frames(self, frames: list[Frame], out: list[T]) -> None:
        spec = self._spec
        ids = self._ids
        if frames:
            items = self._payloads.batch([frame[0] for frame in frames])
            if items is not None:
                out += items
                self._index += len(items)
                if ids is not None:
                    ids += [frame[3] for frame in frames]
            else:
                for payload, offset, contiguous, event_id in frames:
                    size = len(out)
                    self._payloads.one(payload, out, offset=offset, index=self._index, exact=contiguous)
                    self._index += 1
                    spec.last_event_id = event_id
                    if ids is not None and len(out) > size:  # not an unknown event skipped
                        ids.append(event_id)
        spec.last_event_id = spec.dispatched
        if ids is not None:
            ids.append(_Dispatched(spec.dispatched))

    _NAME = "an SSE stream"

    @staticmethod
    def _looks_right(head: bytes) -> bool:
        """The first line is blank, a comment, or a field SSE defines (a
        line cut short by the end of ``head``: the start of one)."""
        if head.startswith(_BOM):
            head = head[len(_BOM):]
        line = _LINE_END.split(head, 1)[0]
        field, colon, _ = line.partition(b":")
        if colon or len(line) < len(head):
            return field in _FIELDS
        return any(name.startswith(field) for name in _FIELDS)

    # -- EOF ---------------------------------------------------------------------------

    def _close(self, out: list[T]) -> None:
        if self._mode is _BOM_MODE:  # fewer bytes than a BOM, or none: they were data after all
            head, self._head = self._head, b""
            self._mode = self._after_bom
            out += self.feed(head)
        if self._mode is not _SPEC:
            self._mode = _SPEC
            base = self._pending.offset
            self._parse(self._pending.take(b"", 0), out, base)
        self._saw(self._spec.head())
        start = self._spec.in_frame()
        if start is not None:
            raise FrameError("the stream ended inside a frame (no blank line after it)",
                             offset=start, index=self._index)
        # A stream that ends cleanly with no event in it is no error here, as
        # in a browser and in the TypeScript decoder, even when its first
        # line is no SSE (an HTML page with blank lines reads so): the HTTP
        # clients check the status and content type before a byte is decoded.


def _data(payload: bytes) -> bytes:
    """A raw payload as the value of SSE ``data`` lines, or EncodeError.
    SSE data cannot hold a line break, so each one (CR, LF or CRLF, which
    JSON allows only as whitespace between tokens) starts another ``data:``
    line; the decoder joins them back with LF."""
    if not payload.strip(JSON_WS):
        raise EncodeError("a blank raw payload cannot be SSE data")
    if 13 in payload:
        return _LINE_BREAK.sub(b"\ndata: ", payload)
    if 10 in payload:
        payload = payload.replace(b"\n", b"\ndata: ")
    return payload


_LINE_BREAK = re.compile(rb"\r\n?|\n")


def _sse_hook(obj: Any) -> Any:
    return msgspec.Raw(_data(raw_payload(obj, "json")))


_ID_AND_DATA = b"id: %d\ndata: "


class _Dispatched:
    """In a call's ids (SSEDecoder._ids): the id in force after frames that
    carried no item (an ``id`` line in a frame without data)."""

    __slots__ = ("event_id",)

    def __init__(self, event_id: str) -> None:
        self.event_id = event_id


class SSEEncoder:
    """SSE frames, one per event: ``id: <n>``, ``data: <compact JSON>``, blank line.

    ``next_id`` is the sequence number the next frame carries (it counts up
    by one per frame); set it to None to write no ids, or assign it to
    renumber (a resumed stream). Takes AgentEvents, UnknownEvents read from
    JSON and RawFrames (payload written unchanged; an LF in it becomes a
    second ``data:`` line, which the decoder joins back).

    ``encode``, ``encode_into`` and ``encode_batch`` are used as
    :class:`~wire.framing.NDJSONEncoder`'s are (a batch of RawFrames is
    joined in C, without msgspec). A failed encode raises EncodeError, uses
    up no id and leaves ``buf`` as it was.
    """

    def __init__(self, *, next_id: int | None = 0) -> None:
        self.next_id = next_id
        self._encoder = msgspec.json.Encoder(enc_hook=_sse_hook)
        self._buf = bytearray()

    def _prefix(self) -> bytes:
        return b"data: " if self.next_id is None else _ID_AND_DATA % self.next_id

    def encode(self, item: Item) -> bytes:
        if type(item) is RawFrame:  # a Struct: msgspec would write it as an object
            frame = b"".join((self._prefix(), _data(bytes(item.payload)), b"\n\n"))
        else:
            try:
                self._encoder.encode_into(item, self._buf, 0)  # overwrites, keeps the capacity
            except ENCODE_ERRORS as exc:
                raise encode_error(item, exc) from exc
            frame = b"".join((self._prefix(), self._buf, b"\n\n"))
        if self.next_id is not None:
            self.next_id += 1
        return frame

    def encode_into(self, item: Item, buf: bytearray) -> None:
        if type(item) is RawFrame:
            data = _data(bytes(item.payload))
            buf += self._prefix()
            buf += data
        else:
            start = len(buf)
            buf += self._prefix()
            try:
                self._encoder.encode_into(item, buf, -1)
            except ENCODE_ERRORS as exc:
                del buf[start:]
                raise encode_error(item, exc) from exc
        buf += b"\n\n"
        if self.next_id is not None:
            self.next_id += 1

    def encode_batch(self, items: Iterable[Item]) -> bytes:
        items = items if isinstance(items, list) else list(items)
        if items and type(items[0]) is RawFrame:
            data = self._frames_of(items)
            if data is not None:
                return data
        buf = bytearray()
        encode_into = self.encode_into
        for item in items:
            encode_into(item, buf)
        return bytes(buf)

    def _frames_of(self, items: list[Any]) -> bytes | None:
        """SSE for a batch of RawFrames, joined in C (the ids too: ``bytes %``
        mapped over a range); None if the batch holds anything else, or a
        payload that needs a closer look."""
        payloads = line_payloads(items)
        if payloads is None:
            return None
        start = self.next_id
        prefixes: Iterable[bytes]
        if start is None:
            prefixes = repeat(b"data: ")
        else:
            prefixes = map(_ID_AND_DATA.__mod__, range(start, start + len(payloads)))
            self.next_id = start + len(payloads)
        return b"".join(chain.from_iterable(zip(prefixes, payloads, repeat(b"\n\n"))))

    def encode_entries(self, ids: Sequence[str | bytes], items: Sequence[Item]) -> bytes:
        """Frames whose ``id`` is a store's entry id (``ids[i]`` for
        ``items[i]``) instead of the counter, which this leaves alone. Plain
        one-line raw payloads are joined in C, as :meth:`encode_batch` does;
        so are events, written by one msgspec call for the batch."""
        if len(ids) != len(items):
            raise ValueError(f"{len(ids)} ids for {len(items)} items")
        marks = _marks(ids)
        joined = b" ".join(marks)  # one C-level scan for the batch
        if 10 in joined or 13 in joined or 0 in joined:
            raise EncodeError("an SSE id cannot hold CR, LF or NUL")
        if not items:
            return b""
        items = items if isinstance(items, list) else list(items)
        payloads = line_payloads(items) if type(items[0]) is RawFrame else self._lines(items)
        if payloads is not None:
            return _interleaved(marks, payloads)
        # Something the batch paths leave alone (a raw payload with a line
        # break, an item that fails to encode): one frame at a time, so that
        # an error names its item and the frames come out as encode_into writes them.
        counter, self.next_id = self.next_id, None
        buf = bytearray()
        try:
            for mark, item in zip(marks, items, strict=True):
                buf += b"id: %s\n" % mark  # encode_into writes "data: "
                self.encode_into(item, buf)
        finally:
            self.next_id = counter
        return bytes(buf)

    def _lines(self, items: list[Any]) -> list[bytes] | None:
        """Each item's JSON, from one msgspec call for the batch, if each is
        one line (RawFrames and unknown events with a line break are not);
        None to go one item at a time."""
        if countOf(map(type, items), RawFrame):  # msgspec would write a RawFrame as an object
            return None
        try:
            lines = self._encoder.encode_lines(items).split(b"\n")
        except ENCODE_ERRORS:
            return None
        # msgspec writes no LF inside a JSON value: one more line than items
        # (the last LF's) means none came from a hook's raw payload.
        if len(lines) != len(items) + 1:
            return None
        del lines[-1]
        return lines

    @staticmethod
    def comment(text: str = "") -> bytes:
        """A comment frame; ``comment()`` is agentscope's ``:`` heartbeat,
        which keeps proxies from closing an idle stream."""
        if "\r" in text or "\n" in text:
            raise EncodeError("a comment cannot hold a line break")
        return b":" + text.encode() + b"\n\n"

    @staticmethod
    def retry(milliseconds: int) -> bytes:
        """A frame telling the client how long to wait before reconnecting."""
        if milliseconds < 0:
            raise EncodeError("retry must not be negative")
        return b"retry: %d\n\n" % milliseconds


def _marks(ids: Sequence[str | bytes]) -> list[bytes]:
    """The entry ids as bytes: one encode and one split for a batch of str
    ids without a space (a store's), else one at a time."""
    if ids and type(ids[0]) is str:
        try:
            marks = " ".join(ids).encode().split(b" ")  # type: ignore[arg-type]
        except TypeError:  # bytes among them
            pass
        else:
            if len(marks) == len(ids):
                return marks
    return [entry_id if type(entry_id) is bytes else entry_id.encode() for entry_id in ids]  # type: ignore[union-attr]


def _interleaved(marks: list[bytes], payloads: list[bytes]) -> bytes:
    """``id: <mark>``, ``data: <payload>`` frames joined in one C call:
    the parts are laid out by slice assignment, with no Python per frame."""
    n = len(marks)
    parts = [b"\ndata: "] * (4 * n + 1)
    parts[4::4] = [b"\n\nid: "] * n
    parts[0] = b"id: "
    parts[-1] = b"\n\n"
    parts[1::4] = marks
    parts[3::4] = payloads
    return b"".join(parts)
