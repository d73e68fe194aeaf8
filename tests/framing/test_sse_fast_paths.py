"""SSE: the fast paths' shape check of a run of frames accepts exactly what
the spec parser reads alike.

Each frame's three lines are drawn from the right one and its look-alikes
(an id line where data belongs, data where the id belongs, empty lines,
fields without the space), so that regions where a count could come from
the wrong line are generated, and every outcome is compared with the decoder
that reads every byte with the spec parser."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import wire
from tests.helpers import catalog_lines, cut, general, run
from tests.strategies import points
from wire.framing import SSEDecoder

PAYLOADS = [line for line in catalog_lines() if b"\n" not in line][:4]
_data = st.sampled_from(PAYLOADS).map(lambda p: b"data: " + p)
_id = st.integers(0, 99).map(lambda n: b"id: %d" % n)
# The last three decode as events if a path cuts them where it cuts a data
# line (after 6 bytes): a check that let them through would show.
_other = st.sampled_from([b"", b"id:7", b"data:" + PAYLOADS[0], b"event: x", b":", b"retry: 9",
                          b"event: " + PAYLOADS[2], b"id: ab" + PAYLOADS[3], b"data:x" + PAYLOADS[1]])
_line = st.one_of(_data, _id, _other, _other)


@st.composite
def _frames(draw: Any) -> bytes:
    with_ids = draw(st.booleans())
    lines: list[bytes] = []
    for _ in range(draw(st.integers(1, 6))):
        frame = [draw(_id), draw(_data)] if with_ids else [draw(_data)]
        # Replace a few lines with look-alikes, or with each other.
        for i in range(len(frame)):
            if draw(st.integers(0, 3)) == 0:
                frame[i] = draw(_line)
        if with_ids and draw(st.integers(0, 5)) == 0:
            frame.reverse()  # data line before the id line
        lines += frame
        lines.append(draw(st.sampled_from([b""] * 5 + [b"data: " + PAYLOADS[1], b"id: 5"])))
    return b"\n".join(lines) + b"\n\n"


@settings(max_examples=400, deadline=None)
@given(stream=_frames(), cuts=points, raw=st.booleans())
def test_run_of_frames_reads_as_the_spec_parser(stream: bytes, cuts: list[int], raw: bool) -> None:
    def new() -> Any:
        return SSEDecoder(raw=True) if raw else SSEDecoder()

    fast, reference = new(), general(new())
    outcome = run(fast, cut(stream, cuts) if cuts else [stream])
    assert outcome == run(reference, [stream])
    if outcome[1] is None:
        assert fast.last_event_id == reference.last_event_id


def test_swapped_lines_in_a_run_are_not_taken_for_frames() -> None:
    """One frame with its id and data lines swapped, in a run of good ones:
    a check that counted data and id lines without their places would
    pass it; it must be read as the spec parser reads it (data, then an id
    that takes effect)."""
    good = [b"id: %d\ndata: %s\n\n" % (i, PAYLOADS[0]) for i in range(3)]
    swapped = b"data: %s\nid: ab%s\n\n" % (PAYLOADS[1], PAYLOADS[2])
    stream = good[0] + swapped + good[1] + good[2]
    fast, reference = SSEDecoder(), general(SSEDecoder())
    outcome = run(fast, [stream])
    assert outcome == run(reference, [stream])
    assert len(outcome[0]) == 4 and outcome[1] is None
    assert outcome[0][1] == wire.json.decode_event(PAYLOADS[1])


def test_a_field_line_where_data_belongs_is_no_data() -> None:
    """Without ids: an ``event:`` line in a data line's place (whose bytes
    after the first six are an event) carries no data, as the spec says."""
    stream = b"".join(b"data: %s\n\n" % p for p in PAYLOADS[:2]) + b"event: %s\n\n" % PAYLOADS[2] \
        + b"data: %s\n\n" % PAYLOADS[3]
    fast, reference = SSEDecoder(), general(SSEDecoder())
    outcome = run(fast, [stream])
    assert outcome == run(reference, [stream])
    assert outcome == ([wire.json.decode_event(p) for p in (PAYLOADS[0], PAYLOADS[1], PAYLOADS[3])], None)


def _same_as_the_spec_parser(stream: bytes) -> Any:
    fast, reference = SSEDecoder(), general(SSEDecoder())
    outcome = run(fast, [stream])
    assert outcome == run(reference, [stream])
    assert fast.last_event_id == reference.last_event_id
    return outcome, fast.last_event_id


def test_a_data_line_where_an_id_belongs_joins_the_next_data() -> None:
    """The second frame has two data lines (no id): its data is both payloads
    joined with LF, which is no single event, so decoding fails there."""
    stream = b"id: 1\ndata: %s\n\ndata: %s\ndata: %s\n\nid: 3\ndata: %s\n\n" % tuple(PAYLOADS)
    (events, error), _ = _same_as_the_spec_parser(stream)
    assert len(events) == 1 and error is not None and error[0] == "DecodeError"


def test_a_frame_without_id_keeps_the_last_one() -> None:
    """An empty line where the last frame's id belongs: that frame has no
    id, so the id in force stays the one before it."""
    stream = b"id: 1\ndata: %s\n\nid: 2\ndata: %s\n\n\ndata: %s\n\n" % tuple(PAYLOADS[:3])
    (events, error), last_id = _same_as_the_spec_parser(stream)
    assert (len(events), error, last_id) == (3, None, "2")


def test_data_without_the_space_keeps_its_first_byte() -> None:
    """``data:x{...}``: only a space after the colon is dropped, so the
    payload is ``x{...}``, no event; a path that cut six bytes off would
    decode it."""
    stream = b"data: %s\n\ndata:x%s\n\ndata: %s\n\n" % tuple(PAYLOADS[:3])
    (events, error), _ = _same_as_the_spec_parser(stream)
    assert len(events) == 1 and error is not None and error[0] == "DecodeError"
