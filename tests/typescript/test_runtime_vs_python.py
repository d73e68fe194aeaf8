"""The TypeScript runtime (schemas/dist) against wire's Python reducer.

The same Hypothesis-generated streams go to both: well-formed replies with the
anomalies of tests/model/test_reducer.py inserted anywhere, and arbitrary events of
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
``1e16`` prints differently from Python's. And a JavaScript object lists keys
that are array indexes (``"3"``) first, whatever order they came in. Where the
JSON differs only in these ways (possible only inside free-form dicts such as a
tool result's ``metadata``), numbers are compared as doubles and index keys in
JavaScript's order (``same_json``); everything else, key order included, must
be identical.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests import strategies
from tests.helpers import ANOMALIES, REPLY, ROOT, catalog_lines, cut, factories, needs_npm, require_npm
from tests.strategies import damage, points, reply_streams, sse_tokens
from wire.events import UnknownEvent
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder, SSEEncoder
from wire.session.checkpoints import read_checkpoint

DRIVER = ROOT / "tests" / "ts" / "reduce-cases.mjs"
RUNTIME = ROOT / "schemas" / "dist" / "index.js"

pytestmark = needs_npm("schemas")

Run = Callable[[dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def ts_runtime() -> Iterator[Run]:
    assert RUNTIME.exists()
    process = subprocess.Popen([require_npm("schemas"), str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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


def _is_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and str(int(key)) == key and int(key) < 2**32 - 1


def _js_order(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """An object's keys as JavaScript orders them: array indexes first, ascending."""
    indexes = sorted((pair for pair in pairs if _is_index(pair[0])), key=lambda pair: int(pair[0]))
    return indexes + [pair for pair in pairs if not _is_index(pair[0])]


def _ordered(text: str) -> Any:
    """JSON with key order kept as JavaScript keeps it (objects as lists of pairs) and every number a double."""
    return json.loads(text, object_pairs_hook=_js_order, parse_int=float, parse_float=float)


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
    assert same_json('{"b":1,"3":2}', '{"3":2,"b":1}')  # as JavaScript orders an index key


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


# -- the decoders -------------------------------------------------------------------------------

CATALOG = [wire.json.decode_event(line) for line in catalog_lines()]
ENCODERS: dict[str, Callable[[], Any]] = {
    "ndjson": NDJSONEncoder, "sse": lambda: SSEEncoder(next_id=0), "msgpack": MsgpackFrameEncoder}
PY_DECODERS: dict[str, Any] = {"ndjson": NDJSONDecoder, "sse": SSEDecoder, "msgpack": MsgpackFrameDecoder}


@st.composite
def damaged_streams(draw: st.DrawFn, framing: str) -> bytes:
    """Part of the 28-event catalog in ``framing``, then damaged in a few places
    (tests/framing/test_sse.py's damage, and for SSE its token streams too)."""
    if framing == "sse" and draw(st.booleans()):
        return draw(sse_tokens)
    events = draw(st.lists(st.sampled_from(CATALOG), max_size=8))
    data = bytearray(ENCODERS[framing]().encode_batch(events))
    if framing == "sse" and draw(st.booleans()):
        data = bytearray(data.replace(b"\n", b"\r\n"))
    for pos, delete, insert in draw(st.lists(damage.map(lambda d: d[0]), max_size=3)):
        pos %= len(data) + 1
        data[pos:pos + delete] = insert
    return bytes(data)


def python_decode(framing: str, stream: bytes, cuts: list[int], unknown: str, limit: int) -> dict[str, Any]:
    decoder = PY_DECODERS[framing](unknown=unknown, max_frame_bytes=limit)
    items: list[Any] = []
    error: Any = None
    try:
        with generated_ids():
            for chunk in cut(stream, cuts):
                items += decoder.feed(chunk)
            items += decoder.close()
    except wire.RemoteProtocolError as exc:
        items += exc.events
        error = exc
    return {"items": items, "error": error, "lastEventId": getattr(decoder, "last_event_id", None),
            "retry": getattr(decoder, "retry", None)}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["ndjson", "sse", "msgpack"]), points,
       st.sampled_from(["raise", "skip", "keep"]), st.sampled_from([40, 300, 700, 1 << 20]))
def test_typescript_decoders_read_damaged_streams_as_python_does(
        ts_runtime: Run, data: st.DataObject, framing: str, cuts: list[int], unknown: str, limit: int) -> None:
    """The same events, the same error (kind and index; the byte offset of a
    framing error), the same last event id and retry, under any chunking."""
    stream = data.draw(damaged_streams(framing))
    ours = ts_runtime({"decode": framing, "stream": base64.b64encode(stream).decode(), "cuts": cuts,
                       "unknown": unknown, "limit": limit})
    theirs = python_decode(framing, stream, cuts, unknown, limit)
    error = theirs["error"]
    # NDJSON and SSE say "invalid UTF-8", MessagePack "invalid UTF-8 in a str"
    stricter = ours["error"] is not None and ours["error"]["reason"].startswith("invalid UTF-8") and (
        error is None or error.index > ours["error"]["index"])
    if stricter:  # bad UTF-8 in an unknown key (any depth) msgspec skips unread; the runtime reads every byte
        assert len(ours["items"]) <= len(theirs["items"])
    else:
        assert len(ours["items"]) == len(theirs["items"]), (ours, theirs)
        if error is None:
            assert ours["error"] is None, ours["error"]
            assert (ours["lastEventId"], ours["retry"]) == (theirs["lastEventId"], theirs["retry"])
        else:
            assert ours["error"] is not None, error
            assert (ours["error"]["name"], ours["error"]["index"]) == (type(error).__name__, error.index)
            if isinstance(error, wire.FrameError):
                assert ours["error"]["offset"] == error.offset
    for item, event in zip(ours["items"], theirs["items"], strict=False):
        if isinstance(event, UnknownEvent):
            assert (item["unknown"], base64.b64decode(item["raw"])) == (event.type, event.raw)
        else:
            with generated_ids():
                assert wire.json.decode_event(item["json"].encode()) == event


