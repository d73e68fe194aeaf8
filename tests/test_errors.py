"""Errors: every bad input raises a wire error that says where (a JSON path,
an event index, a byte offset) and keeps msgspec's error as ``__cause__``;
nothing else (msgspec, KeyError, binascii, RecursionError...) escapes.

The fuzz invariant: any bytes either decode or raise ``wire.DecodeError``.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import CASES, catalog_lines, standalone_messages
from wire.framing import NDJSONDecoder, SSEDecoder


def test_the_hierarchy() -> None:
    assert issubclass(wire.DecodeError, wire.RemoteProtocolError)
    assert issubclass(wire.FrameError, wire.RemoteProtocolError)
    assert issubclass(wire.StreamOrderError, wire.RemoteProtocolError)
    assert issubclass(wire.RemoteProtocolError, wire.WireError)
    assert issubclass(wire.LocalProtocolError, wire.WireError)
    assert not issubclass(wire.LocalProtocolError, wire.RemoteProtocolError)
    assert issubclass(wire.EncodeError, wire.WireError)
    assert issubclass(wire.RoleError, wire.WireError) and issubclass(wire.RoleError, ValueError)
    assert issubclass(wire.WireError, Exception)


def test_a_remote_error_says_where_and_keeps_what_came_before() -> None:
    err = wire.DecodeError("Expected `str`", path="$.delta", offset=120, index=3, events=[1, 2, 3])
    assert err.reason == "Expected `str`" and err.events == [1, 2, 3]
    assert str(err) == "Expected `str` (event 3, byte 120, at $.delta)"
    bare = wire.DecodeError("bad")
    assert (bare.path, bare.offset, bare.index, bare.events, str(bare)) == (None, None, None, [], "bad")
    order = wire.StreamOrderError("delta before START", kind="unknown_block", index=4)
    assert order.kind == "unknown_block" and order.index == 4 and "event 4" in str(order)


# -- where: the JSON path -----------------------------------------------------------------------------------

_T = '{"type":"text","text":"a"}'
BAD_MSGS = [
    ("unknown block type", f'{{"name":"n","role":"assistant","content":[{_T},{_T},{{"type":"nope"}}]}}',
     "$.content[2].type", "nope"),
    ("block without a type", f'{{"name":"n","role":"assistant","content":[{_T},{_T},{{"text":"x"}}]}}',
     "$.content[2]", "type"),
    ("missing name", '{"role":"user","content":[]}', "$", "name"),
    ("wrong type", '{"name":"n","role":"user","content":[],"usage":{"input_tokens":"1","output_tokens":1}}',
     "$.usage.input_tokens", "int"),
    ("bad enum", '{"name":"n","role":"assistant","content":[],"finished_reason":"done"}', "$.finished_reason",
     "done"),
    ("nested bad enum", '{"name":"n","role":"assistant","content":[{"type":"tool_call","id":"c","name":"n",'
     '"input":"","suggested_rules":[{"tool_name":"t","rule_content":null,"behavior":"maybe","source":"s"}]}]}',
     "$.content[0].suggested_rules[0].behavior", "maybe"),
    ("bad base64 deep inside", '{"name":"n","role":"assistant","content":[{"type":"tool_result","id":"c",'
     '"name":"n","output":[{"type":"data","source":{"type":"base64","data":"A","media_type":"x"}}]}]}',
     "$.content[0].output[0].source.data", "base64"),
    ("role rule", f'{{"name":"n","role":"system","content":[{_T},{{"type":"thinking","thinking":"x"}}]}}',
     "$.content[1]", "content[1]"),
    ("structured_output not an object", '{"name":"n","role":"user","content":[],"structured_output":[1]}',
     "$.structured_output", "object"),
]


@pytest.mark.parametrize(("data", "path", "word"), [c[1:] for c in BAD_MSGS], ids=[c[0] for c in BAD_MSGS])
def test_a_bad_msg_names_the_path(data: str, path: str, word: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(data.encode())
    assert info.value.path == path
    assert word in info.value.reason and f"at {path}" in str(info.value)
    assert isinstance(info.value.__cause__, msgspec.ValidationError)
    # the same object in MessagePack fails at the same place
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_msg(msgspec.msgpack.encode(json.loads(data)))
    assert info.value.path == path


BAD_EVENTS = [
    ("unknown tag", '{"type":"NOPE","reply_id":"r"}', "$.type"),
    ("no tag", '{"reply_id":"r","block_id":"b","delta":"x"}', "$"),
    ("null delta", '{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b","delta":null}', "$.delta"),
    ("metadata not an object", '{"type":"USER_INTERRUPT","reply_id":"r","metadata":[]}', "$.metadata"),
    ("deep", '{"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"confirmed":true,'
     '"tool_call":{"type":"tool_call","id":"c","name":"n","input":"","state":"bogus"}}]}',
     "$.confirm_results[0].tool_call.state"),
    ("hint item", '{"type":"HINT_BLOCK","reply_id":"r","block_id":"b","hint":[{"type":"text"}]}', "$.hint[0]"),
    ("not an object", "[]", "$"),
]


@pytest.mark.parametrize(("data", "path"), [c[1:] for c in BAD_EVENTS], ids=[c[0] for c in BAD_EVENTS])
def test_a_bad_event_names_the_path(data: str, path: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(data.encode())
    assert info.value.path == path
    assert isinstance(info.value.__cause__, msgspec.ValidationError)


@pytest.mark.parametrize(("data", "offset"), [
    (b"", None), (b'{"type":x}', 8), (b'{"type":"USER_INTERRUPT","reply_id":"r"} x', 41),
    (b'{"type":"USER_INTERRUPT","reply_id":"r"}{}', 40), (b'{"type":', None), (b'{"type":"USER_INTERRUPT",,}', 25)],
    ids=["empty", "not json", "trailing data", "a second object", "truncated", "double comma"])
def test_malformed_json_is_a_decode_error_without_a_path(data: bytes, offset: int | None) -> None:
    """No path; the offset is the first wrong byte (None where the data ended too soon)."""
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(data)
    assert info.value.path is None
    assert info.value.offset == offset
    assert type(info.value.__cause__) is msgspec.DecodeError


_BAD_UTF8 = [b"\xff", b"\xed\xa0\x80", b"\xc3"]  # a stray byte, an encoded surrogate, a cut sequence


@pytest.mark.parametrize("bad", _BAD_UTF8, ids=["stray byte", "encoded surrogate", "cut sequence"])
@pytest.mark.parametrize("decode", ["json.event", "json.msg", "json.events", "msgpack.event", "msgpack.msg",
                                    "msgpack.events"])
def test_invalid_utf8_in_a_string_is_a_decode_error(decode: str, bad: bytes) -> None:
    if decode.startswith("json"):
        data = b'{"type":"USER_INTERRUPT","reply_id":"' + bad + b'"}' if decode != "json.msg" else \
            b'{"name":"' + bad + b'","role":"user","content":[]}'
    else:
        item = (b"\x82\xa4type\xaeUSER_INTERRUPT\xa8reply_id" if decode != "msgpack.msg" else
                b"\x83\xa4role\xa4user\xa7content\x90\xa4name") + bytes([0xa0 | len(bad)]) + bad
        data = b"\x91" + item if decode == "msgpack.events" else item
    module, verb = decode.split(".")
    with pytest.raises(wire.DecodeError) as info:  # msgspec raises UnicodeDecodeError here
        getattr(getattr(wire, module), f"decode_{verb}")(data)
    assert isinstance(info.value.__cause__, UnicodeDecodeError | msgspec.DecodeError)
    assert info.value.offset == data.index(bad)  # the first byte that is not UTF-8


# One event per frame, as NDJSON and SSE write it: what comes before and after an event.
_FRAMES = {"ndjson": (NDJSONDecoder, b"", b"\n"), "sse": (SSEDecoder, b"data: ", b"\n\n")}


@st.composite
def _bad_utf8_streams(draw: st.DrawFn, framing: str) -> tuple[bytes, int, int, list[int]]:
    """Good catalog events, then one whose string value starts with bytes that
    are not UTF-8, then another good one; the stream, the bad event's index,
    the bad bytes' offset and where the chunks end."""
    _, before, after = _FRAMES[framing]
    lines = catalog_lines()
    good = draw(st.lists(st.sampled_from(lines), max_size=4))
    line = draw(st.sampled_from(lines))
    starts = [i + 2 for i in range(len(line)) if line.startswith(b'":"', i)]  # a string value opens there
    at = draw(st.sampled_from(starts))
    bad = draw(st.sampled_from(_BAD_UTF8))
    head = b"".join(before + x + after for x in good) + before
    data = head + line[:at] + bad + line[at:] + after + before + draw(st.sampled_from(lines)) + after
    cuts = sorted(draw(st.sets(st.integers(1, len(data) - 1), max_size=6)))
    return data, len(good), len(head) + at, cuts


