"""Msg: its eleven fields, the factories agentscope users call, the helpers,
role rules on construction and decoding, and where ids and timestamps come
from (``wire.set_id_factory`` / ``wire.set_timestamp_factory``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import msgspec
import pytest

import wire
from tests.helpers import GENERATED, REQUIRED, check_fields, expect


def test_msg_has_the_eleven_fields_of_the_reference() -> None:
    check_fields(wire.Msg, [
        ("name", REQUIRED), ("content", REQUIRED), ("role", REQUIRED), ("id", GENERATED), ("metadata", {}),
        ("created_at", GENERATED), ("usage", None), ("finished_at", None), ("finished_reason", None),
        ("structured_output", None), ("error", None),
    ])


def test_a_minimal_assistant_msg_writes_only_what_is_not_default() -> None:
    msg = wire.AssistantMsg("bot", [], id="m", created_at="2026-11-21T20:50:03.770434")
    assert json.loads(wire.json.encode(msg)) == {
        "name": "bot", "content": [], "role": "assistant", "id": "m", "created_at": "2026-11-21T20:50:03.770434"}


# -- factories -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("factory", "role"), [(wire.UserMsg, "user"), (wire.SystemMsg, "system")])
def test_user_and_system_msgs_wrap_a_str_and_finish_when_created(factory: Callable[..., wire.Msg], role: str) -> None:
    msg = factory("alice", "hello")
    assert msg.role == role and msg.name == "alice"
    assert len(msg.content) == 1 and isinstance(msg.content[0], wire.TextBlock)
    assert msg.content[0].text == "hello"
    assert msg.finished_at == msg.created_at and msg.finished_at is not None
    assert factory("a", "x", created_at="T").finished_at == "T"
    assert factory("a", "x", created_at="T", finished_at="U").finished_at == "U"


def test_assistant_msg_wraps_a_str_and_is_not_finished() -> None:
    msg = wire.AssistantMsg("bot", "hi")
    assert [type(b) for b in msg.content] == [wire.TextBlock] and expect(wire.TextBlock, msg.content[0]).text == "hi"
    assert msg.finished_at is None and msg.role == "assistant"


def test_factories_pass_every_argument_through() -> None:
    usage = wire.Usage(input_tokens=3, output_tokens=4)
    msg = wire.AssistantMsg("bot", [], metadata={"trace": 1}, created_at="C", finished_at="F",
                            finished_reason=wire.ReplyFinishedReason.ERROR, structured_output={"a": 1},
                            id="m", usage=usage)
    assert (msg.metadata, msg.created_at, msg.finished_at, msg.finished_reason, msg.structured_output, msg.id,
            msg.usage) == ({"trace": 1}, "C", "F", "error", {"a": 1}, "m", usage)
    user = wire.UserMsg("u", [], metadata={"k": "v"}, finished_reason=wire.ReplyFinishedReason.COMPLETED, id="u1")
    assert (user.metadata, user.finished_reason, user.id) == ({"k": "v"}, "completed", "u1")


@pytest.fixture
def counters() -> Iterator[None]:
    ids, stamps = iter(range(1, 1000)), iter(range(1, 1000))
    wire.set_id_factory(lambda: f"id{next(ids)}")
    wire.set_timestamp_factory(lambda: f"T{next(stamps)}")
    yield
    wire.set_id_factory(None)
    wire.set_timestamp_factory(None)


@pytest.mark.parametrize("factory", [wire.UserMsg, wire.SystemMsg])
def test_user_and_system_stamp_the_msg_before_its_text_block(counters: None, factory: Any) -> None:
    msg = factory("u", "hi")
    block = msg.content[0]
    assert (msg.created_at, block.created_at) == ("T1", "T2")
    assert (block.id, msg.id) == ("id1", "id2")  # agentscope builds the block, then draws the Msg's id


def test_assistant_builds_its_text_block_before_stamping_the_msg(counters: None) -> None:
    msg = wire.AssistantMsg("a", "hi")
    block = msg.content[0]
    assert (block.created_at, msg.created_at) == ("T1", "T2")
    assert (block.id, msg.id) == ("id1", "id2")


# -- helpers ----------------------------------------------------------------------------------

CALL = wire.ToolCallBlock(id="c", name="Bash", input="{}", created_at="c")
RESULT = wire.ToolResultBlock(id="c", name="Bash", output=[wire.TextBlock(text="inner", id="i", created_at="c")],
                              created_at="c")
HINT = wire.HintBlock(hint="hinted", id="h", created_at="c")


def _assistant(*blocks: Any) -> wire.Msg:
    return wire.AssistantMsg("a", list(blocks), id="m", created_at="c")


def test_get_text_content_joins_top_level_text_only() -> None:
    msg = _assistant(wire.TextBlock(text="one", id="1", created_at="c"), HINT, CALL, RESULT,
                     wire.TextBlock(text="two", id="2", created_at="c"))
    assert msg.get_text_content() == "one\ntwo"
    assert msg.get_text_content(separator="") == "onetwo"
    assert msg.get_text_content(" | ") == "one | two"


def test_get_text_content_is_none_without_text_and_empty_for_one_empty_block() -> None:
    assert _assistant().get_text_content() is None
    assert _assistant(HINT, RESULT).get_text_content() is None
    assert _assistant(wire.TextBlock(text="", id="1", created_at="c")).get_text_content() == ""


def test_get_content_blocks() -> None:
    text = wire.TextBlock(text="t", id="1", created_at="c")
    msg = _assistant(text, CALL, HINT, RESULT)
    assert msg.get_content_blocks() is msg.content  # the list itself, as agentscope returns it
    assert msg.get_content_blocks(None) is msg.content
    assert msg.get_content_blocks("tool_call") == [CALL]
    assert msg.get_content_blocks(["text", "hint"]) == [text, HINT]
    assert msg.get_content_blocks(("tool_result",)) == [RESULT]
    assert msg.get_content_blocks("nope") == [] and msg.get_content_blocks([]) == []


def test_has_content_blocks() -> None:
    msg = _assistant(CALL)
    assert msg.has_content_blocks() and msg.has_content_blocks("tool_call")
    assert msg.has_content_blocks(["text", "tool_call"]) and not msg.has_content_blocks(["text", "hint"])
    assert not msg.has_content_blocks("nope")
    assert not _assistant().has_content_blocks() and not _assistant().has_content_blocks("text")


# -- role rules ---------------------------------------------------------------------------------------------------

ALL_BLOCKS: dict[str, Callable[[], wire.ContentBlock]] = {
    "text": lambda: wire.TextBlock(text="t"),
    "data": lambda: wire.DataBlock(source=wire.Base64Source(data=b"\x00", media_type="x")),
    "thinking": lambda: wire.ThinkingBlock(thinking="t"),
    "hint": lambda: wire.HintBlock(hint="h"),
    "tool_call": lambda: wire.ToolCallBlock(id="c", name="n", input=""),
    "tool_result": lambda: wire.ToolResultBlock(id="c", name="n", output=""),
}
ALLOWED = {"user": {"text", "data"}, "system": {"text"}, "assistant": set(ALL_BLOCKS)}
ROLE_CASES = [(role, kind) for role in ALLOWED for kind in ALL_BLOCKS]


@pytest.mark.parametrize(("role", "kind"), ROLE_CASES, ids=[f"{r}-{k}" for r, k in ROLE_CASES])
def test_role_rules_on_construction(role: str, kind: str) -> None:
    content = [wire.TextBlock(text="first"), ALL_BLOCKS[kind]()]
    if kind in ALLOWED[role]:
        assert wire.Msg(name="n", content=content, role=role).content == content  # type: ignore[arg-type]
        return
    with pytest.raises(wire.RoleError) as info:
        wire.Msg(name="n", content=content, role=role)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and isinstance(info.value, wire.WireError)
    assert "content[1]" in str(info.value) and repr(kind) in str(info.value)


@pytest.mark.parametrize(("role", "kind"), ROLE_CASES, ids=[f"{r}-{k}" for r, k in ROLE_CASES])
def test_role_rules_on_decoding(role: str, kind: str) -> None:
    assistant = wire.AssistantMsg("n", [wire.TextBlock(text="first"), ALL_BLOCKS[kind]()])
    for codec, fmt in ((wire.json, msgspec.json), (wire.msgpack, msgspec.msgpack)):
        raw = fmt.decode(codec.encode(assistant))
        raw["role"] = role
        data = fmt.encode(raw)
        if kind in ALLOWED[role]:
            assert codec.decode_msg(data).role == role
            continue
        with pytest.raises(wire.DecodeError) as info:
            codec.decode_msg(data)
        assert info.value.path == "$.content[1]"
        assert "content[1]" in info.value.reason and repr(kind) in info.value.reason
        assert isinstance(info.value.__cause__, msgspec.ValidationError)


def test_factories_apply_the_role_rules() -> None:
    with pytest.raises(wire.RoleError, match=r"content\[0\]"):
        wire.UserMsg("u", [wire.ToolCallBlock(id="c", name="n", input="")])
    with pytest.raises(wire.RoleError, match=r"content\[1\]"):
        wire.SystemMsg("s", [wire.TextBlock(text="x"), wire.DataBlock(source=wire.URLSource(
            url="https://e.com/", media_type="x"))])


def test_a_bad_role_and_a_str_content_are_decode_errors() -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(b'{"name":"n","role":"tool","content":[]}')
    assert info.value.path == "$.role"
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(b'{"name":"n","role":"user","content":"hi"}')
    assert info.value.path == "$.content"  # only the factories wrap a str


# -- ids and clocks -------------------------------------------------------------------------------------------------

HEX32 = re.compile(r"[0-9a-f]{32}")


def test_default_ids_are_32_lowercase_hex_and_unique() -> None:
    seen = {wire.TextBlock(text="x").id for _ in range(100)}
    assert len(seen) == 100 and all(HEX32.fullmatch(i) for i in seen)


def test_default_timestamps_are_iso_8601_utc_with_an_offset() -> None:
    before = datetime.now().astimezone()
    stamp = wire.UserMsg("u", "x").created_at
    parsed = datetime.fromisoformat(stamp)
    offset = parsed.utcoffset()
    assert offset is not None and offset.total_seconds() == 0
    assert stamp.endswith("+00:00")
    assert abs((parsed - before).total_seconds()) < 60


# Everything that generates an id or a timestamp, with the fields it fills.
GENERATORS: list[tuple[str, Callable[[], Any], list[str]]] = [
    ("TextBlock", lambda: wire.TextBlock(text="x"), ["id", "created_at"]),
    ("HintBlock", lambda: wire.HintBlock(hint="x"), ["id", "created_at", "finished_at"]),
    ("DataBlock", lambda: wire.DataBlock(source=wire.URLSource(url="https://e.com/", media_type="x")),
     ["id", "created_at"]),
    ("ToolCallBlock", lambda: wire.ToolCallBlock(id="c", name="n", input=""), ["created_at"]),
    ("Msg", lambda: wire.Msg(name="n", content=[], role="user"), ["id", "created_at"]),
    ("UserMsg", lambda: wire.UserMsg("u", []), ["id", "created_at", "finished_at"]),
    ("AssistantMsg", lambda: wire.AssistantMsg("a", []), ["id", "created_at"]),
    ("event", lambda: wire.UserInterruptEvent(reply_id="r"), ["id", "created_at"]),
    ("tool result chunk", lambda: wire.ToolResultDataDeltaEvent(reply_id="r", tool_call_id="c", media_type="x",
                                                                 url="u"), ["id", "created_at", "block_id"]),
    ("json.decode_event", lambda: wire.json.decode_event(b'{"type":"USER_INTERRUPT","reply_id":"r"}'),
     ["id", "created_at"]),
    ("msgpack.decode_event", lambda: wire.msgpack.decode_event(
        msgspec.msgpack.encode({"type": "USER_INTERRUPT", "reply_id": "r"})), ["id", "created_at"]),
    ("json.decode_msg", lambda: wire.json.decode_msg(b'{"name":"n","role":"user","content":[]}'),
     ["id", "created_at"]),
    ("msgpack.decode_msg", lambda: wire.msgpack.decode_msg(
        msgspec.msgpack.encode({"name": "n", "role": "user", "content": []})), ["id", "created_at"]),
    ("json.decode_events", lambda: wire.json.decode_events(b'{"type":"USER_INTERRUPT","reply_id":"r"}\n')[0],
     ["id", "created_at"]),
]


@pytest.mark.parametrize(("label", "make", "filled"), GENERATORS, ids=[g[0] for g in GENERATORS])
def test_the_factories_replace_every_generator(label: str, make: Callable[[], Any], filled: list[str]) -> None:
    try:
        wire.set_id_factory(lambda: "ID")
        wire.set_timestamp_factory(lambda: "TS")
        obj = make()
        for name in filled:
            assert getattr(obj, name) == ("TS" if name.endswith("_at") else "ID"), name
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)
    obj = make()  # None restored the defaults
    for name in filled:
        value = getattr(obj, name)
        if name.endswith("_at"):
            assert datetime.fromisoformat(value).utcoffset() is not None
        else:
            assert HEX32.fullmatch(value)


def test_the_conftest_factories_are_agentscopes_apply_regime(deterministic_factories: None) -> None:
    a, b = wire.TextBlock(text="x"), wire.TextBlock(text="y")
    assert (a.id, b.id) == ("apply-000001", "apply-000002")
    assert a.created_at == "2000-01-01T00:00:00.000000"


@pytest.mark.parametrize("stamp", ["2026-01-01T12:00:00", "2026-11-21T20:50:03.769839",
                                   "2026-11-21T20:50:03.769839+00:00", "not a time at all"])
def test_any_timestamp_survives_both_codecs_unchanged(stamp: str) -> None:
    msg = wire.UserMsg("u", "x", created_at=stamp, id="m")
    msg.content[0].created_at = stamp
    for codec in (wire.json, wire.msgpack):
        back = codec.decode_msg(codec.encode(msg))
        assert back.created_at == back.finished_at == back.content[0].created_at == stamp
