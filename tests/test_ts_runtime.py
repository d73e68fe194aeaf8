"""The TypeScript runtime (schemas/dist) against wire's Python reducer.

The same Hypothesis-generated streams go to both: well-formed replies with the
anomalies of tests/test_reducer.py inserted anywhere, and arbitrary events of
all 28 types (tests/strategies.py) mixed in, for Msgs of every role. The
stream is framed by wire's own encoders (NDJSON or MessagePack frames) and
decoded by the runtime's decoders, fed in chunks of a drawn size. Both sides
must then agree on the Msg's JSON, byte for byte, in lenient mode
(``extendEvents``), in strict mode (``appendEvent``: the same error at the same
event) and after a checkpoint round trip at a drawn split point, and on the
anomalies recorded (all but ``detail``, whose wording is each side's own).

One node process (tests/ts/reduce-cases.mjs) serves every example, one JSON
line each way, so a few hundred examples take seconds.

JavaScript has one number type: an integer beyond 2**53 or a float such as
``1e16`` prints differently from Python's. Where the JSON differs only in such
numbers, they are compared as doubles (``same_json``); everything else,
key order included, must be identical.
"""

from __future__ import annotations

import base64
import json
import math
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests import strategies
from tests.helpers import ANOMALIES, REPLY
from tests.strategies import reply_streams
from wire.framing import MsgpackFrameEncoder, NDJSONEncoder

ROOT = Path(__file__).parent.parent
DRIVER = ROOT / "tests" / "ts" / "reduce-cases.mjs"
RUNTIME = ROOT / "schemas" / "dist" / "index.js"
MSGPACK = ROOT / "schemas" / "node_modules" / "@msgpack" / "msgpack"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not MSGPACK.exists(),
    reason="needs node and `npm ci` in schemas/ (.ci/run installs both)",
)

Run = Callable[[dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def ts_runtime() -> Iterator[Run]:
    assert NODE is not None and RUNTIME.exists()
    process = subprocess.Popen([NODE, str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, encoding="utf-8")
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def run(case: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(case) + "\n")
        stdin.flush()
        result: dict[str, Any] = json.loads(stdout.readline())
        assert "crash" not in result, result.get("crash")
        return result

    yield run
    stdin.close()
    code = process.wait(timeout=30)
    stdout.close()
    assert code == 0


# -- the streams ---------------------------------------------------------------------


def _on_this_reply(event: Any) -> Any:
    return msgspec.structs.replace(event, reply_id=REPLY) if hasattr(event, "reply_id") else event


@st.composite
def mixed_streams(draw: st.DrawFn) -> list[Any]:
    events = list(draw(reply_streams()))
    for position, (_, before, bad, _, _) in draw(
            st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(ANOMALIES)), max_size=3)):
        at = position % (len(events) + 1)
        events[at:at] = [*before, bad]
    for position, event, ours in draw(
            st.lists(st.tuples(st.integers(0, 10_000), strategies.events(), st.booleans()), max_size=3)):
        events.insert(position % (len(events) + 1), _on_this_reply(event) if ours else event)
    # Chunks that merge into one tool-result data block may change its media type.
    events = [msgspec.structs.replace(e, media_type=draw(strategies.media_types))
              if isinstance(e, wire.ToolResultDataDeltaEvent) else e for e in events]
    calls = [e.tool_call_id for e in events if isinstance(e, wire.ToolCallStartEvent)]
    if calls:  # the human-in-the-loop events, for calls the stream made (and one it did not)
        for position, event in draw(st.lists(st.tuples(st.integers(0, 10_000), _hitl([*calls, "nope"])), max_size=4)):
            events.insert(position % (len(events) + 1), event)
        # ...and a confirmation asked and answered, in that order.
        call, confirmed = draw(st.sampled_from(calls)), draw(st.booleans())
        # At the end half the time: a TOOL_RESULT_END after the answer would set the state again.
        start = next(i for i, e in enumerate(events) if getattr(e, "tool_call_id", None) == call)
        first = draw(st.integers(start + 1, len(events)))
        second = draw(st.just(len(events)) | st.integers(first, len(events)))
        ask = wire.RequireUserConfirmEvent(reply_id=REPLY, tool_calls=[wire.ToolCallBlock(id=call, name="f", input="")])
        answer = wire.UserConfirmResultEvent(reply_id=REPLY, confirm_results=[
            wire.ConfirmResult(confirmed=confirmed, tool_call=wire.ToolCallBlock(id=call, name="f", input=""))])
        events.insert(second, answer)
        events.insert(first, ask)
    return events


@st.composite
def _hitl(draw: st.DrawFn, calls: list[str]) -> Any:
    """REQUIRE_USER_CONFIRM, REQUIRE_EXTERNAL_EXECUTION, USER_CONFIRM_RESULT or
    EXTERNAL_EXECUTION_RESULT for some of ``calls``, the rest of each drawn at random."""
    ids = draw(st.lists(st.sampled_from(calls), min_size=1, max_size=3))
    kind = draw(st.sampled_from([wire.RequireUserConfirmEvent, wire.RequireExternalExecutionEvent,
                                 wire.UserConfirmResultEvent, wire.ExternalExecutionResultEvent]))
    event = draw(strategies.events(kind))
    if kind is wire.UserConfirmResultEvent:
        results = [msgspec.structs.replace(draw(strategies.confirm_results()),
                                           tool_call=msgspec.structs.replace(draw(strategies.tool_call_blocks()), id=i))
                   for i in ids]
        return msgspec.structs.replace(event, reply_id=REPLY, confirm_results=results)
    if kind is wire.ExternalExecutionResultEvent:
        finished = [msgspec.structs.replace(draw(strategies.tool_result_blocks()), id=i) for i in ids]
        return msgspec.structs.replace(event, reply_id=REPLY, execution_results=finished)
    blocks = [msgspec.structs.replace(draw(strategies.tool_call_blocks()), id=i) for i in ids]
    return msgspec.structs.replace(event, reply_id=REPLY, tool_calls=blocks)


def initial(role: str) -> wire.Msg:
    return wire.Msg(name="Friday", content=[], role=role, id=REPLY, created_at="2026-01-01T00:00:00")  # type: ignore[arg-type]


# -- what Python says --------------------------------------------------------------------


def python_side(role: str, events: list[Any]) -> dict[str, Any]:
    lenient = initial(role).extend_events(events)
    strict = initial(role)
    error = None
    for event in events:
        try:
            strict.append_event(event, strict=True)
        except wire.StreamOrderError as exc:
            error = {"kind": exc.kind, "index": exc.index}
            break
    return {
        "lenient": {"json": wire.json.encode(lenient).decode(),
                    "anomalies": [msgspec.to_builtins(a) for a in lenient.anomalies]},
        "strict": {"json": wire.json.encode(strict).decode(), "error": error},
    }


def without_detail(anomalies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in a.items() if k != "detail"} for a in anomalies]


