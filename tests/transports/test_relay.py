"""A relay that routes the frames of interleaved replies to their
subscribers by reply id, without decoding them.

The relay of ``tests/transports/relay_example.py`` (the README's) runs over real TCP on
127.0.0.1, on asyncio and trio: a producer writes several replies' events
interleaved, each subscriber names the reply it wants, and each must receive
exactly the bytes of its reply's frames, in order, as the producer wrote them.
The producer writes some events as agentscope does (spaces after separators,
non-ASCII unescaped) and MessagePack maps in an unusual key order: bytes that
a relay which decoded and re-encoded events would change. The expected bytes
are built here from the producer's payloads, not with wire's encoders.

Below that, the sans-IO parts the relay stands on: raw decoders with
``peek=True`` under any chunking (Hypothesis), and the encoders' batch path for
raw frames against their one-frame path.
"""

from __future__ import annotations

import json
import pickle
import random
import re
import struct
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import msgspec
import pytest
from anyio.abc import SocketAttribute, SocketListener
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from benchmarks.workload import reply_events
from tests.helpers import ROOT, cut, mutate, run
from tests.strategies import edits, points
from tests.transports.relay_example import Decoder, Encoder, relay
from wire.events import AgentEvent
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
from wire.peek import UnknownEnvelope, peek_json, peek_msgpack

README_HEADING = "### A relay: frames routed by reply, bytes untouched"

# -- the workload: several replies, interleaved ------------------------------------------------

REPLY_IDS = [f"reply-{i}" for i in range(4)]
SUBSCRIBED = REPLY_IDS[:3]  # nobody asks for reply-3: its frames are dropped


def future_event(reply_id: str, n: int) -> dict[str, Any]:
    """An event of a type this wire does not know (a newer peer's)."""
    return {"type": "FUTURE_EVENT", "reply_id": reply_id, "n": n, "x": [1, 2.5, None, "é"]}


def agentscope_json(event: AgentEvent) -> bytes:
    """The event as agentscope's service writes JSON: spaces, non-ASCII unescaped."""
    return json.dumps(msgspec.json.decode(wire.json.encode(event)), ensure_ascii=False).encode()


def reordered_msgpack(event: AgentEvent) -> bytes:
    """The event as a MessagePack map with its keys reversed (``type`` last)."""
    fields = msgspec.msgpack.decode(wire.msgpack.encode(event))
    return msgspec.msgpack.encode(dict(reversed(fields.items())))


def interleaved(fmt: str, seed: int = 7) -> list[tuple[str | None, bytes]]:
    """(reply id, payload) of every frame the producer writes: four small
    replies (the benchmark reply's shape at 1 %) merged at random, each in its
    own order, with unknown events and a CUSTOM event (no reply id) among them."""
    rng = random.Random(seed)
    queues: list[list[tuple[str | None, bytes]]] = []
    for i, reply_id in enumerate(REPLY_IDS):
        frames: list[tuple[str | None, bytes]] = []
        for n, event in enumerate(reply_events(seed=i, scale=0.01)):
            event = msgspec.structs.replace(event, reply_id=reply_id)
            if fmt == "json":
                payload = agentscope_json(event) if rng.random() < 0.3 else wire.json.encode(event)
            else:
                payload = reordered_msgpack(event) if rng.random() < 0.3 else wire.msgpack.encode(event)
            frames.append((reply_id, payload))
            if n % 40 == 17:
                codec = json.dumps if fmt == "json" else msgspec.msgpack.encode
                data = codec(future_event(reply_id, n))
                frames.append((reply_id, data.encode() if isinstance(data, str) else data))
        queues.append(frames)
    custom = wire.CustomEvent(name="progress", value={"done": 0.5})
    queues.append([(None, wire.json.encode(custom) if fmt == "json" else wire.msgpack.encode(custom))])
    out: list[tuple[str | None, bytes]] = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        out.append(queue.pop(0))
    return out


