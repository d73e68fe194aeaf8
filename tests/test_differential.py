"""wire against agentscope 2.0.11 itself (skipped only where agentscope is not
installed; CI installs it).

* The models: field names, order, required-ness and defaults of every block,
  record, Msg and event equal agentscope's pydantic ``model_fields``; tags and
  enum strings equal agentscope's.
* agentscope reads what wire writes, events through its discriminated
  TypeAdapter and messages through ``Msg.model_validate_json``, and builds
  the object agentscope builds from its own vectors.
* The other way: agentscope's ``model_dump_json()`` of objects made from
  random wire objects decodes in wire to an equal object.
* The factories and constructors generate ids and timestamps in agentscope's
  order, so the same deterministic factories give the same JSON.
* A relative URL is refused on both sides (URL normalization against
  pydantic's ``AnyUrl`` needs only pydantic: test_url.py).
* The lax coercions agentscope performs and wire deliberately does not.
"""

from __future__ import annotations

import base64
import enum
import json
import typing
import warnings
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import msgspec
import pytest
from hypothesis import given, settings

import wire
from tests.helpers import CASES, assert_same_json, catalog_lines, field_default, standalone_messages
from tests.strategies import events, msgs

as_message = pytest.importorskip("agentscope.message")
as_event = pytest.importorskip("agentscope.event")
as_permission = pytest.importorskip("agentscope.permission")
as_model = pytest.importorskip("agentscope.model")
as_types = pytest.importorskip("agentscope.types")
as_common = pytest.importorskip("agentscope._utils._common")
pydantic = pytest.importorskip("pydantic")

_events = pydantic.TypeAdapter(Annotated[as_event.AgentEvent, pydantic.Field(discriminator="type")])


