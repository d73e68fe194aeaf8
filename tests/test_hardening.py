"""Issue 11's regressions: each test fails on the code before the fix.

EventLog: an over-long Last-Event-ID, the bound on kept events. Reducer: the
anomaly cap and quoted ids. Codecs: values only one codec could carry. CLI:
what it read before an error. Invalid UTF-8 where wire does not read.
"""

from __future__ import annotations

import datetime
import json
import math
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire
import wire.reducer
from tests.helpers import REPLY, expect
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder
from wire.resume import CHECKPOINT, read_checkpoint
from wire.stores.memory import EventLog

ROOT = Path(__file__).parent.parent


def reply(n: int = 300) -> list[wire.AgentEvent]:
    """A well-formed reply of n text deltas; the same events at every call."""
    fields: list[tuple[type[Any], dict[str, Any]]] = [
        (wire.ReplyStartEvent, {"session_id": "s", "name": "a"}), (wire.TextBlockStartEvent, {"block_id": "t"})]
    fields += [(wire.TextBlockDeltaEvent, {"block_id": "t", "delta": f"{i} é中 "}) for i in range(n)]
    fields += [(wire.TextBlockEndEvent, {"block_id": "t"}), (wire.ReplyEndEvent, {"session_id": "s"})]
    return [cls(id=f"e{i}", created_at="c", reply_id=REPLY, **kw) for i, (cls, kw) in enumerate(fields)]


def new_msg() -> wire.Msg:
    return wire.AssistantMsg(name="a", content=[], id=REPLY, created_at="t")


def sse_body(log: EventLog, last_event_id: str | None = None, **options: Any) -> tuple[list[Any], str]:
    """What a client reads from ``log.sse``: its events and its last id."""

    async def read() -> bytes:
        return b"".join([chunk async for chunk in log.sse(last_event_id, **options)])

    decoder = SSEDecoder()
    events = decoder.feed(anyio.run(read)) + decoder.close()
    return events, decoder.last_event_id


def rebuilt(events: list[Any]) -> wire.Msg:
    """The Msg a client builds: a checkpoint replaces it, events extend it."""
    msg = new_msg()
    for event in events:
        msg = read_checkpoint(event) or msg.append_event(event)
    return msg


# -- EventLog: Last-Event-ID of any length (item 2) ------------------------------------------------------


@pytest.mark.parametrize("last_event_id", ["9" * 5000, "0" * 4400 + "5", "1" * 20])
def test_replay_with_an_overlong_last_event_id_starts_from_the_first_event(last_event_id: str) -> None:
    log = EventLog(new_msg())
    log.extend(reply(10))
    log.close()
    events, last = sse_body(log, last_event_id, resume="replay")
    assert events == reply(10) and last == str(len(events) - 1)


# -- EventLog: a bound on what it keeps (item 10) -----------------------------------------------------------


def test_a_bounded_log_keeps_the_newest_events_and_counts_every_position() -> None:
    events = reply(300)
    log = EventLog(new_msg(), max_events=50)
    for event in events[:100]:
        log.append(event)
    log.extend(events[100:])
    log.close()
    assert (log.first, log.end) == (len(events) - 50, len(events))
    assert log.events == events[-50:]
    assert log.msg == new_msg().extend_events(events)  # the Msg has everything


@pytest.mark.parametrize(("last_event_id", "resume"), [(None, "checkpoint"), ("3", "replay"), ("3", "checkpoint"),
                                                        ("x", "replay")])
def test_a_reader_whose_position_was_dropped_gets_a_checkpoint_then_the_tail(
        last_event_id: str | None, resume: Any) -> None:
    events = reply(300)
    log = EventLog(new_msg(), max_events=50)
    log.extend(events[:200])
    got, last = sse_body(_closed_copy(log, events[:200]), last_event_id, resume=resume)
    assert [e.name for e in got] == [CHECKPOINT] and last == "199"
    assert rebuilt(got) == new_msg().extend_events(events[:200])
    # A replay from a kept position still gets exactly the events after it.
    log.close()
    got, last = sse_body(log, "180", resume="replay")
    assert got == events[181:200] and last == "199"


