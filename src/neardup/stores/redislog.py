"""The shared log of a ContentSeen fleet in Redis: one Stream per crawl job (``redis://host:6379/0?prefix=job``).

Keys under the prefix P (default ``neardup:fleet``):

* ``P:log``  the Stream; entry number n has the stream id ``0-n`` and one field ``d`` (the entry's
  bytes, :class:`~neardup.contentseen.fleet.LogEntry`);
* ``P:meta`` a hash: ``epoch`` (a random id set by the first member), ``settings`` (the digest of
  the engine configuration every member must share), ``n`` (the last entry number), ``first``
  (the first entry the stream still holds; absent: 1);
* ``P:members`` a hash: member -> ``"covered deadline_ms"``: the last entry the member's state holds
  durably, and until when (Redis's clock) that holds the log back;
* ``P:marks`` a sorted set: the last entry number (member) when a trim first saw it (score: ms), so
  that entries appended within the keep time are known;
* ``P:url:<url>`` a string ``"n ms exactkey"`` of the URL's last entry, expiring (``PX``) after the
  retry window (retries, see the fleet module).

An append is one Lua script (atomic, one round trip): check the epoch, look the URL up, then
``HINCRBY n``, ``XADD 0-n`` and ``SET P:url:<url> ... PX window``. Numbering and appending are one step, so no entry number is ever
handed out without its entry being in the stream, and the numbers have no gaps. A read is one Lua
script too (check the epoch, ``XRANGE``). The epoch catches a Redis that lost the log (restarted
without persistence, keys deleted, a failover to a replica that had not received it): its members'
states describe a log that no longer exists, so every call is refused with StoreError until they
are restarted (a restarted member replays the log Redis has).

Joining, recording coverage and trimming are scripts too: a member is registered only if the
stream still holds the entries it needs (checked in the same script), and a trim
(``XTRIM MINID``) computes its bound from the live members in the same script, so no trim can
pass a member between its check and its registration.

>>> # log = RedisLog("redis://127.0.0.1:6379/0?prefix=crawl42"); log.open(settings="...")
>>> # log.append(entry_bytes, url="https://a.example/1", raw=123, ts=time.time())  ->  (1, True)
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

from neardup._deps import require
from neardup.contentseen.fleet import _OTHER_SETTINGS, DEFAULT_RETRY_WINDOW
from neardup.exceptions import ConfigError, StoreError
from neardup.stores._url import StoreURL, check_redis_url, parse_store_url, redis_client

__all__ = ["APPEND_LUA", "COVER_LUA", "JOIN_LUA", "READ_LUA", "TRIM_LUA", "RedisLog"]

_EPOCH_ERROR = "NEARDUP_EPOCH"
_EPOCH_CHECK = """
if redis.call('HGET', KEYS[2], 'epoch') ~= ARGV[1] then
  return redis.error_reply('NEARDUP_EPOCH the log was reset')
end
"""
_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: log, meta, the URL's key. ARGV: epoch, exact key (hex), now (ms), retry window (ms), payload.
# Returns {n, 1} for a new entry, {n, 0} for a retry of the URL's last entry.
APPEND_LUA = (
    _EPOCH_CHECK
    + """
local prev = redis.call('GET', KEYS[3])
if prev then
  local n, ms, raw = string.match(prev, '^(%d+) (%d+) (%x+)$')
  if raw == ARGV[2] and tonumber(ARGV[3]) - tonumber(ms) <= tonumber(ARGV[4]) then
    return {tonumber(n), 0}
  end
end
local n = redis.call('HINCRBY', KEYS[2], 'n', 1)
redis.call('XADD', KEYS[1], '0-' .. n, 'd', ARGV[5])
if tonumber(ARGV[4]) > 0 then
  redis.call('SET', KEYS[3], n .. ' ' .. ARGV[3] .. ' ' .. ARGV[2], 'PX', ARGV[4])
end
return {n, 1}
"""
)

# KEYS: log, meta, members. ARGV: epoch, member, covered, ttl (ms).
# Returns the first entry, or minus it when the member's state is older than the log (not registered).
JOIN_LUA = (
    _EPOCH_CHECK
    + _NOW
    + """
local first = tonumber(redis.call('HGET', KEYS[2], 'first') or '1')
local covered = tonumber(ARGV[3])
if (covered == 0 and first > 1) or (covered > 0 and covered < first) then
  return -first
end
redis.call('HSET', KEYS[3], ARGV[2], covered .. ' ' .. (now + tonumber(ARGV[4])))
return first
"""
)

# KEYS: log, meta, members. ARGV: epoch, member, covered, ttl (ms).
COVER_LUA = (
    _EPOCH_CHECK
    + _NOW
    + """
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3] .. ' ' .. (now + tonumber(ARGV[4])))
return 1
"""
)

# KEYS: log, meta, members, marks. ARGV: epoch, keep (ms).
# Drops expired members; trims below min(lowest live coverage, last entry keep ms ago + 1).
# Returns {first entry, entries removed}.
TRIM_LUA = (
    _EPOCH_CHECK
    + _NOW
    + """
