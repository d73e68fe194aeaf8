"""Both stores keep the one store contract: ``wire.stores.conformance``'s
suite, run against the in-memory ``EventLog`` and against a
``RedisEventLog`` on a real redis-server (a reader of the Redis log is
another object on another connection, as on another replica); and a store
that skips the condition of a conditional append fails it."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from tests.redis_server import RedisServer, connect, redis_server
from wire.errors import WireError
from wire.events import AgentEvent
from wire.messages import Msg
from wire.stores import check_expected
from wire.stores.conformance import StoreContract, Stores
from wire.stores.memory import EventLog

__all__ = ("redis_server",)  # the fixture, imported to be used here

_keys = itertools.count()


class TestMemory(StoreContract):
    @pytest.fixture
    def stores(self) -> Stores:
        @asynccontextmanager
        async def open_log(msg: Msg, *, keep: int | None = None) -> AsyncIterator[Any]:
            log = EventLog(msg, max_events=keep)
            yield log, lambda: log

        return open_log


class TestRedis(StoreContract):
    @pytest.fixture
    def anyio_backend(self) -> str:
        return "asyncio"  # redis-py's client runs on asyncio only

    @pytest.fixture
    def stores(self, redis_server: RedisServer) -> Stores:
        @asynccontextmanager
        async def open_log(msg: Msg, *, keep: int | None = None) -> AsyncIterator[Any]:
            from wire.stores.redis import RedisEventLog

            key = f"conformance:{next(_keys)}"
            async with connect(redis_server) as producer, connect(redis_server) as readers:
                log = RedisEventLog(producer, key, msg=msg, max_len=keep)
                yield log, lambda: RedisEventLog(readers, key)
                await log.delete()

        return open_log


# -- the contract catches a store that skips the condition ----------------------------------------------


class _IgnoresExpect(EventLog):
    """A third-party store that takes ``expect`` and writes regardless."""

    async def extend(self, events: Iterable[AgentEvent], *, expect: str | None = None) -> list[str]:
        return await super().extend(events)


class _ChecksThenWrites(EventLog):
    """One that checks ``expect`` and writes in two steps, with an await
    between them (as a read and a write on two round trips would)."""

    async def extend(self, events: Iterable[AgentEvent], *, expect: str | None = None) -> list[str]:
        if expect is not None:
            check_expected(self, expect, (await self.session()).last_id, self.closed)
            await anyio.sleep(0)
        return await super().extend(events)


def _memory_stores(store: type[EventLog]) -> Stores:
    @asynccontextmanager
    async def open_log(msg: Msg, *, keep: int | None = None) -> AsyncIterator[Any]:
        log = store(msg, max_events=keep)
        yield log, lambda: log

    return open_log


_CONDITIONAL = ("test_of_writers_racing_with_the_same_expect_exactly_one_wins",
                "test_a_conditional_append_to_a_closed_log_conflicts",
                "test_an_empty_expect_means_a_log_with_no_entry",
                "test_the_sessions_last_id_is_the_newest_entry_and_a_stale_one_conflicts")


@pytest.mark.parametrize(("store", "test"), [
    *((_IgnoresExpect, test) for test in _CONDITIONAL),
    (_ChecksThenWrites, "test_of_writers_racing_with_the_same_expect_exactly_one_wins"),
])
def test_a_store_that_skips_the_condition_fails_the_contract(store: type[EventLog], test: str) -> None:
    run = getattr(StoreContract(), test)
    with pytest.raises((AssertionError, pytest.fail.Exception, WireError)):
        anyio.run(run, _memory_stores(store))


@pytest.mark.parametrize("test", _CONDITIONAL)
def test_the_memory_log_itself_passes_them_so_run(test: str) -> None:
    anyio.run(getattr(StoreContract(), test), _memory_stores(EventLog))
