"""The codecs: ``wire.json`` and ``wire.msgpack`` with the same verbs.

JSON is compact UTF-8 with the tag first and defaults left out, binary data
as standard padded base64 exactly as agentscope writes it, NDJSON for
streams. MessagePack carries the same field names with binary data as
``bin`` (no base64) and a stream as one array.
"""

from __future__ import annotations

import base64
import datetime
import json
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import MESSAGES, REPLY, expect, initial_msg
from tests.strategies import msgs
from wire.framing import MsgpackFrameDecoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder

VERBS = ("decode_event", "decode_events", "decode_msg", "encode", "encode_events")
LINE = b'{"type":"USER_INTERRUPT","reply_id":"r"}'
INTERRUPT = wire.UserInterruptEvent(id="e", created_at="t", reply_id="r")


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_both_codecs_offer_the_same_verbs(codec: Any) -> None:
    assert set(VERBS) <= set(codec.__all__)
    assert sorted(codec.__all__) == sorted(wire.json.__all__)
    assert all(callable(getattr(codec, verb)) for verb in codec.__all__)


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_encode_takes_any_wire_object(codec: Any) -> None:
    fmt = msgspec.json if codec is wire.json else msgspec.msgpack
    objects: list[tuple[Any, type[Any]]] = [
        (INTERRUPT, wire.UserInterruptEvent),
        (wire.TextBlock(text="x", id="i", created_at="c"), wire.TextBlock),
        (wire.Usage(input_tokens=1, output_tokens=2), wire.Usage),
        (wire.ErrorInfo(message="m"), wire.ErrorInfo),
        (wire.UserMsg("u", "hi", id="m", created_at="c"), wire.Msg),
    ]
    for obj, cls in objects:
        assert fmt.decode(codec.encode(obj), type=cls) == obj


# -- JSON ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [b"", b"\x00", b"\x00\x01\x02", b"\xfb\xff\xbf", b"\xfb\xff", b"RIFFdemo"])
def test_json_writes_binary_data_as_standard_padded_base64(payload: bytes) -> None:
    event = wire.DataBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", media_type="x",
                                     data=payload)
    written = json.loads(wire.json.encode(event))["data"]
    assert written == base64.b64encode(payload).decode("ascii")  # '+' and '/', '=' padding: never URL-safe
    assert expect(wire.DataBlockDeltaEvent, wire.json.decode_event(wire.json.encode(event))).data == payload


def test_json_base64_is_agentscopes_own_text() -> None:
    data = (MESSAGES / "assistant_msg_all_blocks.json").read_bytes()
    msg = wire.json.decode_msg(data)
    sources = [b.source for b in msg.content if isinstance(b, wire.DataBlock)]
    assert [s.data for s in sources if isinstance(s, wire.Base64Source)] == [b"RIFFdemo"]
    assert b'"data":"UklGRmRlbW8="' in data and b'"data":"UklGRmRlbW8="' in wire.json.encode(msg)


INVALID_BASE64 = {
    "url-safe alphabet": "-_-_",
    "url-safe mixed in": "ab-_",
    "missing padding": "AA",
    "short padding": "AA=",
    "padding in the middle": "AA==AA==",
    "space": "A A=",
    "newline": "AA\nAA==",
    "stray characters": "!!!!",
    "length not a multiple of 4": "AAAAA",
}


@pytest.mark.parametrize("text", list(INVALID_BASE64.values()), ids=list(INVALID_BASE64))
def test_invalid_base64_is_a_decode_error_never_dropped(text: str) -> None:
    """agentscope's non-strict b64decode drops characters outside the alphabet
    (so URL-safe base64 silently loses data); wire refuses the input."""
    event = {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "x", "data": text}
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(json.dumps(event).encode())
    assert info.value.path == "$.data"
    assert isinstance(info.value.__cause__, msgspec.ValidationError)
    msg = {"name": "n", "role": "user", "content": [
        {"type": "data", "source": {"type": "base64", "data": text, "media_type": "x"}}]}
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(json.dumps(msg).encode())
    assert info.value.path == "$.content[0].source.data"


def test_json_is_compact_utf8_with_the_tag_first() -> None:
    event = wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="héllo 😀\n\x01")
    data = wire.json.encode(event)
    assert data.startswith(b'{"type":"TEXT_BLOCK_DELTA",')
    assert b", " not in data and b": " not in data
    assert "héllo 😀".encode() in data and b"\\n" in data and b"\\u0001" in data
    block = wire.json.encode(wire.ToolCallBlock(id="c", name="n", input="", created_at="c"))
    assert block.startswith(b'{"type":"tool_call",')


