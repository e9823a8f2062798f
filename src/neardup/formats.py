"""Output formats: JSON Lines, gzipped JSON Lines and Parquet, chosen by the file's suffix or named.

Every command that writes records (``neardup dedup --out`` and ``--keep-out``) goes through
:func:`write_records`, so an output named ``kept.parquet`` is Parquet and a name with a suffix
nothing here writes is an error, never a silent JSONL file.

>>> output_format("kept.parquet"), output_format("out.jsonl.gz"), output_format("x.csv", "jsonl")
('parquet', 'jsonl.gz', 'jsonl')
>>> output_format("x.csv")
Traceback (most recent call last):
...
neardup.exceptions.ConfigError: x.csv: unknown output suffix '.csv'; name it .jsonl, .jsonl.gz or .parquet (or pass --format jsonl, jsonl.gz or parquet)
"""

from __future__ import annotations

import gzip
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import orjson

from neardup._deps import require
from neardup.exceptions import ConfigError, InputError
from neardup.io import atomic_write

__all__ = [
    "FORMATS",
    "ROW_SCHEMA_FIELDS",
    "OutputFormat",
    "input_schema",
    "output_format",
    "row_schema",
    "write_records",
]

OutputFormat = Literal["jsonl", "jsonl.gz", "parquet"]
#: the formats records are written in, and the suffixes that choose each
FORMATS: dict[str, tuple[str, ...]] = {
    "jsonl": (".jsonl", ".ndjson", ".json"),
    "jsonl.gz": (".jsonl.gz", ".ndjson.gz", ".json.gz"),
    "parquet": (".parquet", ".pq"),
}
#: Parquet rows written per row group (and records held at once while writing)
BATCH_ROWS = 8192


def _is_stream(path: str) -> bool:
    if path == "-" or os.path.abspath(path).startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)  # a FIFO or a device (written as a stream), or refused when written


def output_format(path: str | os.PathLike[str], fmt: str | None = None) -> OutputFormat:
    """The format of an output: ``fmt`` when given, else the file's suffix; a stream (``-``,
    ``/dev/stdout``, a FIFO) is JSON Lines (and what the writer refuses, a directory, is its to say). An unknown suffix is a ConfigError naming it."""
    if fmt:
        if fmt not in FORMATS:
            raise ConfigError(f"unknown output format {fmt!r}; use {_names()}")
        return fmt  # type: ignore[return-value]
    name = os.fspath(path)
    if not name:
        raise ConfigError(
            "the output name is empty; name a file such as out.jsonl (or - for standard output)"
        )
    if _is_stream(name):
        return "jsonl"
    lower = Path(name).name.lower()
    for key in ("jsonl.gz", "parquet", "jsonl"):  # .jsonl.gz before .jsonl
        if lower.endswith(FORMATS[key]):
            return key
    suffix = "".join(Path(lower).suffixes[-2:]) if lower.endswith(".gz") else Path(lower).suffix
    what = f"unknown output suffix {suffix!r}" if suffix else "an output name without a suffix"
    raise ConfigError(f"{name}: {what}; name it .jsonl, .jsonl.gz or .parquet (or pass --format {_names()})")


def _names() -> str:
    keys = list(FORMATS)
    return ", ".join(keys[:-1]) + " or " + keys[-1]


#: the columns of ``neardup dedup --out`` in Parquet (the JSONL output contract, typed)
ROW_SCHEMA_FIELDS = ("id", "cluster", "duplicate_of", "kind", "related_to", "distance", "evidence")


