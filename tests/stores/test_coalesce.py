"""Coalescing (``wire.stores._coalesce``): the deltas waiting for a reader
merged, and the Msg it builds the same byte for byte, with the same
anomalies and the same strict-mode outcome, for every vector, every way the
stream is cut into batches, and every resume point of a coalesced stream;
in both stores, over SSE, and in the TypeScript reducer."""

from __future__ import annotations

import base64
import itertools
import json
import random
import subprocess
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

import wire
from tests.helpers import CASES, ROOT, Case, needs_npm, require_npm, text_reply
from tests.redis_server import RedisServer, connect, redis_server
from tests.strategies import reply_streams, session_streams
from wire.errors import StreamOrderError
from wire.framing import NDJSONEncoder, SSEDecoder
from wire.resume import Conversation, checkpoint, restart
from wire.stores import Entry, EventStore
from wire.stores._coalesce import Coalescer
from wire.stores.memory import EventLog

__all__ = ("redis_server",)  # the fixture, imported to be used here


def _entries(events: list[Any]) -> list[Entry]:
    return [(str(i), event) for i, event in enumerate(events)]


def _coalesced(events: list[Any], cuts: list[int]) -> list[Entry]:
    """``events`` through one reader's Coalescer, in batches cut at ``cuts``."""
    merger = Coalescer()
    out: list[Entry] = []
    bounds = [0, *sorted(set(cuts)), len(events)]
    entries = _entries(events)
    for start, stop in itertools.pairwise(bounds):
        if stop > start:
            out += merger.batch(entries[start:stop])
    return out


def _outcome(msg: wire.Msg, events: list[Any], *, strict: bool = False) -> tuple[bytes, list[Any]] | str:
    try:
        msg.extend_events(events, strict=strict)
    except StreamOrderError as exc:
        return f"strict: {exc.kind}"
    return wire.json.encode(msg), [(a.kind, a.id) for a in msg.anomalies]


def _fresh(case: Case) -> wire.Msg:
    return wire.json.decode_msg(case.initial_msg)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_vector_builds_the_same_msg_however_it_is_batched(case: Case) -> None:
    events = wire.json.decode_events(case.events_jsonl)
    whole = _outcome(_fresh(case), events)
    rng = random.Random(case.name)
    for cuts in ([], list(range(len(events))), [rng.randrange(len(events) + 1) for _ in range(5)]):
        merged = _coalesced(events, cuts)
        assert [i for i, _ in merged] == sorted({i for i, _ in merged}, key=int)  # ids in order, each once
        assert _outcome(_fresh(case), [e for _, e in merged]) == whole
        for strict in (False, True):
            assert _outcome(_fresh(case), [e for _, e in merged], strict=strict) == _outcome(
                _fresh(case), events, strict=strict)


def test_a_long_run_of_deltas_becomes_one_event_with_the_last_id() -> None:
    events = wire.json.decode_events(next(c for c in CASES if c.name == "plain_text").events_jsonl)
    merged = _coalesced(events, [])
    deltas = [e for _, e in merged if type(e) is wire.TextBlockDeltaEvent]
    assert len(deltas) == 1 and sum(type(e) is wire.TextBlockDeltaEvent for e in events) > 1
    last_delta = max(i for i, e in enumerate(events) if type(e) is wire.TextBlockDeltaEvent)
    assert next(i for i, e in merged if type(e) is wire.TextBlockDeltaEvent) == str(last_delta)


@settings(max_examples=300, deadline=None)
@given(reply_streams(), st.lists(st.integers(0, 200), max_size=6), st.randoms(use_true_random=False))
def test_generated_streams_and_damaged_ones_keep_their_outcome(events: list[Any], cuts: list[int],
                                                                rnd: random.Random) -> None:
    # Damage: drop, repeat or move a few events, so that deltas meet unknown and finished blocks.
    damaged = list(events)
    for _ in range(rnd.randrange(3)):
        if len(damaged) > 2:
            i = rnd.randrange(len(damaged))
            op = rnd.randrange(3)
            if op == 0:
                del damaged[i]
            elif op == 1:
                damaged.insert(rnd.randrange(len(damaged)), damaged[i])
            else:
                damaged.insert(rnd.randrange(len(damaged)), damaged.pop(i))
    for stream in (events, damaged):
        merged = [e for _, e in _coalesced(stream, cuts)]
        for strict in (False, True):
            fresh = [wire.AssistantMsg("Friday", [], id=events[0].reply_id, created_at="t0") for _ in range(2)]
            assert _outcome(fresh[0], merged, strict=strict) == _outcome(fresh[1], stream, strict=strict)


