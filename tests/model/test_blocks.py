"""Content blocks and sources: tags, fields and defaults of agentscope 2.0.11
(``agentscope.message._block``), provider keys on ThinkingBlock, hints, data
sources, URL normalization, tool calls and results."""

from __future__ import annotations

import json
import operator
import re
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings

import wire
from tests.helpers import GENERATED, REQUIRED, check_fields, expect
from tests.strategies import urls

# agentscope's block fields (agentscope.message._block), transcribed: tag, then the fields in wire order.
BLOCKS: dict[type[Any], tuple[str, list[tuple[str, Any]]]] = {
    wire.TextBlock: ("text", [("text", REQUIRED), ("id", GENERATED), ("created_at", GENERATED),
                              ("finished_at", None)]),
    wire.ThinkingBlock: ("thinking", [("thinking", REQUIRED), ("id", GENERATED), ("created_at", GENERATED),
                                      ("finished_at", None)]),
    wire.HintBlock: ("hint", [("hint", REQUIRED), ("id", GENERATED), ("source", None), ("created_at", GENERATED),
                              ("finished_at", GENERATED)]),
    wire.DataBlock: ("data", [("id", GENERATED), ("source", REQUIRED), ("name", None), ("created_at", GENERATED),
                              ("finished_at", None)]),
    wire.Base64Source: ("base64", [("data", REQUIRED), ("media_type", REQUIRED)]),
    wire.URLSource: ("url", [("url", REQUIRED), ("media_type", REQUIRED)]),
    wire.ToolCallBlock: ("tool_call", [("id", REQUIRED), ("name", REQUIRED), ("input", REQUIRED),
                                       ("state", "pending"), ("suggested_rules", []), ("created_at", GENERATED),
                                       ("finished_at", None)]),
    wire.ToolResultBlock: ("tool_result", [("id", REQUIRED), ("name", REQUIRED), ("output", REQUIRED),
                                           ("state", "running"), ("metadata", {}), ("created_at", GENERATED),
                                           ("finished_at", None)]),
}


@pytest.mark.parametrize("cls", list(BLOCKS), ids=lambda c: c.__name__)
def test_block_fields_and_defaults_are_the_references(cls: type[Any]) -> None:
    check_fields(cls, BLOCKS[cls][1])


@pytest.mark.parametrize("cls", list(BLOCKS), ids=lambda c: c.__name__)
def test_block_tags_are_the_references(cls: type[Any]) -> None:
    tag = BLOCKS[cls][0]
    assert cls.__struct_config__.tag_field == "type"
    assert cls.__struct_config__.tag == tag
    fields: dict[str, Any] = {name: (b"AA==" if name == "data" else "https://x.io/" if name == "url" else "x")
                              for name, default in BLOCKS[cls][1] if default == REQUIRED}
    if cls is wire.DataBlock:
        fields["source"] = wire.URLSource(url="https://x.io/", media_type="x")
    block = cls(**fields)
    assert block.type == tag
    assert json.loads(wire.json.encode(block))["type"] == tag


def test_the_content_block_union_holds_the_six_blocks() -> None:
    assert set(wire.ContentBlock.__args__) == {wire.TextBlock, wire.ThinkingBlock, wire.HintBlock, wire.DataBlock,
                                               wire.ToolCallBlock, wire.ToolResultBlock}
    assert set(wire.DataSource.__args__) == {wire.Base64Source, wire.URLSource}


def test_permission_rule_fields() -> None:
    check_fields(wire.PermissionRule, [("tool_name", REQUIRED), ("rule_content", REQUIRED), ("behavior", REQUIRED),
                                       ("source", REQUIRED)])


