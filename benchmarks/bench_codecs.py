"""Encode and decode the 24,800-event reply, wire against its peers.

Every decoder reads the same bytes, the NDJSON ``wire.json.encode_events``
writes (pre-split into lines, outside the timer, for the per-line cases; the
JSON-array cases get the same lines joined with commas). Encoders start from
objects already built: wire events, pydantic models, agentscope events, and
for orjson the JSON-ready dicts (building them is not counted, and their data
is already a base64 str, so orjson does no base64 work that the others do).

The orjson cases write exactly the bytes of a wire case (the NDJSON, or the
JSON array ``wire.json.encode(list)`` writes), checked before timing;
pydantic and agentscope write every field, so more bytes. The encode targets,
round-robin and like for like, are in bench_gaps.py; the decode target in
bench_targets.py.

Run: ``.venv/bin/python -m pytest benchmarks/bench_codecs.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import msgspec
import orjson
import pytest

import wire
from benchmarks import pydantic_models
from benchmarks.conftest import Reply, run
from wire.events import AgentEvent

# A case: reply -> (callable, args, bytes in or out, rounds).
Case = Callable[[Reply], tuple[Callable[..., Any], tuple[Any, ...], int, int]]

_msgspec_json_encoder = msgspec.json.Encoder()
_msgspec_json_decoder = msgspec.json.Decoder(AgentEvent)
_msgspec_msgpack_encoder = msgspec.msgpack.Encoder()


def _per_item(fn: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    def each(items: list[Any]) -> list[Any]:
        return [fn(item) for item in items]
    return each


def _ndjson(fn: Callable[[Any], bytes]) -> Callable[[list[Any]], bytes]:
    def lines(items: list[Any]) -> bytes:
        return b"\n".join([fn(item) for item in items]) + b"\n"
    return lines


def _agentscope_dump(events: list[Any]) -> list[str]:
    return [e.model_dump_json() for e in events]


def _b64(obj: Any) -> str:
    if isinstance(obj, bytes):
        return base64.b64encode(obj).decode()
    raise TypeError


def _orjson_b64_dumps(dicts: list[dict[str, Any]]) -> bytes:
    return orjson.dumps(dicts, default=_b64)


def _with_bytes(dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dicts with data as bytes, so that orjson pays for base64 as wire does."""
    return [dict(d, data=base64.b64decode(d["data"])) if isinstance(d.get("data"), str) else d
            for d in dicts]


# -- encode -------------------------------------------------------------------------------

ENCODE: dict[str, Case] = {
    "wire.json encode_events (NDJSON)": lambda r: (wire.json.encode_events, (r.events,), len(r.ndjson), 30),
    "wire.json encode(list) (JSON array)": lambda r: (wire.json.encode, (r.events,), len(r.json_array), 30),
    "wire.json encode per event": lambda r: (_per_item(wire.json.encode), (r.events,), r.lines_bytes, 30),
    "msgspec.json Encoder.encode per event (bare)": lambda r: (
        _per_item(_msgspec_json_encoder.encode), (r.events,), r.lines_bytes, 30),
    "orjson dumps(list of dicts) (JSON array)": lambda r: (orjson.dumps, (r.dicts,), len(r.json_array), 30),
    "orjson dumps(list of dicts), data as bytes via default=b64encode": lambda r: (
        _orjson_b64_dumps, (_with_bytes(r.dicts),), len(r.json_array), 30),
    "orjson dumps per dict, joined (NDJSON)": lambda r: (_ndjson(orjson.dumps), (r.dicts,), len(r.ndjson), 30),
    "pydantic TypeAdapter(list[Union]).dump_json": lambda r: (
        pydantic_models.EventListAdapter.dump_json, (r.pydantic,), 0, 15),
    "pydantic TypeAdapter(Union).dump_json per event, joined (NDJSON)": lambda r: (
        _ndjson(pydantic_models.EventAdapter.dump_json), (r.pydantic,), 0, 15),
    "agentscope event.model_dump_json() per event": lambda r: (_agentscope_dump, (r.agentscope,), 0, 15),
    "wire.msgpack encode_events (array)": lambda r: (wire.msgpack.encode_events, (r.events,), len(r.msgpack), 30),
    "wire.msgpack encode per event": lambda r: (
        _per_item(wire.msgpack.encode), (r.events,), sum(map(len, r.frames)), 30),
    "msgspec.msgpack Encoder.encode per event (bare)": lambda r: (
        _per_item(_msgspec_msgpack_encoder.encode), (r.events,), sum(map(len, r.frames)), 30),
}


