"""What the stream-decoder tests share: running a decoder to its outcome."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import wire

# The items a decoder gave, and the error that stopped it as (type, offset, index).
Outcome = tuple[list[Any], tuple[str, int | None, int | None] | None]


def run(decoder: Any, chunks: Sequence[bytes]) -> Outcome:
    """Every item the decoder gives for ``chunks`` then EOF, and the error
    that stopped it (type, offset, index); the events an error carries are
    counted as given, as a caller would use them. Ids and timestamps that
    decoding fills in (a damaged event may lack them) are constants, so that
    two runs compare equal however often a decoder retried a chunk."""
    wire.set_id_factory(lambda: "generated")
    wire.set_timestamp_factory(lambda: "2000-01-01T00:00:00")
    items: list[Any] = []
    try:
        for chunk in chunks:
            items += decoder.feed(chunk)
        items += decoder.close()
    except wire.RemoteProtocolError as exc:
        items += exc.events
        return items, (type(exc).__name__, exc.offset, exc.index)
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)
    return items, None
