"""The Spark job's output, written by the executors with Spark's own writers.

The rows are the ones ``neardup dedup`` writes (``DedupResult.rows``). The format follows the
output's suffix or ``--format``: JSON Lines (the very lines ``neardup dedup`` writes, through
``DataFrame.write.text``), gzipped JSON Lines, or Parquet (``DataFrame.write.parquet``, typed
columns). The output is a directory of parts, ``part-00000.jsonl`` and so on, in document order:
read one after another they are ``neardup dedup``'s output. It is written beside the target and
renamed over it when complete, so a failed run leaves the old output as it was.

>>> output_format("out.parquet"), output_format("hdfs:///x/out.jsonl.gz/"), output_format("o", "jsonl")
('parquet', 'jsonl.gz', 'jsonl')
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import orjson

from neardup.exceptions import ConfigError, StoreError

__all__ = ["OUTPUT_FORMATS", "OutputFormat", "output_format", "rows_table", "write_frame", "write_output"]

OutputFormat = Literal["jsonl", "jsonl.gz", "parquet"]
#: each output format, the suffixes that choose it and the suffix of its parts
OUTPUT_FORMATS: dict[str, tuple[tuple[str, ...], str]] = {
    "jsonl": ((".jsonl", ".ndjson", ".json"), ".jsonl"),
    "jsonl.gz": ((".jsonl.gz", ".ndjson.gz", ".json.gz"), ".jsonl.gz"),
    "parquet": ((".parquet", ".pq"), ".parquet"),
}
#: the typed columns of the Parquet output; evidence fields not listed here get pyarrow's type
_TYPES = {
    "against": "string",
    "similarity": "float64",
    "containment": "list<float64>",
    "number_conflicts": "int32",
    "numbers_aligned": "int32",
    "hamming": "int32",
    "same_layout": "bool",
}


def output_format(out: str, fmt: str | None = None) -> OutputFormat:
    """``fmt`` when given, else the format the output's suffix names; ConfigError otherwise."""
    names = " or ".join(OUTPUT_FORMATS)
    if fmt:
        if fmt not in OUTPUT_FORMATS:
            raise ConfigError(f"unknown output format {fmt!r}; use {names}")
        return fmt  # type: ignore[return-value]
    if not out:
        raise ConfigError("the output name is empty; name a directory such as out.jsonl")
    name = out.rstrip("/").rsplit("/", 1)[-1].lower()
    order: tuple[OutputFormat, ...] = ("jsonl.gz", "parquet", "jsonl")
    for key in order:
        if name.endswith(OUTPUT_FORMATS[key][0]):
            return key
    dot = name.find(".")
    what = f"unknown output suffix {name[dot:]!r}" if dot >= 0 else "an output name without a suffix"
    raise ConfigError(
        f"{out}: {what}; name it .jsonl, .jsonl.gz or .parquet (or pass --format {names.replace(' or ', ', ')})"
    )


def _type(pa: Any, name: str, values: Sequence[Any]) -> Any:
    spec = _TYPES.get(name)
    if spec == "list<float64>":
        return pa.list_(pa.float64())
    if spec is not None:
        return pa.type_for_alias(spec)
    return pa.array([v for v in values if v is not None]).type


def rows_table(rows: Iterable[dict[str, Any]]) -> Any:
    """The output rows as an Arrow table: id, cluster, duplicate_of, kind, related_to (strings),
    distance (int32), evidence (a struct of the fields the rows hold)."""
    import pyarrow as pa

    rows = list(rows)
    cols: dict[str, Any] = {
        k: pa.array([r.get(k) for r in rows], pa.string())
        for k in ("id", "cluster", "duplicate_of", "kind", "related_to")
    }
    cols["distance"] = pa.array([r.get("distance") for r in rows], pa.int32())
    evidence = [r.get("evidence") for r in rows]
    keys = list(dict.fromkeys(k for e in evidence if e for k in e)) or list(_TYPES)
    struct = pa.struct([(k, _type(pa, k, [e.get(k) for e in evidence if e])) for k in keys])
    cols["evidence"] = pa.array(evidence, struct)
    return pa.table(cols)


def write_output(
    spark: Any, out: str, rows: Iterable[dict[str, Any]], fmt: str | None = None, *, parts: int | None = None
) -> OutputFormat:
    """Write the rows to ``out`` (a directory of parts, local or on any Hadoop file system) in the
    format of its suffix or ``fmt``; the executors write the parts. Returns the format written."""
    import pyarrow as pa

    from neardup.integrations.spark.errors import spark_errors

    kind = output_format(out, fmt)
    if kind == "parquet":
        table = rows_table(rows)
    else:
        table = pa.table({"value": pa.array([orjson.dumps(r).decode() for r in rows], pa.string())})
    df = spark.createDataFrame(table)
    if parts is not None:
        df = df.coalesce(max(1, parts))
    with spark_errors():
        write_frame(spark, out, df, kind)
    return kind


def write_frame(spark: Any, out: str, df: Any, kind: OutputFormat) -> None:
    """Write a DataFrame of output rows (one ``value`` column of JSON lines, or the Parquet
    columns) as ``out``'s parts, in its partitions' order: into a hidden sibling directory, then
    renamed over the target."""
    jvm = spark.sparkContext._jvm
    target = jvm.org.apache.hadoop.fs.Path(out.rstrip("/") or out)
    fs = target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    tag = uuid.uuid4().hex[:12]
    parent = target.getParent()
    tmp = jvm.org.apache.hadoop.fs.Path(parent, f".{target.getName()}.tmp-{tag}")
    old = jvm.org.apache.hadoop.fs.Path(parent, f".{target.getName()}.old-{tag}")
    try:
        if kind == "parquet":
            df.write.parquet(tmp.toString())
        else:
            compression = "gzip" if kind == "jsonl.gz" else "none"
            df.write.option("compression", compression).text(tmp.toString())
        _name_parts(fs, tmp, OUTPUT_FORMATS[kind][1])
        had = fs.exists(target)
        if had and not fs.rename(target, old):
            raise StoreError(f"{out}: could not move the old output aside; check the permissions")
        if not fs.rename(tmp, target):
            if had:
                fs.rename(old, target)
            raise StoreError(f"{out}: could not rename the new output into place")
        if had:
            fs.delete(old, True)
    finally:
        if fs.exists(tmp):
            fs.delete(tmp, True)


def _name_parts(fs: Any, folder: Any, suffix: str) -> None:
    """Spark's ``part-00000-<job>-c000.txt`` -> ``part-00000.jsonl``: in order, with the suffix
    ``neardup dedup`` reads them by."""
    names = sorted(
        str(s.getPath().getName())
        for s in fs.listStatus(folder)
        if str(s.getPath().getName()).startswith("part-")
    )
    for i, name in enumerate(names):
        src = folder.suffix(f"/{name}")
        dst = folder.suffix(f"/part-{i:05d}{suffix}")
        if not fs.rename(src, dst):
            raise StoreError(f"could not rename {src.toString()} to {dst.toString()}")