def test_json_leaves_out_fields_that_hold_their_default() -> None:
    written = json.loads(wire.json.encode(wire.ToolCallBlock(id="c", name="n", input="", created_at="c")))
    assert written == {"type": "tool_call", "id": "c", "name": "n", "input": "", "created_at": "c"}
    # but a required, nullable field is always written, and a generated one too
    rule = wire.PermissionRule(tool_name="t", rule_content=None, behavior=wire.PermissionBehavior.DENY, source="s")
    assert json.loads(wire.json.encode(rule)) == {"tool_name": "t", "rule_content": None, "behavior": "deny",
                                                  "source": "s"}
    hint = json.loads(wire.json.encode(wire.HintBlock(hint="h", id="h", created_at="c", finished_at=None)))
    assert hint["finished_at"] is None


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, str])
def test_json_decoders_take_bytes_like_and_str(kind: type[Any]) -> None:
    def wrap(data: bytes) -> Any:
        return data.decode() if kind is str else kind(data)

    assert wire.json.decode_event(wrap(wire.json.encode(INTERRUPT))) == INTERRUPT
    msg = wire.UserMsg("u", "hi", id="m", created_at="c")
    assert wire.json.decode_msg(wrap(wire.json.encode(msg))) == msg
    assert wire.json.decode_events(wrap(wire.json.encode_events([INTERRUPT, INTERRUPT]))) == [INTERRUPT] * 2


# -- NDJSON streams ---------------------------------------------------------------------------------------


def test_encode_events_writes_one_line_per_event() -> None:
    events: list[wire.AgentEvent] = [
        INTERRUPT, wire.TextBlockDeltaEvent(id="e2", created_at="t", reply_id="r", block_id="b", delta="a\nb")]
    data = wire.json.encode_events(events)
    assert data.endswith(b"\n") and data.count(b"\n") == 2
    assert [wire.json.decode_event(line) for line in data.splitlines()] == events
    assert wire.json.encode_events(e for e in events) == data
    assert wire.json.encode_events([]) == b""


@pytest.mark.parametrize("data", [
    b"", b"\n", b"  \n\n", LINE, LINE + b"\n", LINE + b"\r\n" + LINE + b"\r\n", b"\n\n" + LINE + b"\n   \n" + LINE,
], ids=["empty", "newline", "blank lines", "no final newline", "one line", "crlf", "blank lines between"])
def test_decode_events_skips_blank_lines(data: bytes) -> None:
    events = wire.json.decode_events(data)
    assert len(events) == data.count(b"USER_INTERRUPT")
    assert all(isinstance(e, wire.UserInterruptEvent) for e in events)