def as_parse_event(data: bytes | str) -> Any:
    """agentscope's protocol-middleware decoder. Parsing EXCEED_MAX_ITERS warns
    (deprecated in agentscope); that warning is agentscope's, not wire's."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return _events.validate_json(data)


def as_parse_msg(data: bytes | str) -> Any:
    return as_message.Msg.model_validate_json(data)


# -- the models against agentscope's pydantic models ----------------------------------------------

MODEL_PAIRS: list[tuple[type[Any], Any]] = [
    *[(getattr(wire, n), getattr(as_message, n)) for n in
      ("TextBlock", "ThinkingBlock", "HintBlock", "DataBlock", "Base64Source", "URLSource", "ToolCallBlock",
       "ToolResultBlock", "Msg", "Usage")],
    (wire.ErrorInfo, as_types.ErrorInfo),
    (wire.ConfirmResult, as_event.ConfirmResult),
    (wire.PermissionRule, as_permission.PermissionRule),
    *[(cls, getattr(as_event, cls.__name__)) for cls in wire.AgentEvent.__args__],
]


def _json_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _model_params() -> list[Any]:
    return [pytest.param(ours, theirs, id=ours.__name__) for ours, theirs in MODEL_PAIRS]


def _their_fields(ours: type[Any], theirs: Any) -> dict[str, Any]:
    """agentscope's fields; its ``type`` is the tag wherever wire has a tag
    (ErrorInfo's ``type`` is a real field on both sides)."""
    tagged = ours.__struct_config__.tag is not None
    return {n: f for n, f in theirs.model_fields.items() if not (tagged and n == "type")}


@pytest.mark.parametrize(("ours", "theirs"), _model_params())
def test_fields_names_order_and_defaults_match_agentscope(ours: type[Any], theirs: Any) -> None:
    their_fields = _their_fields(ours, theirs)
    our_fields = msgspec.structs.fields(ours)
    assert [f.encode_name for f in our_fields] == list(their_fields)
    for info in our_fields:
        theirs_f = their_fields[info.encode_name]
        generated = theirs_f.default_factory not in (None, dict, list)
        ours_default = field_default(info)
        if theirs_f.is_required():
            assert ours_default is msgspec.NODEFAULT and info.default_factory is msgspec.NODEFAULT, info.name
        elif generated:
            assert info.default_factory not in (msgspec.NODEFAULT, list, dict), info.name
            assert isinstance(info.default_factory(), str)
        else:
            expected = theirs_f.default_factory() if theirs_f.default_factory else theirs_f.default
            assert ours_default is not msgspec.NODEFAULT, info.name
            assert _json_value(ours_default) == _json_value(expected), info.name


@pytest.mark.parametrize(("ours", "theirs"), MODEL_PAIRS, ids=[p[0].__name__ for p in MODEL_PAIRS])
def test_tags_match_agentscope(ours: type[Any], theirs: Any) -> None:
    tag = ours.__struct_config__.tag
    if tag is None:  # a record: agentscope has no tag either
        assert "type" not in theirs.model_fields or "type" in ours.__struct_fields__
    else:
        assert ours.__struct_config__.tag_field == "type"
        assert _json_value(theirs.model_fields["type"].default) == tag


ENUM_PAIRS = [
    (wire.ToolCallState, as_message.ToolCallState),
    (wire.ToolResultState, as_message.ToolResultState),
    (wire.ReplyFinishedReason, as_types.ReplyFinishedReason),
    (wire.ErrorType, as_types.ErrorType),
    (wire.FinishedReason, as_model.FinishedReason),
    (wire.PermissionBehavior, as_permission.PermissionBehavior),
    (wire.EventType, as_event.EventType),
]


@pytest.mark.parametrize(("ours", "theirs"), ENUM_PAIRS, ids=[p[0].__name__ for p in ENUM_PAIRS])
def test_enum_strings_match_agentscope(ours: type[enum.Enum], theirs: type[enum.Enum]) -> None:
    assert {m.value for m in ours} == {m.value for m in theirs}


def test_roles_match_agentscope() -> None:
    assert set(typing.get_args(wire.Role)) == set(typing.get_args(as_message.Msg.model_fields["role"].annotation))


# -- agentscope reads what wire writes: the vectors ---------------------------------------------------

EVENT_LINES = [line for case in CASES for line in case.event_lines] + catalog_lines()
MSG_FILES = [*(c.path / "initial_msg.json" for c in CASES), *(c.path / "expected_msg.json" for c in CASES),
             *standalone_messages()]


def test_agentscope_builds_from_wires_event_lines_what_it_builds_from_its_own() -> None:
    for line in EVENT_LINES:
        ours = wire.json.encode(wire.json.decode_event(line))
        assert as_parse_event(ours).model_dump(mode="json") == as_parse_event(line).model_dump(mode="json")


@pytest.mark.parametrize("path", MSG_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_agentscope_builds_from_wires_messages_what_it_builds_from_its_own(path: Any) -> None:
    original = path.read_bytes()
    ours = wire.json.encode(wire.json.decode_msg(original))
    assert as_parse_msg(ours).model_dump(mode="json") == as_parse_msg(original).model_dump(mode="json")


def test_agentscope_reads_wires_msgpack_once_turned_into_json() -> None:
    """The MessagePack path carries the same object: via msgpack and back to
    JSON, agentscope reads it as it reads the JSON."""
    for line in EVENT_LINES:
        event = wire.msgpack.decode_event(wire.msgpack.encode(wire.json.decode_event(line)))
        assert as_parse_event(wire.json.encode(event)).model_dump(mode="json") == \
            as_parse_event(line).model_dump(mode="json")


# -- random wire objects, both directions ---------------------------------------------------------------

DIFF = settings(max_examples=40, deadline=None)


@DIFF
@given(event=events())
def test_agentscope_accepts_random_wire_events_and_gives_them_back_equal(event: Any) -> None:
    ours = wire.json.encode(event)
    parsed = as_parse_event(ours)
    theirs = parsed.model_dump_json()
    assert_same_json(event, json.loads(ours), json.loads(theirs))
    assert wire.json.decode_event(theirs) == event
    # the service's SSE path writes json.dumps(model_dump(mode="json"), ensure_ascii=False)
    service = json.dumps(parsed.model_dump(mode="json"), ensure_ascii=False).encode()
    assert wire.json.decode_event(service) == event


@DIFF
@given(msg=msgs())
def test_agentscope_accepts_random_wire_msgs_and_gives_them_back_equal(msg: wire.Msg) -> None:
    ours = wire.json.encode(msg)
    theirs = as_parse_msg(ours).model_dump_json()
    assert_same_json(msg, json.loads(ours), json.loads(theirs))
    assert wire.json.decode_msg(theirs) == msg


# -- ids and timestamps generated in agentscope's order ---------------------------------------------------


@pytest.fixture
def counting_factories() -> Iterator[None]:
    """The same counting id and timestamp factories on both sides."""
    def counter(prefix: str) -> Callable[[], Callable[[], str]]:
        def make() -> Callable[[], str]:
            n = iter(range(1, 10_000))
            return lambda: f"{prefix}{next(n):04d}"
        return make
    ids, stamps = counter("id-"), counter("2026-01-01T00:00:00.00")
    saved = as_common._id_factory, as_common._timestamp_factory
    as_common.set_id_factory(ids())
    as_common.set_timestamp_factory(stamps())
    wire.set_id_factory(ids())
    wire.set_timestamp_factory(stamps())
    try:
        yield
    finally:
        as_common.set_id_factory(saved[0])
        as_common.set_timestamp_factory(saved[1])
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)


def _build_pairs() -> list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]]:
    """(label, build with wire, build with agentscope): each pair is built with
    nothing but generated ids and timestamps."""
    png = b"\x89PNG"
    return [
        ("UserMsg(str)", lambda w: w.UserMsg("u", "hi"), lambda a: a.UserMsg("u", "hi")),
        ("SystemMsg(str)", lambda w: w.SystemMsg("s", "be brief"), lambda a: a.SystemMsg("s", "be brief")),
        ("AssistantMsg(str)", lambda w: w.AssistantMsg("a", "hello"), lambda a: a.AssistantMsg("a", "hello")),
        ("UserMsg(blocks)", lambda w: w.UserMsg("u", [w.TextBlock(text="x"), w.DataBlock(
            source=w.Base64Source(data=png, media_type="image/png"))]),
         lambda a: a.UserMsg("u", [a.TextBlock(text="x"), a.DataBlock(
             source=a.Base64Source(data=base64.b64encode(png).decode(), media_type="image/png"))])),
        ("AssistantMsg(all)", lambda w: w.AssistantMsg("a", [
            w.ThinkingBlock(thinking="t"), w.HintBlock(hint="h"), w.ToolCallBlock(id="c", name="n", input="{}"),
            w.ToolResultBlock(id="c", name="n", output="out")]),
         lambda a: a.AssistantMsg("a", [
             a.ThinkingBlock(thinking="t"), a.HintBlock(hint="h"), a.ToolCallBlock(id="c", name="n", input="{}"),
             a.ToolResultBlock(id="c", name="n", output="out")])),
        ("Msg", lambda w: w.Msg(name="m", content=[w.TextBlock(text="x")], role="assistant"),
         lambda a: a.Msg(name="m", content=[a.TextBlock(text="x")], role="assistant")),
    ]


