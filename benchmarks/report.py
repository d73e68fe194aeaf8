"""Run the whole benchmark suite once and write every figure of benchmarks/README.md from that run.

    .venv/bin/python benchmarks/report.py --readme          # run, save, and rewrite the READMEs' tables
    .venv/bin/python benchmarks/report.py                   # run and save, READMEs untouched
    .venv/bin/python benchmarks/report.py benchmarks/results/latest.json --readme   # re-render a saved run
    .venv/bin/python benchmarks/report.py --before OLD.json --readme   # and a "before" column from OLD
    .venv/bin/python benchmarks/report.py --no-ts -- -k decode          # arguments after -- go to pytest

One run is: the pytest suite (``benchmarks/``, one ``--benchmark-json``),
``benchmarks/ts/bench.mjs`` and ``benchmarks/ts/partial.mjs`` (node, on the
workload of the same checkout), all at one commit. The run is saved as
``benchmarks/results/latest.json`` (everything measured, with the commit,
whether the tree was clean, and whether it changed during the run) and
``benchmarks/results/latest.md`` (every table, the detail tables included).
``--readme`` writes, between their markers, the results section of
``benchmarks/README.md`` and the table of the main README's Performance
section: every number there comes from this one run. ``--before`` adds a
column from an earlier run (a ``latest.json`` made at an earlier commit) to
the target tables, matched by label; a row it lacks is left blank.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PLAIN_ROUNDS = 15  # plain_targets.py's rounds per target

Run = dict[str, Any]  # one pytest-benchmark JSON document
Doc = dict[str, Any]  # one report run: the pytest JSON, the node results, the commit


# -- reading a run -------------------------------------------------------------------------


def cases(run: Run) -> dict[str, dict[str, Any]]:
    """name -> benchmark entry; the name is the test's parameter, or its function name."""
    out = {}
    for b in run["benchmarks"]:
        out[b["name"]] = b
    return out


def median(run: Run, name: str) -> float | None:
    b = cases(run).get(name)
    return b["stats"]["median"] if b else None


def _label(b: dict[str, Any]) -> str:
    params = b.get("params") or {}
    if "case" in params:
        return str(params["case"])
    name: str = b["name"]
    return name.removeprefix("test_")


# -- targets -------------------------------------------------------------------------------


# The two writings of the reply the reader targets run on (bench_targets.py).
_WRITERS = (("wire", "wire's NDJSON"), ("agentscope", "as agentscope writes it"),
            ("wire, padded chunks", "wire's NDJSON, padded data chunks"))


@dataclass(frozen=True)
class Target:
    """ratio = numerator / denominator, both medians. With ``test`` set, they
    are cases of one round-robin test of bench_targets.py; without, they are
    two tests of the detailed (one case after another) groups."""

    name: str
    goal: str
    numerator: str
    denominator: str
    check: Callable[[float], bool] | None  # None: for information
    test: str | None = None

    def medians(self, run: Run, plain: dict[str, dict[str, float]] | None = None) -> tuple[float | None,
                                                                                         float | None]:
        """(numerator, denominator): from the harness's run, or with ``plain``
        from plain_targets.py's timing of the same cases (round-robin targets only)."""
        if self.test is None:
            return (None, None) if plain is not None else (median(run, self.numerator),
                                                           median(run, self.denominator))
        if plain is not None:
            m = plain.get(self.test) or {}
        else:
            b = cases(run).get(self.test)
            m = b["extra_info"].get("medians", {}) if b is not None else {}
        return m.get(self.numerator), m.get(self.denominator)

    def ratio(self, run: Run) -> float | None:
        num, den = self.medians(run)
        return num / den if num is not None and den else None


def _at_least(x: float) -> Callable[[float], bool]:
    return lambda r: r >= x


def _at_most(x: float) -> Callable[[float], bool]:
    return lambda r: r <= x


