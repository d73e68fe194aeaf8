"""AgentX messages and packet streams (wire.compat.agentx): every example flow
of AgentX's communication document (tests/vectors/agentx/), checked against
the document's own models written as pydantic classes, the streaming
decoders reading AgentX over NDJSON and SSE, and Hypothesis round trips."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

import wire
from tests.helpers import ROOT
from tests.strategies import json_objects, json_values, texts
from wire.compat.agentx import (
    METADATA_KEY,
    AgentXDecoder,
    events_to_packets,
    from_agentx,
    packets_to_events,
    to_agentx,
)

VECTORS = ROOT / "tests" / "vectors" / "agentx"
FLOWS = sorted(VECTORS.glob("*.json"))


# -- the document's models, as it writes them (section 2) ------------------------------------


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ToolCallPart(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str = Field(default_factory=lambda: f"tc_{uuid.uuid4().hex}")
    tool_name: str
    args: dict[str, Any]


class ToolResultPart(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    result: Any


class ToolErrorPart(BaseModel):
    type: Literal["tool_error"] = "tool_error"
    tool_call_id: str
    error_type: Literal["VALIDATION", "EXECUTION"]
    message: str


class Message(BaseModel):
    id: str = Field(default_factory=lambda: f"msg_{uuid.uuid4().hex}")
    role: Literal["user", "assistant"]
    parts: list[TextPart | ToolCallPart | ToolResultPart | ToolErrorPart]


def valid(message: dict[str, Any]) -> dict[str, Any]:
    """The message as AgentX's model reads it, in the keys it had (the model
    fills in a missing id, so the check is that reading keeps every key)."""
    read = Message.model_validate(message).model_dump(mode="json")
    if "id" not in message:
        del read["id"]
    assert read == message, "AgentX's model reads the message differently"
    return read


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def counting_ids() -> Iterator[None]:
    counter = itertools.count()
    wire.set_id_factory(lambda: f"id{next(counter)}")
    wire.set_timestamp_factory(lambda: "2026-01-01T00:00:00")
    yield
    wire.set_id_factory(None)
    wire.set_timestamp_factory(None)


def rebuild(events: list[Any]) -> list[wire.Msg]:
    """One Msg per reply, as a client folds the stream with append_event."""
    replies: dict[str, wire.Msg] = {}
    for event in events:
        if isinstance(event, wire.ReplyStartEvent) and event.reply_id not in replies:
            replies[event.reply_id] = wire.Msg(name=event.name, content=[], role=event.role, id=event.reply_id)
        replies[event.reply_id].append_event(event)
    for msg in replies.values():
        assert msg.anomalies == []
    return list(replies.values())


def one_part_each(packets: list[dict[str, Any]], ids: list[str]) -> list[dict[str, Any]]:
    """Packets as events_to_packets writes them: one part each, every one with its reply's id."""
    return [{"id": id, "role": p["role"], "parts": [part]} for p, id in zip(packets, ids, strict=True)
            for part in p["parts"]]


def reply_ids(events: list[Any], packets: list[dict[str, Any]]) -> list[str]:
    """The reply each packet went to: packets_to_events starts a reply at a new id or role."""
    starts = iter(e.reply_id for e in events if isinstance(e, wire.ReplyStartEvent))
    out: list[str] = []
    previous: dict[str, Any] | None = None
    for p in packets:
        same = previous is not None and (p.get("id") == out[-1] or ("id" not in p and p["role"] == previous["role"]))
        out.append(out[-1] if same else next(starts))
        previous = p
    return out


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# -- the document's flows ----------------------------------------------------------------------------