@pytest.mark.parametrize(("label", "ours", "theirs"), _build_pairs(), ids=[p[0] for p in _build_pairs()])
def test_factories_generate_ids_and_timestamps_in_agentscopes_order(
        counting_factories: None, label: str, ours: Callable[[Any], Any], theirs: Callable[[Any], Any]) -> None:
    msg = ours(wire)
    as_json = json.loads(wire.json.encode(msg))
    as_theirs = json.loads(theirs(as_message).model_dump_json())
    assert_same_json(msg, as_json, as_theirs)


@pytest.mark.parametrize("name", ["TextBlockDeltaEvent", "ToolResultDataDeltaEvent"])
def test_events_generate_their_ids_in_agentscopes_order(counting_factories: None, name: str) -> None:
    fields: dict[str, Any] = {"reply_id": "r", "block_id": "b", "delta": "d"} if name == "TextBlockDeltaEvent" \
        else {"reply_id": "r", "tool_call_id": "c", "media_type": "x", "data": b"\x00"}
    ours = getattr(wire, name)(**fields)
    if "data" in fields:
        fields = {**fields, "data": "AA=="}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        theirs = getattr(as_event, name)(**fields)
    assert_same_json(ours, json.loads(wire.json.encode(ours)), json.loads(theirs.model_dump_json()))


