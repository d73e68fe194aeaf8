"""Envelope peeking (wire.peek): the envelope of every event type in both
codecs agrees with full decoding; bad envelope fields fail with full decoding's
own error and path; and, for random and mutated input, a peek succeeds whenever
full decoding does and fails only where full decoding fails too."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests import strategies
from tests.helpers import CATALOG, Case, catalog_lines, expect
from wire.events import AgentEvent, EventType
from wire.peek import Envelope, UnknownEnvelope, envelope_of, peek_json, peek_json_lines, peek_msgpack

ENVELOPE_FIELDS = ("session_id", "reply_id", "block_id", "tool_call_id")


class Codec:
    """One wire format as these tests use it: bytes <-> plain values, events, envelopes."""

    def __init__(self, name: str, module: Any, plain: Any, peek: Callable[[Any], Envelope]) -> None:
        self.name = name
        self.encode: Callable[[Any], bytes] = module.encode
        self.decode_event: Callable[[bytes], AgentEvent] = module.decode_event
        self.plain = plain  # msgspec.json or msgspec.msgpack, untyped
        self.peek: Any = peek  # peek_json or peek_msgpack, overloads and all

    def __repr__(self) -> str:
        return self.name


JSON = Codec("json", wire.json, msgspec.json, peek_json)
MSGPACK = Codec("msgpack", wire.msgpack, msgspec.msgpack, peek_msgpack)
CODECS = [JSON, MSGPACK]


def assert_agrees(env: Envelope, event: AgentEvent, sent: dict[str, Any] | None = None) -> None:
    """``env`` holds exactly the event's type and ids. ``sent`` is the dict
    that was encoded, when known: a TOOL_RESULT_DATA_DELTA sent without a
    block_id has a generated one after full decoding and None in a peek."""
    assert isinstance(env, Envelope)
    assert env.type is event.type
    for name in ENVELOPE_FIELDS:
        expected = getattr(event, name, None)
        if (name == "block_id" and event.type is EventType.TOOL_RESULT_DATA_DELTA
                and sent is not None and "block_id" not in sent):
            expected = None
        assert getattr(env, name) == expected, name
    if sent is None or "block_id" in sent or event.type is not EventType.TOOL_RESULT_DATA_DELTA:
        assert env == envelope_of(event)


# -- every event type, both codecs -----------------------------------------------------------


def test_catalog_holds_all_28_event_types() -> None:
    assert {e.type for e in CATALOG} == set(EventType)
    assert len(EventType) == 28


@pytest.mark.parametrize("codec", CODECS, ids=repr)
@pytest.mark.parametrize("event", CATALOG, ids=lambda e: e.type.value)
def test_peek_agrees_with_full_decoding(codec: Codec, event: AgentEvent) -> None:
    buf = codec.encode(event)
    env = codec.peek(buf)
    assert_agrees(env, codec.decode_event(buf))
    assert_agrees(env, event)


@pytest.mark.parametrize("line", catalog_lines(), ids=lambda line: msgspec.json.decode(line)["type"])
def test_peek_reads_agentscopes_own_bytes(line: bytes) -> None:
    # agentscope writes id, created_at and metadata before the tag.
    assert_agrees(peek_json(line), wire.json.decode_event(line), msgspec.json.decode(line))
    assert peek_json(line.decode()) == peek_json(line)  # str input, as the JSON decoders take


def test_which_fields_each_type_has() -> None:
    envs = {env.type: env for env in map(envelope_of, CATALOG)}
    has = {t: {n for n in ENVELOPE_FIELDS if getattr(envs[t], n) is not None} for t in EventType}
    assert has[EventType.REPLY_START] == has[EventType.REPLY_END] == {"session_id", "reply_id"}
    assert has[EventType.CUSTOM] == set()
    assert has[EventType.TOOL_RESULT_DATA_DELTA] == {"reply_id", "tool_call_id", "block_id"}
    assert has[EventType.HINT_BLOCK] == has[EventType.DATA_BLOCK_DELTA] == {"reply_id", "block_id"}
    assert has[EventType.TOOL_CALL_DELTA] == has[EventType.TOOL_RESULT_END] == {"reply_id", "tool_call_id"}
    assert has[EventType.USER_INTERRUPT] == has[EventType.MODEL_CALL_END] == {"reply_id"}


def test_vector_streams(case: Case) -> None:
    events = wire.json.decode_events(case.events_jsonl)
    sent = [msgspec.json.decode(line) for line in case.event_lines]
    envs = peek_json_lines(case.events_jsonl)
    assert len(envs) == len(events)
    for env, event, d in zip(envs, events, sent, strict=True):
        assert_agrees(env, event, d)
    for event, d in zip(events, sent, strict=True):
        assert_agrees(peek_msgpack(wire.msgpack.encode(event)), event, d if "block_id" in d else None)


def test_codec_modules_expose_peek() -> None:
    assert wire.json.peek is peek_json
    assert wire.msgpack.peek is peek_msgpack
    assert "peek" in wire.json.__all__
    assert "peek" in wire.msgpack.__all__


def test_tool_result_data_delta_without_block_id() -> None:
    line = (b'{"type":"TOOL_RESULT_DATA_DELTA","reply_id":"r","tool_call_id":"c",'
            b'"media_type":"image/png","data":"AAAA"}')
    env = peek_json(line)
    assert env.block_id is None  # full decoding generates one; a peek cannot know it
    assert expect(wire.ToolResultDataDeltaEvent, wire.json.decode_event(line)).block_id
    assert env.reply_id == "r"
    assert env.tool_call_id == "c"


# -- the Envelope object -----------------------------------------------------------------------


def test_envelope_is_small_frozen_hashable_and_pickles() -> None:
    event = next(e for e in CATALOG if isinstance(e, wire.TextBlockDeltaEvent))
    env = peek_json(wire.json.encode(event))
    assert repr(env) == (f"Envelope(type='TEXT_BLOCK_DELTA', reply_id={event.reply_id!r}, "
                         f"block_id={event.block_id!r})")
    with pytest.raises(AttributeError):
        env.reply_id = "other"  # type: ignore[misc]
    routes = {env: "a"}
    assert routes[peek_msgpack(wire.msgpack.encode(event))] == "a"  # equal across codecs
    assert pickle.loads(pickle.dumps(env)) == env
    assert env != envelope_of(next(e for e in CATALOG if e.type is EventType.TEXT_BLOCK_START))


def test_envelope_of_rejects_what_is_not_an_event() -> None:
    with pytest.raises(TypeError, match="not an AgentEvent: TextBlock"):
        envelope_of(wire.TextBlock(text="x"))  # type: ignore[arg-type]


# -- bad input: full decoding's own errors and paths ----------------------------------------

_TRDD = {"type": "TOOL_RESULT_DATA_DELTA", "reply_id": "r", "tool_call_id": "c", "media_type": "a/b",
         "url": "https://example.com/"}
BAD: dict[str, tuple[Any, str, str]] = {
    "no type": ({"reply_id": "r", "block_id": "b"}, "$", "Object missing required field `type`"),
    "unknown type": ({"type": "FUTURE_EVENT", "reply_id": "r"}, "$.type", "unknown event type 'FUTURE_EVENT'"),
    "type not a str": ({"type": 7, "reply_id": "r"}, "$.type", "Expected `str`"),
    "reply_id an int": ({"type": "TEXT_BLOCK_DELTA", "reply_id": 1, "block_id": "b", "delta": "x"},
                        "$.reply_id", "Expected `str`, got `int`"),
    "reply_id null": ({"type": "USER_INTERRUPT", "reply_id": None}, "$.reply_id", "Expected `str`, got `"),
    "no reply_id": ({"type": "USER_INTERRUPT"}, "$", "Object missing required field `reply_id`"),
    "no session_id": ({"type": "REPLY_END", "reply_id": "r"}, "$", "Object missing required field `session_id`"),
    "block_id an array": ({"type": "TEXT_BLOCK_START", "reply_id": "r", "block_id": []},
                          "$.block_id", "Expected `str`, got `array`"),
    "no block_id": ({"type": "DATA_BLOCK_END", "reply_id": "r"}, "$", "Object missing required field `block_id`"),
    "no tool_call_id": ({"type": "TOOL_CALL_END", "reply_id": "r"}, "$",
                        "Object missing required field `tool_call_id`"),
    "tool_call_id a bool": ({"type": "TOOL_CALL_END", "reply_id": "r", "tool_call_id": True},
                            "$.tool_call_id", "Expected `str`, got `bool`"),
    "optional block_id null": ({**_TRDD, "block_id": None}, "$.block_id", "Expected `str`, got `"),
    "not an object": ([1, 2], "$", "Expected `object`, got `array`"),
    "a string": ("TEXT_BLOCK_DELTA", "$", "Expected `object`, got `str`"),
}


@pytest.mark.parametrize("codec", CODECS, ids=repr)
@pytest.mark.parametrize("name", list(BAD))
def test_bad_envelope_fields_fail_as_full_decoding_does(codec: Codec, name: str) -> None:
    value, path, reason = BAD[name]
    buf = codec.plain.encode(value)
    with pytest.raises(wire.DecodeError) as peeked:
        codec.peek(buf)
    with pytest.raises(wire.DecodeError) as decoded:
        codec.decode_event(buf)
    assert (peeked.value.path, peeked.value.reason) == (decoded.value.path, decoded.value.reason)
    assert peeked.value.path == path
    assert peeked.value.reason.startswith(reason)  # the codecs word some types differently
    assert isinstance(peeked.value.__cause__, msgspec.ValidationError)


@pytest.mark.parametrize("codec", CODECS, ids=repr)
def test_ids_an_event_does_not_have_are_ignored_as_in_full_decoding(codec: Codec) -> None:
    custom = {"type": "CUSTOM", "name": "n", "reply_id": 5, "block_id": None}
    delta = {"type": "TEXT_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "delta": "x", "session_id": []}
    for value in (custom, delta):
        buf = codec.plain.encode(value)
        assert_agrees(codec.peek(buf), codec.decode_event(buf), value)


def test_other_fields_are_not_validated() -> None:
    # What makes a peek cheap: a bad delta or a broken nested block is skipped.
    line = b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b","delta":42,"metadata":[]}'
    assert peek_json(line).block_id == "b"
    with pytest.raises(wire.DecodeError):
        wire.json.decode_event(line)


@pytest.mark.parametrize("buf", [b"", b'{"type":', b'{"type":"USER_INTERRUPT","reply_id":"r"} x', b"\xff"])
def test_malformed_json(buf: bytes) -> None:
    with pytest.raises(wire.DecodeError) as peeked:
        peek_json(buf)
    with pytest.raises(wire.DecodeError) as decoded:
        wire.json.decode_event(buf)
    assert peeked.value.path is None
    assert (peeked.value.reason, peeked.value.offset) == (decoded.value.reason, decoded.value.offset)


@pytest.mark.parametrize("buf", [b"", b"\x81", b"\x81\xa4type", b"\xc1"])
def test_malformed_msgpack(buf: bytes) -> None:
    with pytest.raises(wire.DecodeError) as peeked:
        peek_msgpack(buf)
    with pytest.raises(wire.DecodeError) as decoded:
        wire.msgpack.decode_event(buf)
    assert peeked.value.reason == decoded.value.reason


def test_lines_error_says_which_line_where() -> None:
    good = [wire.json.encode(e) for e in CATALOG[:3]]
    bad = b'{"type":"TEXT_BLOCK_END","reply_id":"r","block_id":7}'
    ndjson = good[0] + b"\n \t\r\n" + good[1] + b"\n" + good[2] + b"\n\n" + bad + b"\n" + good[0] + b"\n"
    with pytest.raises(wire.DecodeError) as err:
        peek_json_lines(ndjson)
    assert err.value.index == 3
    assert err.value.offset == ndjson.index(bad)
    assert err.value.path == "$.block_id"
    assert err.value.events == [envelope_of(e) for e in CATALOG[:3]]
    assert peek_json_lines(ndjson.replace(bad, b"")) == [envelope_of(e) for e in [*CATALOG[:3], CATALOG[0]]]


@pytest.mark.parametrize("ndjson", [b"", b"\n\n", b" \r\n"])
def test_lines_without_events(ndjson: bytes) -> None:
    assert peek_json_lines(ndjson) == []


def test_lines_control_characters_are_not_blank() -> None:
    # decode_lines rejects \x0c; the line-by-line pass must reject it too, as a DecodeError.
    line = wire.json.encode(CATALOG[0])
    with pytest.raises(wire.DecodeError) as err:
        peek_json_lines(line + b"\n\x0c\n")
    assert (err.value.index, err.value.offset) == (1, len(line) + 1)


# -- Hypothesis: agreement with full decoding, mutation and fuzzing ---------------------------

_chars = st.characters(exclude_categories=["Cs"])  # no lone surrogates: they cannot be encoded
ids = st.text(_chars, max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(_chars, max_size=6)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(_chars, max_size=4), inner, max_size=3), max_leaves=6)
codecs = st.sampled_from(CODECS)
# Keys an event may leave out (data and url go together: exactly one of them).
OPTIONAL = {cls: {f.name for f in msgspec.structs.fields(cls) if not f.required} - {"data", "url"}
            for cls in AgentEvent.__args__}


@st.composite
def catalog_events(draw: st.DrawFn) -> AgentEvent:
    """A catalog event (agentscope's own values) with random ids in its envelope fields."""
    base = draw(st.sampled_from(CATALOG))
    names = [n for n in ENVELOPE_FIELDS if n in base.__struct_fields__]
    return msgspec.structs.replace(base, **{n: draw(ids) for n in names})


def events() -> st.SearchStrategy[AgentEvent]:
    """Random valid events of all 28 types (tests.strategies), and catalog ones."""
    return st.one_of(strategies.events(), catalog_events())


@st.composite
def sent_dicts(draw: st.DrawFn, codec: Codec) -> dict[str, Any]:
    """An event as a plain dict the codec would decode: optional keys left
    out, unknown keys added, keys in any order."""
    event = draw(events())
    sent: dict[str, Any] = codec.plain.decode(codec.encode(event))
    for key in draw(st.lists(st.sampled_from(sorted(OPTIONAL[type(event)])), max_size=3)):
        sent.pop(key, None)
    known = set(event.__struct_fields__) | {"type"}
    extra = draw(st.dictionaries(st.text(_chars, max_size=6).filter(lambda k: k not in known),
                                 json_values, max_size=2))
    items = draw(st.permutations([*sent.items(), *extra.items()]))
    return dict(items)


def attempt(fn: Callable[[bytes], Any], buf: bytes) -> tuple[wire.DecodeError | None, Any]:
    try:
        return None, fn(buf)
    except wire.DecodeError as exc:
        return exc, None


def attempt_full(fn: Callable[[bytes], Any], buf: bytes) -> tuple[Exception | None, Any]:
    """``attempt`` for full decoding, which lets msgspec's UnicodeDecodeError
    through for a string that is not UTF-8 (wire._codec, msgspec 0.22.0); a
    peek turns it into a DecodeError."""
    try:
        return None, fn(buf)
    except (wire.DecodeError, UnicodeDecodeError) as exc:
        return exc, None


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_valid_events_peek_as_they_decode(data: st.DataObject) -> None:
    codec = data.draw(codecs)
    sent = data.draw(sent_dicts(codec))
    buf = codec.plain.encode(sent)
    assert_agrees(codec.peek(buf), codec.decode_event(buf), sent)


MUTATIONS = st.one_of(
    st.tuples(st.just("delete"), st.sampled_from([*ENVELOPE_FIELDS, "type", "id", "delta", "name"])),
    st.tuples(st.just("set"), st.sampled_from([*ENVELOPE_FIELDS, "type", "metadata", "delta"]), json_values),
    st.tuples(st.just("set"), st.just("type"), st.sampled_from([t.value for t in EventType]) | ids),
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_one_mutation_peeks_only_if_it_would_decode(data: st.DataObject) -> None:
    codec = data.draw(codecs)
    sent = data.draw(sent_dicts(codec))
    kind, key, *value = data.draw(MUTATIONS)
    if kind == "delete":
        sent.pop(key, None)
    else:
        sent[key] = value[0]
    buf = codec.plain.encode(sent)
    full_err, event = attempt_full(codec.decode_event, buf)
    peek_err, env = attempt(codec.peek, buf)
    if full_err is None:  # whatever decodes, peeks, and agrees
        assert peek_err is None
        assert_agrees(env, event, sent)
    retagged = kind == "set" and key == "type" and isinstance(value[0], str) and value[0] in EventType.__members__
    if peek_err is not None and key in (*ENVELOPE_FIELDS, "type") and not retagged:
        # The mutated field is the only bad one: full decoding names it the same way.
        assert isinstance(full_err, wire.DecodeError)
        assert (peek_err.path, peek_err.reason) == (full_err.path, full_err.reason)


@settings(max_examples=300, deadline=None)
@given(codecs, st.binary(max_size=48))
def test_fuzz_arbitrary_bytes_peek_or_raise_decode_error(codec: Codec, buf: bytes) -> None:
    err, env = attempt(codec.peek, buf)
    assert (err is None) == isinstance(env, Envelope)
    if codec is JSON:
        attempt(peek_json_lines, buf)  # anything but a DecodeError propagates and fails


@st.composite
def damaged(draw: st.DrawFn, codec: Codec) -> bytes:
    """A valid encoding, cut short, with bytes overwritten, or with bytes inserted."""
    buf = codec.encode(draw(events()))
    pos = draw(st.integers(0, len(buf)))
    how = draw(st.sampled_from(["cut", "overwrite", "insert"]))
    junk = draw(st.binary(min_size=1, max_size=3))
    if how == "cut":
        return buf[:pos]
    if how == "overwrite":
        return buf[:pos] + junk + buf[pos + len(junk):]
    return buf[:pos] + junk + buf[pos:]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_damaged_events_peek_only_if_they_would_decode(data: st.DataObject) -> None:
    codec = data.draw(codecs)
    buf = data.draw(damaged(codec))
    full_err, event = attempt_full(codec.decode_event, buf)
    peek_err, env = attempt(codec.peek, buf)
    if full_err is None:
        assert peek_err is None
        # a damaged "block_id" key leaves a TOOL_RESULT_DATA_DELTA without one
        assert_agrees(env, event, {"block_id": 0} if env.block_id is not None else {})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(damaged(JSON), events().map(wire.json.encode), st.just(b"")), max_size=6))