def ndjson(payloads: Sequence[bytes]) -> bytes:
    return b"".join(p + b"\n" for p in payloads)


def msgpack_frames(payloads: Sequence[bytes]) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in payloads)


def sse(payloads: Sequence[bytes]) -> bytes:
    return b"".join(b"id: %d\ndata: %s\n\n" % (i, p) for i, p in enumerate(payloads))


# -- the relay over TCP -------------------------------------------------------------------------


async def run_relay(stream: bytes, decoder: Any, new_encoder: Callable[[], Any], *,
                    seed: int = 1) -> tuple[dict[str, bytes], wire.RemoteProtocolError | None]:
    """Relay ``stream`` over loopback TCP to one subscriber per SUBSCRIBED
    reply: what each received, and the wire error that ended the relay."""
    (listener,) = (await anyio.create_tcp_listener(local_host="127.0.0.1")).listeners
    assert isinstance(listener, SocketListener)
    port = listener.extra(SocketAttribute.local_port)
    received: dict[str, bytes] = {}
    errors: list[wire.RemoteProtocolError] = []

    async def serve() -> None:
        try:
            await relay(listener, len(SUBSCRIBED), decoder, new_encoder)
        except wire.RemoteProtocolError as exc:
            errors.append(exc)

    async def subscriber(reply_id: str, connection: Any) -> None:
        async with connection:
            received[reply_id] = b"".join([chunk async for chunk in connection])

    rng = random.Random(seed)
    with anyio.fail_after(60):
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(serve)
            # The relay takes the first connections as subscribers, in the order
            # they connect; the producer connects after them.
            for reply_id in SUBSCRIBED:
                connection = await anyio.connect_tcp("127.0.0.1", port)
                await connection.send(reply_id.encode() + b"\n")
                tg.start_soon(subscriber, reply_id, connection)
            async with await anyio.connect_tcp("127.0.0.1", port) as producer:
                pos = 0
                try:
                    while pos < len(stream):  # writes of any size: frames cut anywhere
                        size = rng.choice([1, 7, 100, 4096, 65536])
                        await producer.send(stream[pos:pos + size])
                        pos += size
                except anyio.BrokenResourceError:
                    pass  # the relay stopped reading at a bad frame (the caller checks it did)
    return received, errors[0] if errors else None


def expected(frames: list[tuple[str | None, bytes]], frame: Callable[[Sequence[bytes]], bytes]) -> dict[str, bytes]:
    return {r: frame([p for reply_id, p in frames if reply_id == r]) for r in SUBSCRIBED}


# (codec, new raw decoder, producer's framing, new encoder, subscriber's framing)
Conversion = tuple[str, Callable[[], Decoder], Callable[[Sequence[bytes]], bytes], Callable[[], Encoder],
                   Callable[[Sequence[bytes]], bytes]]
CONVERSIONS: dict[str, Conversion] = {
    "NDJSON to NDJSON": ("json", lambda: NDJSONDecoder(raw=True, peek=True, unknown="keep"), ndjson,
                         NDJSONEncoder, ndjson),
    "MessagePack to MessagePack": ("msgpack", lambda: MsgpackFrameDecoder(raw=True, peek=True, unknown="keep"),
                                   msgpack_frames, MsgpackFrameEncoder, msgpack_frames),
    "NDJSON to SSE": ("json", lambda: NDJSONDecoder(raw=True, peek=True, unknown="keep"), ndjson,
                      SSEEncoder, sse),
}