def test_every_flow_of_the_document_is_a_vector() -> None:
    assert [p.stem for p in FLOWS] == ["self_correction", "simple_text", "streamed_tool_call", "tool_call"]


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_the_vectors_are_valid_agentx(path: Path) -> None:
    flow = load(path)
    for message in [*flow["packets"], *flow["stream_messages"]]:
        valid(message)


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_each_message_converts_and_comes_back(path: Path) -> None:
    for packet in load(path)["packets"]:
        msg = from_agentx(packet)
        assert wire.json.decode_msg(wire.json.encode(msg)) == msg  # a valid 2.0 Msg
        back = to_agentx(msg)
        assert back == {**packet, "id": msg.id}
        valid(back)


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_a_stream_rebuilds_the_messages_it_amounts_to(path: Path) -> None:
    flow = load(path)
    msgs = rebuild(packets_to_events(flow["packets"]))
    expected = flow["stream_messages"]
    assert [{**to_agentx(m), **({} if "id" in e else {"id": None})} for m, e in zip(msgs, expected, strict=True)] \
        == [{**e, **({} if "id" in e else {"id": None})} for e in expected]
    for msg in msgs:
        valid(to_agentx(msg))


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_events_give_back_the_packets_one_part_each(path: Path) -> None:
    packets = load(path)["packets"]
    events = packets_to_events(packets)
    back = events_to_packets(events)
    assert back == one_part_each(packets, reply_ids(events, packets))
    for packet in back:
        valid(packet)


def test_the_streamed_flow_in_events(counting_ids: None) -> None:
    events = packets_to_events(load(VECTORS / "streamed_tool_call.json")["packets"], session_id="s1", name="Friday")
    assert [e.type.value for e in events] == [
        "REPLY_START", "TOOL_CALL_START", "TOOL_CALL_DELTA", "TOOL_CALL_END",
        "TOOL_RESULT_START", "TOOL_RESULT_TEXT_DELTA", "TOOL_RESULT_END",
        "TEXT_BLOCK_START", "TEXT_BLOCK_DELTA", "TEXT_BLOCK_DELTA", "TEXT_BLOCK_DELTA", "TEXT_BLOCK_END", "REPLY_END"]
    start, result_start, result_end = events[0], events[4], events[6]
    assert isinstance(start, wire.ReplyStartEvent)
    assert (start.reply_id, start.session_id, start.name, start.role) == ("msg_abc", "s1", "Friday", "assistant")
    assert isinstance(result_start, wire.ToolResultStartEvent) and result_start.tool_call_name == "write_file"
    assert isinstance(result_end, wire.ToolResultEndEvent)
    assert result_end.metadata == {METADATA_KEY: {"result": "json"}}
    [msg] = rebuild(events)
    call, result = msg.content[0], msg.content[1]
    assert isinstance(call, wire.ToolCallBlock) and call.state == wire.ToolCallState.FINISHED
    assert isinstance(result, wire.ToolResultBlock) and result.state == wire.ToolResultState.SUCCESS
    assert msg.get_text_content() == "I have successfully written the file."


def test_results_take_names_from_calls_given_and_the_msg_its_name() -> None:
    flow = load(VECTORS / "tool_call.json")["packets"]
    alone = from_agentx(flow[1])
    assert (alone.name, alone.content[0].name) == ("assistant", "")  # type: ignore[union-attr]
    named = from_agentx(flow[1], name="Friday", tool_names={"tc_123": "write_file"})
    assert (named.name, named.content[0].name) == ("Friday", "write_file")  # type: ignore[union-attr]


def test_a_validation_error_is_an_error_result_that_keeps_its_type() -> None:
    flow = load(VECTORS / "self_correction.json")
    msg = from_agentx(flow["packets"][1])
    [result] = msg.content
    assert isinstance(result, wire.ToolResultBlock)
    assert (result.state, result.output, result.metadata) == (
        wire.ToolResultState.ERROR, flow["packets"][1]["parts"][0]["message"],
        {METADATA_KEY: {"error_type": "VALIDATION"}})
    [streamed] = rebuild(packets_to_events(flow["packets"]))
    assert [b.type for b in streamed.content] == ["tool_call", "tool_result", "text", "tool_call"]
    assert streamed.content[1].name == "write_file"  # type: ignore[union-attr]
    assert streamed.content[3].state == wire.ToolCallState.PENDING  # type: ignore[union-attr]


# -- over the wire: NDJSON and SSE -------------------------------------------------------------------


def _frames(packets: list[dict[str, Any]], framing: str) -> bytes:
    lines = [json.dumps(p, ensure_ascii=False) for p in packets]
    if framing == "ndjson":
        return "".join(f"{line}\n" for line in lines).encode()
    return "".join(f"data: {line}\n\n" for line in lines).encode()