def _closed_copy(log: EventLog, events: list[wire.AgentEvent]) -> EventLog:
    copy = EventLog(new_msg(), max_events=log.max_events, max_bytes=log.max_bytes)
    copy.extend(events)
    copy.close()
    return copy


def test_a_live_reader_that_falls_behind_gets_a_checkpoint_and_then_follows() -> None:
    events = reply(300)

    async def main() -> list[list[wire.AgentEvent]]:
        log = EventLog(new_msg(), max_events=20)
        batches: list[list[wire.AgentEvent]] = []
        log.append(events[0])
        reader = log.follow(0, max_batch=10)
        batches.append(await reader.__anext__())  # [events[0]]
        log.extend(events[1:100])  # drops the reader's position
        batches.append(await reader.__anext__())  # a checkpoint of the 100 events
        for i in range(100, len(events), 10):  # the reader keeps up again
            log.extend(events[i:i + 10])
            batches.append(await reader.__anext__())
        log.close()
        batches += [batch async for batch in reader]
        return batches

    batches = anyio.run(main)
    assert batches[0] == events[:1] and [expect(wire.CustomEvent, e).name for e in batches[1]] == [CHECKPOINT]
    assert [e for b in batches[2:] for e in b] == events[100:]
    assert rebuilt([e for b in batches[1:] for e in b]) == new_msg().extend_events(events)


def test_max_bytes_counts_the_events_json_and_keeps_at_least_the_newest() -> None:
    events = reply(100)
    sizes = [len(wire.json.encode(e)) for e in events]
    log = EventLog(new_msg(), max_bytes=sum(sizes[-10:]))
    log.extend(events)
    assert log.events == events[-10:]
    tiny = EventLog(new_msg(), max_bytes=1)
    tiny.extend(events)
    tiny.append(events[0])
    assert tiny.events == [events[0]] and tiny.first == len(events)


@given(st.integers(1, 40), st.integers(0, 120), st.integers(0, 120), st.sampled_from(["checkpoint", "replay"]))
@settings(max_examples=60, deadline=None)
def test_any_bound_any_reader_rebuilds_the_same_msg(bound: int, appended: int, reader_at: int, resume: Any) -> None:
    events = reply(116)[:appended]
    log = EventLog(new_msg(), max_events=bound)
    log.extend(events)
    log.close()
    # A reader that had applied the events before reader_at (replay), or any
    # client (checkpoint), ends with the Msg of every event.
    had = events[:min(reader_at, len(events))]
    got, _ = sse_body(log, str(len(had) - 1) if had else None, resume=resume)
    start = new_msg().extend_events(had) if resume == "replay" and had else new_msg()
    msg = start
    for event in got:
        msg = read_checkpoint(event) or msg.append_event(event)
    assert msg == new_msg().extend_events(events)


def test_a_bounded_log_holds_its_bound_not_its_history() -> None:
    log = EventLog(new_msg(), max_events=100)
    log.append(wire.ReplyStartEvent(session_id="s", reply_id=REPLY, name="a"))
    log.append(wire.CustomEvent(name="tick"))
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(20_000):  # CUSTOM events leave the Msg as it is: only the log could grow
            log.append(wire.CustomEvent(name="tick", id=str(i), created_at="c", value={"i": "x" * 100}))
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held < 200 * 1000  # 100 kept events of < 1 KB each; 20,000 would be ~6 MB


def test_an_unbounded_log_keeps_every_event_in_one_list() -> None:
    log = EventLog(new_msg())
    log.extend(reply(50))
    assert log.events is log.events and log.events == reply(50)  # no copy per read
    assert (log.first, log.end) == (0, len(reply(50)))


def test_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="max_events"):
        EventLog(new_msg(), max_events=0)


# -- Reducer: bounded anomalies (item 5) ----------------------------------------------------------------------


def test_an_other_reply_anomaly_quotes_a_bounded_id() -> None:
    msg = wire.AssistantMsg(name="a", content=[], id="m" * 100_000, created_at="t")
    foreign = [wire.TextBlockDeltaEvent(reply_id="other", block_id="b", delta="x") for _ in range(200)]
    tracemalloc.start()
    try:
        msg.extend_events(foreign)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [a.kind for a in msg.anomalies] == ["other_reply"] * 200
    assert all(len(a.detail) < 120 for a in msg.anomalies)
    assert peak < 2_000_000  # 200 quoted copies of the id were 20 MB