local first = tonumber(redis.call('HGET', KEYS[2], 'first') or '1')
local low = nil
local all = redis.call('HGETALL', KEYS[3])
for i = 1, #all, 2 do
  local c, dl = string.match(all[i + 1], '^(%d+) (%d+)$')
  if c == nil or tonumber(dl) < now then
    redis.call('HDEL', KEYS[3], all[i])
  elseif low == nil or tonumber(c) < low then
    low = tonumber(c)
  end
end
local n = redis.call('HGET', KEYS[2], 'n') or '0'
redis.call('ZADD', KEYS[4], 'NX', now, n)
local cut = redis.call('ZREVRANGEBYSCORE', KEYS[4], now - tonumber(ARGV[2]), '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
if low == nil or #cut == 0 then
  return {first, 0}
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. cut[2])
local m = math.min(low, tonumber(cut[1]) + 1)
if m <= first then
  return {first, 0}
end
local removed = redis.call('XTRIM', KEYS[1], 'MINID', '0-' .. m)
redis.call('HSET', KEYS[2], 'first', m)
return {m, removed}
"""
)

# KEYS: log, meta. ARGV: epoch, first id, last id ('+': the end), count.
READ_LUA = """
if redis.call('HGET', KEYS[2], 'epoch') ~= ARGV[1] then
  return redis.error_reply('NEARDUP_EPOCH the log was reset')
