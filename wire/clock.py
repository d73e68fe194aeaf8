"""Where new ids and timestamps come from.

Every id and timestamp wire generates, in constructors, in decoders filling an
omitted field, and in the message factories, goes through :func:`new_id` and
:func:`now`. ``set_id_factory`` and ``set_timestamp_factory`` replace them
process-wide, as agentscope's functions of the same names do, so that tests and
replays can be deterministic.

Default timestamps are ISO 8601 in UTC with microseconds and an explicit
offset (``2026-11-21T20:50:03.769839+00:00``): unambiguous across machines and
time zones, fixed width so they sort as strings, and parsed by
``datetime.fromisoformat``. agentscope writes naive local time and drops the
fraction when it is zero; wire treats timestamps as opaque strings, so both
forms decode and survive a round trip unchanged.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ("new_id", "now", "set_id_factory", "set_timestamp_factory")


def _uuid4_hex() -> str:
    return uuid.uuid4().hex


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


_id_factory: Callable[[], str] = _uuid4_hex
_timestamp_factory: Callable[[], str] = _utc_now


def new_id() -> str:
    """A new id from the current id factory (uuid4 hex by default)."""
    return _id_factory()


def now() -> str:
    """A new timestamp from the current timestamp factory."""
    return _timestamp_factory()


def set_id_factory(factory: Callable[[], str] | None) -> None:
    """Use ``factory()`` for every id wire generates; None restores uuid4 hex."""
    global _id_factory
    _id_factory = factory if factory is not None else _uuid4_hex


def set_timestamp_factory(factory: Callable[[], str] | None) -> None:
    """Use ``factory()`` for every timestamp wire generates; None restores
    UTC ISO 8601."""
    global _timestamp_factory
    _timestamp_factory = factory if factory is not None else _utc_now
