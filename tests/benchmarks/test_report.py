"""The benchmark report shows every target, met or missed, from one run, and
the encode peers write exactly wire's bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import wire
from benchmarks import report, workload


def _bench(name: str, group: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "fullname": f"benchmarks/x.py::{name}", "group": group, "param": None,
            "params": None, "stats": {"median": 0.01, "rounds": 3}, "extra_info": extra}


def _doc() -> dict[str, Any]:
    run = {
        "machine_info": {"cpu": {"brand_raw": "CPU X", "count": 2}, "cpu_count_affinity": 2, "versions": {}},
        "benchmarks": [
            _bench("test_target_encode", "gaps: encode", medians={"a": 0.01, "b": 0.02}, ratios={
                "encode, same NDJSON: wire vs orjson per dict (>= 1.0)": 3.5,
                "encode, same JSON array: wire vs orjson over dataclasses (>= 1.0)": 0.93,
                "encode: wire NDJSON vs wire JSON array (info)": 1.1}),
            dict(_bench("test_target_reader_loops[wire]", "targets", medians={
                "feed + append_event per event": 0.015, "feed + extend_events": 0.011,
                "msgspec decode_lines (bare)": 0.01}), name="test_target_reader_loops[wire]"),
        ],
    }
    return {"commit": "0123456789abcdef", "dirty": False, "started": "2026-01-01T00:00:00", "seconds": 60,
            "command": "python benchmarks/report.py --readme", "pytest": run,
            "ts_browser": {"chromium": "1", "rounds": 3, "bytes_to_msg_ms": {
                "floor: TextDecoder + split + JSON.parse per line": 100.0,
                "runtime: NDJSONDecoder (64 KiB feeds) + extendEvents": 160.0}},
            "ts_partial": {"rounds": 15, "pair": ["view", "re-parse"], "results": [
                {"deltas": 4000, "medians_ms": {"view": 1.0, "re-parse": 10.0}, "ratio": 10.0}]}}


def test_every_target_is_shown_met_or_missed() -> None:
    block = report.readme_block(_doc(), None)
    assert "`0123456789ab` (clean tree)" in block
    assert "| encode, same NDJSON: wire vs orjson per dict (>= 1.0) | >= 1.0x | 3.50x | pass |" in block
    assert "| encode, same JSON array: wire vs orjson over dataclasses (>= 1.0) | >= 1.0x | 0.93x | **FAIL** |" \
        in block
    assert "| encode: wire NDJSON vs wire JSON array (info) | info | 1.10x |  |" in block
    assert "re-parse (close + JSON.parse) / PartialJSON (info) | info | 10.00x" in block
    assert "| reader loop, wire's NDJSON: NDJSONDecoder.feed (64 KiB) + append_event per event / bare " \
        "decode_lines | <= 1.3x | 1.50x | **FAIL** |" in block
    assert "| reader batch, wire's NDJSON: NDJSONDecoder.feed (64 KiB) + extend_events / bare decode_lines " \
        "| <= 1.0x | 1.10x | **FAIL** |" in block
    assert "TS bytes to Msg (headless Chromium): NDJSONDecoder (64 KiB feeds) + extendEvents / TextDecoder + " \
        "split + JSON.parse per line | <= 1.5x | 1.60x | **FAIL** |" in block


def test_the_readme_table_is_the_runs_and_names_its_commit() -> None:
    block = report.headline_block(_doc())
    assert "commit `0123456789`" in block
    assert "| encode the same JSON array: orjson over dataclasses ÷ wire | ≥ 1.0x | 0.93x | missed |" in block
    assert "| encode the same NDJSON: orjson per dict ÷ wire | ≥ 1.0x | 3.50x | met |" in block
    assert "| a reader's loop, `feed` + `append_event` per event ÷ bare `decode_lines` | ≤ 1.3x | 1.50x | missed |" \
        in block
    assert "| the same in headless Chromium | ≤ 1.5x | 1.60x | missed |" in block


def test_a_dirty_or_changing_tree_is_named() -> None:
    doc = dict(_doc(), dirty=True, changed_during_run=True)
    head = "\n".join(report.machine(doc))
    assert "uncommitted changes" in head and "changed during the run" in head


def test_before_column(tmp_path: Path) -> None:
    before = _doc()
    before["commit"] = "fedcba9876543210"
    before["pytest"]["benchmarks"][0]["extra_info"]["ratios"]["encode, same NDJSON: wire vs orjson per dict (>= 1.0)"] \
        = 2.0
    block = report.readme_block(_doc(), before)
    assert "before (`fedcba9876`)" in block
    assert "| encode, same NDJSON: wire vs orjson per dict (>= 1.0) | >= 1.0x | 2.00x | 3.50x | pass |" in block


def test_readmes_are_rewritten_between_their_markers_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "README.md").write_text(
        "intro\n<!-- benchmark-results:start -->\nold 1.23x\n<!-- benchmark-results:end -->\noutro\n")
    (tmp_path / "README.md").write_text("top\n<!-- performance:start -->\nold\n<!-- performance:end -->\nend\n")
    monkeypatch.setattr(report, "ROOT", tmp_path)
    report.update_readmes(_doc(), None)
    text = (tmp_path / "benchmarks" / "README.md").read_text()
    assert text.startswith("intro\n<!-- benchmark-results:start -->\n") and text.endswith(
        "<!-- benchmark-results:end -->\noutro\n")
    assert "old 1.23x" not in text and "3.50x" in text
    assert "0.93x" in (tmp_path / "README.md").read_text()


def test_encode_peers_write_wires_bytes() -> None:
    pytest.importorskip("pytest_benchmark")
    from benchmarks.bench_gaps import _as_dataclass, _orjson_array, _orjson_ndjson, _with_bytes

    events = workload.reply_events(seed=0, scale=0.02)
    ndjson = wire.json.encode_events(events)
    dicts = [orjson.loads(line) for line in ndjson.splitlines()]
    items = [_as_dataclass(e) for e in events]
    assert _orjson_array(items) == wire.json.encode(events) == orjson.dumps(dicts) == _orjson_array(_with_bytes(dicts))
    assert _orjson_ndjson(items) == ndjson == _orjson_ndjson(_with_bytes(dicts))


def test_each_target_is_shown_from_the_harness_and_from_a_plain_loop() -> None:
    doc = _doc()
    doc["plain"] = {"test_target_reader_loops[wire]": {
        "feed + append_event per event": 0.012, "feed + extend_events": 0.0095, "msgspec decode_lines (bare)": 0.01}}
    block = report.readme_block(doc, None)
    assert "#### The targets from the harness and from a plain loop" in block
    assert "| reader loop, wire's NDJSON: NDJSONDecoder.feed (64 KiB) + append_event per event / bare decode_lines " \
        "| <= 1.3x | 15.00 ms / 10.00 ms | 1.50x (**FAIL**) | 12.00 ms / 10.00 ms | 1.20x (pass) | |" in block
    assert "| reader batch, wire's NDJSON: NDJSONDecoder.feed (64 KiB) + extend_events / bare decode_lines " \
        "| <= 1.0x | 11.00 ms / 10.00 ms | 1.10x (**FAIL**) | 9.50 ms / 10.00 ms | 0.95x (pass) | |" in block
    # every round-robin target has its row, measured or not
    table = block.split("#### The targets from the harness and from a plain loop")[1].split("\n\n")[2]
    rows = table.splitlines()[2:]
    assert len(rows) == sum(t.test is not None for t in report.TARGETS)


def test_the_padded_chunk_reply_is_a_target_in_python_and_typescript() -> None:
    doc = _doc()
    doc["ts"] = {"rounds": 3, "growth_ms": {}, "bundle": {},
                 "bytes_to_msg_ms": {report._TS_FLOOR: 100.0, report._TS_RUNTIME: 120.0},
                 "padded_bytes_to_msg_ms": {report._TS_FLOOR: 100.0, report._TS_RUNTIME: 140.0}}
    doc["ts_browser"]["padded_bytes_to_msg_ms"] = {report._TS_FLOOR: 100.0, report._TS_RUNTIME: 200.0}
    rows = {label: (goal, ratio, passed) for label, goal, ratio, passed in report.all_ratios(doc)}
    padded = {label: row for label, row in rows.items() if "padded data chunks" in label}
    assert {label.split(":")[0] for label in padded} == {
        "TS bytes to Msg (node), padded data chunks", "TS bytes to Msg (headless Chromium), padded data chunks"}
    assert sorted(row[1:] for row in padded.values()) == [(1.4, True), (2.0, False)]
    assert any(t.test == "test_target_bytes_to_msg[padded chunks]" for t in report.TARGETS)
    assert any(t.test == "test_target_reader_loops[wire, padded chunks]" for t in report.TARGETS)
    assert "the same in node, data chunks each padded" in report.headline_block(doc)


def test_the_page_faults_of_each_call_are_shown_beside_its_time() -> None:
    doc = _doc()
    doc["pytest"]["benchmarks"][1]["extra_info"]["faults"] = {
        "feed + append_event per event": 481, "msgspec decode_lines (bare)": 2036}
    doc["plain"] = {"test_target_reader_loops[wire]": {
        "feed + append_event per event": 0.012, "msgspec decode_lines (bare)": 0.01},
        "faults": {"test_target_reader_loops[wire]": {
            "feed + append_event per event": 528, "msgspec decode_lines (bare)": 3057}}}
    assert "| 15.00 ms / 10.00 ms (481 / 2,036) | 1.50x (**FAIL**) | 12.00 ms / 10.00 ms (528 / 3,057) " \
        "| 1.20x (pass) |" in report.readme_block(doc, None)
