"""Redis seen-store, shared by many crawl workers: 64-bit URL hashes packed into many small strings.

Layout of job ``108`` with the default prefix ``neardup:u:``::

    neardup:u:108:meta            hash: v, mode, gen, bits, created, ttl, n (URLs), recrawled
    neardup:u:108:<gen>:<bucket>  string of fixed-size records: the low 56 (48 when bits >= 16)
                                  bits of the URL hash as 7 (6) bytes, then the last-fetch second
                                  as 4 bytes (big-endian)

``bucket`` is the top ``bits`` bits of the hash (2**bits bucket keys), so the bucket plus the
record's key bytes hold all 64 bits. Buckets are sized to hold about 1,024 records at the job's
``capacity``: 11 bytes a URL plus APPEND's spare room and the key's share.

Each batch is one EVALSHA of a Lua script (atomic): it reads the job's meta (starting a new
generation when the job-level ttl has passed); the client has sorted the batch by bucket, and per
bucket the script GETs the string once, finds each URL's record with a plain substring search
(aligned to the record size), APPENDs the new records in one call and SETRANGEs the fetch time
of URLs due for re-crawl. No Redis call per URL: that is what makes a batch cheap. It returns the
flags as a string of '0'/'1'. Equal URLs within a batch are collapsed by the client (only the
first can be True). The result is kept for 120 s under a batch token, so a retry after a lost
reply (Redis restarted, connection dropped) returns the same flags instead of reporting the URLs
as already seen. APPEND and SETRANGE propagate only the new bytes to the AOF and replicas.
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from neardup._deps import require
from neardup.exceptions import ConfigError, StoreError
from neardup.stores._url import StoreURL, redis_client
from neardup.urls.seen import JobClock, StoreInfo

__all__ = ["DEFAULT_PREFIX", "RedisSeenStore", "bucket_bits_for"]

DEFAULT_PREFIX = "neardup:u:"
DEFAULT_CAPACITY = 1_000_000
_PER_BUCKET = 1024  # target records per bucket string at the job's capacity
_VERSION = "2"
_TOKEN_TTL_MS = 120_000

# KEYS[1] meta
# ARGV 1 base, 2 now, 3 now_s, 4 recrawl, 5 ttl, 6 bits, 7 gen candidate, 8 token, 9 keys blob,
#      10 groups blob (bucket u32, count u32, big-endian), 11 token ttl ms
_CHECK = (
    """
local meta = KEYS[1]
local base = ARGV[1]
local tokkey = base .. 'ack:' .. ARGV[8]
local done = redis.call('GET', tokkey)
if done then return done end
local now = tonumber(ARGV[2])
local now_s = tonumber(ARGV[3])
local recrawl = tonumber(ARGV[4])
local m = redis.call('HMGET', meta, 'gen', 'bits', 'created', 'ttl', 'v')
local gen, bits, created, ttl = m[1], m[2], tonumber(m[3]), tonumber(m[4])
if gen and (bits ~= ARGV[6] or m[5] ~= '"""
    + _VERSION
    + """') then
  return redis.error_reply('job meta ' .. meta .. ' has bits=' .. tostring(bits) .. ' v=' .. tostring(m[5]) ..
                           ', this client sent bits=' .. ARGV[6] .. ' v="""
    + _VERSION
    + """')
end
if (not gen) or (ttl and now >= created + ttl) then
  gen = ARGV[7]
  created = now
  ttl = tonumber(ARGV[5])
  redis.call('DEL', meta)
  redis.call('HSET', meta, 'v', '"""
    + _VERSION
    + """', 'mode', 'exact', 'gen', gen, 'bits', ARGV[6],
             'created', ARGV[2], 'n', '0', 'recrawled', '0')
  if ttl then
    redis.call('HSET', meta, 'ttl', ARGV[5])
    redis.call('PEXPIRE', meta, math.ceil(ttl * 1000))
  end
end
local kblob = ARGV[9]
local gblob = ARGV[10]
local kb = 7
if tonumber(ARGV[6]) >= 16 then kb = 6 end
local rec = kb + 4
local tsb = struct.pack('>I4', now_s)
local kbase = base .. gen .. ':'
local left = 0
if ttl then
  left = math.ceil((created + ttl - now) * 1000)
  if left < 1 then left = 1 end
end
local out = {}
local o = 0
local kpos = 1
local added, due = 0, 0
local find, sub = string.find, string.sub
for g = 1, #gblob / 8 do
  local bucket, cnt = struct.unpack('>I4I4', gblob, g * 8 - 7)
  local key = kbase .. bucket
  local blob = redis.call('GET', key) or ''
  local add = {}
  local na = 0
  for j = 1, cnt do
    local k = sub(kblob, kpos, kpos + kb - 1)
    kpos = kpos + kb
    local p = find(blob, k, 1, true)
    while p and (p - 1) % rec ~= 0 do p = find(blob, k, p + 1, true) end
    local flag = '0'
    if not p then
      flag = '1'
      na = na + 1
      add[na] = k .. tsb
    elseif recrawl and now_s - struct.unpack('>I4', blob, p + kb) >= recrawl then
      flag = '1'
      due = due + 1
      redis.call('SETRANGE', key, p - 1 + kb, tsb)
    end
    out[o + j] = flag
  end
  o = o + cnt
  if na > 0 then
    redis.call('APPEND', key, table.concat(add))
    added = added + na
  end
  if ttl and (na > 0 or due > 0) then redis.call('PEXPIRE', key, left) end
end
if added > 0 then redis.call('HINCRBY', meta, 'n', added) end
if due > 0 then redis.call('HINCRBY', meta, 'recrawled', due) end
local res = table.concat(out)
redis.call('SET', tokkey, res, 'PX', ARGV[11])
return res
"""
)

