"""The fuzz invariant at small frame limits, where the receive buffer's limit
check and the bounded splits run on almost every feed: any bytes, cut
anywhere, give events or one of wire's RemoteProtocolErrors, never another
exception, and the same outcome however they are cut."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from wire.framing import FRAMINGS

EVENT = wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="x")
PIECES = [b"\n", b"\r", b"\r\n", b"\n\n", b":", b"data: ", b"id: 7\n", b"retry: 0005\n", b"\xef\xbb\xbf",
          b"\x00\x00\x00\x05", b"\x81\xa4type", b"{", b"}", b"<!DOCTYPE html>"]
PIECES += [FRAMINGS[name].encoder().encode(EVENT) for name in FRAMINGS]


def outcome(framing: str, limit: int, chunks: list[bytes]) -> tuple[list[Any], str | None]:
    decoder: Any = FRAMINGS[framing].decoder(max_frame_bytes=limit)
    events: list[Any] = []
    try:
        for chunk in chunks:
            events += decoder.feed(chunk)
        events += decoder.close()
    except wire.RemoteProtocolError as exc:
        return events + exc.events, f"{type(exc).__name__} {exc.offset} {exc.index}"
    return events, None


@settings(max_examples=300, deadline=None)
@given(framing=st.sampled_from(list(FRAMINGS)), limit=st.integers(1, 200),
       parts=st.lists(st.sampled_from(PIECES) | st.binary(max_size=8), max_size=30),
       cuts=st.lists(st.integers(0, 400), max_size=10))
def test_any_bytes_at_a_small_limit_give_events_or_a_wire_error(
        framing: str, limit: int, parts: list[bytes], cuts: list[int]) -> None:
    data = b"".join(parts)
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    chunks = [data[a:b] for a, b in pairwise(bounds)]
    assert outcome(framing, limit, chunks) == outcome(framing, limit, [data])