@pytest.mark.anyio
@pytest.mark.parametrize("conversion", list(CONVERSIONS))
async def test_relay_routes_each_reply_bytes_untouched(conversion: str) -> None:
    fmt, new_decoder, frame_in, new_encoder, frame_out = CONVERSIONS[conversion]
    frames = interleaved(fmt)
    received, error = await run_relay(frame_in([p for _, p in frames]), new_decoder(), new_encoder)
    assert error is None
    want = expected(frames, frame_out)
    assert received.keys() == want.keys()
    for reply_id in SUBSCRIBED:
        assert received[reply_id] == want[reply_id], reply_id
    # what the check covers: unknown events, and agentscope's JSON beside wire's
    assert all(b"FUTURE_EVENT" in received[r] for r in SUBSCRIBED)
    if fmt == "json":
        assert all(b'"type": "' in received[r] and b'"type":"' in received[r] for r in SUBSCRIBED)


BAD_FRAMES = {
    # (format, the bad payload, where inside it the error is)
    "not JSON": ("json", b"<html>not JSON</html>", 0),
    "a known type with a reply_id that is no string": (
        "json", b'{"type":"TEXT_BLOCK_DELTA","id":"x","created_at":"t","reply_id":5,"block_id":"b","delta":"d"}', 0),
    "JSON cut short": ("json", b'{"type":"TEXT_BLOCK_DELTA","reply_id":"reply-0","delta":"a', 0),
    "not MessagePack": ("msgpack", b"\xc1", 0),
    "a MessagePack event without its type": ("msgpack", msgspec.msgpack.encode({"reply_id": "reply-0"}), 0),
}


@pytest.mark.anyio
@pytest.mark.parametrize("bad", list(BAD_FRAMES))
async def test_relay_stops_at_a_bad_frame_and_forwards_none_of_it(bad: str) -> None:
    fmt, payload, inside = BAD_FRAMES[bad]
    frames = interleaved(fmt)
    at = len(frames) // 2
    frames = [*frames[:at], ("reply-0", payload), *frames[at:]]
    frame = ndjson if fmt == "json" else msgpack_frames
    head = len(frame([p for _, p in frames[:at]])) + (0 if fmt == "json" else 4)  # where the bad payload starts
    decoder = (NDJSONDecoder if fmt == "json" else MsgpackFrameDecoder)(raw=True, peek=True, unknown="keep")
    encoder = NDJSONEncoder if fmt == "json" else MsgpackFrameEncoder
    received, error = await run_relay(frame([p for _, p in frames]), decoder, encoder)
    assert isinstance(error, wire.DecodeError)
    assert (error.offset, error.index) == (head + inside, at)
    assert received == expected(frames[:at], frame)  # every frame before it, nothing of it or after


def test_the_readme_shows_the_tested_relay() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    if README_HEADING not in readme:
        pytest.skip(f"README.md has no {README_HEADING!r} section")
    section = readme.split(README_HEADING, 1)[1]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S)
    assert block is not None, "the relay section has no python block"
    # The README quotes the relay in part (lines starting with "# …" stand for
    # what it leaves out): every quoted piece verbatim, and the routing loop shown.
    source = (ROOT / "tests" / "transports" / "relay_example.py").read_text(encoding="utf-8")
    pieces = [p for p in re.split(r"^\s*# ….*\n", block.group(1), flags=re.M) if p.strip()]
    assert all(piece in source for piece in pieces)
    assert "async def relay(" in block.group(1) and "by_reply[frame.envelope.reply_id]" in block.group(1)


# -- peek=True under any chunking ------------------------------------------------------------------

# How a producer frames payloads, by framing name (the names of wire.framing.FRAMINGS).
FRAMERS: dict[str, Callable[[Sequence[bytes]], bytes]] = {"ndjson": ndjson, "sse": sse, "msgpack": msgpack_frames}
STREAMS = {fmt: interleaved(fmt) for fmt in ("json", "msgpack")}


