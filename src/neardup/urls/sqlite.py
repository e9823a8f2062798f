"""Embedded on-disk seen-store: SQLite (Python's standard library), no server, no extra to install.

Why SQLite rather than LevelDB: it ships with Python (no ``leveldb`` extra, no compiler), and
several processes on one machine (e.g. a few Scrapy processes) can share one file safely: each
batch is one ``BEGIN IMMEDIATE`` transaction, so check-and-add is atomic across processes.
LevelDB locks its directory to a single process.

One file holds any number of jobs. Version 2 (new files) keeps an append-only log::

    log(id INTEGER PRIMARY KEY, job INTEGER, kind INTEGER, stamp INTEGER, hashes BLOB)
    jobs(id INTEGER PRIMARY KEY, name TEXT UNIQUE, created REAL, ttl REAL)

A batch is one ``BEGIN IMMEDIATE`` transaction: read the job's log rows written since this
process last looked (other processes' batches), apply them to an in-process hash table of the
job's URL hashes (:class:`~neardup.urls.memory.MemorySeenStore`), check the batch there, and
append **one** row holding the new and re-crawled hashes (8 bytes each, little-endian) with their
fetch second. Rows go to the end of the B-tree, so a batch writes a few pages however random its
hashes; a batch of URLs already seen writes nothing. ``forget`` appends a row of kind 1.
Opening a job replays its rows (about 0.1 s per million URLs), and each process holds the job's
table in memory (17-34 bytes a URL).

Version 1 files (``seen(job, h, ts, PRIMARY KEY(job, h)) WITHOUT ROWID``, one upsert per URL,
one dirty B-tree page per new URL) are read and written as they are;
:func:`migrate_v1` rewrites one into version 2 in place.

WAL journal, 1 KiB pages, a 16 MiB page cache per connection; ``?sync=full`` for fsync on every
commit (default ``normal``: safe against a crash of the process, may lose the last commits on
power loss).
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import time
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from neardup.exceptions import ConfigError, FormatError, StoreError
from neardup.stores._url import StoreURL
from neardup.urls.deadline import deadline
from neardup.urls.memory import MemorySeenStore
from neardup.urls.seen import JobClock, StoreInfo

__all__ = ["SqliteSeenStore", "migrate_v1"]

_VERSION = "2"
_V1 = "1"
_META = "CREATE TABLE IF NOT EXISTS neardup_urls_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, created REAL, ttl REAL);
CREATE TABLE IF NOT EXISTS log(id INTEGER PRIMARY KEY AUTOINCREMENT, job INTEGER NOT NULL, kind INTEGER NOT NULL,
                               stamp INTEGER NOT NULL, hashes BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS log_job ON log(job, id);
"""
_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, created REAL, ttl REAL);
CREATE TABLE IF NOT EXISTS seen(job INTEGER NOT NULL, h INTEGER NOT NULL, ts INTEGER NOT NULL,
                                PRIMARY KEY(job, h)) WITHOUT ROWID;
"""
_UPSERT_V1 = """
INSERT INTO seen(job, h, ts) SELECT ?1, value, ?2 FROM json_each(?3) WHERE 1
ON CONFLICT(job, h) DO UPDATE SET ts = excluded.ts WHERE ?4 >= 0 AND excluded.ts - seen.ts >= ?4
RETURNING h
"""
_ADD, _FORGET = 0, 1


def _blob(hashes: np.ndarray[Any, Any]) -> bytes:
    return np.ascontiguousarray(hashes, dtype="<u8").tobytes()


def _hashes(blob: bytes) -> np.ndarray[Any, Any]:
    return np.frombuffer(blob, dtype="<u8").astype(np.uint64, copy=False)


def _row_sum(job: int, kind: int, stamp: int, blob: bytes) -> int:
    """xxh3 of a log row's fields, as SQLite's signed 64-bit integer."""
    digest = xxhash.xxh3_64_intdigest(struct.pack("<qqq", job, kind, stamp) + bytes(blob))
    return digest - (1 << 64) if digest >= 1 << 63 else digest


def _damaged(path: Path, what: str) -> str:
    return (
        f"the seen-store {path} is damaged ({what}); restore it from a backup, or start a new store "
        "(its jobs will see every URL as new once)"
    )


#: the tables a seen-store file holds (``seen``: version 1; ``sqlite_sequence``: SQLite's own)
_OWN_TABLES = frozenset({"neardup_urls_meta", "jobs", "log", "seen", "sqlite_sequence"})


def _refuse_other_database(conn: sqlite3.Connection, path: Path) -> None:
    """A SQLite file that holds another program's tables is not opened as a seen-store: neardup's
    tables and its WAL journal mode would be written into it."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    other = sorted(tables - _OWN_TABLES)
    if other and "neardup_urls_meta" not in tables:
        conn.close()
        shown = ", ".join(other[:5]) + (", ..." if len(other) > 5 else "")
        raise FormatError(
            f"{path} is a SQLite database of something else (tables {shown}), not a URL seen-store: "
            "give the seen-store a file of its own"
        )


