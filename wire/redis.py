"""``wire.redis``: the Redis Streams replay log, by the name the docs use.

The code lives in :mod:`wire.stores.redis` (the ``redis`` extra); this module
only re-exports it.
"""

from __future__ import annotations

from wire.stores.redis import AGENTSCOPE_SESSION_EVENTS, RedisEventLog, agentscope_session_key, checkpoint_key

__all__ = ("AGENTSCOPE_SESSION_EVENTS", "RedisEventLog", "agentscope_session_key", "checkpoint_key")