# -- URLs: what agentscope's Msg refuses, wire refuses (the normalization itself: test_url.py) ------------


def test_a_relative_url_is_rejected_on_both_sides() -> None:
    data = b'{"name":"n","role":"user","content":[{"type":"data","source":{"type":"url","url":"a/b.png",' \
           b'"media_type":"image/png"}}]}'
    with pytest.raises(pydantic.ValidationError):
        as_parse_msg(data)
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(data)
    assert info.value.path == "$.content[0].source"


# -- lax coercions agentscope performs and wire does not -----------------------------------------------------

_TC = '{"type":"tool_call","id":"c","name":"n","input":""}'
LAX_NOT_COPIED = {
    "int from numeric string": '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":"5","output_tokens":1}',
    "int from padded numeric string": '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":" 5 ","output_tokens":1}',
    "int from integral float": '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1,"output_tokens":1.0}',
    "int from exponent float": '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1e2,"output_tokens":1}',
    "int from bool": '{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":true,"output_tokens":1}',
    "bool from string": '{"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"confirmed":"yes",'
                        f'"tool_call":{_TC}}}]}}',
    "bool from int": '{"type":"USER_CONFIRM_RESULT","reply_id":"r","confirm_results":[{"confirmed":1,'
                     f'"tool_call":{_TC}}}]}}',
    "URL-safe base64": '{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"x","data":"-_-_"}',
    "unpadded base64": '{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"x","data":"AA"}',
    "base64 with a newline": '{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"x",'
                             '"data":"AA\\nAA=="}',
    "not base64 at all": '{"type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"x",'
                         '"data":"not base64!"}',
    "bad base64 in a hint's data block": '{"type":"HINT_BLOCK","reply_id":"r","block_id":"b","hint":[{"type":"data",'
                                         '"source":{"type":"base64","data":"%%%","media_type":"x"}}]}',
    "NaN literal": '{"type":"CUSTOM","name":"x","value":{"a":NaN}}',
    "Infinity literal": '{"type":"CUSTOM","name":"x","value":{"a":Infinity}}',
}
LAX_MSGS_NOT_COPIED = {
    "bad base64 in a Msg": '{"name":"n","role":"user","content":[{"type":"data","source":{"type":"base64",'
                           '"data":"-_-_","media_type":"x"}}]}',
    "usage from strings and floats": '{"name":"n","role":"user","content":[],'
                                     '"usage":{"input_tokens":"5","output_tokens":1.0}}',
}


@pytest.mark.parametrize("text", list(LAX_NOT_COPIED.values()), ids=list(LAX_NOT_COPIED))
def test_lax_event_inputs_agentscope_accepts_and_wire_rejects(text: str) -> None:
    as_parse_event(text)  # agentscope accepts: this raises if it no longer does
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(text.encode())
    assert info.value.path is not None or "malformed" in info.value.reason


@pytest.mark.parametrize("text", list(LAX_MSGS_NOT_COPIED.values()), ids=list(LAX_MSGS_NOT_COPIED))
def test_lax_msg_inputs_agentscope_accepts_and_wire_rejects(text: str) -> None:
    as_parse_msg(text)
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(text.encode())
    assert info.value.path is not None and info.value.path.startswith("$.")


def test_agentscopes_plain_union_guesses_a_missing_tag_and_wire_does_not() -> None:
    """agentscope's app/channel decoder (no discriminator) accepts an event
    without ``type``; wire, like the discriminated decoder, rejects it."""
    text = '{"reply_id":"r","block_id":"b","delta":"x"}'
    assert pydantic.TypeAdapter(as_event.AgentEvent).validate_json(text).type == "TEXT_BLOCK_DELTA"
    with pytest.raises(wire.DecodeError):
        wire.json.decode_event(text.encode())
