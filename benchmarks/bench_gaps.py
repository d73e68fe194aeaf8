"""The remaining per-frame gaps and encode against what users pick
instead of msgspec, each target beside its floor, all round-robin.

Every target's cases run interleaved (``conftest.interleaved``: A B C, then
C B A, ...), so that load on the shared machine lands on all of them alike;
each benchmark stores its ratios (speed of a case relative to its baseline)
in ``extra_info["ratios"]``, which ``report.py`` puts in the results of
benchmarks/README.md.

* ``encode``: wire against orjson writing exactly the same bytes (checked
  before timing): the reply as NDJSON (``wire.json.encode_events``, what wire
  sends; orjson needs a call per line) and as one JSON array
  (``wire.json.encode(list)``; one orjson call, its best case), orjson over
  dataclasses holding the fields wire writes (orjson's native path, what a
  user would write instead of msgspec Structs) and over dicts, with bytes
  through ``default=`` to base64 as wire must write them, or already base64.
  Every pair is a target (>= 1.0x); pydantic's ``model_dump_json`` per event
  (every field: more bytes) is info. Beside the whole reply, the 20,000 text
  deltas alone.
* ``peek per frame``: ``wire.json.peek(line)`` per line against
  ``wire.json.decode_event(line)`` per line (target >= 1.8x); the floor is
  the bare msgspec envelope decoder per line, with no wrapper.
* ``SSE vs NDJSON``: ``SSEDecoder`` on wire's own format (an ``id:`` line
  per frame) against ``NDJSONDecoder``, both in 4 KiB chunks (target
  >= 0.8x); the floors are a bare split-and-decode loop of each framing
  (no offsets, limits, checks or errors).
* ``lean decode``: what a reduce-from-bytes path would save at
  most: msgspec ``decode_lines`` into Structs that declare only the fields
  the reducer reads, against the full typed ``decode_lines`` (info only: such
  a path is not exact, since the fields it does not declare are skipped
  unchecked, so bad bytes there would pass).

Run: ``.venv/bin/python -m pytest benchmarks/bench_gaps.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import operator
from collections.abc import Callable
from functools import partial
from operator import itemgetter
from typing import Any

import msgspec
import orjson
import pytest

import wire
from benchmarks import workload
from benchmarks.bench_streaming import _chunks, _decode, _target
from benchmarks.conftest import Reply, split_lines_and_decode
from wire._codec import DECODE_ERRORS
from wire.events import AgentEvent, EventType
from wire.framing import NDJSONDecoder, NDJSONEncoder, SSEDecoder, SSEEncoder
from wire.peek import _json_decoder as _bare_envelope_decoder

KIB = 1024
_bare_event_decoder = msgspec.json.Decoder(AgentEvent)


def _per_item(fn: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    def each(items: list[Any]) -> list[Any]:
        return [fn(item) for item in items]
    return each


# -- the events as dataclasses, for orjson --------------------------------------------------
#
# Every encode case below writes the same bytes as its wire counterpart, checked
# before timing: orjson gets objects holding exactly the fields wire writes (wire
# leaves defaults out; a dataclass of every field would make orjson write 7.5 MB
# where wire writes 7.2), and bytes go through ``default=`` to base64, as wire
# must write them.


@functools.cache
def _dataclass_of(struct_cls: type[msgspec.Struct], present: tuple[str, ...]) -> type[Any]:
    """A plain dataclass with the fields ``present`` of the Struct, in its
    order; events get ``type`` first with their tag as default, as the JSON
    has it. One class per event type and set of fields written, so that orjson
    writes what wire writes. Not slotted: orjson reads a dataclass's
    ``__dict__`` directly, and measured a slotted one (read field by field)
    about 6x slower."""
    fields: list[tuple[str, Any, Any]] = []
    tag = struct_cls.__struct_config__.tag
    if isinstance(tag, str):
        fields.append(("type", str, dataclasses.field(default=tag)))
    fields += [(name, Any, dataclasses.field()) for name in present]
    return dataclasses.make_dataclass(struct_cls.__name__.removesuffix("Event") + "DC", fields, kw_only=True)


def _as_dataclass(value: Any) -> Any:
    if isinstance(value, msgspec.Struct):
        written = msgspec.to_builtins(value, builtin_types=(bytes,))  # the fields wire writes
        present = tuple(name for name in type(value).__struct_fields__ if name in written)
        cls = _dataclass_of(type(value), present)
        return cls(**{name: _as_dataclass(getattr(value, name)) for name in present})
    if isinstance(value, list):
        return [_as_dataclass(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_dataclass(v) for k, v in value.items()}
    return value


def _b64(obj: Any) -> str:
    if isinstance(obj, bytes):
        return base64.b64encode(obj).decode()
    raise TypeError


def _orjson_array(items: list[Any]) -> bytes:
    """One orjson call over the list (a JSON array): orjson's fastest way."""
    return orjson.dumps(items, default=_b64)