DECODE = "test_decode[{}]"
ENCODE = "test_encode[{}]"
TARGETS = (
    Target("JSON decode: pydantic per line / wire.json.decode_events", ">= 5x",
           "pydantic validate_json per line", "wire.json decode_events", _at_least(5), "test_target_decode"),
    Target("JSON decode: pydantic JSON array / wire.json.decode_events", ">= 5x",
           "pydantic validate_json array", "wire.json decode_events", _at_least(5), "test_target_decode"),
    Target("JSON decode: agentscope per line / wire.json.decode_events (sequential)", "info",
           DECODE.format("agentscope TypeAdapter(AgentEvent, discriminator).validate_json per line"),
           DECODE.format("wire.json decode_events (NDJSON)"), None),
    Target("JSON encode, text deltas only, the same JSON array, mixed unicode: orjson / wire (sequential)", "info",
           "test_encode_text[orjson dumps(list of dicts)-mixed unicode]",
           "test_encode_text[wire.json encode(list)-mixed unicode]", None),
    Target("JSON encode, text deltas only, the same JSON array, ASCII: orjson / wire (sequential)", "info",
           "test_encode_text[orjson dumps(list of dicts)-ASCII]",
           "test_encode_text[wire.json encode(list)-ASCII]", None),
    Target("text growth (extend_events): 100k deltas / 10k deltas", "<= 12x",
           "text 100000", "text 10000", _at_most(12), "test_target_text_growth[10k-100k]"),
    Target("text growth (extend_events): 1M deltas / 100k deltas", "<= 12x",
           "text 1000000", "text 100000", _at_most(12), "test_target_text_growth[100k-1M]"),
    Target("data growth (extend_events): 512 chunks / 64 chunks", "<= 9.6x",
           "data 512", "data 64", _at_most(9.6), "test_target_data_growth[64-512]"),
    Target("data growth (extend_events): 4096 chunks / 512 chunks", "<= 9.6x",
           "data 4096", "data 512", _at_most(9.6), "test_target_data_growth[512-4096]"),
    Target("text growth + read (sequential): 100k / 10k", "info",
           "test_text_growth_wire[100000-extend_events + read]", "test_text_growth_wire[10000-extend_events + read]",
           None),
    Target("text growth + read (sequential): 1M / 100k", "info",
           "test_text_growth_wire[1000000-extend_events + read]",
           "test_text_growth_wire[100000-extend_events + read]", None),
    Target("data growth + read (sequential): 4096 / 512", "info",
           "test_data_growth_wire[4096-extend_events + read]", "test_data_growth_wire[512-extend_events + read]",
           None),
    Target("reply reduce: agentscope append_event / wire extend_events", ">= 100x",
           "agentscope append_event", "wire extend_events", _at_least(100), "test_target_reply"),
    Target("NDJSON to Msg: wire decode_events+extend_events / bare decode_lines", "<= 1.5x",
           "wire decode_events + extend_events", "msgspec decode_lines (bare)", _at_most(1.5),
           "test_target_bytes_to_msg[reply]"),
    Target("NDJSON to Msg, padded data chunks: wire decode_events+extend_events / bare decode_lines", "<= 1.5x",
           "wire decode_events + extend_events", "msgspec decode_lines (bare)", _at_most(1.5),
           "test_target_bytes_to_msg[padded chunks]"),
    *(Target(f"reader loop, {what}: NDJSONDecoder.feed (64 KiB) + append_event per event / bare decode_lines",
             "<= 1.3x", "feed + append_event per event", "msgspec decode_lines (bare)", _at_most(1.3),
             f"test_target_reader_loops[{writer}]") for writer, what in _WRITERS),
    *(Target(f"reader batch, {what}: NDJSONDecoder.feed (64 KiB) + extend_events / bare decode_lines",
             "<= 1.0x", "feed + extend_events", "msgspec decode_lines (bare)", _at_most(1.0),
             f"test_target_reader_loops[{writer}]") for writer, what in _WRITERS),
    *(Target(f"reader {kind}, wire's NDJSON: {what} / bare decode_lines with its events freed (like for like)",
             "info", case, "msgspec decode_lines (bare), events freed", None, "test_target_reader_loops[wire]")
      for kind, what, case in (("loop", "feed + append_event per event", "feed + append_event per event"),
                               ("batch", "feed + extend_events", "feed + extend_events"))),
    Target("NDJSON to Msg: agentscope / wire (sequential)", "info",
           "test_bytes_to_msg_agentscope", "test_bytes_to_msg_wire_json", None),
    Target("reading the text after every delta, 30k: wire / agentscope (sequential)", "info",
           "test_read_every_delta_wire[30000]", "test_read_every_delta_agentscope[30000]", None),
)

# The case each group's ratio column is relative to (None: the fastest case).
BASELINES = {
    "encode": ENCODE.format("wire.json encode_events (NDJSON)"),
    "decode": DECODE.format("wire.json decode_events (NDJSON)"),
    "reduce-reply": "test_reply_wire_extend_events",
    "bytes-to-msg": "test_bytes_to_msg_bare_decode_lines",
    "growth-text": "test_text_growth_wire[10000-extend_events]",
    "growth-data": "test_data_growth_wire[64-extend_events]",
    "read-text-every-delta": "test_read_every_delta_wire[1000]",
}
# Groups whose ratio is per delta (time per delta relative to the baseline's).
PER_EVENT_RATIO = {"growth-text", "growth-data", "read-text-every-delta"}


