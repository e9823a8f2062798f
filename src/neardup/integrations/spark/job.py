"""Seed 001's MapReduce plan as a PySpark job on DataFrames, with the same results as ``neardup dedup``.

1. Fingerprints in the executors (``mapInPandas``, Arrow): SimHash, exact hash, nshash per document.
2. Within the batch: exact and identical-fingerprint groups with window minimums; the permuted-table
   keys of the distinct fingerprints exploded, shuffled by (table, key), sorted, and each group
   joined in numba (spanning forests, big groups re-split); shared sentence hashes likewise.
3. Against the corpus: the batch's tables are broadcast, the corpus index (Parquet segments) is
   streamed through them with ``mapInPandas``, and a min-reduce per batch document (the OR with a
   witness) says which corpus document it duplicates.
4. The driver joins the edges into clusters with the very code ``neardup dedup`` uses
   (``neardup.dedup.local.assemble``), writes one line per document, and with ``merge`` appends the
   batch's non-duplicates to the index as a new segment.

Document positions follow the input files in path order, then line order (``neardup dedup`` reads
files in the order given, directories sorted): give files in sorted order for identical cluster names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from neardup._deps import require
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints
from neardup.dedup.index import FORMAT, HEADER, CorpusIndex
from neardup.dedup.local import CorpusMatches, DedupResult, assemble
from neardup.dedup.plan import BatchTables, table_design, table_keys
from neardup.exceptions import ConfigError, FormatError

__all__ = ["SparkDedupResult", "fingerprint_df", "get_spark", "read_documents", "spark_dedup", "write_output"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

FP_SCHEMA = "pos long, id string, fp long, exact long, ns array<long>"


def _pyspark() -> Any:
    return require("pyspark", "spark", purpose="the Spark dedup job")


def get_spark(
    master: str | None = "local[*]", app_name: str = "neardup-dedup", conf: dict[str, str] | None = None
) -> Any:
    """A SparkSession with Arrow on; ``master=None`` keeps what spark-submit set."""
    _pyspark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON") or _python())
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    settings = {"spark.sql.execution.arrow.pyspark.enabled": "true", "spark.ui.showConsoleProgress": "false"}
    settings.update(conf or {})
    for k, v in settings.items():
        builder = builder.config(k, v)
    return builder.getOrCreate()


def _python() -> str:
    import sys

    return sys.executable


# --------------------------------------------------------------------------------------- input
def read_documents(
    spark: Any,
    inputs: list[str],
    *,
    id_field: str = "id",
    text_field: str = "text",
    html_field: str | None = "html",
    skip_bad: bool = False,
) -> Any:
    """Documents as a DataFrame (pos, id, text, html), positions in file-path-then-line order.

    JSONL(.gz) is read as text lines and parsed in the executors with the same rules (and the same
    ``file:line`` id fallback) as ``neardup dedup``; Parquet files are read as tables.
    """
    from pyspark.sql import functions as F

    parquet = [p for p in inputs if p.endswith(".parquet")]
    text_inputs = [p for p in inputs if not p.endswith(".parquet")]
    frames = []
    if text_inputs:
        lines = spark.read.text(text_inputs).select(
            F.col("value"),
            F.col("_metadata.file_path").alias("file"),
            F.monotonically_increasing_id().alias("mono"),
        )
        from pyspark.sql.window import Window

        w = Window.partitionBy("file").orderBy("mono")
        lines = lines.withColumn("line", F.row_number().over(w)).filter(F.trim(F.col("value")) != "")
        frames.append(
            lines.mapInPandas(
                _parse_lines(id_field, text_field, html_field, skip_bad),
                "file string, line long, id string, text string, html string",
            )
        )
    if parquet:
        pdf = spark.read.parquet(*parquet)
        cols = pdf.columns
        if text_field not in cols and (not html_field or html_field not in cols):
            raise ConfigError(
                f"the Parquet input has no column {text_field!r}"
                + (f" or {html_field!r}" if html_field else "")
            )
        pdf = pdf.select(
            F.col("_metadata.file_path").alias("file"),
            (F.monotonically_increasing_id() + 1).alias("line"),
            (F.col(id_field).cast("string") if id_field in cols else F.lit(None).cast("string")).alias("id"),
            (F.col(text_field) if text_field in cols else F.lit(None).cast("string")).alias("text"),
            (F.col(html_field) if html_field and html_field in cols else F.lit(None).cast("string")).alias(
                "html"
            ),
        )
        frames.append(pdf)
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    ordered = df.orderBy("file", "line")
    schema = "pos long, id string, text string, html string"
    rdd = ordered.rdd.zipWithIndex().map(lambda r: (r[1], r[0]["id"], r[0]["text"], r[0]["html"]))
    return spark.createDataFrame(rdd, schema)


def _parse_lines(id_field: str, text_field: str, html_field: str | None, skip_bad: bool) -> Any:
    def parse(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        from neardup.exceptions import InputError
        from neardup.io import _record_from_obj

        for pdf in batches:
            rows: list[tuple[str, int, str, str | None, str | None]] = []
            for value, file, line in zip(pdf["value"], pdf["file"], pdf["line"], strict=True):
                src = str(file).removeprefix("file://").removeprefix("file:")
                try:
                    try:
                        obj = orjson.loads(value)
                    except orjson.JSONDecodeError:
                        raise InputError("is not valid JSON", source=src, line=int(line)) from None
                    if not isinstance(obj, dict):
                        raise InputError(
                            f"expected a JSON object, got {type(obj).__name__}", source=src, line=int(line)
                        )
                    rec = _record_from_obj(obj, src, int(line), id_field, text_field, html_field)
                except InputError:
                    if skip_bad:
                        continue
                    raise
                rows.append((str(file), int(line), rec.id, rec.text, rec.html))
            yield pd.DataFrame(rows, columns=["file", "line", "id", "text", "html"])

    return parse


# --------------------------------------------------------------------------------- fingerprints
def fingerprint_df(docs: Any, config: DedupConfig, *, simhash: bool, nshash: bool) -> Any:
    """Step 1 in the executors: (pos, id, text, html) -> (pos, id, fp, exact, ns)."""
    cfg_dict = config.to_dict()

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        from neardup.dedup import fingerprints as fpmod

        cfg = DedupConfig.from_dict(cfg_dict)
        fpmod._setup(cfg, simhash, nshash)
        for pdf in batches:
            items = list(zip(pdf["text"].tolist(), pdf["html"].tolist(), strict=True))
            sim, exact, ns_flat, counts = fpmod._work(items)
            ns_i = ns_flat.view(np.int64)
            splits = np.split(ns_i, np.cumsum(counts)[:-1]) if counts.size else []
            yield pd.DataFrame(
                {
                    "pos": pdf["pos"].to_numpy(np.int64),
                    "id": pdf["id"],
                    "fp": sim.view(np.int64) if sim is not None else np.zeros(len(pdf), np.int64),
                    "exact": exact.view(np.int64),
                    "ns": [s.tolist() for s in splits],
                }
            )

    return docs.mapInPandas(run, FP_SCHEMA)


# ---------------------------------------------------------------------------------- within batch
def _first_edges(df: Any, col: str) -> tuple[Any, Any]:
    """Rows grouped by ``col``: edges (first pos, pos) for the repeats, and the first rows."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    w = Window.partitionBy(col)
    marked = df.withColumn("first", F.min("pos").over(w))
    edges = marked.filter(F.col("pos") != F.col("first")).select(
        F.col("first").alias("a"), F.col("pos").alias("b")
    )
    firsts = marked.filter(F.col("pos") == F.col("first")).drop("first")
    return edges, firsts


