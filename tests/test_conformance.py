"""Conformance with the JSON agentscope 2.0.11 writes (tests/vectors).

Every event line and every message in the vectors decodes, re-encodes and
decodes again to an equal object, in JSON and in MessagePack. wire's JSON may
differ from agentscope's in two ways only, checked by ``assert_same_json``:
key order, and leaving out a field that holds its default (agentscope writes
every field; wire's structs use ``omit_defaults``). Everything else, down to
the base64 text of binary data and timestamps without a fraction, is equal.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest

import wire
from tests.helpers import (
    CASES,
    MESSAGES,
    Case,
    assert_same_json,
    catalog_lines,
    field_default,
    standalone_messages,
    strict_equal,
)

T = TypeVar("T", wire.AgentEvent, wire.Msg)

# -- one vector's checks (the comparison rule is tests/helpers.py's assert_same_json) ---------


def check_round_trips(data: bytes, decode: Callable[[bytes], T], decode_msgpack: Callable[[bytes], T]) -> T:
    """agentscope's JSON of an event or a Msg: decodes, re-encodes to
    equivalent JSON, and survives both codecs' round trips."""
    obj = decode(data)
    ours = wire.json.encode(obj)
    assert_same_json(obj, json.loads(ours), json.loads(data))
    assert decode(ours) == obj
    assert wire.json.encode(decode(ours)) == ours
    assert decode_msgpack(wire.msgpack.encode(obj)) == obj
    return obj


def check_event_line(line: bytes) -> wire.AgentEvent:
    return check_round_trips(line, wire.json.decode_event, wire.msgpack.decode_event)


def check_msg(data: bytes) -> wire.Msg:
    return check_round_trips(data, wire.json.decode_msg, wire.msgpack.decode_msg)


# -- the rule itself can fail ---------------------------------------------------------------

_CALL = (b'{"type":"tool_call","id":"c","name":"Bash","input":"{}","state":"pending","suggested_rules":[],'
         b'"created_at":"t","finished_at":null}')


def test_the_rule_accepts_omitted_defaults_and_any_key_order() -> None:
    block = msgspec.json.decode(_CALL, type=wire.ToolCallBlock)
    assert_same_json(block, {"created_at": "t", "type": "tool_call", "id": "c", "name": "Bash", "input": "{}"},
                     json.loads(_CALL))


@pytest.mark.parametrize(("ours", "why"), [
    ({"type": "tool_call", "id": "c", "name": "Bash", "input": "{}", "created_at": "t", "state": "asking"}, "value"),
    ({"type": "tool_call", "id": "c", "name": "Bash", "created_at": "t"}, "omitted non-default"),
    ({"type": "tool_call", "id": "c", "name": "Bash", "input": "{}"}, "omitted generated"),
    ({"type": "tool_call", "id": "c", "name": "Bash", "input": "{}", "created_at": "t", "extra": 1}, "extra key"),
    ({"id": "c", "name": "Bash", "input": "{}", "created_at": "t"}, "tag dropped"),
])
def test_the_rule_rejects_every_other_difference(ours: dict[str, Any], why: str) -> None:
    block = msgspec.json.decode(_CALL, type=wire.ToolCallBlock)
    with pytest.raises(AssertionError):
        assert_same_json(block, ours, json.loads(_CALL))


def test_the_rule_tells_int_from_float_and_bool() -> None:
    assert not strict_equal({"a": [1]}, {"a": [1.0]})
    assert not strict_equal(1, True)
    assert strict_equal({"a": [1.5, None, "x"]}, {"a": [1.5, None, "x"]})


# -- the vectors -------------------------------------------------------------------------------


def test_every_event_line_of_every_case_conforms(case: Case) -> None:
    for line in case.event_lines:
        check_event_line(line)


def test_a_case_stream_decodes_and_re_encodes_as_ndjson(case: Case) -> None:
    events = wire.json.decode_events(case.events_jsonl)
    assert events == [wire.json.decode_event(line) for line in case.event_lines]
    out = wire.json.encode_events(events)
    assert out.endswith(b"\n") and out.count(b"\n") == len(events)
    for ours, theirs, event in zip(out.splitlines(), case.event_lines, events, strict=True):
        assert_same_json(event, json.loads(ours), json.loads(theirs))
    assert wire.msgpack.decode_events(wire.msgpack.encode_events(events)) == events


def test_the_initial_and_expected_msgs_of_every_case_conform(case: Case) -> None:
    check_msg(case.initial_msg)
    check_msg(case.expected_msg)


@pytest.mark.parametrize("path", standalone_messages(), ids=lambda p: p.stem)
def test_every_standalone_message_conforms(path: Path) -> None:
    check_msg(path.read_bytes())