def _orjson_ndjson(items: list[Any]) -> bytes:
    """One line per event, as ``encode_events`` writes: NDJSON needs a call per line."""
    dumps, option = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    return b"".join([dumps(item, default=_b64, option=option) for item in items])


def _with_bytes(dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dicts with data as bytes, so that orjson pays for base64 as wire does."""
    return [dict(d, data=base64.b64decode(d["data"])) if isinstance(d.get("data"), str) else d
            for d in dicts]


def _pydantic_model_dump_json(models: list[Any]) -> list[str]:
    return [m.model_dump_json() for m in models]


@pytest.fixture(scope="module")
def dataclasses_of_reply(reply: Reply) -> list[Any]:
    return [_as_dataclass(e) for e in reply.events]


def _same_bytes(cases: dict[str, tuple[Callable[..., Any], Any]], expected: dict[str, bytes]) -> None:
    """Each case writes exactly the bytes named for it: the comparison is like for like."""
    for name, want in expected.items():
        fn, arg = cases[name]
        got = fn(arg)
        assert got == want, f"{name} writes other bytes than wire ({len(got)} against {len(want)})"


@pytest.mark.benchmark(group="gaps: encode")
def test_target_encode(benchmark: Any, reply: Reply, dataclasses_of_reply: list[Any]) -> None:
    """Encode the reply, each peer writing exactly wire's bytes. NDJSON is what
    wire sends; the JSON array is one call for everyone, orjson's best case."""
    wire_nd, wire_array = "wire.json.encode_events (NDJSON)", "wire.json.encode(list) (JSON array)"
    dc_array = "orjson dumps(list of dataclasses), bytes via default (JSON array)"
    dicts_array = "orjson dumps(list of dicts), data already base64 (JSON array)"
    bytes_array = "orjson dumps(list of dicts), bytes via default (JSON array)"
    dc_lines = "orjson dumps per dataclass, OPT_APPEND_NEWLINE, joined (NDJSON)"
    dicts_lines = "orjson dumps per dict, OPT_APPEND_NEWLINE, joined (NDJSON)"
    pyd = "pydantic model_dump_json per event (list of str; every field)"
    with_bytes = _with_bytes(reply.dicts)
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        wire_nd: (wire.json.encode_events, reply.events),
        wire_array: (wire.json.encode, reply.events),
        dc_array: (_orjson_array, dataclasses_of_reply),
        dicts_array: (orjson.dumps, reply.dicts),
        bytes_array: (_orjson_array, with_bytes),
        dc_lines: (_orjson_ndjson, dataclasses_of_reply),
        dicts_lines: (_orjson_ndjson, with_bytes),
        pyd: (_pydantic_model_dump_json, reply.pydantic),
    }
    ndjson, array = reply.ndjson, reply.json_array
    _same_bytes(cases, {wire_nd: ndjson, wire_array: array, dc_array: array, dicts_array: array,
                        bytes_array: array, dc_lines: ndjson, dicts_lines: ndjson})
    benchmark.extra_info["bytes_written"] = {"NDJSON": len(ndjson), "JSON array": len(array)}
    _target(benchmark, reply, cases, {
        "encode, same JSON array: wire vs orjson over dataclasses (>= 1.0)": (wire_array, dc_array),
        "encode, same JSON array: wire vs orjson over dicts, data already base64 (>= 1.0)": (wire_array, dicts_array),
        "encode, same JSON array: wire vs orjson over dicts, bytes via default (>= 1.0)": (wire_array, bytes_array),
        "encode, same NDJSON: wire vs orjson per dataclass (>= 1.0)": (wire_nd, dc_lines),
        "encode, same NDJSON: wire vs orjson per dict (>= 1.0)": (wire_nd, dicts_lines),
        "encode: wire NDJSON vs wire JSON array (info)": (wire_nd, wire_array),
        "encode: wire NDJSON vs pydantic model_dump_json per event, every field (info)": (wire_nd, pyd),
    }, rounds=31)