def test_fuzz_lines_fail_at_the_first_line_that_fails(lines: list[bytes]) -> None:
    lines = [line.replace(b"\n", b" ") for line in lines]
    ndjson = b"".join(line + b"\n" for line in lines)
    expected: list[Envelope] = []
    first_bad: tuple[int, wire.DecodeError] | None = None
    for line in lines:
        if not line.strip(b" \t\r"):
            continue
        err, env = attempt(peek_json, line)
        if err is not None:
            first_bad = (len(expected), err)
            break
        expected.append(env)
    err, envs = attempt(peek_json_lines, ndjson)
    if first_bad is None:
        assert envs == expected
    else:
        assert err is not None
        assert (err.index, err.path, err.reason, err.events) == (
            first_bad[0], first_bad[1].path, first_bad[1].reason, expected)


# -- unknown="keep": newer peers' events, for proxies ------------------------------------------


@pytest.mark.parametrize("codec", CODECS, ids=repr)
def test_unknown_types_raise_unless_kept(codec: Codec) -> None:
    buf = codec.plain.encode({"type": "FUTURE_EVENT", "reply_id": "r", "tool_call_id": "c", "data": [1, 2]})
    with pytest.raises(wire.DecodeError) as err:
        codec.peek(buf)
    assert (err.value.path, err.value.reason) == ("$.type", "unknown event type 'FUTURE_EVENT'")
    kept = codec.peek(buf, unknown="keep")
    assert kept == UnknownEnvelope(type="FUTURE_EVENT", reply_id="r", tool_call_id="c")
    assert repr(kept) == "UnknownEnvelope(type='FUTURE_EVENT', reply_id='r', tool_call_id='c')"
    assert not isinstance(kept, Envelope)


