"""Every exception wire raises on purpose.

Callers catch wire's types only: errors from msgspec, binascii or the standard
library are translated at the boundary (for decoding, ``wire._codec``) and
kept as ``__cause__``.

::

    WireError                      base of everything below
    ├── RemoteProtocolError        the peer sent something wrong: bytes, frames,
    │   │                          JSON, MessagePack or an event stream
    │   ├── DecodeError            bytes that are not a valid event or message
    │   │                          (``path`` says where, e.g. ``$.content[2].type``)
    │   ├── FrameError             framing broken: truncated, oversized, bad SSE
    │   └── StreamOrderError       events in an order the reducer cannot apply
    │                              (strict mode; ``index`` and ``kind`` say which)
    ├── LocalProtocolError         this process misused the API (feed after
    │                              close, a stream decoder reused after an error)
    ├── EncodeError                an object that cannot be written (a lone
    │                              surrogate in a str, a non-JSON metadata value)
    ├── StoreError                 the store behind a log failed (Redis went
    │   │                          away); ``key`` names the log
    │   └── Conflict               a conditional append found the log moved on
    │                              (``expected`` and ``actual`` entry ids)
    └── RoleError (also ValueError) a block the Msg's role does not allow

The split between "the peer sent bad bytes" (RemoteProtocolError) and "the
caller misused the API" (LocalProtocolError) follows h11: a server answers the
first with a 400-style error and the second is a bug to fix.

RoleError also derives from ValueError because msgspec turns a ValueError
raised in ``__post_init__`` into a ValidationError that carries the JSON path;
the same check then guards construction and decoding.
"""

from __future__ import annotations

from typing import Any

__all__ = (
    "Conflict",
    "DecodeError",
    "EncodeError",
    "FrameError",
    "LocalProtocolError",
    "RemoteProtocolError",
    "RoleError",
    "StoreError",
    "StreamOrderError",
    "WireError",
)


class WireError(Exception):
    """Base class of every exception wire raises on purpose."""


class RemoteProtocolError(WireError):
    """The peer sent bytes, frames or events that wire cannot accept.

    Attributes (each None when it does not apply):

    * ``path``: where inside one event or message, as a JSON path (``$.delta``).
    * ``offset``: the byte offset in the stream where the bad frame starts.
    * ``index``: the 0-based index of the bad event in its stream.
    * ``events``: the events decoded before the problem; they are valid and the
      caller should still use them.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        offset: int | None = None,
        index: int | None = None,
        events: list[Any] | None = None,
    ) -> None:
        self.reason = message
        self.path = path
        self.offset = offset
        self.index = index
        self.events: list[Any] = events if events is not None else []
        super().__init__(message)

    def _render(self) -> str:
        where = []
        if self.index is not None:
            where.append(f"event {self.index}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        if self.path is not None:
            where.append(f"at {self.path}")
        return f"{self.reason} ({', '.join(where)})" if where else self.reason

    def __str__(self) -> str:
        return self._render()


class DecodeError(RemoteProtocolError):
    """Bytes that are not a valid event or message (bad JSON, a wrong type,
    a missing field, an unknown tag, invalid base64)."""


class FrameError(RemoteProtocolError):
    """A frame that cannot be cut out of the stream: truncated at EOF, larger
    than ``max_frame_bytes``, or malformed framing (an SSE field, a length)."""


class StreamOrderError(RemoteProtocolError):
    """An event the reducer cannot apply in strict mode (a delta before its
    START, after its END, for an unknown block, for another reply...).

    ``kind`` names the anomaly, ``index`` the event."""

    def __init__(self, message: str, *, kind: str, index: int | None = None,
                 events: list[Any] | None = None) -> None:
        self.kind = kind
        super().__init__(message, index=index, events=events)


class LocalProtocolError(WireError):
    """This process used wire's API in a way it does not allow."""


class EncodeError(WireError):
    """An object that cannot be encoded (a lone surrogate, a value of a type
    JSON or MessagePack cannot hold)."""


class StoreError(WireError):
    """The store that keeps a log failed: Redis unreachable, a timeout, an
    error reply. ``key`` names the log; the store's own exception is
    ``__cause__``."""

    def __init__(self, message: str, *, key: str) -> None:
        self.key = key
        super().__init__(f"{key}: {message}")


class Conflict(StoreError):
    """A conditional append (``extend(events, expect=...)``) found that the
    log's newest entry is not the one the writer saw, or that the log is
    closed: nothing was written. ``expected`` is the id the writer named,
    ``actual`` the log's newest entry id ("" for a log with no entry).

    The writer reads the log again (``await log.session()``), checks its
    decision against what it finds, and appends again with the new id, as
    with KurrentDB's expected revision or NATS JetStream's expected last
    sequence."""

    def __init__(self, message: str, *, key: str, expected: str, actual: str) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(message, key=key)


class RoleError(WireError, ValueError):
    """A content block that the Msg's role does not allow."""