def test_decode_events_names_the_bad_line_its_offset_and_keeps_the_events_before() -> None:
    good = wire.json.encode(wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="é"))
    data = good + b"\n\n" + good + b"\n" + b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b"}\n' + good
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_events(data)
    err = info.value
    assert err.index == 2 and len(err.events) == 2
    assert err.offset == 2 * len(good) + 3  # the byte where the bad line starts (UTF-8 bytes, blank line counted)
    assert data[err.offset:].startswith(b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b"}')
    assert err.path == "$" and "delta" in err.reason
    assert isinstance(err.__cause__, msgspec.ValidationError)
    assert "event 2" in str(err) and f"byte {err.offset}" in str(err)
    # a str is measured in UTF-8 bytes too
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_events(data.decode())
    assert (info.value.index, info.value.offset) == (2, err.offset)


def test_decode_events_offset_is_the_exact_byte_of_malformed_json() -> None:
    data = LINE + b"\n" + b'{"type":x}\n'
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_events(data)
    assert info.value.index == 1 and len(info.value.events) == 1
    assert info.value.offset == len(LINE) + 1 + data[len(LINE) + 1:].index(b"x")


# -- MessagePack --------------------------------------------------------------------------------------------


def test_msgpack_carries_binary_data_as_bin_without_base64() -> None:
    payload = bytes(range(256)) * 4
    event = wire.DataBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", media_type="x", data=payload)
    data = wire.msgpack.encode(event)
    assert b"\xc5\x04\x00" + payload in data  # bin 16, length 1024, then the raw bytes
    assert base64.b64encode(payload)[:64] not in data
    assert len(data) < len(payload) + 100
    assert wire.msgpack.decode_event(data) == event
    msg = wire.UserMsg("u", [wire.DataBlock(source=wire.Base64Source(data=payload, media_type="x"))])
    assert b"\xc5\x04\x00" + payload in wire.msgpack.encode(msg)
    assert wire.msgpack.decode_msg(wire.msgpack.encode(msg)) == msg


def test_msgpack_uses_the_json_field_names() -> None:
    event = wire.ToolResultDataDeltaEvent(id="e", created_at="t", reply_id="r", tool_call_id="c", block_id="b",
                                          media_type="x", data=b"\x00")
    raw = msgspec.msgpack.decode(wire.msgpack.encode(event))
    written = json.loads(wire.json.encode(event))
    assert list(raw) == list(written) and raw["data"] == b"\x00" and written["data"] == "AA=="


def test_msgpack_takes_bin_not_base64_text() -> None:
    raw = {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "x", "data": "AA=="}
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_event(msgspec.msgpack.encode(raw))
    assert info.value.path == "$.data"


def test_msgpack_event_streams_are_one_array() -> None:
    events: list[wire.AgentEvent] = [INTERRUPT, wire.CustomEvent(id="c", created_at="t", name="x", value={"a": [1, 2]})]
    data = wire.msgpack.encode_events(events)
    assert isinstance(msgspec.msgpack.decode(data), list)
    assert wire.msgpack.decode_events(data) == events
    assert wire.msgpack.encode_events(iter(events)) == data
    assert wire.msgpack.decode_events(wire.msgpack.encode_events([])) == []


def test_msgpack_decode_events_names_the_bad_event_and_keeps_the_events_before() -> None:
    items = [msgspec.to_builtins(INTERRUPT), msgspec.to_builtins(INTERRUPT), {"type": "USER_INTERRUPT"}]
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_events(msgspec.msgpack.encode(items))
    assert info.value.index == 2 and info.value.events == [INTERRUPT, INTERRUPT]
    assert info.value.path == "$" and "reply_id" in info.value.reason


@pytest.mark.parametrize("data", [b"\xc1", b"\x92\xc1", msgspec.msgpack.encode({"a": 1}), b"\x93\x01"],
                         ids=["bad opcode", "bad opcode inside", "not an array", "truncated"])
def test_msgpack_decode_events_rejects_what_is_no_array_of_events(data: bytes) -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_events(data)
    assert isinstance(info.value.__cause__, msgspec.DecodeError)


# -- encoding errors -------------------------------------------------------------------------------------------


def _put(obj: Any, field: str, key: str, value: Any) -> Any:
    """``obj`` with ``value`` put into its free-form ``field`` after it was
    made: the constructors refuse such values (wire._portable)."""
    getattr(obj, field)[key] = value
    return obj


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
@pytest.mark.parametrize("obj", [
    wire.TextBlock(text="lone \ud800 surrogate", id="i", created_at="c"),
    _put(wire.UserMsg("u", "x"), "metadata", "not json", object()),
    _put(wire.CustomEvent(name="x", value={"a": 1}), "value", "complex", 1j),
], ids=["lone surrogate", "object in metadata", "complex in value"])
def test_what_cannot_be_written_is_an_encode_error(codec: Any, obj: Any) -> None:
    with pytest.raises(wire.EncodeError) as info:
        codec.encode(obj)
    assert info.value.__cause__ is not None


def test_an_int_beyond_64_bits_is_refused_when_made_and_an_encode_error_in_msgpack() -> None:
    with pytest.raises(ValueError, match=r"outside -2\*\*63 \.\. 2\*\*64-1, .* - in `value\.big`"):
        wire.CustomEvent(name="x", value={"big": 2**70})
    with pytest.raises(wire.EncodeError):
        wire.msgpack.encode(_put(wire.CustomEvent(name="x", value={"a": 1}), "value", "big", 2**70))


def _signed(**metadata: Any) -> wire.Msg:
    block = wire.ThinkingBlock(thinking="t", id="i", created_at="c")
    block.signature = "s"  # type: ignore[attr-defined]
    msg = wire.AssistantMsg("a", [block], id="m", created_at="c")
    msg.metadata.update(metadata)  # after it was made: the constructor refuses an object
    return msg


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
@pytest.mark.parametrize("bad", [{"x": object()}, {"x": "\ud800"}], ids=["object", "lone surrogate"])
def test_a_msg_with_provider_keys_raises_encode_errors_too(codec: Any, bad: dict[str, Any]) -> None:
    with pytest.raises(wire.EncodeError):
        codec.encode(_signed(**bad))


# -- to_builtins ---------------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(msgs())
def test_to_builtins_is_what_decoding_the_json_gives(msg: wire.Msg) -> None:
    """The same values in the same order, provider keys included: written
    again they are the JSON's bytes."""
    assert msgspec.json.encode(wire.json._to_builtins(msg)) == wire.json.encode(msg)


def test_to_builtins_shares_nothing_with_the_msg() -> None:
    msg = _signed(nested={"list": [1, 2]})
    block = msg.content[0]
    block.signature = {"part": ["s"]}  # type: ignore[union-attr]
    out = wire.json._to_builtins(msg)
    before = msgspec.json.encode(out)
    msg.metadata["nested"]["list"].append(3)
    block.signature["part"].append("t")  # type: ignore[union-attr]
    assert msgspec.json.encode(out) == before != wire.json.encode(msg)


def test_to_builtins_of_what_cannot_be_written_is_an_encode_error() -> None:
    with pytest.raises(wire.EncodeError):
        wire.json._to_builtins(_signed(x=object()))


# -- objects still growing ------------------------------------------------------------------------------------------


def _streamed_call() -> tuple[wire.Msg, wire.ToolCallBlock]:
    msg = wire.AssistantMsg("bot", [], id="r", created_at="c")
    msg.append_event(wire.ToolCallStartEvent(reply_id="r", tool_call_id="c1", tool_call_name="Bash", created_at="c"))
    for part in ('{"command": ', '"ls"}'):
        msg.append_event(wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c1", delta=part))
    msg.append_event(wire.TextBlockStartEvent(reply_id="r", block_id="t", created_at="c"))
    msg.append_event(wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="Hel"))
    msg.append_event(wire.TextBlockDeltaEvent(reply_id="r", block_id="t", delta="lo"))
    call = msg.content[0]
    assert isinstance(call, wire.ToolCallBlock)
    return msg, call


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_a_msg_still_being_reduced_encodes_its_whole_text(codec: Any) -> None:
    msg, _ = _streamed_call()  # nothing has read the blocks: their parts are still pending
    back = codec.decode_msg(codec.encode(msg))
    assert back.content[0].input == '{"command": "ls"}'
    assert back.get_text_content() == "Hello"


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_a_growing_block_encodes_whole_on_its_own(codec: Any) -> None:
    _, call = _streamed_call()
    fmt = msgspec.json if codec is wire.json else msgspec.msgpack
    assert fmt.decode(codec.encode(call))["input"] == '{"command": "ls"}'


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_an_event_carrying_a_growing_block_encodes_the_whole_block(codec: Any) -> None:
    _, call = _streamed_call()
    event = wire.RequireUserConfirmEvent(reply_id="r", tool_calls=[call])
    assert codec.decode_event(codec.encode(event)).tool_calls[0].input == '{"command": "ls"}'
    assert codec.decode_events(codec.encode_events([event]))[0].tool_calls[0].input == '{"command": "ls"}'


def test_a_thinking_block_key_that_is_not_utf8_is_a_decode_error() -> None:
    """msgspec skips an unknown key without reading it, but a thinking block
    keeps every key (provider keys), so the key must be text."""
    data = (b'{"name":"a","role":"assistant","content":[{"type":"text","text":"x"},'
            b'{"type":"thinking","thinking":"t","\x80sig":"s"}]}')
    with pytest.raises(wire.DecodeError) as caught:
        wire.json.decode_msg(data)
    assert caught.value.path == "$.content[1]"
    assert "UTF-8" in caught.value.reason


# -- what one codec decodes, both write ---------------------------------------------------------------

_DELTA = {"type": "TEXT_BLOCK_DELTA", "id": "e", "created_at": "c", "reply_id": REPLY, "block_id": "b", "delta": "x"}
_NOT_PORTABLE = {
    "Ext": msgspec.msgpack.Ext(5, b"\x00"),
    "timestamp": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    "NaN": math.nan,
    "inf": -math.inf,
    "bytes": b"\x00\x01",
    "int key": {1: "a"},
    "deep Ext": [{"k": [msgspec.msgpack.Ext(1, b"")]}],
}


def _msgpack_decoders() -> dict[str, Any]:
    import wire.zerocopy

    def frames(buf: bytes) -> Any:
        decoder = MsgpackFrameDecoder()
        return decoder.feed(len(buf).to_bytes(4, "big") + buf) + decoder.close()

    return {"decode_event": wire.msgpack.decode_event,
            "decode_events": lambda b: wire.msgpack.decode_events(b"\x91" + b),
            "frames": frames, "zerocopy": wire.zerocopy.decode_event}


def _json_decoders() -> dict[str, Any]:
    def stream(decoder: Any, data: bytes) -> Any:
        return decoder.feed(data) + decoder.close()

    return {"decode_event": wire.json.decode_event, "decode_events": wire.json.decode_events,
            "ndjson": lambda b: stream(NDJSONDecoder(), b + b"\n"),
            "sse": lambda b: stream(SSEDecoder(), b"data:" + b + b"\n\n")}


@pytest.mark.parametrize("decoder", list(_msgpack_decoders()))
@pytest.mark.parametrize("value", list(_NOT_PORTABLE))
def test_msgpack_values_json_cannot_carry_are_decode_errors(decoder: str, value: str) -> None:
    for event in ({**_DELTA, "metadata": {"m": _NOT_PORTABLE[value]}},
                  {**_DELTA, "type": "DATA_BLOCK_DELTA", "media_type": "a/b", "data": b"x", "delta": None,
                   "metadata": {"m": _NOT_PORTABLE[value]}}):
        buf = msgspec.msgpack.encode({k: v for k, v in event.items() if v is not None})
        with pytest.raises(wire.DecodeError) as info:
            _msgpack_decoders()[decoder](buf)
        assert info.value.path is not None and info.value.path.startswith("$.metadata.m")


@pytest.mark.parametrize("decoder", list(_json_decoders()))
@pytest.mark.parametrize(("text", "path"), [
    (b'{"type":"CUSTOM","name":"n","value":{"a":[1,{"b":18446744073709551616}]}}', "$.value.a[1].b"),
    (b'{"type":"CUSTOM","name":"n","metadata":{"b":-9223372036854775809}}', "$.metadata.b"),
    (b'{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1' + b"0" * 30 + b',"output_tokens":1}',
     "$.input_tokens"),
    (b'{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":"r","execution_results":[{"type":"tool_result","id":"t",'
     b'"name":"x","output":"o","metadata":{"n":1' + b"0" * 30 + b'}}]}', "$.execution_results[0].metadata.n"),
    # msgspec itself refuses an integer this long, naming the map but not the key
    (b'{"type":"CUSTOM","name":"n","value":{"a":1' + b"0" * 5000 + b'}}', "$.value[...]"),
])
def test_json_integers_messagepack_cannot_carry_are_decode_errors(decoder: str, text: bytes, path: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        _json_decoders()[decoder](text)
    assert info.value.path == path


@pytest.mark.parametrize(("field", "value", "path"), [
    ("metadata", {"x": 2**64}, "$.metadata.x"),
    ("structured_output", {"x": [2**64]}, "$.structured_output.x[0]"),
])
def test_a_msg_with_such_values_is_a_decode_error_in_both_codecs(field: str, value: Any, path: str) -> None:
    text = json.dumps({"name": "a", "role": "assistant", "content": [], field: value}).encode()
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(text)
    assert info.value.path == path
    thinking = {"type": "thinking", "id": "t", "thinking": "x", "signature": {"s": math.inf}}
    buf = msgspec.msgpack.encode({"name": "a", "role": "assistant", "content": [thinking]})
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_msg(buf)
    assert info.value.path == "$.content[0].signature.s"


def test_the_edges_of_the_integer_range_travel_both_ways() -> None:
    event = wire.CustomEvent(name="n", value={"max": 2**64 - 1, "min": -(2**63), "f": 1.5e308}, id="e", created_at="c")
    assert wire.json.decode_event(wire.json.encode(event)) == event
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


# Values a hostile peer might put in metadata: JSON's, plus what only MessagePack has.
_leaves = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=5)
           | st.binary(max_size=4) | st.builds(msgspec.msgpack.Ext, st.integers(0, 127), st.binary(max_size=3))
           | st.integers(-(2**63), 2**63).map(lambda n: datetime.datetime.fromtimestamp(n % 2**32, datetime.UTC)))
