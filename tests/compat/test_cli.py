"""``python -m wire convert --from/--to agentscope1|agentx``: files in and out,
and the one-line error with the JSON path on bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wire
from tests.helpers import REACT_TURN, ROOT, run_cli
from wire.cli import main
from wire.compat.agentx import events_to_packets
from wire.framing import MsgpackFrameDecoder

AGENTX = ROOT / "tests" / "vectors" / "agentx"


def packets(name: str) -> list[dict[str, Any]]:
    return json.loads((AGENTX / f"{name}.json").read_text(encoding="utf-8"))["packets"]  # type: ignore[no-any-return]


def test_a_1x_memory_converts_to_2_0_and_back(tmp_path: Path) -> None:
    memory = tmp_path / "memory.json"
    memory.write_text(json.dumps({"content": [[d, []] for d in REACT_TURN]}), encoding="utf-8")
    assert main(["convert", "--from", "agentscope1", str(memory), str(tmp_path / "msgs.json")]) == 0
    msgs = json.loads((tmp_path / "msgs.json").read_bytes())
    assert [m["role"] for m in msgs] == ["user", "assistant", "assistant", "assistant"]
    assert all(wire.json.decode_msg(json.dumps(m).encode()) for m in msgs)
    assert main(["convert", "--to", "agentscope1", str(tmp_path / "msgs.json"), str(tmp_path / "back.json")]) == 0
    assert json.loads((tmp_path / "back.json").read_bytes()) == REACT_TURN


def test_a_memory_s_compressed_summary_comes_first(tmp_path: Path) -> None:
    state = {"_compressed_summary": "Earlier: the user asked about Paris.", "content": [[REACT_TURN[0], []]]}
    result = run_cli("convert", "--from", "agentscope1", "-", "-", stdin=json.dumps(state).encode())
    assert result.returncode == 0, result.stderr
    first, second = (wire.json.decode_msg(json.dumps(m).encode()) for m in json.loads(result.stdout))
    assert (first.role, first.get_text_content()) == ("user", "Earlier: the user asked about Paris.")
    assert first.metadata == {"agentscope1": {"compressed_summary": True}}
    assert second.id == REACT_TURN[0]["id"]


def test_ndjson_histories_are_read_too(tmp_path: Path) -> None:
    lines = tmp_path / "history.jsonl"
    lines.write_text("".join(json.dumps(d) + "\n" for d in REACT_TURN), encoding="utf-8")
    result = run_cli("convert", "--from", "agentscope1", str(lines), "-")
    assert result.returncode == 0, result.stderr
    (tmp_path / "msgs.jsonl").write_bytes(b"".join(json.dumps(m).encode() + b"\n"
                                                   for m in json.loads(result.stdout)))
    back = run_cli("convert", "--to", "agentscope1", str(tmp_path / "msgs.jsonl"), "-")
    assert json.loads(back.stdout) == REACT_TURN


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (("--from", "agentscope1"), b'[{"name": "u", "role": "user", "content": [{"type": "text"}]}]',
     "wire convert: error: missing required field 'text' (at $[0].content[0])"),
    (("--to", "agentscope1"), b'[{"name": "u", "role": "user", "content": []}, {"name": "u", "role": "user", '
                              b'"content": [{"type": "tool_call", "id": "c", "name": "f", "input": ""}]}]',
     "wire convert: error: content[0] is a 'tool_call' block, but a user message can only contain text and "
     "data blocks (at $[1].content[0])"),
    (("--from", "agentx", "--to", "ndjson"),
     b'{"role": "assistant", "parts": [{"type": "text", "text": "a"}]}\n{"role": "assistant", "parts": [{}]}\n',
     "wire convert: error: Object missing required field `type` (event 1, at $.parts[0]); "
     "what came before it was written"),
    (("--from", "agentscope1", "--to", "sse"), b"[]",
     "wire convert: error: agentscope1 converts messages to and from 2.0 Msg JSON: "
     "give only --from agentscope1 or only --to agentscope1"),
    (("--from", "agentx", "--to", "agentscope1"), b"[]",
     "wire convert: error: convert agentx to wire's formats first, then to agentscope1"),
    (("--from", "agentx"), b"[]", "wire convert: error: --from agentx needs --to ndjson, sse or msgpack"),
    ((), b"[]", "wire convert: error: --to is required"),
    (("--from", "agentscope1"), b"[" * 100_000, "wire convert: error: nesting too deep"),
    (("--from", "agentscope1"), b'[{"name": "s", "role": "system", "content": [{"type": "tool_result", "id": [1], '
                                b'"name": "f", "output": "o"}]}]',
     "wire convert: error: expected a string, got an array (at $[0].content[0].id)"),
    (("--from", "agentscope1"),
     b'{"name": "u", "role": "user", "content": "x", "metadata": {"n": 18446744073709551616}}',
     "wire convert: error: an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry (at $.metadata.n)"),
    (("--to", "agentscope1"), b"[" * 100_000, "wire convert: error: nesting too deep"),
])
def test_bad_input_is_one_line_with_the_path(args: tuple[str, ...], stdin: bytes, message: str) -> None:
    result = run_cli("convert", "-", "-", *args, stdin=stdin)
    assert result.returncode == 1
    assert result.stderr.decode().strip() == message


@pytest.mark.parametrize("framing", ["ndjson", "sse"])
def test_agentx_packets_over_ndjson_or_sse_become_events_and_back(tmp_path: Path, framing: str) -> None:
    flow = packets("streamed_tool_call")
    lines = [json.dumps(p) for p in flow]
    source = tmp_path / f"packets.{framing}"
    source.write_text("".join(f"{line}\n" if framing == "ndjson" else f"data: {line}\n\n" for line in lines),
                      encoding="utf-8")
    events_file = tmp_path / "events.msgpack"
    assert main(["convert", "--from", "agentx", str(source), str(events_file), "--to", "msgpack"]) == 0
    decoder = MsgpackFrameDecoder()
    events = decoder.feed(events_file.read_bytes()) + decoder.close()
    msg = wire.AssistantMsg("a", [], id="msg_abc").extend_events(events)
    assert msg.get_text_content() == "I have successfully written the file."
    assert main(["convert", "--to", "agentx", str(events_file), str(tmp_path / "back.jsonl")]) == 0
    back = [json.loads(line) for line in (tmp_path / "back.jsonl").read_text(encoding="utf-8").splitlines()]
    assert back == events_to_packets(events) == flow


def test_an_array_of_agentx_messages_is_read_as_packets(tmp_path: Path) -> None:
    source = tmp_path / "flow.json"
    source.write_text(json.dumps(packets("self_correction")), encoding="utf-8")
    result = run_cli("convert", "--from", "agentx", str(source), "-", "--to", "ndjson")
    assert result.returncode == 0, result.stderr
    events = wire.json.decode_events(result.stdout)
    assert events[0].type == wire.EventType.REPLY_START
    assert sum(isinstance(e, wire.ToolResultEndEvent) and e.state == wire.ToolResultState.ERROR for e in events) == 1


def test_a_bad_message_in_an_array_keeps_the_events_before_it(tmp_path: Path) -> None:
    flow = [*packets("streamed_tool_call")[:1], {"role": "assistant", "parts": [{"type": "tool_error"}]}]
    result = run_cli("convert", "--from", "agentx", "-", "-", "--to", "ndjson", stdin=json.dumps(flow).encode())
    assert result.returncode == 1
    assert result.stderr.decode().strip() == ("wire convert: error: Object missing required field `tool_call_id` "
                                              "(event 1, at $.parts[0]); what came before it was written")
    assert [e.type.value for e in wire.json.decode_events(result.stdout)] == [
        "REPLY_START", "TOOL_CALL_START", "TOOL_CALL_DELTA", "TOOL_CALL_END"]


# -- the bytes-to-bytes functions behind the command line, in process ------------------------------------


def test_1x_files_in_every_shape() -> None:
    from wire.compat.agentscope1 import convert_from_agentscope1, convert_to_agentscope1

    one = json.dumps(REACT_TURN[0]).encode()
    lines = b"".join(json.dumps(d).encode() + b"\n" for d in REACT_TURN)
    for data, count in ((one, 1), (lines, 4), (json.dumps(REACT_TURN).encode(), 4)):
        msgs = json.loads(convert_from_agentscope1(data))
        assert len(msgs) == count
        assert json.loads(convert_to_agentscope1(json.dumps(msgs).encode())) == REACT_TURN[:count]
    msg_lines = b"".join(json.dumps(m).encode() + b"\n" for m in json.loads(convert_from_agentscope1(lines)))
    assert json.loads(convert_to_agentscope1(msg_lines)) == REACT_TURN
    single = json.dumps(json.loads(convert_from_agentscope1(one))[0]).encode()
    assert json.loads(convert_to_agentscope1(single)) == [REACT_TURN[0]]


@pytest.mark.parametrize(("data", "index", "path"), [
    (b'{"name": "u", "role": "user", "content": "x"}\n{"name": \n', 1, None),
    (b'{"name": "u", "role": "user", "content": "x"', None, None),
    (b'{"content": [], "_compressed_summary": 5}', None, "$._compressed_summary"),
    (b"5", None, "$"),
])
def test_bad_1x_files(data: bytes, index: int | None, path: str | None) -> None:
    from wire.compat.agentscope1 import convert_from_agentscope1

    with pytest.raises(wire.DecodeError) as info:
        convert_from_agentscope1(data)
    assert (info.value.index, info.value.path) == (index, path)


def test_bad_2_0_files_name_the_message() -> None:
    from wire.compat.agentscope1 import convert_to_agentscope1

    with pytest.raises(wire.DecodeError) as info:
        convert_to_agentscope1(b'{"name": "u", "role": "user", "content": [], "usage": 1}')
    assert info.value.path == "$.usage"
    with pytest.raises(wire.DecodeError) as info:
        convert_to_agentscope1(b'{"name": "u", "role": "user", "content": []}\n{"name": 1}\n')
    assert info.value.path == "$[1].name"


def test_agentx_captures_in_every_shape() -> None:
    from wire.compat.agentx import decode_agentx, packets_to_events

    flow = packets("streamed_tool_call")
    expected = [e.type for e in packets_to_events(flow)]
    for data in (json.dumps(flow).encode(), b"".join(json.dumps(p).encode() + b"\n" for p in flow),
                 b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in flow)):
        events, error = decode_agentx(data)
        assert error is None and [e.type for e in events] == expected
    events, error = decode_agentx(b"[1, 2")
    assert events == [] and isinstance(error, wire.DecodeError)
    events, error = decode_agentx(b"".join(json.dumps(p).encode() + b"\n" for p in flow[:2]) + b'{"role": "a')
    assert isinstance(error, wire.RemoteProtocolError) and error.index == 2
    assert [e.type.value for e in events][-1] == "TOOL_RESULT_END"
