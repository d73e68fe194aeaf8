"""What the producer and the readers of a Redis log share: the key names,
the entry ids, the checkpoint hash, the Lua scripts and the log's
settings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import redis.exceptions
from redis.crc import key_slot

from wire.errors import StoreError
from wire.framing import UnknownPolicy

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
    """The checkpoint hash, read and checked. A checkpoint is a cut through
    the session: ``cut`` is the entry it was taken at, and each reply's
    Msg (``msg:<reply id>``, its JSON) is as of the cut at which it was last
    taken (``at:<reply id>``); every reply open at a cut is taken at it.
    ``first`` is the session's first entry and ``end`` its last once the
    producer closed it. ``state`` is the rest of the session at the cut
    (``_session``). A field that is not what the producer writes raises
    StoreError naming it: a reader never serves a damaged checkpoint."""

    __slots__ = ("at", "began", "cut", "end", "first", "msgs", "state")

    def __init__(self, fields: dict[Any, Any], key: str) -> None:
        got = {as_bytes(k): as_bytes(v) for k, v in fields.items()}
        self.cut = _entry_id(got, b"cut", key)
        self.first = _entry_id(got, b"first", key)
        self.end = _entry_id(got, b"end", key)
        self.state = got.get(b"state")
        self.msgs: dict[bytes, bytes] = {}
        self.at: dict[bytes, bytes] = {}
        self.began: dict[bytes, bytes] = {}
        """Each reply's first checkpoint: the order the replies began in."""
        for name, value in got.items():
            if name.startswith(b"msg:"):
                self.msgs[name[4:]] = value
            elif name.startswith(b"at:"):
                self.at[name[3:]] = _entry_id(got, name, key)  # type: ignore[assignment]
            elif name.startswith(b"began:"):
                self.began[name[6:]] = _entry_id(got, name, key)  # type: ignore[assignment]
        if self.msgs.keys() != self.at.keys() or (self.cut is None) != (not self.msgs):
            raise StoreError("the checkpoint hash holds a reply's msg without its entry id, or the reverse",
                             key=key)

    @property
    def usable(self) -> bool:
        return self.cut is not None

    def since(self, cursor: bytes) -> list[bytes]:
        """The Msg JSON of each reply a reader at ``cursor`` must be given to
        go on from the cut: those taken after the cursor, and those open at
        the cut (taken at it), in the order the replies began (as a reader
        that never dropped holds them). Each is as of the cut: nothing of
        its reply was written between its ``at`` and the cut."""
        assert self.cut is not None
        at, cut = order(cursor), self.cut
        taken = [reply for reply, entry in self.at.items() if entry == cut or order(entry) > at]
        return [self.msgs[reply] for reply in self.in_order(taken)]

    def in_order(self, replies: Iterable[bytes]) -> list[bytes]:
        """``replies`` in the order they began (by their first entry where
        the producers knew it, else their first checkpoint)."""
        return sorted(replies, key=lambda reply: order(self.began.get(reply) or self.at[reply]))


def _entry_id(fields: dict[bytes, bytes], name: bytes, key: str) -> bytes | None:
    value = fields.get(name)
    if value is not None and not ENTRY_ID.fullmatch(value):
        raise StoreError(f"the checkpoint hash's {name.decode(errors='replace')[:60]!r} holds {value[:40]!r}, "
                         "not an entry id", key=key)
    return value


# Entry ids compared as numbers, in Lua (both match ENTRY_ID).
_OLDER = """
local function older(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
"""