@pytest.mark.parametrize("framing", FRAMERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=points, start=st.integers(0, 900), n=st.integers(1, 120))
def test_peek_frames_any_chunking(framing: str, cuts: list[int], start: int, n: int) -> None:
    fmt, decoder_type, frame = FRAMINGS[framing].codec, FRAMINGS[framing].decoder, FRAMERS[framing]
    payloads = [p for _, p in STREAMS[fmt][start:start + n]]
    frames, error = run(decoder_type(raw=True, peek=True, unknown="keep"), cut(frame(payloads), cuts))
    assert error is None
    assert [f.payload for f in frames] == payloads
    peek = peek_json if fmt == "json" else peek_msgpack
    assert [f.envelope for f in frames] == [peek(p, unknown="keep") for p in payloads]


@pytest.mark.parametrize("framing", FRAMERS)
@settings(max_examples=150, deadline=None)
@given(mutations=edits, cuts=points, unknown=st.sampled_from(["raise", "skip", "keep"]), crlf=st.booleans())
def test_peek_damaged_streams(framing: str, mutations: list[tuple[int, int, bytes]], cuts: list[int],
                              unknown: str, crlf: bool) -> None:
    """Damaged bytes: the same frames and error whole or cut anywhere; every
    frame's envelope is what wire.peek reads from its payload; and a stream
    that decodes in full peeks in full, to the same number of items."""
    fmt, decoder_type, frame = FRAMINGS[framing].codec, FRAMINGS[framing].decoder, FRAMERS[framing]
    data = frame([p for _, p in STREAMS[fmt][:12]])
    if crlf and framing != "msgpack":
        data = data.replace(b"\n", b"\r\n")
    data = mutate(data, mutations)

    def new() -> Any:
        return decoder_type(raw=True, peek=True, unknown=unknown, max_frame_bytes=700)

    whole = run(new(), [data])
    assert run(new(), cut(data, cuts)) == whole
    peek = peek_json if fmt == "json" else peek_msgpack
    for item in whole[0]:
        assert type(item) is RawFrame and item.envelope == peek(item.payload, unknown="keep")
        assert unknown == "keep" or type(item.envelope) is not UnknownEnvelope
    # (with "keep", full decoding keeps an unknown event whatever its ids; a
    # peek keeps it only with string ids, so only the other policies compare)
    decoded = run(decoder_type(unknown=unknown, max_frame_bytes=700), [data])
    if decoded[1] is None and unknown != "keep":
        assert whole[1] is None and len(whole[0]) == len(decoded[0])


def test_peek_needs_raw() -> None:
    for decoder_type in (NDJSONDecoder, MsgpackFrameDecoder, SSEDecoder):
        with pytest.raises(ValueError, match="raw=True"):
            decoder_type(peek=True)  # type: ignore[call-overload]


def test_peek_unknown_policies() -> None:
    good = wire.json.encode(wire.TextBlockEndEvent(id="e", created_at="t", reply_id="r", block_id="b"))
    future = b'{"type":"FUTURE_EVENT","reply_id":"r","x":1}'
    data = good + b"\n" + future + b"\n" + good + b"\n"
    for size in (1, 10, len(data)):
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        items, error = run(NDJSONDecoder(raw=True, peek=True), chunks)
        assert error == ("DecodeError", len(good) + 1, 1) and [f.payload for f in items] == [good]
        items, error = run(NDJSONDecoder(raw=True, peek=True, unknown="skip"), chunks)
        assert error is None and [f.payload for f in items] == [good, good]
        items, error = run(NDJSONDecoder(raw=True, peek=True, unknown="keep"), chunks)
        assert error is None and [f.payload for f in items] == [good, future, good]
        assert items[1].envelope == UnknownEnvelope(type="FUTURE_EVENT", reply_id="r")
    # an unknown type is kept only with ids that are strings, as wire.peek keeps it
    bad = b'{"type":"FUTURE_EVENT","reply_id":5}\n'
    assert run(NDJSONDecoder(raw=True, peek=True, unknown="keep"), [bad])[1] == ("DecodeError", 0, 0)


# -- RawFrame, and the encoders' batch path for frames ------------------------------------------


