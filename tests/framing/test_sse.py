"""SSE: agentscope's service stream and wire's own read the same under any
chunking; the WHATWG rules (line ends, comments, fields, ids, retry, BOM);
errors with where; limits; raw frames, unknown events; checkpoints."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import CASES, CATALOG, REPLY, cut, general, growth_ratio, initial_msg, run
from tests.strategies import damage, points, reply_streams, sse_tokens
from wire.events import UnknownEvent
from wire.framing import RawFrame, SSEDecoder, SSEEncoder
from wire.resume import CHECKPOINT, checkpoint, read_checkpoint

SSE_CASES = [c for c in CASES if c.sse is not None]


def agentscope_sse(lines: list[bytes], heartbeats: Sequence[int] = ()) -> bytes:
    """Events (JSON lines as agentscope's ``model_dump_json`` writes them) as
    its service sends them: ``json.dumps(..., ensure_ascii=False)`` of the
    dumped dict, no ids, ``:`` heartbeat frames before the given positions."""
    out = []
    for i, line in enumerate(lines):
        if i in heartbeats:
            out.append(b":\n\n")
        payload = json.dumps(json.loads(line), ensure_ascii=False)
        out.append(f"data: {payload}\n\n".encode())
    return b"".join(out)


line_ends = st.sampled_from([b"\n", b"\r\n", b"\r"])


# -- agentscope's stream and wire's, any chunking -------------------------------------------


@pytest.mark.parametrize("case", SSE_CASES, ids=[c.name for c in SSE_CASES])
def test_agentscope_vectors(case: Any) -> None:
    expected = wire.json.decode_events(case.events_jsonl)
    data = case.sse
    assert data.startswith(b"data: {") and b", " in data  # json.dumps' separators
    for size in (1, 2, 3, 64, 4096, len(data)):
        assert run(SSEDecoder(), [data[i:i + size] for i in range(0, len(data), size)]) == (expected, None)
    assert agentscope_sse(case.event_lines) == data  # our model of agentscope's writer is exact


@pytest.mark.parametrize("case", SSE_CASES, ids=[c.name for c in SSE_CASES])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=points, end=line_ends, bom=st.booleans(), beats=st.lists(st.integers(0, 200), max_size=5))
def test_agentscope_vectors_any_chunking_line_end_and_heartbeats(case: Any, cuts: list[int], end: bytes,
                                                                 bom: bool, beats: list[int]) -> None:
    expected = wire.json.decode_events(case.events_jsonl)
    data = agentscope_sse(case.event_lines, beats).replace(b"\n", end)
    if bom:
        data = b"\xef\xbb\xbf" + data
    assert run(SSEDecoder(), cut(data, cuts)) == (expected, None)


@settings(max_examples=60, deadline=None)
@given(events=reply_streams(), cuts=points, end=line_ends)
def test_wire_stream_any_chunking(events: list[wire.AgentEvent], cuts: list[int], end: bytes) -> None:
    events = events + CATALOG
    data = SSEEncoder().encode_batch(events).replace(b"\n", end)
    decoder = SSEDecoder()
    assert run(decoder, cut(data, cuts)) == (events, None)
    assert decoder.last_event_id == str(len(events) - 1)


def test_byte_by_byte_with_crlf_split_between_chunks() -> None:
    data = SSEEncoder().encode_batch(CATALOG).replace(b"\n", b"\r\n")
    chunks = [data[i:i + 1] for i in range(len(data))]
    assert run(SSEDecoder(), chunks) == (CATALOG, None)


def test_utf8_split_anywhere() -> None:
    event = wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="é中😀\u2028")
    data = agentscope_sse([wire.json.encode(event)] * 2)
    for i in range(len(data) + 1):
        assert run(SSEDecoder(), [data[:i], data[i:]]) == ([event, event], None)


# -- the WHATWG rules ------------------------------------------------------------------------

EV = [wire.json.encode(e) for e in CATALOG]


def decode(data: bytes, **kwargs: Any) -> list[Any]:
    items, error = run(SSEDecoder(**kwargs), [data])
    assert error is None, error
    return items


def test_the_reference_decoder_takes_no_fast_path() -> None:
    decoder = general(SSEDecoder())
    assert decoder.feed(b"data: " + EV[0] + b"\n\n") == CATALOG[:1]
    assert decoder._mode == "spec"
    assert decoder._pending == b""


def test_multi_line_data_is_joined_with_lf() -> None:
    text = json.dumps(msgspec.json.decode(EV[0]), indent=2).encode()
    assert text.count(b"\n") > 3
    frame = b"".join(b"data: " + line + b"\n" for line in text.split(b"\n")) + b"\n"
    for end in (b"\n", b"\r\n", b"\r"):
        assert decode(frame.replace(b"\n", end)) == CATALOG[:1]


def test_field_forms() -> None:
    assert decode(b"data:" + EV[0] + b"\n\n") == CATALOG[:1]  # no space after the colon
    assert decode(b"data:  " + EV[0] + b"\n\n") == CATALOG[:1]  # only one space is dropped
    assert decode(b"event: message\ndata: " + EV[0] + b"\nfoo: bar\nfoo\n: note\n\n") == CATALOG[:1]
    assert decode(b"data\n\n") == []  # a field with no colon has an empty value: no event
    assert decode(b"data: \n\ndata:\t\n\n") == []  # blank data: a keep-alive, skipped
    assert decode(b":\n\n:\n\n") == []


def test_ids() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 7\ndata: " + EV[0] + b"\n\n") == CATALOG[:1]
    assert decoder.last_event_id == "7"
    assert decoder.feed(b"data: " + EV[1] + b"\n\n") == CATALOG[1:2]
    assert decoder.last_event_id == "7"  # the id stays until the server sets another
    decoder.feed(b"id: 8\n")
    assert decoder.last_event_id == "7"  # an id counts when its frame is dispatched
    decoder.feed(b"\n")
    assert decoder.last_event_id == "8"  # even a frame with no data sets it
    decoder.feed(b"id: 9\x00\n\n")
    assert decoder.last_event_id == "8"  # an id with NUL is ignored
    decoder.feed(b"id\n\n")
    assert decoder.last_event_id == ""  # an empty id resets it
    decoder.feed("id: é\n\n".encode())
    assert decoder.last_event_id == "é"
    assert SSEDecoder(last_event_id="41").last_event_id == "41"


def test_retry_takes_ascii_digits_only() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"retry: 1500\n\n")
    assert decoder.retry == 1500
    for bad in (b"retry: 15a\n\n", b"retry: -1\n\n", b"retry: \n\n", b"retry: 1.5\n\n",
                "retry: ١٢\n\n".encode()):
        decoder.feed(bad)
        assert decoder.retry == 1500


def test_bom_only_at_the_start() -> None:
    bom = b"\xef\xbb\xbf"
    data = bom + b"data: " + EV[0] + b"\n\n"
    for i in range(len(bom) + 2):
        assert run(SSEDecoder(), [data[:i], data[i:]]) == (CATALOG[:1], None)
    # A second BOM is not dropped: it makes an unknown field name, ignored.
    assert decode(bom + bom + b"data: " + EV[0] + b"\n\n") == []
    # Fewer bytes than a BOM at EOF are just bytes.
    assert run(SSEDecoder(), [b"\xef\xbb"])[1] == ("FrameError", 0, 0)


def test_cr_at_chunk_end_is_one_line_end_with_the_lf_after_it() -> None:
    frame = b"data: " + EV[0] + b"\r\n\r\n"
    for i in range(len(frame) + 1):
        assert run(SSEDecoder(), [frame[:i], frame[i:]]) == (CATALOG[:1], None)
    # CR CR is a blank line: the frame ends there.
    assert decode(b"data: " + EV[0] + b"\r\rdata: " + EV[1] + b"\r\r") == CATALOG[:2]


@pytest.mark.parametrize("ends", [
    (b"\r\n", b"\r\n", b"\r\n", b"\r\n"),  # CRLF throughout
    (b"\r\n", b"\r", b"\r", b"\r"),  # a blank line's CR without its LF, then CR alone
    (b"\r", b"\r", b"\r\n", b"\r\n"),  # CR alone first, CRLF after
    (b"\n", b"\r\n", b"\r\n", b"\n"),  # LF and CRLF mixed
])
def test_line_ends_mixed(ends: tuple[bytes, ...]) -> None:
    """Each line end the spec allows, in any mix: both events, under any
    cut, as the general parser reads them."""
    stream = b"data: " + EV[0] + ends[0] + ends[1] + b"data: " + EV[1] + ends[2] + ends[3]
    expected = run(general(SSEDecoder()), [stream])
    assert expected == (CATALOG[:2], None)
    assert run(SSEDecoder(), [stream[i:i + 1] for i in range(len(stream))]) == expected
    for i in range(len(stream) + 1):
        assert run(SSEDecoder(), [stream[:i], stream[i:]]) == expected


def test_eof_rules() -> None:
    assert decode(b"data: " + EV[0] + b"\n\n:partial comment") == CATALOG[:1]
    assert decode(b"data: " + EV[0] + b"\n\n\n\n") == CATALOG[:1]
    for tail in (b"data: " + EV[1], b"data: " + EV[1] + b"\n", b"id: 3\n", b"da"):
        items, error = run(SSEDecoder(), [b"data: " + EV[0] + b"\n\n" + tail])
        assert items == CATALOG[:1]
        assert error == ("FrameError", len(EV[0]) + 8, 1)


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [
    b"garbage", b"[1, 2]", b'{"type": "TEXT_BLOCK_DELTA"}', b'{"delta": "\xff"}', b'{"type": "FUTURE"}',
    b'{"type": "CUSTOM", "name": "x"} {"type": "CUSTOM", "name": "y"}',
])
@pytest.mark.parametrize("ids", [False, True])
def test_bad_payload_says_where(bad: bytes, ids: bool) -> None:
    encoder = SSEEncoder(next_id=0 if ids else None)
    prefix = encoder.encode(CATALOG[0]) + b":\n\n" + encoder.encode(CATALOG[1])
    frame_head = b"id: 2\ndata: " if ids else b"data: "
    data = prefix + frame_head + bad + b"\n\n" + encoder.encode(CATALOG[2])
    start = len(prefix) + len(frame_head)
    for size in (1, 7, len(data)):
        decoder = SSEDecoder()
        items, error = run(decoder, [data[i:i + size] for i in range(0, len(data), size)])
        assert items == CATALOG[:2]
        assert error is not None and error[0] == "DecodeError" and error[2] == 2
        assert error[1] is not None and start <= error[1] < start + len(bad)
        assert decoder.last_event_id == ("1" if ids else "")
        with pytest.raises(wire.LocalProtocolError):
            decoder.feed(b"")
        with pytest.raises(wire.LocalProtocolError):
            decoder.close()


def test_bad_id_is_a_frame_error() -> None:
    data = b"data: " + EV[0] + b"\n\nid: \xff\ndata: " + EV[1] + b"\n\n"
    assert run(SSEDecoder(), [data]) == (CATALOG[:1], ("FrameError", len(EV[0]) + 8, 1))


def test_multi_line_payload_error_points_at_the_payload() -> None:
    data = b"data: " + EV[0] + b"\n\ndata: {\"type\":\ndata: 5}\n\n"
    assert run(SSEDecoder(), [data]) == (CATALOG[:1], ("DecodeError", len(EV[0]) + 8 + 6, 1))


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=200), cuts=points)
def test_arbitrary_bytes(data: bytes, cuts: list[int]) -> None:
    whole = run(SSEDecoder(), [data])  # anything but wire's errors propagates and fails
    assert run(SSEDecoder(), cut(data, cuts)) == whole


@settings(max_examples=200, deadline=None)
@given(mutations=damage, cuts=points, ids=st.booleans(), raw=st.booleans(),
       unknown=st.sampled_from(["raise", "skip", "keep"]))
def test_damaged_streams(mutations: list[tuple[int, int, bytes]], cuts: list[int], ids: bool, raw: bool,
                         unknown: str) -> None:
    """Same outcome under any chunking, and (when the damage added no CR)
    with CRLF line ends: the offsets move, the events and the index do not."""
    data = bytearray(SSEEncoder(next_id=0 if ids else None).encode_batch(CATALOG[:8]))
    for pos, delete, insert in mutations:
        pos %= len(data) + 1
        data[pos:pos + delete] = insert
    stream = bytes(data)

    def new() -> Any:
        return SSEDecoder(raw=True, max_frame_bytes=700) if raw else SSEDecoder(unknown=unknown,  # type: ignore[call-overload]
                                                                                   max_frame_bytes=700)

    whole = run(new(), [stream])
    assert run(new(), cut(stream, cuts)) == whole
    if b"\r" not in stream:
        items, error = run(new(), [stream.replace(b"\n", b"\r\n")])
        assert items == whole[0]
        assert (error and (error[0], error[2])) == (whole[1] and (whole[1][0], whole[1][2]))


def reference(data: bytes) -> tuple[list[bytes], str]:
    """The spec's parsing of a whole stream, written as plainly as it reads:
    each message's data, and the last event id. wire also skips a message
    whose data is only whitespace (it holds no event)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    messages: list[bytes] = []
    buffer, id_buffer, last_id = b"", "", ""
    for line in re.split(rb"\r\n|\r|\n", data)[:-1]:  # the last piece has no line end
        if not line:
            last_id = id_buffer
            if buffer:
                payload = buffer[:-1]
                if payload.strip(b" \t\r\n"):
                    messages.append(payload)
            buffer = b""
            continue
        if line.startswith(b":"):
            continue
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"data":
            buffer += value + b"\n"
        elif field == b"id" and b"\0" not in value:
            id_buffer = value.decode()
    return messages, last_id


@settings(max_examples=300, deadline=None)
@given(data=sse_tokens, cuts=points, raw=st.booleans(), unknown=st.sampled_from(["raise", "skip", "keep"]),
       limit=st.integers(1, 80))
def test_token_streams(data: bytes, cuts: list[int], raw: bool, unknown: str, limit: int) -> None:
    """Streams made of SSE's own tokens: the same outcome, ids and retry under
    any chunking; and where wire reads a stream without error, its messages
    and last id are the plain reading's."""
    def new() -> Any:
        if raw:
            return SSEDecoder(raw=True, max_frame_bytes=limit)
        return SSEDecoder(unknown=unknown, max_frame_bytes=limit)  # type: ignore[call-overload]

    first, second = new(), new()
    whole = run(first, [data])
    assert run(second, cut(data, cuts)) == whole
    if whole[1] is None:
        assert (first.last_event_id, first.retry) == (second.last_event_id, second.retry)
        raw_frames, error = run(SSEDecoder(raw=True), [data])
        assert error is None
        assert ([f.payload for f in raw_frames], first.last_event_id) == reference(data)


@settings(max_examples=300, deadline=None)
@given(tokens=sse_tokens, mutations=damage, crlf=st.booleans(), cuts=points, raw=st.booleans(),
       limit=st.sampled_from([40, 300, 700]))
def test_fast_paths_read_as_the_general_parser(tokens: bytes, mutations: list[tuple[int, int, bytes]], crlf: bool,
                                               cuts: list[int], raw: bool, limit: int) -> None:
    """Whatever path a region takes (LF or CRLF fast paths, or the general
    parser), the events, the error with its offset and index, the last id and
    the retry are what the general parser alone gives."""
    data = bytearray(SSEEncoder(next_id=0).encode_batch(CATALOG[:6]))
    if crlf:
        data = bytearray(data.replace(b"\n", b"\r\n"))
    for pos, delete, insert in mutations:
        pos %= len(data) + 1
        data[pos:pos + delete] = insert
    stream = bytes(data) + tokens

    def new() -> Any:
        return SSEDecoder(raw=True, max_frame_bytes=limit) if raw else SSEDecoder(max_frame_bytes=limit)

    fast, reference_decoder = new(), general(new())
    outcome = run(fast, cut(stream, cuts))
    assert outcome == run(reference_decoder, [stream])
    if outcome[1] is None:
        assert (fast.last_event_id, fast.retry) == (reference_decoder.last_event_id, reference_decoder.retry)


# -- limits -----------------------------------------------------------------------------------


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_frame_limit_same_error_however_it_arrives(end: bytes) -> None:
    long = wire.json.encode(wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="x" * 500))
    head = (b"data: " + EV[0] + b"\n\n").replace(b"\n", end)
    data = head + (b": c\ndata: " + long + b"\n\n" + b"data: " + EV[1] + b"\n\n").replace(b"\n", end)
    frame_size = len(b": c\ndata: " + long + b"\n") + 2 * (len(end) - 1)
    frame_end = data.index(b"\n\n", len(head)) + 2 if end == b"\n" else data.index(b"\r\n\r\n", len(head)) + 4
    one_chunk_each = [head, data[len(head):frame_end], data[frame_end:]]
    for chunks in [[data[i:i + size] for i in range(0, len(data), size)] for size in (1, 50, len(data))] + [
            one_chunk_each]:
        assert run(SSEDecoder(max_frame_bytes=frame_size - 1), chunks) == (CATALOG[:1], ("FrameError", len(head), 1))
        assert run(SSEDecoder(max_frame_bytes=frame_size), chunks)[1] is None
    # a plain single frame in one chunk, one byte over the limit
    frame = b"data: " + long + b"\n\n"
    assert run(SSEDecoder(max_frame_bytes=len(frame) - 2), [head, frame])[1] == ("FrameError", len(head), 1)
    assert run(SSEDecoder(max_frame_bytes=len(frame) - 1), [head, frame])[1] is None


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 12), ids=st.booleans(), slack=st.integers(-3, 3), cuts=points, raw=st.booleans(),
       beats=st.booleans())
