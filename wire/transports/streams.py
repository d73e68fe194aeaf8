"""anyio adapters: event streams over byte streams.

Needs the ``aio`` extra; ``import wire`` never loads it. Everything here is a
thin loop over the sans-IO decoders and encoders of ``wire.framing``: drain
the events the decoder already has, otherwise await bytes and feed them, and
at EOF close the decoder. So the rules (chunking, limits, errors and their
positions) are the decoders', and work the same on asyncio and trio.

* :class:`EventReceiveStream` reads events from any anyio ``ByteReceiveStream``
  (a TCP connection, a TLS stream, a memory stream...), ``async for`` ready.
* :func:`iter_events` does the same for any async iterable of chunks, such as
  an HTTP client's response body.
* :class:`EventSendStream` writes events to a ``ByteSendStream``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, ObjectReceiveStream, ObjectSendStream

from wire.errors import RemoteProtocolError
from wire.framing import Encoder, Item, SSEDecoder, StreamDecoder

__all__ = ("EventReceiveStream", "EventSendStream", "iter_events")

T = TypeVar("T")


class EventReceiveStream(ObjectReceiveStream[T], Generic[T]):
    """Items (events, or raw frames) decoded from a byte stream.

    ``EventReceiveStream(connection, NDJSONDecoder())``; iterate with
    ``async for``. The end of the byte stream closes the decoder, so a
    truncated last frame raises FrameError; after the last item,
    ``receive()`` raises ``anyio.EndOfStream``.

    Bad input raises the decoder's RemoteProtocolError, but only after every
    item decoded before the problem has been received; from then on every
    ``receive()`` raises that error again. ``receive_size`` is the most bytes
    asked of the byte stream per read.
    """

    def __init__(self, transport: ByteReceiveStream, decoder: StreamDecoder[T], *,
                 receive_size: int = 65536) -> None:
        self.transport = transport
        self.decoder = decoder
        self._receive_size = receive_size
        self._ready: deque[T] = deque()
        self._error: RemoteProtocolError | None = None
        self._eof = False

    async def _fill(self) -> None:
        """Wait until items are ready, or raise EndOfStream or the stream's error."""
        while not self._ready:
            if self._error is not None:
                raise self._error
            if self._eof:
                raise anyio.EndOfStream
            try:
                try:
                    data = await self.transport.receive(self._receive_size)
                except anyio.EndOfStream:
                    self._eof = True
                    self._ready.extend(self.decoder.close())
                else:
                    self._ready.extend(self.decoder.feed(data))
            except RemoteProtocolError as exc:
                # Hand out what came before the problem first, then the error.
                self._ready.extend(exc.events)
                exc.events = []
                self._error = exc

    async def receive(self) -> T:
        if not self._ready:
            await self._fill()
        return self._ready.popleft()

    async def receive_batch(self) -> list[T]:
        """Every item decoded so far (at least one): cheaper than one
        ``receive()`` per event when a consumer can take them together, for
        instance to apply them to a Msg with ``extend_events`` or to redraw a
        UI once per batch."""
        if not self._ready:
            await self._fill()
        batch = list(self._ready)
        self._ready.clear()
        return batch

    async def aclose(self) -> None:
        await self.transport.aclose()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return self.transport.extra_attributes


def _step(step: Callable[..., list[T]], *args: Any) -> tuple[list[T], RemoteProtocolError | None]:
    """The items of one decoder step, and its error if it failed (the items
    it carries taken out of it, so that nobody gets them twice)."""
    try:
        return step(*args), None
    except RemoteProtocolError as exc:
        items, exc.events = exc.events, []
        return items, exc


async def iter_events(chunks: AsyncIterable[bytes], decoder: StreamDecoder[T]) -> AsyncGenerator[T, None]:
    """The items ``decoder`` reads from an async iterable of byte chunks,
    then EOF (``decoder.close()``). For sources that are not anyio streams,
    such as ``httpx.Response.aiter_bytes()``. Errors as for EventReceiveStream:
    the items before a problem are yielded, then its error is raised.

    When this generator ends, or is closed early (wrap it in
    ``contextlib.aclosing`` to stop reading before the end), it closes the
    chunks' iterator too, so an HTTP body is released at once. An
    :class:`~wire.framing.SSEDecoder` closed early (even in the middle of what
    one chunk brought) is left at the last item handed out (``took``): its
    ``last_event_id`` resumes after that item, never after one not handed out."""
    feed: Callable[[bytes], list[T]] = decoder.feed
    close: Callable[[], list[T]] = decoder.close
    took: Callable[[int], None] | None = None
    if isinstance(decoder, SSEDecoder):
        feed, close, took = decoder.feed_keeping_ids, decoder.close_keeping_ids, decoder.took
    iterator = aiter(chunks)
    items: list[T] = []
    handed = 0
    stopped = True  # till the chunks end or an error is raised: closed early
    try:
        async for chunk in iterator:
            items, error = _step(feed, chunk)
            handed = 0
            for handed, item in enumerate(items, 1):  # noqa: B007  # read in finally
                yield item
            if error is not None:
                stopped = False
                raise error
        items, error = _step(close)
        handed = 0
        for handed, item in enumerate(items, 1):  # noqa: B007
            yield item
        stopped = False
        if error is not None:
            raise error
    finally:
        if took is not None and stopped and items:
            took(handed)
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()


class EventSendStream(ObjectSendStream[Item]):
    """Events written to a byte stream through one of wire's encoders:
    ``EventSendStream(connection, NDJSONEncoder())``.

    ``send(event)`` writes one frame. ``send_batch(events)`` encodes them all
    into one buffer and writes it once: use it when events come in bursts (a
    replay, a model's buffered output), since every write costs a system call
    and, on TCP, maybe a packet.
    """

    def __init__(self, transport: ByteSendStream, encoder: Encoder) -> None:
        self.transport = transport
        self.encoder = encoder

    async def send(self, item: Item) -> None:
        await self.transport.send(self.encoder.encode(item))

    async def send_batch(self, items: Iterable[Item]) -> None:
        data = self.encoder.encode_batch(items)
        if data:
            await self.transport.send(data)

    async def aclose(self) -> None:
        await self.transport.aclose()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return self.transport.extra_attributes