@pytest.mark.parametrize(("enum", "values"), [
    (wire.ToolCallState, {"pending", "asking", "allowed", "submitted", "finished"}),
    (wire.ToolResultState, {"success", "error", "interrupted", "denied", "running"}),
    (wire.PermissionBehavior, {"allow", "deny", "ask", "passthrough"}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_block_enum_strings(enum: Any, values: set[str]) -> None:
    assert {m.value for m in enum} == values
    assert all(m == m.value for m in enum)  # compare equal to their strings, as agentscope's do


# -- defaults on construction ---------------------------------------------------------------------

HEX32 = re.compile(r"[0-9a-f]{32}")


def test_generated_fields_are_fresh_per_block() -> None:
    a, b = wire.TextBlock(text="x"), wire.TextBlock(text="x")
    assert HEX32.fullmatch(a.id) and HEX32.fullmatch(b.id) and a.id != b.id
    assert a.finished_at is None


def test_a_hint_block_is_finished_when_made() -> None:
    hint = wire.HintBlock(hint="be brief")
    assert hint.finished_at is not None and hint.source is None
    assert json.loads(wire.json.encode(hint))["finished_at"] == hint.finished_at
    assert json.loads(wire.json.encode(wire.HintBlock(hint="x", finished_at=None)))["finished_at"] is None


def test_mutable_defaults_are_not_shared() -> None:
    a = wire.ToolCallBlock(id="c", name="n", input="")
    b = wire.ToolCallBlock(id="c", name="n", input="")
    rule = wire.PermissionRule(tool_name="t", rule_content=None, behavior=wire.PermissionBehavior.ALLOW, source="s")
    a.suggested_rules.append(rule)
    assert b.suggested_rules == [] and a.state is wire.ToolCallState.PENDING
    r1 = wire.ToolResultBlock(id="c", name="n", output="")
    r2 = wire.ToolResultBlock(id="c", name="n", output="")
    r1.metadata["k"] = 1
    assert r2.metadata == {} and r2.state is wire.ToolResultState.RUNNING


def test_blocks_are_mutable_for_the_reducer() -> None:
    block = wire.TextBlock(text="a")
    block.text = "b"
    block.finished_at = "t"
    assert (block.text, block.finished_at) == ("b", "t")


# -- ThinkingBlock provider keys ------------------------------------------------------------------

SIGNED = (b'{"name":"n","role":"assistant","content":[{"type":"thinking","thinking":"","id":"t1",'
          b'"created_at":"c","finished_at":null,"signature":"EqQBsig","redacted_thinking_data":{"k":[1,2]}}]}')


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_provider_keys_are_attributes_and_written_back_after_the_fields(codec: Any) -> None:
    msg = wire.json.decode_msg(SIGNED)
    block = msg.content[0]
    assert isinstance(block, wire.ThinkingBlock)
    assert block.signature == "EqQBsig"  # type: ignore[attr-defined]
    assert vars(block) == {"signature": "EqQBsig", "redacted_thinking_data": {"k": [1, 2]}}
    back = codec.decode_msg(codec.encode(msg))
    assert vars(back.content[0]) == vars(block) and back == msg
    keys = list(json.loads(wire.json.encode(msg))["content"][0])
    assert keys[-2:] == ["signature", "redacted_thinking_data"]
    assert set(keys[:-2]) == {"type", "thinking", "id", "created_at"}  # finished_at: null is a default


def test_provider_keys_set_by_hand_are_written() -> None:
    block = wire.ThinkingBlock(thinking="t", id="i", created_at="c")
    block.signature = "s"  # type: ignore[attr-defined]
    msg = wire.AssistantMsg("a", [block], id="m", created_at="c")
    assert json.loads(wire.json.encode(msg))["content"][0]["signature"] == "s"


def test_provider_keys_take_part_in_equality() -> None:
    a = wire.ThinkingBlock(thinking="t", id="i", created_at="c")
    b = wire.ThinkingBlock(thinking="t", id="i", created_at="c")
    assert operator.eq(a, b) is True and operator.ne(a, b) is False
    b.signature = "s"  # type: ignore[attr-defined]
    assert operator.ne(a, b) is True and operator.eq(a, b) is False
    a.signature = "s"  # type: ignore[attr-defined]
    assert a == b


def test_thinking_block_compares_unequal_to_other_types_without_warnings() -> None:
    """``!=`` must not fall back on ``not NotImplemented`` (a DeprecationWarning,
    an error under this suite's filterwarnings)."""
    block = wire.ThinkingBlock(thinking="x", id="i", created_at="c")
    for other in (5, "x", wire.TextBlock(text="x", id="i", created_at="c")):
        assert operator.ne(block, other) is True and operator.eq(block, other) is False


@pytest.mark.parametrize("codec", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_encoding_a_bare_thinking_block_keeps_its_provider_keys(codec: Any) -> None:
    block = wire.ThinkingBlock(thinking="t", id="i", created_at="c")
    block.signature = "s"  # type: ignore[attr-defined]
    raw = msgspec.json.decode(codec.encode(block)) if codec is wire.json else msgspec.msgpack.decode(
        codec.encode(block))
    assert raw["signature"] == "s"


@pytest.mark.parametrize("key", ["_pending", "__class__"])
def test_any_provider_key_agentscope_keeps_is_kept(key: str) -> None:
    data = ('{"name":"n","role":"assistant","content":[{"type":"thinking","thinking":"x","id":"i",'
            f'"created_at":"c","{key}":"v"}}]}}').encode()
    msg = wire.json.decode_msg(data)
    assert expect(wire.ThinkingBlock, msg.content[0]).thinking == "x"
    assert json.loads(wire.json.encode(msg))["content"][0][key] == "v"


def test_unknown_keys_on_other_blocks_are_dropped_as_agentscope_drops_them() -> None:
    msg = wire.json.decode_msg(b'{"name":"n","role":"user","content":[{"type":"text","text":"x","id":"i",'
                               b'"created_at":"c","signature":"s"}]}')
    assert "signature" not in json.loads(wire.json.encode(msg))["content"][0]


# -- hints, data, sources ---------------------------------------------------------------------------


def test_a_hint_holds_a_str_or_a_list_of_text_and_data_blocks() -> None:
    text = wire.TextBlock(text="note", id="t", created_at="c")
    data = wire.DataBlock(source=wire.URLSource(url="https://example.com/n.png", media_type="image/png"),
                          id="d", created_at="c")
    hints: list[str | list[wire.TextBlock | wire.DataBlock]] = ["<system-reminder>be concise</system-reminder>",
                                                               [text, data]]
    for hint in hints:
        block = wire.HintBlock(hint=hint, id="h", source="system", created_at="c", finished_at="c")
        msg = wire.AssistantMsg("a", [block], id="m", created_at="c")
        assert wire.json.decode_msg(wire.json.encode(msg)).content[0] == block


def test_a_hint_list_rejects_other_blocks() -> None:
    data = (b'{"name":"n","role":"assistant","content":[{"type":"hint","hint":[{"type":"thinking",'
            b'"thinking":"x"}]}]}')
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(data)
    assert info.value.path is not None and info.value.path.startswith("$.content[0].hint")


def test_data_sources_are_chosen_by_their_tag() -> None:
    msg = wire.json.decode_msg(
        b'{"name":"n","role":"user","content":['
        b'{"type":"data","id":"a","source":{"type":"base64","data":"AAEC","media_type":"application/octet-stream"},'
        b'"name":"raw.bin","created_at":"c"},'
        b'{"type":"data","id":"b","source":{"type":"url","url":"https://example.com/n.png","media_type":"image/png"},'
        b'"created_at":"c"}]}')
    first, second = msg.content
    assert isinstance(first, wire.DataBlock) and isinstance(second, wire.DataBlock)
    assert first.source == wire.Base64Source(data=b"\x00\x01\x02", media_type="application/octet-stream")
    assert first.name == "raw.bin" and second.name is None
    assert second.source == wire.URLSource(url="https://example.com/n.png", media_type="image/png")


def test_an_unknown_source_type_is_a_decode_error() -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(b'{"name":"n","role":"user","content":[{"type":"data","source":{"type":"file",'
                             b'"path":"/x","media_type":"x"}}]}')
    assert info.value.path == "$.content[0].source.type"


# Three normalizations agentscope (pydantic AnyUrl) makes, as observed on agentscope 2.0.11.
@pytest.mark.parametrize(("given_url", "stored"), [
    ("https://EXAMPLE.com", "https://example.com/"),
    ("https://example.com/a b.png", "https://example.com/a%20b.png"),
    ("HTTPS://Example.com:443/Path/ü?x=a b", "https://example.com/Path/%C3%BC?x=a%20b"),
])
def test_urls_are_normalized_on_construction_and_decoding(given_url: str, stored: str) -> None:
    assert wire.URLSource(url=given_url, media_type="x").url == stored
    data = json.dumps({"name": "n", "role": "user", "content": [
        {"type": "data", "source": {"type": "url", "url": given_url, "media_type": "x"}}]}).encode()
    assert expect(wire.URLSource, expect(wire.DataBlock, wire.json.decode_msg(data).content[0]).source).url == stored


@pytest.mark.parametrize("bad", ["not a url", "/relative/path.png", "example.com/x", ""])
def test_a_url_that_is_not_absolute_is_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        wire.URLSource(url=bad, media_type="x")


@settings(max_examples=200, deadline=None)
@given(url=urls)
def test_url_normalization_is_idempotent(url: str) -> None:
    once = wire.URLSource(url=url, media_type="x").url
    assert wire.URLSource(url=once, media_type="x").url == once


# -- tool calls and results ------------------------------------------------------------------------------


def test_a_tool_call_carries_state_and_suggested_rules() -> None:
    msg = wire.json.decode_msg(
        b'{"name":"n","role":"assistant","content":[{"type":"tool_call","id":"call_1","name":"Bash",'
        b'"input":"{\\"command\\": \\"ls\\"}","state":"asking","suggested_rules":[{"tool_name":"Bash",'
        b'"rule_content":null,"behavior":"ask","source":"session"}],"created_at":"c"}]}')
    call = msg.content[0]
    assert isinstance(call, wire.ToolCallBlock)
    assert call.state is wire.ToolCallState.ASKING and json.loads(call.input) == {"command": "ls"}
    assert call.suggested_rules == [wire.PermissionRule(tool_name="Bash", rule_content=None,
                                                        behavior=wire.PermissionBehavior.ASK, source="session")]
    rule = json.loads(wire.json.encode(msg))["content"][0]["suggested_rules"][0]
    assert rule == {"tool_name": "Bash", "rule_content": None, "behavior": "ask", "source": "session"}


def test_a_tool_call_needs_its_id() -> None:
    with pytest.raises(wire.DecodeError, match="id"):
        wire.json.decode_msg(b'{"name":"n","role":"assistant","content":[{"type":"tool_call","name":"n",'
                             b'"input":""}]}')


@pytest.mark.parametrize("output", ["plain string output", [wire.TextBlock(text="total 0\n", id="t", created_at="c"),
                                                             wire.DataBlock(source=wire.Base64Source(
                                                                 data=b"\x00\x01\x02", media_type="x"),
                                                                 id="d", created_at="c")]],
                         ids=["str", "list"])
def test_a_tool_result_holds_str_or_list_output_state_and_metadata(output: Any) -> None:
    block = wire.ToolResultBlock(id="call_1", name="Bash", output=output, state=wire.ToolResultState.ERROR,
                                 metadata={"exit_code": 1, "nested": {"a": [None, True, 1.5]}}, created_at="c")
    msg = wire.AssistantMsg("a", [block], id="m", created_at="c")
    back = wire.json.decode_msg(wire.json.encode(msg)).content[0]
    assert back == block and isinstance(back, wire.ToolResultBlock)
    assert back.state is wire.ToolResultState.ERROR and type(back.output) is type(output)


def test_a_bad_tool_state_is_rejected() -> None:
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(b'{"name":"n","role":"assistant","content":[{"type":"tool_result","id":"c",'
                             b'"name":"n","output":"","state":"done"}]}')
    assert info.value.path == "$.content[0].state"
