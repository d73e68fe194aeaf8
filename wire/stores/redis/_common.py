"""What the producer and the readers of a Redis log share: the key names,
the entry ids, the checkpoint hash, the two Lua scripts and the log's
settings."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import redis.exceptions
from redis.crc import key_slot

from wire.errors import StoreError
from wire.framing import UnknownPolicy
from wire.messages import Msg

if TYPE_CHECKING:
    from redis.asyncio import Redis

# agentscope.app.message_bus._keys.MessageBusKeys.session_events
AGENTSCOPE_SESSION_EVENTS = "agentscope:session:events:"

ENTRY_ID = re.compile(rb"[0-9]{1,20}-[0-9]{1,20}")
ZERO = b"0-0"


def agentscope_session_key(session_id: str) -> str:
    """The stream agentscope 2.0.11's app keeps a session's events in."""
    return AGENTSCOPE_SESSION_EVENTS + session_id


def hash_tag(key: str) -> str | None:
    """The part of ``key`` Redis Cluster hashes when it is not the whole key:
    between the first ``{`` and the first ``}`` after it, if not empty."""
    start = key.find("{")
    if start < 0:
        return None
    end = key.find("}", start + 1)
    return key[start + 1:end] if end > start + 1 else None


@lru_cache(maxsize=1024)
def checkpoint_key(key: str) -> str:
    """The hash beside stream ``key`` that holds its checkpoint, in the
    stream's hash slot (Redis Cluster moves both together, and a script may
    touch only keys of one slot).

    A key with a hash tag keeps it (``key:wire.checkpoint``); a key without
    braces becomes the tag (``{key}:wire.checkpoint``). A key with braces but no tag (``"{}"``, ``"}{"``)
    is hashed whole and cannot be wrapped, so the hash takes the first tag
    ``wire:<n>`` that falls into the key's slot (a few thousand CRC16s, once
    per key)."""
    tag = hash_tag(key)
    if tag is not None:
        name = key + ":wire.checkpoint"
    elif "{" not in key and "}" not in key:
        name = "{" + key + "}:wire.checkpoint"
    else:
        slot = key_slot(key.encode())
        n = 0
        while key_slot(b"wire:%d" % n) != slot:
            n += 1
        name = f"{{wire:{n}}}:{key}:wire.checkpoint"
    assert key_slot(name.encode()) == key_slot(key.encode())
    return name


def order(entry_id: bytes) -> tuple[int, int]:
    """An entry id as numbers, to compare; an id must match ``ENTRY_ID``."""
    ms, _, seq = entry_id.partition(b"-")
    return int(ms), int(seq)


def as_bytes(value: Any) -> bytes:
    return value if type(value) is bytes else str(value).encode()


class Checkpoint:
    """The checkpoint hash, read and checked: the entry it covers, the Msg
    then (its JSON), the reply's first entry and, once the producer closed
    the log, its last. A field that is not what the producer writes raises
    StoreError naming it: a reader never serves a damaged checkpoint."""

    __slots__ = ("end", "first", "id", "msg")

    def __init__(self, fields: dict[Any, Any], key: str) -> None:
        got = {as_bytes(k): as_bytes(v) for k, v in fields.items()}
        self.msg = got.get(b"msg")
        self.id = _entry_id(got, b"id", key)
        self.first = _entry_id(got, b"first", key)
        self.end = _entry_id(got, b"end", key)
        if (self.id is None) != (self.msg is None):
            raise StoreError(f"the checkpoint hash holds {'an id' if self.msg is None else 'a msg'} "
                             "without the other", key=key)

    @property
    def usable(self) -> bool:
        return self.id is not None


def _entry_id(fields: dict[bytes, bytes], name: bytes, key: str) -> bytes | None:
    value = fields.get(name)
    if value is not None and not ENTRY_ID.fullmatch(value):
        raise StoreError(f"the checkpoint hash's {name.decode()!r} holds {value[:40]!r}, not an entry id",
                         key=key)
    return value


# KEYS: the stream, the checkpoint. ARGV: max_len (0: none), ttl in ms (0:
# none), publish (1/0), reset the checkpoint first (1/0), the Msg snapshot
# ("" : no checkpoint in this call), finish (1/0: mark the reply's end), the
# last id the producer wrote ("" if none), then the payloads.
APPEND = """
local key, ck = KEYS[1], KEYS[2]
local max_len, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
local publish, reset, msg, finish = ARGV[3] == '1', ARGV[4] == '1', ARGV[5], ARGV[6] == '1'
local last = ARGV[7]
if last == '' then last = '0-0' end
if reset then redis.call('DEL', ck) end
local ids = {}
for i = 8, #ARGV do
  local payload = ARGV[i]
  local id
  if max_len > 0 then
    id = redis.call('XADD', key, 'MAXLEN', '~', max_len, '*', 'payload', payload)
  else
    id = redis.call('XADD', key, '*', 'payload', payload)
  end
  ids[#ids + 1] = id
  last = id
  if publish then
    redis.call('PUBLISH', key, string.sub(payload, 1, -2) .. ',"_entry_id":"' .. id .. '"}')
  end
end
if reset and #ids > 0 then redis.call('HSET', ck, 'first', ids[1]) end
if msg ~= '' then redis.call('HSET', ck, 'id', last, 'msg', msg) end
if finish then redis.call('HSET', ck, 'end', last) end
if ttl > 0 then
  redis.call('PEXPIRE', key, ttl)
  redis.call('PEXPIRE', ck, ttl)
end
return ids
"""

# KEYS: the stream, the checkpoint. ARGV: the cursor, the most entries to read.
# Returns the id of the last entry read ("" if none), the end mark ("" if
# none), how many entries had no payload, 1 if a payload holds an LF, the ids
# joined with spaces, the payloads joined with LF, and 1 if the cursor's own
# entry is gone from the stream (trimmed or deleted: entries after it may be
# too, which the reader then checks against the checkpoint).
READ = r"""
local cursor = ARGV[1]
local entries = redis.call('XRANGE', KEYS[1], '(' .. cursor, '+', 'COUNT', tonumber(ARGV[2]))
local ids, payloads, skipped, lines, last = {}, {}, 0, 0, ''
for _, entry in ipairs(entries) do
  local fields, payload = entry[2], nil
  for j = 1, #fields, 2 do
    if fields[j] == 'payload' then payload = fields[j + 1] break end
  end
  last = entry[1]
  if payload then
    ids[#ids + 1] = entry[1]
    payloads[#payloads + 1] = payload
    if string.find(payload, '\n', 1, true) then lines = 1 end
  else
    skipped = skipped + 1
  end
end
local gone = 0
if cursor ~= '0-0' and #redis.call('XRANGE', KEYS[1], cursor, cursor) == 0 then gone = 1 end
local ending = redis.call('HGET', KEYS[2], 'end') or ''
return {last, ending, skipped, lines, table.concat(ids, ' '), table.concat(payloads, '\n'), gone}
"""


# Failures worth retrying for a reader: the server went away, is restarting
# or is loading its AOF (BusyLoadingError is a ConnectionError).
TRANSIENT = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)
FAILURES = (redis.exceptions.RedisError, OSError)


class LogBase:
    """The settings the producer's and the readers' halves share."""

    client: Redis
    key: str
    checkpoint_key: str
    max_len: int | None
    ttl: float | None
    msg: Msg | None
    publish: bool
    checkpoint_every: int
    unknown: UnknownPolicy
    retry_for: float
    skipped: int
    last_id: str | None
    _closed: bool

    def error(self, exc: BaseException, doing: str) -> StoreError:
        """``exc`` (redis-py's, or the OS's) as the StoreError callers catch."""
        error = StoreError(f"{doing} failed: {type(exc).__name__}: {exc}", key=self.key)
        error.__cause__ = exc
        return error