def migrate_v1(path: str | Path) -> int:
    """Rewrite a version-1 seen-store file as version 2, in one transaction; return the URLs moved.

    Each job's hashes become log rows grouped by fetch second. A version-2 file is left alone (0).

    >>> import tempfile, os
    >>> migrate_v1(os.path.join(tempfile.mkdtemp(), "new.db"))
    0
    """
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute(_META)
        row = conn.execute("SELECT value FROM neardup_urls_meta WHERE key='version'").fetchone()
        if row is None or row[0] != _V1:
            return 0
        conn.execute("BEGIN IMMEDIATE")
        for stmt in _SCHEMA.strip().split(";"):
            if stmt.strip():
                conn.execute(stmt)
        moved = 0
        cur = conn.execute("SELECT job, ts, h FROM seen ORDER BY job, ts")
        while True:
            rows = cur.fetchmany(1 << 16)
            if not rows:
                break
            arr = np.array(rows, dtype=np.int64)
            cuts = np.flatnonzero((np.diff(arr[:, 0]) != 0) | (np.diff(arr[:, 1]) != 0)) + 1
            for part in np.split(arr, cuts):
                conn.execute(
                    "INSERT INTO log(job, kind, stamp, hashes) VALUES (?, ?, ?, ?)",
                    (int(part[0, 0]), _ADD, int(part[0, 1]), _blob(part[:, 2].view(np.uint64))),
                )
            moved += len(rows)
        conn.execute("DROP TABLE seen")
        conn.execute("UPDATE neardup_urls_meta SET value=? WHERE key='version'", (_VERSION,))
        conn.execute("COMMIT")
        return moved
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()