# KEYS: the stream, the checkpoint. ARGV: max_len (0: none), ttl in ms (0:
# none), publish (1/0), finish (1/0: mark the session's end), seen (the
# newest entry the producer's session covers, "" for none), fold ("0": write
# whatever the stream holds; "1": refuse while it holds entries after seen;
# "2": the producer has not loaded the session yet: refuse if the log holds
# anything), expect ("": none; else "=" and the id the newest entry must
# have, "=" alone for an empty log), the session's state JSON ("": leave it),
# the number of replies taken in this call, then (reply id, Msg JSON, where
# it began: an entry id, "+k" for this call's k-th entry, "" for the cut) for
# each, then the payloads.
#
# Returns {"ok", ids...}; {"conflict", newest, closed 1/0} when expect does
# not hold or the log is closed; {"lost", newest} when the stream ends before
# seen (entries the producer saw are gone: a failover lost acknowledged
# writes, or the log was deleted); {"unseen", reload 1/0, entries} when the
# stream holds entries after seen (at most 512 of them, as XRANGE gives
# them; reload when the producer must load the whole session instead, as
# entries after seen may have been trimmed). Every cut and end mark is taken
# at the stream's newest entry, which the producer's session covers. Writing
# reopens a closed session; the first entry ever is kept.
APPEND = _OLDER + """
local key, ck = KEYS[1], KEYS[2]
local max_len, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
local publish, finish = ARGV[3] == '1', ARGV[4] == '1'
local seen, fold, expect, state = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
local newest = top[1] and top[1][1] or ''
if seen ~= '' and newest ~= seen and (newest == '' or older(newest, seen)) then
  -- Entries deleted (XDEL, a trim), or never kept: the stream's last id tells.
  local last_generated = nil
  if redis.call('EXISTS', key) == 1 then
    local info = redis.call('XINFO', 'STREAM', key)
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then last_generated = info[i + 1] end
    end
  end
  if not last_generated or older(last_generated, seen) then return {'lost', newest} end
end
if expect ~= '' then
  local ending = redis.call('HGET', ck, 'end')
  local closed = ending and (newest == '' or not older(ending, newest))
  if closed or string.sub(expect, 2) ~= newest then
    return {'conflict', newest, closed and '1' or '0'}
  end
end
if fold == '2' and (newest ~= '' or redis.call('HEXISTS', ck, 'cut') == 1) then
  return {'unseen', '1', {}}
end
if fold == '1' and newest ~= '' and (seen == '' or older(seen, newest)) then
  local gone = seen ~= '' and #redis.call('XRANGE', key, seen, seen) == 0
  return {'unseen', gone and '1' or '0', redis.call('XRANGE', key, seen == '' and '-' or '(' .. seen, '+',
                                                     'COUNT', 512)}
end
local taken = tonumber(ARGV[9])
local first_payload = 10 + 3 * taken
local ids = {}
local last = newest
for i = first_payload, #ARGV do
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
if #ids > 0 then
  redis.call('HSETNX', ck, 'first', ids[1])
  redis.call('HDEL', ck, 'end')
end
if last == '' then last = '0-0' end
for j = 0, taken - 1 do
  local reply, began = ARGV[10 + 3 * j], ARGV[12 + 3 * j]
  redis.call('HSET', ck, 'msg:' .. reply, ARGV[11 + 3 * j], 'at:' .. reply, last)
  if string.sub(began, 1, 1) == '+' then
    began = ids[tonumber(string.sub(began, 2))]
  elseif began == '' then
    began = last
  end
  redis.call('HSETNX', ck, 'began:' .. reply, began)
end
if taken > 0 then
  redis.call('HSET', ck, 'cut', last)
  if state ~= '' then redis.call('HSET', ck, 'state', state) end
end
if finish then redis.call('HSET', ck, 'end', last) end
if ttl > 0 then
  redis.call('PEXPIRE', key, ttl)
  redis.call('PEXPIRE', ck, ttl)
end
table.insert(ids, 1, 'ok')
return ids
"""

# KEYS: the stream, the checkpoint. ARGV: the id before which entries go,
# and "1" if the log keeps checkpoints: then none at or after the cut goes
# (what the checkpoint does not cover stays in the stream), and none at all
# without a cut. Returns how many entries went.
TRIM = _OLDER + """
local before = ARGV[1]
if ARGV[2] == '1' then
  local cut = redis.call('HGET', KEYS[2], 'cut')
  if not cut or cut == '0-0' then return 0 end
  if older(cut, before) then before = cut end
end
return redis.call('XTRIM', KEYS[1], 'MINID', before)
"""