def _ordered(text: str) -> Any:
    """JSON with key order kept (objects as lists of pairs) and every number a double."""
    return json.loads(text, object_pairs_hook=list, parse_int=float, parse_float=float)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def same_json(python: str, typescript: str) -> bool:
    """Byte-equal, or equal but for how numbers are printed (see the module docstring)."""
    return python == typescript or _same(_ordered(python), _ordered(typescript))


def test_same_json_tells_numbers_apart_from_everything_else() -> None:
    assert same_json('{"a":1e16,"b":-0.0}', '{"a":10000000000000000,"b":0}')
    assert not same_json('{"a":1,"b":2}', '{"b":2,"a":1}')  # key order counts
    assert not same_json('{"a":"1"}', '{"a":1}')
    assert not same_json('{"a":1.5}', '{"a":1.25}')


# -- the differential test -------------------------------------------------------------------


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_streams(), st.sampled_from(["assistant", "assistant", "user", "system"]),
       st.sampled_from(["ndjson", "msgpack"]), st.integers(1, 300), st.integers(0, 10_000))
def test_typescript_reduces_generated_streams_as_python_does(
        ts_runtime: Run, events: list[Any], role: str, framing: str, chunk: int, split: int) -> None:
    if framing == "msgpack" and b"__proto__" in wire.json.encode_events(events):
        framing = "ndjson"  # @msgpack/msgpack refuses this key (schemas/README.md); JSON keeps it
    stream = (NDJSONEncoder() if framing == "ndjson" else MsgpackFrameEncoder()).encode_batch(events)
    initial_json = json.loads(wire.json.encode(initial(role)))
    ours = ts_runtime({"initial": initial_json, "format": framing, "stream": base64.b64encode(stream).decode(),
                       "chunk": chunk, "split": split % (len(events) + 1)})
    theirs = python_side(role, events)
    assert ours["events"] == len(events)
    assert same_json(theirs["lenient"]["json"], ours["lenient"]["json"]), (theirs["lenient"], ours["lenient"])
    assert without_detail(ours["lenient"]["anomalies"]) == without_detail(theirs["lenient"]["anomalies"])
    assert ours["strict"]["error"] == theirs["strict"]["error"]
    assert same_json(theirs["strict"]["json"], ours["strict"]["json"])
    if not theirs["lenient"]["anomalies"]:  # resuming re-indexes the blocks; anomalies are not carried
        assert same_json(theirs["lenient"]["json"], ours["resumed"])


def test_the_differential_test_can_fail(ts_runtime: Run) -> None:
    """The Python side of one stream, compared with the TypeScript side of another."""
    events: list[Any] = [wire.TextBlockStartEvent(reply_id=REPLY, block_id="b", created_at="t"),
                         wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="b", delta="a", created_at="t")]
    stream = base64.b64encode(wire.json.encode_events(events[:1])).decode()
    ours = ts_runtime({"initial": json.loads(wire.json.encode(initial("assistant"))), "format": "ndjson",
                       "stream": stream, "chunk": 7, "split": 0})
    assert not same_json(python_side("assistant", events)["lenient"]["json"], ours["lenient"]["json"])