@pytest.mark.parametrize("framing", list(_FRAMES))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_invalid_utf8_in_a_stream_names_its_byte_and_keeps_the_events_before(
        framing: str, data: st.DataObject) -> None:
    """Fed in any chunks, a decoder names the bad event and its first bad
    byte in the stream; the events before it are still delivered. The byte
    is named whenever the string holds no escape (its content then stands
    in the line as it is)."""
    stream, index, offset, cuts = data.draw(_bad_utf8_streams(framing))
    decoder = _FRAMES[framing][0]()
    got: list[Any] = []
    with pytest.raises(wire.DecodeError) as info:
        for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
            got += decoder.feed(stream[start:end])
        decoder.close()
    err = info.value
    got += err.events
    assert err.index == index and len(got) == index
    value = stream[offset:stream.index(b'"', offset)]
    assert err.offset == offset if b"\\" not in value else err.offset in (offset, None)


def test_malformed_msgpack_is_a_decode_error() -> None:
    for data in (b"", b"\xc1", b"\x81\xa4type", msgspec.msgpack.encode([1, 2])):
        with pytest.raises(wire.DecodeError) as info:
            wire.msgpack.decode_event(data)
        assert isinstance(info.value.__cause__, msgspec.DecodeError)


# -- nothing else escapes -----------------------------------------------------------------------------------

