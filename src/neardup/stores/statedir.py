"""A state directory: an exclusive lock, a versioned JSON header and an append-only journal.

Layout of a directory ``d`` for a format ``F``::

    d/.lock        flock'ed by the one process that has the state open
    d/<header>     {"format": F, "version": N, **settings}, written atomically after the journal
    d/<journal>    the records (:class:`~neardup.stores.journal.Journal`), the source of truth
    d/<snapshot>   optional files derived from the journal (an index), named by ``derived``

The header pins the settings the records were made with, so a state is never reopened under other
settings; a directory holding records but no header is refused for the same reason (its settings
are unknown). A version newer than this code asks for an upgrade; one older than ``oldest`` is
refused with ``too_old`` (why its records cannot be read); one from ``oldest`` up is read, and its
header is rewritten at this code's version on open (the records appended from then on are of it).

>>> import tempfile
>>> d = StateDir(tempfile.mkdtemp(), format="demo", version=1, journal_kind="demo.rec")
>>> j = d.open({"shingle": 3})
>>> list(j.replay()), j.append(b"first")  # replay first: it proves the journal before appends
([], 0)
>>> d.close()
>>> again = StateDir(d.path, format="demo", version=1, journal_kind="demo.rec")
>>> [bytes(p) for _, p in again.open({"shingle": 3}).replay()]
[b'first']
>>> again.close()
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from neardup.exceptions import ConfigError, FormatError, StoreError
from neardup.stores.journal import Journal, header_bytes

__all__ = ["StateDir", "parse_state_path"]


def parse_state_path(state: str | os.PathLike[str] | None, *, hint: str = "") -> Path | None:
    """The directory a state argument names: None for ``None``/``memory://``; ``file:///d`` is ``/d``.

    >>> parse_state_path("file:///tmp/s"), parse_state_path("memory://")
    (PosixPath('/tmp/s'), None)
    """
    if state is None:
        return None
    s = os.fspath(state)
    if s in ("memory://", "memory"):
        return None
    if s.startswith("file://"):
        s = s[len("file://") :]
    elif "://" in s:
        raise ConfigError(f"state must be a directory path, file:///dir or memory://, got {s!r}{hint}")
    if not s:
        raise ConfigError("state must name a directory, got an empty path")
    return Path(s)


class StateDir:
    """One state directory of one format, locked while open.

    Args:
        path: the directory (created if missing).
        format: the header's ``format`` string.
        version: the version this code writes and reads.
        journal_kind: the journal's kind tag (checked by the journal's own header).
        label: the name used in messages ("ContentSeen state").
        header: the header's file name; journal: the journal's.
        derived: files rebuilt from the journal; a headerless directory holding one is refused.
        too_old: why a state of an older version cannot be opened (the message's tail).
        oldest: the oldest version this code still reads (None: only ``version``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        format: str,
        version: int,
        journal_kind: str,
        label: str = "state",
        header: str = "header.json",
        journal: str = "journal.wal",
        derived: Sequence[str] = (),
        too_old: str = "start a new state directory",
        oldest: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self.version = version
        self.journal_kind = journal_kind
        self.label = label
        self.header = self.path / header
        self.journal_path = self.path / journal
        self.derived = [self.path / d for d in derived]
        self.too_old = too_old
        self.oldest = version if oldest is None else oldest
        self.journal: Journal | None = None
        self._lockfd: int | None = None

    def open(self, settings: dict[str, Any]) -> Journal:
        """Lock the directory, check or write its header, and open its journal."""
        if not self.path.is_dir():
            self.path.mkdir(parents=True, exist_ok=True)
            _fsync_dir(self.path.parent)  # the new directory's entry survives a power cut
        self._lock()
        try:
            if self.header.exists():
                meta = self._check_header(settings)
                journal = Journal(self.journal_path, kind=self.journal_kind, create=False)
                if meta["version"] < self.version:
                    self._write_header({**meta, "version": self.version})
            else:
                journal = self._create(settings)
        except BaseException:
            self.close()  # a state that does not open must not stay locked
            raise
        self.journal = journal
        return journal

    def _lock(self) -> None:
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"{self.label} {self.path} is open in another process; close it first") from None
        self._lockfd = fd

    def read_header(self) -> dict[str, Any]:
        """The header, checked for format and version (FormatError otherwise)."""
        try:
            meta = orjson.loads(self.header.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise FormatError(f"{self.header} is damaged ({exc}); restore it or start a new state") from None
        if (
            not isinstance(meta, dict)
            or meta.get("format") != self.format
            or not isinstance(meta.get("version"), int)
        ):
            raise FormatError(f"{self.header} is not a {self.label} header")
        if meta["version"] > self.version:
            raise FormatError(
                f"{self.header} is version {meta['version']}; this neardup reads version "
                f"{self.version}: upgrade neardup"
            )
        if meta["version"] < self.oldest:
            raise FormatError(f"{self.header} is version {meta['version']}, {self.too_old}")
        return meta

    def _check_header(self, settings: dict[str, Any]) -> dict[str, Any]:
        meta = self.read_header()
        for key, want in settings.items():
            have = meta.get(key)
            if have == want:
                continue
            if isinstance(have, dict) and isinstance(want, dict):  # name the settings that differ
                diff = [k for k in sorted(set(have) | set(want)) if have.get(k) != want.get(k)]
                built = ", ".join(f"{key}.{k}={have.get(k)!r}" for k in diff)
                now = ", ".join(repr(want.get(k)) for k in diff)
            else:
                diff, built, now = [key], f"{key}={have!r}", repr(want)
            hint = (
                "signatures of another match engine read text otherwise and cannot be compared: "
                "start a new state directory, or run the neardup version that built this one"
                if "engine" in diff
                else "open it with the same settings or use another state directory"
            )
            raise ConfigError(f"the state in {self.path} was built with {built}, not {now}; {hint}")
        if not self.journal_path.exists():
            raise FormatError(
                f"{self.journal_path} is missing: the journal of every record added to the state in "
                f"{self.path} is lost; restore it from a backup, or remove the directory to start a "
                "new state"
            )
        return meta

    def _write_header(self, head: dict[str, Any]) -> None:
        from neardup.io import atomic_write

        with atomic_write(self.header, join=False) as fh:
            fh.write(orjson.dumps(head, option=orjson.OPT_INDENT_2))

    def _create(self, settings: dict[str, Any]) -> Journal:
        # without its header a state's settings are unknown: never reopen it under the caller's
        empty = header_bytes(self.journal_kind)
        left = [f.name for f in self.derived if f.exists()]
        if self.journal_path.exists() and self.journal_path.stat().st_size > empty:
            left.append(self.journal_path.name)
        if not left:
            # a creation that was cut short (a crash before the header, the commit point, was
            # written) left at most an empty journal and temp files: start it over
            for name in (self.journal_path.name, self.header.name):
                for tmp in self.path.glob(f".{name}.*.tmp"):
                    tmp.unlink(missing_ok=True)
            self.journal_path.unlink(missing_ok=True)
        if left:
            raise FormatError(
                f"{self.header} is missing but {self.path} holds a state ({', '.join(sorted(left))}): "
                "the settings it was built with are unknown; restore the header from a backup, or "
                "remove the directory to start a new state"
            )
        # the journal first, then the header: a header always has its journal beside it
        journal = Journal(self.journal_path, kind=self.journal_kind)
        try:
            self._write_header({"format": self.format, "version": self.version, **settings})
        except BaseException:
            journal.close()
            raise
        return journal

    def sync(self) -> None:
        """fsync the journal."""
        if self.journal is not None:
            self.journal.sync()

    def close(self) -> None:
        """Close the journal and release the lock (idempotent); nothing is flushed."""
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self._lockfd is not None:
            os.close(self._lockfd)
            self._lockfd = None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