def test_limit_near_frame_sizes(n: int, ids: bool, slack: int, cuts: list[int], raw: bool, beats: bool) -> None:
    """A limit around the frames' sizes: the same outcome whole, cut anywhere,
    and one frame per chunk (which takes the single-frame path)."""
    data = SSEEncoder(next_id=0 if ids else None).encode_batch(CATALOG[:n])
    if beats:
        data = data.replace(b"\n\nid", b"\n\n:\n\nid").replace(b"\n\ndata", b"\n\n:\n\ndata")
    sizes = sorted(len(f) + 1 for f in data.split(b"\n\n") if f)  # a frame counts its last line's LF
    limit = max(1, sizes[len(sizes) // 2] + slack)

    def new() -> Any:
        return SSEDecoder(raw=True, max_frame_bytes=limit) if raw else SSEDecoder(max_frame_bytes=limit)

    whole = run(new(), [data])
    assert run(new(), cut(data, cuts)) == whole
    assert run(new(), [f + b"\n\n" for f in data.split(b"\n\n") if f]) == whole


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
@pytest.mark.parametrize("damage_at", [None, 0.0, 0.3, 0.7, 1.0])
def test_big_buffer_in_one_feed(end: bytes, damage_at: float | None) -> None:
    """A buffer of several 64 KiB windows fed at once gives what small chunks
    give; an error in a later window carries the events of the earlier ones."""
    items: list[Any] = CATALOG * 40
    if damage_at is not None:  # a frame whose data is no event
        items.insert(int(len(items) * damage_at), RawFrame(b"{oops"))
    data = SSEEncoder().encode_batch(items).replace(b"\n", end)
    assert len(data) > 3 * 64 * 1024
    chunked = run(SSEDecoder(), [data[i:i + 4096] for i in range(0, len(data), 4096)])
    assert (chunked[1] is None) == (damage_at is None)
    assert run(SSEDecoder(), [data]) == chunked


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_empty_feeds_change_nothing(end: bytes) -> None:
    """Empty chunks between the others, next to a frame exactly at the limit
    that follows an extra blank line (whose line end is not the frame's)."""
    frame = (b"data: " + EV[1] + b"\n").replace(b"\n", end)
    stream = frame + end + end + frame + end
    cuts = [0, len(frame) + len(end), len(frame) + len(end), len(frame) + len(end), len(stream) - 2 * len(end),
            len(stream) - len(end), len(stream)]
    chunks = [stream[a:b] for a, b in pairwise(cuts)]
    assert b"" in chunks
    expected = run(general(SSEDecoder(max_frame_bytes=len(frame))), [stream])
    assert expected == (CATALOG[1:2] * 2, None)
    assert run(SSEDecoder(max_frame_bytes=len(frame)), chunks) == expected


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_linear_time_with_tiny_chunks(end: bytes) -> None:
    """One big frame fed one byte at a time: four times the bytes take about
    four times as long (a parser that re-scanned its buffer for every chunk
    would take about sixteen times as long)."""
    def one_byte_feeds(size: int) -> Callable[[], None]:
        big = wire.DataBlockDeltaEvent(reply_id="r", block_id="b", media_type="x/y", data=b"\1" * size)
        data = SSEEncoder().encode(big).replace(b"\n", end)
        chunks = [data[i:i + 1] for i in range(len(data))]
        decoder = SSEDecoder()

        def feed_all() -> None:
            feed = decoder.feed
            items = []
            for chunk in chunks:
                items += feed(chunk)
            assert items == [big]

        return feed_all

    ratio = growth_ratio(one_byte_feeds, 50_000)
    assert ratio < 8, f"4x the bytes took {ratio:.1f}x the time"


# -- encoder, raw frames, unknown events -------------------------------------------------------


def test_encoder_ids_and_paths() -> None:
    encoder = SSEEncoder(next_id=5)
    assert encoder.encode(CATALOG[0]) == b"id: 5\ndata: " + EV[0] + b"\n\n"
    buf = bytearray()
    encoder.encode_into(CATALOG[1], buf)
    assert bytes(buf) == b"id: 6\ndata: " + EV[1] + b"\n\n"
    assert encoder.next_id == 7
    with pytest.raises(wire.EncodeError):
        encoder.encode(wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="\ud800"))
    with pytest.raises(wire.EncodeError):
        encoder.encode_into(wire.TextBlockDeltaEvent(reply_id="r", block_id="b", delta="\ud800"), buf)
    assert encoder.next_id == 7 and bytes(buf) == b"id: 6\ndata: " + EV[1] + b"\n\n"
    assert SSEEncoder(next_id=None).encode_batch(CATALOG[:2]) == b"".join(b"data: " + e + b"\n\n" for e in EV[:2])
    assert SSEEncoder().encode_batch(CATALOG) == b"".join(map(SSEEncoder().encode, CATALOG))
    assert SSEEncoder.comment() == b":\n\n" and SSEEncoder.comment("hi") == b":hi\n\n"
    assert SSEEncoder.retry(3000) == b"retry: 3000\n\n"
    with pytest.raises(wire.EncodeError):
        SSEEncoder.comment("a\nb")
    with pytest.raises(wire.EncodeError):
        SSEEncoder.retry(-1)


def test_raw_frames_round_trip() -> None:
    data = SSEEncoder().encode_batch(CATALOG)
    frames = decode(data, raw=True)
    assert [f.payload for f in frames] == EV
    assert SSEEncoder().encode_batch(frames) == data
    multi = b"data: {\ndata:  \"a\": 1}\n\n"
    frames = decode(multi, raw=True)
    assert frames == [RawFrame(b'{\n "a": 1}')]
    again = SSEEncoder(next_id=None).encode(frames[0])
    assert decode(again, raw=True) == frames
    for payload in (b"", b" \n "):
        with pytest.raises(wire.EncodeError):
            SSEEncoder().encode(RawFrame(payload))
    # A line break SSE data cannot hold (CR, CRLF: JSON whitespace) starts another data line; the
    # payload comes back with LF there, the same JSON.
    crlf = b'{"type":\r"CUSTOM",\r\n"name": "x"}'
    (back,) = decode(SSEEncoder().encode(RawFrame(crlf)), raw=True)
    assert bytes(back.payload) == b'{"type":\n"CUSTOM",\n"name": "x"}'
    assert json.loads(bytes(back.payload)) == json.loads(crlf)


def test_entries_carry_the_store_ids_and_leave_the_counter_alone() -> None:
    encoder = SSEEncoder(next_id=7)
    raw = [RawFrame(payload) for payload in EV[:3]]
    for items in (CATALOG[:3], raw):
        body = encoder.encode_entries(["a-1", b"1700-0", ""], items)
        assert [line for line in body.split(b"\n") if line.startswith(b"id:")] == [b"id: a-1", b"id: 1700-0", b"id: "]
        assert decode(body) == CATALOG[:3]
    assert encoder.next_id == 7
    for bad in ("a\nb", "a\rb", "a\0b"):
        with pytest.raises(wire.EncodeError):
            encoder.encode_entries([bad], CATALOG[:1])
    with pytest.raises(ValueError):
        encoder.encode_entries(["1"], CATALOG[:2])


def test_unknown_events_kept_and_written_back() -> None:
    future = b'{"type": "FUTURE_EVENT", "x": [1, "\xc3\xa9"]}'
    data = b"data: " + EV[0] + b"\n\ndata: " + future + b"\n\n"
    assert run(SSEDecoder(), [data])[1] == ("DecodeError", len(EV[0]) + 14, 1)
    assert decode(data, unknown="skip") == CATALOG[:1]
    kept = decode(data, unknown="keep")
    assert kept == [CATALOG[0], UnknownEvent("FUTURE_EVENT", future, "json")]
    assert SSEEncoder(next_id=None).encode_batch(kept) == data


# -- checkpoints --------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(events=reply_streams(), at=st.integers(0, 1000))
def test_checkpoint_resume_equals_uninterrupted(events: list[wire.AgentEvent], at: int) -> None:
    at %= len(events) + 1
    full = initial_msg().extend_events(events)
    half = initial_msg().extend_events(events[:at])
    event = checkpoint(half)
    assert event.name == CHECKPOINT
    taken = wire.json.encode(event)
    half.extend_events(events[at:])  # the live Msg goes on; the checkpoint must not
    assert wire.json.encode(event) == taken
    for carried in (event, *(codec.decode_event(codec.encode(event)) for codec in (wire.json, wire.msgpack))):
        resumed = read_checkpoint(carried)
        assert resumed is not None
        resumed.extend_events(events[at:])
        assert resumed == full
        assert wire.json.encode(resumed) == wire.json.encode(full)


def test_read_checkpoint_of_other_events() -> None:
    assert read_checkpoint(CATALOG[0]) is None
    assert read_checkpoint(wire.CustomEvent(name="other", value={"msg": {}})) is None
    with pytest.raises(wire.DecodeError):
        read_checkpoint(wire.CustomEvent(name=CHECKPOINT, value={}))
    with pytest.raises(wire.DecodeError):
        read_checkpoint(wire.CustomEvent(name=CHECKPOINT, value={"msg": {"role": "robot"}}))
    assert REPLY  # the strategies' reply id, used by initial_msg


def test_a_checkpoint_of_a_msg_json_cannot_carry_is_a_decode_error_when_read() -> None:
    msg = wire.AssistantMsg("bot", [wire.TextBlock(text="lone \ud800")], id=REPLY, created_at="c")
    with pytest.raises(wire.DecodeError) as info:
        read_checkpoint(checkpoint(msg))
    assert info.value.path == "$.value.msg"
