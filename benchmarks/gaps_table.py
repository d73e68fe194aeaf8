"""The table of benchmarks/results/targets.md, from runs of bench_gaps.py.

Every row is a ratio a bench_gaps benchmark stored in ``extra_info["ratios"]``
(speed of a case relative to its baseline, from round-robin medians), one
column per run; a label ending in ``(>= N)`` is a target, ``(info)`` a floor
or a peer beside it. The medians follow, per case and run.

Run: ``.venv/bin/python -m benchmarks.gaps_table run1.json run2.json``
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

_GOAL = re.compile(r"\(>= ([\d.]+)\)$")


def table(runs: list[dict[str, Any]]) -> str:
    names = [b["name"] for b in runs[0]["benchmarks"]]
    by_run = [{b["name"]: b["extra_info"] for b in run["benchmarks"]} for run in runs]
    cols = " | ".join(f"run {i + 1}" for i in range(len(runs)))
    out = [f"| benchmark | ratio | {cols} | pass |", "|---|---|" + "---:|" * len(runs) + "---|"]
    for name in names:
        for label in by_run[0][name].get("ratios", {}):
            ratios = [info[name]["ratios"][label] for info in by_run]
            goal = _GOAL.search(label)
            verdict = "" if goal is None else ("pass" if min(ratios) >= float(goal.group(1)) else "FAIL")
            cells = " | ".join(f"{r:.2f}x" for r in ratios)
            out.append(f"| {name.removeprefix('test_')} | {label} | {cells} | {verdict} |")
    out += ["", f"| benchmark | case | {cols.replace('run', 'median, run')} |", "|---|---|" + "---:|" * len(runs)]
    for name in names:
        for case in by_run[0][name].get("medians", {}):
            cells = " | ".join(f"{info[name]['medians'][case] * 1e3:.2f} ms" for info in by_run)
            out.append(f"| {name.removeprefix('test_')} | {case} | {cells} |")
    return "\n".join(out)


def main(paths: list[str]) -> None:
    runs = [json.loads(Path(p).read_text()) for p in paths]
    for i, run in enumerate(runs):
        info = run["machine_info"]
        print(f"* run {i + 1}: {run['datetime'][:19]}, commit {run['commit_info']['id'][:10]}, "
              f"{info['cpu']['brand_raw']}, {info.get('cpu_count_affinity')} usable cores, "
              f"Python {info['python_version']}")
    print()
    print(table(runs))


if __name__ == "__main__":
    main(sys.argv[1:])