def test_anomalies_past_the_cap_are_counted_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wire.reducer.MAX_ANOMALIES == 1000
    msg = new_msg().extend_events([wire.TextBlockEndEvent(reply_id=REPLY, block_id=str(i)) for i in range(1500)])
    assert len(msg.anomalies) == 1000 and msg.anomalies_dropped == 500
    assert msg.anomalies[-1].index == 999

    monkeypatch.setattr(wire.reducer, "MAX_ANOMALIES", 0)
    # The run fast path of extend_events must see an anomaly it did not keep.
    stray = [wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="nope", delta="x") for _ in range(3)]
    events = [*stray, *reply(5), *stray]
    msg = new_msg().extend_events(events)
    assert msg.anomalies == [] and msg.anomalies_dropped == 6
    assert msg == new_msg().extend_events(reply(5))
    one_by_one = new_msg()
    for event in events:
        one_by_one.append_event(event)
    assert one_by_one == msg and one_by_one.anomalies_dropped == 6
    assert new_msg().anomalies_dropped == 0


# -- Codecs: what one decodes, both write (item 6) ------------------------------------------------------------

_DELTA = {"type": "TEXT_BLOCK_DELTA", "id": "e", "created_at": "c", "reply_id": REPLY, "block_id": "b", "delta": "x"}
_NOT_PORTABLE = {
    "Ext": msgspec.msgpack.Ext(5, b"\x00"),
    "timestamp": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    "NaN": math.nan,
    "inf": -math.inf,
    "bytes": b"\x00\x01",
    "int key": {1: "a"},
    "deep Ext": [{"k": [msgspec.msgpack.Ext(1, b"")]}],
}


def _msgpack_decoders() -> dict[str, Any]:
    import wire.zerocopy

    def frames(buf: bytes) -> Any:
        decoder = MsgpackFrameDecoder()
        return decoder.feed(len(buf).to_bytes(4, "big") + buf) + decoder.close()

    return {"decode_event": wire.msgpack.decode_event,
            "decode_events": lambda b: wire.msgpack.decode_events(b"\x91" + b),
            "frames": frames, "zerocopy": wire.zerocopy.decode_event}


def _json_decoders() -> dict[str, Any]:
    def stream(decoder: Any, data: bytes) -> Any:
        return decoder.feed(data) + decoder.close()

    return {"decode_event": wire.json.decode_event, "decode_events": wire.json.decode_events,
            "ndjson": lambda b: stream(NDJSONDecoder(), b + b"\n"),
            "sse": lambda b: stream(SSEDecoder(), b"data:" + b + b"\n\n")}


@pytest.mark.parametrize("decoder", list(_msgpack_decoders()))
@pytest.mark.parametrize("value", list(_NOT_PORTABLE))
def test_msgpack_values_json_cannot_carry_are_decode_errors(decoder: str, value: str) -> None:
    for event in ({**_DELTA, "metadata": {"m": _NOT_PORTABLE[value]}},
                  {**_DELTA, "type": "DATA_BLOCK_DELTA", "media_type": "a/b", "data": b"x", "delta": None,
                   "metadata": {"m": _NOT_PORTABLE[value]}}):
        buf = msgspec.msgpack.encode({k: v for k, v in event.items() if v is not None})
        with pytest.raises(wire.DecodeError) as info:
            _msgpack_decoders()[decoder](buf)
        assert info.value.path is not None and info.value.path.startswith("$.metadata.m")


