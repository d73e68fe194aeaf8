"""Where a reader's time goes, bytes to Msg: the loop and the batch path of
bench_targets.py taken apart, each part timed round-robin against msgspec's
bare ``decode_lines`` over the whole buffer.

The parts, on the benchmark reply (wire's NDJSON, fed in 64 KiB chunks):

* split: cutting the chunks into lines (``bytes.split``), what the decoder
  does before any JSON is read;
* feed: ``NDJSONDecoder.feed`` alone (split, one msgspec decode per line);
* the reducer alone, over events decoded beforehand: ``append_event`` per
  event, ``extend_events`` over the list, and ``append_event`` over the
  reply with the deltas of one type only (the types that make up most of
  the reply; the STARTs, ENDs and other events, about 50, stay in each, and
  its time per delta is net of theirs);
* the loop and the batch path whole, as the targets time them.

Times are CPU seconds of this process (``time.process_time``) so that a
neighbour on the shared cores does not count; medians of interleaved rounds.

Run: ``.venv/bin/python -m benchmarks.profile_reader [--rounds N] [--out FILE]``
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from benchmarks import workload
from benchmarks.bench_targets import _batch, _loop
from wire import events as ev
from wire.events import AgentEvent
from wire.framing import NDJSONDecoder
from wire.messages import Msg

CHUNK = 64 * 1024
_TYPES = (ev.TextBlockDeltaEvent, ev.ThinkingBlockDeltaEvent, ev.ToolResultTextDeltaEvent, ev.ToolCallDeltaEvent,
          ev.DataBlockDeltaEvent)


# A part: the function timed, its arguments (made outside the timer), the events it handles.
Part = tuple[Callable[..., Any], Callable[[], tuple[Any, ...]], int]


def _parts(events: list[AgentEvent], data: bytes) -> dict[str, Part]:
    bare = msgspec.json.Decoder(AgentEvent)
    chunks = [data[at:at + CHUNK] for at in range(0, len(data), CHUNK)]
    n = len(events)

    def split(chunks: list[bytes]) -> int:
        pending, lines = b"", 0
        for chunk in chunks:
            cut = chunk.split(b"\n")
            cut[0] = pending + cut[0]
            pending = cut.pop()
            lines += len(cut)
        return lines

    def feed(chunks: list[bytes]) -> int:
        decoder, count = NDJSONDecoder(), 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        return count

    def append_each(msg: Msg, events: list[AgentEvent]) -> Msg:
        append = msg.append_event
        for event in events:
            append(event)
        return msg

    def extend(msg: Msg, events: list[AgentEvent]) -> Msg:
        return msg.extend_events(events)

    parts: dict[str, Part] = {
        "msgspec decode_lines, whole buffer (bare)": (bare.decode_lines, lambda: (data,), n),
        "split into lines (64 KiB chunks)": (split, lambda: (chunks,), n),
        "NDJSONDecoder.feed (64 KiB chunks)": (feed, lambda: (chunks,), n),
        "append_event per event, events decoded beforehand": (append_each, lambda: (workload.initial_msg(), events), n),
        "extend_events, events decoded beforehand": (extend, lambda: (workload.initial_msg(), events), n),
        "loop: feed + append_event per event": (_loop, lambda: (workload.initial_msg(), chunks), n),
        "batch: feed + extend_events": (_batch, lambda: (workload.initial_msg(), chunks), n),
    }
    deltas = set(_TYPES)

    def only(cls: type) -> Part:  # the reply with only cls's deltas kept (every START and END stays)
        kept = [e for e in events if type(e) is cls or type(e) not in deltas]
        return append_each, lambda: (workload.initial_msg(), kept), sum(type(e) is cls for e in kept)

    for cls in _TYPES:
        parts[f"append_event per event, only the {cls.__name__}s kept"] = only(cls)
    skeleton = [e for e in events if type(e) not in deltas]
    parts[SKELETON] = (append_each, lambda: (workload.initial_msg(), skeleton), len(skeleton))
    return parts


# The reply without its deltas: what every "only ... kept" row holds besides its deltas.
SKELETON = "append_event per event, no deltas (the STARTs, ENDs and the rest)"


def measure(rounds: int) -> list[tuple[str, float, int]]:
    events = workload.reply_events(seed=0)
    parts = _parts(events, workload.ndjson(events))
    times: dict[str, list[float]] = {name: [] for name in parts}
    names = list(parts)
    gc.collect()
    gc.freeze()
    for turn in range(rounds):
        for name in names if turn % 2 == 0 else names[::-1]:
            fn, setup, _ = parts[name]
            args = setup()
            t0 = time.process_time()
            result = fn(*args)
            times[name].append(time.process_time() - t0)
            del result
    return [(name, statistics.median(times[name]), parts[name][2]) for name in names]


def render(rows: list[tuple[str, float, int]], rounds: int) -> str:
    bare = rows[0][1]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = ["# Bytes to Msg, taken apart (benchmarks/profile_reader.py)", "",
           f"Commit {commit}; Python {sys.version.split()[0]}, msgspec {msgspec.__version__}; "
           f"{rounds} interleaved rounds, medians of CPU time; load average {os.getloadavg()[0]:.1f} at the end.",
           "", "| part | median ms | ns per event | / bare decode_lines |", "|---|---:|---:|---:|"]
    skeleton = next(seconds for name, seconds, _ in rows if name == SKELETON)
    for name, seconds, n in rows:
        # an "only ... kept" row: per delta, net of the skeleton it holds too
        per = (seconds - skeleton if "kept" in name else seconds) / n
        out.append(f"| {name} | {seconds * 1e3:.2f} | {per * 1e9:.0f} | {seconds / bare:.2f}x |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--out", type=Path, help="write the table here too (Markdown)")
    args = parser.parse_args()
    table = render(measure(args.rounds), args.rounds)
    print(table)
    if args.out:
        args.out.write_text(table)


if __name__ == "__main__":
    main()
