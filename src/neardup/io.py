"""Read documents from JSONL, JSONL.gz, Parquet, plain text, or a directory of them.

One reader serves every command (fingerprint, nshash, dedup, eval), so bad input is reported the
same way everywhere: a one-line error naming the file, the line and the field.

>>> from neardup.io import iter_records
>>> # for rec in iter_records(["news.jsonl.gz"]): print(rec.id, rec.text[:10])
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import orjson

from neardup._deps import require
from neardup.exceptions import InputError

__all__ = ["ReadStats", "Record", "atomic_write", "expand_inputs", "iter_json_objects", "iter_records"]

_SUFFIXES = (".jsonl", ".jsonl.gz", ".json.gz", ".ndjson", ".parquet", ".txt", ".txt.gz")


@dataclass(slots=True)
class Record:
    """One input document. ``text`` or ``html`` is set; ``extra`` keeps the other fields."""

    id: str
    text: str | None
    html: str | None = None
    source: str = ""
    line: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ReadStats:
    read: int = 0
    skipped: int = 0
    first_error: str | None = None

    def skip(self, err: InputError) -> None:
        self.skipped += 1
        if self.first_error is None:
            self.first_error = str(err)


def expand_inputs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named, and the input files found (sorted) in directories named."""
    out: list[Path] = []
    for p in map(Path, paths):
        if str(p) == "-":
            out.append(p)
        elif p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(_SUFFIXES))
            if not found:
                raise InputError(
                    f"directory has no input files (expected {', '.join(_SUFFIXES)})", source=str(p)
                )
            out.extend(found)
        elif not p.exists():
            raise InputError("no such file", source=str(p))
        else:
            out.append(p)
    return out


def _open_text(path: Path) -> IO[bytes]:
    if str(path) == "-":
        import sys

        return sys.stdin.buffer
    if path.name.endswith(".gz"):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return open(path, "rb")


def _decode(raw: bytes, source: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"is not UTF-8 (bad byte at offset {exc.start}); convert it with iconv", source=source, line=line
        ) from None


def _load_object(raw: bytes, src: str, lineno: int) -> dict[str, Any]:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        _decode(raw, src, lineno)  # report encoding problems as such
        raise InputError("is not valid JSON", source=src, line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source=src, line=lineno)
    return obj


def _parse_json_line(
    raw: bytes, src: str, lineno: int, id_field: str, text_field: str, html_field: str | None
) -> Record:
    return _record_from_obj(_load_object(raw, src, lineno), src, lineno, id_field, text_field, html_field)


def iter_json_objects(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSONL or JSONL.gz file of any fields.

    A bad line raises InputError naming the file and line.
    """
    src = str(path)
    try:
        with _open_text(Path(path)) as fh:
            for lineno, raw in enumerate(fh, 1):
                if raw.strip():
                    yield lineno, _load_object(raw, src, lineno)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"cannot read: {exc}", source=src) from None


def _iter_jsonl(
    path: Path, id_field: str, text_field: str, html_field: str | None
) -> Iterator[Record | InputError]:
    src = str(path)
    try:
        with _open_text(path) as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    yield _parse_json_line(raw, src, lineno, id_field, text_field, html_field)
                except InputError as err:
                    yield err  # a bad line is handed on, so the caller may skip it and go on
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"cannot read: {exc}", source=src) from None


def _record_from_obj(
    obj: dict[str, Any], src: str, lineno: int, id_field: str, text_field: str, html_field: str | None
) -> Record:
    text = obj.get(text_field)
    html = obj.get(html_field) if html_field else None
    if text is None and html is None:
        want = f"{text_field!r}" + (f" or {html_field!r}" if html_field else "")
        raise InputError(f"has no field {want}", source=src, line=lineno, field=text_field)
    if text is not None and not isinstance(text, str):
        raise InputError(
            f"field {text_field!r} must be a string, got {type(text).__name__}",
            source=src,
            line=lineno,
            field=text_field,
        )
    if html is not None and not isinstance(html, str):
        raise InputError(
            f"field {html_field!r} must be a string, got {type(html).__name__}",
            source=src,
            line=lineno,
            field=html_field,
        )
    if not (text or html or "").strip():
        raise InputError(f"field {text_field!r} is empty", source=src, line=lineno, field=text_field)
    doc_id = obj.get(id_field)
    doc_id = f"{Path(src).name}:{lineno}" if doc_id is None else str(doc_id)
    extra = {k: v for k, v in obj.items() if k not in (id_field, text_field, html_field)}
    return Record(id=doc_id, text=text, html=html, source=src, line=lineno, extra=extra)


def _iter_text_lines(path: Path) -> Iterator[Record | InputError]:
    src = str(path)
    try:
        with _open_text(path) as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    text = _decode(raw, src, lineno).strip()
                except InputError as err:
                    yield err
                    continue
                if text:
                    yield Record(id=f"{path.name}:{lineno}", text=text, source=src, line=lineno)
    except OSError as exc:
        raise InputError(f"cannot read: {exc}", source=src) from None


def _iter_parquet(
    path: Path, id_field: str, text_field: str, html_field: str | None
) -> Iterator[Record | InputError]:
    pq = require("pyarrow.parquet", "parquet", purpose="reading Parquet input")
    src = str(path)
    try:
        pfile = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(f"is not a readable Parquet file: {exc}", source=src) from None
    lineno = 0
    for batch in pfile.iter_batches(batch_size=4096):
        for obj in batch.to_pylist():
            lineno += 1
            try:
                yield _record_from_obj(obj, src, lineno, id_field, text_field, html_field)
            except InputError as err:
                yield err


def iter_records(
    paths: Iterable[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    html_field: str | None = "html",
    skip_bad: bool = False,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Yield the documents of the given files and directories, in order.

    Bad records raise InputError naming file, line and field; with ``skip_bad`` they are counted
    in ``stats`` and skipped.
    """
    stats = stats if stats is not None else ReadStats()
    for path in expand_inputs(paths):
        name = path.name
        if name.endswith(".parquet"):
            it: Iterator[Record | InputError] = _iter_parquet(path, id_field, text_field, html_field)
        elif name.endswith((".txt", ".txt.gz")):
            it = _iter_text_lines(path)
        else:
            it = _iter_jsonl(path, id_field, text_field, html_field)
        for rec in it:
            if isinstance(rec, InputError):
                if not skip_bad:
                    raise rec
                stats.skip(rec)
                continue
            stats.read += 1
            yield rec


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb") -> Iterator[IO[Any]]:
    """Write a file atomically: a temp file beside it, fsync, rename. A crash leaves the old file.

    >>> with atomic_write("/tmp/neardup-doctest.txt", "w") as fh:
    ...     _ = fh.write("ok")
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; a normal file honours the umask
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