def row_schema() -> Any:
    """The Arrow schema of the dedup output rows (``DedupResult.rows``)."""
    pa = require("pyarrow", "parquet", purpose="writing Parquet")
    evidence = pa.struct(
        [
            ("against", pa.string()),
            ("similarity", pa.float64()),
            ("containment", pa.list_(pa.float64())),
            ("number_conflicts", pa.int32()),
            ("numbers_aligned", pa.int32()),
            ("hamming", pa.int32()),
            ("same_layout", pa.bool_()),
            # the text evidence (neardup.match.Evidence, neardup.dedup.rethreshold.decision_rows)
            ("adds", pa.list_(pa.int64())),
            ("passage", pa.int64()),
            ("repeated", pa.int64()),
            ("chars", pa.list_(pa.int64())),
            ("quoted", pa.list_(pa.int64())),
            ("occasion", pa.bool_()),
            ("occasion_replaced", pa.bool_()),
            ("reactions", pa.bool_()),
            ("leads", pa.list_(pa.int64())),
            ("blocks", pa.list_(pa.int64())),
            ("pieces", pa.list_(pa.int64())),
            ("alike", pa.int64()),
            ("substitutions", pa.int64()),
            ("substituted", pa.list_(pa.int64())),
        ]
    )
    return pa.schema(
        [
            ("id", pa.string()),
            ("cluster", pa.string()),
            ("duplicate_of", pa.string()),
            ("kind", pa.string()),
            ("related_to", pa.string()),
            ("distance", pa.int32()),
            ("evidence", evidence),
        ]
    )


def input_schema(paths: Iterable[str | os.PathLike[str]]) -> Any | None:
    """The Arrow schema shared by Parquet inputs (files, or the files of directories), or None
    when an input is not Parquet or two schemas differ (the output schema is then inferred)."""
    from neardup.io import expand_inputs

    files = [p for p in expand_inputs(paths) if str(p) != "-"]
    if not files or not all(p.name.endswith(".parquet") for p in files):
        return None
    pq = require("pyarrow.parquet", "parquet", purpose="reading Parquet input")
    schema = None
    for f in files:
        try:
            got = pq.read_schema(f)
        except Exception:  # pyarrow raises several unrelated types for a bad file
            return None
        got = got.remove_metadata()
        if schema is None:
            schema = got
        elif not got.equals(schema):
            return None
    return schema


def _batches(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_records(
    path: str | os.PathLike[str],
    rows: Iterable[dict[str, Any]],
    fmt: str | None = None,
    *,
    schema: Any | None = None,
) -> int:
    """Write rows atomically in the format of ``path`` (or ``fmt``); returns the number written.

    Parquet is written a row group at a time with ``schema`` (an Arrow schema: the columns and
    their order; a row's other keys are dropped, its missing ones are null), or the schema of the
    first row group when none is given.

    >>> import tempfile, pyarrow.parquet as pq
    >>> p = tempfile.mkdtemp() + "/rows.parquet"
    >>> write_records(p, [{"id": "a", "n": 1}, {"id": "b", "n": 2}])
    2
    >>> pq.read_table(p).to_pylist()
    [{'id': 'a', 'n': 1}, {'id': 'b', 'n': 2}]
    """
    kind = output_format(path, fmt)
    if kind == "parquet":
        return _write_parquet(path, rows, schema)
    n = 0
    with atomic_write(path, "wb") as fh:
        out: Any = gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) if kind == "jsonl.gz" else fh
        lines: list[bytes] = []
        for row in rows:
            lines.append(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
            if len(lines) == 512:  # one write a block of lines, not one a line
                out.write(b"".join(lines))
                n += len(lines)
                lines.clear()
        out.write(b"".join(lines))
        n += len(lines)
        if out is not fh:
            out.close()
    return n


def _write_parquet(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]], schema: Any | None) -> int:
    pa = require("pyarrow", "parquet", purpose="writing Parquet")
    pq = require("pyarrow.parquet", "parquet", purpose="writing Parquet")
    n = 0
    with atomic_write(path, "wb") as fh:
        writer = None
        try:
            for batch in _batches(rows, BATCH_ROWS):
                try:
                    table = pa.Table.from_pylist(batch, schema=schema)
                except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                    raise InputError(
                        f"records {n + 1}-{n + len(batch)} do not fit the Parquet schema "
                        f"({exc}); write JSON Lines instead",
                        source=os.fspath(path),
                    ) from None
                if writer is None:
                    schema = table.schema
                    writer = pq.ParquetWriter(fh, schema)
                writer.write_table(table)
                n += len(batch)
            if writer is None:  # no rows: an empty file with the columns
                empty = schema if schema is not None else pa.schema([])
                writer = pq.ParquetWriter(fh, empty)
                writer.write_table(empty.empty_table())
        finally:
            if writer is not None:
                writer.close()
    return n