@pytest.mark.parametrize("decoder", list(_json_decoders()))
@pytest.mark.parametrize(("text", "path"), [
    (b'{"type":"CUSTOM","name":"n","value":{"a":[1,{"b":18446744073709551616}]}}', "$.value.a[1].b"),
    (b'{"type":"CUSTOM","name":"n","metadata":{"b":-9223372036854775809}}', "$.metadata.b"),
    (b'{"type":"MODEL_CALL_END","reply_id":"r","input_tokens":1' + b"0" * 30 + b',"output_tokens":1}',
     "$.input_tokens"),
    (b'{"type":"EXTERNAL_EXECUTION_RESULT","reply_id":"r","execution_results":[{"type":"tool_result","id":"t",'
     b'"name":"x","output":"o","metadata":{"n":1' + b"0" * 30 + b'}}]}', "$.execution_results[0].metadata.n"),
    # msgspec itself refuses an integer this long, naming the map but not the key
    (b'{"type":"CUSTOM","name":"n","value":{"a":1' + b"0" * 5000 + b'}}', "$.value[...]"),
])
def test_json_integers_messagepack_cannot_carry_are_decode_errors(decoder: str, text: bytes, path: str) -> None:
    with pytest.raises(wire.DecodeError) as info:
        _json_decoders()[decoder](text)
    assert info.value.path == path


@pytest.mark.parametrize(("field", "value", "path"), [
    ("metadata", {"x": 2**64}, "$.metadata.x"),
    ("structured_output", {"x": [2**64]}, "$.structured_output.x[0]"),
])
def test_a_msg_with_such_values_is_a_decode_error_in_both_codecs(field: str, value: Any, path: str) -> None:
    text = json.dumps({"name": "a", "role": "assistant", "content": [], field: value}).encode()
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_msg(text)
    assert info.value.path == path
    thinking = {"type": "thinking", "id": "t", "thinking": "x", "signature": {"s": math.inf}}
    buf = msgspec.msgpack.encode({"name": "a", "role": "assistant", "content": [thinking]})
    with pytest.raises(wire.DecodeError) as info:
        wire.msgpack.decode_msg(buf)
    assert info.value.path == "$.content[0].signature.s"


def test_the_edges_of_the_integer_range_travel_both_ways() -> None:
    event = wire.CustomEvent(name="n", value={"max": 2**64 - 1, "min": -(2**63), "f": 1.5e308}, id="e", created_at="c")
    assert wire.json.decode_event(wire.json.encode(event)) == event
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


# Values a hostile peer might put in metadata: JSON's, plus what only MessagePack has.
_leaves = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=5)
           | st.binary(max_size=4) | st.builds(msgspec.msgpack.Ext, st.integers(0, 127), st.binary(max_size=3))
           | st.integers(-(2**63), 2**63).map(lambda n: datetime.datetime.fromtimestamp(n % 2**32, datetime.UTC)))
_values = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=3) | st.integers(0, 9), inner, max_size=3), max_leaves=12)


@given(st.dictionaries(st.text(max_size=4), _values, max_size=3))
@settings(max_examples=300, deadline=None)
def test_whatever_the_msgpack_decoder_accepts_both_codecs_write(metadata: dict[str, Any]) -> None:
    buf = msgspec.msgpack.encode({**_DELTA, "metadata": metadata})
    try:
        event = wire.msgpack.decode_event(buf)
    except wire.DecodeError:
        return
    assert wire.json.decode_event(wire.json.encode(event)) == event
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


@given(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70))
@settings(max_examples=200, deadline=None)
def test_whatever_the_json_decoder_accepts_both_codecs_write(a: int, b: int) -> None:
    text = json.dumps({"type": "CUSTOM", "name": "n", "value": {"a": a, "b": [b]}}).encode()
    try:
        event = wire.json.decode_event(text)
    except wire.DecodeError as exc:
        assert not (-(2**63) <= a <= 2**64 - 1 and -(2**63) <= b <= 2**64 - 1), exc
        return
    assert wire.msgpack.decode_event(wire.msgpack.encode(event)) == event


def test_usage_sums_saturate_at_the_most_both_codecs_write() -> None:
    calls = [wire.ModelCallEndEvent(reply_id=REPLY, input_tokens=2**64 - 1, output_tokens=-(2**63),
                                    cache_input_tokens=2**63) for _ in range(3)]
    msg = new_msg().extend_events(calls)
    assert msg.usage == wire.Usage(input_tokens=2**64 - 1, output_tokens=-(2**63), cache_input_tokens=2**64 - 1)
    assert wire.msgpack.decode_msg(wire.msgpack.encode(msg)) == wire.json.decode_msg(wire.json.encode(msg)) == msg