@pytest.mark.parametrize("framing", ["ndjson", "sse"])
@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_the_decoder_reads_agentx_over_ndjson_and_sse(path: Path, framing: Literal["ndjson", "sse"]) -> None:
    packets = load(path)["packets"]
    data = _frames(packets, framing)
    counter = itertools.count()
    wire.set_id_factory(lambda: f"id{next(counter)}")
    wire.set_timestamp_factory(lambda: "t")
    try:
        expected = packets_to_events(packets)
        counter = itertools.count()
        decoder = AgentXDecoder(framing)
        events = [e for i in range(len(data)) for e in decoder.feed(data[i:i + 1])] + decoder.close()
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)
    assert events == expected


def test_a_bad_packet_in_a_stream_names_where_and_keeps_what_came_before() -> None:
    good = load(VECTORS / "streamed_tool_call.json")["packets"][:2]
    data = _frames(good, "ndjson") + b'{"role": "assistant", "id": "msg_abc", "parts": [{"type": "tool_call"}]}\n'
    decoder = AgentXDecoder("ndjson")
    with pytest.raises(wire.DecodeError) as info:
        decoder.feed(data)
    assert (info.value.index, info.value.path) == (2, "$.parts[0]")
    assert "tool_name" in str(info.value)
    assert [e.type.value for e in info.value.events][-1] == "TOOL_RESULT_END"
    with pytest.raises(wire.DecodeError) as info:
        AgentXDecoder("sse").feed(b"data: [1]\n\n")
    assert (info.value.index, info.value.path) == (0, "$")
    with pytest.raises(wire.DecodeError) as info:
        packets_to_events([good[0], {"role": "assistant", "parts": [{"type": "text", "text": 1}]}])
    assert (info.value.index, info.value.path) == (1, "$.parts[0].text")
    assert len(info.value.events) == 4


# -- roles, and what 2.0 -> AgentX drops -----------------------------------------------------------------


def test_a_user_message_with_tool_parts_becomes_an_assistant_msg_and_comes_back() -> None:
    packet = {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "here"},
                                                  {"type": "tool_result", "tool_call_id": "c", "result": 3}]}
    msg = from_agentx(packet)
    assert (msg.role, msg.metadata) == ("assistant", {METADATA_KEY: {"role": "user"}})
    assert to_agentx(msg) == packet
    # In a stream, a user message showing tool parts first is an assistant reply...
    [reply] = rebuild(packets_to_events([{**packet, "parts": packet["parts"][::-1]}]))
    assert reply.role == "assistant"
    # ...and tool parts after a user message's text cannot be applied.
    text_first = [{"id": "m1", "role": "user", "parts": packet["parts"][:1]},
                  {"id": "m1", "role": "user", "parts": packet["parts"][1:]}]
    with pytest.raises(wire.DecodeError) as info:
        packets_to_events(text_first)
    assert (info.value.index, info.value.path) == (1, "$.parts[0]")


def test_2_0_only_content_is_dropped_as_documented() -> None:
    msg = wire.AssistantMsg("Friday", [
        wire.ThinkingBlock(thinking="t"), wire.HintBlock(hint="h"),
        wire.DataBlock(source=wire.URLSource(url="https://example.com/a.png", media_type="image/png")),
        wire.TextBlock(text="Hi"),
        wire.ToolCallBlock(id="c0", name="f", input=""),
        wire.ToolResultBlock(id="c0", name="f", output="partial", state=wire.ToolResultState.RUNNING),
        wire.ToolResultBlock(id="c1", name="f", output="no", state=wire.ToolResultState.DENIED),
        wire.ToolResultBlock(id="c2", name="f", output=[wire.TextBlock(text="a"), wire.TextBlock(text="b")],
                             state=wire.ToolResultState.SUCCESS),
        wire.ToolResultBlock(id="c3", name="f", output='{"json": "text"}', state=wire.ToolResultState.SUCCESS),
    ], id="r")
    assert to_agentx(msg) == {"id": "r", "role": "assistant", "parts": [
        {"type": "text", "text": "Hi"},
        {"type": "tool_call", "tool_call_id": "c0", "tool_name": "f", "args": {}},
        {"type": "tool_error", "tool_call_id": "c1", "error_type": "EXECUTION", "message": "no"},
        {"type": "tool_result", "tool_call_id": "c2", "result": "ab"},
        {"type": "tool_result", "tool_call_id": "c3", "result": '{"json": "text"}'},
    ]}


