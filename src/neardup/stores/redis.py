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

from neardup._deps import require
from neardup.exceptions import ConfigError, StoreError
from neardup.stores._url import StoreURL, parse_store_url, redis_client
from neardup.stores.base import Key, check_keys, decode_key, encode_key, prepare_groups

__all__ = ["ASSIGN_LUA", "RedisStore"]

_IDS = "ids"
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

# KEYS: kv, alias, size, ctr. ARGV[1]: one byte per document = its number of keys; then the keys.
# Returns the group id of each document, processing them in order exactly as assign_groups does.
ASSIGN_LUA = """
local kv, alias, size, ctr = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local counts = ARGV[1]
local out = {}
local pos = 2
for d = 1, #counts do
  local c = string.byte(counts, d)
  local fields = {}
  for i = 1, c do fields[i] = ARGV[pos + i - 1] end
  pos = pos + c
  local vals = redis.call('HMGET', kv, unpack(fields))
  local sid = nil
  local roots = {}
  for i = 1, c do
    local v = vals[i]
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
  local args = {}
  if sid == nil then
    sid = redis.call('HINCRBY', ctr, 'ids', 1)
    for i = 1, c do
      args[2 * i - 1] = fields[i]
      args[2 * i] = sid
    end
    redis.call('HSET', size, sid, 1)
  else
    local s = tostring(sid)
    local moved = 1
    for r, _ in pairs(roots) do
      if r ~= s then
        redis.call('HSET', alias, r, s)
        local n = redis.call('HGET', size, r)
        if n then
          moved = moved + tonumber(n)
          redis.call('HDEL', size, r)
        end
      end
    end
    redis.call('HINCRBY', size, s, moved)
    for i = 1, c do
      if vals[i] ~= s then
        args[#args + 1] = fields[i]
        args[#args + 1] = s
      end
    end
  end
  if #args > 0 then redis.call('HSET', kv, unpack(args)) end
  out[d] = sid
end
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


def _check_value(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not _I64_MIN <= value <= _I64_MAX:
        raise ConfigError(f"values must be signed 64-bit ints, got {value!r}")
    return value


class RedisStore:
    """A store in Redis under a key prefix. ``chunk`` documents go in each Lua call."""

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
            raise StoreError(f"store {self.url!r} is closed")
        if self._client_obj is None:
            with self._lock:
                if self._client_obj is None:
                    self._client_obj = redis_client(self._parsed, socket_timeout=self.socket_timeout)
                    self._scripts = {
                        "assign": self._client_obj.register_script(ASSIGN_LUA),
                        "resolve": self._client_obj.register_script(RESOLVE_LUA),
                    }
        return self._client_obj

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

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        mapping = {encode_key(k): _check_value(v) for k, v in items}
        self._call(lambda r: r.hset(self._keys[0], mapping=mapping), "put_many")

    def delete(self, key: Key) -> None:
        self._call(lambda r: r.hdel(self._keys[0], encode_key(key)), "delete")

    def incr(self, name: str, amount: int = 1) -> int:
        return int(self._call(lambda r: r.hincrby(self._keys[3], name, amount), "incr"))

    # -- groups ------------------------------------------------------------------------------
    def assign_many(self, groups: Sequence[Sequence[Key]]) -> list[int]:
        return self._assign_prepared(prepare_groups(groups))

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
                args: list[bytes] = [bytes(len(keys) for keys in part)]
                for keys in part:
                    args.extend(
                        b"i" + k.to_bytes(8, "big") if isinstance(k, int) else encode_key(k) for k in keys
                    )
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