def test_raw_frame_is_refused_by_other_encoders() -> None:
    frame = RawFrame(b'{"type":"FUTURE_EVENT"}', envelope=UnknownEnvelope(type="FUTURE_EVENT"))
    for encode in (wire.json.encode, wire.msgpack.encode):
        with pytest.raises(wire.EncodeError, match="cannot encode RawFrame"):
            encode(frame)
    with pytest.raises(wire.EncodeError):
        wire.json.encode_events([frame])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="RawFrame"):
        msgspec.json.encode(frame)
    assert pickle.loads(pickle.dumps(frame)) == frame
    assert repr(frame) == "RawFrame(b'{\"type\":\"FUTURE_EVENT\"}', envelope=UnknownEnvelope(type='FUTURE_EVENT'))"
    with pytest.raises(TypeError):
        RawFrame(b"x", None, None)  # type: ignore[call-arg, arg-type]  # its hidden field is keyword-only


# Payload bytes chosen to hit every check: line breaks, blanks, leading whitespace.
payload_bytes = st.lists(st.sampled_from([b"{", b"}", b" ", b"\t", b"\n", b"\r", b"a", b'"']), max_size=6).map(
    b"".join)


def _outcome(fn: Callable[[], bytes]) -> bytes | str:
    try:
        return fn()
    except wire.EncodeError:
        return "EncodeError"


@pytest.mark.parametrize("framing", FRAMINGS)
@settings(max_examples=200, deadline=None)
@given(payloads=st.lists(payload_bytes, max_size=6), mixed=st.booleans(),
       as_type=st.sampled_from([bytes, bytearray, memoryview]))
def test_batch_of_frames_is_the_frames_one_by_one(framing: str, payloads: list[bytes], mixed: bool,
                                                  as_type: Callable[[bytes], Any]) -> None:
    """encode_batch (joined in C when every item is a frame) writes what
    encode does one item at a time, or fails as it does."""
    items: list[Any] = [RawFrame(as_type(p)) for p in payloads]
    if mixed:
        items.insert(len(items) // 2, wire.TextBlockEndEvent(id="e", created_at="t", reply_id="r", block_id="b"))
    one_by_one, batch = FRAMINGS[framing].encoder(), FRAMINGS[framing].encoder()
    assert _outcome(lambda: batch.encode_batch(items)) == _outcome(
        lambda: b"".join([one_by_one.encode(item) for item in items]))
    if isinstance(batch, SSEEncoder) and isinstance(one_by_one, SSEEncoder):
        assert batch.next_id == one_by_one.next_id


def test_batch_paths_agree_on_the_workload() -> None:
    for fmt, framings in (("json", ("ndjson", "sse")), ("msgpack", ("msgpack",))):
        frames = [RawFrame(p) for _, p in STREAMS[fmt]]
        for framing in framings:
            encoder_type = FRAMINGS[framing].encoder
            data = encoder_type().encode_batch(frames)
            assert data == b"".join(map(encoder_type().encode, frames))
            buf = bytearray()
            encoder = encoder_type()
            for frame in frames:
                encoder.encode_into(frame, buf)
            assert bytes(buf) == data


def test_frame_paths_seldom_taken() -> None:
    assert list(RawFrame(b"{}", envelope=1).__rich_repr__()) == [b"{}", ("envelope", 1)]
    assert list(RawFrame(b"{}").__rich_repr__()) == [b"{}"]
    frames = [RawFrame(b"{}"), RawFrame(b"[1]")]
    assert SSEEncoder(next_id=None).encode_batch(frames) == b"data: {}\n\ndata: [1]\n\n"
    # A blank data frame is no event, whichever path reads it: one frame per
    # chunk (read in place), a run of frames, or the general parser.
    data = b"data: {}\n\ndata:  \n\ndata: [1]\n\n"
    for size in (1, 11, 12, len(data)):
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        assert run(SSEDecoder(raw=True), chunks) == (frames, None)