# The cases that write exactly the bytes of a wire case, checked before timing
# (the others write other bytes: every field, or one str per event).
SAME_BYTES = {
    "wire.json encode_events (NDJSON)": "ndjson",
    "wire.json encode(list) (JSON array)": "json_array",
    "orjson dumps(list of dicts) (JSON array)": "json_array",
    "orjson dumps(list of dicts), data as bytes via default=b64encode": "json_array",
    "orjson dumps per dict, joined (NDJSON)": "ndjson",
    "wire.msgpack encode_events (array)": "msgpack",
}


@pytest.mark.benchmark(group="encode")
@pytest.mark.parametrize("case", list(ENCODE))
def test_encode(benchmark: Any, reply: Reply, case: str) -> None:
    fn, args, nbytes, rounds = ENCODE[case](reply)
    out = fn(*args)  # untimed: the size of what this encoder writes
    if case in SAME_BYTES:
        assert out == getattr(reply, SAME_BYTES[case]), f"{case} writes other bytes than wire"
    if not nbytes:
        nbytes = len(out) if isinstance(out, bytes) else sum(len(x.encode()) for x in out)
    del out
    run(benchmark, fn, args, rounds=rounds, events=reply.n, nbytes=nbytes)


# -- decode -------------------------------------------------------------------------------


def _agentscope_decode(r: Reply) -> tuple[Callable[..., Any], tuple[Any, ...], int, int]:
    return _per_item(r.agentscope_adapter.validate_json), (r.lines,), r.lines_bytes, 10


DECODE: dict[str, Case] = {
    "wire.json decode_events (NDJSON)": lambda r: (wire.json.decode_events, (r.ndjson,), len(r.ndjson), 30),
    "wire.json decode_event per line": lambda r: (_per_item(wire.json.decode_event), (r.lines,), r.lines_bytes, 30),
    "msgspec.json Decoder(AgentEvent).decode_lines (bare)": lambda r: (
        _msgspec_json_decoder.decode_lines, (r.ndjson,), len(r.ndjson), 30),
    "msgspec.json Decoder(AgentEvent).decode per line (bare)": lambda r: (
        _per_item(_msgspec_json_decoder.decode), (r.lines,), r.lines_bytes, 30),
    "orjson loads per line (dicts, no validation)": lambda r: (
        _per_item(orjson.loads), (r.lines,), r.lines_bytes, 30),
    "pydantic TypeAdapter(Union).validate_json per line": lambda r: (
        _per_item(pydantic_models.EventAdapter.validate_json), (r.lines,), r.lines_bytes, 10),
    "pydantic TypeAdapter(list[Union]).validate_json (JSON array)": lambda r: (
        pydantic_models.EventListAdapter.validate_json, (r.json_array,), len(r.json_array), 10),
    "agentscope TypeAdapter(AgentEvent, discriminator).validate_json per line": _agentscope_decode,
    "wire.msgpack decode_events (array)": lambda r: (wire.msgpack.decode_events, (r.msgpack,), len(r.msgpack), 30),
    "wire.msgpack decode_event per frame": lambda r: (
        _per_item(wire.msgpack.decode_event), (r.frames,), sum(map(len, r.frames)), 30),
}


@pytest.mark.benchmark(group="decode")
@pytest.mark.parametrize("case", list(DECODE))
def test_decode(benchmark: Any, reply: Reply, case: str) -> None:
    fn, args, nbytes, rounds = DECODE[case](reply)
    result = run(benchmark, fn, args, rounds=rounds, events=reply.n, nbytes=nbytes)
    assert len(result) == reply.n
    if case.startswith(("wire", "msgspec")):
        assert result == reply.events


# -- where the encode time goes: the 20,000 text deltas, as they are and ASCII-only ---------


def _text_events(r: Reply, ascii_only: bool) -> list[wire.TextBlockDeltaEvent]:
    out = [e for e in r.events if isinstance(e, wire.TextBlockDeltaEvent)]
    if ascii_only:
        out = [msgspec.structs.replace(e, delta=e.delta.encode("ascii", "replace").decode()) for e in out]
    return out


@pytest.mark.benchmark(group="encode-text")
@pytest.mark.parametrize("ascii_only", [False, True], ids=["mixed unicode", "ASCII"])
@pytest.mark.parametrize("encoder", ["wire.json encode(list)", "orjson dumps(list of dicts)"])
def test_encode_text(benchmark: Any, reply: Reply, encoder: str, ascii_only: bool) -> None:
    """The text deltas as one JSON array, the same bytes both ways (checked)."""
    events = _text_events(reply, ascii_only)
    fn: Callable[[Any], bytes]
    arg: list[Any]
    if encoder.startswith("wire"):
        fn, arg = wire.json.encode, events
    else:
        fn, arg = orjson.dumps, [msgspec.to_builtins(e) for e in events]
    out = fn(arg)
    assert out == wire.json.encode(events), f"{encoder} writes other bytes than wire"
    run(benchmark, fn, (arg,), rounds=30, events=len(events), nbytes=len(out))
