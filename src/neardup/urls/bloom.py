"""Bloom-filter mode for jobs of billions of URLs: ~1.8 bytes a URL at a 0.1% false-positive rate.

A false positive means ``check_and_add`` returns False for a URL that was never fetched: the URL is
**silently skipped**. With ``capacity`` n and rate p the filter has m = -n ln p / (ln 2)^2 bits and
k = round(m/n ln 2) hash positions (double hashing from the 64-bit URL hash). Past capacity the
rate climbs fast: at 2n URLs a p = 0.001 filter answers wrongly 5.6% of the time; watch
``stats()["fp_rate_now"]``. No ``forget`` and no
``recrawl_after`` (a Bloom filter cannot remove entries nor keep times); the job-level ``ttl`` works.

Backends: ``memory://?bloom=0.001`` (a numpy bit array, C loops: :mod:`neardup.urls._kernels`) and ``redis://...?bloom=0.001``
(bitmaps of at most 2**31 bits each, BITFIELD SET from a Lua script, one round trip a batch).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup.exceptions import ConfigError
from neardup.stores._url import StoreURL
from neardup.stores.schemes import backend, schemes
from neardup.urls import _kernels as K
from neardup.urls.seen import JobClock, StoreInfo

if TYPE_CHECKING:
    from neardup.urls.seen import SeenStore, SeenURLs

__all__ = ["BloomParams", "MemoryBloomStore", "RedisBloomStore", "bloom_params", "open_bloom_store"]

_SHARD_BITS = 1 << 31  # at most 256 MiB per Redis string (its limit is 512 MiB)
_DEFAULT_CAPACITY = 10_000_000
#: the largest filter built: 64 GiB holds ~38 billion URLs at 0.1%; beyond it a typo in capacity
#: would take the machine's (or the Redis server's) memory
MAX_BLOOM_BYTES = 64 << 30


class BloomParams:
    """Size of a Bloom filter: total bits ``m`` split into ``shards`` of ``shard_bits``, ``k`` hashes."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        if capacity < 1:
            raise ConfigError(f"capacity must be >= 1 URL, got {capacity}")
        if not 0 < error_rate < 1:
            raise ConfigError(f"bloom error rate must be in (0, 1), got {error_rate}")
        self.capacity = int(capacity)
        self.error_rate = float(error_rate)
        m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(m / capacity * math.log(2)))
        self.shards = max(1, math.ceil(m / _SHARD_BITS))
        self.shard_bits = max(64, (math.ceil(m / self.shards) + 63) // 64 * 64)
        self.m = self.shard_bits * self.shards
        if self.m // 8 > MAX_BLOOM_BYTES:
            raise ConfigError(
                f"a Bloom filter for capacity={capacity} at error rate {error_rate} would take "
                f"{self.m // 8:,} bytes ({self.m / 8 / 2**30:,.0f} GiB), over the {MAX_BLOOM_BYTES >> 30} GiB limit; "
                "lower capacity, raise the error rate or split the job"
            )

    def fp_rate(self, n: int) -> float:
        """Expected false-positive rate after ``n`` insertions."""
        return float((1.0 - math.exp(-self.k * n / self.m)) ** self.k)

    def as_dict(self) -> dict[str, Any]:
        return {
            "bloom_m": self.m,
            "bloom_k": self.k,
            "bloom_shards": self.shards,
            "bloom_capacity": self.capacity,
            "bloom_error_rate": self.error_rate,
        }


def bloom_params(capacity: int, error_rate: float) -> BloomParams:
    """Bits and hash count of a Bloom filter holding ``capacity`` keys at ``error_rate``.

    >>> p = bloom_params(1_000_000, 0.001); (p.k, round(p.m / 1e6, 2))
    (10, 14.38)
    """
    return BloomParams(capacity, error_rate)


class MemoryBloomStore:
    """In-process Bloom filter (``memory://?bloom=0.001&capacity=...``)."""

    kind = "memory-bloom"

    def __init__(self, job: JobClock, params: BloomParams) -> None:
        self.job = job
        self.params = params
        self._words = np.zeros(params.m // 64, dtype=np.uint64)
        self._n = 0
        self._created: float | None = None

    def _roll(self, now: float) -> None:
        if self._created is None or self.job.expired(self._created, now):
            if self._n:
                self._words[:] = 0
                self._n = 0
            self._created = now

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        self._roll(now)
        out = np.empty(hashes.shape[0], dtype=np.bool_)
        p = self.params
        self._n += int(K.bloom_check_add(self._words, hashes, p.k, p.shard_bits, p.shards, out))
        return out

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        raise ConfigError("forget() is not possible in Bloom mode (a Bloom filter cannot remove entries)")

    def forget_job(self) -> None:
        self._words[:] = 0
        self._n = 0
        self._created = None

    def info(self, now: float) -> StoreInfo:
        self._roll(now)
        extra = {**self.params.as_dict(), "fp_rate_now": self.params.fp_rate(self._n)}
        return StoreInfo(urls=self._n, created=self._created, bytes=int(self._words.nbytes), extra=extra)

    def close(self) -> None:
        pass


# KEYS[1] meta; ARGV 1 base, 2 now, 3 ttl, 4 gen candidate, 5 token, 6 blob, 7 k, 8 shard_bits,
# 9 shards, 10 capacity, 11 error rate, 12 token ttl ms
_BLOOM_CHECK = """
local meta = KEYS[1]
local base = ARGV[1]
local tokkey = base .. 'ack:' .. ARGV[5]
local done = redis.call('GET', tokkey)
if done then return done end
local now = tonumber(ARGV[2])
local k = tonumber(ARGV[7])
local m = redis.call('HMGET', meta, 'gen', 'created', 'ttl', 'mode', 'bloom_k', 'bloom_shard_bits')
local gen, created, ttl = m[1], tonumber(m[2]), tonumber(m[3])
if gen and (m[4] ~= 'bloom' or m[5] ~= ARGV[7] or m[6] ~= ARGV[8]) then
  return redis.error_reply('job meta ' .. meta .. ' disagrees with this client (mode/bloom size)')
end
local fresh = false
if (not gen) or (ttl and now >= created + ttl) then
  fresh = true
  gen = ARGV[4]
  created = now
  ttl = tonumber(ARGV[3])
  redis.call('DEL', meta)
  redis.call('HSET', meta, 'v', '1', 'mode', 'bloom', 'gen', gen, 'created', ARGV[2], 'n', '0',
             'bloom_k', ARGV[7], 'bloom_shard_bits', ARGV[8], 'bloom_shards', ARGV[9],
             'bloom_capacity', ARGV[10], 'bloom_error_rate', ARGV[11])
  if ttl then
    redis.call('HSET', meta, 'ttl', ARGV[3])
    redis.call('PEXPIRE', meta, math.ceil(ttl * 1000))
  end
end
local blob = ARGV[6]
local fmt = '>' .. string.rep('I4', k + 1)
local rec = 4 * (k + 1)
local kbase = base .. gen .. ':b'
if fresh then
  -- allocate each bitmap at its full size once: grown bit by bit, Redis would keep up to 2x spare room
  for sh = 0, tonumber(ARGV[9]) - 1 do
    redis.call('SETBIT', kbase .. sh, tonumber(ARGV[8]) - 1, 0)
    if ttl then redis.call('PEXPIRE', kbase .. sh, math.ceil(ttl * 1000)) end
  end
end
local n = #blob / rec
local per_call = math.max(1, math.floor(1000 / k))
-- one BITFIELD call per run of up to 1000/k URLs of the same shard (the client sorts by shard):
-- SET u1 <bit> 1 returns the old bit; a URL is new when any of its k old bits was 0
local out = {}
local added = 0
local touched = {}
local i = 1
while i <= n do
  local first = {struct.unpack(fmt, blob, (i - 1) * rec + 1)}
  local shard = first[1]
  local args = {}
  local j = i
  while j <= n and j - i < per_call do
    local v = {struct.unpack(fmt, blob, (j - 1) * rec + 1)}
    if v[1] ~= shard then break end
    for t = 2, k + 1 do
      args[#args + 1] = 'SET'
      args[#args + 1] = 'u1'
      args[#args + 1] = v[t]
      args[#args + 1] = 1
    end
    j = j + 1
  end
  local key = kbase .. shard
  local old = redis.call('BITFIELD', key, unpack(args))
  for u = 0, j - i - 1 do
    local new = false
    for t = 1, k do
      if old[u * k + t] == 0 then new = true end
    end
    if new then
      out[i + u] = '1'
      added = added + 1
    else
      out[i + u] = '0'
    end
  end
  touched[key] = true
  i = j
end
if ttl then
  local left = math.ceil((created + ttl - now) * 1000)
  if left < 1 then left = 1 end
  for key in pairs(touched) do redis.call('PEXPIRE', key, left) end
end
if added > 0 then redis.call('HINCRBY', meta, 'n', added) end
local res = table.concat(out)
redis.call('SET', tokkey, res, 'PX', ARGV[12])
return res
"""


class RedisBloomStore:
    """Shared Bloom filter in Redis bitmaps (``redis://host/0?bloom=0.001&capacity=1e9``)."""

    kind = "redis-bloom"

    def __init__(
        self,
        url: StoreURL,
        job_id: str,
        job: JobClock,
        params: BloomParams,
        *,
        retry_seconds: float = 30.0,
        client: Any = None,
    ) -> None:
        from neardup.urls.redis import RedisSeenStore

        self.params = params
        self.job = job
        # reuse the exact store's connection, retry and key handling; its meta check is replaced
        self._r = RedisSeenStore.__new__(RedisSeenStore)
        r = self._r
        r.url, r.job_id, r.job, r.retry_seconds = url, job_id, job, float(retry_seconds)
        r.prefix = url.params.get("prefix", "neardup:u:")
        r.base = f"{r.prefix}{job_id}:"
        r.meta_key = f"{r.base}meta"
        r._client, r._owns_client, r.bits = client, client is None, 8
        r._connect()
        self._script = r._client.register_script(_BLOOM_CHECK)
        meta = r._meta()
        if meta:
            if meta.get("mode") != "bloom":
                raise ConfigError(
                    f"job {job_id!r} at {url.redacted()} is in {meta.get('mode')!r} mode, not bloom; "
                    "use the same mode or another job"
                )
            if (int(meta["bloom_k"]), int(meta["bloom_shard_bits"])) != (params.k, params.shard_bits):
                raise ConfigError(
                    f"job {job_id!r} was created with bloom capacity={meta.get('bloom_capacity')} "
                    f"error rate={meta.get('bloom_error_rate')}; got capacity={params.capacity} "
                    f"error rate={params.error_rate}: pass the same values"
                )

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_script": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._script = self._r._client.register_script(_BLOOM_CHECK)

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        p = self.params
        n = hashes.shape[0]
        shard = np.empty(n, dtype=np.uint32)
        pos = np.empty((n, p.k), dtype=np.uint32)
        K.bloom_positions(hashes, p.k, p.shard_bits, p.shards, shard, pos)
        order = np.argsort(shard, kind="stable")  # runs of one shard: one BITFIELD call each
        blob = np.concatenate([shard[order, None], pos[order]], axis=1).astype(">u4").tobytes()
        gen = "0" if self.job.ttl is None else f"{int(now * 1000):x}"
        ttl = "" if self.job.ttl is None else repr(float(self.job.ttl))
        args = [
            self._r.base,
            repr(float(now)),
            ttl,
            gen,
            os.urandom(9).hex(),
            blob,
            str(p.k),
            str(p.shard_bits),
            str(p.shards),
            str(p.capacity),
            repr(p.error_rate),
            "120000",
        ]
        res = self._r._call("check_and_add", self._script, keys=[self._r.meta_key], args=args)
        flags = np.empty(n, dtype=np.bool_)
        flags[order] = np.frombuffer(res, dtype=np.uint8) == ord("1")
        return flags

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        raise ConfigError("forget() is not possible in Bloom mode (a Bloom filter cannot remove entries)")

    def forget_job(self) -> None:
        self._r.forget_job()

    def info(self, now: float) -> StoreInfo:
        meta, created, ttl = self._r.live_meta(now)
        n = int(meta.get("n", 0))
        extra = {
            **self.params.as_dict(),
            "fp_rate_now": self.params.fp_rate(n),
            "ttl": ttl or self.job.ttl,
            "redis_prefix": self._r.base,
        }
        if created is not None and ttl is not None:
            extra["expires_at"] = created + ttl
        return StoreInfo(urls=n, created=created, bytes=self.params.m // 8, extra=extra)

    def close(self) -> None:
        self._r.close()


def open_bloom_store(seen: SeenURLs, url: StoreURL, options: dict[str, Any]) -> SeenStore:
    """The Bloom backend for ``seen``'s scheme (memory or redis)."""
    assert seen.bloom is not None
    params = BloomParams(seen.capacity or _DEFAULT_CAPACITY, seen.bloom)
    if url.scheme not in schemes("bloom"):
        raise ConfigError(
            f"Bloom mode works with memory:// and redis:// stores, got {url.scheme}://; "
            "use exact mode for sqlite (it is on disk already)"
        )
    cls = backend(url.scheme, "bloom")
    if url.scheme == "memory":
        store: SeenStore = cls(seen.job_clock, params, **options)
    else:
        store = cls(url, seen.job_id, seen.job_clock, params, **options)
    return store
