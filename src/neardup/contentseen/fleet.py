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
                                        "t": those sentences, "ts": unix time, "d": day}

``d``, the page's date as a day number (``neardup.match.dates``), is there only when the page had a
readable one. Members that compare dates (the news profile) join the log with that in its settings
digest, so a member of a neardup that ignores ``d`` cannot share their log.

Retries: the log remembers the last entry of each URL with its exact key and time. Appending a
page whose URL and exact key match an entry appended within ``retry_window`` seconds appends
nothing and answers that entry's number, so a client that resends a check whose answer it never
received (the server died after the append, or answered 503) is answered the first verdict, not
"an exact duplicate of itself". After the window the same page is a new check (an ``exact`` copy).

Bounds (:class:`Retention`): every member records, beside the log, the last entry its state
covers durably (its journal fsynced up to it) with a deadline it renews every ``heartbeat``
seconds; the log is trimmed below the lowest entry a live member covers, never below what was
appended in the last ``keep`` seconds. A member silent for ``member_ttl`` seconds stops holding
the log back: it, like a new member once the log was trimmed, must then start from a copy of a
live member's state directory (``join`` refuses it otherwise, ConfigError). A URL's last entry
is remembered for the retry window only.

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
import time
import uuid
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import orjson

from neardup.exceptions import ConfigError, FormatError
from neardup.match.dates import NO_DAY

__all__ = [
    "DEFAULT_RETRY_WINDOW",
    "LogEntry",
    "MemoryLog",
    "Retention",
    "SharedLog",
    "open_log",
    "trimmed_error",
]

#: seconds during which resending the same page for the same URL is a retry (answered the first verdict)
DEFAULT_RETRY_WINDOW = 600.0
_SIG_LEN = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Retention:
    """How a fleet member keeps the shared log bounded (see the module).

    Args:
        keep: seconds during which an appended entry is never trimmed (a copied state directory
            can join within about this long after it was copied).
        member_ttl: seconds a member that stopped recording its coverage still holds the log back
            (a restart within it resumes from the member's own directory).
        heartbeat: seconds between two coverage records (and trims) of a member; None:
            ``min(5, member_ttl / 4)``.

    >>> Retention().interval
    5.0
    >>> Retention(member_ttl=2).interval
    0.5
    >>> Retention(keep=-1)
    Traceback (most recent call last):
    ...
    neardup.exceptions.ConfigError: keep must be >= 0 seconds, got -1
    """

    keep: float = 300.0
    member_ttl: float = 600.0
    heartbeat: float | None = None

    def __post_init__(self) -> None:
        if not self.keep >= 0:
            raise ConfigError(f"keep must be >= 0 seconds, got {self.keep}")
        if not 0 < self.member_ttl <= 86_400 * 30:
            raise ConfigError(f"member_ttl must be between 0 and 30 days in seconds, got {self.member_ttl}")
        if self.heartbeat is not None and not 0 < self.heartbeat < self.member_ttl:
            raise ConfigError(
                f"heartbeat must be > 0 and below member_ttl ({self.member_ttl} s), got {self.heartbeat}"
            )

    @property
    def interval(self) -> float:
        """Seconds between two heartbeats."""
        return float(self.heartbeat if self.heartbeat is not None else min(5.0, self.member_ttl / 4))