def target_ratios(run: Run) -> list[dict[str, Any]]:
    out = []
    for t in TARGETS:
        ratio = t.ratio(run)
        out.append({"target": t.name, "goal": t.goal, "ratio": ratio,
                    "pass": None if ratio is None or t.check is None else bool(t.check(ratio))})
    return out


_GOAL = re.compile(r"\((>=|<=) ([0-9.]+)\)")


def extra_ratios(run: Run) -> dict[str, float]:
    """The ratios benchmarks report themselves, as ``extra_info["ratios"]``
    (label -> ratio, with the goal in the label: ``(>= 0.8)``, ``(info)``)."""
    out: dict[str, float] = {}
    for b in run["benchmarks"]:
        param = b.get("param")  # a parametrized target repeats its labels: tell them apart
        for label, ratio in (b.get("extra_info") or {}).get("ratios", {}).items():
            out[f"{param}: {label}" if param and str(param) not in label else label] = ratio
    return out


def all_ratios(doc: Doc) -> list[tuple[str, str, float, bool | None]]:
    """Every ratio of the run: (label, goal, ratio, passed); passed is None for information."""
    run = doc["pytest"]
    rows: list[tuple[str, str, float, bool | None]] = []
    for t in target_ratios(run):
        if t["ratio"] is not None:
            rows.append((t["target"], t["goal"], t["ratio"], t["pass"]))
    for label, ratio in extra_ratios(run).items():
        goal = _GOAL.search(label)
        passed = None if goal is None else (ratio >= float(goal[2]) if goal[1] == ">=" else ratio <= float(goal[2]))
        rows.append((label, f"{goal[1]} {goal[2]}x" if goal else "info", ratio, passed))
    for label, (wanted, ratio) in ts_ratios(doc).items():
        m = _GOAL.search(wanted)
        passed = None if m is None else (ratio >= float(m[2]) if m[1] == ">=" else ratio <= float(m[2]))
        rows.append((label, f"{m[1]} {m[2]}x" if m else "info", ratio, passed))
    return rows


_TS_FLOOR = "floor: TextDecoder + split + JSON.parse per line"
_TS_RUNTIME = "runtime: NDJSONDecoder (64 KiB feeds) + extendEvents"
_TS_WORKLOADS = (("bytes_to_msg_ms", ""), ("padded_bytes_to_msg_ms", ", padded data chunks"))


def ts_ratios(doc: Doc) -> dict[str, tuple[str, float]]:
    out: dict[str, tuple[str, float]] = {}
    for where, result in (("node", doc.get("ts")), ("headless Chromium", doc.get("ts_browser"))):
        for key, what in _TS_WORKLOADS:
            times = (result or {}).get(key) or {}
            floor, full = times.get(_TS_FLOOR), times.get(_TS_RUNTIME)
            if floor and full:
                out[f"TS bytes to Msg ({where}){what}: NDJSONDecoder (64 KiB feeds) + extendEvents / TextDecoder + "
                    "split + JSON.parse per line"] = ("(<= 1.5)", full / floor)
    for result in (doc.get("ts_partial") or {}).get("results", []):
        out[f"TS partial JSON, {result['deltas']:,} deltas, value read after each: re-parse (close + JSON.parse) "
            f"/ PartialJSON (info)"] = ("(info)", result["ratio"])
    return out


# -- Markdown ------------------------------------------------------------------------------


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e9:.1f} ns"


def _rate(x: float | None) -> str:
    if x is None:
        return ""
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.0f} k"
    return f"{x:.0f}"


def _verdict(passed: bool | None) -> str:
    return "" if passed is None else "pass" if passed else "**FAIL**"


def machine(doc: Doc) -> list[str]:
    run = doc["pytest"]
    m = run.get("machine_info", {})
    cpu = m.get("cpu", {})
    v = m.get("versions", {})
    tree = "clean tree" if not doc.get("dirty") else "**uncommitted changes in the tree**"
    if doc.get("changed_during_run"):
        tree += ", **the checkout changed during the run**"
    return [
        f"* Commit `{doc.get('commit', '?')[:12]}` ({tree}); started {doc.get('started', '?')[:19]} UTC, "
        f"{doc.get('seconds', 0) / 60:.1f} minutes",
        f"* Machine: {cpu.get('brand_raw', m.get('processor', '?'))}, {cpu.get('count', '?')} cores "
        f"({m.get('cpu_count_affinity', '?')} usable), {m.get('system', '')} {m.get('release', '')}; "
        f"load average {doc.get('load_before', '?')} before the run, {doc.get('load_after', '?')} after",
        f"* Python {m.get('python_version', '?')} ({m.get('python_implementation', '')}); "
        + ", ".join(f"{k} {val}" for k, val in v.items() if val)
        + f"; {doc.get('redis_server') or 'no redis-server'}; node {doc.get('node') or 'not run'}",
        f"* Command: `{doc.get('command', '?')}`",
        "* Workload: `benchmarks/workload.py`, seed 0: a 24,800-event agentscope reply (20,000 text, 2,000 "
        "thinking, 500 tool-call and 2,000 tool-result deltas, 1 MiB of data in 265 chunks); NDJSON 7.2 MB. "
        "\"Padded data chunks\": the same reply with chunks of 3,958-3,962 bytes, each one's base64 padded "
        "(`reply_events(padded=True)`).",
    ]


