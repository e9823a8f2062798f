"""Store URLs: ``memory://``, ``file:///path``, ``leveldb:///path/db``, ``redis://host:6379/0?prefix=job``.

Parsing, the Redis connection and every rewrite of a Redis URL's query string live here, so every
store (key-value, URL seen-store, ContentSeen's key map) reads URLs the same way.

Each store refuses a query parameter it does not read, naming the ones it does: a parameter that
belongs to another backend (``?sync=1`` on a Redis URL) would otherwise be taken and ignored. A
Redis store reads its own parameters and passes redis-py's (``socket_timeout``, ``db``...) on.

>>> check_query(parse_store_url("memory://?sync=1", ("memory",)), frozenset(), "a memory:// store")
Traceback (most recent call last):
neardup.exceptions.ConfigError: store URL 'memory://?sync=1' has unknown query parameter sync; a memory:// store reads none
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from neardup._deps import require
from neardup.exceptions import ConfigError

__all__ = [
    "NEARDUP_PARAMS",
    "SEEN_PARAMS",
    "StoreURL",
    "check_query",
    "check_redis_url",
    "parse_store_url",
    "redis_client",
    "redis_py_url",
    "with_prefix",
]

#: what the URL seen-stores (``neardup.urls``: SeenURLs and its Redis backends) read from a Redis URL
SEEN_PARAMS = frozenset({"prefix", "buckets", "recrawl_after", "ttl", "bloom", "capacity"})
_SEEN_STORE = "a Redis URL seen-store"

#: query parameters some neardup store reads from its URL; redis-py must not see them
NEARDUP_PARAMS = SEEN_PARAMS | {"sync"}


@dataclass(frozen=True)
class StoreURL:
    scheme: str
    path: str  # filesystem path for file/leveldb/sqlite; "" for memory
    params: dict[str, str] = field(default_factory=dict)
    raw: str = ""

    def query_names(self) -> set[str]:
        """Every query parameter's name, those given without a value (``?sync``, ``?job=``) too."""
        return {k for k, _ in parse_qsl(urlsplit(self.raw).query, keep_blank_values=True)}

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


def redis_py_url(raw: str) -> str:
    """The URL without neardup's own query parameters, for redis-py.

    >>> redis_py_url("redis://h:6379/0?prefix=p&socket_timeout=3")
    'redis://h:6379/0?socket_timeout=3'
    >>> redis_py_url("unix:///tmp/r.sock?db=2&prefix=p")
    'unix:///tmp/r.sock?db=2'
    """
    parts = urlsplit(raw)
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k not in NEARDUP_PARAMS])
    # rebuilt by hand: urlunsplit turns unix:///path into unix:/path, which redis-py refuses
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{query}" if query else "")


def with_prefix(url: str, suffix: str, default: str | None) -> str:
    """``url`` with its ``prefix`` parameter P turned into ``P:suffix`` (or ``default`` when it has none),
    so two stores sharing one Redis server never share keys.

    >>> with_prefix("redis://h:6379/0?prefix=crawl", "u:", "neardup:u:")
    'redis://h:6379/0?prefix=crawl%3Au%3A'
    >>> with_prefix("redis://h:6379/0", "cs", None)
    'redis://h:6379/0'
    """
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    if "prefix" in params:
        params["prefix"] = f"{params['prefix']}:{suffix}"
    elif default is not None:
        params["prefix"] = default
    else:
        return url
    return urlunsplit(parts._replace(query=urlencode(params)))


def check_query(url: StoreURL, reads: frozenset[str], store: str) -> None:
    """ConfigError naming each query parameter of ``url`` that ``store`` does not read, and the
    ones it does (for the stores that pass nothing on to a client library)."""
    unknown = sorted(url.query_names() - reads)
    if unknown:
        raise ConfigError(
            f"store URL {url.redacted()!r} has unknown query parameter {', '.join(unknown)}; "
            f"{store} reads {', '.join(sorted(reads)) or 'none'}"
        )


def redis_client(
    url: StoreURL | str, *, reads: frozenset[str] = SEEN_PARAMS, store: str = _SEEN_STORE, **kwargs: Any
) -> Any:
    """A redis-py client for a redis:// URL (neardup's query parameters are not passed on).

    ``reads`` are the query parameters ``store`` reads itself; any other that redis-py does not
    read either is refused (ConfigError). The defaults are the URL seen-stores', which connect
    through here without naming theirs.
    """
    redis = require("redis", "redis", purpose="Redis stores")
    raw = url.raw if isinstance(url, StoreURL) else url
    try:
        urlsplit(raw).port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise ConfigError(f"store URL {raw!r} has a malformed port; expected redis://host:6379/0") from None
    kwargs.setdefault("socket_connect_timeout", 5)
    kwargs.setdefault("health_check_interval", 30)
    try:
        client = redis.Redis.from_url(redis_py_url(raw), **kwargs)
    except ValueError as exc:
        raise ConfigError(f"store URL {raw!r} is not a valid Redis URL: {exc}") from None
    _check_redis_params(redis, client.connection_pool.connection_class, raw, reads, store)
    return client


def check_redis_url(url: StoreURL | str, *, reads: frozenset[str], store: str) -> None:
    """:func:`redis_client`'s checks of ``url``, without connecting: for a store that connects on
    first use, so that a bad URL is refused when the store is made."""
    redis_client(url, reads=reads, store=store).close()


def _init_params(cls: type) -> set[str] | None:
    """Keyword arguments ``cls(...)`` takes, following ``**kwargs`` up the MRO; None if open-ended."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return None
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            return names
    return None


def _check_redis_params(
    redis: Any, connection_class: type, raw: str, reads: frozenset[str], store: str
) -> None:
    """Refuse a query parameter neither ``store`` nor redis-py's connection reads: redis-py would
    only fail on one it does not know at the first command, with a TypeError, and a parameter of
    another neardup store (``sync``, or ``buckets`` where there are no buckets) would be ignored."""
    names = {k for k, _ in parse_qsl(urlsplit(raw).query, keep_blank_values=True)}
    # another store's parameters are never redis-py's, whatever its connection takes
    unknown = (names & NEARDUP_PARAMS) - reads
    accepted = _init_params(connection_class)
    parsed = getattr(getattr(redis, "connection", None), "URL_QUERY_ARGUMENT_PARSERS", {})
    if accepted is not None:
        accepted |= set(inspect.signature(redis.ConnectionPool.__init__).parameters) | set(parsed)
        unknown |= names - NEARDUP_PARAMS - accepted
    if unknown:
        redis_side = ", ".join(sorted(parsed)) or "its connection's keyword arguments"
        raise ConfigError(
            f"store URL {StoreURL('redis', '', raw=raw).redacted()!r} has unknown query parameter "
            f"{', '.join(sorted(unknown))}; {store} reads {', '.join(sorted(reads)) or 'none'}; "
            f"redis-py reads {redis_side} and the other keyword arguments of redis.Connection"
        )