def trimmed_error(url: str, where: str, applied: int, first: int) -> ConfigError:
    """The refusal of a member whose state is older than the log's first entry."""
    held = f"holds its entries 1..{applied}" if applied else "is empty"
    return ConfigError(
        f"the state {where} {held}, but the shared log {url} was trimmed and starts at entry {first}: "
        "copy a live member's state directory (its contentseen.json and docs.wal) into this one and "
        "start again within the log's keep time (docs/service.md, 'Joining a trimmed fleet')"
    )


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One page in the shared log: what the engine and a verdict's reasons read of it, never HTML."""

    url: str
    raw: int  # the exact key (PageAnalysis.raw)
    sig: bytes  # Signatures.row_bytes of the page
    sent_keys: tuple[int, ...]  # hashes of its longest sentences
    sents: tuple[str, ...]  # those sentences (shown in reasons as shared passages)
    ts: float  # when it was checked (unix seconds)
    day: int = NO_DAY  # the page's date as a day number

    def encode(self) -> bytes:
        """The entry's bytes in the log."""
        meta = {"u": self.url, "x": self.raw, "s": list(self.sent_keys), "t": list(self.sents), "ts": self.ts}
        if self.day != NO_DAY:
            meta["d"] = self.day
        return _SIG_LEN.pack(len(self.sig)) + self.sig + orjson.dumps(meta)

    @classmethod
    def decode(cls, payload: bytes) -> LogEntry:
        """The entry ``encode`` wrote (FormatError if it is not one)."""
        try:
            (n,) = _SIG_LEN.unpack_from(payload)
            if 4 + n > len(payload):
                raise ValueError(f"the signature announces {n} bytes, the entry holds {len(payload) - 4}")
            d = orjson.loads(payload[4 + n :])
            day = d.get("d", NO_DAY)
            if isinstance(day, bool) or not isinstance(day, int) or not NO_DAY <= day < 2**31:
                raise ValueError(f"the day {day!r} is not a day number")
            return cls(
                str(d["u"]), int(d["x"]), bytes(payload[4 : 4 + n]),
                tuple(int(k) for k in d["s"]), tuple(str(s) for s in d["t"]), float(d["ts"]), day,
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

    def join(self, member: str, covered: int, ttl: float) -> int:
        """Register ``member``, whose state holds entries 1..``covered``, atomically with the check
        that the log still holds what it needs (entry ``covered`` and every later one); the log's
        first entry. ``covered`` 0 needs an untrimmed log. A refused member is not registered and
        gets -first (nothing is skipped)."""
        ...

    def cover(self, member: str, covered: int, ttl: float) -> None:
        """``member``'s state durably holds entries 1..``covered``; it holds the log back for
        ``ttl`` seconds unless it records again."""
        ...

    def trim(self, keep: float) -> int:
        """Drop the entries below the lowest one a live member covers, but none appended in the last
        ``keep`` seconds; the log's first entry after it."""
        ...

    def leave(self, member: str) -> None:
        """``member`` no longer holds the log back."""
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
        self._entries: dict[int, bytes] = {}
        self._last = 0
        self._first = 1
        self._members: dict[str, tuple[int, float]] = {}  # member -> (covered, deadline)
        self._marks: list[tuple[float, int]] = []  # (when, last entry then)
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
            self._last += 1
            n = self._last
            self._entries[n] = bytes(payload)
            self._urls = {u: v for u, v in self._urls.items() if ts - v[2] <= self.retry_window}
            self._urls[url] = (n, raw, ts)
            return n, True

    def read(self, after: int, upto: int | None, count: int) -> list[tuple[int, bytes]]:
        with self._lock:
            end = self._last if upto is None else min(upto, self._last)
            end = min(end, after + count)
            start = max(after + 1, self._first)
            return [(n, self._entries[n]) for n in range(start, end + 1)]

    def join(self, member: str, covered: int, ttl: float) -> int:
        with self._lock:
            if (covered == 0 and self._first > 1) or (covered > 0 and covered < self._first):
                return -self._first
            self._members[member] = (covered, time.monotonic() + ttl)
            return self._first

    def cover(self, member: str, covered: int, ttl: float) -> None:
        with self._lock:
            self._members[member] = (covered, time.monotonic() + ttl)

    def leave(self, member: str) -> None:
        with self._lock:
            self._members.pop(member, None)

    def trim(self, keep: float) -> int:
        with self._lock:
            now = time.monotonic()
            self._members = {m: v for m, v in self._members.items() if v[1] >= now}
            if not self._marks or self._marks[-1][1] != self._last:
                self._marks.append((now, self._last))
            old = [m for m in self._marks if m[0] <= now - keep]
            if not self._members or not old:
                return self._first
            self._marks = self._marks[len(old) - 1 :]
            low = min(min(c for c, _ in self._members.values()), old[-1][1] + 1)
            for n in range(self._first, low):
                self._entries.pop(n, None)
            self._first = max(self._first, low)
            return self._first

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