def ratio_table(doc: Doc, before: Doc | None) -> list[str]:
    old = {label: ratio for label, _, ratio, _ in all_ratios(before)} if before else {}
    head = "| ratio | goal | " + (f"before (`{before.get('commit', '?')[:10]}`) | " if before else "") \
        + "this run | |"
    out = [head, "|---|---|" + ("---:|" if before else "") + "---:|---|"]
    for label, goal, ratio, passed in all_ratios(doc):
        prev = (f"{old[label]:.2f}x | " if label in old else " | ") if before else ""
        out.append(f"| {label} | {goal} | {prev}{ratio:.2f}x | {_verdict(passed)} |")
    return out


def harness_vs_plain(doc: Doc) -> list[str]:
    """Each round-robin target twice: from the harness (conftest.interleaved,
    in the pytest run) and from plain_targets.py's plain loop over the same
    functions and arguments; medians and their ratio, every row."""
    plain = doc.get("plain")
    if not plain:
        return []
    run = doc["pytest"]
    out = ["| target | goal | harness: numerator / denominator (page faults) | harness ratio | "
           "plain loop: numerator / denominator (page faults) | plain ratio | |", "|---|---|---:|---:|---:|---:|---|"]
    harness_faults = {b["name"]: b["extra_info"].get("faults", {}) for b in run["benchmarks"]}
    for t in TARGETS:
        if t.test is None:
            continue
        cells = []
        for source, faults in ((None, harness_faults.get(t.test, {})),
                               (plain, (plain.get("faults") or {}).get(t.test, {}))):
            num, den = t.medians(run, source)
            if num is None or not den:
                cells += ["", ""]
                continue
            ratio = num / den
            verdict = "" if t.check is None else " (pass)" if t.check(ratio) else " (**FAIL**)"
            counts = (f" ({faults[t.numerator]:,.0f} / {faults[t.denominator]:,.0f})"
                      if t.numerator in faults and t.denominator in faults else "")
            cells += [f"{_time(num)} / {_time(den)}{counts}", f"{ratio:.2f}x{verdict}"]
        out.append(f"| {t.name} | {t.goal} | {' | '.join(cells)} | |")
    return out


def _bench(run: Run, name: str) -> dict[str, Any] | None:
    return cases(run).get(name)