@pytest.mark.benchmark(group="gaps: encode")
def test_target_encode_text(benchmark: Any, reply: Reply, dataclasses_of_reply: list[Any]) -> None:
    """The 20,000 text deltas alone, as one JSON array, the same bytes both ways."""
    text = [i for i, e in enumerate(reply.events) if e.type == EventType.TEXT_BLOCK_DELTA]
    events = [reply.events[i] for i in text]
    items = [dataclasses_of_reply[i] for i in text]
    wire_case, dc = "wire.json.encode(list), text deltas", "orjson dumps(list of dataclasses), text deltas"
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        wire_case: (wire.json.encode, events),
        dc: (_orjson_array, items),
    }
    _same_bytes(cases, {dc: wire.json.encode(events)})
    benchmark.extra_info["events_in_case"] = len(events)
    _target(benchmark, reply, cases, {"encode text deltas, same JSON array: wire vs orjson over dataclasses (info)":
                                      (wire_case, dc)}, rounds=31)


# -- peek per frame ----------------------------------------------------------------------------


_decode_envelope = _bare_envelope_decoder.decode


def _least_wrapper(buf: bytes) -> Any:
    """The least a function that turns msgspec's errors into wire's must
    cost: one Python call and a try around the bare decoder."""
    try:
        return _decode_envelope(buf)
    except DECODE_ERRORS:
        raise


@pytest.mark.benchmark(group="gaps: peek per frame")
def test_target_peek_per_frame(benchmark: Any, reply: Reply) -> None:
    decode, peek = "wire.json.decode_event per line", "wire.json.peek per line"
    bare_env, bare_event = "msgspec envelope decoder per line (bare)", "msgspec AgentEvent decoder per line (bare)"
    wrapped = "the bare envelope decoder in a Python function with a try, per line"
    lines = reply.lines
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        decode: (_per_item(wire.json.decode_event), lines),
        peek: (_per_item(wire.json.peek), lines),
        bare_env: (_per_item(_bare_envelope_decoder.decode), lines),
        wrapped: (_per_item(_least_wrapper), lines),
        bare_event: (_per_item(_bare_event_decoder.decode), lines),
    }
    _target(benchmark, reply, cases, {
        "peek per frame vs decode_event per frame (>= 1.8)": (peek, decode),
        "floor: bare envelope vs bare event decoder, per line (info)": (bare_env, bare_event),
        "peek per frame vs its floor, the bare envelope decoder (info)": (peek, bare_env),
        "peek per frame vs the least wrapper of the bare envelope decoder (info)": (peek, wrapped),
        "decode_event per frame vs its floor, the bare event decoder (info)": (decode, bare_event),
    }, rounds=31)


# -- SSE with ids vs NDJSON, 4 KiB chunks --------------------------------------------------------

_after_data = itemgetter(slice(6, None))


def split_sse_and_decode(chunks: list[bytes], decode: Callable[[bytes], Any]) -> int:
    """The least an SSE decoder of wire's frames (``id:`` line, ``data:``
    line, blank line) must do: cut each chunk's complete frames out, take
    every data line's payload and decode it. No checks of the shape, ids,
    offsets, limits or errors: a floor. Returns the number of events."""
    parts: list[bytes] = []
    n = 0
    for chunk in chunks:
        end = chunk.rfind(b"\n\n") + 2
        if end < 2:
            parts.append(chunk)
            continue
        if parts:
            parts.append(chunk[:end])
            region = b"".join(parts)
            parts.clear()
        else:
            region = chunk[:end]
        if end < len(chunk):
            parts.append(chunk[end:])
        n += len(list(map(decode, map(_after_data, region.split(b"\n")[1::3]))))
    return n