KEEP_BAD: dict[str, tuple[Any, str, str]] = {
    "an unknown type's id is an int": ({"type": "FUTURE_EVENT", "block_id": 5}, "$.block_id", "Expected `str | null`"),
    "type not a str": ({"type": 5, "reply_id": "r"}, "$.type", "Expected `str`"),
    "no type": ({"reply_id": "r"}, "$", "Object missing required field `type`"),
    "a known type still checked": ({"type": "TEXT_BLOCK_DELTA", "block_id": "b"}, "$",
                                   "Object missing required field `reply_id`"),
}


@pytest.mark.parametrize("codec", CODECS, ids=repr)
@pytest.mark.parametrize("name", list(KEEP_BAD))
def test_kept_unknown_types_still_fail_on_bad_input(codec: Codec, name: str) -> None:
    value, path, reason = KEEP_BAD[name]
    with pytest.raises(wire.DecodeError) as err:
        codec.peek(codec.plain.encode(value), unknown="keep")
    assert err.value.path == path
    assert err.value.reason.startswith(reason)


def test_unknown_must_be_raise_or_keep() -> None:
    with pytest.raises(ValueError, match="'raise' or 'keep'"):
        peek_json(b'{"type":"FUTURE_EVENT"}', unknown="skip")  # type: ignore[call-overload]


