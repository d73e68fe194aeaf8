"""anyio adapters on asyncio and trio: event streams over byte streams, the
async-iterable loop, and the replayable EventLog with SSE resume."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.buffered import BufferedByteReceiveStream

import wire
from tests.helpers import CATALOG, REPLY
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
from wire.resume import CHECKPOINT, read_checkpoint
from wire.stores.memory import EventLog
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


def reply() -> list[wire.AgentEvent]:
    """A small well-formed reply for the strategies' REPLY id."""
    events: list[wire.AgentEvent] = [wire.ReplyStartEvent(session_id="s", reply_id=REPLY, name="a"),
                                     wire.TextBlockStartEvent(reply_id=REPLY, block_id="t")]
    events += [wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="t", delta=f"{i} é中 ") for i in range(300)]
    events += [wire.TextBlockEndEvent(reply_id=REPLY, block_id="t"), wire.ReplyEndEvent(session_id="s", reply_id=REPLY)]
    return events


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


# -- EventLog -----------------------------------------------------------------------------------------


def new_log() -> EventLog:
    return EventLog(wire.AssistantMsg(name="a", content=[], id=REPLY, created_at="t"))


async def test_log_readers_live_and_late() -> None:
    events = reply()
    log = new_log()
    seen: dict[str, list[wire.AgentEvent]] = {"early": [], "late": []}

    async def read(name: str, start: int = 0) -> None:
        async for batch in log.follow(start, max_batch=50):
            assert 0 < len(batch) <= 50
            seen[name] += batch

    async with anyio.create_task_group() as tg:
        tg.start_soon(read, "early")
        await anyio.sleep(0)
        for i, event in enumerate(events):
            log.append(event)
            if i % 40 == 0:
                await anyio.sleep(0)
            if i == 100:
                tg.start_soon(read, "late")
        log.close()
    assert seen == {"early": events, "late": events}
    assert log.msg == new_log().msg.extend_events(events)
    with pytest.raises(RuntimeError):
        log.append(events[0])


async def test_log_pump_and_heartbeat() -> None:
    events = reply()
    log = new_log()
    send, receive = anyio.create_memory_object_stream[wire.AgentEvent](0)
    batches: list[list[wire.AgentEvent]] = []

    async def produce() -> None:
        async with send:
            await send.send(events[0])
            await anyio.sleep(0.3)  # idle: the reader gets heartbeats
            for event in events[1:]:
                await send.send(event)

    async def follow() -> None:
        async for batch in log.follow(heartbeat=0.05):
            batches.append(batch)

    async def pump() -> None:
        async with receive:
            await log.pump(receive)

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        tg.start_soon(produce)
        tg.start_soon(follow)
    assert [] in batches
    assert [e for b in batches for e in b] == events
    assert log.closed


async def test_log_frames_and_extend() -> None:
    log = new_log()
    log.extend(CATALOG[:5])
    log.close()
    chunks = [c async for c in log.frames(NDJSONEncoder(), start=2)]
    assert b"".join(chunks) == NDJSONEncoder().encode_batch(CATALOG[2:5])
    with pytest.raises(RuntimeError):
        log.extend(CATALOG)


async def _sse_events(log: EventLog, last_event_id: str | None = None, **kw: Any) -> tuple[list[Any], str]:
    decoder = SSEDecoder()
    chunks = [c async for c in log.sse(last_event_id, **kw)]
    return decoder.feed(b"".join(chunks)) + decoder.close(), decoder.last_event_id


async def test_log_sse_fresh_checkpoint_and_replay() -> None:
    events = reply()
    log = new_log()
    log.extend(events[:100])
    log.close()

    got, last = await _sse_events(log)
    assert got == events[:100] and last == "99"

    got, last = await _sse_events(log, "42")
    assert [type(e) for e in got] == [wire.CustomEvent]
    assert got[0].name == CHECKPOINT and last == "99"
    assert read_checkpoint(got[0]) == new_log().msg.extend_events(events[:100])

    got, last = await _sse_events(log, "42", resume="replay")
    assert got == events[43:100] and last == "99"
    for bad in ("x", "1000", "١٢"):
        got, _ = await _sse_events(log, bad, resume="replay")
        assert got == events[:100]
    with pytest.raises(ValueError, match="resume"):
        await _sse_events(log, "1", resume="rewind")

    empty = new_log()
    empty.close()
    assert await _sse_events(empty, "3") == ([], "")


async def test_log_sse_heartbeat_comment() -> None:
    log = new_log()
    log.append(CATALOG[0])
    body = log.sse(heartbeat=0.01)
    assert (await body.__anext__()).startswith(b"id: 0\ndata: ")
    assert await body.__anext__() == b":\n\n"
    log.close()
    with pytest.raises(StopAsyncIteration):
        await body.__anext__()
