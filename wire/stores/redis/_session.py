"""The session as a Redis log holds it: the checkpoint hash, then every
writer's entries after its cut, applied to a :class:`wire.session.Session`.

``RedisEventLog.session()`` reads it this way, and so does a producer before
it writes to a log it has not loaded (a new object on another replica, one
taking over after a failover): its checkpoints then cover every reply of the
session, whoever wrote it. The hash holds each reply's Msg as of the cut (a
cut is always taken at the stream's newest entry, by a producer whose session
covers every entry up to it), the order the replies began in (``began:``),
and the rest of the session's state (``state``: the pending turn and the
interrupted replies), so nothing before the cut need be read again.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from typing import Any, NamedTuple

import msgspec

from wire import json as wire_json
from wire._codec import DECODE_ERRORS
from wire.errors import DecodeError, StoreError
from wire.events import AgentEvent, CustomEvent
from wire.session import CHECKPOINT, Session
from wire.stores.redis._common import FAILURES, Checkpoint, LogBase, as_bytes, order

# Entries read per call while loading.
PAGE = 512


class Folded(NamedTuple):
    """What applying a run of stream entries to a session did."""

    touched: list[str]
    """The replies the entries touched, in order."""
    began: dict[str, str]
    """The entry each reply new to the session began at."""
    last: str | None
    """The id of the last entry (with or without an event), None if none."""


class _State(msgspec.Struct, omit_defaults=True):
    turn: msgspec.Raw = msgspec.Raw(b"null")  # the pending wire.turn event, or null
    interrupted: list[str] = []


def encode_state(session: Session) -> bytes:
    """The session's state beside its replies' Msgs, for the ``state`` field."""
    turn = msgspec.Raw(wire_json.encode(session.turn) if session.turn is not None else b"null")
    return msgspec.json.encode(_State(turn=turn, interrupted=sorted(session.interrupted)))


def fold(session: Session, entries: Any) -> Folded:
    """Apply stream entries (as XRANGE gives them, to redis-py or to a
    script) to ``session``. Entries without a payload, payloads that are no
    event wire knows, and checkpoints written into the stream are skipped,
    as readers skip them."""
    ids: list[str] = []
    events: list[AgentEvent] = []
    last = None
    for entry_id, fields in entries:
        last = as_bytes(entry_id).decode()
        if isinstance(fields, dict):
            payload = fields.get(b"payload", fields.get("payload"))
        else:  # a script's reply: [name, value, ...]
            names = [as_bytes(name) for name in fields[::2]]
            payload = fields[2 * names.index(b"payload") + 1] if b"payload" in names else None
        if payload is None:
            continue
        with suppress(DecodeError):
            event = wire_json.decode_event(as_bytes(payload))
            if type(event) is CustomEvent and event.name == CHECKPOINT:
                continue
            ids.append(last)
            events.append(event)
    before = set(session.replies)
    changed = session.apply(events)
    return Folded(changed.replies, begun(before, session, zip(ids, events, strict=True)), last)


def begun(before: set[str], session: Session, entries: Iterable[tuple[str, AgentEvent]]) -> dict[str, str]:
    """The replies ``session`` holds that it did not hold ``before`` the
    events of ``entries`` were applied, each with the id of the first."""
    began: dict[str, str] = {}
    for entry_id, event in entries:
        reply_id = getattr(event, "reply_id", None)
        if reply_id is not None and reply_id not in before and reply_id in session.replies:
            began.setdefault(reply_id, entry_id)
    return began


async def load(log: LogBase) -> tuple[Session, Folded]:
    """The session as of the stream's newest entry (``last_id``, and
    ``closed`` from the end mark: one older than a later entry is no end),
    and what the entries after the cut did to it."""
    try:
        fields, entries, newest = await log.run_script(log._loader, [PAGE])
    except FAILURES as exc:
        raise log.error(exc, "load the session") from exc
    found = Checkpoint(dict(zip(fields[::2], fields[1::2], strict=True)), log.key)
    session = Session(keep_custom=False)
    try:
        for reply in found.in_order(found.msgs):
            session.replies[reply.decode()] = wire_json.decode_msg(found.msgs[reply])
        if found.state is not None:
            state = msgspec.json.decode(found.state, type=_State)
            session.interrupted = set(state.interrupted)
            turn = wire_json.decode_event(bytes(state.turn)) if bytes(state.turn) != b"null" else None
            session.turn = turn if type(turn) is CustomEvent else None
    except (DecodeError, *DECODE_ERRORS) as exc:
        raise StoreError(f"the checkpoint hash holds a damaged reply or state: {exc}", key=log.key) from exc
    folded = fold(session, entries)
    touched, began, last = list(folded.touched), dict(folded.began), folded.last
    while len(entries) == PAGE:
        assert last is not None
        try:
            entries = await log.client.xrange(log.key, min="(" + last, max="+", count=PAGE)
        except FAILURES as exc:
            raise log.error(exc, "load the session") from exc
        more = fold(session, entries)
        touched += [reply for reply in more.touched if reply not in touched]
        began.update(more.began)
        last = more.last or last
    session.last_id = last or as_bytes(newest).decode()
    session.closed = found.end is not None and not (
        session.last_id and order(found.end) < order(session.last_id.encode()))
    return session, Folded(touched, began, last)
