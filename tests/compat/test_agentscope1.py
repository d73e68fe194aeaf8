"""AgentScope 1.x messages to and from 2.0 (wire.compat.agentscope1): fixed
cases, Hypothesis round trips, and a real agentscope 1.0.21 in its own
virtual environment (tests/compat/agentscope1_peer.py) reading what wire writes and
writing what wire reads."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import REACT_TURN, ROOT
from tests.strategies import json_objects, json_values, msgs, texts, urls
from wire.compat.agentscope1 import (
    METADATA_KEY,
    from_agentscope1,
    from_agentscope1_history,
    to_agentscope1,
    to_agentscope1_history,
)

PEER = ROOT / "tests" / "compat" / "agentscope1_peer.py"
AS1_PYTHON = Path(os.environ.get("WIRE_AGENTSCOPE1_PYTHON", ROOT / ".venv-agentscope1" / "bin" / "python"))


# -- fixed cases -----------------------------------------------------------------------



def test_a_plain_message_maps_field_by_field() -> None:
    msg = from_agentscope1(REACT_TURN[0])
    assert (msg.id, msg.name, msg.role) == ("u1", "user", "user")
    assert msg.get_text_content() == "北京今天天气怎么样?"
    assert msg.created_at == msg.finished_at == "2026-05-10T14:30:00.123000"
    assert msg.content[0].id == "u1-0"
    assert METADATA_KEY not in msg.metadata  # nothing needed keeping
    assert to_agentscope1(msg) == REACT_TURN[0]


def test_a_react_turn_converts_and_comes_back() -> None:
    history = from_agentscope1_history(REACT_TURN)
    call, result = history[1].content[1], history[2].content[0]
    assert isinstance(call, wire.ToolCallBlock) and json.loads(call.input) == {"city": "北京"}
    assert call.state == wire.ToolCallState.FINISHED  # answered later in the history
    assert isinstance(result, wire.ToolResultBlock) and result.state == wire.ToolResultState.SUCCESS
    # The system message holding a tool result becomes an assistant message...
    assert history[2].role == "assistant"
    assert history[2].metadata[METADATA_KEY]["fields"] == {"role": "system"}
    # ...raw_input is kept for the way back...
    assert history[1].metadata[METADATA_KEY]["blocks"] == {"1": {"raw_input": '{"city": "北京"}'}}
    assert to_agentscope1_history(history) == REACT_TURN
    # ...and the record survives wire's own JSON and MessagePack.
    again = [wire.json.decode_msg(wire.json.encode(m)) for m in history]
    assert to_agentscope1_history(again) == REACT_TURN
    again = [wire.msgpack.decode_msg(wire.msgpack.encode(m)) for m in history]
    assert to_agentscope1_history(again) == REACT_TURN


def test_a_memory_saved_by_1x_converts_and_comes_back() -> None:
    state = json.loads((ROOT / "tests" / "vectors" / "agentscope-1.0.21" / "react_memory.json").read_bytes())
    history = from_agentscope1_history(state["content"])
    assert [(m.role, [b.type for b in m.content]) for m in history] == [
        ("user", ["text"]), ("assistant", ["thinking", "tool_call"]), ("assistant", ["tool_result"]),
        ("assistant", ["text"])]
    assert history[1].content[1].state == wire.ToolCallState.FINISHED  # type: ignore[union-attr]
    assert history[3].metadata == {"city": "Paris", "celsius": 18}
    assert to_agentscope1_history(history, marks=True) == state["content"]


def test_a_call_alone_stays_pending_and_one_answered_in_its_message_is_finished() -> None:
    alone = from_agentscope1(REACT_TURN[1])
    assert alone.content[1].state == wire.ToolCallState.PENDING  # type: ignore[union-attr]
    both = from_agentscope1({**REACT_TURN[1], "content": [*REACT_TURN[1]["content"], *REACT_TURN[2]["content"]]})
    assert both.content[1].state == wire.ToolCallState.FINISHED  # type: ignore[union-attr]


@pytest.mark.parametrize("role", ["user", "system"])
@pytest.mark.parametrize("block", [
    {"type": "thinking", "thinking": "hm"},
    {"type": "tool_use", "id": "c", "name": "n", "input": {}},
    {"type": "tool_result", "id": "c", "name": "n", "output": "ok"},
    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
])
def test_a_block_the_role_forbids_makes_an_assistant_message(role: str, block: dict[str, Any]) -> None:
    d = {"id": "m", "name": "n", "role": role, "content": [{"type": "text", "text": "x"}, block],
         "metadata": {}, "timestamp": "2026-01-01 00:00:00.000"}
    msg = from_agentscope1(d)
    allowed = {"user": (wire.TextBlock, wire.DataBlock), "system": (wire.TextBlock,)}[role]
    assert msg.role == ("assistant" if not isinstance(msg.content[1], allowed) else role)
    assert to_agentscope1(msg) == d
    assert wire.json.decode_msg(wire.json.encode(msg)) == msg  # a valid 2.0 Msg


def test_media_blocks_become_data_blocks() -> None:
    png = base64.b64encode(b"\x89PNG\r\n").decode()
    d = {"id": "m", "name": "user", "role": "user", "metadata": {}, "timestamp": "2026-01-01 00:00:00.000",
         "content": [
             {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
             {"type": "audio", "source": {"type": "url", "url": "https://example.com/a.WAV"}},
             {"type": "video", "source": {"type": "url", "url": "https://example.com/clip"}},
             {"type": "image", "source": {"type": "url", "url": "/data/图 1.png"}},
             {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                          "data": f"data:image/png;base64,{png}"}},
             {"type": "video", "source": {"type": "base64", "media_type": "application/octet-stream",
                                          "data": png}},
         ]}
    msg = from_agentscope1(d)
    sources: list[Any] = [b.source for b in msg.content]  # type: ignore[union-attr]
    assert sources[0] == wire.Base64Source(data=b"\x89PNG\r\n", media_type="image/png")
    assert sources[1] == wire.URLSource(url="https://example.com/a.WAV", media_type="audio/x-wav") or \
        sources[1].media_type.startswith("audio/")
    assert sources[2] == wire.URLSource(url="https://example.com/clip", media_type="video/*")
    assert sources[3] == wire.URLSource(url="file:///data/%E5%9B%BE%201.png", media_type="image/png")
    assert sources[4] == sources[0]
    assert sources[5].media_type == "application/octet-stream"
    assert set(msg.metadata[METADATA_KEY]["blocks"]) == {"3", "4", "5"}
    assert to_agentscope1(msg) == d


def test_other_timestamps_invocation_ids_and_unknown_keys_are_kept() -> None:
    d = {"id": "m", "name": "n", "role": "assistant", "content": [{"type": "text", "text": "x", "lang": "en"}],
         "metadata": {"k": [1, None]}, "timestamp": "yesterday", "invocation_id": "inv-7", "url": "old"}
    msg = from_agentscope1(d)
    assert msg.created_at == "yesterday"
    assert msg.metadata[METADATA_KEY] == {
        "fields": {"invocation_id": "inv-7", "url": "old"},  # an opaque timestamp comes back by itself
        "content": "list", "blocks": {"0": {"lang": "en"}}}
    assert to_agentscope1(msg) == d


def test_what_1x_fills_in_is_filled_in() -> None:
    wire.set_id_factory(lambda: "new")
    wire.set_timestamp_factory(lambda: "2026-02-03T04:05:06.789000")
    try:
        msg = from_agentscope1({"name": "n", "role": "user", "content": "hi", "metadata": None,
                                "timestamp": None, "invocation_id": None})
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)
    # A null invocation_id is kept as it was (1.x's from_dict reads it as the None it defaults to).
    assert to_agentscope1(msg) == {"id": "new", "name": "n", "role": "user", "content": "hi", "metadata": {},
                                   "timestamp": "2026-02-03 04:05:06.789", "invocation_id": None}


def test_memory_pairs_keep_their_marks() -> None:
    state = [[REACT_TURN[0], ["hint"]], [REACT_TURN[3], []]]
    history = from_agentscope1_history(state)
    assert history[0].metadata[METADATA_KEY]["marks"] == ["hint"]
    assert to_agentscope1_history(history, marks=True) == state
    assert to_agentscope1_history(history) == [REACT_TURN[0], REACT_TURN[3]]


@pytest.mark.parametrize(("d", "path", "words"), [
    ([], "$", "JSON object"),
    ({"role": "user", "content": "x"}, "$", "'name'"),
    ({"name": "n", "role": "bot", "content": "x"}, "$.role", "one of"),
    ({"name": "n", "role": "user", "content": 5}, "$.content", "a string or an array"),
    ({"name": "n", "role": "user", "content": "x", "metadata": []}, "$.metadata", "object"),
    ({"name": "n", "role": "user", "content": "x", "metadata": {METADATA_KEY: 1}}, "$.metadata.agentscope1",
     "wire's own"),
    ({"name": "n", "role": "user", "content": ["x"]}, "$.content[0]", "JSON object"),
    ({"name": "n", "role": "user", "content": [{"type": "file"}]}, "$.content[0].type", "unknown 1.x block"),
    ({"name": "n", "role": "user", "content": [{"type": "text"}]}, "$.content[0]", "'text'"),
    ({"name": "n", "role": "user", "content": [{"type": "image", "source": {"type": "base64",
      "media_type": "image/png", "data": "not base64!"}}]}, "$.content[0].source.data", "not base64"),
    ({"name": "n", "role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "cat.png"}}]},
     "$.content[0].source.url", "not a URL"),
    ({"name": "n", "role": "user", "content": [{"type": "image", "source": {"type": "file"}}]},
     "$.content[0].source.type", "'base64' or 'url'"),
    ({"name": "n", "role": "user", "content": [{"type": "tool_use", "id": "c", "name": "n", "input": "{}"}]},
     "$.content[0].input", "object"),
    ({"name": "n", "role": "user", "content": [{"type": "tool_result", "id": "c", "name": "n",
      "output": [{"type": "tool_use", "id": "c", "name": "n", "input": {}}]}]}, "$.content[0].output[0].type",
     "tool result's output"),
])
def test_bad_input_names_its_path(d: Any, path: str, words: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        from_agentscope1(d)
    assert info.value.path == path
    assert words in str(info.value)


def test_a_bad_history_entry_names_its_index() -> None:
    with pytest.raises(wire.DecodeError) as info:
        from_agentscope1_history([REACT_TURN[0], [REACT_TURN[1], ["m"]], [{"name": 1}, []]])
    assert info.value.path == "$[2][0].name"
    with pytest.raises(wire.DecodeError) as info:
        from_agentscope1_history([[REACT_TURN[0]]])
    assert info.value.path == "$[0]"


# -- 2.0 -> 1.x: what is dropped -------------------------------------------------------------


def test_2_0_only_content_is_dropped_as_documented() -> None:
    msg = wire.AssistantMsg("Friday", [
        wire.HintBlock(hint="be brief"),
        wire.TextBlock(text="Hi"),
        wire.DataBlock(source=wire.Base64Source(data=b"%PDF", media_type="application/pdf"), name="a.pdf"),
        wire.ToolCallBlock(id="c1", name="f", input='{"a": 1', state=wire.ToolCallState.ASKING),
        wire.ToolResultBlock(id="c1", name="f", output="boom", state=wire.ToolResultState.ERROR,
                             metadata={"x": 1}),
        wire.ThinkingBlock(thinking="t"),
    ], structured_output={"answer": 1, "k": "so"}, metadata={"k": "own"},
        created_at="2026-01-01T10:00:00.123456+00:00", usage=wire.Usage(input_tokens=1, output_tokens=2))
    msg.content[5].signature = "sig"  # type: ignore[union-attr]
    d = to_agentscope1(msg)
    assert d["content"] == [
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}, "raw_input": '{"a": 1'},
        {"type": "tool_result", "id": "c1", "name": "f", "output": "boom"},
        {"type": "thinking", "thinking": "t", "signature": "sig"},
    ]
    assert d["metadata"] == {"answer": 1, "k": "own"}
    local = datetime.fromisoformat("2026-01-01T10:00:00.123456+00:00").astimezone()
    assert d["timestamp"] == local.strftime("%Y-%m-%d %H:%M:%S.123")
    assert set(d) == {"id", "name", "role", "content", "metadata", "timestamp"}


def test_a_history_splits_2_0_replies_into_1x_s_layout() -> None:
    reply = wire.AssistantMsg("Friday", [
        wire.TextBlock(text="Checking."),
        wire.ToolCallBlock(id="c1", name="f", input="{}"), wire.ToolCallBlock(id="c2", name="g", input="{}"),
        wire.ToolResultBlock(id="c1", name="f", output="1"), wire.ToolResultBlock(id="c2", name="g", output="2"),
        wire.TextBlock(text="Done."),
    ], id="r", metadata={"k": 1}, created_at="2026-01-01T00:00:00")
    history = to_agentscope1_history([reply])
    assert [(d["id"], d["role"], d["name"], d["metadata"]) for d in history] == [
        ("r", "assistant", "Friday", {"k": 1}), ("r-1", "system", "system", {}), ("r-2", "system", "system", {}),
        ("r-3", "assistant", "Friday", {"k": 1})]
    assert [d["content"] for d in history][1:] == [
        [{"type": "tool_result", "id": "c1", "name": "f", "output": "1"}],
        [{"type": "tool_result", "id": "c2", "name": "g", "output": "2"}], "Done."]
    assert {d["timestamp"] for d in history} == {"2026-01-01 00:00:00.000"}
    assert to_agentscope1(reply)["content"][3]["type"] == "tool_result"  # one message stays one


def test_a_1x_assistant_message_holding_results_is_not_split() -> None:
    d = {"id": "a", "name": "Friday", "role": "assistant", "metadata": {}, "timestamp": "2026-01-01 00:00:00.000",
         "content": [{"type": "tool_use", "id": "c", "name": "f", "input": {}},
                     {"type": "tool_result", "id": "c", "name": "f", "output": "ok"}]}
    msg = from_agentscope1(d)
    assert msg.metadata == {METADATA_KEY: {"whole": True}}
    assert to_agentscope1_history([msg]) == [d]


def test_a_corrupt_record_is_an_encode_error() -> None:
    with pytest.raises(wire.EncodeError):
        to_agentscope1(wire.UserMsg("u", "x", metadata={METADATA_KEY: "oops"}))


# -- Hypothesis: 1.x -> 2.0 -> 1.x is exact -------------------------------------------------------------

_timestamps = st.one_of(st.datetimes().map(lambda t: t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]), texts)
_extras = st.dictionaries(st.sampled_from(["lang", "cache_control", "source_id"]), json_values, max_size=2)
_kinds = st.sampled_from(["image", "audio", "video"])


@st.composite
def _media(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(_kinds)
    if draw(st.booleans()):
        data = base64.b64encode(draw(st.binary(max_size=24))).decode()
        if draw(st.booleans()):
            data = f"data:{kind}/x;base64,{data}"
        media_type = draw(st.sampled_from([f"{kind}/png", "application/octet-stream", "audio/wav", ""]))
        source: dict[str, Any] = {"type": "base64", "media_type": media_type, "data": data}
    else:
        source = {"type": "url", "url": draw(st.one_of(urls, st.sampled_from(
            ["https://example.com", "HTTPS://Example.COM/a b.jpg", "/tmp/x.mp4", "/tmp/目录/y"])))}
    return {"type": kind, "source": source, **draw(_extras)}


_text = st.builds(lambda text, extra: {"type": "text", "text": text, **extra}, texts, _extras)
_thinking = st.builds(lambda text: {"type": "thinking", "thinking": text}, texts)


@st.composite
def _tool_use(draw: st.DrawFn) -> dict[str, Any]:
    block = {"type": "tool_use", "id": draw(texts), "name": draw(texts), "input": draw(json_objects)}
    if draw(st.booleans()):
        block["raw_input"] = draw(texts)
    return block


_tool_result = st.builds(lambda id, name, output: {"type": "tool_result", "id": id, "name": name, "output": output},
                         texts, texts, st.one_of(texts, st.lists(st.one_of(_text, _media()), max_size=3)))
_blocks_1x = st.one_of(_text, _thinking, _media(), _tool_use(), _tool_result)


@st.composite
def as1_messages(draw: st.DrawFn) -> dict[str, Any]:
    metadata = draw(json_objects)
    metadata.pop(METADATA_KEY, None)
    d: dict[str, Any] = {
        "id": draw(texts), "name": draw(texts), "role": draw(st.sampled_from(["user", "assistant", "system"])),
        "content": draw(st.one_of(texts, st.lists(_blocks_1x, max_size=4))),
        "metadata": metadata, "timestamp": draw(_timestamps),
    }
    if draw(st.booleans()):
        d["invocation_id"] = draw(texts)
    return d


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(as1_messages())
def test_1x_to_2_0_and_back_is_exact(d: dict[str, Any]) -> None:
    msg = from_agentscope1(d)
    assert to_agentscope1(msg) == d
    # The Msg is a valid 2.0 Msg and its record survives wire's codecs.
    for codec in (wire.json, wire.msgpack):
        again = codec.decode_msg(codec.encode(msg))
        assert again == msg
        assert to_agentscope1(again) == d


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(as1_messages(), max_size=5))
def test_histories_round_trip_and_answered_calls_are_finished(history: list[dict[str, Any]]) -> None:
    converted = from_agentscope1_history(history)
    assert to_agentscope1_history(converted) == history
    answered = {b.id for m in converted for b in m.content if isinstance(b, wire.ToolResultBlock)}
    for m in converted:
        for b in m.content:
            if isinstance(b, wire.ToolCallBlock):
                assert (b.state == wire.ToolCallState.FINISHED) == (b.id in answered)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs())
def test_2_0_to_1x_and_back_keeps_what_1x_can_hold(msg: wire.Msg) -> None:
    assume(METADATA_KEY not in msg.metadata)  # wire's own record of a 1.x message: tested on its own
    d = to_agentscope1(msg)
    json.dumps(d)  # plain JSON
    again = from_agentscope1(d)
    assert to_agentscope1(again) == d  # stable after one trip
    kept = [b for b in msg.content if not isinstance(b, wire.HintBlock) and not (
        isinstance(b, wire.DataBlock) and b.source.media_type.partition("/")[0] not in ("image", "audio", "video"))]
    assert [type(b) for b in again.content] == [type(b) for b in kept]
    assert again.get_text_content() == msg.get_text_content()


# -- the real agentscope 1.0.21 ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def peer() -> Iterator[Any]:
    if not AS1_PYTHON.exists():
        if os.environ.get("WIRE_REQUIRE_AGENTSCOPE1"):
            pytest.fail(f"agentscope 1.x is required but {AS1_PYTHON} is missing")
        pytest.skip(f"no agentscope 1.x environment at {AS1_PYTHON} (.ci/run creates it)")
    process = subprocess.Popen([str(AS1_PYTHON), str(PEER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, encoding="utf-8", env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert process.stdin is not None and process.stdout is not None

    def ask(op: str, **fields: Any) -> Any:
        process.stdin.write(json.dumps({"op": op, **fields}) + "\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        line = process.stdout.readline()  # type: ignore[union-attr]
        assert line, "the agentscope 1.x peer exited"
        return json.loads(line)

    yield ask
    process.stdin.close()
    process.wait(timeout=30)
    process.stdout.close()


def test_what_1x_writes_converts_and_round_trips(peer: Any) -> None:
    samples = peer("samples")
    assert len(samples) == 11
    history = from_agentscope1_history(samples)
    assert to_agentscope1_history(history) == samples
    roles = [m.role for m in history]
    assert roles[4:7] == ["assistant"] * 3  # the system messages holding tool results
    assert roles[9] == "system"
    assert history[3].content[2].state == wire.ToolCallState.FINISHED  # type: ignore[union-attr]
    # 1.x's own reading of the round-tripped dicts is its reading of the originals.
    assert peer("load", messages=to_agentscope1_history(history)) == peer("load", messages=samples)


def _expected_1x_view(d: dict[str, Any]) -> dict[str, Any]:
    """What 1.x's ``Msg.from_dict(d).to_dict()`` gives: every key but
    invocation_id (an empty timestamp is stamped anew, as 1.x does)."""
    return {k: d[k] for k in ("id", "name", "role", "content", "metadata", "timestamp") if d[k] != ""}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(msgs(), min_size=1, max_size=10))
def test_1x_reads_what_wire_writes(peer: Any, batch: list[wire.Msg]) -> None:
    written = to_agentscope1_history(batch)
    answers = peer("load", messages=written)
    for d, answer in zip(written, answers, strict=True):
        assert "error" not in answer, answer
        assert _expected_1x_view(d).items() <= answer["to_dict"].items()
        assert answer["block_types"] == ([b["type"] for b in d["content"]] if isinstance(d["content"], list)
                                         else ["text"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(as1_messages(), min_size=1, max_size=10))
def test_1x_reads_the_round_trip_as_it_reads_the_original(peer: Any, batch: list[dict[str, Any]]) -> None:
    again = to_agentscope1_history(from_agentscope1_history(batch))
    first, second = peer("load", messages=batch), peer("load", messages=again)
    for d, answers in zip(batch, zip(first, second, strict=True), strict=True):
        if not d["timestamp"]:  # 1.x stamps each reading anew
            for answer in answers:
                answer["to_dict"].pop("timestamp", None)
    assert first == second
    assert all("error" not in a for a in first)
    assert [a["invocation_id"] for a in second] == [d.get("invocation_id") for d in batch]


def test_a_1x_formatter_accepts_a_converted_2_0_conversation(peer: Any) -> None:
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    conversation = [
        wire.SystemMsg("system", "You are Friday."),
        wire.UserMsg("user", [wire.TextBlock(text="What is this?"),
                              wire.DataBlock(source=wire.Base64Source(data=png, media_type="image/png"))]),
        wire.AssistantMsg("Friday", [
            wire.ThinkingBlock(thinking="Look it up."),
            wire.ToolCallBlock(id="call_1", name="lookup", input='{"q": "pixel"}'),
            wire.ToolResultBlock(id="call_1", name="lookup", output="a 1x1 PNG", state=wire.ToolResultState.SUCCESS),
            wire.TextBlock(text="A single pixel."),
        ]),
    ]
    formatted = peer("format", messages=to_agentscope1_history(conversation))
    assert "error" not in formatted, formatted
    assert [m["role"] for m in formatted] == ["system", "user", "assistant", "tool", "assistant"]
    assert formatted[1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert json.loads(formatted[2]["tool_calls"][0]["function"]["arguments"]) == {"q": "pixel"}
    assert formatted[3]["tool_call_id"] == "call_1" and "a 1x1 PNG" in json.dumps(formatted[3]["content"])


def test_the_peer_runs_outside_wire() -> None:
    assert "wire" not in PEER.read_text(encoding="utf-8").split('"""', 2)[2]
    assert sys.executable != str(AS1_PYTHON)


def test_a_record_key_that_is_not_wires_record_is_an_encode_error() -> None:
    msg = wire.UserMsg("u", "hi", metadata={METADATA_KEY: True})
    with pytest.raises(wire.EncodeError, match=METADATA_KEY):
        to_agentscope1(msg)