@pytest.mark.parametrize(("msg", "words"), [
    (wire.SystemMsg("s", "be nice"), "no system role (at $.role)"),
    (wire.AssistantMsg("a", [wire.ToolCallBlock(id="c", name="f", input='{"a": ')]), "at $.content[0].input"),
    (wire.AssistantMsg("a", [wire.ToolCallBlock(id="c", name="f", input="[1]")]), "not a JSON object"),
])
def test_what_agentx_cannot_hold_is_an_encode_error(msg: wire.Msg, words: str) -> None:
    with pytest.raises(wire.EncodeError) as info:
        to_agentx(msg)
    assert words in str(info.value)


def test_events_to_packets_drops_what_agentx_has_no_part_for(counting_ids: None) -> None:
    r = "r1"
    events: list[Any] = [
        wire.ReplyStartEvent(session_id="s", reply_id=r, name="Friday"),
        wire.ThinkingBlockStartEvent(reply_id=r, block_id="k"), wire.ThinkingBlockDeltaEvent(reply_id=r, block_id="k",
                                                                                           delta="hm"),
        wire.TextBlockStartEvent(reply_id=r, block_id="t"), wire.TextBlockDeltaEvent(reply_id=r, block_id="t",
                                                                                   delta="Hel"),
        wire.TextBlockEndEvent(reply_id=r, block_id="t", text="Hello"),  # an extension: sent as an increment
        wire.TextBlockDeltaEvent(reply_id="other", block_id="t", delta="?"),  # a block never started: nothing
        wire.ToolCallStartEvent(reply_id=r, tool_call_id="c", tool_call_name="f"),
        wire.ToolCallDeltaEvent(reply_id=r, tool_call_id="c", delta='{"a"'),
        wire.ToolCallDeltaEvent(reply_id=r, tool_call_id="c", delta=": 1}"),
        wire.ToolCallEndEvent(reply_id=r, tool_call_id="c"),
        wire.ToolResultStartEvent(reply_id=r, tool_call_id="c", tool_call_name="f"),
        wire.ToolResultTextDeltaEvent(reply_id=r, tool_call_id="c", delta="ok"),
        wire.ToolResultEndEvent(reply_id=r, tool_call_id="c", state=wire.ToolResultState.ERROR),
        wire.CustomEvent(name="x"),  # no reply: nothing
        wire.ExternalExecutionResultEvent(reply_id=r, execution_results=[
            wire.ToolResultBlock(id="e", name="g", output="done", state=wire.ToolResultState.SUCCESS)]),
        wire.TextBlockDeltaEvent(reply_id=r, block_id="missing", delta="lost"),  # an anomaly: nothing
        wire.ReplyEndEvent(session_id="s", reply_id=r),
    ]
    assert events_to_packets(events) == [
        {"id": r, "role": "assistant", "parts": [{"type": "text", "text": "Hel"}]},
        {"id": r, "role": "assistant", "parts": [{"type": "text", "text": "lo"}]},
        {"id": r, "role": "assistant", "parts": [{"type": "tool_call", "tool_call_id": "c", "tool_name": "f",
                                                  "args": {"a": 1}}]},
        {"id": r, "role": "assistant", "parts": [{"type": "tool_error", "tool_call_id": "c",
                                                  "error_type": "EXECUTION", "message": "ok"}]},
        {"id": r, "role": "assistant", "parts": [{"type": "tool_result", "tool_call_id": "e", "result": "done"}]},
    ]


# -- Hypothesis round trips --------------------------------------------------------------------------------

_ids = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
_text_parts = st.builds(lambda t: {"type": "text", "text": t}, texts)
_tool_parts = st.one_of(
    st.builds(lambda i, n, a: {"type": "tool_call", "tool_call_id": i, "tool_name": n, "args": a},
              _ids, texts, json_objects),
    st.builds(lambda i, r: {"type": "tool_result", "tool_call_id": i, "result": r}, _ids, json_values),
    st.builds(lambda i, e, m: {"type": "tool_error", "tool_call_id": i, "error_type": e, "message": m},
              _ids, st.sampled_from(["VALIDATION", "EXECUTION"]), texts),
)


