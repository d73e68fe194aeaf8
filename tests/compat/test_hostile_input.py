"""The converters under hostile input: whatever the message, each entry point
(both directions, AgentScope 1.x and AgentX, objects and bytes) returns a
result or raises one of wire's errors, never another exception.

Inputs are valid messages with random nodes replaced, removed or added
(values a JSON or MessagePack decoder can give, and the ones only one of
them can: NaN, integers beyond 64 bits, bytes, non-string keys), plus the
reproducers found by hand."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import REACT_TURN
from tests.strategies import msgs
from wire.compat import agentscope1, agentx
from wire.compat.agentscope1 import (
    convert_from_agentscope1,
    convert_to_agentscope1,
    from_agentscope1,
    from_agentscope1_history,
    to_agentscope1,
    to_agentscope1_history,
)
from wire.compat.agentx import (
    decode_agentx,
    events_to_packets,
    from_agentx,
    packets_to_events,
    to_agentx,
)

AGENTX = Path(__file__).parent.parent / "vectors" / "agentx"
AGENTX_MESSAGES: list[dict[str, Any]] = [
    m for path in sorted(AGENTX.glob("*.json"))
    for key in ("packets", "stream_messages")
    for m in json.loads(path.read_text(encoding="utf-8")).get(key, [])]

# Values only some decoders give, and shapes the converters do not expect.
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([2**64, -(2**63) - 1, 2**64 - 1]),
    st.floats(), st.text(max_size=8), st.binary(max_size=4),
    st.sampled_from(["text", "tool_use", "tool_result", "image", "url", "base64", "user", "system", "assistant",
                     "agentscope1", "agentx", "tool_call", "tool_error", "VALIDATION", "0", "0.0", "fields",
                     "blocks", "marks", "content", "list", "whole"]))
_hostile = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(st.text(max_size=6), st.integers(0, 3)), inner, max_size=3)),
    max_leaves=6)


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _nodes(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _nodes(child, (*path, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """``base`` (copied) with one to three nodes replaced, removed or given a new key."""
    value = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(value)
        path = draw(st.sampled_from(nodes))
        if not path:
            if draw(st.integers(0, 9)) == 0:
                value = draw(_hostile)
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(_hostile)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.one_of(st.text(max_size=12), st.sampled_from(["id", "type", "invocation_id"])))] = (
                draw(_hostile))
        else:
            parent.append(draw(_hostile))
    return value


def _never_foreign(work: Callable[[], object]) -> None:
    with contextlib.suppress(wire.WireError):
        work()


def _json_bytes(value: Any) -> bytes | None:
    """JSON text of ``value`` when it has one (NaN written as NaN, which
    JSON decoders refuse); None for bytes or non-string keys."""
    try:
        return json.dumps(value).encode()
    except (TypeError, ValueError):
        return None


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_FEWER = settings(_SETTINGS, max_examples=100)  # drawing a whole Msg is slower

# -- AgentScope 1.x -> 2.0 -----------------------------------------------------------------------


@_SETTINGS
@given(st.sampled_from(REACT_TURN).flatmap(mutated))
def test_1x_to_2_0_never_raises_a_foreign_exception(d: Any) -> None:
    _never_foreign(lambda: from_agentscope1(d))
    _never_foreign(lambda: from_agentscope1_history([d, *REACT_TURN]))
    _never_foreign(lambda: from_agentscope1_history([[d, ["mark"]]]))
    if (data := _json_bytes(d)) is not None:
        _never_foreign(lambda: convert_from_agentscope1(data))
        _never_foreign(lambda: convert_from_agentscope1(json.dumps({"content": [d]}).encode()))


@_SETTINGS
@given(st.builds(lambda: REACT_TURN).flatmap(mutated))
def test_a_1x_history_never_raises_a_foreign_exception(history: Any) -> None:
    _never_foreign(lambda: from_agentscope1_history(history))
    if (data := _json_bytes(history)) is not None:
        _never_foreign(lambda: convert_from_agentscope1(data))


# -- 2.0 -> AgentScope 1.x -------------------------------------------------------------------------


def _with_metadata(msg: wire.Msg, metadata: Any) -> wire.Msg | None:
    """``msg`` with other metadata, when a decoder could give that Msg: an
    object of portable values."""
    if not isinstance(metadata, dict):
        return None
    try:
        return msgspec.structs.replace(msg, metadata=metadata)
    except (ValueError, TypeError):  # the constructor refuses a value no codec carries
        return None


@_SETTINGS
@given(st.sampled_from(REACT_TURN).map(from_agentscope1).flatmap(
    lambda msg: mutated(msgspec.to_builtins(msg.metadata)).map(lambda meta: (msg, meta))))
def test_a_mutated_1x_record_never_raises_a_foreign_exception(pair: tuple[wire.Msg, Any]) -> None:
    msg = _with_metadata(*pair)
    if msg is None:
        return
    _never_foreign(lambda: to_agentscope1(msg))
    _never_foreign(lambda: to_agentscope1_history([msg], marks=True))
    _never_foreign(lambda: convert_to_agentscope1(wire.json.encode(msg)))


@_FEWER
@given(msgs().map(lambda m: msgspec.to_builtins(m)).flatmap(mutated))
def test_2_0_json_to_1x_never_raises_a_foreign_exception(value: Any) -> None:
    if (data := _json_bytes(value)) is not None:
        _never_foreign(lambda: convert_to_agentscope1(data))
        _never_foreign(lambda: convert_to_agentscope1(b"[" + data + b"]"))


# -- AgentX ------------------------------------------------------------------------------------------


@_SETTINGS
@given(st.sampled_from(AGENTX_MESSAGES).flatmap(mutated))
def test_agentx_to_2_0_never_raises_a_foreign_exception(message: Any) -> None:
    _never_foreign(lambda: from_agentx(message))
    _never_foreign(lambda: packets_to_events([AGENTX_MESSAGES[0], message]))
    if (data := _json_bytes(message)) is not None:
        _never_foreign(lambda: decode_agentx(b"[" + data + b"]"))
        _never_foreign(lambda: decode_agentx(data + b"\n"))
        _never_foreign(lambda: decode_agentx(b"data: " + data.replace(b"\n", b" ") + b"\n\n"))


@_FEWER
@given(msgs().map(lambda m: msgspec.to_builtins(m)).flatmap(mutated))
def test_2_0_to_agentx_never_raises_a_foreign_exception(value: Any) -> None:
    """Any Msg a decoder accepts, as mutation makes them."""
    try:
        msg = wire.json.decode_msg(_json_bytes(value) or b"")
    except wire.DecodeError:
        return
    _never_foreign(lambda: to_agentx(msg))
    events: list[Any] = []
    _never_foreign(lambda: events.extend(packets_to_events([to_agentx(msg)])))
    _never_foreign(lambda: events_to_packets(events))


# -- the reproducers -----------------------------------------------------------------------------


def _tool_result_with_id(id: Any) -> dict[str, Any]:
    return {"id": "s1", "name": "system", "role": "system",
            "content": [{"type": "tool_result", "id": id, "name": "f", "output": "o"}]}


@pytest.mark.parametrize(("d", "path"), [
    (_tool_result_with_id(["x"]), "$.content[0].id"),
    (_tool_result_with_id({"a": 1}), "$.content[0].id"),
    ({"name": "a", "role": "user", "content": "x", "metadata": {"n": 2**64}}, "$.metadata.n"),
    ({"name": "a", "role": "user", "content": "x", "metadata": {"n": [-(2**63) - 1]}}, "$.metadata.n[0]"),
    ({"name": "a", "role": "user", "content": "x", "metadata": {"n": math.nan}}, "$.metadata.n"),
    ({"name": "a", "role": "user", "content": "x", "metadata": {"n": b"x"}}, "$.metadata.n"),
    ({"name": "a", "role": "user", "content": "x", "metadata": {1: 2}}, "$.metadata"),
], ids=["list id", "object id", "int 2**64", "int below -2**63", "nan", "bytes", "int key"])
def test_what_a_1x_message_cannot_hold_is_a_decode_error_naming_where(d: dict[str, Any], path: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        from_agentscope1(d)
    assert info.value.path == path
    with pytest.raises(wire.DecodeError):
        from_agentscope1_history([d])


@pytest.mark.parametrize("data", [
    b"[" * 100_000, b"{\"a\":" * 100_000, b'{"name":"a","role":"user","content":"x","metadata":{"n":1e400}}',
    b'{"name":"a","role":"user","content":"x","metadata":{"n":18446744073709551616}}',
    b'{"name":"a","role":"user","content":"x"}\n' + b"[" * 100_000,
], ids=["deep array", "deep object", "1e400", "2**64", "deep ndjson line"])
def test_hostile_1x_bytes_are_decode_errors(data: bytes) -> None:
    with pytest.raises(wire.DecodeError):
        convert_from_agentscope1(data)


@pytest.mark.parametrize("data", [b"[" * 100_000, b"{\"a\":" * 100_000, b'{"a":1}\n' + b"[" * 100_000],
                         ids=["deep array", "deep object", "deep ndjson line"])
def test_hostile_2_0_bytes_are_decode_errors(data: bytes) -> None:
    with pytest.raises(wire.DecodeError):
        convert_to_agentscope1(data)


def test_a_null_invocation_id_comes_back() -> None:
    d: dict[str, Any] = {"id": "m", "name": "n", "role": "user", "content": "hi", "metadata": {},
         "timestamp": "2026-02-03 04:05:06.789", "invocation_id": None}
    assert to_agentscope1(from_agentscope1(d)) == d
    back = json.loads(convert_to_agentscope1(convert_from_agentscope1(json.dumps(d).encode())))
    assert back == [d]


@pytest.mark.parametrize("record", [
    {"blocks": []}, {"blocks": {"0": 5}}, {"blocks": {"0": {"source": 5}}}, {"fields": [1]}, {"fields": 5},
    {"marks": 5}, {"content": {"a": 1}}, 5, [], "x",
], ids=["blocks list", "block patch int", "nested patch", "fields list", "fields int", "marks int",
        "content object", "record int", "record list", "record str"])
def test_a_broken_1x_record_is_an_encode_error(record: Any) -> None:
    msg = from_agentscope1({"id": "m", "name": "n", "role": "assistant", "content": [
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}]})
    msg.metadata[agentscope1.METADATA_KEY] = record
    try:
        to_agentscope1(msg)
        to_agentscope1_history([msg], marks=True)
    except wire.EncodeError:
        pass


def test_agentx_and_agentscope1_share_no_record_key() -> None:
    assert agentx.METADATA_KEY != agentscope1.METADATA_KEY
