"""A fleet of ContentSeen instances that agrees: one shared, totally ordered log of added pages.

The match engine is deterministic: the same pages in the same order give the same clusters, kinds
and partners. So servers that apply the same sequence of pages give the same verdicts. A fleet
ContentSeen therefore never decides on its own what it adds; it appends the page's analysis (the
signature row and what a verdict's reasons read) to a shared log, which numbers entries 1, 2, 3,
... in one order, then applies every entry up to and including its own, in order, to its local
engine state. The verdict of its own entry is its answer; the verdicts of the others' entries are
computed the same way (and kept for a while, by entry number). Every server computes the verdict
of entry ``n`` from the same prefix ``1 .. n-1``: the same kind, cluster and ``duplicate_url``
everywhere, one ``new`` per cluster. A check without ``add`` applies the whole log first, then
decides without adding.

A log entry (this module's :class:`LogEntry`) is the page's ``Signatures.row_bytes`` followed by
JSON metadata, as a journal record of ContentSeen (``neardup.contentseen.records``)::

    len(sig) u32 little-endian | sig | {"u": url, "x": exact key, "s": sentence hashes,
                                        "t": those sentences, "ts": unix time}

Retries: the log remembers the last entry of each URL with its exact key and time. Appending a
page whose URL and exact key match an entry appended within ``retry_window`` seconds appends
nothing and answers that entry's number, so a client that resends a check whose answer it never
received (the server died after the append, or answered 503) is answered the first verdict, not
"an exact duplicate of itself". After the window the same page is a new check (an ``exact`` copy).

Backends: :class:`MemoryLog` (one process, for tests and examples) and
:class:`~neardup.stores.redislog.RedisLog` (``redis://host:6379/0?prefix=job``: a Redis Stream,
appended by one Lua script). See docs/contentseen.md and docs/service.md.

>>> log = MemoryLog()
>>> e = LogEntry("https://a.example/1", 7, b"sig", (1, 2), ("甲。", "乙。"), 0.0)
>>> log.append(e.encode(), url=e.url, raw=e.raw, ts=1.0)
(1, True)
>>> log.append(e.encode(), url=e.url, raw=e.raw, ts=2.0)  # a retry: the same entry
(1, False)
>>> [(n, LogEntry.decode(p).url) for n, p in log.read(0, None, 10)]
[(1, 'https://a.example/1')]
"""

from __future__ import annotations

import struct
import threading
import uuid
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import orjson

from neardup.exceptions import ConfigError, FormatError

__all__ = ["DEFAULT_RETRY_WINDOW", "LogEntry", "MemoryLog", "SharedLog", "open_log"]

#: seconds during which resending the same page for the same URL is a retry (answered the first verdict)
DEFAULT_RETRY_WINDOW = 600.0
_SIG_LEN = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One page in the shared log: what the engine and a verdict's reasons read of it, never HTML."""

    url: str
    raw: int  # the exact key (PageAnalysis.raw)
    sig: bytes  # Signatures.row_bytes of the page
    sent_keys: tuple[int, ...]  # hashes of its longest sentences
    sents: tuple[str, ...]  # those sentences (shown in reasons as shared passages)
    ts: float  # when it was checked (unix seconds)

    def encode(self) -> bytes:
        """The entry's bytes in the log."""
        meta = {"u": self.url, "x": self.raw, "s": list(self.sent_keys), "t": list(self.sents), "ts": self.ts}
        return _SIG_LEN.pack(len(self.sig)) + self.sig + orjson.dumps(meta)

    @classmethod
    def decode(cls, payload: bytes) -> LogEntry:
        """The entry ``encode`` wrote (FormatError if it is not one)."""
        try:
            (n,) = _SIG_LEN.unpack_from(payload)
            if 4 + n > len(payload):
                raise ValueError(f"the signature announces {n} bytes, the entry holds {len(payload) - 4}")
            d = orjson.loads(payload[4 + n :])
            return cls(
                str(d["u"]), int(d["x"]), bytes(payload[4 : 4 + n]),
                tuple(int(k) for k in d["s"]), tuple(str(s) for s in d["t"]), float(d["ts"]),
            )  # fmt: skip
        except (struct.error, orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"not a ContentSeen log entry ({exc})") from None


