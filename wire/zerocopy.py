"""Binary payloads that stay binary: MessagePack data chunks as views of the frame.

Over MessagePack a data chunk travels as ``bin``, with no base64. Decoding it
into ``bytes`` copies it out of the frame, the reducer copies it again into
the block's growing buffer, and once more when the block ends and its buffer
becomes ``bytes``: three copies of every byte. :func:`decode_event` decodes
DATA_BLOCK_DELTA and TOOL_RESULT_DATA_DELTA frames into
:class:`DataBlockDeltaView` and :class:`ToolResultDataDeltaView`, whose
``data`` is a ``memoryview`` into the frame (msgspec hands out the view with
no copy: ``view.data.obj is frame``), and every other event as usual.
:func:`append_event` feeds either into a Msg; a view's bytes go straight into
the block's buffer, which saves the first copy (counted in
tests/test_zerocopy.py; timings in benchmarks/bench_peek.py).

The caveat: a view pins its frame until it is appended. While a view is alive
(in your hands, or in a decoded view event), the whole frame buffer stays in
memory, even if the chunk is a small part of it; and if the frame is a
``bytearray`` (a receive buffer), resizing it (``+=``, ``del buf[:n]``) raises
``BufferError: Existing exports of data: object cannot be re-sized``, while
writing into it in place silently changes the chunk. So append a view before
the buffer is reused, or decode views only from frames nobody will reuse:
``bytes``, or a bytearray handed over for good. ``bytes(view.data)`` detaches
a view by hand.

JSON has no zero-copy path: base64 must be decoded into a new buffer.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, TypeVar, cast

import msgspec
from msgspec import Struct, field

from wire._codec import DECODE_ERRORS, decode_error
from wire._portable import check as check_portable
from wire.clock import new_id, now
from wire.events import AgentEvent, DataBlockDeltaEvent, EventType, ToolResultDataDeltaEvent, _check_data_or_url
from wire.messages import Msg

__all__ = ("DataBlockDeltaView", "DataChunkView", "ToolResultDataDeltaView", "append_event", "decode_event")


# These mirror DataBlockDeltaEvent and ToolResultDataDeltaEvent field for field
# (names, order, defaults: tests/test_zerocopy.py checks it), so that they
# accept and reject exactly what the events do; only ``data`` differs.


_E = TypeVar("_E", DataBlockDeltaEvent, ToolResultDataDeltaEvent)


def _with_data(view: Struct, event_cls: type[_E], data: bytes | None) -> _E:
    """The event ``view`` mirrors, with every field as in ``view`` but ``data``."""
    return event_cls(**{**msgspec.structs.asdict(view), "data": data})


class DataBlockDeltaView(Struct, tag="DATA_BLOCK_DELTA", tag_field="type", kw_only=True,
                         omit_defaults=True, frozen=True, gc=False):
    """A DATA_BLOCK_DELTA whose ``data`` is a view into the frame it was
    decoded from (see the module docstring for what that pins)."""

    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)
    metadata: dict[str, Any] = {}
    reply_id: str
    block_id: str
    media_type: str
    data: memoryview | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        _check_data_or_url(self.data, self.url)
        if self.metadata:
            check_portable(self.metadata, "metadata")

    @property
    def type(self) -> EventType:
        return EventType.DATA_BLOCK_DELTA

    def to_event(self) -> DataBlockDeltaEvent:
        """The ordinary event, its data copied into ``bytes`` (one copy; the
        frame is no longer pinned by it)."""
        return _with_data(self, DataBlockDeltaEvent, None if self.data is None else bytes(self.data))

    def _reducer_event(self) -> DataBlockDeltaEvent:
        # The reducer only appends a DATA_BLOCK_DELTA's data to the block's
        # bytearray, which takes any buffer: the view can go in as it is.
        # Typed as bytes for that reason only; this event never leaves
        # append_event.
        return _with_data(self, DataBlockDeltaEvent, cast(bytes | None, self.data))


class ToolResultDataDeltaView(Struct, tag="TOOL_RESULT_DATA_DELTA", tag_field="type", kw_only=True,
                              omit_defaults=True, frozen=True, gc=False):
    """A TOOL_RESULT_DATA_DELTA whose ``data`` is a view into its frame."""

    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)
    metadata: dict[str, Any] = {}
    reply_id: str
    tool_call_id: str
    block_id: str = field(default_factory=new_id)
    media_type: str
    data: memoryview | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        _check_data_or_url(self.data, self.url)
        if self.metadata:
            check_portable(self.metadata, "metadata")

    @property
    def type(self) -> EventType:
        return EventType.TOOL_RESULT_DATA_DELTA

    def to_event(self) -> ToolResultDataDeltaEvent:
        """The ordinary event, its data copied into ``bytes``."""
        return _with_data(self, ToolResultDataDeltaEvent, None if self.data is None else bytes(self.data))

    def _reducer_event(self) -> ToolResultDataDeltaEvent:
        # As for DataBlockDeltaView: the reducer only appends the chunk to the
        # bytearray of the block's source, so the view goes in as it is.
        return _with_data(self, ToolResultDataDeltaEvent, cast(bytes | None, self.data))


DataChunkView = DataBlockDeltaView | ToolResultDataDeltaView

_VIEWED: dict[type[Any], type[Any]] = {
    DataBlockDeltaEvent: DataBlockDeltaView,
    ToolResultDataDeltaEvent: ToolResultDataDeltaView,
}
_UNION: Any = functools.reduce(operator.or_, [_VIEWED.get(cls, cls) for cls in AgentEvent.__args__])
_decoder: msgspec.msgpack.Decoder[AgentEvent | DataChunkView] = msgspec.msgpack.Decoder(_UNION)


def decode_event(frame: bytes | bytearray | memoryview) -> AgentEvent | DataChunkView:
    """One MessagePack event, as ``wire.msgpack.decode_event`` decodes it,
    except that a data chunk comes back as a view event whose ``data`` points
    into ``frame`` (no copy; it pins ``frame``). Bad input raises DecodeError
    with the same path and message as ``wire.msgpack.decode_event``."""
    try:
        return _decoder.decode(frame)
    except DECODE_ERRORS as exc:
        raise decode_error(exc, data=frame) from exc


def append_event(msg: Msg, event: AgentEvent | DataChunkView, *, strict: bool = False) -> Msg:
    """``msg.append_event(event)`` for the results of :func:`decode_event`.

    A view's bytes are copied straight into the block's buffer, after which
    the frame is no longer pinned by it. Anomalies and ``strict`` behave as in
    ``Msg.append_event``."""
    cls = type(event)
    if cls is DataBlockDeltaView or cls is ToolResultDataDeltaView:
        event = cast(DataChunkView, event)._reducer_event()
    return msg.append_event(cast(AgentEvent, event), strict=strict)
