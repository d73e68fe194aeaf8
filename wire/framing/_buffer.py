"""The bytes a decoder has received and not yet cut into frames, and the
frame limit, for every framing.

A :class:`ReceiveBuffer` is the pending bytes themselves (a ``bytearray``,
so that the framings' hot paths append, search and copy them with C calls
and no Python per byte), the stream offset of the first of them, and what
``max_frame_bytes`` leaves room for. A framing keeps there only the start
of the frame in progress: when a frame completes, its bytes are copied out
once and the buffer is emptied, so reading a frame that trickles in is
linear in its size. Every pending byte has already been searched for the
end of a frame: a framing scans only the bytes each ``feed`` adds (and the
joint with the pending ones), as h11's receive buffer does.

The limit is enforced here: :meth:`ReceiveBuffer.keep` refuses bytes that
would make the frame in progress longer than the limit, and
:meth:`ReceiveBuffer.too_long` raises the one FrameError every framing
raises for it, at the frame's stream offset.

Memory. What a decoder holds is this buffer (at most the limit), the copy of
a completed frame, and the line objects of one split. The splits are bounded
in lines, not only in bytes: a split of 64 KiB of line ends would make 65,537
objects and a list of them (half a megabyte of pointers, whatever the
limit), so a framing splits at most :data:`SPLIT_BYTES` bytes at once when
lines are short (:func:`windows`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NoReturn

from wire.errors import FrameError

__all__ = ("SPLIT_BYTES", "WINDOW", "ReceiveBuffer", "windows")

# The most a decoder reads in one go. A buffer of megabytes split at once
# holds a copy of every line, and a list of them, before the first is
# decoded; in 64 KiB windows the copies of one window are freed before the
# next is cut.
WINDOW = 64 * 1024

# The most a split of short lines reads at once: such a split makes at most
# SPLIT_BYTES + 1 line objects (some 32 KiB of list), so the memory a peer
# can make a decoder spend on line objects is a small constant, not eight
# times the bytes it sends.
SPLIT_BYTES = 4 * 1024


def windows(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of at most ``size`` bytes (``data`` itself if it fits)."""
    if len(data) <= size:
        yield data
        return
    for start in range(0, len(data), size):
        yield data[start:start + size]


class ReceiveBuffer(bytearray):
    """The pending bytes of the frame in progress, where they start in the
    stream (``offset``), and the frame limit (``limit``, with ``room`` the
    bytes it still admits)."""

    __slots__ = ("limit", "offset", "room")

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.room = limit  # limit minus the pending bytes
        self.offset = 0  # stream offset of the first pending byte (of the next one when empty)

    def keep(self, data: bytes) -> bool:
        """Append ``data`` if the frame in progress stays within the limit;
        False, with nothing kept, if it would not."""
        room = self.room - len(data)
        if room < 0:
            return False
        self.room = room
        self += data
        return True

    def take(self, data: bytes, size: int) -> bytes:
        """The pending bytes and ``data[:size]`` as one bytes object, the
        buffer emptied and its offset moved past them. Each pending byte is
        copied out once."""
        if self:
            self += data[:size]
            region = bytes(self)
            self.clear()
        else:
            region = data if size == len(data) else data[:size]
        self.offset += len(region)
        self.room = self.limit
        return region

    def too_long(self, what: str, offset: int, index: int) -> NoReturn:
        """Raise the FrameError of a ``what`` (line, frame) that passes the
        limit, starting at stream ``offset``."""
        raise FrameError(f"{what} longer than max_frame_bytes ({self.limit})", offset=offset, index=index)