@runtime_checkable
class SharedLog(Protocol):
    """A totally ordered, append-only log of entries numbered 1, 2, 3, ... shared by a fleet."""

    url: str
    epoch: str | None  # a random id of this log, set when it was created (known after ``open``)

    def open(self, settings: str) -> None:
        """Join the log: ``settings`` (a digest of the engine configuration) must be the log's
        (ConfigError otherwise; the first member sets it)."""
        ...

    def append(self, payload: bytes, *, url: str, raw: int, ts: float) -> tuple[int, bool]:
        """Append one entry; its number and True. When ``url``'s last entry has the exact key ``raw``
        and was appended within the retry window: that entry's number and False (nothing appended)."""
        ...

    def read(self, after: int, upto: int | None, count: int) -> list[tuple[int, bytes]]:
        """At most ``count`` entries numbered ``after + 1`` .. ``upto`` (None: the end), in order."""
        ...

    def close(self) -> None: ...


class MemoryLog:
    """A log in this process (shared by the ContentSeen instances given the same object).

    >>> MemoryLog(retry_window=0).url
    'memory://'
    """

    url = "memory://"

    def __init__(self, *, retry_window: float = DEFAULT_RETRY_WINDOW) -> None:
        if not retry_window >= 0:
            raise ConfigError(f"retry_window must be >= 0 seconds, got {retry_window}")
        self.retry_window = retry_window
        self.epoch: str | None = uuid.uuid4().hex
        self._entries: list[bytes] = []
        self._urls: dict[str, tuple[int, int, float]] = {}
        self._settings: str | None = None
        self._lock = threading.Lock()

    def open(self, settings: str) -> None:
        with self._lock:
            if self._settings is None:
                self._settings = settings
            elif self._settings != settings:
                raise ConfigError(_OTHER_SETTINGS.format(url=self.url))

    def append(self, payload: bytes, *, url: str, raw: int, ts: float) -> tuple[int, bool]:
        with self._lock:
            prev = self._urls.get(url)
            if prev is not None and prev[1] == raw and ts - prev[2] <= self.retry_window:
                return prev[0], False
            self._entries.append(bytes(payload))
            n = len(self._entries)
            self._urls[url] = (n, raw, ts)
            return n, True

    def read(self, after: int, upto: int | None, count: int) -> list[tuple[int, bytes]]:
        with self._lock:
            end = len(self._entries) if upto is None else min(upto, len(self._entries))
            end = min(end, after + count)
            return [(n, self._entries[n - 1]) for n in range(after + 1, end + 1)]

    def close(self) -> None:
        pass


_OTHER_SETTINGS = (
    "the shared log {url} was written by ContentSeen instances with another match configuration; "
    "a fleet must share one (pass the same MatchConfig, profile and strictness to every member) "
    "or use another prefix"
)


def open_log(log: str | SharedLog, *, socket_timeout: float = 10.0) -> SharedLog:
    """The shared log behind a ContentSeen fleet: a ``redis://host:6379/0?prefix=job`` URL (also
    ``rediss://``, ``unix://``) or a :class:`SharedLog` object (e.g. a :class:`MemoryLog`).

    >>> open_log("file:///tmp/x")
    Traceback (most recent call last):
    ...
    neardup.exceptions.ConfigError: a ContentSeen fleet shares a redis://host:6379/0?prefix=job log (or a SharedLog object), got 'file:///tmp/x'
    """
    if isinstance(log, SharedLog) and not isinstance(log, str):
        return log
    if isinstance(log, str) and log.startswith(("redis://", "rediss://", "unix://")):
        from neardup.stores.redislog import RedisLog

        return RedisLog(log, socket_timeout=socket_timeout)
    raise ConfigError(
        f"a ContentSeen fleet shares a redis://host:6379/0?prefix=job log (or a SharedLog object), got {log!r}"
    )
