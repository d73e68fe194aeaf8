"""anyio adapters on asyncio and trio (wire.transports.streams): event streams
over byte streams, raw relays, and the async-iterable loop."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import aclosing

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.buffered import BufferedByteReceiveStream

import wire
from tests.helpers import CATALOG
from wire.framing import (
    FRAMINGS,
    MsgpackFrameDecoder,
    MsgpackFrameEncoder,
    NDJSONDecoder,
    NDJSONEncoder,
    RawFrame,
    SSEDecoder,
    SSEEncoder,
)
from wire.transports.streams import EventReceiveStream, EventSendStream, iter_events

pytestmark = pytest.mark.anyio


class Chunks(ByteReceiveStream):
    """A byte stream that yields the given chunks, then EOF."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = deque(chunks)
        self.closed = False

    async def receive(self, max_bytes: int = 65536) -> bytes:
        await anyio.lowlevel.checkpoint()
        if not self.chunks:
            raise anyio.EndOfStream
        chunk = self.chunks.popleft()
        if len(chunk) > max_bytes:
            self.chunks.appendleft(chunk[max_bytes:])
            chunk = chunk[:max_bytes]
        return chunk

    async def aclose(self) -> None:
        self.closed = True


class Sink(ByteSendStream):
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    async def send(self, item: bytes) -> None:
        await anyio.lowlevel.checkpoint()
        self.writes.append(item)

    async def aclose(self) -> None:
        self.closed = True


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


# -- EventReceiveStream / EventSendStream --------------------------------------------------


@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("size", [1, 7, 4096])
async def test_receive_stream(framing: str, size: int) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    transport = Chunks(chunked(encoder_type().encode_batch(CATALOG), size))
    stream = EventReceiveStream(transport, decoder_type(), receive_size=5)
    got = [event async for event in stream]
    assert got == CATALOG
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()
    await stream.aclose()
    assert transport.closed


async def test_receive_batch() -> None:
    stream = EventReceiveStream(Chunks([NDJSONEncoder().encode_batch(CATALOG)]), NDJSONDecoder())
    assert await stream.receive() == CATALOG[0]
    assert await stream.receive_batch() == CATALOG[1:]
    with pytest.raises(anyio.EndOfStream):
        await stream.receive_batch()


@pytest.mark.parametrize("size", [1, 1000])
async def test_events_before_an_error_come_first(size: int) -> None:
    data = NDJSONEncoder().encode_batch(CATALOG[:3]) + b"{not json}\n" + NDJSONEncoder().encode(CATALOG[3])
    stream = EventReceiveStream(Chunks(chunked(data, size)), NDJSONDecoder())
    got = []
    with pytest.raises(wire.DecodeError) as info:
        async for event in stream:
            got.append(event)
    assert got == CATALOG[:3]
    assert info.value.index == 3 and info.value.offset == data.index(b"{not") + 1  # at "n"
    with pytest.raises(wire.DecodeError):  # the stream stays broken
        await stream.receive()


async def test_truncated_stream_ends_with_frame_error() -> None:
    data = MsgpackFrameEncoder().encode_batch(CATALOG[:2])[:-1]
    stream = EventReceiveStream(Chunks([data]), MsgpackFrameDecoder())
    assert await stream.receive() == CATALOG[0]
    with pytest.raises(wire.FrameError):
        await stream.receive()


@pytest.mark.parametrize("framing", FRAMINGS)
async def test_send_stream(framing: str) -> None:
    encoder_type, decoder_type = FRAMINGS[framing].encoder, FRAMINGS[framing].decoder
    sink = Sink()
    stream = EventSendStream(sink, encoder_type())
    await stream.send(CATALOG[0])
    await stream.send_batch(CATALOG[1:])
    await stream.send_batch([])
    assert len(sink.writes) == 2
    await stream.aclose()
    assert sink.closed
    decoder = decoder_type()
    assert decoder.feed(b"".join(sink.writes)) + decoder.close() == CATALOG


async def test_raw_relay_over_memory_streams() -> None:
    """A relay reads raw frames and writes them on unchanged."""
    data = SSEEncoder().encode_batch(CATALOG)
    send, receive = anyio.create_memory_object_stream[bytes](10)
    sink = Sink()
    async with anyio.create_task_group() as tg:
        async def produce() -> None:
            async with send:
                for chunk in chunked(data, 333):
                    await send.send(chunk)
        tg.start_soon(produce)
        inbound = EventReceiveStream(BufferedByteReceiveStream(receive), SSEDecoder(raw=True))
        outbound = EventSendStream(sink, SSEEncoder())
        async with inbound:
            async for frame in inbound:
                assert type(frame) is RawFrame
                await outbound.send(frame)
    assert b"".join(sink.writes) == data
    assert inbound.extra_attributes == {}


# -- iter_events ----------------------------------------------------------------------------------


async def _agen(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await anyio.lowlevel.checkpoint()
        yield chunk


async def test_iter_events() -> None:
    data = SSEEncoder().encode_batch(CATALOG)
    assert [e async for e in iter_events(_agen(chunked(data, 10)), SSEDecoder())] == CATALOG


@pytest.mark.parametrize("tail", [b"data: {oops}\n\n", b"data: {}"])
async def test_iter_events_error_after_the_good_events(tail: bytes) -> None:
    data = SSEEncoder(next_id=None).encode_batch(CATALOG[:2]) + tail
    got = []
    with pytest.raises(wire.RemoteProtocolError) as info:
        async for event in iter_events(_agen([data]), SSEDecoder()):
            got.append(event)
    assert got == CATALOG[:2] and info.value.index == 2


def _frames_with_ids(shape: str) -> list[bytes]:
    """Frames of CATALOG's events, each ending in a blank line: every one with
    an id (the fast paths), some without one and an id-only frame between
    (the id in force moves without an event), and CRLF or comment lines (the
    CRLF and spec parser paths)."""
    frames = []
    for i, event in enumerate(CATALOG):
        data = b"data: " + wire.json.encode(event) + b"\n\n"
        if shape == "every":
            frames.append(b"id: e%d\n" % i + data)
        elif shape == "some":
            frames.append((b"id: e%d\n" % i if i % 3 == 0 else b"") + data)
            if i % 4 == 1:
                frames.append(b"id: x%d\n\n" % i)
        elif shape == "crlf":
            frames.append((b"id: e%d\n" % i + data).replace(b"\n", b"\r\n"))
        else:
            frames.append(b": tick\nid: e%d\n" % i + data)
    return frames


@pytest.mark.parametrize("shape", ["every", "some", "crlf", "spec"])
@pytest.mark.parametrize("size", [1 << 20, 100])
async def test_an_sse_consumer_that_stops_mid_chunk_resumes_after_what_it_took(shape: str, size: int) -> None:
    """The resume position is the last event the consumer took, never one
    it was not handed: a loop that breaks in the middle of what one chunk
    brought leaves ``last_event_id`` at its last event (issue 30)."""
    frames = _frames_with_ids(shape)
    # The id in force after each event, read one frame at a time.
    reference = SSEDecoder(last_event_id="start")
    expected = []
    for frame in frames:
        for _ in reference.feed(frame):
            expected.append(reference.last_event_id)
    assert len(expected) == len(CATALOG) > 10
    for taken in range(1, len(CATALOG)):
        decoder = SSEDecoder(last_event_id="start")
        got = []
        async with aclosing(iter_events(_agen(chunked(b"".join(frames), size)), decoder)) as events:
            async for event in events:
                got.append(event)  # applied: taken
                if len(got) == taken:
                    break
        assert got == CATALOG[:taken]
        assert decoder.last_event_id == expected[taken - 1], taken
