"""Bridges that understand checkpoints, judged by the real clients.

A ``wire.checkpoint`` event (``wire.resume``) carries the Msg built so far; a
store serves one when it no longer has the events before it (a bounded or
trimmed log), first to a new reader or in the middle of a reader that fell
behind. For every shared vector and every cut point k, three streams:

* ``start``: checkpoint(Msg after k events) + the events from k on (a log
  whose first k events are gone);
* ``middle``: the events before k, the checkpoint, the events from k on (a
  checkpoint the client does not need: nothing may be doubled);
* ``gap``: the events before k - 3, the checkpoint, the events from k on (a
  reader that missed three events: the checkpoint fills the gap).

Each is bridged and read by ``@ag-ui/client`` 1.0.0 and by ``ai`` 7.0.173's
``readUIMessageStream``, and what they build must be what the whole stream
builds: the vector's expected Msg, with only the lossy spots of
``wire/bridges/README.md`` relaxed (the comparisons of the bridges' own
tests). CUSTOM events before the checkpoint are not in the Msg, so the client
sees only those after it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import wire
import wire.resume
from tests.bridges import vercel_client
from tests.bridges.agui_client import CLIENT_DIR, NODE, custom_mismatches, mismatches, needs_client
from tests.helpers import CASES, Case, require_npm
from wire.bridges.agui import AGUIBridge, encode_sse_batch, to_agui_sse
from wire.bridges.vercel import VercelBridge, to_sse
from wire.resume import CHECKPOINT, checkpoint

GAP = 3


def cut_streams(case: Case) -> dict[str, tuple[list[Any], list[Any]]]:
    """name -> (the stream, the events the client should see CUSTOM events of)."""
    events = wire.json.decode_events(case.events_jsonl)
    msg = wire.json.decode_msg(case.initial_msg)
    points = []
    for event in events:
        points.append(checkpoint(msg))
        msg.append_event(event)
    points.append(checkpoint(msg))
    streams: dict[str, tuple[list[Any], list[Any]]] = {}
    for k, point in enumerate(points):
        streams[f"{case.name}/start/{k}"] = ([point, *events[k:]], events[k:])
        streams[f"{case.name}/middle/{k}"] = ([*events[:k], point, *events[k:]], events)
        if k >= GAP:
            before = events[:k - GAP]
            streams[f"{case.name}/gap/{k}"] = ([*before, point, *events[k:]], before + events[k:])
    return streams


STREAMS = {name: (case, *stream) for case in CASES for name, stream in cut_streams(case).items()}


def _run_agui_batch(bodies: dict[str, bytes], tmp: Path) -> dict[str, Any]:
    listing = []
    for i, (name, body) in enumerate(bodies.items()):
        path = tmp / f"{i}.sse"
        path.write_bytes(body)
        listing.append({"name": name, "path": str(path)})
    (tmp / "list.json").write_text(json.dumps(listing), encoding="utf-8")
    assert NODE is not None
    done = subprocess.run([NODE, "run-client.mjs", "--batch", str(tmp / "list.json")], cwd=CLIENT_DIR,
                          capture_output=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def rejoined(events: list[Any], j: int) -> bytes | None:
    """A client that got the AG-UI events of ``events[:j]`` and reconnects
    (``Last-Event-ID``): the first response cut there, then the second, the
    rejoin prelude and the rest. None when no run is open at ``j``."""
    bridge = AGUIBridge()
    first = bridge.feed_many(events[:j])
    prelude = bridge.rejoin()
    if not prelude:
        return None
    return encode_sse_batch(first + prelude + bridge.feed_many(events[j:]) + bridge.close())


REJOINS = {f"{case.name}/rejoin/{j}": (case, body) for case in CASES
           for j in range(1, len(wire.json.decode_events(case.events_jsonl)))
           if (body := rejoined(wire.json.decode_events(case.events_jsonl), j)) is not None}


@pytest.fixture(scope="module")
def agui_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("agui-checkpoints")
    bodies = {name: to_agui_sse(stream) for name, (_, stream, _) in STREAMS.items()}
    bodies.update({name: body for name, (_, body) in REJOINS.items()})
    return _run_agui_batch(bodies, tmp)


@needs_client
@pytest.mark.parametrize("name", list(REJOINS))
def test_agui_client_that_reconnects_mid_run_builds_the_msg(name: str, agui_reports: dict[str, Any]) -> None:
    case, _ = REJOINS[name]
    report = agui_reports[name]
    assert len(report["runs"]) >= 2 and report["runs"][0].get("error") is None
    assert mismatches(wire.json.decode_msg(case.expected_msg), report) == []
    assert custom_mismatches(wire.json.decode_events(case.events_jsonl), report) == []


def test_join_is_feeding_a_checkpoint_to_a_new_bridge_and_leaves_open_blocks_open() -> None:
    for case in CASES:
        events = wire.json.decode_events(case.events_jsonl)
        msg = wire.json.decode_msg(case.initial_msg)
        for event in events:
            msg.append_event(event)
            prelude = AGUIBridge().join(msg)
            assert prelude == AGUIBridge().feed(checkpoint(msg))
            assert prelude[0]["type"] == "RUN_STARTED"
            if msg.finished_reason is not None:
                continue
            started = {e.get("messageId", e.get("toolCallId")) for e in prelude if e["type"].endswith("_START")}
            ended = {e.get("messageId", e.get("toolCallId")) for e in prelude if e["type"].endswith("_END")}
            parked = any(e["type"] == "RUN_FINISHED" for e in prelude)
            for block in msg.content:
                if isinstance(block, wire.TextBlock | wire.ThinkingBlock | wire.ToolCallBlock) and not parked:
                    assert block.id in started
                    assert (block.id in ended) == (block.finished_at is not None), (case.name, block.id)


@pytest.fixture(scope="module")
def vercel_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    require_npm("tests/clients-vercel")
    tmp = tmp_path_factory.mktemp("vercel-checkpoints")
    cases = []
    for i, (name, (_, stream, _)) in enumerate(STREAMS.items()):
        path = tmp / f"{i}.sse"
        path.write_bytes(to_sse(stream))
        cases.append({"name": name, "sse": str(path)})
    return {r["name"]: r for r in json.loads(vercel_client.run_client("read", cases, tmp))}


def _not_checkpoints(events: list[Any]) -> list[Any]:
    return [e for e in events if not (isinstance(e, wire.CustomEvent) and e.name == CHECKPOINT)]


@needs_client
@pytest.mark.parametrize("name", list(STREAMS))
def test_agui_client_builds_the_msg_from_a_stream_with_a_checkpoint(name: str, agui_reports: dict[str, Any]) -> None:
    case, stream, seen = STREAMS[name]
    report = agui_reports[name]
    expected = wire.json.decode_msg(case.expected_msg)
    # Lossy spot "a park a checkpoint has gone past": agentscope leaves a call
    # "submitted" after the app's result; a checkpoint taken after that result
    # does not hand the call to the app again (it would run the tool twice).
    point = next(wire.resume.read_checkpoint(e) for e in stream if wire.resume.read_checkpoint(e) is not None)
    assert point is not None
    answered = {b.id for b in point.content if isinstance(b, wire.ToolResultBlock)}
    gone_past = {f"call {id} is submitted, but no run left it pending" for id in answered}
    assert [p for p in mismatches(expected, report) if p not in gone_past] == []
    assert custom_mismatches(_not_checkpoints(seen), report) == []


@vercel_client.needs_client
@pytest.mark.parametrize("name", list(STREAMS))
def test_vercel_client_builds_the_msg_from_a_stream_with_a_checkpoint(name: str,
                                                                      vercel_reports: dict[str, Any]) -> None:
    case, _, _ = STREAMS[name]
    result = vercel_reports[name]
    expected = json.loads(case.expected_msg)
    events = wire.json.decode_events(case.events_jsonl)
    errors = [f"{e.error.type.value}: {e.error.message}" for e in events
              if isinstance(e, wire.ReplyEndEvent) and e.error is not None]
    assert result["read"]["errors"] == errors
    vercel_client.compare(result["read"]["message"], expected, "readUIMessageStream",
                          vercel_client.late_inputs(events))
    assert result["validate"]["read"] == "ok"


# -- the bridges' own behaviour ---------------------------------------------------------------------


def test_a_checkpoint_is_not_passed_on_as_a_custom_event() -> None:
    case = next(c for c in CASES if c.name == "plain_text")
    events = wire.json.decode_events(case.events_jsonl)
    msg = wire.json.decode_msg(case.initial_msg).extend_events(events[:5])
    out = AGUIBridge().feed(checkpoint(msg))
    assert [e["type"] for e in out] == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert all(c["type"] != f"data-{CHECKPOINT}" for c in VercelBridge().feed(checkpoint(msg)))


def test_a_checkpoint_the_client_has_sends_nothing() -> None:
    for case in CASES:
        events = wire.json.decode_events(case.events_jsonl)
        msg = wire.json.decode_msg(case.initial_msg)
        agui, vercel = AGUIBridge(), VercelBridge()
        for event in events:
            agui.feed(event)
            vercel.feed(event)
            msg.append_event(event)
            assert agui.feed(checkpoint(msg)) == [], (case.name, event)
            assert [c for c in vercel.feed(checkpoint(msg)) if c["type"] != "message-metadata"] == [], \
                (case.name, event)


def test_another_replys_checkpoint_is_dropped() -> None:
    bridge = AGUIBridge(reply_id="r1")
    assert bridge.feed(checkpoint(wire.AssistantMsg("x", "hi", id="r2"))) == []
    vercel = VercelBridge("r1")
    assert vercel.feed(checkpoint(wire.AssistantMsg("x", "hi", id="r2"))) == []


# -- the CLI ------------------------------------------------------------------------------------------


@needs_client
def test_cli_convert_of_a_capture_that_starts_with_a_checkpoint(tmp_path: Path) -> None:
    """``wire convert --to ag-ui|vercel`` of a trimmed capture (a checkpoint,
    then the events after it) writes what rebuilds the vector's Msg."""
    import wire.cli

    case = next(c for c in CASES if c.name == "full_reply_all_events")
    stream, _ = cut_streams(case)[f"{case.name}/start/37"]
    source = tmp_path / "capture.ndjson"
    source.write_bytes(wire.json.encode_events(stream))
    expected = wire.json.decode_msg(case.expected_msg)
    agui_out, vercel_out = tmp_path / "out.agui", tmp_path / "out.vercel"
    assert wire.cli.main(["convert", str(source), str(agui_out), "--to", "ag-ui"]) == 0
    assert wire.cli.main(["convert", str(source), str(vercel_out), "--to", "vercel"]) == 0
    assert agui_out.read_bytes() == to_agui_sse(stream)
    assert vercel_out.read_bytes() == to_sse(stream)
    report = _run_agui_batch({"cli": agui_out.read_bytes()}, tmp_path)["cli"]
    assert mismatches(expected, report) == []
    [result] = json.loads(vercel_client.run_client("read", [{"name": "cli", "sse": str(vercel_out)}], tmp_path))
    vercel_client.compare(result["read"]["message"], json.loads(case.expected_msg), "cli",
                          vercel_client.late_inputs(wire.json.decode_events(case.events_jsonl)))