@st.composite
def agentx_messages(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant"]))
    return {"id": draw(_ids), "role": role, "parts": draw(st.lists(st.one_of(_text_parts, _tool_parts), max_size=5))}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(agentx_messages())
def test_a_message_round_trips(message: dict[str, Any]) -> None:
    valid(message)
    msg = from_agentx(message)
    assert wire.msgpack.decode_msg(wire.msgpack.encode(msg)) == msg
    assert to_agentx(msg) == message


@st.composite
def packet_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Messages streamed as packets: each message's parts cut into packets,
    text parts only for users (2.0 keeps tool parts out of user messages)."""
    packets: list[dict[str, Any]] = []
    for n in range(draw(st.integers(0, 3))):
        role = draw(st.sampled_from(["user", "assistant"]))
        parts = st.lists(_text_parts if role == "user" else st.one_of(_text_parts, _tool_parts), min_size=1,
                         max_size=3)
        for chunk in draw(st.lists(parts, min_size=1, max_size=4)):
            packets.append({"id": f"m{n}", "role": role, "parts": chunk})
    # One tool part per call id: a repeated id is a stream the reducer flags.
    unique = itertools.count()
    return [{**p, "parts": [part if part["type"] == "text" else {**part, "tool_call_id": f"tc{next(unique)}"}
                            for part in p["parts"]]} for p in packets]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packet_streams())
def test_a_packet_stream_round_trips_through_events(packets: list[dict[str, Any]]) -> None:
    events = packets_to_events(packets)
    back = events_to_packets(events)
    assert back == one_part_each(packets, [p["id"] for p in packets])
    for packet in back:
        valid(packet)
    # Each rebuilt reply is the message the packets amount to.
    msgs = rebuild(events)
    assert [m.id for m in msgs] == list(dict.fromkeys(p["id"] for p in packets))
    for msg in msgs:
        parts = [part for p in packets if p["id"] == msg.id for part in p["parts"]]
        joined: list[dict[str, Any]] = []
        for part in parts:
            if part["type"] == "text" and joined and joined[-1]["type"] == "text":
                joined[-1] = {"type": "text", "text": joined[-1]["text"] + part["text"]}
            else:
                joined.append(part)
        assert to_agentx(msg)["parts"] == joined


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packet_streams(), st.sampled_from(["ndjson", "sse"]), st.lists(st.integers(0, 10_000), max_size=6))
def test_any_cut_of_the_bytes_gives_the_same_events(packets: list[dict[str, Any]], framing: Literal["ndjson", "sse"],
                                                    cuts: list[int]) -> None:
    data = _frames(packets, framing)
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})

    def run(read: Any) -> list[Any]:
        counter = itertools.count()
        wire.set_id_factory(lambda: f"id{next(counter)}")
        wire.set_timestamp_factory(lambda: "t")
        try:
            return read()  # type: ignore[no-any-return]
        finally:
            wire.set_id_factory(None)
            wire.set_timestamp_factory(None)

    def chunked() -> list[Any]:
        decoder = AgentXDecoder(framing)
        return [e for a, b in itertools.pairwise(bounds) for e in decoder.feed(data[a:b])] + decoder.close()

    assert run(chunked) == run(lambda: packets_to_events(packets))


# -- on demand only ------------------------------------------------------------------------------------------


def test_import_wire_does_not_import_the_converters() -> None:
    from tests.helpers import foreign_modules, modules_added_by

    assert not {m for m in modules_added_by("wire") if m.startswith("wire.compat")}
    for module in ("wire.compat.agentx", "wire.compat.agentscope1"):
        assert module in modules_added_by(module)
        assert not foreign_modules(module), f"{module} needs only msgspec and the standard library"


@pytest.mark.parametrize("name", ["wire.compat.agentscope1", "wire.compat.agentx"])
def test_each_converters_all_names_exist(name: str) -> None:
    import importlib

    module = importlib.import_module(name)
    assert len(set(module.__all__)) == len(module.__all__)
    assert not [n for n in module.__all__ if not hasattr(module, n)]