# KEYS[1] meta; ARGV 1 base, 2 now, 3 keys blob, 4 groups blob
_FORGET = """
local meta = KEYS[1]
local m = redis.call('HMGET', meta, 'gen', 'bits', 'created', 'ttl')
local gen, bits, created, ttl = m[1], tonumber(m[2]), tonumber(m[3]), tonumber(m[4])
local now = tonumber(ARGV[2])
if (not gen) or (ttl and now >= created + ttl) then return 0 end
local kb = 7
if bits >= 16 then kb = 6 end
local rec = kb + 4
local kblob, gblob = ARGV[3], ARGV[4]
local kbase = ARGV[1] .. gen .. ':'
local removed = 0
local kpos = 1
for g = 1, #gblob / 8 do
  local bucket, cnt = struct.unpack('>I4I4', gblob, g * 8 - 7)
  local key = kbase .. bucket
  local blob = redis.call('GET', key) or ''
  local changed = false
  for j = 1, cnt do
    local k = string.sub(kblob, kpos, kpos + kb - 1)
    kpos = kpos + kb
    local p = string.find(blob, k, 1, true)
    while p and (p - 1) % rec ~= 0 do p = string.find(blob, k, p + 1, true) end
    if p then
      blob = string.sub(blob, 1, p - 1) .. string.sub(blob, p + rec)
      removed = removed + 1
      changed = true
    end
  end
  if changed then
    if #blob == 0 then redis.call('DEL', key) else redis.call('SET', key, blob, 'KEEPTTL') end
  end
end
if removed > 0 then redis.call('HINCRBY', meta, 'n', -removed) end
return removed
"""


def bucket_bits_for(capacity: int, per_bucket: int = _PER_BUCKET) -> int:
    """Bucket bits so that ``capacity`` URLs make about ``per_bucket`` records a bucket (8..24).

    >>> bucket_bits_for(1_000_000)
    10
    """
    return int(min(24, max(8, math.ceil(math.log2(max(capacity, 1) / per_bucket)))))


def _group(hashes: np.ndarray[Any, Any], bits: int) -> tuple[bytes, bytes, np.ndarray[Any, Any]]:
    """Sort a batch by bucket: (fields blob, (bucket, count) pairs blob, the sort order)."""
    buckets = (hashes >> np.uint64(64 - bits)).astype(np.uint32)
    order = np.argsort(buckets, kind="stable")
    sb = buckets[order]
    fb = 6 if bits >= 16 else 7
    fields = hashes[order].astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - fb :].tobytes()
    uniq, counts = np.unique(sb, return_counts=True)
    groups = np.stack([uniq, counts.astype(np.uint32)], axis=1).astype(">u4").tobytes()
    return fields, groups, order


class _Batch:
    """One check-and-add batch as sent: the script's arguments, and the mapping of its reply (one
    '0'/'1' per distinct hash, in bucket order) back to one flag per input hash."""

    __slots__ = ("args", "first", "n", "order")

    def __init__(
        self, args: list[Any], n: int, order: np.ndarray[Any, Any], first: np.ndarray[Any, Any] | None
    ) -> None:
        self.args, self.n, self.order, self.first = args, n, order, first

    def flags(self, res: bytes) -> np.ndarray[Any, Any]:
        flags = np.empty(self.order.shape[0], dtype=np.bool_)
        flags[self.order] = np.frombuffer(res, dtype=np.uint8) == ord("1")
        if self.first is None:
            return flags
        out = np.zeros(self.n, dtype=np.bool_)
        out[self.first] = flags
        return out


def _glob_escape(s: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in s)


