"""A Redis store (``redis://host:6379/0?prefix=job``): many processes, one set of ids.

Everything lives in five Redis hashes under the prefix (default ``neardup``): ``P:kv`` (tagged key
-> value), ``P:alias`` (merged id -> parent), ``P:size`` (live id -> assignments), ``P:ctr``
(counters) and ``P:meta``. Group assignment is one Lua script per chunk of documents: Redis runs a
script atomically, so crawler processes sharing a server get exactly the ids one process would
have handed out in some order, and a chunk lands whole or not at all. Chunks of a batch travel in
one pipeline. A batch that failed half-way (server gone) raises StoreError and can be retried: the
documents that landed find their own keys and get the same ids back.

The client is dropped when the store is pickled and reconnects on first use, so a store can be
shipped to Spark executors or worker processes.

>>> # store = open_store("redis://127.0.0.1:6379/0?prefix=crawl42")
>>> # store.assign_many([[h1, h2, h3], [h4]])  ->  [17, 18]
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from neardup._deps import require
from neardup.exceptions import ConfigError, StoreError
from neardup.stores._url import StoreURL, check_redis_url, parse_store_url, redis_client
from neardup.stores.base import Key, StoreBase, check_keys, decode_key, encode_key

__all__ = ["ASSIGN_LUA", "RedisStore"]

_IDS = "ids"

# KEYS: kv, alias, size, ctr. ARGV[1]: "b" when every key is an int and ARGV[3] holds them packed
# (8 bytes each, big endian), else "a" and the tagged keys follow as ARGV[3..]. ARGV[2]: one byte per
# document = its number of keys. Returns the group id of each document, processing them in order
# exactly as assign_groups does. The chunk's keys are read with a few HMGETs up front and written
# back with a few HSETs at the end (a Lua table holds the chunk's state meanwhile), so a new document
# costs no Redis call of its own.
ASSIGN_LUA = """
local kv, alias, size, ctr = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local counts = ARGV[2]
local fields = {}
local nf = 0
if ARGV[1] == 'b' then
  local blob = ARGV[3]
  for p = 1, #blob, 8 do
    nf = nf + 1
    fields[nf] = 'i' .. string.sub(blob, p, p + 7)
  end
else
  for a = 3, #ARGV do
    nf = nf + 1
    fields[nf] = ARGV[a]
  end
end
local cur = {}
for s = 1, nf, 1000 do
  local e = math.min(s + 999, nf)
  local vals = redis.call('HMGET', kv, unpack(fields, s, e))
  for i = s, e do cur[fields[i]] = vals[i - s + 1] end
end
local last = tonumber(redis.call('HGET', ctr, 'ids') or '0')
local last0 = last
local sizes = {}
local dirty = {}
local out = {}
local fpos = 0
for d = 1, #counts do
  local c = string.byte(counts, d)
  local sid = nil
  local roots = {}
  for i = fpos + 1, fpos + c do
    local v = cur[fields[i]]
    if v then
      local r = v
      local p = redis.call('HGET', alias, r)
      while p do
        r = p
        p = redis.call('HGET', alias, r)
      end
      if r ~= v then redis.call('HSET', alias, v, r) end
      roots[r] = true
      local rn = tonumber(r)
      if sid == nil or rn < sid then sid = rn end
    end
  end
  local s
  if sid == nil then
    last = last + 1
    sid = last
    s = string.format('%d', sid)
    sizes[s] = 1
  else
    s = string.format('%d', sid)
    local moved = 1
    for r, _ in pairs(roots) do
      if r ~= s then
        redis.call('HSET', alias, r, s)
        local n = sizes[r]
        if n == nil then n = tonumber(redis.call('HGET', size, r) or '0') end
        if n then moved = moved + n end
        sizes[r] = false
      end
    end
    local n = sizes[s]
    if n == nil then n = tonumber(redis.call('HGET', size, s) or '0') end
    sizes[s] = n + moved
  end
  for i = fpos + 1, fpos + c do
    local f = fields[i]
    if cur[f] ~= s then
      cur[f] = s
      dirty[f] = true
    end
  end
  fpos = fpos + c
  out[d] = sid
end
local args = {}
local na = 0
for f, _ in pairs(dirty) do
  args[na + 1] = f
  args[na + 2] = cur[f]
  na = na + 2
  if na >= 2000 then
    redis.call('HSET', kv, unpack(args, 1, na))
    na = 0
  end