def generated_ids() -> contextlib.AbstractContextManager[None]:
    """One id and one time for every event a decoder fills in (an event that
    left them out), so that the Python decode and the re-decode of the
    TypeScript side's JSON agree."""
    return factories(lambda: "generated", lambda: "2000-01-01T00:00:00")


# -- checkpoints: the same Msgs refused, at the same place ----------------------------------

# What a mutation puts in place of a value: every JSON type, the strings the enums and tags
# take, block-shaped objects and the empty forms. No integral float (JSON.parse reads 1.0 as 1).
_REPLACEMENTS = st.sampled_from([
    None, True, False, 0, 7, -3, 1.5, "", "x", "aGk=", "abc", "user", "text", "tool_call", "url", "base64",
    "pending", "success", "completed", "https://example.com/a", "/relative", [], [1], ["x"], {},
    {"type": "text"}, {"type": "text", "text": "t", "id": "i", "created_at": "c"}, {"type": "video"},
    {"type": "base64", "data": "", "media_type": "m"}, {"input_tokens": 1, "output_tokens": 2},
]).map(lambda value: json.loads(json.dumps(value)))  # a copy: a later change must not reach the constants


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _nodes(item, (*path, i))


@st.composite
def _mutated_msgs(draw: st.DrawFn) -> Any:
    """A valid Msg's JSON value with 1 to 3 changes: a value replaced, a key
    dropped or a key added, anywhere in the tree."""
    value = json.loads(wire.json.encode(draw(strategies.msgs())))
    for _ in range(draw(st.integers(1, 3))):
        nodes = list(_nodes(value))
        path, node = draw(st.sampled_from(nodes))
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "replace" and path:
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = draw(_REPLACEMENTS)
        elif action == "drop" and isinstance(node, dict) and node:
            del node[draw(st.sampled_from(sorted(node)))]
        elif action == "add" and isinstance(node, dict):
            node[draw(st.sampled_from(["type", "id", "text", "extra", "source", "output", "role", "usage"]))] = \
                draw(_REPLACEMENTS)
        elif path == () and action == "replace":
            value = draw(_REPLACEMENTS)
    return value


def _python_reads(value: Any) -> tuple[str | None, str | None]:
    """(the Msg's wire JSON, None) or (None, the DecodeError's path)."""
    try:
        msg = read_checkpoint(wire.CustomEvent(name="wire.checkpoint", value={"msg": value}))
    except wire.DecodeError as exc:
        return None, exc.path
    assert msg is not None
    return wire.json.encode(msg).decode(), None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=_mutated_msgs())
def test_checkpoints_are_refused_where_python_refuses_them(ts_runtime: Run, value: Any) -> None:
    """The TS runtime refuses exactly the checkpoint Msgs Python refuses, with
    the same path, and never with a TypeError (the driver reports one as a
    crash). An accepted Msg is compared in tests/vectors/checkpoints: a
    dropped id or created_at is filled with a fresh one in Python."""
    json_text, path = _python_reads(value)
    got = ts_runtime({"checkpoint": value})
    if path is None:
        assert got["error"] is None, (got, json_text)
    else:
        assert got["error"] == {"name": "DecodeError", "path": path}, (got, path)


# The events that hold blocks or structs, and the field that holds them.
_NESTING = {"HINT_BLOCK": "hint", "REQUIRE_USER_CONFIRM": "tool_calls", "REQUIRE_EXTERNAL_EXECUTION": "tool_calls",
            "USER_CONFIRM_RESULT": "confirm_results", "EXTERNAL_EXECUTION_RESULT": "execution_results",
            "REPLY_END": "error"}


@st.composite
def _mutated_nesting_events(draw: st.DrawFn) -> Any:
    """A catalog event that holds blocks, with 1 to 3 changes inside them."""
    event = draw(st.sampled_from([e for e in CATALOG if e.type in _NESTING]))
    value = json.loads(wire.json.encode(event))
    field = _NESTING[event.type]
    if field not in value:
        value[field] = {"message": "m"}
    for _ in range(draw(st.integers(1, 3))):
        path, node = draw(st.sampled_from(list(_nodes(value[field], (field,)))))
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "replace":
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = draw(_REPLACEMENTS)
        elif action == "drop" and isinstance(node, dict) and node:
            del node[draw(st.sampled_from(sorted(node)))]
        elif action == "add" and isinstance(node, dict):
            node[draw(st.sampled_from(["type", "id", "text", "extra", "source", "output", "confirmed"]))] = \
                draw(_REPLACEMENTS)
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_mutated_nesting_events())
def test_blocks_inside_events_are_refused_where_python_refuses_them(ts_runtime: Run, value: Any) -> None:
    """A hint's parts, tool calls, confirm results, execution results and an
    error, checked field by field: refused exactly when Python refuses, at
    the same path, and read as the same event when both accept."""
    line = json.dumps(value).encode() + b"\n"
    try:
        with generated_ids():
            theirs: Any = wire.json.decode_event(line)
    except wire.DecodeError as exc:
        theirs = exc
    ours = ts_runtime({"decode": "ndjson", "stream": base64.b64encode(line).decode(), "cuts": [],
                       "unknown": "raise", "limit": 1 << 20})
    if isinstance(theirs, wire.DecodeError):
        assert ours["error"] is not None and (ours["error"]["name"], ours["error"]["path"]) == (
            "DecodeError", theirs.path), (ours["error"], theirs)
    else:
        assert ours["error"] is None, ours["error"]