def _reading(events: list[Any]) -> list[tuple[bytes, list[tuple[str, str, str | None, str]]]]:
    """What a session reader ends with: each reply's Msg and its anomalies
    (not their indexes, which count the events applied: fewer once merged).
    The time a reply joined without its REPLY_START is the reading's, so
    it is left out."""
    conversation = Conversation()
    conversation.apply(events)
    return [(wire.json.encode(replace(msg, created_at="")),
             [(a.kind, a.event_type, a.id, a.detail) for a in msg.anomalies])
            for msg in conversation.replies.values()]


@settings(max_examples=400, deadline=None)
@given(session_streams(), st.lists(st.integers(0, 200), max_size=6))
def test_a_coalesced_reader_and_a_plain_one_see_the_same_msgs_and_anomalies(events: list[Any],
                                                                           cuts: list[int]) -> None:
    """Any session stream, malformed orders included: a coalesced reader
    gets the anomalies a plain reader gets, one per delta where the reducer
    reports one per delta (into a block that ended and was started again, a
    block the reply's role forbids, the orphan of a checkpoint)."""
    merged = _coalesced(events, cuts)
    assert [i for i, _ in merged] == sorted({i for i, _ in merged}, key=int)
    assert _reading([e for _, e in merged]) == _reading(events)


def _text(reply_id: str, *ops: tuple[str, str]) -> list[Any]:
    """Text-block events of one reply: ("start"|"delta"|"end", block id)."""
    made = {"start": wire.TextBlockStartEvent, "delta": wire.TextBlockDeltaEvent, "end": wire.TextBlockEndEvent}
    return [made[op](reply_id=reply_id, block_id=block, **({"delta": "x"} if op == "delta" else {}))
            for op, block in ops]


@pytest.mark.parametrize("name", ["duplicate start after end", "role forbids", "checkpoint orphan", "restart"])
def test_each_way_a_plain_reader_gets_one_anomaly_per_delta(name: str) -> None:
    start = wire.ReplyStartEvent(session_id="s", reply_id="r", name="Friday", role="assistant")
    deltas = _text("r", ("delta", "b"), ("delta", "b"), ("delta", "b"))
    if name == "duplicate start after end":
        events = [start, *_text("r", ("start", "b"), ("end", "b"), ("start", "b")), *deltas]
    elif name == "role forbids":
        events = [replace(start, role="user"),
                  wire.ToolCallStartEvent(reply_id="r", tool_call_id="c", tool_call_name="Bash"),
                  *[wire.ToolCallDeltaEvent(reply_id="r", tool_call_id="c", delta="{}") for _ in range(3)]]
    elif name == "checkpoint orphan":
        held = Conversation()
        held.apply([start, *_text("r", ("start", "b"), ("end", "b"), ("start", "b"))])
        events = [checkpoint(held.replies["r"]), *deltas]
    else:
        events = [start, *_text("r", ("start", "b")), restart("gone"), *deltas]
    plain = _reading(events)
    assert len(plain[-1][1]) >= 3  # one per delta at least
    assert _reading([e for _, e in _coalesced(events, [])]) == plain


# -- in the stores ---------------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # redis-py's client runs on asyncio only (the memory log's trio runs are the conformance suite's)


@asynccontextmanager
async def _stores(kind: str, server: RedisServer | None) -> AsyncIterator[tuple[EventStore, Any]]:
    if kind == "memory":
        log = EventLog()
        yield log, lambda: log
        return
    from wire.stores.redis import RedisEventLog

    assert server is not None
    async with connect(server) as client:
        key = f"coalesce:{random.random()}"
        redis_log = RedisEventLog(client, key)
        yield redis_log, lambda: RedisEventLog(client, key)
        await redis_log.delete()


async def _read(store: EventStore, after: str | None = None, **options: Any) -> list[Entry]:
    out: list[Entry] = []
    with anyio.fail_after(30):
        async with aclosing(store.follow(after, **options)) as batches:  # type: ignore[type-var]
            async for batch in batches:
                out += batch
    return out


