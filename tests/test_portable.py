"""wire._portable, the value rule of free-form fields: linear in the size of
the value however long its keys are, with the path of the first offender.

The walk used to write the full path of every child before looking at it, so
a map whose one key is n characters long, holding a list of n items, cost
n * n in time and memory (117 KiB of JSON took seconds and 1.5 GB)."""

from __future__ import annotations

import json
import struct
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

import wire
from tests.helpers import growth_ratio
from wire._portable import problem
from wire.framing.lengthprefix import MsgpackFrameDecoder
from wire.framing.ndjson import NDJSONDecoder


def _long_key_value(n: int) -> dict[str, Any]:
    """A key of n characters over a list of n zeros: each child's path is
    as long as the key."""
    return {"a" * n: [0] * n}


def _custom(value: Any) -> bytes:
    return msgspec.json.encode({"type": "CUSTOM", "name": "x", "value": value})


def _walk(value: Any) -> None:
    problem(value, "value")


def test_the_walk_is_linear_in_the_value() -> None:
    def cost(n: int) -> Callable[[], None]:
        value = _long_key_value(n)
        return lambda: _walk(value)

    assert growth_ratio(cost, 20_000) < 8


def test_finding_the_offender_is_linear_too() -> None:
    """The path is written once, for the offender, not for every child."""
    def cost(n: int) -> Callable[[], None]:
        value = {"a" * n: [0] * n + [float("nan")]}
        return lambda: _walk(value)

    assert growth_ratio(cost, 20_000) < 8


def _peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _ndjson(data: bytes) -> None:
    decoder = NDJSONDecoder(max_frame_bytes=1 << 20)
    assert len(decoder.feed(data + b"\n")) == 1
    decoder.close()


def _msgpack(data: bytes) -> None:
    decoder = MsgpackFrameDecoder(max_frame_bytes=1 << 20)
    assert len(decoder.feed(data)) == 1
    decoder.close()


def _framed(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


_BIG = _long_key_value(40_000)  # 117 KiB of JSON
_MSG = {"name": "a", "role": "assistant", "content": []}


@pytest.mark.parametrize(("decode", "data"), [
    (wire.json.decode_event, _custom(_BIG)),
    (_ndjson, _custom(_BIG)),
    (wire.json.decode_msg, msgspec.json.encode({**_MSG, "metadata": _BIG})),
    (wire.json.decode_msg, msgspec.json.encode({**_MSG, "structured_output": _BIG})),
    (wire.msgpack.decode_event, msgspec.msgpack.encode({"type": "CUSTOM", "name": "x", "value": _BIG})),
    (_msgpack, _framed(msgspec.msgpack.encode({"type": "CUSTOM", "name": "x", "value": _BIG}))),
], ids=["json", "ndjson", "metadata", "structured_output", "msgpack", "msgpack frames"])
def test_a_long_key_over_a_long_list_decodes_in_bounded_memory(decode: Callable[[bytes], object],
                                                               data: bytes) -> None:
    """The decoded value itself is about 400 KB (40,000 list slots and the
    key); the walk used to allocate 1.5 GB of paths beside it."""
    assert len(data) < 130_000
    assert _peak(lambda: decode(data)) < 4_000_000


def test_an_offender_after_a_long_key_costs_one_path() -> None:
    data = _custom({"a" * 40_000: [0] * 40_000 + [2**64]})
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_event(data)
    assert info.value.path == "$.value." + "a" * 40_000 + "[40000]"
    assert _peak(lambda: problem(msgspec.json.decode(data)["value"], "value")) < 2_000_000


@pytest.mark.parametrize(("value", "where", "what"), [
    ({"a": [1, {"b c": float("nan")}]}, "v.a[1]['b c']", "the float nan"),
    ({"a": [1, {1: 2}]}, "v.a[1]", "a map key of type int"),
    ({"a": [1, {"x": b"1"}]}, "v.a[1].x", "a value of type bytes"),
    (float("inf"), "v", "the float inf"),
    ([[[[2**64]]]], "v[0][0][0][0]", "an integer outside"),
    ([[], {}, {"k": [-(2**63) - 1]}], "v[2].k[0]", "an integer outside"),
    ({"ok": 1, "first": 1j, "then": float("nan")}, "v.first", "a value of type complex"),
], ids=["nan", "int key", "bytes", "top-level inf", "deep int", "after empty containers", "first offender"])
def test_the_offender_is_named_with_its_path(value: Any, where: str, what: str) -> None:
    why = problem(value, "v")
    assert why is not None and why.startswith(what) and why.endswith(f" - in `{where}`")


@pytest.mark.parametrize("value", [None, "s", True, 0, 2**64 - 1, -(2**63), 1.5, [], {},
                                   {"a": {"b": {}}, "c": [None, True, 1.5, "s", [[]]]}])
def test_portable_values_pass(value: Any) -> None:
    assert problem(value, "v") is None


# -- the shared vectors (the TypeScript runtime reads the same file) -------------------------------------

VECTORS = json.loads((Path(__file__).parent / "vectors" / "value-rule" / "cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["name"] for c in VECTORS["cases"]])
def test_the_value_rule_vectors(case: dict[str, Any]) -> None:
    if case["framing"] == "ndjson":
        decoder: Any = NDJSONDecoder()
        data = case["payload"].encode() + b"\n"
    else:
        decoder = MsgpackFrameDecoder()
        data = bytes.fromhex(case["payload"])
    if case["accepted"]:
        assert len(decoder.feed(data)) == 1
    else:
        with pytest.raises(wire.DecodeError):
            decoder.feed(data)