# KEYS: the stream, the checkpoint. ARGV: the most entries to read. The
# session as the log holds it, at one moment: the checkpoint hash's fields,
# the entries after its cut (all of them from the start if there is none;
# the caller reads on past the last), and the stream's newest entry id.
LOAD = """
local fields = redis.call('HGETALL', KEYS[2])
local cut = redis.call('HGET', KEYS[2], 'cut')
local entries = redis.call('XRANGE', KEYS[1], cut and '(' .. cut or '-', '+', 'COUNT', tonumber(ARGV[1]))
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
return {fields, entries, top[1] and top[1][1] or ''}
"""

# KEYS: the stream, the checkpoint. ARGV: the cursor, the most entries to read.
# Returns the id of the last entry read ("" if none), the end mark ("" if
# none), how many entries had no payload, 1 if a payload holds an LF, the ids
# joined with spaces, the payloads joined with LF, and 1 if the cursor's own
# entry is gone from the stream (trimmed or deleted: entries after it may be
# too, which the reader then checks against the checkpoint). For a reader
# from the start (cursor 0-0) that is the session's first entry: a trim
# between the reader's opening look and this read must not go unseen.
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
local gone, since = 0, cursor
if cursor == '0-0' then since = redis.call('HGET', KEYS[2], 'first') end
if since and #redis.call('XRANGE', KEYS[1], since, since) == 0 then gone = 1 end
local ending = redis.call('HGET', KEYS[2], 'end') or ''
return {last, ending, skipped, lines, table.concat(ids, ' '), table.concat(payloads, '\n'), gone}
"""


# Failures worth retrying for a reader: the server went away, is restarting
# or is loading its AOF (BusyLoadingError is a ConnectionError).
# On Redis Cluster also while a failover is under way: the cluster answers
# CLUSTERDOWN or TRYAGAIN, redis-py knows no node for a slot yet, or a promoted
# replica has not seen a script (redis-py loaded it on the masters it knew).
TRANSIENT = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.ClusterDownError,
             redis.exceptions.TryAgainError, redis.exceptions.SlotNotCoveredError, redis.exceptions.NoScriptError,
             OSError)
# redis-py's cluster client raises RedisClusterException, which is no RedisError.
FAILURES = (redis.exceptions.RedisError, redis.exceptions.RedisClusterException, OSError)


class LogBase:
    """The settings the producer's and the readers' halves share."""

    client: Redis
    key: str
    checkpoint_key: str
    max_len: int | None
    ttl: float | None
    publish: bool
    checkpoint_every: int
    unknown: UnknownPolicy
    retry_for: float
    skipped: int
    last_id: str | None
    _closed: bool

    _loader: Any  # the LOAD script, registered on the client
    _trimmer: Any  # the TRIM script

    async def run_script(self, script: Any, args: list[Any]) -> Any:
        """Run a registered script on the log's two keys (redis-py's errors
        are the caller's to translate)."""
        keys = [self.key, self.checkpoint_key]
        try:
            return await script(keys=keys, args=args)
        except redis.exceptions.NoScriptError:
            # The node serving the key has not seen the script: a replica a
            # failover promoted, which redis-py's SCRIPT LOAD (sent to the
            # masters it knew) missed. The script did not run; EVAL runs it
            # there once, and caches it for the calls after.
            return await self.client.eval(script.script, len(keys), *keys, *args)

    def error(self, exc: BaseException, doing: str) -> StoreError:
        """``exc`` (redis-py's, or the OS's) as the StoreError callers catch."""
        error = StoreError(f"{doing} failed: {type(exc).__name__}: {exc}", key=self.key)
        error.__cause__ = exc
        return error
