"""``SeenURLs``: has this crawl job already fetched this URL? One atomic check-and-add per URL or batch.

A URL is canonicalized (:func:`~neardup.urls.canonical.canonicalize_url`), hashed to 64 bits
(xxh3) and the hash, not the string, is kept in a backend chosen by the store URL:

=========================  ==========================================================
``memory://``              in-process numpy hash table (one process, gone at exit)
``sqlite:///path/seen.db`` embedded on-disk store; a bare path means the same
``redis://host:6379/0``    shared by many workers; many small hashes, Lua for atomicity
``...?bloom=0.001``        Bloom-filter mode (memory:// or redis://), for billions of URLs
=========================  ==========================================================

Two expiries: ``ttl`` (the whole job's set expires ``ttl`` seconds after the job started, and the
next check starts it afresh) and ``recrawl_after`` (a URL is due again ``recrawl_after`` seconds
after it was last fetched).

>>> seen = SeenURLs(108)
>>> seen.check_and_add("https://example.com/a?utm_source=x")
True
>>> seen.check_and_add_many(["https://EXAMPLE.com/a", "https://example.com/b", "https://example.com/b"])
[False, True, False]
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, Protocol

import numpy as np
import xxhash

from neardup.exceptions import ConfigError, InputError, StoreError
from neardup.stores._url import StoreURL, parse_store_url
from neardup.stores.schemes import backend, schemes
from neardup.urls.canonical import (
    DEFAULT_DROP_PARAMS,
    DEFAULT_MAX_URL_LENGTH,
    canonical_hash,
    canonical_hashes,
    canonicalize_url,
)

__all__ = [
    "STORE_SCHEMES",
    "JobClock",
    "SeenStore",
    "SeenURLs",
    "StoreInfo",
    "url_hashes",
]

log = logging.getLogger("neardup.urls")

#: Store URL schemes (from the one scheme table in neardup.stores); a bare path means sqlite.
STORE_SCHEMES = schemes("seen")

_JOB_ID = re.compile(r"[A-Za-z0-9_.-]{1,200}")
#: the query parameters each embedded backend reads from its store URL (Redis: see stores/_url.py)
_URL_PARAMS = {
    "memory": frozenset({"recrawl_after", "ttl", "bloom", "capacity"}),
    "sqlite": frozenset({"recrawl_after", "ttl", "bloom", "capacity", "sync"}),
}
_xxh3 = xxhash.xxh3_64_intdigest


def url_hashes(urls: Sequence[str]) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """64-bit xxh3 of each string's UTF-8 bytes, as a uint64 array (the key the stores keep).

    >>> int(url_hashes(["https://example.com/"])[0]) == xxhash.xxh3_64_intdigest(b"https://example.com/")
    True
    """
    return np.fromiter(map(_xxh3, map(str.encode, urls)), dtype=np.uint64, count=len(urls))


@dataclass(frozen=True)
class JobClock:
    """The job's two expiries, in seconds. ``ttl``: the whole job; ``recrawl_after``: each URL."""

    ttl: float | None = None
    recrawl_after: float | None = None

    def expired(self, created: float, now: float) -> bool:
        return self.ttl is not None and now >= created + self.ttl

    @staticmethod
    def seconds(now: float) -> int:
        """Whole seconds, as stored next to each URL (uint32: 1970..2106)."""
        s = math.floor(now)
        if not 0 <= s < 2**32:
            raise ConfigError(f"clock must return seconds in [0, 2**32), got {now!r}")
        return int(s)


@dataclass
class StoreInfo:
    """What a backend reports for ``stats()``."""

    urls: int | None
    created: float | None
    bytes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class SeenStore(Protocol):
    """A backend: keeps 64-bit URL hashes of one job. ``now`` comes from the job's clock."""

    kind: str

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        """Flags (bool array): True where a hash is new or due for re-crawl; all of them recorded."""
        ...

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        """Remove hashes; return how many were present."""
        ...

    def forget_job(self) -> None:
        """Remove everything of this job."""
        ...

    def info(self, now: float) -> StoreInfo: ...

    def close(self) -> None: ...


