"""Store URLs: ``memory://``, ``file:///path``, ``leveldb:///path/db``, ``redis://host:6379/0?prefix=job``.

Parsing and the Redis connection live here so every store (key-value, URL seen-store, nshash)
reads URLs the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from neardup._deps import require
from neardup.exceptions import ConfigError

__all__ = ["StoreURL", "parse_store_url", "redis_client"]


@dataclass(frozen=True)
class StoreURL:
    scheme: str
    path: str  # filesystem path for file/leveldb/sqlite; "" for memory
    params: dict[str, str] = field(default_factory=dict)
    raw: str = ""

    def redacted(self) -> str:
        """The URL with any password replaced by ***, for messages and logs."""
        parts = urlsplit(self.raw)
        if parts.password:
            netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
            return urlunsplit(parts._replace(netloc=netloc))
        return self.raw


def parse_store_url(url: str, valid_schemes: tuple[str, ...]) -> StoreURL:
    """Split a store URL and check its scheme against ``valid_schemes``.

    A bare path (no scheme) is taken as the first file-like scheme listed.

    >>> parse_store_url("leveldb:///tmp/db?sync=1", ("memory", "leveldb")).path
    '/tmp/db'
    """
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(
            f"store URL must be a non-empty string such as {valid_schemes[0]}://..., got {url!r}"
        )
    if "://" not in url:
        file_like = [s for s in valid_schemes if s not in ("memory", "redis", "rediss", "unix")]
        if not file_like:
            raise ConfigError(f"store URL {url!r} has no scheme; valid schemes: {', '.join(valid_schemes)}")
        path, _, query = url.partition("?")
        return StoreURL(file_like[0], path, dict(parse_qsl(query)), f"{file_like[0]}://{url}")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in valid_schemes:
        raise ConfigError(
            f"unknown store scheme {scheme!r} in {url!r}; valid schemes: "
            + ", ".join(f"{s}://" for s in valid_schemes)
        )
    params = dict(parse_qsl(parts.query))
    if scheme in ("redis", "rediss", "unix"):
        return StoreURL(scheme, parts.path, params, url)
    # file-like: leveldb:///abs/path or leveldb://relative/path
    path = (parts.netloc + parts.path) if parts.netloc else parts.path
    if scheme != "memory" and not path:
        raise ConfigError(f"store URL {url!r} names no path; expected {scheme}:///path/to/store")
    return StoreURL(scheme, path, params, url)


def redis_client(url: StoreURL | str, **kwargs: Any) -> Any:
    """A redis-py client for a redis:// URL (query parameters other than redis-py's are ignored)."""
    redis = require("redis", "redis", purpose="Redis stores")
    raw = url.raw if isinstance(url, StoreURL) else url
    parts = urlsplit(raw)
    ours = {"prefix", "job", "ttl", "recrawl_after", "bloom", "buckets", "capacity", "sync"}
    query = "&".join(f"{k}={v}" for k, v in parse_qsl(parts.query) if k not in ours)
    # rebuild by hand: urlunsplit turns unix:///path into unix:/path, which redis-py refuses
    clean = f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{query}" if query else "")
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise ConfigError(f"store URL {raw!r} has a malformed port; expected redis://host:6379/0") from None
    kwargs.setdefault("socket_connect_timeout", 5)
    kwargs.setdefault("health_check_interval", 30)
    try:
        return redis.Redis.from_url(clean, **kwargs)
    except ValueError as exc:
        raise ConfigError(f"store URL {raw!r} is not a valid Redis URL: {exc}") from None