_values = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=3) | st.integers(0, 9), inner, max_size=3), max_leaves=12)


@given(st.dictionaries(st.text(max_size=4), _values, max_size=3))
@settings(max_examples=300, deadline=None)
def test_whatever_the_msgpack_decoder_accepts_both_codecs_write(metadata: dict[str, Any]) -> None:
    buf = msgspec.msgpack.encode({**_DELTA, "metadata": metadata})
    try:
        event = wire.msgpack.decode_event(buf)
    except wire.DecodeError:
        return
    assert wire.json.decode_event(wire.json.encode(event)) == event
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


@given(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70))
@settings(max_examples=200, deadline=None)
def test_whatever_the_json_decoder_accepts_both_codecs_write(a: int, b: int) -> None:
    text = json.dumps({"type": "CUSTOM", "name": "n", "value": {"a": a, "b": [b]}}).encode()
    try:
        event = wire.json.decode_event(text)
    except wire.DecodeError as exc:
        assert not (-(2**63) <= a <= 2**64 - 1 and -(2**63) <= b <= 2**64 - 1), exc
        return
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


def test_usage_sums_saturate_at_the_most_both_codecs_write() -> None:
    calls = [wire.ModelCallEndEvent(reply_id=REPLY, input_tokens=2**64 - 1, output_tokens=-(2**63),
                                    cache_input_tokens=2**63) for _ in range(3)]
    msg = initial_msg().extend_events(calls)
    assert msg.usage == wire.Usage(input_tokens=2**64 - 1, output_tokens=-(2**63), cache_input_tokens=2**64 - 1)
    assert wire.msgpack.decode_msg(wire.msgpack.encode(msg)) == wire.json.decode_msg(wire.json.encode(msg)) == msg


