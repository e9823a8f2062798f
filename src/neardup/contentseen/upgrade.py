"""Convert a ContentSeen state of version 1 (a JSON-lines journal) to the checksummed journal.

    python -m neardup.contentseen.upgrade ./crawl-state

Every line of the old ``docs.wal`` is checked (JSON, the fields of a document, ids 1, 2, 3, ...)
before anything is written; the new journal is written beside it and renamed into place, then the
header's version is raised. A torn last line (a write that never completed) is dropped, as the old
reader did. The old journal is kept as ``docs.wal.v1``.

>>> # upgrade_state("./crawl-state")  # -> number of documents converted
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

import orjson

from neardup.contentseen.contentseen import _HEADER, _JOURNAL_KIND, _LOCK, _WAL, FORMAT, VERSION, _Doc
from neardup.exceptions import FormatError, NeardupError, StoreError
from neardup.io import atomic_write
from neardup.stores.journal import Journal

__all__ = ["upgrade_state"]


def upgrade_state(path: str | os.PathLike[str]) -> int:
    """Rewrite a version-1 state's journal in the current format; the number of documents."""
    state = Path(path)
    header = state / _HEADER
    try:
        meta = orjson.loads(header.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise FormatError(f"{header}: cannot read the state header ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise FormatError(f"{header} is not a ContentSeen state header")
    if meta.get("version") == VERSION:
        return -1
    if meta.get("version") != 1:
        raise FormatError(f"{header} is version {meta.get('version')!r}; only version 1 is converted")
    with open(state / _LOCK, "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise StoreError(f"ContentSeen state {state} is open in another process; close it first") from None
        old = state / _WAL
        lines = old.read_bytes().split(b"\n") if old.exists() else []
        payloads: list[bytes] = []
        for n, line in enumerate(lines):
            if not line:
                continue
            try:
                doc = _Doc.from_record(orjson.loads(line))
            except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                if n == len(lines) - 1:  # a torn last line: never acknowledged
                    break
                raise FormatError(f"{old}:{n + 1}: damaged journal line ({exc})") from None
            if doc.id != len(payloads) + 1:
                raise FormatError(f"{old}:{n + 1}: document {doc.id}, expected {len(payloads) + 1}")
            payloads.append(doc.record())
        tmp = state / f".{_WAL}.upgrade"
        tmp.unlink(missing_ok=True)
        journal = Journal(tmp, kind=_JOURNAL_KIND)
        try:
            for _ in journal.replay():
                pass
            journal.append_many(payloads, sync=True)
        finally:
            journal.close()
        if old.exists():
            (state / f"{_WAL}.v1").unlink(missing_ok=True)
            os.link(old, state / f"{_WAL}.v1")
        os.replace(tmp, old)
        with atomic_write(header) as fh:
            fh.write(orjson.dumps({**meta, "version": VERSION}, option=orjson.OPT_INDENT_2))
    return len(payloads)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m neardup.contentseen.upgrade STATE_DIR", file=sys.stderr)
        return 2
    try:
        n = upgrade_state(args[0])
    except (NeardupError, OSError) as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args[0]}: " + ("already current" if n < 0 else f"{n} documents converted"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