def redis_tables(run: Run) -> list[str]:
    out: list[str] = []
    rows = []
    for readers in (1, 10, 50):
        b = _bench(run, f"test_endpoint[{readers}]")
        if b is None:
            continue
        x = b["extra_info"]
        if "readers_cpu_s" not in x:
            continue
        w, a = x["readers_cpu_s"]["wire"], x["readers_cpu_s"]["agentscope"]
        rows.append(f"| {readers} | {x.get('rounds', '')} | {w:.3f} s | {a:.3f} s | {a / w:.1f}x "
                    f"| {x['producer_cpu_s']['wire']:.3f} s | {x['producer_cpu_s']['agentscope']:.3f} s "
                    f"| {x['body_bytes']['wire'] / 1e6:.1f} MB | {x['body_bytes']['agentscope'] / 1e6:.1f} MB |")
    if rows:
        out += ["| readers | rounds | wire: readers' CPU | agentscope: readers' CPU | agentscope / wire "
                "| wire producer CPU | agentscope producer CPU | bytes to readers, wire | bytes, agentscope |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows, ""]
    b = _bench(run, "test_append")
    if b is not None and "events_per_s" in b["extra_info"]:
        out += ["| append | events/s |", "|---|---:|"]
        out += [f"| {name} | {_rate(rate)} |" for name, rate in b["extra_info"]["events_per_s"].items()]
        out.append("")
    b = _bench(run, "test_memory_per_event")
    if b is not None and "bytes_per_event" in b["extra_info"]:
        m = b["extra_info"]["bytes_per_event"]
        out += ["| writer | payload (average) | Redis memory per event |", "|---|---:|---:|",
                f"| wire | {m['wire_payload']:.0f} B | {m['wire']:.0f} B |",
                f"| agentscope | {m['agentscope_payload']:.0f} B | {m['agentscope']:.0f} B |", ""]
    return out


def ts_tables(doc: Doc) -> list[str]:
    out: list[str] = []
    ts = doc.get("ts")
    for where, result in (("node", ts), ("headless Chromium", doc.get("ts_browser"))):
        for key, what in _TS_WORKLOADS:
            times = (result or {}).get(key)
            if not times:
                continue
            floor = times.get(_TS_FLOOR) or 1
            out += [f"NDJSON bytes to Msg, {where}, {'the reply' + what if what else 'the workload reply'}, "
                    f"median of {result['rounds']} interleaved rounds:",  # type: ignore[index]
                    "", "| case | median | / floor |", "|---|---:|---:|"]
            out += [f"| {name} | {m:.1f} ms | {m / floor:.2f}x |" for name, m in times.items()]
            out.append("")
    if ts:
        out += ["| growth (extendEvents, then JSON.stringify once) | median |", "|---|---:|"]
        out += [f"| {name} | {m:.1f} ms |" for name, m in ts["growth_ms"].items()]
        out += ["", "| bundle (esbuild --minify, gzip -9) | minified | gzipped |", "|---|---:|---:|"]
        out += [f"| {name} | {v['minified']:,} B | {v['gzipped']:,} B |" for name, v in ts["bundle"].items()]
        out.append("")
    partial = doc.get("ts_partial")
    if partial:
        view = partial["pair"][0]
        for result in partial["results"]:
            out += [f"Partial JSON, {result['deltas']:,} one-character deltas, median of {partial['rounds']} "
                    "rounds, round-robin:", "", "| way | median | time / PartialJSON (string read) |",
                    "|---|---:|---:|"]
            base = result["medians_ms"][view]
            out += [f"| {name} | {m:.3f} ms | {m / base:.2f}x |" for name, m in result["medians_ms"].items()]
            out.append("")
    return out


def micro_table(run: Run) -> list[str]:
    rows = [b for b in run["benchmarks"] if "micro" in (b.get("extra_info") or {})]
    if not rows:
        return []
    out = ["| where | statement | alternative | result |", "|---|---|---|---|"]
    for b in rows:
        m = b["extra_info"]["micro"]
        out.append(f"| `{b['param'].split(':')[0]}`: {b['param'].split(': ', 1)[1]} | `{m['statement']}` "
                   f"| `{m['alternative']}` | {_time(m['statement_s'])} against {_time(m['alternative_s'])} "
                   f"({m['alternative_s'] / m['statement_s']:.1f}x) |")
    return [*out, ""]


def group_table(run: Run, group: str) -> list[str]:
    entries = [b for b in run["benchmarks"]
               if b["group"] == group and "medians" not in b["extra_info"] and "micro" not in b["extra_info"]]
    if not entries:
        return []
    entries.sort(key=lambda b: b["stats"]["median"])
    base_name = BASELINES.get(group)
    base = next((b for b in entries if b["name"] == base_name), entries[0])
    per_event = group in PER_EVENT_RATIO

    def key(b: dict[str, Any]) -> float:
        med: float = b["stats"]["median"]
        events = b["extra_info"].get("events", 1)
        return med / events if per_event and isinstance(events, int) else med

    what = "time/delta vs " if per_event else "vs "
    rows = [f"#### {group}", "", f"| case | median | events/s | MB/s | {what}{_label(base)} | rounds |",
            "|---|---:|---:|---:|---:|---:|"]
    for b in entries:
        s, x = b["stats"], b["extra_info"]
        mb = f"{x['mb_per_s']:.0f}" if "mb_per_s" in x else ""
        eps = x.get("events_per_s")
        rows.append(f"| {_label(b)} | {_time(s['median'])} | {_rate(eps) if isinstance(eps, float) else ''} "
                    f"| {mb} | {key(b) / key(base):.2f}x | {s['rounds']} |")
    return [*rows, ""]


def paired_table(run: Run) -> list[str]:
    """The per-case medians of the round-robin tests."""
    tests = [b for b in run["benchmarks"] if "medians" in b["extra_info"]]
    if not tests:
        return []
    rows = ["#### Round-robin cases (medians)", "", "| test | case | median | vs first case | rounds |",
            "|---|---|---:|---:|---:|"]
    for b in tests:
        medians = b["extra_info"]["medians"]
        first = next(iter(medians.values()))
        for case, m in medians.items():
            rows.append(f"| {b['name'].removeprefix('test_')} | {case} | {_time(m)} | {m / first:.2f}x "
                        f"| {b['stats']['rounds']} |")
    return [*rows, ""]


GROUP_ORDER = ("decode", "encode", "encode-text", "reduce-reply", "bytes-to-msg", "growth-text",
               "growth-data", "read-text-every-delta")

CAVEATS = (
    "Ratios are taken within this run, from medians; a target's cases run round-robin (A B, then B A, ...) "
    "so that a burst of load lands on all of them alike. On a machine shared with other jobs absolute times "
    "move by 10-30 % between runs and a single case can catch a burst of load; run the report on a quiet "
    "machine and read the load averages above. Each round calls a case once and frees its result after the "
    "timer. Every encode pair writes the same bytes (checked before timing); pydantic and agentscope write "
    "every field, so more bytes.")


def readme_block(doc: Doc, before: Doc | None) -> str:
    """What goes between benchmarks/README.md's markers."""
    run = doc["pytest"]
    out = [*machine(doc), "", "#### Every ratio", "",
           "A ratio is a speed (the other's time over wire's) unless its label says time over time; "
           "a label ending in a goal is a target.", "", *ratio_table(doc, before), ""]
    versus = harness_vs_plain(doc)
    if versus:
        out += ["#### The targets from the harness and from a plain loop", "",
                "The same functions on the same arguments, timed twice in this run: by the pytest harness "
                "(`conftest.interleaved`, bench_targets.py in a pytest process of its own) and by "
                "`benchmarks/plain_targets.py`, a plain loop without pytest (round-robin, `gc.collect()` before "
                f"each call, result and arguments freed after the timer, {doc.get('plain_rounds', 15)} rounds, "
                "medians), each with the median minor page faults of a call. Where they disagree the harness "
                "adds something of its own; on a shared machine they also differ by noise (10-30 %).", "",
                *versus, ""]
    redis = redis_tables(run)
    if redis:
        out += ["#### Redis (bench_redis_endpoint.py, bench_redis.py)", "", *redis]
    ts = ts_tables(doc)
    if ts:
        out += ["#### TypeScript runtime (ts/bench.mjs, ts/partial.mjs)", "", *ts]
    micro = micro_table(run)
    if micro:
        out += ["#### Figures quoted in the code (bench_micro.py; timeit, median of 7 repeats, per call)", "",
                *micro]
    out += [CAVEATS, "", "Every case of the run, with medians, events/s and MB/s: "
            "[results/latest.md](results/latest.md).", ""]
    return "\n".join(out)


def render(doc: Doc, before: Doc | None = None) -> str:
    run = doc["pytest"]
    out = ["### Benchmark results", "", readme_block(doc, before), "#### Details", ""]
    out += paired_table(run)
    single = [b for b in run["benchmarks"]  # round-robin tests are in the paired table, micro figures above
              if "medians" not in b["extra_info"] and "micro" not in b["extra_info"]]
    groups = [g for g in GROUP_ORDER if any(b["group"] == g for b in single)]
    groups += sorted({b["group"] for b in single if b["group"]} - set(groups), key=str)
    for g in groups:
        out += group_table(run, g)
    return "\n".join(out)


# The main README's Performance table: (label prefix in all_ratios, what to call it there).
HEADLINE = (
    ("JSON decode: pydantic per line", "decode: pydantic v2 per line ÷ `wire.json.decode_events`"),
    ("encode, same NDJSON: wire vs orjson per dict", "encode the same NDJSON: orjson per dict ÷ wire"),
    ("encode, same JSON array: wire vs orjson over dataclasses",
     "encode the same JSON array: orjson over dataclasses ÷ wire"),
    ("encode, same JSON array: wire vs orjson over dicts, data already base64",
     "encode the same JSON array: orjson over dicts (data already base64) ÷ wire"),
    ("reply reduce: agentscope", "reduce the reply: agentscope's `append_event` ÷ wire's `extend_events`"),
    ("NDJSON to Msg: wire decode_events+extend_events", "NDJSON bytes to a Msg: wire ÷ bare msgspec `decode_lines`"),
    ("reader loop, wire's", "a reader's loop, `feed` + `append_event` per event ÷ bare `decode_lines`"),
    ("reader batch, wire's", "a reader's batches, `feed` + `extend_events` ÷ bare `decode_lines`"),
    ("text growth (extend_events): 1M", "text growth: 1M deltas ÷ 100k (linear is 10x)"),
    ("data growth (extend_events): 4096", "data growth: 4,096 chunks ÷ 512 (linear is 8x)"),
    ("NDJSON 4 KiB chunks vs decode_events whole", "NDJSON speed in 4 KiB chunks ÷ on the whole buffer"),
    ("SSE, wire format (ids): 4 KiB chunks vs whole", "SSE speed in 4 KiB chunks ÷ on the whole stream"),
    ("peek per frame vs decode_event per frame", "per frame: `decode_event` ÷ `peek`"),
    ("1 reply: raw relay vs decoded relay", "relay: decoding and re-encoding ÷ forwarding raw frames"),
    ("Redis endpoint, 1 reader", "Redis, one live reader: agentscope's endpoint ÷ wire's `sse()`, CPU"),
    ("Vercel SSE: wire vs dicts + orjson.dumps", "Vercel UI stream: hand-written dicts + orjson ÷ wire"),
    ("TS bytes to Msg (node):", "TypeScript bytes to Msg in node ÷ TextDecoder + JSON.parse per line"),
    ("TS bytes to Msg (headless Chromium):", "the same in headless Chromium"),
    ("TS bytes to Msg (node), padded", "the same in node, data chunks each padded (audio from model APIs)"),
    ("TS bytes to Msg (headless Chromium), padded", "the same in headless Chromium, padded data chunks"),
    ("TS partial JSON, 4,000 deltas", "TypeScript partial JSON: re-parse per delta ÷ `PartialJSON`"),
    ("Python partial JSON", "Python partial JSON: re-parse per delta ÷ `PartialJSON`"),
)


def headline_block(doc: Doc) -> str:
    rows = all_ratios(doc)
    run = doc["pytest"]
    cpu = run.get("machine_info", {}).get("cpu", {}).get("brand_raw", "?")
    out = [f"Ratios of medians from one run of `benchmarks/report.py` at commit `{doc.get('commit', '?')[:10]}` "
           f"({cpu}, {run.get('machine_info', {}).get('cpu_count_affinity', '?')} usable cores), on a "
           "24,800-event reply (7.2 MB of NDJSON). Every ratio of that run, the method and the misses "
           "explained: [benchmarks/README.md](benchmarks/README.md).", "",
           "| ratio | target | this run | |", "|---|---|---:|---|"]
    for prefix, name in HEADLINE:
        match = next((r for r in rows if r[0].startswith(prefix)), None)
        if match is None:
            continue
        _, goal, ratio, passed = match
        verdict = "" if passed is None else "met" if passed else "missed"
        out.append(f"| {name} | {goal.replace('>=', '≥').replace('<=', '≤')} | {ratio:.2f}x | {verdict} |")
    return "\n".join(out) + "\n"


def _replace_between(path: Path, start: str, end: str, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"{path} has no {start} ... {end} markers")
    before, _, rest = text.partition(start)
    _, _, after = rest.partition(end)
    path.write_text(f"{before}{start}\n{body}{end}{after}", encoding="utf-8")


def update_readmes(doc: Doc, before: Doc | None) -> None:
    _replace_between(ROOT / "benchmarks" / "README.md", "<!-- benchmark-results:start -->",
                     "<!-- benchmark-results:end -->", readme_block(doc, before))
    _replace_between(ROOT / "README.md", "<!-- performance:start -->", "<!-- performance:end -->",
                     headline_block(doc))


# -- running -------------------------------------------------------------------------------


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def _tree() -> tuple[str, str]:
    """The commit, and the uncommitted changes of what the suite runs."""
    return _git("rev-parse", "HEAD"), _git("status", "--porcelain", "--", "wire", "benchmarks", "schemas/dist",
                                           "pyproject.toml")


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_node(script: str, args: list[str], env: dict[str, str]) -> dict[str, Any] | None:
    node = shutil.which("node")
    if node is None or not (ROOT / "schemas" / "dist" / "index.js").exists():
        print(f"report: node or schemas/dist missing, {script} not run", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run([node, f"benchmarks/ts/{script}", *args, "--json", str(out)], cwd=ROOT, env=env, check=True)
        result: dict[str, Any] = json.loads(out.read_text())
        return result


def run_all(extra: list[str], ts: bool) -> Doc:
    commit, status = _tree()
    started, t0 = datetime.now(UTC), time.monotonic()
    doc: Doc = {"commit": commit, "dirty": bool(status), "started": started.isoformat(), "load_before": _load(),
                "command": shlex.join(["python", "benchmarks/report.py", *sys.argv[1:]])}
    redis = shutil.which("redis-server")
    doc["redis_server"] = (subprocess.run([redis, "--version"], capture_output=True, text=True).stdout.split(" sha")[0]
                           if redis else None)
    with tempfile.TemporaryDirectory() as tmp:
        path, targets = Path(tmp) / "bench.json", Path(tmp) / "targets.json"
        pytest = [sys.executable, "-m", "pytest", "--benchmark-only", "-p", "no:cacheprovider", "-q"]
        # The round-robin targets in a process of their own, as plain_targets.py runs: after the
        # rest of the suite, the memory its cases freed and left mapped spared the targets' bare
        # decode most of the page faults a fresh process pays (README, Method).
        for args in (["benchmarks/bench_targets.py", f"--benchmark-json={targets}"],
                     ["benchmarks/", "--ignore=benchmarks/bench_targets.py", f"--benchmark-json={path}"]):
            code = subprocess.run([*pytest, *args, *extra], cwd=ROOT).returncode
            if code not in (0, 5):  # 5: ``extra`` selected nothing there
                raise SystemExit(f"report: pytest {shlex.join(args)} failed ({code})")
        doc["pytest"] = json.loads(path.read_text()) if path.exists() else {"benchmarks": []}
        if targets.exists():
            doc["pytest"]["benchmarks"][:0] = json.loads(targets.read_text())["benchmarks"]
        if not extra:  # the whole suite: time its targets' functions in a plain loop too
            plain = Path(tmp) / "plain.json"
            subprocess.run([sys.executable, "-m", "benchmarks.plain_targets", "--rounds", str(PLAIN_ROUNDS),
                            "--json", str(plain)], cwd=ROOT, check=True)
            doc["plain"], doc["plain_rounds"] = json.loads(plain.read_text()), PLAIN_ROUNDS
        if ts:
            workload, padded = Path(tmp) / "workload.ndjson", Path(tmp) / "workload-padded.ndjson"
            subprocess.run([sys.executable, "-c", "import sys; from benchmarks.workload import ndjson, reply_events; "
                            "open(sys.argv[1], 'wb').write(ndjson(reply_events(seed=0))); "
                            "open(sys.argv[2], 'wb').write(ndjson(reply_events(seed=0, padded=True)))",
                            str(workload), str(padded)], cwd=ROOT, check=True)
            env = dict(os.environ, WIRE_WORKLOAD=str(workload), WIRE_WORKLOAD_PADDED=str(padded),
                       WIRE_PYTHON=sys.executable)
            doc["ts"] = run_node("bench.mjs", ["21"], env)
            doc["ts_partial"] = run_node("partial.mjs", ["--rounds", "15"], env)
            chromium = shutil.which("chromium")
            if chromium and (ROOT / "tests" / "browser" / "node_modules").exists():
                doc["ts_browser"] = run_node("browser.mjs", ["21", chromium], env)
            else:
                print("report: chromium or tests/browser/node_modules missing, browser.mjs not run", file=sys.stderr)
            node = shutil.which("node")
            doc["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip() \
                if node else None
    doc["seconds"] = time.monotonic() - t0
    doc["load_after"] = _load()
    doc["changed_during_run"] = _tree() != (commit, status)
    return doc


def load(path: Path) -> Doc:
    data = json.loads(path.read_text())
    if "pytest" in data:
        return data  # type: ignore[no-any-return]
    run = data["runs"][-1] if "runs" in data else data  # a bare pytest-benchmark JSON (or an old latest.json)
    commit = run.get("commit_info", {})
    return {"commit": commit.get("id", "?"), "dirty": commit.get("dirty"), "started": run.get("datetime", "?"),
            "pytest": run, "command": f"pytest-benchmark JSON {path.name}"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", nargs="?", type=Path, help="re-render this saved run (a latest.json) instead of running")
    p.add_argument("--before", type=Path, help="a saved run of an earlier commit, for a 'before' column")
    p.add_argument("--out", type=Path, default=RESULTS, help="where latest.json and latest.md go")
    p.add_argument("--no-save", action="store_true", help="print only")
    p.add_argument("--no-ts", action="store_true", help="skip the node benchmarks")
    p.add_argument("--readme", action="store_true",
                   help="also write the results into benchmarks/README.md and the main README's Performance table")
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # passed to pytest, e.g. -k decode
    args = p.parse_args(argv[:len(argv) - len(extra) - (1 if "--" in argv else 0)])
    doc = load(args.json) if args.json else run_all(extra, ts=not args.no_ts)
    before = load(args.before) if args.before else None
    if not args.no_save and not args.json:  # the measurements first: a rendering bug must not lose a long run
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "latest.json").write_text(json.dumps(doc, indent=1) + "\n")
    md = render(doc, before)
    print(md)
    if not args.no_save:
        (args.out / "latest.md").write_text(md)
    if args.readme:
        if doc.get("dirty") or doc.get("changed_during_run"):
            print("report: the run is of a dirty or changing tree; the READMEs name it so", file=sys.stderr)
        update_readmes(doc, before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
