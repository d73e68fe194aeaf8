"""Run the benchmark suite (or read its JSON) and print the Markdown results table.

    .venv/bin/python benchmarks/report.py                 # run the suite once
    .venv/bin/python benchmarks/report.py --runs 2        # twice; targets for both runs
    .venv/bin/python benchmarks/report.py a.json b.json   # pytest-benchmark --benchmark-json files
    .venv/bin/python benchmarks/report.py benchmarks/results/latest.json   # re-render
    .venv/bin/python benchmarks/report.py -- -k decode    # arguments after -- go to pytest
    .venv/bin/python benchmarks/report.py --runs 2 --readme   # and refresh benchmarks/README.md's tables

Writes ``benchmarks/results/latest.json`` (every run's pytest-benchmark JSON
and the computed targets) and ``benchmarks/results/latest.md`` (what is
printed). Ratios only ever compare cases of the same run; the detailed
tables are those of the last run.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

Run = dict[str, Any]  # one pytest-benchmark JSON document


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

    def ratio(self, run: Run) -> float | None:
        if self.test is not None:
            b = cases(run).get(self.test)
            if b is None or "medians" not in b["extra_info"]:
                return None
            m = b["extra_info"]["medians"]
            num, den = m.get(self.numerator), m.get(self.denominator)
        else:
            num, den = median(run, self.numerator), median(run, self.denominator)
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
    Target("JSON encode: orjson dumps(list of dicts) / wire.json.encode_events", ">= 1x",
           "orjson dumps(list of dicts)", "wire.json encode_events", _at_least(1), "test_target_encode"),
    Target("JSON encode: orjson, bytes via default=b64encode / wire.json.encode_events", ">= 1x",
           "orjson dumps, bytes via default", "wire.json encode_events", _at_least(1), "test_target_encode"),
    Target("JSON encode, text deltas only, mixed unicode: orjson / wire (sequential)", "info",
           "test_encode_text[orjson dumps(list of dicts)-mixed unicode]",
           "test_encode_text[wire.json encode_events-mixed unicode]", None),
    Target("JSON encode, text deltas only, ASCII: orjson / wire (sequential)", "info",
           "test_encode_text[orjson dumps(list of dicts)-ASCII]",
           "test_encode_text[wire.json encode_events-ASCII]", None),
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
           "test_target_bytes_to_msg"),
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


def extra_ratio_rows(runs: list[Run]) -> list[str]:
    """The targets that benchmarks report themselves, as ``extra_info["ratios"]``
    (label -> ratio, with the goal in the label: ``(>= 0.8)``, ``(info)``)."""
    labels: dict[str, list[float | None]] = {}
    for i, run in enumerate(runs):
        for b in run["benchmarks"]:
            param = b.get("param")  # a parametrized target repeats its labels: tell them apart
            for label, ratio in (b.get("extra_info") or {}).get("ratios", {}).items():
                key = f"{param}: {label}" if param else label
                labels.setdefault(key, [None] * len(runs))[i] = ratio
    if not labels:
        return []
    out = ["", "#### Streaming and transport targets (each benchmark's own round-robin cases)", "",
           "| target | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | pass |",
           "|---|" + "---:|" * len(runs) + "---|"]
    for label, ratios in labels.items():
        goal = _GOAL.search(label)
        verdict = ""
        if goal:
            ok = [r >= float(goal[2]) if goal[1] == ">=" else r <= float(goal[2]) for r in ratios if r is not None]
            verdict = "pass" if ok and all(ok) else "FAIL" if ok and not any(ok) else "mixed" if ok else ""
        cells = " | ".join("" if r is None else f"{r:.2f}x" for r in ratios)
        out.append(f"| {label} | {cells} | {verdict} |")
    return out


def readme_block(runs: list[Run]) -> str:
    """What goes between benchmarks/README.md's markers: the machine and the
    target tables, without the detail tables."""
    md = render(runs)
    head, _, rest = md.partition("#### Details")
    caveats = rest[rest.index("Caveats:"):] if "Caveats:" in rest else ""
    return head.replace("### Benchmark results\n\n", "").rstrip() + "\n\n" + caveats.strip() + "\n"


def update_readme(runs: list[Run], readme: Path = ROOT / "benchmarks" / "README.md") -> None:
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- benchmark-results:start -->", "<!-- benchmark-results:end -->"
    if start not in text or end not in text:
        raise SystemExit(f"{readme} has no {start} ... {end} markers")
    before, _, rest = text.partition(start)
    _, _, after = rest.partition(end)
    readme.write_text(f"{before}{start}\n{readme_block(runs)}{end}{after}", encoding="utf-8")


# -- Markdown ------------------------------------------------------------------------------


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def _rate(x: float | None) -> str:
    if x is None:
        return ""
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.0f} k"
    return f"{x:.0f}"


def machine(run: Run) -> list[str]:
    m = run.get("machine_info", {})
    cpu = m.get("cpu", {})
    v = m.get("versions", {})
    commit = run.get("commit_info", {})
    lines = [
        f"* Machine: {cpu.get('brand_raw', m.get('processor', '?'))}, {cpu.get('count', '?')} cores "
        f"({m.get('cpu_count_affinity', '?')} usable), {m.get('system', '')} {m.get('release', '')}".rstrip(),
        f"* Python {m.get('python_version', '?')} ({m.get('python_implementation', '')}); "
        + ", ".join(f"{k} {val}" for k, val in v.items() if val),
        f"* Date {run.get('datetime', '?')[:19]}, commit {str(commit.get('id', '?'))[:10]}"
        + (" (dirty)" if commit.get("dirty") else ""),
    ]
    return lines


def group_table(run: Run, group: str) -> list[str]:
    entries = [b for b in run["benchmarks"] if b["group"] == group and "medians" not in b["extra_info"]]
    if not entries:
        return []
    entries.sort(key=lambda b: b["stats"]["median"])
    base_name = BASELINES.get(group)
    base = next((b for b in entries if b["name"] == base_name), entries[0])
    per_event = group in PER_EVENT_RATIO

    def key(b: dict[str, Any]) -> float:
        med: float = b["stats"]["median"]
        return med / b["extra_info"].get("events", 1) if per_event else med

    what = "time/delta vs " if per_event else "vs "
    rows = [
        f"#### {group}",
        "",
        f"| case | median | ops/s | events/s | MB/s | ns/event | {what}{_label(base)} | rounds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in entries:
        s, x = b["stats"], b["extra_info"]
        mb = f"{x['mb_per_s']:.0f}" if "mb_per_s" in x else ""
        rows.append(
            f"| {_label(b)} | {_time(s['median'])} | {1 / s['median']:,.1f} | {_rate(x.get('events_per_s'))} "
            f"| {mb} | {x.get('ns_per_event', 0):,.0f} | {key(b) / key(base):.2f}x | {s['rounds']} |"
        )
    return [*rows, ""]


def paired_table(run: Run) -> list[str]:
    """The per-case medians of the round-robin target tests."""
    tests = [b for b in run["benchmarks"] if "medians" in b["extra_info"]]
    if not tests:
        return []
    rows = ["#### Round-robin cases (medians)", "",
            "| test | case | median | ns/event | vs first case | rounds |", "|---|---|---:|---:|---:|---:|"]
    for b in tests:
        medians = b["extra_info"]["medians"]
        ns = b["extra_info"]["ns_per_event"]
        first = next(iter(medians.values()))
        for case, m in medians.items():
            rows.append(f"| {_label(b)} | {case} | {_time(m)} | {ns[case]:,.0f} | {m / first:.2f}x "
                        f"| {b['stats']['rounds']} |")
    return [*rows, ""]


GROUP_ORDER = ("decode", "encode", "encode-text", "reduce-reply", "bytes-to-msg", "growth-text",
               "growth-data", "read-text-every-delta")


def render(runs: list[Run]) -> str:
    last = runs[-1]
    out = ["### Benchmark results", ""]
    out += machine(last)
    out += [
        "* Workload: `benchmarks/workload.py`, seed 0: a 24,800-event agentscope reply "
        "(20,000 text, 2,000 thinking, 500 tool-call and 2,000 tool-result deltas, 1 MiB of data "
        "in 265 chunks); NDJSON 7.2 MB.",
        "",
        "#### Targets (ratios of medians within one run; the cases of a target run round-robin, "
        "see bench_targets.py)",
        "",
        "| target | goal | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | pass |",
        "|---|---|" + "---:|" * len(runs) + "---|",
    ]
    per_run = [target_ratios(r) for r in runs]
    for i, t in enumerate(TARGETS):
        ratios = [p[i]["ratio"] for p in per_run]
        passes = [p[i]["pass"] for p in per_run]
        if all(r is None for r in ratios):
            continue
        cells = " | ".join("" if r is None else f"{r:.2f}x" for r in ratios)
        verdict = "" if t.check is None else (
            "pass" if all(passes) else "FAIL" if not any(passes) else "mixed")
        out.append(f"| {t.name} | {t.goal} | {cells} | {verdict} |")
    out += extra_ratio_rows(runs)
    out += ["", f"#### Details (run {len(runs)})", ""]
    out += paired_table(last)
    # Round-robin tests (their per-case medians are in extra_info) are in the
    # paired table above; the group tables list cases timed one at a time.
    single = [b for b in last["benchmarks"] if "medians" not in b["extra_info"]]
    groups = [g for g in GROUP_ORDER if any(b["group"] == g for b in single)]
    groups += sorted({b["group"] for b in single} - set(groups), key=str)
    for g in groups:
        out += group_table(last, g)
    out += [
        "Caveats: a shared 2-core virtual machine with other jobs running, so absolute times move by "
        "10-30 % between runs and a single case can catch a burst of load. Ratios are taken within one run, "
        "from medians; the target ratios come from cases run round-robin (bench_targets.py), the detail "
        "tables from cases run one after another. Each round calls a case once and frees its result after "
        "the timer. Cases that build large values (a 16 MiB data block, a 1M-delta text) also pay page faults "
        "that depend on the allocator's state, which moves the growth ratios most. orjson encodes dicts built "
        "beforehand whose data is already base64 text; the 'bytes via default' case makes it encode bytes as "
        "wire does. pydantic and agentscope write every field (nulls and defaults), wire leaves defaults out, "
        "so their outputs are larger.",
        "",
    ]
    return "\n".join(out)


# -- main ----------------------------------------------------------------------------------


def run_suite(extra: list[str]) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.json"
        cmd = [sys.executable, "-m", "pytest", "benchmarks/", "--benchmark-only", "-p", "no:cacheprovider",
               "-q", f"--benchmark-json={path}", *extra]
        subprocess.run(cmd, cwd=ROOT, check=True)
        result: Run = json.loads(path.read_text())
        return result


def load(path: Path) -> list[Run]:
    data = json.loads(path.read_text())
    runs: list[Run] = data.get("runs", [data])
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", nargs="*", type=Path, help="pytest-benchmark JSON files, or a latest.json")
    p.add_argument("--runs", type=int, default=1, help="run the suite this many times (without JSON files)")
    p.add_argument("--out", type=Path, default=RESULTS, help="where latest.json and latest.md go")
    p.add_argument("--no-save", action="store_true", help="print only")
    p.add_argument("--readme", action="store_true",
                   help="also put the machine and target tables between benchmarks/README.md's markers")
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # passed to pytest, e.g. -k decode
    args = p.parse_args(argv[:len(argv) - len(extra) - (1 if "--" in argv else 0)])
    runs = [r for path in args.json for r in load(path)] if args.json else [
        run_suite(extra) for _ in range(args.runs)]
    if not args.no_save:  # the measurements first: a rendering bug must not lose a long run
        args.out.mkdir(parents=True, exist_ok=True)
        doc = {"targets": [target_ratios(r) for r in runs], "runs": runs}
        (args.out / "latest.json").write_text(json.dumps(doc, indent=1) + "\n")
    md = render(runs)
    print(md)
    if not args.no_save:
        (args.out / "latest.md").write_text(md)
    if args.readme:
        update_readme(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