LINE_OK = b'{"type":"USER_INTERRUPT","reply_id":"r"}'
DECODERS = [wire.json.decode_event, wire.json.decode_msg, wire.json.decode_events,
            wire.msgpack.decode_event, wire.msgpack.decode_msg, wire.msgpack.decode_events]
DECODER_IDS = ["json.event", "json.msg", "json.events", "msgpack.event", "msgpack.msg", "msgpack.events"]


def decodes_or_raises_decode_error(decode: Any, data: bytes) -> None:
    try:
        decode(data)
    except wire.DecodeError as exc:
        assert isinstance(exc.__cause__, msgspec.DecodeError | UnicodeDecodeError)


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("decode", DECODERS, ids=DECODER_IDS)
@FUZZ
@given(data=st.binary(max_size=200))
def test_any_bytes_decode_or_raise_decode_error(decode: Any, data: bytes) -> None:
    decodes_or_raises_decode_error(decode, data)


SEEDS = [line for case in CASES[:4] for line in case.event_lines[:6]] + catalog_lines() + \
    [p.read_bytes() for p in standalone_messages()]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A vector with a few bytes cut, inserted or replaced: mostly-valid input."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["cut", "insert", "replace", "truncate"]))
        if op == "cut":
            del data[i:i + draw(st.integers(1, 8))]
        elif op == "insert":
            data[i:i] = draw(st.sampled_from([b"{", b"}", b"[", b'"', b",", b"null", b"1", b"\\", b"\xff", b'"x":']))
        elif op == "replace" and i < len(data):
            data[i] = draw(st.integers(0, 255))
        else:
            del data[i:]
    return bytes(data)


@pytest.mark.parametrize("decode", [wire.json.decode_event, wire.json.decode_msg, wire.json.decode_events],
                         ids=["event", "msg", "events"])
@FUZZ
@given(data=mutated())
def test_mutated_vectors_decode_or_raise_decode_error(decode: Any, data: bytes) -> None:
    decodes_or_raises_decode_error(decode, data)


_keys = st.sampled_from(["type", "name", "role", "content", "id", "created_at", "metadata", "reply_id", "block_id",
                         "delta", "data", "url", "source", "hint", "output", "state", "thinking", "text", "input",
                         "tool_calls", "media_type", "signature"]) | st.text(max_size=5)
_tags = st.sampled_from([*(m.value for m in wire.EventType), "text", "thinking", "hint", "data", "tool_call",
                         "tool_result", "base64", "url", "user", "assistant", "system"])
_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | _tags | st.text()
_json_like = st.recursive(_scalars,
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=5),
                          max_leaves=20)


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
@FUZZ
@given(value=st.dictionaries(_keys, _json_like, max_size=8))
def test_random_structures_decode_or_raise_decode_error(codec: Any, value: dict[str, Any]) -> None:
    data = msgspec.json.encode(value) if codec is wire.json else msgspec.msgpack.encode(value)
    decodes_or_raises_decode_error(codec.decode_event, data)
    decodes_or_raises_decode_error(codec.decode_msg, data)


# bytes.strip() strips \v and \f, which JSON does not count as whitespace: such a
# line is not blank (the fuzz found decode_events' fallback treating it as blank).
@pytest.mark.parametrize("data", [b"\x0b", b"\x0c\n", LINE_OK + b"\n\x0b\n" + LINE_OK])
def test_a_line_of_vertical_tab_or_form_feed_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(wire.DecodeError):
        wire.json.decode_events(data)




@pytest.mark.parametrize("decode", DECODERS, ids=DECODER_IDS)
def test_deeply_nested_input_is_a_decode_error(decode: Any) -> None:
    depth = 100_000
    if decode in (wire.json.decode_event, wire.json.decode_events):
        data = b'{"type":"CUSTOM","name":"x","value":{"a":' + b"[" * depth + b"]" * depth + b"}}"
    elif decode is wire.json.decode_msg:
        data = b'{"name":"n","role":"user","content":[],"metadata":{"a":' + b"[" * depth + b"]" * depth + b"}}"
    else:
        nested = b"\x91" * depth + b"\x90"  # fixarray of one item, depth times
        event = b"\x83\xa4type\xa6CUSTOM\xa4name\xa1x\xa5value\x81\xa1a" + nested
        msg = b"\x84\xa4name\xa1n\xa4role\xa4user\xa7content\x90\xa8metadata\x81\xa1a" + nested
        data = {wire.msgpack.decode_event: event, wire.msgpack.decode_msg: msg,
                wire.msgpack.decode_events: b"\x91" + event}[decode]
    with pytest.raises(wire.DecodeError):
        decode(data)
