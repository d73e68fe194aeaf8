"""The ``wire`` command line: demo, inspect, convert (schema has its own tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

import wire
from tests.helpers import CASES, REPLY, ROOT, VECTORS, Case, expect, run_cli, text_reply
from wire.cli import COMMANDS, main
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder

DEMO_REPLY = ROOT / "wire" / "data" / "demo-reply.jsonl"
TOOL_CASE = VECTORS / "tool_call_success"


@pytest.mark.parametrize("command", [None, "demo", "inspect", "convert", "schema"])
def test_every_command_has_help(command: str | None) -> None:
    result = run_cli(*([command] if command else []), "--help")
    assert result.returncode == 0
    assert b"usage: wire" in result.stdout and b"--help" in result.stdout
    if command is None:
        assert all(name in result.stdout for name in (b"demo", b"inspect", b"convert", b"schema"))
    assert len(COMMANDS) == 4


# -- demo ---------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["sse", "ndjson", "msgpack"])
def test_demo_streams_the_recorded_reply_over_loopback(format: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--format", format, "--pace", "0", "--no-color"]) == 0
    out = capsys.readouterr().out
    recorded = wire.AssistantMsg("Friday", [], id="5f0c9a1e7b3d4c2a8e6f1b0d9c7a5e31")
    recorded.extend_events(wire.json.decode_events(DEMO_REPLY.read_bytes()))
    assert f"over {format.upper()} from http://127.0.0.1:" in out
    assert expect(wire.TextBlock, recorded.content[4]).text in out  # the answer, shown whole
    assert "⚙ tool call Bash" in out and "↳ success" in out and "slowest-steps.png (image/png, 4,957 bytes)" in out
    assert "blocks     1 thinking, 2 text, 1 tool_call, 1 tool_result, 1 data" in out
    assert "events     198 in" in out and "\x1b[" not in out


def test_demo_runs_as_a_program_with_colors_off_when_piped() -> None:
    result = run_cli("demo", "--pace", "0")
    assert result.returncode == 0, result.stderr
    assert b"reply completed" in result.stdout and b"\x1b[" not in result.stdout


def test_demo_refuses_a_negative_pace() -> None:
    result = run_cli("demo", "--pace", "-1")
    assert (result.returncode, result.stderr) == (1, b"wire demo: error: --pace must be 0 or more seconds\n")


# -- inspect -------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_inspect_prints_every_event_and_the_rebuilt_reply(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    path = case.path / "events.jsonl"
    assert main(["inspect", str(path), "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    assert [int(line.split()[0]) for line in out[: len(lines)]] == list(range(len(lines)))
    rebuilt = wire.json.decode_msg(out[-1])
    expected = wire.json.decode_msg((case.path / "expected_msg.json").read_bytes())
    assert rebuilt.get_text_content() == expected.get_text_content()
    assert [b.type for b in rebuilt.content] == [b.type for b in expected.content]


@pytest.mark.parametrize("format", ["ndjson", "sse", "msgpack"])
def test_inspect_detects_each_framing(format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = wire.json.decode_events((TOOL_CASE / "events.jsonl").read_bytes())
    data = {"ndjson": (TOOL_CASE / "events.jsonl").read_bytes(), "sse": (TOOL_CASE / "events.sse").read_bytes(),
            "msgpack": MsgpackFrameEncoder().encode_batch(events)}[format]
    (tmp_path / "capture").write_bytes(data)
    assert main(["inspect", str(tmp_path / "capture")]) == 0
    out = capsys.readouterr().out
    assert out.count("TEXT_BLOCK_DELTA") == sum(isinstance(e, wire.TextBlockDeltaEvent) for e in events)
    assert "[1] tool_call   web_search" in out and "[2] tool_result web_search [success]" in out


def test_inspect_reads_standard_input() -> None:
    result = run_cli("inspect", "-q", "-", stdin=(TOOL_CASE / "events.jsonl").read_bytes())
    assert result.returncode == 0
    assert result.stdout.startswith(b"reply 8a0cb201725c4338b690be1eb8d90a1b from Friday: completed")


def test_inspect_bad_input_names_the_place_without_a_traceback() -> None:
    lines = (TOOL_CASE / "events.jsonl").read_bytes().splitlines(keepends=True)
    bad = b"".join(lines[:3]) + b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r"}\n' + b"".join(lines[3:])
    result = run_cli("inspect", "-", stdin=bad)
    assert result.returncode == 1
    offset = len(b"".join(lines[:3]))
    assert result.stderr == (b"wire inspect: error: Object missing required field `block_id` "
                             b"(event 3, byte %d, at $)\n" % offset)
    assert result.stdout.count(b"\n") >= 3  # the events before it are still shown


def test_inspect_keeps_unknown_events_and_refuses_garbage() -> None:
    result = run_cli("inspect", "-", stdin=b'{"type":"FUTURE_EVENT","reply_id":"r"}\n')
    assert result.returncode == 0 and b"FUTURE_EVENT" in result.stdout and b"unknown" in result.stdout
    result = run_cli("inspect", "-", stdin=b"\x00\x01garbage")
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    assert result.stderr.startswith(b"wire inspect: error: cannot tell the framing")
    result = run_cli("inspect", "--format", "msgpack", "-", stdin=b"\x00\x00\x00\x09\x81")
    assert result.returncode == 1 and b"Traceback" not in result.stderr and b"byte 0" in result.stderr


_FORGE = "bot\x1b[31mRED\x1b[0m\nFAKE LINE\u202e\x9b\x7f"


def test_inspect_escapes_what_a_terminal_would_act_on() -> None:
    """Names, ids, URLs and error texts of a capture are untrusted: an ESC
    sequence would colour the terminal and a newline forge a line."""
    reply, block, call = f"r{_FORGE}", f"b{_FORGE}", f"c{_FORGE}"
    events: list[wire.AgentEvent] = [
        wire.ReplyStartEvent(reply_id=reply, name=_FORGE, role="assistant", session_id=_FORGE),
        wire.TextBlockStartEvent(reply_id=reply, block_id=block),
        wire.TextBlockDeltaEvent(reply_id=reply, block_id=block, delta=_FORGE),
        wire.ToolCallStartEvent(reply_id=reply, tool_call_id=call, tool_call_name=_FORGE),
        wire.ToolResultStartEvent(reply_id=reply, tool_call_id=call, tool_call_name=_FORGE),
        wire.ToolResultEndEvent(reply_id=reply, tool_call_id=call, state=wire.ToolResultState.ERROR),
        wire.DataBlockStartEvent(reply_id=reply, block_id="d", media_type=f"image/{_FORGE}"),
        wire.DataBlockDeltaEvent(reply_id=reply, block_id="d", media_type=f"image/{_FORGE}",
                                 url=f"https://x/{_FORGE}"),
        wire.ModelCallStartEvent(reply_id=reply, model_name=_FORGE),
        wire.ReplyEndEvent(reply_id=reply, session_id=_FORGE,
                           error=wire.ErrorInfo(type=wire.ErrorType.UPSTREAM, message=_FORGE)),
    ]
    data = b"".join(wire.json.encode(e) + b"\n" for e in events)
    data += b'{"type":"X\\u001b[2J\\nFAKE","reply_id":"r"}\n{"type":"TEXT_BLOCK_DELTA","reply_id":"\\u001b"}\n'
    result = run_cli("inspect", "-", stdin=data)
    assert result.returncode == 1
    for stream in (result.stdout, result.stderr):
        text = stream.decode()
        assert not any(not c.isprintable() and c != "\n" for c in text), text
        assert "FAKE LINE" not in {line.strip() for line in text.splitlines()}
        assert all(not line.startswith("FAKE") for line in text.splitlines())
    assert result.stdout.count(b"\\x1b[31mRED") >= 5  # shown, escaped
    assert len(result.stderr.splitlines()) == 1


# -- convert ------------------------------------------------------------------------------


def test_convert_between_json_framings_keeps_the_payload_bytes(tmp_path: Path) -> None:
    source = TOOL_CASE / "events.jsonl"
    assert main(["convert", str(source), str(tmp_path / "out.sse"), "--to", "sse"]) == 0
    sse = (tmp_path / "out.sse").read_bytes()
    assert sse.startswith(b"id: 0\ndata: " + source.read_bytes().split(b"\n")[0] + b"\n\n")
    assert main(["convert", str(tmp_path / "out.sse"), str(tmp_path / "back.jsonl"), "--to", "ndjson"]) == 0
    assert (tmp_path / "back.jsonl").read_bytes() == source.read_bytes()


def test_convert_to_messagepack_and_back_keeps_every_event(tmp_path: Path) -> None:
    source = TOOL_CASE / "events.sse"  # agentscope's own SSE, spaces after separators
    assert main(["convert", str(source), str(tmp_path / "out.mp"), "--to", "msgpack"]) == 0
    assert main(["convert", str(tmp_path / "out.mp"), str(tmp_path / "back.jsonl"), "--to", "ndjson"]) == 0
    assert wire.json.decode_events((tmp_path / "back.jsonl").read_bytes()) == \
        wire.json.decode_events((TOOL_CASE / "events.jsonl").read_bytes())


def test_convert_writes_the_events_before_bad_input_and_fails(tmp_path: Path) -> None:
    good = (TOOL_CASE / "events.jsonl").read_bytes().splitlines(keepends=True)[:2]
    (tmp_path / "in.jsonl").write_bytes(b"".join(good) + b"not json\n")
    result = run_cli("convert", str(tmp_path / "in.jsonl"), "-", "--to", "ndjson")
    assert result.returncode == 1 and result.stdout == b"".join(good)
    assert b"the 2 events before it were written" in result.stderr and b"Traceback" not in result.stderr


# -- CLI: what it read before an error ----------------------------------------------------------------


def _capture(n: int = 5) -> bytes:
    return NDJSONEncoder().encode_batch(text_reply(n))


def test_a_capture_cut_mid_line_keeps_the_events_before_the_cut(tmp_path: Path) -> None:
    data = _capture()
    cut = data[:-20]
    inspected = run_cli("inspect", "-", stdin=cut)
    assert inspected.returncode == 1 and b"Traceback" not in inspected.stderr
    assert inspected.stdout.count(b"TEXT_BLOCK_DELTA") == 5
    assert b"event %d, byte %d" % (len(text_reply(5)) - 1, data.rindex(b"\n", 0, len(data) - 1) + 1) in inspected.stderr
    for to in ("ndjson", "sse", "msgpack"):
        converted = run_cli("convert", "-", "-", "--to", to, stdin=cut)
        assert converted.returncode == 1
        assert b"the %d events before it were written" % (len(text_reply(5)) - 1) in converted.stderr
        decoder = {"ndjson": NDJSONDecoder, "sse": SSEDecoder, "msgpack": MsgpackFrameDecoder}[to]()
        assert decoder.feed(converted.stdout) + decoder.close() == text_reply(5)[:-1]


def test_convert_names_the_stream_offset_as_inspect_does() -> None:
    lines = _capture().splitlines(keepends=True)
    bad = b"".join(lines[:3]) + b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r"}\n' + b"".join(lines[3:])
    where = b"event 3, byte %d" % len(b"".join(lines[:3]))
    assert where in run_cli("inspect", "-", stdin=bad).stderr
    for to in ("sse", "ndjson"):
        converted = run_cli("convert", "-", "-", "--to", to, stdin=bad)
        assert converted.returncode == 1 and where in converted.stderr, converted.stderr


def test_inspect_quiet_starts_with_the_summary() -> None:
    result = run_cli("inspect", "-q", "-", stdin=_capture())
    assert result.returncode == 0 and result.stdout.startswith(b"reply " + REPLY.encode())
    both = _capture() + NDJSONEncoder().encode_batch(
        [wire.ReplyStartEvent(session_id="s", reply_id="r2", name="b"),
         wire.ReplyEndEvent(session_id="s", reply_id="r2")])
    assert run_cli("inspect", "-q", "-", stdin=both).stdout.count(b"\n\nreply ") == 1


def test_msgpack_frames_convert_keeps_events_before_a_cut_frame() -> None:
    frames = MsgpackFrameEncoder().encode_batch(text_reply(3))
    converted = run_cli("convert", "-", "-", "--to", "ndjson", "--from", "msgpack", stdin=frames[:-3])
    assert converted.returncode == 1 and converted.stdout == NDJSONEncoder().encode_batch(text_reply(3)[:-1])