def test_a_log_of_decoded_events_is_always_served() -> None:
    events = [wire.msgpack.decode_event(wire.msgpack.encode(e)) for e in reply(5)]
    log = EventLog(new_msg())
    log.extend(events)
    log.close()
    got, _ = sse_body(log)
    assert got == events
    got, _ = sse_body(log, "2")
    assert rebuilt(got) == log.msg


# -- Invalid UTF-8 where wire does not read (decision) ---------------------------------------------------------


def test_invalid_utf8_in_a_skipped_field_is_accepted_and_never_written_by_wire() -> None:
    line = json.dumps(_DELTA).encode()[:-1] + b',"from_a_newer_agentscope":"\xff\xfe"}'
    event = wire.json.decode_event(line)
    assert event == wire.json.decode_event(json.dumps(_DELTA).encode())
    json.loads(wire.json.encode(event))  # re-encoded: the unknown field is gone
    assert NDJSONEncoder().encode_batch(NDJSONDecoder(raw=True).feed(line + b"\n")) == line + b"\n"  # relayed as is
    for where in (b'"delta":"\xff"', b'"metadata":{"k":"\xff"}', b'"metadata":{"\xff":1}'):
        with pytest.raises(wire.DecodeError):
            wire.json.decode_event(json.dumps(_DELTA).encode()[:-1] + b"," + where + b"}")


# -- CLI: what it read before an error (item 8) ----------------------------------------------------------------


def run_cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "wire", *args], input=stdin, capture_output=True,
                          cwd=ROOT, check=False, timeout=120)


def _capture(n: int = 5) -> bytes:
    return NDJSONEncoder().encode_batch(reply(n))


def test_a_capture_cut_mid_line_keeps_the_events_before_the_cut(tmp_path: Path) -> None:
    data = _capture()
    cut = data[:-20]
    inspected = run_cli("inspect", "-", stdin=cut)
    assert inspected.returncode == 1 and b"Traceback" not in inspected.stderr
    assert inspected.stdout.count(b"TEXT_BLOCK_DELTA") == 5
    assert b"event %d, byte %d" % (len(reply(5)) - 1, data.rindex(b"\n", 0, len(data) - 1) + 1) in inspected.stderr
    for to in ("ndjson", "sse", "msgpack"):
        converted = run_cli("convert", "-", "-", "--to", to, stdin=cut)
        assert converted.returncode == 1
        assert b"the %d events before it were written" % (len(reply(5)) - 1) in converted.stderr
        decoder = {"ndjson": NDJSONDecoder, "sse": SSEDecoder, "msgpack": MsgpackFrameDecoder}[to]()
        assert decoder.feed(converted.stdout) + decoder.close() == reply(5)[:-1]


def test_convert_names_the_stream_offset_as_inspect_does() -> None:
    lines = _capture().splitlines(keepends=True)
    bad = b"".join(lines[:3]) + b'{"type":"TEXT_BLOCK_DELTA","reply_id":"r"}\n' + b"".join(lines[3:])
    where = b"event 3, byte %d" % len(b"".join(lines[:3]))
    assert where in run_cli("inspect", "-", stdin=bad).stderr
    for to in ("sse", "ndjson"):
        converted = run_cli("convert", "-", "-", "--to", to, stdin=bad)
        assert converted.returncode == 1 and where in converted.stderr, converted.stderr


def test_inspect_quiet_starts_with_the_summary() -> None:
    result = run_cli("inspect", "-q", "-", stdin=_capture())
    assert result.returncode == 0 and result.stdout.startswith(b"reply " + REPLY.encode())
    both = _capture() + NDJSONEncoder().encode_batch(
        [wire.ReplyStartEvent(session_id="s", reply_id="r2", name="b"),
         wire.ReplyEndEvent(session_id="s", reply_id="r2")])
    assert run_cli("inspect", "-q", "-", stdin=both).stdout.count(b"\n\nreply ") == 1


def test_msgpack_frames_convert_keeps_events_before_a_cut_frame() -> None:
    frames = MsgpackFrameEncoder().encode_batch(reply(3))
    converted = run_cli("convert", "-", "-", "--to", "ndjson", "--from", "msgpack", stdin=frames[:-3])
    assert converted.returncode == 1 and converted.stdout == NDJSONEncoder().encode_batch(reply(3)[:-1])