class RedisSeenStore:
    """The Redis backend of :class:`~neardup.urls.seen.SeenURLs` (exact mode).

    Store URL: ``redis://[:password@]host:port/db?prefix=neardup:u:&buckets=16384``; ``buckets`` is
    fixed when the job is created (default: sized from ``capacity``, 1,000,000 URLs).
    """

    kind = "redis"

    def __init__(
        self,
        url: StoreURL,
        job_id: str,
        job: JobClock,
        *,
        capacity: int | None = None,
        now: float | None = None,
        buckets: int | None = None,
        retry_seconds: float = 30.0,
        client: Any = None,
    ) -> None:
        self.url = url
        self.job_id = job_id
        self.job = job
        self.prefix = url.params.get("prefix", DEFAULT_PREFIX)
        self.base = f"{self.prefix}{job_id}:"
        self.meta_key = f"{self.base}meta"
        self.retry_seconds = float(retry_seconds)
        buckets_v = buckets if buckets is not None else url.params.get("buckets")
        self._explicit_bits: int | None = None
        if buckets_v is not None:
            try:
                b = int(float(buckets_v))
            except (TypeError, ValueError, OverflowError):
                b = 0
            if b < 256 or b > 1 << 24 or b & (b - 1):
                raise ConfigError(f"buckets must be a power of two in [256, 16777216], got {buckets_v!r}")
            self._explicit_bits = b.bit_length() - 1
        self.capacity = capacity or DEFAULT_CAPACITY
        self._client = client
        self._check_script: Any = None
        self._forget_script: Any = None
        self._pipe_conn: Any = None  # the connection batches are pipelined on (``submit``)
        self._sent: deque[_Batch] = deque()  # submitted batches whose replies are unread, in order
        self._replies: dict[_Batch, Any] = {}  # replies read for batches not yet collected
        self._owns_client = client is None
        self._connect()
        self.bits = self._explicit_bits or bucket_bits_for(self.capacity)
        self._check_meta()

    # -- connection --------------------------------------------------------------------------------

    def _connect(self) -> None:
        if self._client is None:
            self._client = redis_client(self.url)
        self._check_script = self._client.register_script(_CHECK)
        self._forget_script = self._client.register_script(_FORGET)
        self._pipe_conn, self._sent, self._replies = None, deque(), {}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(
            _client=None, _check_script=None, _forget_script=None, _pipe_conn=None, _owns_client=True
        )
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._connect()

    #: whether a call ever went through: until then a refused connection is a wrong URL or a
    #: server that is not running, reported at once rather than retried
    _reached = False

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn``; on connection loss retry for up to ``retry_seconds``, then raise StoreError.

        A store that never answered (the first call fails to connect) raises at once."""
        redis = require("redis", "redis", purpose="the Redis seen-store")
        errors = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.05
        while True:
            try:
                result = fn(*args, **kwargs)
                self._reached = True
                return result
            except errors as exc:
                if not self._reached:
                    raise StoreError(
                        f"Redis at {self.url.redacted()} is unreachable ({exc}); is redis-server "
                        "running there? check the host, port and password of the URL"
                    ) from exc
                if time.monotonic() + delay > deadline:
                    raise StoreError(
                        f"Redis at {self.url.redacted()} unreachable for {what} after "
                        f"{self.retry_seconds:g} s: {exc}"
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
            except redis.exceptions.RedisError as exc:
                raise StoreError(f"Redis at {self.url.redacted()} failed {what}: {exc}") from exc

    def _meta(self) -> dict[str, str]:
        raw = self._call("reading the job meta", self._client.hgetall, self.meta_key)
        return {k.decode(): v.decode() for k, v in raw.items()}

    def _check_meta(self) -> None:
        meta = self._meta()
        if not meta:
            return
        if meta.get("v") != _VERSION or meta.get("mode") != "exact":
            raise ConfigError(
                f"job {self.job_id!r} at {self.url.redacted()} holds {meta.get('mode')!r} data of version "
                f"{meta.get('v')!r}; this client expects exact mode version {_VERSION}. Use the same mode "
                "or another job"
            )
        bits = int(meta["bits"])
        if self._explicit_bits is not None and bits != self._explicit_bits:
            raise ConfigError(
                f"job {self.job_id!r} was created with buckets={1 << bits}, got buckets={1 << self._explicit_bits}; "
                "drop buckets= or call forget_job() first"
            )
        self.bits = bits
        job_ttl = float(meta["ttl"]) if meta.get("ttl") else None
        if self.job.ttl is not None and job_ttl != self.job.ttl:
            raise ConfigError(
                f"job {self.job_id!r} was created with ttl={job_ttl}, got ttl={self.job.ttl:g}; "
                "pass the same ttl, or forget_job() to start over"
            )

    # -- the protocol ------------------------------------------------------------------------------

    def _batch(self, hashes: np.ndarray[Any, Any], now: float) -> _Batch:
        """The EVALSHA arguments of one batch, with what turns its reply into flags."""
        # equal hashes within a batch: only the first is sent (and can be True)
        n = hashes.shape[0]
        uniq, first_idx = np.unique(hashes, return_index=True)
        first: np.ndarray[Any, Any] | None = None
        if uniq.shape[0] != n:
            first = np.sort(first_idx)
            hashes = hashes[first]
        fields, groups, order = _group(hashes, self.bits)
        gen = "0" if self.job.ttl is None else f"{int(now * 1000):x}"
        recrawl = "" if self.job.recrawl_after is None else str(math.ceil(self.job.recrawl_after))
        ttl = "" if self.job.ttl is None else repr(float(self.job.ttl))
        token = os.urandom(9).hex()
        args = [
            self.base,
            repr(float(now)),
            str(self.job.seconds(now)),
            recrawl,
            ttl,
            str(self.bits),
            gen,
            token,
            fields,
            groups,
            str(_TOKEN_TTL_MS),
        ]
        return _Batch(args, n, order, first)

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        batch = self._batch(hashes, now)
        return batch.flags(self._run(batch))

    def _run(self, batch: _Batch) -> Any:
        """One batch's reply, through the script object (loads the script when Redis lacks it);
        retried on connection loss with the same token, so an applied batch answers as it did."""
        return self._call("check_and_add", self._check_script, keys=[self.meta_key], args=batch.args)

    def submit(self, hashes: np.ndarray[Any, Any], now: float) -> Callable[[], np.ndarray[Any, Any]]:
        """Send one batch without waiting for its reply; the returned function waits for it and
        gives the flags. Batches submitted in a row are pipelined on one connection (replies come
        in the order sent), so the caller can prepare the next batch while Redis runs this one.
        Callers serialize ``submit`` and the returned functions (``SeenURLs`` holds its lock)."""
        batch = self._batch(hashes, now)
        try:
            if self._pipe_conn is None:
                self._pipe_conn = self._client.connection_pool.get_connection()
            self._pipe_conn.send_command("EVALSHA", self._check_script.sha, 1, self.meta_key, *batch.args)
        except Exception:
            self._drop_pipe()
            return lambda: batch.flags(self._run(batch))
        self._sent.append(batch)
        return lambda: batch.flags(self._reply(batch))

    def _reply(self, batch: _Batch) -> Any:
        """The reply of a submitted batch, reading (and keeping) the replies sent before it. On any
        failure (connection lost, script not loaded) the unread batches are run again through
        ``_run`` with their tokens, which is safe whether or not they were applied."""
        while batch in self._sent:
            try:
                res = self._pipe_conn.read_response()
            except Exception:
                self._drop_pipe()
                break
            self._replies[self._sent.popleft()] = res
        if not self._sent and self._pipe_conn is not None:  # nothing pending: back to the pool
            self._client.connection_pool.release(self._pipe_conn)
            self._pipe_conn = None
        res = self._replies.pop(batch, None)
        return self._run(batch) if res is None else res

    def _drop_pipe(self) -> None:
        conn, self._pipe_conn = self._pipe_conn, None
        self._sent.clear()
        if conn is not None:
            conn.disconnect()
            self._client.connection_pool.release(conn)

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        fields, groups, _ = _group(np.unique(hashes), self.bits)
        args = [self.base, repr(float(now)), fields, groups]
        return int(self._call("forget", self._forget_script, keys=[self.meta_key], args=args))

    def forget_job(self) -> None:
        pattern = _glob_escape(self.base) + "*"

        def run() -> None:
            batch: list[bytes] = []
            for key in self._client.scan_iter(match=pattern, count=2000):
                batch.append(key)
                if len(batch) >= 1000:
                    self._client.unlink(*batch)
                    batch = []
            if batch:
                self._client.unlink(*batch)

        self._call("forget_job", run)

    def live_meta(self, now: float) -> tuple[dict[str, str], float | None, float | None]:
        """The job's meta, creation time and ttl; an expired job reads as empty (the next check
        starts a new generation)."""
        meta = self._meta()
        created = float(meta["created"]) if meta.get("created") else None
        ttl = float(meta["ttl"]) if meta.get("ttl") else None
        if created is not None and ttl is not None and now >= created + ttl:
            meta, created = {}, None
        return meta, created, ttl

    def info(self, now: float) -> StoreInfo:
        meta, created, ttl = self.live_meta(now)
        extra: dict[str, Any] = {
            "buckets": 1 << int(meta.get("bits", self.bits)),
            "recrawled": int(meta.get("recrawled", 0)),
            "ttl": ttl if ttl is not None else self.job.ttl,
            "redis_prefix": self.base,
        }
        if created is not None and ttl is not None:
            extra["expires_at"] = created + ttl
        return StoreInfo(urls=int(meta.get("n", 0)), created=created, extra=extra)

    def close(self) -> None:
        if self._client is not None:
            self._drop_pipe()
        if self._client is not None and self._owns_client:
            self._client.close()
        self._client = None
