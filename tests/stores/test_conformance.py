"""Both stores keep the one store contract: ``wire.stores.conformance``'s
suite, run against the in-memory ``EventLog`` and against a
``RedisEventLog`` on a real redis-server (a reader of the Redis log is
another object on another connection, as on another replica)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from tests.redis_server import RedisServer, connect, redis_server
from wire.messages import Msg
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