def _session_bytes(events: list[Any], had: Conversation | None = None) -> list[bytes]:
    conversation = had or Conversation()
    conversation.extend(events)
    return [wire.json.encode(m) for m in conversation.replies.values()]


@pytest.mark.parametrize("kind", ["memory", "redis"])
@pytest.mark.anyio
async def test_a_reader_behind_gets_far_fewer_events_and_resumes_exactly_at_every_id(
        kind: str, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue("redis_server") if kind == "redis" else None
    events = [e for case in CASES[:4] for e in wire.json.decode_events(case.events_jsonl)]
    async with _stores(kind, server) as (log, reader):
        await log.extend(events)
        await log.close()
        plain = await _read(reader())
        merged = await _read(reader(), coalesce=True)
        want = _session_bytes([e for _, e in plain])
        assert len(merged) < len(plain) and _session_bytes([e for _, e in merged]) == want
        plain_ids = [i for i, _ in plain]
        assert all(i in plain_ids for i, _ in merged)
        for k, (entry_id, _) in enumerate(merged):  # resume at every id of the coalesced stream
            had = Conversation()
            had.extend([e for _, e in merged[:k + 1]])
            rest = await _read(reader(), entry_id, coalesce=True)
            assert _session_bytes([e for _, e in rest], had) == want, k
        # Over SSE, the same.
        decoder: SSEDecoder[Any] = SSEDecoder()
        body: list[Any] = []
        async with aclosing(reader().sse(None, heartbeat=None, coalesce=True)) as chunks:
            async for chunk in chunks:
                body += decoder.feed(chunk)
        assert _session_bytes(body) == want and len(body) == len(merged)


@pytest.mark.parametrize("kind", ["memory", "redis"])
@pytest.mark.anyio
async def test_a_live_reader_with_a_hold_gets_merged_batches_and_the_same_msg(
        kind: str, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue("redis_server") if kind == "redis" else None
    case = next(c for c in CASES if c.name == "full_reply_all_events")
    events = wire.json.decode_events(case.events_jsonl)
    async with _stores(kind, server) as (log, reader):
        got: list[Entry] = []

        async def follow() -> None:
            got.extend(await _read(reader(), coalesce=0.05))

        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            await anyio.sleep(0.05)
            for event in events:
                await log.append(event)
                await anyio.sleep(0.001)
            await log.close()
        assert len(got) < len(events)
        assert _session_bytes([e for _, e in got]) == _session_bytes(events)


@needs_npm("schemas")
def test_the_typescript_reducer_builds_the_same_msg_from_a_coalesced_stream() -> None:
    node = require_npm("schemas")
    lines = []
    for case in CASES:
        events = wire.json.decode_events(case.events_jsonl)
        for stream in (events, [e for _, e in _coalesced(events, [])]):
            lines.append(json.dumps({"initial": json.loads(case.initial_msg), "format": "ndjson", "chunk": 4096,
                                     "split": 0, "stream": base64.b64encode(NDJSONEncoder().encode_batch(stream))
                                     .decode()}))
    done = subprocess.run([node, str(ROOT / "tests" / "ts" / "reduce-cases.mjs")], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120, check=True)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == 2 * len(CASES)
    for case, whole, merged in zip(CASES, results[::2], results[1::2], strict=True):
        assert merged["lenient"] == whole["lenient"], case.name
        assert merged["strict"] == whole["strict"], case.name


# -- what the readers of one log share ---------------------------------------------------------------------


class _Merges:
    """Counts the batches merged (``Coalescer.batch``), whichever reader
    merges them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        merge = Coalescer.batch

        def counted(merger: Coalescer, entries: list[Entry]) -> list[Entry]:
            self.calls += 1
            return merge(merger, entries)

        monkeypatch.setattr(Coalescer, "batch", counted)


async def _sse(store: EventStore, bodies: list[bytes], **options: Any) -> None:
    body = b""
    async with aclosing(store.sse(None, heartbeat=None, **options)) as chunks:  # type: ignore[type-var]
        async for chunk in chunks:
            body += chunk
    bodies.append(body)


@pytest.mark.anyio
async def test_memory_readers_at_one_position_share_its_entries_and_coalesced_frames(
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = EventLog()
    await log.extend(text_reply(50))
    await log.close()
    merges = _Merges(monkeypatch)
    made = 0
    make_ids = log._ids

    def ids(start: int, count: int) -> list[str]:
        nonlocal made
        made += 1
        return make_ids(start, count)

    monkeypatch.setattr(log, "_ids", ids)
    bodies: list[bytes] = []
    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(lambda: _sse(log, bodies, coalesce=True))
    assert len(set(bodies)) == 1 and len(bodies) == 3
    assert merges.calls == 1 and made == 1  # once for the three readers, not once each
    plain = await _read(log)
    assert made == 1 and len(plain) == len(text_reply(50))  # follow() takes the same entries


@pytest.mark.parametrize("kind", ["memory", "redis"])
@pytest.mark.parametrize("coalesce", [False, True], ids=["plain", "coalesced"])
@pytest.mark.anyio
async def test_followers_in_step_share_the_events_of_a_batch_in_lists_of_their_own(
        kind: str, coalesce: bool, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a crowd of follow() readers shares: each batch decoded (Redis)
    and merged once, the same (entry id, event) pairs for every reader (so
    a socket encodes a batch once for all, wire.transports.ws), each in a
    list of its own."""
    events = text_reply(50)
    server = request.getfixturevalue("redis_server") if kind == "redis" else None
    async with _stores(kind, server) as (log, reader):
        merges = _Merges(monkeypatch)
        got: list[list[list[Entry]]] = [[], [], []]

        async def follow(into: list[list[Entry]]) -> None:
            with anyio.fail_after(30):
                async with aclosing(reader().follow(None, coalesce=coalesce)) as batches:
                    async for batch in batches:
                        into.append(batch)

        async with anyio.create_task_group() as tg:
            for into in got:
                tg.start_soon(follow, into)
            for at in range(0, len(events), 10):
                # Every reader waits at the end (none reads a catch-up of its own): they wake to the same batch.
                await anyio.sleep(0.2)
                await log.extend(events[at:at + 10])
            await anyio.sleep(0.2)
            await log.close()
        first, *others = got
        for other in others:
            assert [list(map(id, batch)) for batch in other] == [list(map(id, batch)) for batch in first]
            assert all(mine is not theirs for mine, theirs in zip(first, other, strict=True))
        if coalesce:
            assert merges.calls == len(first)  # once a batch, not once a reader
        assert len(first) >= 5
        assert _session_bytes([e for batch in first for _, e in batch]) == _session_bytes(events)


@pytest.mark.anyio
async def test_memory_readers_holding_at_one_position_wake_together_and_share_the_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    events = text_reply(60)
    log = EventLog()
    await log.extend(events[:20])
    merges = _Merges(monkeypatch)
    bodies: list[bytes] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: _sse(log, bodies, coalesce=0.3))
        await anyio.sleep(0.1)
        # The second reader comes later, to the same position: it joins the first one's hold
        # (ending at 0.3 s, not at 0.4 s), and both read what came in it as one batch, merged
        # once, before the events written at 0.35 s.
        await log.extend(events[20:40])
        tg.start_soon(lambda: _sse(log, bodies, coalesce=0.3))
        await anyio.sleep(0.25)
        await log.extend(events[40:50])
        await anyio.sleep(0.45)
        await log.extend(events[50:])
        await log.close()
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    assert merges.calls == 3  # three batches, each merged once for both readers
    assert _session_bytes(list(SSEDecoder().feed(bodies[0]))) == _session_bytes(events)


@pytest.mark.anyio
async def test_redis_readers_that_hold_together_share_the_held_batch(
        redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    events = text_reply(60)
    async with _stores("redis", redis_server) as (log, reader):
        await log.extend(events[:20])
        merges = _Merges(monkeypatch)
        bodies: list[bytes] = []
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(lambda: _sse(reader(), bodies, coalesce=0.2))
            await anyio.sleep(0.1)  # within their hold: read after it, with the first read, as one batch
            await log.extend(events[20:40])
            await anyio.sleep(0.4)
            await log.extend(events[40:])
            await log.close()
        assert len(bodies) == 3 and len(set(bodies)) == 1
        assert merges.calls == 2  # the held batch, then the rest: once each for the three readers
        assert _session_bytes(list(SSEDecoder().feed(bodies[0]))) == _session_bytes(events)
