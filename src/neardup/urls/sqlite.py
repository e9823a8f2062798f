"""Embedded on-disk seen-store: SQLite (Python's standard library), no server, no extra to install.

Why SQLite rather than LevelDB: it ships with Python (no ``leveldb`` extra, no compiler), and
several processes on one machine (e.g. a few Scrapy processes) can share one file safely: each
batch is one ``BEGIN IMMEDIATE`` transaction, so check-and-add is atomic across processes.
LevelDB locks its directory to a single process.

One file holds any number of jobs::

    seen(job INTEGER, h INTEGER, ts INTEGER, PRIMARY KEY(job, h)) WITHOUT ROWID
    jobs(id INTEGER PRIMARY KEY, name TEXT UNIQUE, created REAL, ttl REAL)

``h`` is the 64-bit URL hash (stored signed), ``ts`` the last-fetch second. A batch is one
``INSERT ... SELECT FROM json_each(?) ... ON CONFLICT DO UPDATE ... WHERE due RETURNING h``.
WAL journal, 1 KiB pages, a 16 MiB page cache per connection; ``?sync=full`` for fsync on every
commit (default ``normal``: safe against a crash of the process, may lose the last commits on
power loss).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from neardup.exceptions import ConfigError, FormatError, StoreError
from neardup.stores._url import StoreURL
from neardup.urls.seen import JobClock, StoreInfo

__all__ = ["SqliteSeenStore"]

_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS neardup_urls_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, created REAL, ttl REAL);
CREATE TABLE IF NOT EXISTS seen(job INTEGER NOT NULL, h INTEGER NOT NULL, ts INTEGER NOT NULL,
                                PRIMARY KEY(job, h)) WITHOUT ROWID;
"""
_UPSERT = """
INSERT INTO seen(job, h, ts) SELECT ?1, value, ?2 FROM json_each(?3) WHERE 1
ON CONFLICT(job, h) DO UPDATE SET ts = excluded.ts WHERE ?4 >= 0 AND excluded.ts - seen.ts >= ?4
RETURNING h
"""


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
        self._open()

    # -- connection --------------------------------------------------------------------------------

    def _open(self) -> None:
        if not self.path.parent.exists():
            raise StoreError(f"cannot create {self.path}: directory {self.path.parent} does not exist")
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            # A batch of random 64-bit keys dirties one B-tree leaf per URL, and every dirty page goes
            # to the WAL at commit: small pages (a new file only; an existing file keeps its size),
            # a bigger page cache and rarer checkpoints took a 100-URL upsert from 6.7 to under 4 ms
            # (raw SQLite, 900k keys; through SeenURLs 7.5-9 -> 5-7 ms a batch with canonicalization).
            conn.execute("PRAGMA page_size=1024")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.sync.upper()}")
            conn.execute("PRAGMA cache_size=-16384")
            conn.execute("PRAGMA wal_autocheckpoint=8000")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM neardup_urls_meta WHERE key='version'").fetchone()
            if row is None:
                conn.execute("INSERT OR IGNORE INTO neardup_urls_meta VALUES ('version', ?)", (_VERSION,))
            elif row[0] != _VERSION:
                raise FormatError(
                    f"{self.path} is a URL seen-store of version {row[0]}; this neardup reads version {_VERSION}"
                )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the seen-store {self.path}: {exc}") from exc
        self._conn: sqlite3.Connection | None = conn
        self._conn_pid = os.getpid()

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None or self._conn_pid != os.getpid():  # closed, or inherited by fork
            self._open()
        assert self._conn is not None
        return self._conn

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(_conn=None, _conn_pid=-1)
        return state

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
            conn.execute("DELETE FROM seen WHERE job=?", (jid,))
            conn.execute("UPDATE jobs SET created=?, ttl=? WHERE id=?", (now, eff_ttl, jid))
            created = now
        self._created = created
        return jid

    def _write(self, what: str, fn: Any) -> Any:
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result
        except sqlite3.Error as exc:
            raise StoreError(f"the seen-store {self.path} failed {what}: {exc}") from exc

    # -- the protocol ------------------------------------------------------------------------------

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        signed = hashes.view(np.int64)
        payload = json.dumps(signed.tolist())
        recrawl = -1 if self.job.recrawl_after is None else int(np.ceil(self.job.recrawl_after))
        now_s = self.job.seconds(now)

        def run(conn: sqlite3.Connection) -> list[Any]:
            jid = self._job_row(conn, now)
            return conn.execute(_UPSERT, (jid, now_s, payload, recrawl)).fetchall()

        rows = self._write("check_and_add", run)
        out = np.zeros(hashes.shape[0], dtype=np.bool_)
        if rows:
            hit = np.isin(signed, np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
            # only the first of equal hashes in the batch is True
            idx = np.flatnonzero(hit)
            _, first = np.unique(signed[idx], return_index=True)
            out[idx[first]] = True
        return out

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        signed = hashes.view(np.int64).tolist()

        def run(conn: sqlite3.Connection) -> int:
            jid = self._job_row(conn, now)
            cur = conn.executemany("DELETE FROM seen WHERE job=? AND h=?", [(jid, h) for h in signed])
            return int(cur.rowcount)

        return int(self._write("forget", run))

    def forget_job(self) -> None:
        def run(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT id FROM jobs WHERE name=?", (self.job_name,)).fetchone()
            if row is not None:
                conn.execute("DELETE FROM seen WHERE job=?", (row[0],))
                conn.execute("DELETE FROM jobs WHERE id=?", (row[0],))

        self._write("forget_job", run)
        self._created = None

    def info(self, now: float) -> StoreInfo:
        def run(conn: sqlite3.Connection) -> tuple[int, float | None, float | None]:
            row = conn.execute("SELECT id, created, ttl FROM jobs WHERE name=?", (self.job_name,)).fetchone()
            if row is None:
                return 0, None, None
            jid, created, ttl = row
            if ttl is not None and now >= created + ttl:
                return 0, None, ttl
            n = conn.execute("SELECT COUNT(*) FROM seen WHERE job=?", (jid,)).fetchone()[0]
            return int(n), float(created), ttl

        n, created, ttl = self._write("stats", run)
        extra: dict[str, Any] = {"path": str(self.path), "ttl": ttl if ttl is not None else self.job.ttl}
        if created is not None and ttl is not None:
            extra["expires_at"] = created + ttl
        size = self.path.stat().st_size if self.path.exists() else None
        return StoreInfo(urls=n, created=created, bytes=size, extra=extra)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
