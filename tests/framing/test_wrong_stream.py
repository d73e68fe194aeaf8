"""A decoder fed something that is no stream of its framing (an HTML error
page, another framing) says what it saw, in a wire error with its offset:
not only "the stream ended inside a frame (byte 0)"."""

from __future__ import annotations

from typing import Any

import pytest

import wire
from wire.framing import FRAMINGS

HTML = (b"<!DOCTYPE html>\n<html lang=\"en\">\n<head><title>404 Not Found</title></head>\n\n"
        b"<body><h1>Not Found</h1></body>\n</html>\n")
EVENT = wire.TextBlockDeltaEvent(id="e", created_at="t", reply_id="r", block_id="b", delta="x")
NAMES = {"ndjson": "not an NDJSON stream", "sse": "not an SSE stream",
         "msgpack": "not a stream of length-prefixed MessagePack frames"}


def read(framing: str, data: bytes, chunk: int) -> Any:
    decoder: Any = FRAMINGS[framing].decoder()
    with pytest.raises(wire.RemoteProtocolError) as info:
        for start in range(0, len(data), chunk):
            decoder.feed(data[start:start + chunk])
        decoder.close()
    return info.value


@pytest.mark.parametrize("chunk", [1, 7, 4096])
@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_an_html_page_is_named(framing: str, chunk: int) -> None:
    for page in (HTML, HTML.replace(b"\n\n", b"\n"), HTML.replace(b"\n", b"\r\n")):
        error = read(framing, page, chunk)
        assert isinstance(error, wire.FrameError | wire.DecodeError)
        assert error.index == 0 and error.offset is not None
        # MessagePack refuses the length as soon as its 4 bytes are in
        assert NAMES[framing] in str(error) and "b'<!DO" in str(error), str(error)
        if chunk > 7:
            assert "b'<!DOCTYPE html>" in str(error)


@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_another_framing_is_named(framing: str) -> None:
    for other in FRAMINGS:
        if other == framing or (framing == "ndjson" and other == "sse"):
            continue  # NDJSON reads "data: {...}" as a bad line: named too, checked below
        error = read(framing, FRAMINGS[other].encoder().encode(EVENT), 4096)
        assert NAMES[framing] in str(error), (other, str(error))
    error = read("ndjson", FRAMINGS["sse"].encoder().encode(EVENT), 4096)
    assert NAMES["ndjson"] in str(error) and "b'id: 0'" in str(error)


@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_a_bad_event_in_a_stream_of_the_framing_is_not_called_another_stream(framing: str) -> None:
    encoder = FRAMINGS[framing].encoder()
    good = encoder.encode(EVENT)
    error = read(framing, good.replace(b"TEXT_BLOCK_DELTA", b"TEXT_BLOCK_DELTX"), 4096)
    assert " stream: its first frame" not in str(error)
    error = read(framing, good + good[:-9], 4096)  # cut short after an event
    assert " stream: its first frame" not in str(error) and error.index == 1