def test_lines_keep_unknown_types() -> None:
    known = wire.json.encode(CATALOG[0])
    ndjson = known + b'\n{"type":"FUTURE_EVENT","reply_id":"r"}\n\n' + known + b"\n"
    with pytest.raises(wire.DecodeError) as err:
        peek_json_lines(ndjson)
    assert (err.value.index, err.value.offset, err.value.path) == (1, len(known) + 1, "$.type")
    first = envelope_of(CATALOG[0])
    assert peek_json_lines(ndjson, unknown="keep") == [first, UnknownEnvelope(type="FUTURE_EVENT", reply_id="r"), first]
    with pytest.raises(wire.DecodeError) as err:
        peek_json_lines(ndjson + b'{"type":"FUTURE_EVENT","reply_id":1}\n', unknown="keep")
    assert (err.value.index, err.value.path) == (3, "$.reply_id")
    assert len(err.value.events) == 3


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_keep_changes_nothing_for_known_types_and_reads_unknown_ones(data: st.DataObject) -> None:
    codec = data.draw(codecs)
    sent = data.draw(sent_dicts(codec))
    buf = codec.plain.encode(sent)
    assert codec.peek(buf, unknown="keep") == codec.peek(buf)
    tag = data.draw(st.text(_chars, max_size=12).filter(lambda t: t not in EventType.__members__))
    buf = codec.plain.encode({**sent, "type": tag})
    bad = [n for n in ENVELOPE_FIELDS if not isinstance(sent.get(n), str | None)]
    err, kept = attempt(lambda b: codec.peek(b, unknown="keep"), buf)
    if bad:  # an unknown key the strategy added under an id's name, holding a non-string
        assert err is not None
        assert err.path in {f"$.{n}" for n in bad}
    else:
        assert kept == UnknownEnvelope(type=tag, **{n: sent[n] for n in ENVELOPE_FIELDS if n in sent})
