"""The reducer (``Msg.extend_events``), its growth, and the path from bytes to a Msg.

* growth: a text block of 10k, 100k and 1M deltas, a data block of 64, 512
  and 4,096 chunks of 4 KiB, through ``extend_events`` alone and then read
  once ("+ read": the parts joined into one str or bytes). Time per delta
  must stay flat (the 100k run within 12x the 10k run); agentscope's
  ``append_event`` at the small sizes for contrast (it copies the text on
  every delta and re-encodes the whole base64 payload on every chunk).
* the 24,800-event reply reduced by wire and by agentscope, events decoded
  beforehand for both (target: wire >= 100x faster).
* NDJSON bytes to a finished Msg (``wire.json.decode_events`` +
  ``extend_events``) against msgspec's bare ``decode_lines`` on the same
  bytes (target: within 1.5x).

Each wire case ends with a finished Msg, as agentscope's: the reducer joins
streamed parts as it goes, with nothing left to settle. A fresh empty Msg is
made for every round outside the timer.

Run: ``.venv/bin/python -m pytest benchmarks/bench_reducer.py --benchmark-only -p no:cacheprovider``
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
import pytest

import wire
from benchmarks import workload
from benchmarks.conftest import Reply, agentscope_adapter, agentscope_msg, agentscope_reduce, run
from wire.events import AgentEvent
from wire.messages import Msg


def _wire_reduce(msg: Msg, events: list[AgentEvent]) -> Msg:
    msg.extend_events(events)
    return msg


def _extend(msg: Msg, events: list[AgentEvent]) -> Msg:
    return msg.extend_events(events)


def _wire_reduce_one_by_one(msg: Msg, events: list[AgentEvent]) -> Msg:
    append = msg.append_event
    for event in events:
        append(event)
    return msg


def _wire_setup(events: Any) -> Any:
    return lambda: ((workload.initial_msg(), events), {})


def _agentscope_setup(events: Any) -> Any:
    return lambda: ((agentscope_msg(), events), {})


@cache
def _text_events(n: int) -> list[AgentEvent]:
    return workload.text_delta_events(n)


@cache
def _data_events(n: int) -> list[AgentEvent]:
    return workload.data_delta_events(n, chunk=4096)


def _to_agentscope(events: list[AgentEvent]) -> list[Any]:
    validate = agentscope_adapter().validate_json
    return [validate(line) for line in workload.json_lines(events)]


# -- (a) growth ---------------------------------------------------------------------------

TEXT_SIZES = {10_000: 20, 100_000: 7, 1_000_000: 3}  # deltas: rounds
DATA_SIZES = {64: 20, 512: 10, 4_096: 5}


@pytest.mark.benchmark(group="growth-text")
@pytest.mark.parametrize("read", [False, True], ids=["extend_events", "extend_events + read"])
@pytest.mark.parametrize("n", list(TEXT_SIZES))
def test_text_growth_wire(benchmark: Any, n: int, read: bool) -> None:
    events = _text_events(n)
    msg = run(benchmark, _wire_reduce if read else _extend, setup=_wire_setup(events),
              rounds=TEXT_SIZES[n], events=n, deltas=n, peer="wire")
    assert len(msg.content) == 1 and not msg.anomalies


@pytest.mark.benchmark(group="growth-text")
@pytest.mark.parametrize("n", [10_000])
def test_text_growth_agentscope(benchmark: Any, n: int) -> None:
    events = _to_agentscope(_text_events(n))
    run(benchmark, agentscope_reduce, setup=_agentscope_setup(events), rounds=5, events=n,
        deltas=n, peer="agentscope")


@pytest.mark.benchmark(group="growth-data")
@pytest.mark.parametrize("read", [False, True], ids=["extend_events", "extend_events + read"])
@pytest.mark.parametrize("n", list(DATA_SIZES))
def test_data_growth_wire(benchmark: Any, n: int, read: bool) -> None:
    events = _data_events(n)
    msg = run(benchmark, _wire_reduce if read else _extend, setup=_wire_setup(events),
              rounds=DATA_SIZES[n], events=n, nbytes=4096 * n, deltas=n, peer="wire")
    assert len(msg.content[0].source.data) == 4096 * n


@pytest.mark.benchmark(group="growth-data")
@pytest.mark.parametrize("n", [64, 512])
def test_data_growth_agentscope(benchmark: Any, n: int) -> None:
    events = _to_agentscope(_data_events(n))
    run(benchmark, agentscope_reduce, setup=_agentscope_setup(events), rounds=5 if n < 512 else 3,
        events=n, nbytes=4096 * n, deltas=n, peer="agentscope")


# -- (b) the reply, events already decoded ----------------------------------------------------


@pytest.mark.benchmark(group="reduce-reply")
def test_reply_wire_extend_events(benchmark: Any, reply: Reply) -> None:
    msg = run(benchmark, _wire_reduce, setup=_wire_setup(reply.events), rounds=30, events=reply.n)
    assert not msg.anomalies


@pytest.mark.benchmark(group="reduce-reply")
def test_reply_wire_append_event(benchmark: Any, reply: Reply) -> None:
    run(benchmark, _wire_reduce_one_by_one, setup=_wire_setup(reply.events), rounds=30, events=reply.n)


@pytest.mark.benchmark(group="reduce-reply")
def test_reply_agentscope_append_event(benchmark: Any, reply: Reply) -> None:
    events = reply.agentscope
    msg = run(benchmark, agentscope_reduce, setup=_agentscope_setup(events), rounds=5, events=reply.n)
    assert [b.type for b in msg.content] == [b.type for b in workload.initial_msg().extend_events(reply.events).content]


# -- (c) bytes to a finished Msg ------------------------------------------------------------------

_bare_decoder = msgspec.json.Decoder(AgentEvent)


# The events are returned with the Msg so that, as for the bare decoder, freeing
# them (about 2 ms for 24,800) happens after the timer stops.


def _json_to_msg(msg: Msg, buf: bytes) -> tuple[Msg, list[AgentEvent]]:
    events = wire.json.decode_events(buf)
    return _wire_reduce(msg, events), events


def _msgpack_to_msg(msg: Msg, buf: bytes) -> tuple[Msg, list[AgentEvent]]:
    events = wire.msgpack.decode_events(buf)
    return _wire_reduce(msg, events), events


def _agentscope_to_msg(msg: Any, lines: list[bytes], validate: Any) -> Any:
    append = msg.append_event
    events = [validate(line) for line in lines]
    for event in events:
        append(event)
    return msg, events


@pytest.mark.benchmark(group="bytes-to-msg")
def test_bytes_to_msg_bare_decode_lines(benchmark: Any, reply: Reply) -> None:
    run(benchmark, _bare_decoder.decode_lines, (reply.ndjson,), rounds=30, events=reply.n,
        nbytes=len(reply.ndjson))


@pytest.mark.benchmark(group="bytes-to-msg")
def test_bytes_to_msg_wire_json(benchmark: Any, reply: Reply) -> None:
    buf = reply.ndjson
    msg, _ = run(benchmark, _json_to_msg, setup=lambda: ((workload.initial_msg(), buf), {}), rounds=30,
                 events=reply.n, nbytes=len(buf))
    assert msg == workload.initial_msg().extend_events(reply.events)


@pytest.mark.benchmark(group="bytes-to-msg")
def test_bytes_to_msg_wire_msgpack(benchmark: Any, reply: Reply) -> None:
    buf = reply.msgpack
    run(benchmark, _msgpack_to_msg, setup=lambda: ((workload.initial_msg(), buf), {}), rounds=30,
        events=reply.n, nbytes=len(buf))


@pytest.mark.benchmark(group="bytes-to-msg")
def test_bytes_to_msg_agentscope(benchmark: Any, reply: Reply) -> None:
    lines, validate = reply.lines, reply.agentscope_adapter.validate_json
    run(benchmark, _agentscope_to_msg, setup=lambda: ((agentscope_msg(), lines, validate), {}), rounds=3,
        events=reply.n, nbytes=reply.lines_bytes)


# -- a UI that reads the whole text after every delta -------------------------------------------
# wire joins pending parts on read, so each read copies the text so far: reading
# after every delta is quadratic, as agentscope's appending is. Reading every
# Nth delta, or rendering the deltas themselves, keeps it linear.

READ_SIZES = {1_000: 10, 10_000: 3, 30_000: 2}


def _wire_read_each(msg: Msg, events: list[AgentEvent]) -> Msg:
    append = msg.append_event
    append(events[0])
    block = msg.content[-1]
    assert isinstance(block, wire.TextBlock)  # once, outside the loop that is measured
    for event in events[1:]:
        append(event)
        block.text  # noqa: B018 - the read is what is measured
    return msg


def _agentscope_read_each(msg: Any, events: list[Any]) -> Any:
    append = msg.append_event
    append(events[0])
    block = msg.content[-1]
    for event in events[1:]:
        append(event)
        block.text  # noqa: B018
    return msg


@pytest.mark.benchmark(group="read-text-every-delta")
@pytest.mark.parametrize("n", list(READ_SIZES))
def test_read_every_delta_wire(benchmark: Any, n: int) -> None:
    run(benchmark, _wire_read_each, setup=_wire_setup(_text_events(n)), rounds=READ_SIZES[n], events=n,
        deltas=n, peer="wire")


@pytest.mark.benchmark(group="read-text-every-delta")
@pytest.mark.parametrize("n", list(READ_SIZES))
def test_read_every_delta_agentscope(benchmark: Any, n: int) -> None:
    events = _to_agentscope(_text_events(n))
    run(benchmark, _agentscope_read_each, setup=_agentscope_setup(events), rounds=READ_SIZES[n], events=n,
        deltas=n, peer="agentscope")