@pytest.mark.parametrize("path", sorted(MESSAGES.glob("*.pretty.json")), ids=lambda p: p.stem)
def test_pretty_printed_messages_decode_like_the_compact_ones(path: Path) -> None:
    compact = path.with_name(path.name.replace(".pretty.json", ".json"))
    if path.name == "event_catalog.pretty.json":
        pretty = [json.dumps(item).encode() for item in json.loads(path.read_bytes())]
        assert [wire.json.decode_event(p) for p in pretty] == [wire.json.decode_event(c) for c in catalog_lines()]
    else:
        assert wire.json.decode_msg(path.read_bytes()) == wire.json.decode_msg(compact.read_bytes())


def test_the_catalog_holds_each_of_the_28_events_once_and_each_conforms() -> None:
    events = [check_event_line(line) for line in catalog_lines()]
    counts = Counter(type(e) for e in events)
    assert set(counts) == set(wire.AgentEvent.__args__)
    assert len(counts) == 28


def test_the_all_blocks_message_holds_every_block_type() -> None:
    msg = wire.json.decode_msg((MESSAGES / "assistant_msg_all_blocks.json").read_bytes())
    assert {type(b) for b in msg.content} == {wire.TextBlock, wire.ThinkingBlock, wire.HintBlock, wire.DataBlock,
                                              wire.ToolCallBlock, wire.ToolResultBlock}
    thinking = next(b for b in msg.content if isinstance(b, wire.ThinkingBlock))
    assert thinking.signature.startswith("EqQB")  # type: ignore[attr-defined]


_NAIVE_NO_FRACTION = re.compile(rb'"(?:created_at|finished_at)":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)"')


def test_naive_timestamps_without_a_fraction_survive_unchanged() -> None:
    """agentscope drops the fraction when the microsecond is 0; such a
    timestamp must come back byte for byte."""
    found = 0
    for case in CASES:
        for data in [case.initial_msg, case.expected_msg, *case.event_lines]:
            for stamp in _NAIVE_NO_FRACTION.findall(data):
                found += 1
                decoded = wire.json.decode_msg(data) if data.startswith(b'{"name"') else wire.json.decode_event(data)
                assert b'"' + stamp + b'"' in wire.json.encode(decoded)
    assert found, "the vectors hold at least one timestamp without a fraction (case plain_text)"


# -- agentscope's verdicts on invalid and lax inputs ----------------------------------------------

LAX_FILE = MESSAGES / "invalid_and_lax_inputs.json"
LAX_ENTRIES: list[dict[str, Any]] = json.loads(LAX_FILE.read_bytes())

# What wire does with each input agentscope accepts. "same": wire accepts it and
# builds the values agentscope reports. "rejects": a pydantic lax-mode coercion
# that wire, built on msgspec's strict decoding, deliberately does not copy.
WIRE_ON_ACCEPTED = {
    "unknown field": "same",
    "id/created_at/metadata omitted": "same",
    "numeric string / integral float": "rejects",
    "url empty string (valid)": "same",
    "block_id omitted (generated)": "same",
    "custom without value/reply_id": "same",
    "duplicate key (last wins)": "same",
}
GENERATED = {"block_id"}  # agentscope's generated value cannot be reproduced, only its presence


def test_every_accepted_input_has_a_stated_wire_verdict() -> None:
    """A new lax entry in the vectors must be decided on here."""
    assert {e["note"] for e in LAX_ENTRIES if e["accepted"]} == set(WIRE_ON_ACCEPTED)


@pytest.mark.parametrize("entry", [e for e in LAX_ENTRIES if not e["accepted"]], ids=lambda e: e["note"])
def test_every_input_agentscope_rejects_wire_rejects(entry: dict[str, Any]) -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(entry["input"].encode())
    assert isinstance(info.value.__cause__, msgspec.DecodeError)


@pytest.mark.parametrize("entry", [e for e in LAX_ENTRIES if e["accepted"]], ids=lambda e: e["note"])
def test_inputs_agentscope_accepts(entry: dict[str, Any]) -> None:
    data = entry["input"].encode()
    if WIRE_ON_ACCEPTED[entry["note"]] == "rejects":
        with pytest.raises(wire.DecodeError):
            wire.json.decode_event(data)
        return
    event = wire.json.decode_event(data)
    assert type(event).__name__ == entry["class"]
    written = json.loads(wire.json.encode(event))
    sent = json.loads(data)
    fields = {f.encode_name: f for f in msgspec.structs.fields(event)}
    for key, expected in entry["value_check"].items():
        if key == "type":
            assert event.type == expected
        elif key in GENERATED and key not in sent:
            assert re.fullmatch(r"[0-9a-f]{32}", getattr(event, key))
        else:
            assert strict_equal(msgspec.to_builtins(getattr(event, key)), expected), key
            if key not in written:
                assert strict_equal(msgspec.to_builtins(field_default(fields[key])), expected), key
    # agentscope re-serializes every field: wire's fields are the same names
    assert set(entry["reserialized_keys"]) == set(fields) | {"type"}