def _table_join(unique: Any, config: DedupConfig, n_unique: int, partitions: int) -> Any:
    """Explode permuted-table keys, shuffle by (table, key), join each group (spanning forests)."""
    tables = table_design(list(range(64)), config.max_distance, n_unique)
    k = config.max_distance
    cap = config.bucket_cap

    def explode(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        for pdf in batches:
            fp = pdf["fp"].to_numpy(np.int64).view(np.uint64)
            pos = pdf["pos"].to_numpy(np.int64)
            for t, table in enumerate(tables):
                key, _ = table_keys(fp, table)
                yield pd.DataFrame(
                    {
                        "t": np.full(fp.size, t, np.int32),
                        "key": key.view(np.int64),
                        "pos": pos,
                        "fp": fp.view(np.int64),
                    }
                )

    def join(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        from neardup.dedup.plan import grouped_forest_edges

        parts = [pdf for pdf in batches if len(pdf)]
        if not parts:
            return
        pdf = pd.concat(parts, ignore_index=True)
        t = pdf["t"].to_numpy(np.int64)
        key = pdf["key"].to_numpy(np.int64)
        change = np.concatenate(([True], (t[1:] != t[:-1]) | (key[1:] != key[:-1])))
        group = np.cumsum(change).astype(np.int64)
        a, b = grouped_forest_edges(
            group, pdf["fp"].to_numpy(np.int64).view(np.uint64), pdf["pos"].to_numpy(np.int64), k, cap=cap
        )
        if a.size:
            yield pd.DataFrame({"a": a, "b": b})

    keys = unique.select("pos", "fp").mapInPandas(explode, "t int, key long, pos long, fp long")
    return (
        keys.repartition(partitions, "t", "key")
        .sortWithinPartitions("t", "key", "pos")
        .mapInPandas(join, "a long, b long")
    )


# --------------------------------------------------------------------------------- against corpus
def _probe_corpus(spark: Any, corpus: Any, fps: Fingerprints, config: DedupConfig) -> CorpusMatches:
    """Broadcast the batch's tables; stream the corpus past them; min-reduce per batch document."""
    from pyspark.sql import functions as F

    from neardup.dedup.local import _unique_sorted

    n = len(fps)
    payload: dict[str, Any] = {"exact": fps.exact, "n": n, "ns_hash": None, "ns_doc": None, "tables": None}
    inverse = np.empty(0, np.int64)
    if config.uses_simhash:
        uniq, inverse = _unique_sorted(fps.simhash)
        payload["tables"] = BatchTables(uniq, config.max_distance, cap=config.bucket_cap)
    if config.uses_nshash:
        payload["ns_hash"], payload["ns_doc"] = fps.ns_hash, fps.ns_doc
    bc = spark.sparkContext.broadcast(payload)
    use_ns = config.uses_nshash

    def probe(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        from neardup.dedup.local import _first_match, _first_match_ns

        p = bc.value
        for pdf in batches:
            pos = pdf["pos"].to_numpy(np.int64)
            out = []
            m = _first_match(p["exact"], pdf["exact"].to_numpy(np.int64).view(np.uint64), pos)
            hit = np.flatnonzero(m >= 0)
            out.append(pd.DataFrame({"kind": 0, "idx": hit, "cpos": m[hit]}))
            if p["tables"] is not None:
                m = p["tables"].probe(pdf["fp"].to_numpy(np.int64).view(np.uint64), pos)
                hit = np.flatnonzero(m >= 0)
                out.append(pd.DataFrame({"kind": 1, "idx": hit, "cpos": m[hit]}))
            if use_ns and p["ns_hash"] is not None and p["ns_hash"].size:
                lists = pdf["ns"]
                counts = np.fromiter((len(x) for x in lists), np.int64, len(lists))
                flat = (
                    np.concatenate([np.asarray(x, np.int64) for x in lists])
                    if counts.sum()
                    else np.empty(0, np.int64)
                )
                m = _first_match_ns(
                    p["ns_hash"], p["ns_doc"], p["n"], flat.view(np.uint64), np.repeat(pos, counts)
                )
                hit = np.flatnonzero(m >= 0)
                out.append(pd.DataFrame({"kind": 2, "idx": hit, "cpos": m[hit]}))
            res = pd.concat(out, ignore_index=True)
            if len(res):
                yield res.astype({"kind": np.int32, "idx": np.int64, "cpos": np.int64})

    cols = ["pos", "fp", "exact"] + (["ns"] if use_ns else [])
    reduced = (
        corpus.select(*cols)
        .mapInPandas(probe, "kind int, idx long, cpos long")
        .groupBy("kind", "idx")
        .agg(F.min("cpos").alias("cpos"))
    ).toPandas()
    best = {0: np.full(n, -1, np.int64), 1: np.full(n, -1, np.int64), 2: np.full(n, -1, np.int64)}
    sim_uniq = np.full(payload["tables"].n if payload["tables"] is not None else 0, -1, np.int64)
    for kind, idx, cpos in zip(reduced["kind"], reduced["idx"], reduced["cpos"], strict=True):
        if kind == 1:
            sim_uniq[idx] = cpos
        else:
            best[int(kind)][idx] = cpos
    if config.uses_simhash:
        best[1] = sim_uniq[inverse]
    bc.unpersist()
    tables = payload["tables"]
    return CorpusMatches(
        exact=best[0], simhash=best[1], nshash=best[2], capped=bool(tables is not None and tables.capped)
    )


def _lookup(corpus: Any) -> Any:
    def lookup(positions: I64) -> tuple[list[str], U64, U64]:
        from pyspark.sql import functions as F

        wanted = [int(p) for p in positions.tolist()]
        pdf = corpus.filter(F.col("pos").isin(wanted)).select("pos", "id", "fp", "exact").toPandas()
        pdf = pdf.drop_duplicates("pos").set_index("pos").reindex(wanted)
        if pdf["id"].isna().any():
            raise FormatError("corpus positions not found in the index: it is damaged")
        return (
            [str(x) for x in pdf["id"]],
            pdf["fp"].to_numpy(np.int64).view(np.uint64),
            pdf["exact"].to_numpy(np.int64).view(np.uint64),
        )

    return lookup


# --------------------------------------------------------------------------------------- index I/O
def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _local(path: str) -> str:
    return path.removeprefix("file://")


def read_index_header(spark: Any, path: str) -> dict[str, Any]:
    """The index header, from local disk or through Spark's filesystems (HDFS, S3)."""
    if _is_local(path):
        return CorpusIndex.open(_local(path)).header
    rows = spark.sparkContext.wholeTextFiles(f"{path.rstrip('/')}/{HEADER}").collect()
    if not rows:
        raise FormatError(f"{path} is not a corpus index (no {HEADER})")
    return CorpusIndex.check_header(orjson.loads(rows[0][1]), f"{path}/{HEADER}")


def _write_remote_text(spark: Any, path: str, data: bytes) -> None:
    """Write a small file through Hadoop's FileSystem: a temp file, then a rename over the old one."""
    jvm = spark.sparkContext._jvm
    hconf = spark.sparkContext._jsc.hadoopConfiguration()
    target = jvm.org.apache.hadoop.fs.Path(path)
    fs = target.getFileSystem(hconf)
    tmp = jvm.org.apache.hadoop.fs.Path(f"{path}.tmp-{os.getpid()}")
    out = fs.create(tmp, True)
    out.write(bytearray(data))
    out.close()
    if fs.exists(target):
        fs.delete(target, False)
    fs.rename(tmp, target)


def _merge(spark: Any, index_path: str, header: dict[str, Any], kept: Fingerprints) -> int:
    """Append the batch's non-duplicates to the index as a new segment; returns the new count."""
    if _is_local(index_path):
        ix = CorpusIndex.open(_local(index_path))
        ix.append(kept)
        return len(ix)
    from neardup.dedup.index import arrow_table

    start = int(header["count"])
    name = f"seg-{len(header['segments']):05d}"
    table = arrow_table(kept, start)
    spark.createDataFrame(table.to_pandas()).coalesce(1).write.mode("overwrite").parquet(
        f"{index_path.rstrip('/')}/{name}"
    )
    new = dict(header)
    new["segments"] = [*header["segments"], {"name": name, "start": start, "count": len(kept)}]
    new["count"] = start + len(kept)
    new["updated"] = time.time()
    _write_remote_text(
        spark, f"{index_path.rstrip('/')}/{HEADER}", orjson.dumps(new, option=orjson.OPT_INDENT_2)
    )
    return int(new["count"])


# ----------------------------------------------------------------------------------------- driver
@dataclass
class SparkDedupResult:
    result: DedupResult
    seconds: dict[str, float] = field(default_factory=dict)
    index_documents: int | None = None


def spark_dedup(
    spark: Any,
    docs: Any,
    config: DedupConfig,
    *,
    against: str | None = None,
    merge: bool = False,
    partitions: int | None = None,
) -> SparkDedupResult:
    """Run the plan on a documents DataFrame (pos, id, text, html; see ``read_documents``)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    if merge and not against:
        raise ConfigError("merge needs an index to merge into (against=INDEX_DIR)")
    t0 = time.perf_counter()
    secs: dict[str, float] = {}
    header = None
    if against:
        header = read_index_header(spark, against)
        if header.get("format") != FORMAT:
            raise FormatError(f"{against} is not a corpus index")
        mine = config.fingerprint_settings()
        if header["settings"] != mine:
            raise ConfigError(
                f"{against} was built with other fingerprint settings; use its settings "
                "(neardup spark dedup does by default) or rebuild it"
            )
    parts = partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
    need_sim = config.uses_simhash or merge
    need_ns = config.uses_nshash or merge
    fp = fingerprint_df(docs, config, simhash=need_sim, nshash=need_ns).persist(StorageLevel.MEMORY_AND_DISK)

    # the driver keeps the batch's fingerprints (64 bits + ids + sentence hashes: no text)
    pdf = fp.toPandas().sort_values("pos")
    n = len(pdf)
    if n and not np.array_equal(pdf["pos"].to_numpy(np.int64), np.arange(n)):
        raise FormatError("document positions must be 0..n-1 (use read_documents)")
    ns_lists = pdf["ns"].tolist()
    counts = np.fromiter((len(x) for x in ns_lists), np.int64, n)
    batch = Fingerprints(
        ids=[str(x) for x in pdf["id"]],
        simhash=pdf["fp"].to_numpy(np.int64).view(np.uint64) if need_sim else np.empty(0, np.uint64),
        exact=pdf["exact"].to_numpy(np.int64).view(np.uint64),
        ns_hash=(
            np.concatenate([np.asarray(x, np.int64) for x in ns_lists]).view(np.uint64)
            if counts.sum()
            else np.empty(0, np.uint64)
        ),
        ns_doc=np.repeat(np.arange(n, dtype=np.int64), counts),
    )
    secs["fingerprint"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    # every edge DataFrame is collected in one job: (type 0 exact/SimHash, 1 nshash, a, b)
    exact_edges, _ = _first_edges(fp.select("pos", "exact"), "exact")
    edge_dfs = [exact_edges.withColumn("type", F.lit(0))]
    if config.uses_simhash and n:
        same_fp, unique = _first_edges(fp.select("pos", "fp"), "fp")
        n_unique = int(np.unique(batch.simhash).size)
        edge_dfs.append(same_fp.withColumn("type", F.lit(0)))
        edge_dfs.append(_table_join(unique, config, n_unique, parts).withColumn("type", F.lit(0)))
    if config.uses_nshash and n:
        hashes = fp.select("pos", F.explode("ns").alias("h"))
        ns_e, _ = _first_edges(hashes, "h")
        edge_dfs.append(ns_e.withColumn("type", F.lit(1)))
    edges = edge_dfs[0]
    for other in edge_dfs[1:]:
        edges = edges.unionByName(other)
    epdf = edges.toPandas()
    etype = epdf["type"].to_numpy(np.int64)
    ea = epdf["a"].to_numpy(np.int64)
    eb = epdf["b"].to_numpy(np.int64)
    sim_edges = (ea[etype == 0], eb[etype == 0])
    ns_edges = (ea[etype == 1], eb[etype == 1])
    secs["within_batch"] = time.perf_counter() - t1

    t2 = time.perf_counter()
    matches = None
    lookup = None
    corpus = None
    if against and header is not None and n:
        paths = [f"{against.rstrip('/')}/{s['name']}" for s in header["segments"] if s["count"]]
        if paths:
            corpus = spark.read.parquet(*paths)
            matches = _probe_corpus(spark, corpus, batch, config)
            lookup = _lookup(corpus)
        else:
            matches = CorpusMatches(
                exact=np.full(n, -1, np.int64),
                simhash=np.full(n, -1, np.int64),
                nshash=np.full(n, -1, np.int64),
            )
            lookup = _lookup(None)
    result = assemble(batch, config, sim_edges, ns_edges, matches, lookup)
    secs["against_corpus"] = time.perf_counter() - t2
    fp.unpersist()

    index_docs = None
    if merge and against and header is not None:
        t3 = time.perf_counter()
        index_docs = _merge(spark, against, header, batch.take(np.flatnonzero(result.keep)))
        secs["merge"] = time.perf_counter() - t3
    if header is not None:
        result.stats["corpus_documents"] = int(header["count"])
    return SparkDedupResult(result=result, seconds=secs, index_documents=index_docs)


def write_output(spark: Any, out: str, rows: Iterator[dict[str, Any]]) -> None:
    """One JSON line per document: a single local file (atomic), or a Spark JSON directory elsewhere."""
    if _is_local(out) and not out.endswith("/"):
        from neardup.cli.dedup import write_rows

        write_rows(_local(out), rows)
        return
    import pandas as pd

    pdf = pd.DataFrame(list(rows), columns=["id", "cluster", "duplicate_of", "kind", "distance"])
    pdf["distance"] = pdf["distance"].astype("Int64")
    spark.createDataFrame(pdf).coalesce(1).write.mode("overwrite").json(out)


def local_path(path: str) -> Path:
    return Path(_local(path))