end
if na > 0 then redis.call('HSET', kv, unpack(args, 1, na)) end
for g, n in pairs(sizes) do
  if n then redis.call('HSET', size, g, n) else redis.call('HDEL', size, g) end
end
if last ~= last0 then redis.call('HSET', ctr, 'ids', string.format('%d', last)) end
return out
"""

# KEYS: alias. ARGV: ids. Returns each id's root.
RESOLVE_LUA = """
local out = {}
for i = 1, #ARGV do
  local r = ARGV[i]
  local p = redis.call('HGET', KEYS[1], r)
  while p do
    r = p
    p = redis.call('HGET', KEYS[1], r)
  end
  out[i] = tonumber(r)
end
return out
"""


class RedisStore(StoreBase):
    """A store in Redis under a key prefix. ``chunk`` documents go in each Lua call."""

    #: the query parameters it reads from its URL (redis-py reads its own: ``db``, ``socket_timeout``...)
    URL_PARAMS = frozenset({"prefix"})
    _WHAT = "a Redis key-value store (ContentSeen's key map, nshash's ids)"

    def __init__(
        self,
        url: StoreURL | str,
        *,
        prefix: str | None = None,
        chunk: int = 500,
        socket_timeout: float = 30.0,
        check: bool = True,
    ) -> None:
        self._redis = require("redis", "redis", purpose="Redis stores")
        self._parsed = url if isinstance(url, StoreURL) else parse_store_url(url, ("redis", "rediss", "unix"))
        self.url = self._parsed.redacted()
        check_redis_url(self._parsed, reads=self.URL_PARAMS, store=self._WHAT)
        self.prefix = prefix or self._parsed.params.get("prefix") or "neardup"
        if not 1 <= chunk <= 100_000:
            raise ConfigError(f"chunk must be between 1 and 100000 documents per Lua call, got {chunk}")
        self.chunk = chunk
        self.socket_timeout = socket_timeout
        p = self.prefix
        self._keys = [f"{p}:kv", f"{p}:alias", f"{p}:size", f"{p}:ctr"]
        self._meta_key = f"{p}:meta"
        self._client_obj: Any = None
        self._scripts: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._closed = False
        if check:
            self._call(lambda r: r.ping(), "open")

    # -- plumbing ----------------------------------------------------------------------------
    @property
    def _client(self) -> Any:
        if self._closed:
            raise self._closed_error()
        if self._client_obj is None:
            with self._lock:
                if self._client_obj is None:
                    self._client_obj = self._connect()
                    self._scripts = {
                        "assign": self._client_obj.register_script(ASSIGN_LUA),
                        "resolve": self._client_obj.register_script(RESOLVE_LUA),
                    }
        return self._client_obj

    def _connect(self) -> Any:
        try:
            return redis_client(
                self._parsed, reads=self.URL_PARAMS, store=self._WHAT, socket_timeout=self.socket_timeout
            )
        except ConfigError:
            raise
        except ValueError as exc:  # a malformed URL (port, db) found by redis-py
            raise ConfigError(f"store URL {self.url!r} is malformed: {exc}") from None

    def _call(self, fn: Any, what: str) -> Any:
        try:
            return fn(self._client)
        except self._redis.exceptions.RedisError as exc:
            verb = "cannot open store" if what == "open" else f"store {what} failed on"
            raise StoreError(f"{verb} {self.url!r}: {type(exc).__name__}: {exc}") from exc

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_redis")
        state["_client_obj"] = None
        state["_scripts"] = {}
        state.pop("_lock")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._redis = require("redis", "redis", purpose="Redis stores")
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: StoreURL, **options: Any) -> RedisStore:
        """``redis://host:6379/0?prefix=p`` (also ``rediss://`` and ``unix:///path.sock``)."""
        return cls(url, **options)

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, prefix={self.prefix!r})"

    # -- key-value ---------------------------------------------------------------------------
    def get(self, key: Key) -> int | None:
        raw = self._call(lambda r: r.hget(self._keys[0], encode_key(key)), "get")
        return None if raw is None else int(raw)

    def get_many(self, keys: Sequence[Key]) -> list[int | None]:
        if not keys:
            return []
        fields = [encode_key(k) for k in keys]
        raw = self._call(lambda r: r.hmget(self._keys[0], fields), "get_many")
        return [None if v is None else int(v) for v in raw]

    def put(self, key: Key, value: int) -> None:
        self.put_many([(key, value)])

    def put_many(self, items: Sequence[tuple[Key, int]]) -> None:
        items = list(items)
        if not items:
            return
        check_keys([k for k, _ in items])
        mapping = {encode_key(k): self.check_value(v) for k, v in items}
        self._call(lambda r: r.hset(self._keys[0], mapping=mapping), "put_many")

    def delete(self, key: Key) -> None:
        self._call(lambda r: r.hdel(self._keys[0], encode_key(key)), "delete")

    def incr(self, name: str, amount: int = 1) -> int:
        return int(self._call(lambda r: r.hincrby(self._keys[3], name, amount), "incr"))

    # -- groups ------------------------------------------------------------------------------
    def _assign_prepared(self, groups: list[list[Key]]) -> list[int]:
        if not groups:
            return []
        for keys in groups:
            if len(keys) > 255:
                raise ConfigError(f"a Redis store takes at most 255 keys per group, got {len(keys)}")

        def run(r: Any) -> list[int]:
            script = self._scripts["assign"]
            pipe = r.pipeline(transaction=False)
            for start in range(0, len(groups), self.chunk):
                part = groups[start : start + self.chunk]
                counts = bytes(len(keys) for keys in part)
                flat = [k for keys in part for k in keys]
                if all(type(k) is int for k in flat):
                    args: list[bytes] = [b"b", counts, np.array(flat, dtype=">u8").tobytes()]
                else:
                    args = [b"a", counts, *(encode_key(k) for k in flat)]
                script(keys=self._keys, args=args, client=pipe)
            out: list[int] = []
            for ids in pipe.execute():
                out.extend(ids)
            return out

        result: list[int] = self._call(run, "assign_many")
        return result

    def resolve(self, ids: Sequence[int]) -> list[int]:
        if not ids:
            return []
        out: list[int] = []
        for start in range(0, len(ids), 5000):
            part = [int(i) for i in ids[start : start + 5000]]

            def run(r: Any, part: list[int] = part) -> Any:
                return self._scripts["resolve"](keys=[self._keys[1]], args=part, client=r)

            out.extend(self._call(run, "resolve"))
        return out

    def _hscan(self, key: str) -> Iterator[tuple[bytes, bytes]]:
        try:
            yield from self._client.hscan_iter(key, count=1000)
        except self._redis.exceptions.RedisError as exc:
            raise StoreError(f"store scan failed on {self.url!r}: {type(exc).__name__}: {exc}") from exc

    def groups(self) -> Iterator[tuple[int, int]]:
        for k, v in self._hscan(self._keys[2]):
            yield int(k), int(v)

    def items(self) -> Iterator[tuple[Key, int]]:
        for k, v in self._hscan(self._keys[0]):
            yield decode_key(k), int(v)

    def stats(self) -> dict[str, Any]:
        def run(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.hlen(self._keys[0])
            pipe.hlen(self._keys[1])
            pipe.hlen(self._keys[2])
            pipe.hget(self._keys[3], _IDS)
            return pipe.execute()

        keys, aliases, groups, ids = self._call(run, "stats")
        assignments = sum(size for _, size in self.groups())
        return {
            "backend": "redis",
            "url": self.url,
            "prefix": self.prefix,
            "keys": keys,
            "ids_assigned": int(ids or 0),
            "groups": groups,
            "aliases": aliases,
            "assignments": assignments,
        }

    def get_meta(self, name: str) -> str | None:
        raw = self._call(lambda r: r.hget(self._meta_key, name), "get_meta")
        return None if raw is None else bytes(raw).decode()

    def set_meta(self, name: str, value: str) -> None:
        self._call(lambda r: r.hset(self._meta_key, name, str(value)), "set_meta")

    def clear(self) -> None:
        self._call(lambda r: r.delete(*self._keys, self._meta_key), "clear")

    # -- lifetime ----------------------------------------------------------------------------
    def flush(self) -> None:
        """Writes are on the server already; durability is the server's (AOF/RDB) business."""

    def close(self) -> None:
        if self._client_obj is not None:
            with contextlib.suppress(self._redis.exceptions.RedisError):
                self._client_obj.close()
        self._client_obj = None
        self._closed = True
