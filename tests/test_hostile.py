"""Bytes from a hostile peer: every public entry point that takes bytes gives
events (or frames, envelopes, a Msg) or one of wire's errors, never another
exception; a stream's events before the problem are still delivered, and a
stream reads the same however it is cut. The decoders' memory stays under a
stated multiple of ``max_frame_bytes`` whatever the shape of the lines.

The inputs reach what short random bytes do not: 10,000 nested arrays or
maps, numbers, ids and SSE fields of 5,000 digits, field values of hundreds
of KB, huge MessagePack length headers, and mutations (flips, cuts, inserted
fragments) of real events. Each family runs its fixed worst cases first, then
``WIRE_FUZZ_EXAMPLES`` (default 25) Hypothesis examples.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wire
import wire.peek
import wire.zerocopy
from benchmarks import memory
from tests.helpers import catalog_lines, factories
from wire.cli import main
from wire.errors import RemoteProtocolError, WireError
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder, SSEEncoder

ROOT = Path(__file__).parent.parent
EXAMPLES = int(os.environ.get("WIRE_FUZZ_EXAMPLES", "25"))

CATALOG = [wire.json.decode_event(line) for line in catalog_lines()]
JSON_EVENTS = [wire.json.encode(e) for e in CATALOG]
MSGPACK_EVENTS = [wire.msgpack.encode(e) for e in CATALOG]
DEPTH = 10_000
DIGITS = 5_000

@pytest.fixture(autouse=True)
def constant_factories() -> Iterator[None]:
    """Events without an id or a time get the same ones at every decode, so
    that two reads of one stream compare equal."""
    with factories(lambda: "id", lambda: "t"):
        yield


# -- the families of hostile payloads, per codec ----------------------------------------------------------------

_DELTA = b'{"type":"TEXT_BLOCK_DELTA","id":"e","created_at":"c","reply_id":"r","block_id":"b",'


def _json_nested(depth: int, opener: str, closed: bool, where: str) -> bytes:
    open_, close = (b"[", b"]") if opener == "array" else (b'{"a":', b"}")
    nested = open_ * depth + (b"0" + close * depth if closed else b"")
    if where == "bare":
        return nested
    if where == "metadata":
        return _DELTA + b'"delta":"x","metadata":{"m":' + nested + b"}}"
    if where == "value":
        return b'{"type":"CUSTOM","name":"n","value":{"v":' + nested + b"}}"
    return _DELTA + b'"delta":' + nested + b"}"


def _json_digits(n: int, form: str, where: str) -> bytes:
    digits = b"1" + b"0" * (n - 1)
    number = {"int": digits, "negative": b"-" + digits, "fraction": b"0." + digits, "exponent": b"1e" + digits,
              "string": b'"' + digits + b'"'}[form]
    if where == "metadata":
        return _DELTA + b'"delta":"x","metadata":{"n":' + number + b"}}"
    if where == "tokens":
        return b'{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":' + number + b',"output_tokens":1}'
    return _DELTA.replace(b'"e"', number) + b'"delta":"x"}'  # as the event id


def _json_long(n: int, form: str) -> bytes:
    if form == "delta":
        return _DELTA + b'"delta":"' + b"\\u00e9" * (n // 6) + b'"}'
    if form == "key":
        return _DELTA + b'"delta":"x","metadata":{"' + b"k" * n + b'":1}}'
    keys = b",".join(b'"k%d":%d' % (i % 97, i) for i in range(n // 12))  # repeated keys too
    return _DELTA + b'"delta":"x","metadata":{' + keys + b"}}"


def _with_metadata(event: dict[str, Any], tail: bytes) -> bytes:
    """A MessagePack map of ``event`` plus a ``metadata`` key whose value is
    the raw MessagePack ``tail`` (which msgspec could not build itself)."""
    head = msgspec.msgpack.encode(event)
    assert head[0] & 0xF0 == 0x80 and len(event) < 15
    return bytes([head[0] + 1]) + head[1:] + b"\xa8metadata\x81\xa1m" + tail


_MSGPACK_DELTA = {"type": "TEXT_BLOCK_DELTA", "id": "e", "created_at": "c", "reply_id": "r", "block_id": "b",
                  "delta": "x"}


def _msgpack_nested(depth: int, opener: str, closed: bool, where: str) -> bytes:
    open_ = b"\x91" if opener == "array" else b"\x81\xa1a"
    nested = open_ * depth + (b"\xc0" if closed else b"")
    return nested if where == "bare" else _with_metadata(_MSGPACK_DELTA, nested)


_EXOTIC = [b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00",  # NaN
           b"\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00",  # inf
           b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff",  # 2**64 - 1
           b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",  # -2**63
           b"\xd4\x05\x00",  # Ext
           b"\xd6\xff\x00\x00\x00\x00",  # timestamp
           b"\xc4\x02ab",  # bin
           b"\x81\x01\xa1a",  # int key
           b"\xc1"]  # never used


def _msgpack_digits(n: int, where: str, exotic: int) -> bytes:
    digits = "1" + "0" * (n - 1)
    if where == "id":
        return msgspec.msgpack.encode({**_MSGPACK_DELTA, "id": digits})
    if where == "tokens":
        return msgspec.msgpack.encode({"type": "MODEL_CALL_END", "reply_id": "r", "input_tokens": digits,
                                       "output_tokens": 1})
    return _with_metadata(_MSGPACK_DELTA, _EXOTIC[exotic % len(_EXOTIC)])


def _msgpack_long(n: int, form: str) -> bytes:
    if form == "delta":
        return msgspec.msgpack.encode({**_MSGPACK_DELTA, "delta": "é" * (n // 2)})
    if form == "data":
        return msgspec.msgpack.encode({**_MSGPACK_DELTA, "type": "DATA_BLOCK_DELTA", "media_type": "a/b",
                                       "data": b"\x00" * n, "delta": None})
    # A header that promises 2**32-1 items the buffer does not hold.
    return _with_metadata(_MSGPACK_DELTA, {"array": b"\xdd", "map": b"\xdf", "str": b"\xdb"}[form] + b"\xff" * 4)


_FRAGMENTS = [b"[", b"{", b"]", b"}", b'"', b"\\", b"\\u", b"\xff", b"\xc0\x80", b"\x00", b"\n", b"\r", b"\r\n",
              b"\n\n", b"data:", b"id:", b"retry:", b":", b"\xef\xbb\xbf", b"1" * 40, b"-", b"e999", b",", b"null",
              b"\x91", b"\xdd\xff\xff\xff\xff", b"\xd4\x05", b"\xcb\x7f\xf8", b"\xff\xff\xff\xff"]


@st.composite
def _mutated(draw: st.DrawFn, events: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(events)))
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["flip", "insert", "delete", "duplicate", "cut"]))
        if op == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(st.sampled_from(_FRAGMENTS))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 16))]
        elif op == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 64))]
        elif op == "cut":
            del data[at:]
    return bytes(data)


_DEPTHS = st.integers(1, DEPTH) | st.just(DEPTH)
_NUMBERS = st.integers(1, DIGITS) | st.just(DIGITS)
_LENGTHS = st.integers(0, 400_000)
_NESTED_ARGS = (_DEPTHS, st.sampled_from(["array", "map"]), st.booleans())

FAMILIES: dict[str, dict[str, st.SearchStrategy[bytes]]] = {
    "json": {
        "random": st.binary(max_size=256),
        "nesting": st.builds(_json_nested, *_NESTED_ARGS, st.sampled_from(["bare", "metadata", "value", "delta"])),
        "digits": st.builds(_json_digits, _NUMBERS, st.sampled_from(["int", "negative", "fraction", "exponent",
                                                                     "string"]),
                            st.sampled_from(["metadata", "tokens", "id"])),
        "long": st.builds(_json_long, _LENGTHS, st.sampled_from(["delta", "key", "keys"])),
        "mutated": _mutated(JSON_EVENTS),
    },
    "msgpack": {
        "random": st.binary(max_size=256),
        "nesting": st.builds(_msgpack_nested, *_NESTED_ARGS, st.sampled_from(["bare", "metadata"])),
        "digits": st.builds(_msgpack_digits, _NUMBERS, st.sampled_from(["id", "tokens", "metadata"]),
                            st.integers(0, 99)),
        "long": st.builds(_msgpack_long, _LENGTHS, st.sampled_from(["delta", "data", "array", "map", "str"])),
        "mutated": _mutated(MSGPACK_EVENTS),
    },
}

# The worst of each family, always run first.
SEEDS: dict[str, dict[str, list[bytes]]] = {
    "json": {
        "random": [b"", b"\xff", b"{", b"\x00" * 64],
        "nesting": [_json_nested(DEPTH, "array", True, "bare"), _json_nested(DEPTH, "map", False, "metadata"),
                    _json_nested(DEPTH, "array", True, "value")],
        "digits": [_json_digits(DIGITS, form, where) for form in ("int", "negative", "exponent", "string")
                   for where in ("metadata", "tokens", "id")],
        "long": [_json_long(1_000_000, "delta"), _json_long(400_000, "keys")],
        "mutated": [],
    },
    "msgpack": {
        "random": [b"", b"\xc1", b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"],
        "nesting": [_msgpack_nested(DEPTH, "array", True, "bare"), _msgpack_nested(DEPTH, "map", False, "metadata")],
        "digits": [_msgpack_digits(DIGITS, where, i) for where in ("id", "tokens") for i in (0,)]
        + [_msgpack_digits(1, "metadata", i) for i in range(len(_EXOTIC))],
        "long": [_msgpack_long(1_000_000, "data"), _msgpack_long(0, "array"), _msgpack_long(0, "str")],
        "mutated": [],
    },
}


def _sse_field_lines(draw: st.DrawFn) -> bytes:
    """SSE's own fields at their worst: ids and retries of up to 4,300 digits
    (more is the lead's part), comments, fields without a colon, line ends of
    every kind, a BOM; then data frames."""
    end = draw(st.sampled_from([b"\n", b"\r", b"\r\n"]))
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["retry", "id", "comment", "bare", "event", "data"]))
        if kind == "retry":
            lines.append(b"retry:" + b"9" * draw(st.integers(0, 4300)))
        elif kind == "id":
            lines.append(b"id: " + b"7" * draw(_NUMBERS) + draw(st.sampled_from([b"", b"\x00", b"\xff"])))
        elif kind == "comment":
            lines.append(b":" + b"c" * draw(st.integers(0, 100_000)))
        elif kind == "bare":
            lines.append(draw(st.sampled_from([b"data", b"id", b"retry", b"event", b"x"])))
        elif kind == "event":
            lines.append(b"event: " + draw(st.sampled_from([b"message", b"ping", b""])))
        else:
            lines.append(b"data:" + draw(st.sampled_from(JSON_EVENTS)))
    lines.append(b"")
    bom = draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))
    return bom + end.join(lines) + end


SSE_FIELDS = st.composite(lambda draw: _sse_field_lines(draw))()
SSE_SEEDS = [b"id: " + b"7" * DIGITS + b"\ndata:" + JSON_EVENTS[0] + b"\n\n",
             b"retry:" + b"9" * 4300 + b"\n\n", b":" + b"c" * 1_000_000 + b"\n\n"]

# -- the entry points -------------------------------------------------------------------------------------------

Stream = Callable[[], Any]
STREAMS: dict[str, tuple[str, str, Stream]] = {}  # name -> (codec, framing, decoder factory)
for _framing, _cls, _codec in (("ndjson", NDJSONDecoder, "json"), ("sse", SSEDecoder, "json"),
                               ("msgpack", MsgpackFrameDecoder, "msgpack")):
    for _label, _options in (("", {}), (" unknown=keep", {"unknown": "keep"}), (" raw", {"raw": True}),
                             (" raw peek", {"raw": True, "peek": True, "unknown": "keep"})):
        STREAMS[_cls.__name__ + _label] = (_codec, _framing, functools.partial(_cls, **_options))

ENCODERS: dict[str, Callable[[list[Any]], bytes]] = {
    "ndjson": NDJSONEncoder().encode_batch, "sse": SSEEncoder().encode_batch,
    "msgpack": MsgpackFrameEncoder().encode_batch}


def _frame(framing: str, payload: bytes) -> bytes:
    if framing == "ndjson":
        return payload + b"\n"
    if framing == "sse":
        return b"data:" + payload + b"\n\n"
    return len(payload).to_bytes(4, "big") + payload


def read(factory: Stream, data: bytes, sizes: list[int]) -> tuple[list[Any], RemoteProtocolError | None]:
    """Feed ``data`` cut after each of ``sizes`` (the rest in one piece), then
    close: the items delivered, and the wire error that stopped the stream.
    Any other exception goes up and fails the test."""
    decoder = factory()
    items: list[Any] = []
    at = 0
    try:
        for size in sizes:
            items += decoder.feed(data[at:at + size])
            at += size
        items += decoder.feed(data[at:])
        items += decoder.close()
    except RemoteProtocolError as exc:
        return items + exc.events, exc
    return items, None


def check_stream(name: str, payload: bytes, framed: bool, good: int, sizes: list[int]) -> None:
    _, framing, factory = STREAMS[name]
    prefix = ENCODERS[framing](CATALOG[:good])
    data = prefix + (_frame(framing, payload) if framed else payload)
    expected, error = read(factory, prefix, [])
    assert error is None
    whole, whole_error = read(factory, data, [])
    assert whole[:len(expected)] == expected  # the events before the problem are delivered
    cut, cut_error = read(factory, data, sizes)
    assert cut == whole  # the same however the stream is cut
    assert type(cut_error) is type(whole_error)
    if whole_error is not None and cut_error is not None:
        assert (cut_error.index, cut_error.offset) == (whole_error.index, whole_error.offset)


ONE_SHOT: dict[str, tuple[str, Callable[[bytes], Any]]] = {
    "wire.json.decode_event": ("json", wire.json.decode_event),
    "wire.json.decode_events": ("json", lambda b: wire.json.decode_events(b"\n".join([*JSON_EVENTS[:3], b]))),
    "wire.json.decode_msg": ("json", wire.json.decode_msg),
    "wire.json.peek": ("json", wire.json.peek),
    "wire.json.peek unknown=keep": ("json", lambda b: wire.json.peek(b, unknown="keep")),
    "wire.peek.peek_json_lines": ("json", lambda b: wire.peek.peek_json_lines(b"\n".join([*JSON_EVENTS[:3], b]))),
    "wire.peek.peek_json_lines unknown=keep": (
        "json", lambda b: wire.peek.peek_json_lines(b"\n".join([*JSON_EVENTS[:3], b]), unknown="keep")),
    "wire.msgpack.decode_event": ("msgpack", wire.msgpack.decode_event),
    "wire.msgpack.decode_events": ("msgpack", lambda b: wire.msgpack.decode_events(b"\x93" + b"".join(
        MSGPACK_EVENTS[:2]) + b)),
    "wire.msgpack.decode_msg": ("msgpack", wire.msgpack.decode_msg),
    "wire.msgpack.peek": ("msgpack", wire.msgpack.peek),
    "wire.msgpack.peek unknown=keep": ("msgpack", lambda b: wire.msgpack.peek(b, unknown="keep")),
    "wire.zerocopy.decode_event": ("msgpack", wire.zerocopy.decode_event),
}


def check_one_shot(name: str, payload: bytes) -> None:
    with contextlib.suppress(WireError):  # a value, or one of wire's errors
        ONE_SHOT[name][1](payload)


def _fuzz(check: Callable[..., None], strategy: st.SearchStrategy[Any]) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
    @given(strategy)
    def run(args: Any) -> None:
        check(*args)

    run()


_CUTS = st.lists(st.integers(0, 70_000) | st.integers(0, 8), max_size=8)


def _params(names: list[str], codec_of: Callable[[str], str]) -> list[Any]:
    return [pytest.param(name, family, id=f"{name}-{family}") for name in names for family in FAMILIES[codec_of(name)]]


@pytest.mark.parametrize(("name", "family"), _params(list(STREAMS), lambda n: STREAMS[n][0]))
def test_stream_decoders_give_events_or_a_wire_error(name: str, family: str) -> None:
    codec = STREAMS[name][0]
    for seed in SEEDS[codec][family]:
        check_stream(name, seed, True, 2, [1, 7, 4096])
        check_stream(name, seed, False, 1, [65536])
    _fuzz(lambda payload, framed, good, sizes: check_stream(name, payload, framed, good, sizes),
          st.tuples(FAMILIES[codec][family], st.booleans(), st.integers(0, 3), _CUTS))


@pytest.mark.parametrize("name", [n for n in STREAMS if n.startswith("SSE")])
def test_sse_decoders_read_hostile_fields(name: str) -> None:
    for seed in SSE_SEEDS:
        check_stream(name, seed, False, 1, [3, 4096])
    _fuzz(lambda data, good, sizes: check_stream(name, data, False, good, sizes),
          st.tuples(SSE_FIELDS, st.integers(0, 2), _CUTS))


@pytest.mark.parametrize("name", [n for n in STREAMS if n.startswith("SSE")])
def test_sse_retry_of_4301_digits_gives_events_or_a_wire_error(name: str) -> None:
    check_stream(name, b"retry:" + b"9" * 4301 + b"\n\n", False, 1, [])


@pytest.mark.parametrize(("name", "family"),
                         _params(list(ONE_SHOT), lambda n: ONE_SHOT[n][0]))
def test_one_shot_decoders_give_a_value_or_a_wire_error(name: str, family: str) -> None:
    codec = ONE_SHOT[name][0]
    for seed in SEEDS[codec][family]:
        check_one_shot(name, seed)
    _fuzz(lambda payload: check_one_shot(name, payload), st.tuples(FAMILIES[codec][family]))


# -- the CLI ------------------------------------------------------------------------------------------------------


def check_cli(framing: str, data: bytes) -> None:
    """``wire inspect`` and ``wire convert`` end with 0 or 1, never an exception."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp, "in"), Path(tmp, "out")
        source.write_bytes(data)
        assert main(["inspect", str(source), "--format", framing, "-q"]) in (0, 1)
        for to in ("ndjson", "sse", "msgpack"):
            assert main(["convert", str(source), str(out), "--from", framing, "--to", to]) in (0, 1)


@pytest.mark.parametrize("framing", ["ndjson", "sse", "msgpack"])
@pytest.mark.parametrize("family", ["random", "nesting", "digits", "long", "mutated"])
def test_the_cli_ends_with_a_status_never_a_traceback(framing: str, family: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    codec = "msgpack" if framing == "msgpack" else "json"
    prefix = ENCODERS[framing](CATALOG[:2])
    for seed in SEEDS[codec][family][:2]:
        check_cli(framing, prefix + _frame(framing, seed))
    _fuzz(lambda payload, framed: check_cli(framing, prefix + (_frame(framing, payload) if framed else payload)),
          st.tuples(FAMILIES[codec][family], st.booleans()))
    capsys.readouterr()


def run_cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "wire", *args], input=stdin, capture_output=True,
                          cwd=ROOT, check=False, timeout=120)