def _positive(name: str, value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number of seconds > 0 or None, got {value!r}") from None
    if not v > 0 or math.isinf(v):
        raise ConfigError(f"{name} must be a number of seconds > 0 or None, got {value!r}")
    return v


def _number(value: Any) -> float:
    """``value`` (a number or its text, not a bool) as a float; NaN for anything else."""
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _rate(value: Any) -> float | None:
    """The Bloom false-positive rate: None (exact mode) for None, "", 0; else a number in (0, 1)."""
    if value is None or value == "" or value == "0" or (value == 0 and not isinstance(value, bool)):
        return None
    v = _number(value)
    if not 0 < v < 1:
        raise ConfigError(
            f"bloom (false-positive rate) must be a number in (0, 1), e.g. 0.001, or None for exact mode, "
            f"got {value!r}"
        )
    return v


def _capacity(value: Any) -> int | None:
    if value is None or value == "":
        return None
    v = _number(value)
    if not 1 <= v < math.inf:
        raise ConfigError(f"capacity must be a number of URLs >= 1 such as 1e9, got {value!r}")
    return int(v)


def _merge(name: str, kwarg: Any, url: StoreURL) -> Any:
    """A setting from the keyword argument or the store URL's query; both must agree when both given."""
    in_url = url.params.get(name)
    if kwarg is None:
        return in_url
    if in_url is not None and str(in_url) != str(kwarg):
        try:
            same = float(in_url) == float(kwarg)
        except (TypeError, ValueError):
            same = False
        if not same:
            raise ConfigError(
                f"{name} is {kwarg!r} as an argument but {in_url!r} in the store URL {url.redacted()}; "
                "give it once"
            )
    return kwarg


class SeenURLs:
    """The URL seen-store of one crawl job.

    ``job_id``: int or str (letters, digits, ``_.-``). ``store``: a store URL (see the module doc).
    ``recrawl_after``: seconds after the last fetch when a URL is due again (None: never).
    ``ttl``: seconds after the job's first check when the whole job's set expires (None: never).
    ``bloom``: false-positive rate for Bloom mode (memory/redis), with ``capacity`` URLs.
    ``capacity``: expected URLs of the job (sizes Redis buckets and Bloom filters).
    ``drop_params``: query parameters to remove (names or ``*`` globs). ``canonicalize``: False to
    hash URLs exactly as given, or a function of your own. ``on_invalid``: ``"raise"`` an InputError
    naming every bad URL of a batch (nothing of that batch is recorded) or ``"skip"`` (a bad URL
    gets False: do not fetch it; counted as ``invalid`` in stats). ``clock``: seconds, for tests.

    >>> with SeenURLs("news", recrawl_after=3600, clock=lambda: 1000.0) as seen:
    ...     seen.check_and_add("https://example.com/1"), seen.check_and_add("https://example.com/1")
    (True, False)
    """

    def __init__(
        self,
        job_id: int | str,
        store: str = "memory://",
        recrawl_after: float | None = None,
        ttl: float | None = None,
        *,
        bloom: float | None = None,
        capacity: int | None = None,
        drop_params: Iterable[str] = DEFAULT_DROP_PARAMS,
        canonicalize: bool | Callable[[str], str] = True,
        on_invalid: Literal["raise", "skip"] = "raise",
        max_url_length: int = DEFAULT_MAX_URL_LENGTH,
        batch_size: int = 10_000,
        clock: Callable[[], float] = time.time,
        **store_options: Any,
    ) -> None:
        if isinstance(job_id, bool) or not isinstance(job_id, (int, str)):
            raise ConfigError(f"job_id must be an int or str, got {type(job_id).__name__}")
        job = str(job_id)
        if not _JOB_ID.fullmatch(job):
            raise ConfigError(f"job_id must be 1-200 characters of letters, digits and _.-, got {job_id!r}")
        self.job_id = job
        url = parse_store_url(store, STORE_SCHEMES)
        self.store_url = url
        self.recrawl_after = _positive("recrawl_after", _merge("recrawl_after", recrawl_after, url))
        self.ttl = _positive("ttl", _merge("ttl", ttl, url))
        known = _URL_PARAMS.get(url.scheme)
        unknown = sorted(url.query_names() - known) if known is not None else []
        if unknown:
            raise ConfigError(
                f"store URL {url.redacted()!r} has unknown query parameter {', '.join(unknown)}; "
                f"{url.scheme} stores read {', '.join(sorted(known or ()))}"
            )
        self.bloom = _rate(_merge("bloom", bloom, url))
        self.capacity = _capacity(_merge("capacity", capacity, url))
        if on_invalid not in ("raise", "skip"):
            raise ConfigError(f"on_invalid must be 'raise' or 'skip', got {on_invalid!r}")
        self.on_invalid = on_invalid
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive int, got {batch_size!r}")
        self.batch_size = batch_size
        if isinstance(drop_params, str):
            raise ConfigError(
                f"drop_params must be a collection of names, got the string {drop_params!r}; use [{drop_params!r}]"
            )
        try:
            self.drop_params = frozenset(drop_params)
        except TypeError:
            raise ConfigError(
                f"drop_params must be a collection of parameter names, got {type(drop_params).__name__}"
            ) from None
        not_str = [p for p in self.drop_params if not isinstance(p, str)]
        if not_str:
            raise ConfigError(f"drop_params must hold parameter names (str), got {not_str[0]!r}")
        if isinstance(max_url_length, bool) or not isinstance(max_url_length, int) or max_url_length < 1:
            raise ConfigError(f"max_url_length must be an int >= 1 (characters), got {max_url_length!r}")
        self.max_url_length = int(max_url_length)
        self._canon: Callable[[str], str] | None
        self._builtin_canon = canonicalize is True  # batches take the compiled kernel
        if canonicalize is True:
            self._canon = partial(
                canonicalize_url, drop_params=self.drop_params, max_length=self.max_url_length
            )
        elif canonicalize is False:
            self._canon = None
        elif callable(canonicalize):
            self._canon = canonicalize
        else:
            raise ConfigError(f"canonicalize must be True, False or a function, got {canonicalize!r}")
        if not callable(clock):
            raise ConfigError(f"clock must be a function returning seconds, such as time.time, got {clock!r}")
        self._clock = clock
        self._lock = threading.Lock()
        self._counts = {"checked": 0, "new": 0, "seen": 0, "invalid": 0}
        self._first_invalid_logged = False
        self.job_clock = JobClock(ttl=self.ttl, recrawl_after=self.recrawl_after)
        self._store: SeenStore = _open_backend(self, url, store_options)
        self._closed = False

    # -- the checks -------------------------------------------------------------------------------

    def canonical(self, url: str) -> str:
        """The key form of ``url`` under this job's settings (InputError if malformed)."""
        if not isinstance(url, str):
            one = "; pass one URL at a time" if isinstance(url, (list, tuple)) else ""
            raise InputError(f"URL must be a str, got {type(url).__name__}{one}")
        if self._canon is None:
            return url
        if self._builtin_canon:  # returns a str: no check on the per-call path
            return self._canon(url)
        return self._canonical_key(url)

    def _canonical_key(self, url: str) -> str:
        assert self._canon is not None
        key = self._canon(url)
        if not isinstance(key, str):
            raise TypeError(
                f"canonicalize ({getattr(self._canon, '__name__', self._canon)!r}) must return a str, "
                f"got {type(key).__name__} for {url!r}"
            )
        return key

    def check_and_add(self, url: str) -> bool:
        """True when ``url`` is new to this job or due for re-crawl (and records it as fetched now).

        A malformed URL raises InputError (or returns False with ``on_invalid="skip"``).
        """
        try:  # one URL: one compiled call for its hash, no batch machinery
            if self._builtin_canon:
                hv = canonical_hash(url, drop_params=self.drop_params, max_length=self.max_url_length)
            else:
                hv = _xxh3((url if self._canon is None else self._canon(url)).encode())
            h = np.array([hv], dtype=np.uint64)
        except (InputError, TypeError, AttributeError):
            return self.check_and_add_many([url])[0]  # names the problem, or counts it as invalid
        self._check_open()
        with self._lock:
            new = bool(self._store.check_and_add(h, self._clock())[0])
            counts = self._counts
            counts["checked"] += 1
            counts["new" if new else "seen"] += 1
        return new

    def check_and_add_many(self, urls: Iterable[str]) -> list[bool]:
        """One flag per URL, in order; atomic per batch of ``batch_size`` (one round trip each).

        Within a batch, only the first of equal URLs can be True.
        """
        items = _url_list(urls)
        hashes, bad = self._hashes(items)
        return self._flags_of(self.check_and_add_hashes(hashes), bad, len(items))

    def check_and_add_batches(self, batches: Iterable[Iterable[str]]) -> Iterator[list[bool]]:
        """``check_and_add_many`` of each batch, in order, with the next batch canonicalized while
        the store works on the previous one (Redis: the batch is sent without waiting for its reply,
        so the client's and the server's work overlap). Each batch keeps ``check_and_add_many``'s
        atomicity; a batch with invalid URLs raises (``on_invalid="raise"``) after the flags of the
        batch before it are given, and records nothing of its own.

        >>> with SeenURLs("stream") as seen:
        ...     list(seen.check_and_add_batches([["https://a.example/1"], ["https://a.example/1"]]))
        [[True], [False]]
        """
        submit = getattr(self._store, "submit", None)
        pending: Callable[[], list[bool]] | None = None  # the flags of the batch in flight
        if isinstance(batches, (str, bytes)):
            raise TypeError("batches must be an iterable of lists of URLs, got a str")
        for urls in batches:
            items = _url_list(urls)
            try:
                hashes, bad = self._hashes(items)
            except InputError:
                if pending is not None:
                    yield pending()
                raise
            if submit is None or hashes.shape[0] > self.batch_size:
                ready = self._flags_of(self.check_and_add_hashes(hashes), bad, len(items))
                wait: Callable[[], list[bool]] = partial(_ready, ready)
            else:
                self._check_open()
                with self._lock:
                    reply = submit(hashes, self._clock())
                wait = partial(self._collect, reply, bad, len(items))
            if pending is not None:
                yield pending()
            pending = wait
        if pending is not None:
            yield pending()

    def _collect(
        self, reply: Callable[[], np.ndarray[Any, Any]], bad: list[tuple[int, str, str]], n: int
    ) -> list[bool]:
        with self._lock:
            flags = reply()
            self._count(flags)
        return self._flags_of(flags, bad, n)

    def _hashes(self, items: list[str]) -> tuple[np.ndarray[Any, Any], list[tuple[int, str, str]]]:
        """The hashes of the valid URLs of a batch and the invalid ones (index, URL, why); raises
        InputError for invalid URLs with ``on_invalid="raise"``."""
        if self._canon is None:
            try:  # the fast path: hash as given
                return url_hashes(items), []
            except (TypeError, AttributeError):
                pass  # a non-str item: the slow path below names it
        built = self._builtin_hashes(items) if self._builtin_canon else None
        if built is not None:
            hashes, bad = built
            if bad:
                self._note_invalid(bad)
                if self.on_invalid == "raise":
                    self._raise_invalid(bad, len(items))
                keep = np.ones(len(items), dtype=np.bool_)
                keep[[i for i, _, _ in bad]] = False
                hashes = hashes[keep]
            return hashes, bad
        keys, bad = self._keys(items)
        if bad and self.on_invalid == "raise":
            self._raise_invalid(bad, len(items))
        return url_hashes(keys), bad

    def _flags_of(self, flags: np.ndarray[Any, Any], bad: list[tuple[int, str, str]], n: int) -> list[bool]:
        """One flag per input URL: the store's flags, False for the invalid ones (counted)."""
        if not bad:
            return flags.tolist()  # type: ignore[no-any-return]
        out = np.zeros(n, dtype=np.bool_)
        mask = np.ones(n, dtype=np.bool_)
        mask[[i for i, _, _ in bad]] = False
        out[mask] = flags
        with self._lock:
            self._counts["invalid"] += len(bad)
        return out.tolist()  # type: ignore[no-any-return]

    def _count(self, flags: np.ndarray[Any, Any]) -> None:
        n, n_true = flags.shape[0], int(np.count_nonzero(flags))
        counts = self._counts
        counts["checked"] += n
        counts["new"] += n_true
        counts["seen"] += n - n_true

    def check_and_add_hashes(self, hashes: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The low-level check on precomputed 64-bit hashes (``url_hashes`` of canonical URLs)."""
        hashes = _uint64s(hashes)
        self._check_open()
        n = hashes.shape[0]
        with self._lock:
            if n <= self.batch_size:
                flags = self._store.check_and_add(hashes, self._clock())
            else:
                parts = [
                    self._store.check_and_add(hashes[start : start + self.batch_size], self._clock())
                    for start in range(0, n, self.batch_size)
                ]
                flags = np.concatenate(parts)
            self._count(flags)
        return flags

    def forget(self, url: str) -> bool:
        """Remove ``url`` so its next check is True again; True if it was recorded."""
        self._check_open()
        h = url_hashes([self.canonical(url)])
        with self._lock:
            return self._store.forget(h, self._clock()) > 0

    def forget_job(self) -> None:
        """Remove every URL of this job from the store."""
        self._check_open()
        with self._lock:
            self._store.forget_job()

    def stats(self) -> dict[str, Any]:
        """Settings, the store's URL count and this client's counters (checked/new/seen/invalid)."""
        self._check_open()
        with self._lock:
            info = self._store.info(self._clock())
            counts = dict(self._counts)
        expires = None if info.created is None or self.ttl is None else info.created + self.ttl
        out: dict[str, Any] = {
            "job": self.job_id,
            "store": self.store_url.redacted(),
            "backend": self._store.kind,
            "mode": "bloom" if self.bloom is not None else "exact",
            "urls": info.urls,
            "recrawl_after": self.recrawl_after,
            "ttl": self.ttl,
            "created": info.created,
            "expires_at": expires,
            "bytes": info.bytes,
            **info.extra,
            **counts,
        }
        return out

    def close(self) -> None:
        """Release the store (idempotent)."""
        if not self._closed:
            self._closed = True
            self._store.close()

    def __enter__(self) -> SeenURLs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (to ship to Spark/multiprocessing workers): Redis/SQLite reconnect on arrival."""
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        mode = f"bloom={self.bloom}" if self.bloom is not None else "exact"
        return f"SeenURLs(job={self.job_id!r}, store={self.store_url.redacted()!r}, {mode})"

    # -- internals ---------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"the seen-store of job {self.job_id!r} is closed")

    def _builtin_hashes(
        self, items: list[str]
    ) -> tuple[np.ndarray[Any, Any], list[tuple[int, str, str]]] | None:
        """Hashes of the built-in canonical forms in one compiled pass; None if an item is not a str."""
        try:
            hashes, bad = canonical_hashes(
                items, drop_params=self.drop_params, max_length=self.max_url_length
            )
        except TypeError:
            return None
        return hashes, [(i, items[i], why) for i, why in bad]

    def _note_invalid(self, bad: list[tuple[int, str, str]]) -> None:
        if self.on_invalid == "skip" and not self._first_invalid_logged:
            self._first_invalid_logged = True
            log.warning(
                "job %s: skipping invalid URL (further ones only counted): %s", self.job_id, bad[0][2]
            )

    def _keys(self, items: list[str]) -> tuple[list[str], list[tuple[int, str, str]]]:
        canon = self._canon
        if canon is None:
            bad_types = [(i, repr(u), "not a str") for i, u in enumerate(items) if not isinstance(u, str)]
            if not bad_types:
                return items, []
            keep = {i for i, _, _ in bad_types}
            return [u for i, u in enumerate(items) if i not in keep], bad_types
        keys: list[str] = []
        bad: list[tuple[int, str, str]] = []
        canon_key = self._canonical_key
        for i, u in enumerate(items):
            if not isinstance(u, str):
                bad.append((i, repr(u), f"URL must be a str, got {type(u).__name__}"))
                continue
            try:
                keys.append(canon_key(u))
            except InputError as exc:
                bad.append((i, u, str(exc)))
        if bad:
            self._note_invalid(bad)
        return keys, bad

    def _raise_invalid(self, bad: list[tuple[int, str, str]], total: int) -> None:
        shown = "; ".join(f"#{i}: {why}" for i, _, why in bad[:5])
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        err = InputError(
            f"{len(bad)} of {total} URLs are invalid, nothing of this batch was recorded: {shown}{more}; "
            "fix them or pass on_invalid='skip'"
        )
        err.invalid = bad  # type: ignore[attr-defined]
        raise err


def _ready(flags: list[bool]) -> list[bool]:
    return flags


def _url_list(urls: Iterable[str]) -> list[str]:
    """A batch as a list; a str (one URL, or a mistake) is refused rather than taken letter by letter."""
    if isinstance(urls, list):
        return urls
    if isinstance(urls, (str, bytes)):
        raise TypeError(
            f"urls must be an iterable of URLs, got a {type(urls).__name__}; wrap one URL in a list: [url]"
        )
    try:
        return list(urls)
    except TypeError:
        raise TypeError(f"urls must be an iterable of URL strings, got {type(urls).__name__}") from None


def _uint64s(hashes: Any) -> np.ndarray[Any, Any]:
    """``hashes`` as a contiguous 1-D uint64 array; refuses what is not 64-bit hashes."""
    if isinstance(hashes, np.ndarray):
        ok = hashes.ndim == 1 and (
            hashes.dtype.kind == "u" or (hashes.dtype.kind == "i" and not bool((hashes < 0).any()))
        )
        got = f"an array of {hashes.dtype} with shape {hashes.shape}"
        if ok or hashes.size == 0:
            return np.ascontiguousarray(hashes, dtype=np.uint64).reshape(-1)
    else:
        try:  # a list of Python ints, exactly (np.asarray would make a mix of sizes float64)
            arr = np.ascontiguousarray(hashes, dtype=np.uint64)
        except (TypeError, ValueError, OverflowError):
            arr = None
        if arr is not None and arr.ndim == 1:
            return arr
        got = type(hashes).__name__
    raise TypeError(f"hashes must be a 1-D array of unsigned 64-bit ints (see url_hashes), got {got}")


def _open_backend(seen: SeenURLs, url: StoreURL, options: dict[str, Any]) -> SeenStore:
    """The factory: the scheme table (``neardup.stores.schemes``) picks the backend module."""
    clock = seen.job_clock
    if seen.bloom is not None:
        if seen.recrawl_after is not None:
            raise ConfigError(
                "recrawl_after needs exact mode (a Bloom filter keeps no fetch times); drop bloom= or recrawl_after="
            )
        from neardup.urls.bloom import open_bloom_store

        return open_bloom_store(seen, url, options)
    cls = backend(url.scheme, "seen")  # the scheme table picks the module, imported only when used
    if url.scheme == "memory":
        if seen.capacity is not None:
            options.setdefault("initial_capacity", int(seen.capacity / 0.7) + 1)  # no rehash up to capacity
        store: SeenStore = cls(clock, **options)
    elif url.scheme == "sqlite":
        store = cls(url, seen.job_id, clock, **options)
    else:
        store = cls(url, seen.job_id, clock, capacity=seen.capacity, now=seen._clock(), **options)
    return store