class SqliteSeenStore:
    """The SQLite backend of :class:`~neardup.urls.seen.SeenURLs`: ``sqlite:///path/seen.db`` or a bare path."""

    kind = "sqlite"

    def __init__(self, url: StoreURL, job_id: str, job: JobClock, *, timeout: float = 30.0) -> None:
        self.path = Path(url.path).expanduser()
        self.job_name = job_id
        self.job = job
        self.timeout = float(timeout)
        sync = url.params.get("sync", "normal").lower()
        if sync not in ("off", "normal", "full"):
            raise ConfigError(f"sync must be off, normal or full, got {sync!r} in {url.redacted()}")
        self.sync = sync
        self._conn_pid = -1
        self._job_id: int | None = None
        self._created: float | None = None
        self._reset_cache()
        self._open()

    # -- connection --------------------------------------------------------------------------------

    def _open(self) -> None:
        if not self.path.parent.exists():
            raise StoreError(f"cannot create {self.path}: directory {self.path.parent} does not exist")
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            _refuse_other_database(conn, self.path)  # before any pragma or table changes it
            # A batch of random 64-bit keys dirties one B-tree leaf per URL, and every dirty page goes
            # to the WAL at commit: small pages (a new file only; an existing file keeps its size),
            # a bigger page cache and rarer checkpoints took a 100-URL upsert from 6.7 to under 4 ms
            # (raw SQLite, 900k keys; through SeenURLs 7.5-9 -> 5-7 ms a batch with canonicalization).
            conn.execute("PRAGMA page_size=1024")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.sync.upper()}")
            conn.execute("PRAGMA cache_size=-16384")
            conn.execute("PRAGMA wal_autocheckpoint=8000")
            conn.execute(_META)
            row = conn.execute("SELECT value FROM neardup_urls_meta WHERE key='version'").fetchone()
            if row is None:
                fresh = conn.execute("SELECT 1 FROM sqlite_master WHERE name='seen'").fetchone() is None
                version = _VERSION if fresh else _V1
                conn.execute("INSERT OR IGNORE INTO neardup_urls_meta VALUES ('version', ?)", (version,))
            else:
                version = row[0]
            if version not in (_VERSION, _V1):
                raise FormatError(
                    f"{self.path} is a URL seen-store of version {version}; this neardup reads versions "
                    f"{_V1} and {_VERSION}"
                )
            conn.executescript(_SCHEMA if version == _VERSION else _SCHEMA_V1)
            if version == _VERSION:
                self._add_sum_column(conn)
            bad = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as exc:
            if "malformed" in str(exc) or "not a database" in str(exc):
                raise FormatError(_damaged(self.path, str(exc))) from None
            raise StoreError(f"cannot open the seen-store {self.path}: {exc}") from exc
        if bad != ["ok"]:
            conn.close()
            raise FormatError(_damaged(self.path, "; ".join(bad)))
        self.version = int(version)
        self._conn: sqlite3.Connection | None = conn
        self._conn_pid = os.getpid()

    @staticmethod
    def _add_sum_column(conn: sqlite3.Connection) -> None:
        """Give the log its checksum column (files made before it had none; their rows stay unsummed)."""
        if any(r[1] == "sum" for r in conn.execute("PRAGMA table_info(log)")):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not any(r[1] == "sum" for r in conn.execute("PRAGMA table_info(log)")):
                conn.execute("ALTER TABLE log ADD COLUMN sum INTEGER")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None or self._conn_pid != os.getpid():  # closed, or inherited by fork
            self._open()
        assert self._conn is not None
        return self._conn

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(_conn=None, _conn_pid=-1, _table=None, _seen_id=0, _cache_key=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset_cache()

    def _reset_cache(self) -> None:
        """Forget the in-process table; the next transaction replays the job's log from the start."""
        self._table = MemorySeenStore(
            JobClock(recrawl_after=self.job.recrawl_after), initial_capacity=1 << 12
        )
        self._seen_id = 0  # the last log row applied to the table
        self._cache_key: tuple[int, float] | None = None  # (job id, created) the table belongs to

    def _catch_up(self, conn: sqlite3.Connection, jid: int, created: float) -> None:
        """Apply the job's log rows written since the last call (by any process) to the table."""
        if self._cache_key != (jid, created) or (
            self._seen_id
            and conn.execute("SELECT 1 FROM log WHERE id=? AND job=?", (self._seen_id, jid)).fetchone()
            is None
        ):  # another job, or this one emptied (ttl, forget_job) since: log ids are never reused
            self._reset_cache()
            self._cache_key = (jid, created)
        table = self._table
        for rid, kind, stamp, blob, total in conn.execute(
            "SELECT id, kind, stamp, hashes, sum FROM log WHERE job=? AND id>? ORDER BY id",
            (jid, self._seen_id),
        ):
            if total is not None and total != _row_sum(jid, kind, stamp, blob):
                self._reset_cache()
                raise FormatError(
                    _damaged(self.path, f"log row {rid} of job {self.job_name!r} does not match its checksum")
                )
            if kind == _ADD:
                table.record(_hashes(blob), int(stamp))
            else:
                table.forget(_hashes(blob), 0.0)
            self._seen_id = int(rid)

    def _append(
        self, conn: sqlite3.Connection, jid: int, kind: int, stamp: int, hashes: np.ndarray[Any, Any]
    ) -> None:
        blob = _blob(hashes)
        cur = conn.execute(
            "INSERT INTO log(job, kind, stamp, hashes, sum) VALUES (?, ?, ?, ?, ?)",
            (jid, kind, stamp, blob, _row_sum(jid, kind, stamp, blob)),
        )
        self._seen_id = int(cur.lastrowid or 0)  # the newest row (we hold the write lock): the table has it

    def _job_row(self, conn: sqlite3.Connection, now: float) -> int:
        """The job's id inside a write transaction; a job past its ttl is emptied and restarted."""
        row = conn.execute("SELECT id, created, ttl FROM jobs WHERE name=?", (self.job_name,)).fetchone()
        if row is None:
            cur = conn.execute(
                "INSERT INTO jobs(name, created, ttl) VALUES (?, ?, ?)", (self.job_name, now, self.job.ttl)
            )
            jid = int(cur.lastrowid or 0)
            self._created = now
            return jid
        jid, created, ttl = int(row[0]), float(row[1]), row[2]
        if ttl is not None and self.job.ttl is not None and float(ttl) != self.job.ttl:
            raise ConfigError(
                f"job {self.job_name!r} in {self.path} was created with ttl={ttl}, got ttl={self.job.ttl:g}; "
                "pass the same ttl, or forget_job() to start over"
            )
        eff_ttl = self.job.ttl if self.job.ttl is not None else ttl
        if eff_ttl is not None and now >= created + float(eff_ttl):
            conn.execute(f"DELETE FROM {self._rows} WHERE job=?", (jid,))
            conn.execute("UPDATE jobs SET created=?, ttl=? WHERE id=?", (now, eff_ttl, jid))
            created = now
        self._created = created
        return jid

    @property
    def _rows(self) -> str:
        return "log" if self.version == 2 else "seen"

    def _write(self, what: str, fn: Any) -> Any:
        """``fn(conn)`` in one write transaction. Under a store deadline (``neardup.urls.deadline``)
        the wait for the write lock and the statements are bounded by it: past it, the transaction
        is rolled back and StoreError raised, so nothing of the call is recorded."""
        conn = self.conn
        at = deadline()
        try:
            if at is not None:
                left = at - time.monotonic()
                if left <= 0:
                    raise StoreError(
                        f"the seen-store {self.path} was not reached before the deadline ({what}); "
                        "nothing was recorded"
                    )
                conn.execute(f"PRAGMA busy_timeout={max(1, int(left * 1000))}")
                conn.set_progress_handler(lambda: time.monotonic() > at, 1000)
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                if at is not None:
                    conn.set_progress_handler(None, 0)  # the rollback must not be interrupted
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                self._reset_cache()  # the table may hold changes the file does not
                raise
        except sqlite3.Error as exc:
            late = (
                " (past the deadline: nothing was recorded)"
                if at is not None and time.monotonic() > at
                else ""
            )
            raise StoreError(f"the seen-store {self.path} failed {what}: {exc}{late}") from exc
        finally:
            if at is not None:
                conn.set_progress_handler(None, 0)
                conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")

    # -- the protocol ------------------------------------------------------------------------------

    def _job(self, conn: sqlite3.Connection, now: float) -> int:
        """The job's id, with the in-process table brought up to date (version 2)."""
        jid = self._job_row(conn, now)
        assert self._created is not None
        self._catch_up(conn, jid, self._created)
        return jid

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        if self.version == 1:
            return self._check_and_add_v1(hashes, now)
        now_s = self.job.seconds(now)

        def run(conn: sqlite3.Connection) -> np.ndarray[Any, Any]:
            jid = self._job(conn, now)
            flags = self._table.check_and_add(hashes, now_s)
            if flags.any():
                self._append(conn, jid, _ADD, now_s, hashes[flags])
            return flags

        return self._write("check_and_add", run)  # type: ignore[no-any-return]

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        if self.version == 1:
            return self._forget_v1(hashes, now)

        def run(conn: sqlite3.Connection) -> int:
            jid = self._job(conn, now)
            present = np.unique(hashes[self._table.contains(hashes, 0.0)])
            if present.size:
                self._table.forget(present, 0.0)
                self._append(conn, jid, _FORGET, 0, present)
            return int(present.size)

        return int(self._write("forget", run))

    def forget_job(self) -> None:
        def run(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT id FROM jobs WHERE name=?", (self.job_name,)).fetchone()
            if row is not None:
                conn.execute(f"DELETE FROM {self._rows} WHERE job=?", (row[0],))
                conn.execute("DELETE FROM jobs WHERE id=?", (row[0],))

        self._write("forget_job", run)
        self._created = None
        self._reset_cache()

    def info(self, now: float) -> StoreInfo:
        def run(conn: sqlite3.Connection) -> tuple[int, float | None, float | None]:
            row = conn.execute("SELECT id, created, ttl FROM jobs WHERE name=?", (self.job_name,)).fetchone()
            if row is None:
                return 0, None, None
            jid, created, ttl = row
            if ttl is not None and now >= created + ttl:
                return 0, None, ttl
            if self.version == 1:
                n = conn.execute("SELECT COUNT(*) FROM seen WHERE job=?", (jid,)).fetchone()[0]
            else:
                self._catch_up(conn, int(jid), float(created))
                n = self._table._used
            return int(n), float(created), ttl

        n, created, ttl = self._write("stats", run)
        extra: dict[str, Any] = {
            "path": str(self.path),
            "ttl": ttl if ttl is not None else self.job.ttl,
            "format_version": self.version,
        }
        if created is not None and ttl is not None:
            extra["expires_at"] = created + ttl
        size = self.path.stat().st_size if self.path.exists() else None
        return StoreInfo(urls=n, created=created, bytes=size, extra=extra)

    # -- version 1 files: one row per URL ----------------------------------------------------------

    def _check_and_add_v1(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        signed = hashes.view(np.int64)
        payload = json.dumps(signed.tolist())
        recrawl = -1 if self.job.recrawl_after is None else int(np.ceil(self.job.recrawl_after))
        now_s = self.job.seconds(now)

        def run(conn: sqlite3.Connection) -> list[Any]:
            jid = self._job_row(conn, now)
            return conn.execute(_UPSERT_V1, (jid, now_s, payload, recrawl)).fetchall()

        rows = self._write("check_and_add", run)
        out = np.zeros(hashes.shape[0], dtype=np.bool_)
        if rows:
            hit = np.isin(signed, np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
            # only the first of equal hashes in the batch is True
            idx = np.flatnonzero(hit)
            _, first = np.unique(signed[idx], return_index=True)
            out[idx[first]] = True
        return out

    def _forget_v1(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        signed = hashes.view(np.int64).tolist()

        def run(conn: sqlite3.Connection) -> int:
            jid = self._job_row(conn, now)
            cur = conn.executemany("DELETE FROM seen WHERE job=? AND h=?", [(jid, h) for h in signed])
            return int(cur.rowcount)

        return int(self._write("forget", run))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