# -- Invalid UTF-8 where wire does not read ---------------------------------------------------------


def test_invalid_utf8_in_a_skipped_field_is_accepted_and_never_written_by_wire() -> None:
    line = json.dumps(_DELTA).encode()[:-1] + b',"from_a_newer_agentscope":"\xff\xfe"}'
    event = wire.json.decode_event(line)
    assert event == wire.json.decode_event(json.dumps(_DELTA).encode())
    json.loads(wire.json.encode(event))  # re-encoded: the unknown field is gone
    assert NDJSONEncoder().encode_batch(NDJSONDecoder(raw=True).feed(line + b"\n")) == line + b"\n"  # relayed as is
    for where in (b'"delta":"\xff"', b'"metadata":{"k":"\xff"}', b'"metadata":{"\xff":1}'):
        with pytest.raises(wire.DecodeError):
            wire.json.decode_event(json.dumps(_DELTA).encode()[:-1] + b"," + where + b"}")


# -- a misspelt event type -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("tag", "reason"), [
    ("TEXT_BLOK_DELTA", "unknown event type 'TEXT_BLOK_DELTA': did you mean 'TEXT_BLOCK_DELTA'?"),
    ("text_block_delta", "unknown event type 'text_block_delta': did you mean 'TEXT_BLOCK_DELTA'?"),
    ("REPLY_STRAT", "unknown event type 'REPLY_STRAT': did you mean 'REPLY_START'?"),
    ("FUTURE_EVENT", "unknown event type 'FUTURE_EVENT'"),
    ("x" * 100, f"unknown event type {'x' * 64!r}"),
], ids=["typo", "lower case", "swapped letters", "nothing near", "long"])
def test_an_unknown_event_type_names_the_nearest_known_one(tag: str, reason: str) -> None:
    payload = {"type": tag, "reply_id": "r", "block_id": "b", "delta": "x"}
    decoders: list[Any] = [
        lambda: wire.json.decode_event(msgspec.json.encode(payload)),
        lambda: wire.msgpack.decode_event(msgspec.msgpack.encode(payload)),
        lambda: wire.framing.NDJSONDecoder().feed(msgspec.json.encode(payload) + b"\n"),
        lambda: wire.framing.SSEDecoder().feed(b"data: " + msgspec.json.encode(payload) + b"\n\n"),
        lambda: wire.peek.peek_json(msgspec.json.encode(payload)),
    ]
    for decode in decoders:
        with pytest.raises(wire.DecodeError) as info:
            decode()
        assert (info.value.path, info.value.reason) == ("$.type", reason)