@pytest.mark.benchmark(group="gaps: SSE vs NDJSON")
def test_target_sse_vs_ndjson(benchmark: Any, reply: Reply) -> None:
    sse_chunks = _chunks(SSEEncoder().encode_batch(reply.events), 4 * KIB)
    nd_chunks = _chunks(NDJSONEncoder().encode_batch(reply.events), 4 * KIB)
    assert split_sse_and_decode(sse_chunks, _bare_event_decoder.decode) == reply.n
    sse, nd = "SSEDecoder, wire format (ids), 4 KiB chunks", "NDJSONDecoder, 4 KiB chunks"
    sse_floor = "floor: split SSE frames and decode each payload, 4 KiB chunks"
    nd_floor = "floor: split lines and decode each, 4 KiB chunks"
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        sse: (_decode(SSEDecoder), sse_chunks),
        nd: (_decode(NDJSONDecoder), nd_chunks),
        sse_floor: (partial(split_sse_and_decode, decode=_bare_event_decoder.decode), sse_chunks),
        nd_floor: (partial(split_lines_and_decode, decode=_bare_event_decoder.decode), nd_chunks),
    }
    _target(benchmark, reply, cases, {
        "SSE (ids) vs NDJSON, 4 KiB chunks (>= 0.8)": (sse, nd),
        "floor: SSE split-and-decode vs NDJSON split-and-decode (info)": (sse_floor, nd_floor),
        "SSE vs its floor (info)": (sse, sse_floor),
        "NDJSON vs its floor (info)": (nd, nd_floor),
    }, rounds=31)


# -- what a lean decode for the reducer would save -------------------------------------------------

# The fields Reducer.apply_all reads from the hot deltas: the tag (the class),
# reply_id, the block or tool-call id and the delta.
_READ_BY_REDUCER = ("reply_id", "block_id", "tool_call_id", "delta")
_HOT = {EventType.TEXT_BLOCK_DELTA, EventType.THINKING_BLOCK_DELTA, EventType.TOOL_CALL_DELTA,
        EventType.TOOL_RESULT_TEXT_DELTA}


def _lean_struct(event_cls: Any) -> Any:
    fields = [(f.name, f.type) for f in msgspec.structs.fields(event_cls) if f.name in _READ_BY_REDUCER]
    return msgspec.defstruct(event_cls.__name__ + "Lean", fields, tag_field="type",
                             tag=event_cls.__struct_config__.tag, kw_only=True, gc=False)


def _tag_only_struct(event_cls: Any) -> Any:
    return msgspec.defstruct(event_cls.__name__ + "Tag", [], tag_field="type",
                             tag=event_cls.__struct_config__.tag, kw_only=True, gc=False)


_LEAN_UNION: Any = functools.reduce(operator.or_, [
    _lean_struct(cls) if cls.event_type in _HOT else cls for cls in AgentEvent.__args__])
_lean_decoder = msgspec.json.Decoder(_LEAN_UNION)
# A "Struct that declares only the tag", for the hot deltas: what
# tokenising and skipping every value costs, the floor of any decode.
_TAG_ONLY_UNION: Any = functools.reduce(operator.or_, [
    _tag_only_struct(cls) if cls.event_type in _HOT else cls for cls in AgentEvent.__args__])
_tag_only_decoder = msgspec.json.Decoder(_TAG_ONLY_UNION)


def _decode_and_reduce(ndjson: bytes) -> wire.Msg:
    return workload.initial_msg().extend_events(wire.json.decode_events(ndjson))


def _reduce_only(events: list[AgentEvent]) -> wire.Msg:
    return workload.initial_msg().extend_events(events)


@pytest.mark.benchmark(group="gaps: lean decode")
def test_info_lean_decode(benchmark: Any, reply: Reply) -> None:
    ndjson = reply.ndjson
    assert len(_lean_decoder.decode_lines(ndjson)) == reply.n
    full, lean = "msgspec decode_lines, full events (bare)", "msgspec decode_lines, lean hot deltas (bare)"
    tag_only = "msgspec decode_lines, hot deltas as their tag only (bare)"
    to_msg, reduce = "wire decode_events + extend_events", "extend_events alone, events decoded before"
    cases: dict[str, tuple[Callable[..., Any], Any]] = {
        full: (_bare_event_decoder.decode_lines, ndjson),
        lean: (_lean_decoder.decode_lines, ndjson),
        tag_only: (_tag_only_decoder.decode_lines, ndjson),
        to_msg: (_decode_and_reduce, ndjson),
        reduce: (_reduce_only, reply.events),
    }
    _target(benchmark, reply, cases, {
        "lean decode_lines vs full decode_lines (info)": (lean, full),
        "tag-only decode_lines vs full decode_lines (info)": (tag_only, full),
        "bytes to Msg (decode + extend_events) vs full decode_lines (info)": (to_msg, full),
        "extend_events alone vs full decode_lines (info)": (reduce, full),
    }, rounds=31)