@pytest.mark.parametrize(("framing", "data"), [
    ("ndjson", JSON_EVENTS[0] + b"\n" + _json_nested(DEPTH, "array", True, "metadata") + b"\n"),
    ("ndjson", JSON_EVENTS[0] + b"\n" + _json_digits(DIGITS, "int", "metadata") + b"\n"),
    ("msgpack", _frame("msgpack", MSGPACK_EVENTS[0]) + _frame("msgpack", _msgpack_digits(1, "metadata", 4))),
    ("sse", b"retry:" + b"9" * DIGITS + b"\ndata:" + JSON_EVENTS[0] + b"\n\n"),
])
def test_the_cli_program_ends_without_a_traceback(framing: str, data: bytes) -> None:
    """Exit 1 with one line naming the problem; or 0 where the input is
    valid (an SSE retry of any length) or passes through unread."""
    for args in (("inspect", "-"), ("convert", "-", "-", "--to", "sse"), ("convert", "-", "-", "--to", "msgpack")):
        result = run_cli(*args, "--format" if args[0] == "inspect" else "--from", framing, stdin=data)
        assert b"Traceback" not in result.stderr, result.stderr[-2000:]
        # Between framings of one codec convert passes payloads through unread
        # but their envelope: a value inside may go through, as in a raw relay.
        raw = args[0] == "convert" and (framing == "msgpack") == (args[-1] == "msgpack")
        assert result.returncode == 1 or (result.returncode == 0 and (raw or framing == "sse"))
        if result.returncode:
            assert result.stderr.startswith(b"wire " + args[0].encode() + b": error: ")


# -- memory: a multiple of max_frame_bytes, whatever the lines ------------------------------------------------------

LIMIT = 256 * 1024


@pytest.mark.parametrize("chunk", [4096, memory.CHUNK])
@pytest.mark.parametrize(("framing", "shape"), memory.shapes(LIMIT))
def test_peak_memory_is_a_multiple_of_the_frame_limit(framing: str, shape: str, chunk: int) -> None:
    used = memory.peak(framing, shape, LIMIT, chunk)
    assert used <= memory.bound(LIMIT), f"{used / LIMIT:.1f} x the limit"
