"""The Spark job's input: the files ``neardup dedup`` reads, read by Spark's own sources.

Files are listed on the driver from the file system's metadata (Spark's file index, no data read);
JSON Lines and ``.txt`` files are read by ``spark.read.text`` (split like any text file), Parquet
files and directories by ``spark.read.parquet``. Nothing is shuffled: a document's place is
``(file, split, row)``, its file's rank in ``neardup dedup``'s reading order, the byte offset where
its split of the file starts and its row within the split, all known in the task that reads it.
The executors parse each row with ``neardup.io``'s rules and sign it in the same pass
(``job.signature_df``); the line a row is on is only needed for ids made from ``file:line`` and for
messages, so the driver works it out from the line count of each split, which the tasks report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal
from urllib.parse import unquote

from neardup.exceptions import InputError
from neardup.io import _SUFFIXES as INPUT_SUFFIXES
from neardup.io import json_object, record_from_obj

__all__ = ["INPUT_SUFFIXES", "InputFile", "SparkDocuments", "list_inputs", "read_documents"]

Kind = Literal["jsonl", "txt", "parquet"]


@dataclass(frozen=True)
class InputFile:
    """One input file: ``uri`` as Hadoop names it, ``source`` as ``neardup dedup`` names it."""

    uri: str
    source: str
    kind: Kind

    @property
    def name(self) -> str:
        return PurePosixPath(self.source).name


def file_key(path: str) -> str:
    """A file's path in one spelling whether Spark (URL-encoded, ``file:/``) or Hadoop
    (``file:///``, plain) wrote it.

    >>> file_key("file:/tmp/a%20b.jsonl") == file_key("file:///tmp/a b.jsonl")
    True
    """
    path = unquote(path)
    if path.startswith("file:"):
        path = "file:/" + path[len("file:") :].lstrip("/")
    return path


def _kind(name: str) -> Kind:
    if name.endswith(".parquet"):
        return "parquet"
    return "txt" if name.endswith((".txt", ".txt.gz")) else "jsonl"


def list_inputs(spark: Any, inputs: list[str]) -> list[InputFile]:
    """The files ``neardup dedup`` reads, in its order: files as given, the input files of a
    directory (any depth; names ending in ``neardup.io``'s suffixes) sorted by path. Directories are
    listed by Spark's file index (in parallel when large: metadata only); files whose names start
    with ``_`` or ``.`` are left out, as Spark leaves them out."""
    from neardup.integrations.spark.errors import spark_errors

    with spark_errors():
        return _list_inputs(spark, inputs)


def _list_inputs(spark: Any, inputs: list[str]) -> list[InputFile]:
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    out: list[InputFile] = []
    for given in inputs:
        hpath = jvm.org.apache.hadoop.fs.Path(given)
        fs = hpath.getFileSystem(conf)
        if not fs.exists(hpath):
            raise InputError("no such file", source=given)
        status = fs.getFileStatus(hpath)
        if not status.isDirectory():
            out.append(InputFile(status.getPath().toString(), given, _kind(status.getPath().getName())))
            continue
        root = file_key(status.getPath().toString()).rstrip("/") + "/"
        reader = spark.read.format("text").option("recursiveFileLookup", "true")
        listed = reader.load(_literal(status.getPath().toString())).inputFiles()
        found: list[tuple[list[str], str]] = []
        for uri in listed:
            key = file_key(uri)
            rel = key[len(root) :] if key.startswith(root) else key.rsplit("/", 1)[-1]
            if rel.endswith(INPUT_SUFFIXES):
                found.append((rel.split("/"), key))
        if not found:
            raise InputError(
                f"directory has no input files (expected {', '.join(INPUT_SUFFIXES)})", source=given
            )
        base = given.rstrip("/") or given
        for parts, key in sorted(found):
            out.append(InputFile(key, f"{base}/{'/'.join(parts)}", _kind(parts[-1])))
    return out


def _literal(uri: str) -> str:
    """A file path Spark reads as it is: its glob characters escaped (``a[1].jsonl``).

    >>> print(_literal("file:/d/a b[1]{x}*.jsonl"))
    file:/d/a b\\[1\\]\\{x\\}\\*.jsonl
    """
    return "".join("\\" + c if c in "\\[]{}*?" else c for c in uri)


@dataclass(frozen=True)
class SparkDocuments:
    """The input of the Spark job: its files, in reading order, and how to read their records.

    ``lines`` (text files: ``file``, ``split``, ``value`` as bytes; the row in the split is counted
    by the task) and ``rows`` (Parquet: ``file``, ``row`` and the record's fields, typed as stored) are DataFrames that have read
    nothing yet; ``line_counts`` is the accumulator the tasks add each split's line count to.
    """

    files: list[InputFile]
    lines: Any
    rows: Any
    line_counts: Any
    id_field: str = "id"
    text_field: str = "text"
    html_field: str | None = "html"
    keep_field: str | None = None
    skip_bad: bool = False

    def rank(self) -> dict[str, int]:
        return {file_key(f.uri): i for i, f in enumerate(self.files)}


def _dict_accumulator(sc: Any) -> Any:
    from pyspark.accumulators import AccumulatorParam

    class Merge(AccumulatorParam):  # type: ignore[type-arg]
        """A split's count is the same whoever counts it: merging is idempotent (task retries)."""

        def zero(self, value: dict[Any, int]) -> dict[Any, int]:
            return {}

        def addInPlace(self, a: dict[Any, int], b: dict[Any, int]) -> dict[Any, int]:
            a.update(b)
            return a

    return sc.accumulator({}, Merge())


def read_documents(
    spark: Any,
    inputs: list[str],
    *,
    id_field: str = "id",
    text_field: str = "text",
    html_field: str | None = "html",
    skip_bad: bool = False,
    keep_field: str | None = None,
) -> SparkDocuments:
    """The input files and the DataFrames that read them (nothing is read here but metadata).

    A Parquet file that cannot be read (truncated, not Parquet) is an ``InputError`` naming it
    when Spark reads the footers (all of them: ``mergeSchema``, so files may differ in columns).
    """
    from pyspark.sql import functions as F

    from neardup.integrations.spark.errors import spark_errors

    files = list_inputs(spark, inputs)
    text = [_literal(f.uri) for f in files if f.kind != "parquet"]
    parquet = [_literal(f.uri) for f in files if f.kind == "parquet"]
    lines = rows = None
    with spark_errors(files):
        if text:
            lines = (
                spark.read.option("lineSep", "\n")
                .text(text)
                .select(
                    F.col("_metadata.file_path").alias("file"),
                    F.col("_metadata.file_block_start").alias("split"),
                    F.col("value").cast("binary").alias("value"),
                )
            )
        if parquet:
            pdf = spark.read.option("mergeSchema", "true").parquet(*parquet)
            wanted = [id_field, text_field, html_field, keep_field]
            have = [c for c in dict.fromkeys(c for c in wanted if c) if c in pdf.columns]
            rows = pdf.select(
                F.col("_metadata.file_path").alias("file"),
                F.col("_metadata.row_index").alias("row"),
                *(F.col(f"`{c}`") for c in have),
            )
    return SparkDocuments(
        files=files,
        lines=lines,
        rows=rows,
        line_counts=_dict_accumulator(spark.sparkContext),
        id_field=id_field,
        text_field=text_field,
        html_field=html_field,
        keep_field=keep_field,
        skip_bad=skip_bad,
    )


# ---------------------------------------------------------------------------------------- executors
#: a parsed record: (rank, split, row, id or None for ``file:line``, text, html, order, error)
Parsed = tuple[int, int, int, str | None, str | None, str | None, str | None, str | None]


def bare_message(err: InputError) -> str:
    """An InputError's message without its ``source:line:`` prefix (the driver puts it back)."""
    if err.source is None:
        return str(err)
    where = err.source if err.line is None else f"{err.source}:{err.line}"
    return str(err).removeprefix(f"{where}: ")


def _record(obj: dict[str, Any], docs: SparkDocuments, place: tuple[int, int, int]) -> tuple[Parsed, bool]:
    """A parsed object as a record (or an error row); True when the record is kept."""
    try:
        rec = record_from_obj(obj, "x", 0, docs.id_field, docs.text_field, docs.html_field)
    except InputError as err:
        return (*place, None, None, None, None, bare_message(err)), False
    keep = docs.keep_field
    got = obj.get(keep) if keep and keep not in (docs.id_field, docs.text_field, docs.html_field) else None
    doc_id = None if obj.get(docs.id_field) is None else rec.id
    return (*place, doc_id, rec.text, rec.html, None if got is None else str(got), None), True


def parse_lines(
    docs: SparkDocuments, rank: dict[str, int], batches: Iterator[Any], counts: dict[tuple[int, int], int]
) -> Iterator[list[Parsed]]:
    """Text lines -> records, one list per Arrow batch; ``counts`` gets each split's line count
    (blank lines included: they count in ``neardup dedup``'s line numbers)."""
    kinds = {file_key(f.uri): f.kind for f in docs.files}
    for rb in batches:
        out: list[Parsed] = []
        files, splits, values = (rb.column(i).to_pylist() for i in range(3))
        for file, split, raw in zip(files, splits, values, strict=True):
            key = file_key(file)
            r = rank[key]
            k = counts.get((r, split), 0)
            counts[(r, split)] = k + 1
            if not raw.strip():
                continue
            place = (r, int(split), k)
            if kinds[key] == "txt":
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    msg = f"is not UTF-8 (bad byte at offset {exc.start}); convert it with iconv"
                    out.append((*place, None, None, None, None, msg))
                    continue
                if line.strip():
                    out.append((*place, None, line.strip(), None, None, None))
                continue
            try:
                obj = json_object(raw, "x", 0)
            except InputError as err:
                out.append((*place, None, None, None, None, bare_message(err)))
                continue
            out.append(_record(obj, docs, place)[0])
        yield out


def parse_rows(docs: SparkDocuments, rank: dict[str, int], batches: Iterator[Any]) -> Iterator[list[Parsed]]:
    """Parquet rows -> records, one list per Arrow batch, the fields typed as stored (``str`` of the
    id and keep field, as ``neardup dedup`` does)."""
    for rb in batches:
        out: list[Parsed] = []
        names = rb.schema.names[2:]
        cols = [rb.column(i).to_pylist() for i in range(rb.num_columns)]
        for i in range(rb.num_rows):
            obj = {name: cols[j + 2][i] for j, name in enumerate(names)}
            out.append(_record(obj, docs, (rank[file_key(cols[0][i])], 0, int(cols[1][i])))[0])
        yield out
