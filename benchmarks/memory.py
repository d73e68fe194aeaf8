"""Peak memory of the stream decoders against their ``max_frame_bytes``.

A peer controls the shape of what it sends: one endless line, a frame made of
many short lines, comments only, CR-only line ends, a 4 GiB length prefix. For
each framing and shape, :func:`peak` feeds a stream of several times the limit
to a fresh decoder in 64 KiB chunks (as a socket delivers it), drops what the
decoder returns, and measures with ``tracemalloc`` the peak of memory
allocated above what was there before. The streams and their chunks are built
before the measure starts, so only the decoder's own buffers count.

``tests/test_hostile.py`` asserts the bound on these shapes;
``benchmarks/bench_memory.py`` reports the table (``benchmarks/results/memory.md``).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import wire
from wire.errors import RemoteProtocolError
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, SSEDecoder, SSEEncoder

CHUNK = 64 * 1024
# The stated bound (tests/test_hostile.py, tests/framing/test_memory.py): fed
# in pieces of at most CHUNK bytes, as a socket delivers them, peak <=
# FACTOR * limit + SLACK, at any limit. SLACK is what does not grow with the
# limit: the events one chunk decodes to (some 340 KiB for a 64 KiB chunk of
# small events, returned by feed), the copy of a chunk's complete frames, and
# the line objects of one split (a few KiB of lines at a time:
# wire.framing._buffer). (Fed one big piece, a decoder returns all of its
# events at once: they count too.)
FACTOR = 4
SLACK = 384 * 1024


def _event(delta: str) -> wire.TextBlockDeltaEvent:
    return wire.TextBlockDeltaEvent(id="e", created_at="c", reply_id="r", block_id="b", delta=delta)


def _small_events(total: int, encode: Callable[[list[Any]], bytes]) -> bytes:
    one = encode([_event("xy")])
    return one * (total // len(one))


def _line_ends(limit: int) -> dict[str, bytes]:
    """Streams of nothing but line ends: the most lines per byte a peer can
    send, so the most line objects a split can make of a chunk."""
    return {f"line ends only ({name})": end * (4 * limit // len(end))
            for name, end in (("LF", b"\n"), ("CR", b"\r"), ("CRLF", b"\r\n"), ("LF CR", b"\n\r"))}


def _ndjson(limit: int) -> dict[str, bytes]:
    encode = NDJSONEncoder().encode_batch
    return {
        "one line over the limit": b'{"type":"TEXT_BLOCK_DELTA","delta":"' + b"x" * (4 * limit),
        "one event just under the limit": encode([_event("x" * (limit - 200))]) * 4,
        "many short lines (small events)": _small_events(8 * limit, encode),
        "blank lines only": b" \n" * (4 * limit),
        **_line_ends(limit),
        "CR-only line ends": _small_events(8 * limit, encode).replace(b"\n", b"\r"),
        "CRLF line ends": _small_events(8 * limit, encode).replace(b"\n", b"\r\n"),
    }


def _sse(limit: int) -> dict[str, bytes]:
    encode = SSEEncoder(next_id=None).encode_batch
    return {
        "one line over the limit": b"data: " + b"x" * (4 * limit),
        "one event just under the limit": encode([_event("x" * (limit - 200))]) * 4,
        "many short lines (one frame)": b"data:xy\n" * (limit // 8 - 1) + b"\n",
        "many short events": _small_events(8 * limit, encode),
        "comments only": b":\n" * (4 * limit),
        "comments inside one frame": b"data:x\n" + b":\n" * (4 * limit) + b"\n",
        "one comment line over the limit": b":" + b"x" * (4 * limit),
        "id lines only": b"id:1\n" * limit,
        **_line_ends(limit),
        "CR-only line ends": _small_events(8 * limit, encode).replace(b"\n", b"\r"),
        "CRLF line ends": _small_events(8 * limit, encode).replace(b"\n", b"\r\n"),
    }


def _msgpack(limit: int) -> dict[str, bytes]:
    encode = MsgpackFrameEncoder().encode_batch
    return {
        "4 GiB length prefix": b"\xff\xff\xff\xff" + b"\x00" * (4 * limit),
        "prefix just over the limit": (limit + 1).to_bytes(4, "big") + b"\x00" * (4 * limit),
        "one event just under the limit": encode([_event("x" * (limit - 200))]) * 4,
        "many small frames": _small_events(8 * limit, encode),
    }


FRAMINGS: dict[str, tuple[Callable[..., Any], Callable[[int], dict[str, bytes]]]] = {
    "NDJSON": (NDJSONDecoder, _ndjson),
    "SSE": (SSEDecoder, _sse),
    "MessagePack frames": (MsgpackFrameDecoder, _msgpack),
}


def shapes(limit: int) -> list[tuple[str, str]]:
    """Every (framing, shape) pair."""
    return [(framing, shape) for framing, (_, make) in FRAMINGS.items() for shape in make(limit)]


def peak(framing: str, shape: str, limit: int, chunk: int | None = CHUNK) -> int:
    """Bytes of peak allocation while a decoder with ``max_frame_bytes=limit``
    reads the shape's stream in ``chunk``-byte pieces (None: in one piece),
    stopping at the decoder's error, if any."""
    factory, make = FRAMINGS[framing]
    data = make(limit)[shape]
    chunks = [data[i:i + chunk] for i in range(0, len(data), chunk)] if chunk else [data]
    del data
    return peak_of_chunks(factory, limit, chunks)


def peak_of_chunks(factory: Callable[..., Any], limit: int, chunks: list[bytes]) -> int:
    """Bytes of peak allocation while ``factory(max_frame_bytes=limit)``
    reads ``chunks``, stopping at the decoder's error, if any."""
    decoder = factory(max_frame_bytes=limit)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            for piece in chunks:
                decoder.feed(piece)
            decoder.close()
        except RemoteProtocolError:
            pass
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def bound(limit: int) -> int:
    return FACTOR * limit + SLACK


def table(limit: int) -> str:
    """The Markdown table of peak per byte of limit, shape by shape."""
    rows = [f"| framing | shape | peak / limit, 64 KiB chunks | peak / limit, one piece "
            f"| 64 KiB chunks under {FACTOR} x limit + {SLACK >> 10} KiB |",
            "|---|---|---:|---:|---|"]
    for framing, shape in shapes(limit):
        chunked, whole = peak(framing, shape, limit), peak(framing, shape, limit, None)
        rows.append(f"| {framing} | {shape} | {chunked / limit:.2f} | {whole / limit:.2f} | "
                    f"{'yes' if chunked <= bound(limit) else 'NO'} |")
    return "\n".join(rows)
