"""The Spark job's input: documents as a DataFrame, parsed in the executors by ``neardup.io``'s
rules, numbered in the order ``neardup dedup`` reads them (file path, then line)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from neardup.exceptions import ConfigError, InputError
from neardup.io import json_object, record_from_obj

__all__ = ["DOCUMENT_SCHEMA", "read_documents"]

_LINE_BITS = 40  # a document's position key: file rank << 40 | line
#: the documents DataFrame: ``file`` and ``line`` give the position order (path, then line)
DOCUMENT_SCHEMA = "pos long, id string, text string, html string, order string"
_PARSED_SCHEMA = "file string, line long, id string, text string, html string, order string"


def read_documents(
    spark: Any,
    inputs: list[str],
    *,
    id_field: str = "id",
    text_field: str = "text",
    html_field: str | None = "html",
    skip_bad: bool = False,
    keep_field: str | None = None,
) -> Any:
    """Documents as a DataFrame (``DOCUMENT_SCHEMA``): ``pos`` orders them by file path, then line.

    JSONL(.gz) is read as text lines and parsed in the executors with the same rules (and the same
    ``file:line`` id fallback) as ``neardup dedup``; ``.txt(.gz)`` lines are documents as they are;
    Parquet rows go through the same checks (line: the row's number in its file). ``order`` is the
    value of ``keep_field`` as a string (what ``keep="newest"`` compares), null without one.

    ``pos`` is the file's rank among the input files (sorted by path: a small distinct job here)
    times 2**40 plus the line, so no global sort moves the texts; the driver numbers the documents
    0..n-1 in ``pos`` order.
    """
    from pyspark.sql import functions as F

    parquet = [p for p in inputs if p.endswith(".parquet")]
    text_inputs = [p for p in inputs if not p.endswith(".parquet")]
    frames = []
    if text_inputs:
        frames.append(_text_lines(spark.read.text(text_inputs)))
    if parquet:
        fields = (id_field, text_field, html_field, keep_field)
        frames.append(_parquet_rows(spark.read.parquet(*parquet), *fields))
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    parsed = df.mapInPandas(_parse(id_field, text_field, html_field, skip_bad, keep_field), _PARSED_SCHEMA)
    files = sorted(r[0] for r in df.select("file").distinct().collect())
    ranks = spark.createDataFrame(list(zip(files, range(len(files)), strict=True)), "file string, rank long")
    return parsed.join(F.broadcast(ranks), "file").select(
        (F.col("rank") * F.lit(1 << _LINE_BITS) + F.col("line")).alias("pos"), "id", "text", "html", "order"
    )


def _numbered(df: Any) -> Any:
    """Rows numbered from 1 within their file, in file order (``mono`` is Spark's read order)."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    w = Window.partitionBy("file").orderBy("mono")
    return df.withColumn("line", F.row_number().over(w).cast("long")).drop("mono")


def _text_lines(text: Any) -> Any:
    """The non-blank lines of JSONL and .txt inputs, numbered, to be parsed in the executors."""
    from pyspark.sql import functions as F

    null = F.lit(None).cast("string")
    lines = text.select(
        F.col("_metadata.file_path").alias("file"), F.monotonically_increasing_id().alias("mono"), "value"
    )
    lines = _numbered(lines).filter(F.trim(F.col("value")) != "")
    return lines.select("file", "line", "value", *(null.alias(c) for c in ("id", "text", "html", "order")))


def _parquet_rows(
    pdf: Any, id_field: str, text_field: str, html_field: str | None, keep_field: str | None
) -> Any:
    """Parquet rows with their fields as strings, numbered within their file."""
    from pyspark.sql import functions as F

    null = F.lit(None).cast("string")
    cols = pdf.columns
    if text_field not in cols and (not html_field or html_field not in cols):
        raise ConfigError(
            f"the Parquet input has no column {text_field!r}" + (f" or {html_field!r}" if html_field else "")
        )
    has_order = (
        keep_field is not None and keep_field in cols and keep_field not in (id_field, text_field, html_field)
    )

    def field(name: str | None, present: bool) -> Any:
        return F.col(str(name)).cast("string") if present else null

    pdf = pdf.select(
        F.col("_metadata.file_path").alias("file"),
        F.monotonically_increasing_id().alias("mono"),
        null.alias("value"),
        field(id_field, id_field in cols).alias("id"),
        field(text_field, text_field in cols).alias("text"),
        field(html_field, bool(html_field) and html_field in cols).alias("html"),
        field(keep_field, has_order).alias("order"),
    )
    return _numbered(pdf).select("file", "line", "value", "id", "text", "html", "order")


def _parse(
    id_field: str, text_field: str, html_field: str | None, skip_bad: bool, keep_field: str | None
) -> Any:
    """Lines (``value``) or Parquet rows (``id``, ``text``, ``html``, ``order``) -> documents, with
    ``neardup.io``'s rules and messages for bad records."""

    def parse(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        for pdf in batches:
            rows: list[tuple[str, int, str, str | None, str | None, str | None]] = []
            for file, line, value, doc_id, text, html, order in zip(
                *(pdf[c].tolist() for c in ("file", "line", "value", "id", "text", "html", "order")),
                strict=True,
            ):
                src = str(file).removeprefix("file://").removeprefix("file:")
                line = int(line)
                if value is not None and src.endswith((".txt", ".txt.gz")):  # a plain-text line
                    rows.append((file, line, f"{Path(src).name}:{line}", str(value).strip(), None, None))
                    continue
                try:
                    if value is not None:
                        obj = json_object(value, src, line)
                        got = (
                            obj.get(keep_field)
                            if keep_field and keep_field not in (id_field, text_field, html_field)
                            else None
                        )
                        order = None if got is None else str(got)
                    else:
                        obj = {k: v for k, v in ((id_field, doc_id), (text_field, text)) if v is not None}
                        if html_field and html is not None:
                            obj[html_field] = html
                    rec = record_from_obj(obj, src, line, id_field, text_field, html_field)
                except InputError:
                    if skip_bad:
                        continue
                    raise
                rows.append((file, line, rec.id, rec.text, rec.html, order))
            yield pd.DataFrame(rows, columns=["file", "line", "id", "text", "html", "order"])

    return parse
