"""The shared log of a ContentSeen fleet in Redis: one Stream per crawl job (``redis://host:6379/0?prefix=job``).

Three keys under the prefix P (default ``neardup:fleet``):

* ``P:log``  the Stream; entry number n has the stream id ``0-n`` and one field ``d`` (the entry's
  bytes, :class:`~neardup.contentseen.fleet.LogEntry`);
* ``P:meta`` a hash: ``epoch`` (a random id set by the first member), ``settings`` (the digest of
  the engine configuration every member must share), ``n`` (the last entry number);
* ``P:urls`` a hash: URL -> ``"n ms exactkey"`` of its last entry (retries, see the fleet module).

An append is one Lua script (atomic, one round trip): check the epoch, look the URL up, then
``HINCRBY n`` and ``XADD 0-n``. Numbering and appending are one step, so no entry number is ever
handed out without its entry being in the stream, and the numbers have no gaps. A read is one Lua
script too (check the epoch, ``XRANGE``). The epoch catches a Redis that lost the log (restarted
without persistence, keys deleted, a failover to a replica that had not received it): its members'
states describe a log that no longer exists, so every call is refused with StoreError until they
are restarted (a restarted member replays the log Redis has).

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
from neardup.stores._url import StoreURL, parse_store_url, redis_client

__all__ = ["APPEND_LUA", "READ_LUA", "RedisLog"]

_EPOCH_ERROR = "NEARDUP_EPOCH"

# KEYS: log, meta, urls. ARGV: epoch, url, exact key (hex), now (ms), retry window (ms), payload.
# Returns {n, 1} for a new entry, {n, 0} for a retry of the URL's last entry.
APPEND_LUA = """
if redis.call('HGET', KEYS[2], 'epoch') ~= ARGV[1] then
  return redis.error_reply('NEARDUP_EPOCH the log was reset')
end
local prev = redis.call('HGET', KEYS[3], ARGV[2])
if prev then
  local n, ms, raw = string.match(prev, '^(%d+) (%d+) (%x+)$')
  if raw == ARGV[3] and tonumber(ARGV[4]) - tonumber(ms) <= tonumber(ARGV[5]) then
    return {tonumber(n), 0}
  end
end
local n = redis.call('HINCRBY', KEYS[2], 'n', 1)
redis.call('XADD', KEYS[1], '0-' .. n, 'd', ARGV[6])
redis.call('HSET', KEYS[3], ARGV[2], n .. ' ' .. ARGV[4] .. ' ' .. ARGV[3])
return {n, 1}
"""

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
        if not 0 < socket_timeout <= 3600:
            raise ConfigError(f"socket_timeout must be between 0 and 3600 seconds, got {socket_timeout}")
        if not retry_window >= 0:
            raise ConfigError(f"retry_window must be >= 0 seconds, got {retry_window}")
        self.socket_timeout = socket_timeout
        self.retry_window = retry_window
        self.prefix = self._parsed.params.get("prefix") or "neardup:fleet"
        p = self.prefix
        self.keys = {"log": f"{p}:log", "meta": f"{p}:meta", "urls": f"{p}:urls"}
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
                    if self._parsed.scheme == "unix":
                        client = self._redis.Redis(
                            unix_socket_path=self._parsed.path,
                            db=int(self._parsed.params.get("db", "0")),
                            password=self._parsed.params.get("password"),
                            socket_connect_timeout=min(5.0, self.socket_timeout),
                            socket_timeout=self.socket_timeout,
                        )
                    else:
                        client = redis_client(
                            self._parsed,
                            socket_timeout=self.socket_timeout,
                            socket_connect_timeout=min(5.0, self.socket_timeout),
                        )
                    self._scripts = {
                        "append": client.register_script(APPEND_LUA),
                        "read": client.register_script(READ_LUA),
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
        args = [epoch, url, f"{raw:x}", int(ts * 1000), int(self.retry_window * 1000), payload]
        n, fresh = self._call(
            "appending", lambda r: self._scripts["append"](keys=list(self.keys.values()), args=args, client=r)
        )
        return int(n), bool(fresh)

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