end
return redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[3], 'COUNT', ARGV[4])
"""


class RedisLog:
    """A fleet's shared log in a Redis Stream (see the module).

    Args:
        url: ``redis://host:6379/0?prefix=job`` (also ``rediss://``, ``unix:///path.sock``).
        socket_timeout: seconds one Redis call may take before StoreError.
        retry_window: seconds during which resending a URL's page is a retry.
    """

    #: the query parameters it reads from its URL (redis-py reads its own: ``db``, ``socket_timeout``...)
    URL_PARAMS = frozenset({"prefix"})
    _WHAT = "a ContentSeen fleet's log"

    def __init__(
        self,
        url: StoreURL | str,
        *,
        socket_timeout: float = 10.0,
        retry_window: float = DEFAULT_RETRY_WINDOW,
    ) -> None:
        self._redis = require("redis", "redis", purpose="a ContentSeen fleet")
        self._parsed = url if isinstance(url, StoreURL) else parse_store_url(url, ("redis", "rediss", "unix"))
        self.url = self._parsed.redacted()
        check_redis_url(self._parsed, reads=self.URL_PARAMS, store=self._WHAT)
        if not 0 < socket_timeout <= 3600:
            raise ConfigError(f"socket_timeout must be between 0 and 3600 seconds, got {socket_timeout}")
        if not retry_window >= 0:
            raise ConfigError(f"retry_window must be >= 0 seconds, got {retry_window}")
        self.socket_timeout = socket_timeout
        self.retry_window = retry_window
        self.prefix = self._parsed.params.get("prefix") or "neardup:fleet"
        p = self.prefix
        self.keys = {"log": f"{p}:log", "meta": f"{p}:meta", "members": f"{p}:members", "marks": f"{p}:marks"}
        self.epoch: str | None = None
        self._client_obj: Any = None
        self._scripts: dict[str, Any] = {}
        self._lock = threading.Lock()

    # -- plumbing ----------------------------------------------------------------------------
    @property
    def _client(self) -> Any:
        if self._client_obj is None:
            with self._lock:
                if self._client_obj is None:
                    client = redis_client(
                        self._parsed,
                        reads=self.URL_PARAMS,
                        store=self._WHAT,
                        socket_timeout=self.socket_timeout,
                        socket_connect_timeout=min(5.0, self.socket_timeout),
                    )
                    self._scripts = {
                        "append": client.register_script(APPEND_LUA),
                        "read": client.register_script(READ_LUA),
                        "join": client.register_script(JOIN_LUA),
                        "cover": client.register_script(COVER_LUA),
                        "trim": client.register_script(TRIM_LUA),
                    }
                    self._client_obj = client
        return self._client_obj

    def _call(self, what: str, fn: Any) -> Any:
        try:
            return fn(self._client)
        except self._redis.exceptions.ResponseError as exc:
            if str(exc).startswith(_EPOCH_ERROR):
                raise StoreError(
                    f"the shared log {self.url} was reset (Redis lost it: restarted without "
                    "persistence, keys deleted, or a failover to a replica behind it); this "
                    "server's state belongs to the lost log: restart it to rebuild from the log Redis holds"
                ) from None
            raise StoreError(f"the shared log {self.url} failed {what}: {exc}") from exc
        except self._redis.exceptions.RedisError as exc:
            raise StoreError(
                f"the shared log {self.url} is unreachable ({what}): {type(exc).__name__}: {exc}"
            ) from exc

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_redis", "_lock"):
            state.pop(name)
        state["_client_obj"] = None
        state["_scripts"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._redis = require("redis", "redis", purpose="a ContentSeen fleet")
        self._lock = threading.Lock()

    # -- the log -----------------------------------------------------------------------------
    def open(self, settings: str) -> None:
        """Join the log (the first member creates its epoch and settings)."""

        def join(r: Any) -> list[Any]:
            pipe = r.pipeline(transaction=True)
            pipe.hsetnx(self.keys["meta"], "epoch", uuid.uuid4().hex)
            pipe.hsetnx(self.keys["meta"], "settings", settings)
            pipe.hmget(self.keys["meta"], ["epoch", "settings"])
            return list(pipe.execute()[-1])

        epoch, have = self._call("joining", join)
        if have.decode() != settings:
            raise ConfigError(_OTHER_SETTINGS.format(url=self.url))
        self.epoch = epoch.decode()

    def _epoch(self) -> str:
        if self.epoch is None:
            raise StoreError(f"the shared log {self.url} was not opened (call open first)")
        return self.epoch

    def append(self, payload: bytes, *, url: str, raw: int, ts: float) -> tuple[int, bool]:
        epoch = self._epoch()
        args = [epoch, f"{raw:x}", int(ts * 1000), int(self.retry_window * 1000), payload]
        keys = [self.keys["log"], self.keys["meta"], self.url_key(url)]
        n, fresh = self._call("appending", lambda r: self._scripts["append"](keys=keys, args=args, client=r))
        return int(n), bool(fresh)

    def url_key(self, url: str) -> str:
        """The key remembering ``url``'s last entry during the retry window."""
        return f"{self.prefix}:url:{url}"

    def _member_script(self, name: str, member: str, covered: int, ttl: float) -> int:
        epoch = self._epoch()
        keys = [self.keys["log"], self.keys["meta"], self.keys["members"]]
        args = [epoch, member, int(covered), max(1, int(ttl * 1000))]
        return int(
            self._call(
                f"recording member {member}", lambda r: self._scripts[name](keys=keys, args=args, client=r)
            )
        )

    def join(self, member: str, covered: int, ttl: float) -> int:
        return self._member_script("join", member, covered, ttl)

    def cover(self, member: str, covered: int, ttl: float) -> None:
        self._member_script("cover", member, covered, ttl)

    def trim(self, keep: float) -> int:
        epoch = self._epoch()
        keys = [self.keys["log"], self.keys["meta"], self.keys["members"], self.keys["marks"]]
        args = [epoch, int(keep * 1000)]
        first, _ = self._call("trimming", lambda r: self._scripts["trim"](keys=keys, args=args, client=r))
        return int(first)

    def leave(self, member: str) -> None:
        self._call(f"removing member {member}", lambda r: r.hdel(self.keys["members"], member))

    def first(self) -> int:
        """The first entry the stream still holds (1 until a trim)."""
        got = self._call("reading its first entry", lambda r: r.hget(self.keys["meta"], "first"))
        return int(got or 1)

    def members(self) -> dict[str, tuple[int, int]]:
        """member -> (the last entry it covers durably, its deadline in Redis ms)."""
        got = self._call("reading its members", lambda r: r.hgetall(self.keys["members"]))
        out = {}
        for k, v in got.items():
            c, _, dl = v.decode().partition(" ")
            out[k.decode()] = (int(c), int(dl))
        return out

    def read(self, after: int, upto: int | None, count: int) -> list[tuple[int, bytes]]:
        epoch = self._epoch()
        if upto is not None and upto <= after:
            return []
        args = [epoch, f"0-{after + 1}", "+" if upto is None else f"0-{upto}", count]
        rows = self._call(
            "reading",
            lambda r: self._scripts["read"](keys=[self.keys["log"], self.keys["meta"]], args=args, client=r),
        )
        out: list[tuple[int, bytes]] = []
        for sid, fields in rows:
            ms, _, n = sid.decode().partition("-")
            data = dict(zip(fields[::2], fields[1::2], strict=True))
            if ms != "0" or b"d" not in data:
                raise StoreError(f"the shared log {self.url} holds an entry {sid!r} no ContentSeen wrote")
            out.append((int(n), data[b"d"]))
        return out

    def last(self) -> int:
        """The number of the log's last entry (0: empty)."""
        got = self._call("reading its length", lambda r: r.hget(self.keys["meta"], "n"))
        return int(got or 0)

    def ping(self) -> None:
        """StoreError unless Redis answers."""
        self._call("answering a ping", lambda r: r.ping())

    def close(self) -> None:
        with self._lock:
            if self._client_obj is not None:
                try:
                    self._client_obj.close()
                finally:
                    self._client_obj = None
