"""Which reply a turn's response carries is one rule for every door
(``wire.session.reply_of`` and ``withdrawn``): the first reply not begun
before the turn that an event is about, whether or not the log still holds
its REPLY_START; a USER_INTERRUPT naming the turn withdraws it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

import wire
from wire.bridges.agui_http import _reply_body, _Start
from wire.bridges.vercel_session import WITHDRAWN, Reply, bridges, reply_chunks
from wire.session import checkpoint, reply_of, restart, withdrawn
from wire.stores.memory import EventLog

pytestmark = pytest.mark.anyio

TEXT = [wire.TextBlockStartEvent(reply_id="r2", block_id="t"),
        wire.TextBlockDeltaEvent(reply_id="r2", block_id="t", delta="joined"),
        wire.TextBlockEndEvent(reply_id="r2", block_id="t"),
        wire.ReplyEndEvent(session_id="s", reply_id="r2")]


def test_the_reply_an_event_is_about() -> None:
    msg = wire.AssistantMsg("Friday", [], id="r3")
    assert reply_of(TEXT[1]) == "r2"
    assert reply_of(checkpoint(msg)) == "r3"
    assert reply_of(restart("lost")) is None
    assert reply_of(wire.CustomEvent(name="x", value={})) is None


def test_only_an_interrupt_naming_no_known_reply_withdraws_the_turn() -> None:
    assert withdrawn(wire.UserInterruptEvent(reply_id="t1"), {"r1"})
    assert not withdrawn(wire.UserInterruptEvent(reply_id="r1"), {"r1"})
    assert not withdrawn(TEXT[1], {"r1"})


async def _doors(events: list[Any]) -> tuple[bytes, list[dict[str, Any]]]:
    """What AG-UI's and Vercel's doors send for the turn after reply r1."""
    log = EventLog()
    await log.extend([wire.ReplyStartEvent(session_id="s", reply_id="r1", name="Friday"),
                      wire.ReplyEndEvent(session_id="s", reply_id="r1")])
    after = (await log.session()).last_id
    await log.extend(events)
    await log.close()
    with anyio.fail_after(10):
        agui = b"".join([piece async for piece in _reply_body(log, _Start(None, after, "s", known=frozenset({"r1"})),
                                                               heartbeat=None, coalesce=False)])
        vercel = [chunk async for chunks, _ in reply_chunks(log, Reply(bridges(False, ()), None, {"r1"}), after, [],
                                                            heartbeat=None, coalesce=False) for chunk in chunks]
    return agui, vercel


async def test_both_doors_carry_a_turns_reply_whose_start_the_log_lacks() -> None:
    agui, vercel = await _doors(TEXT)
    assert b'"RUN_STARTED"' in agui and b'"delta":"joined"' in agui and b'"RUN_FINISHED"' in agui
    assert b"RUN_ERROR" not in agui
    assert {"type": "text-delta", "id": "t", "delta": "joined"} in vercel and vercel[-1]["type"] == "finish"


async def test_both_doors_end_a_withdrawn_turn() -> None:
    agui, vercel = await _doors([wire.UserInterruptEvent(reply_id="t1"), *TEXT])
    assert b'"outcome":{"type":"cancelled"}' in agui and b"joined" not in agui
    assert vercel[-1] == WITHDRAWN and not any(chunk.get("delta") == "joined" for chunk in vercel)
