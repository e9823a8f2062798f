"""``--against`` and ``--merge`` in the distributed plan: a join on candidate keys, executors' writes.

The candidates ``neardup dedup --against`` finds (``neardup.dedup.local.corpus_candidates``: the
corpus streamed past the batch in chunks of ``CHUNK_ROWS`` rows of a part file, each chunk through
``neardup.match.cross_candidates``) are found here by joins on the candidate keys, with the same
rules, so that the same corpus documents are matched:

- **keys**: a batch document and the first document of a chunk holding its exact (or content) key:
  one row per (chunk, key) on the corpus side, joined on the key;
- **sketches**: a corpus document that posted a value (one of its ``posted`` smallest) and a batch
  document whose sketch holds it, where the value's posters in the chunk plus its posters in the
  batch are at most ``max_posting`` (else it is boilerplate there); ``min_shared`` such values of
  one (corpus document, batch document) make a candidate. The corpus side is one row per posted
  value, grouped by (value, chunk) to count its posters; the batch side one row per held value.

The matched corpus documents are then read (their signatures, ids and days: the day as an ISO date
in the ``order`` column, where the plan reads the batch's dates; none from a part written before
days were stored) and enter the plan's candidate graph ahead of the batch, numbered by corpus
position, and the engine treats them as representatives already (``run_components(...,
fixed=...)``), as ``dedup_fingerprints`` does.

``--merge`` is written by the executors: the kept documents numbered in document order (one number
per kept document, by a sort), cut into parts of ``CHUNK_ROWS`` rows (the chunks every reader
streams), each part written by one task with the bytes ``CorpusIndex`` writes; the driver receives
one row per part (name, rows, bytes, xxh3) and replaces the header (``CorpusIndex.commit_segment``
locally, through Hadoop's FileSystem elsewhere). The parts hold the kept documents' days (read from
their ``order`` column, the date field) when the engine compares dates, as a local merge's do.

Nothing per document reaches the driver: it sees the number of chunks, counts, and one row per
written part.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import xxhash

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints
from neardup.dedup.index import (
    CHUNK_ROWS,
    COLUMNS,
    DAY,
    arrow_table,
    merged_header,
    refuse_changed,
    segment_name,
)
from neardup.dedup.index import signatures_of as _signatures_of
from neardup.integrations.spark.plan import SIG_COLUMNS
from neardup.match.components import count_pairs
from neardup.match.dates import day_date, days_of, reads_dates

__all__ = ["corpus_candidates_df", "corpus_rows_df", "write_merge"]

#: the corpus rows the candidate join reads: a chunk, a position, the keys and the posted values
KEY_SCHEMA = "chunk int, pos long, exact long, content long, posted array<int>"
#: the matched corpus rows, as the plan's signature columns, and their days as ISO dates (``order``)
ROW_SCHEMA = (
    "pos long, id string, exact long, content long, simhash long, layout long, has_layout boolean, "
    "size int, tokens int, sketch array<int>, numbers array<long>, profile array<int>, order string"
)
#: rows a reading task hands to Spark at a time
_SLICE = 8192


def _functions() -> Any:
    from pyspark.sql import functions

    return functions


def _chunks_df(spark: Any, corpus: Any) -> Any:
    """One row per corpus chunk (``SparkCorpus.chunks``: the chunks ``iter_signatures`` streams),
    one chunk per partition."""
    chunks = corpus.chunks()
    rows = [(i, c.uri, c.first, c.rows, c.xxh3) for i, c in enumerate(chunks)]
    rdd = spark.sparkContext.parallelize(rows, max(1, len(rows)))
    return spark.createDataFrame(rdd, "chunk int, uri string, first long, rows long, xxh3 string")


def _read_task(mode: str, posted: int) -> Any:
    """mapInArrow over chunk rows: each chunk read (its part's checksum checked first, as
    ``neardup dedup`` checks it) and handed on as key rows (``KEY_SCHEMA``) or signature rows."""
    from neardup.integrations.spark.job import Chunk, _open_input, read_chunk

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        for rb in batches:
            for c in rb.to_pylist():
                cols = ["pos", "exact", "content", "sketch"]
                if mode != "keys":
                    # the day column, where the part has one (parts of version 3 indexes have none)
                    with _open_input(c["uri"]) as fh:
                        names = pq.ParquetFile(fh).schema_arrow.names
                    cols = [*COLUMNS, DAY] if DAY in names else list(COLUMNS)
                table = read_chunk(Chunk(c["uri"], c["first"], c["rows"], c["xxh3"]), columns=cols)
                for start in range(0, table.num_rows, _SLICE):
                    part = table.slice(start, _SLICE)
                    if mode == "keys":
                        n = part.num_rows
                        sketch = part.column("sketch").combine_chunks()
                        width = sketch.type.list_size
                        flat = sketch.flatten().to_numpy(zero_copy_only=False).astype(np.uint32)
                        values = flat.reshape(n, width)[:, :posted].view(np.int32)
                        offsets = pa.array(np.arange(n + 1, dtype=np.int32) * values.shape[1])
                        yield pa.RecordBatch.from_arrays(
                            [
                                pa.array(np.full(n, c["chunk"], np.int32)),
                                pa.array(part.column("pos").to_numpy().astype(np.int64)),
                                pa.array(part.column("exact").to_numpy().view(np.int64)),
                                pa.array(part.column("content").to_numpy().view(np.int64)),
                                pa.ListArray.from_arrays(offsets, pa.array(values.ravel(), pa.int32())),
                            ],
                            names=["chunk", "pos", "exact", "content", "posted"],
                        )
                    else:
                        yield _signature_rows(part)

    return task


def _signature_rows(part: Any) -> Any:
    """A corpus table's rows as ``ROW_SCHEMA`` (unsigned values reinterpreted, never converted)."""
    import pyarrow as pa

    s = _signatures_of(part)
    n = part.num_rows

    def lists(values: Any, typ: Any) -> Any:
        offsets = pa.array(np.arange(n + 1, dtype=np.int32) * values.shape[1])
        return pa.ListArray.from_arrays(offsets, pa.array(values.ravel(), typ))

    return pa.RecordBatch.from_arrays(
        [
            pa.array(part.column("pos").to_numpy().astype(np.int64)),
            pa.array(part.column("id").to_pylist(), pa.string()),
            pa.array(s.exact.view(np.int64)),
            pa.array(s.content.view(np.int64)),
            pa.array(s.simhash.view(np.int64)),
            pa.array(s.layout.view(np.int64)),
            pa.array(s.has_layout, pa.bool_()),
            pa.array(s.size.astype(np.int32)),
            pa.array(s.tokens.astype(np.int32)),
            lists(np.ascontiguousarray(s.sketch).view(np.int32), pa.int32()),
            lists(np.ascontiguousarray(s.numbers).view(np.int64), pa.int64()),
            pa.ListArray.from_arrays(
                pa.array((s.prof_ptr - s.prof_ptr[0]).astype(np.int32)),
                pa.array(s.prof[s.prof_ptr[0] : s.prof_ptr[-1]].view(np.int32), pa.int32()),
            ),
            pa.array(_iso_dates(s.day), pa.string()),
        ],
        names=["pos", "id", *SIG_COLUMNS, "order"],
    )


def _iso_dates(days: Any) -> list[str | None]:
    """Day numbers as the ISO dates ``day_number`` reads back to them (None for NO_DAY)."""
    return [day_date(d) for d in days.tolist()]


def corpus_candidates_df(spark: Any, corpus: Any, batch: Any, config: DedupConfig) -> Any:
    """(pos, doc): the corpus positions that are candidates of the batch's documents (``batch``:
    the plan's documents, columns doc, exact, content, sketch), by the rules of
    ``cross_candidates`` over the chunks of ``neardup dedup`` (the module's docstring)."""
    F = _functions()
    cfg = config.match
    keys = _chunks_df(spark, corpus).mapInArrow(_read_task("keys", cfg.posted), KEY_SCHEMA)
    found = []
    for col in ("exact", "content"):  # the first holder of the key in each chunk
        first = keys.groupBy("chunk", col).agg(F.min("pos").alias("pos"))
        found.append(first.join(batch.select("doc", col), col).select("pos", "doc"))
    # the corpus's posted values, grouped by (value, chunk): a value posted by more than
    # max_posting documents of the chunk is boilerplate there whatever the batch holds
    posters = (
        keys.select("chunk", "pos", F.explode("posted").alias("v"))
        .filter(F.col("v") != -1)  # EMPTY32 as a signed int
        .groupBy("v", "chunk")
        .agg(F.count(F.lit(1)).alias("n_c"), F.collect_list("pos").alias("poss"))
        .filter(F.col("n_c") <= cfg.max_posting)
    )
    slots = batch.select("doc", F.posexplode("sketch").alias("slot", "v")).filter(F.col("v") != -1)
    batch_posters = slots.filter(F.col("slot") < cfg.posted).groupBy("v").agg(F.count(F.lit(1)).alias("n_b"))
    # one row per (corpus document, batch document, shared value), partitioned by corpus document
    # and counted in Python tasks sorted in numpy (16 bytes a row), not in a JVM hash aggregate:
    # every batch document of a batch that repeats the corpus meets up to max_posting posters of
    # each of its values
    shared_rows = (
        slots.select("v", "doc")
        .join(posters, "v")
        .join(batch_posters, "v", "left")
        .filter(F.col("n_c") + F.coalesce(F.col("n_b"), F.lit(0)) <= cfg.max_posting)
        .select(F.explode("poss").alias("pos"), F.col("doc").cast("long").alias("doc"))
    )
    shared = shared_rows.repartition("pos").mapInArrow(_count_task(cfg.min_shared), PAIR_SCHEMA)
    return found[0].unionByName(found[1]).unionByName(shared).distinct()


#: (corpus position, batch document) candidate rows
PAIR_SCHEMA = "pos long, doc long"


def _count_task(min_shared: int) -> Any:
    """mapInArrow over (pos, doc) rows, one per shared value: the pairs seen ``min_shared`` times
    or more in the task's partition (all rows of a corpus position are in one partition)."""

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        pos_parts, doc_parts = [], []
        for rb in batches:
            if rb.num_rows:
                pos_parts.append(rb.column(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False))
                doc_parts.append(rb.column(1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False))
        if not pos_parts:
            return
        # corpus positions renumbered within the task, so a pair packs into 64 bits (a batch
        # document is below 2^31) and is counted as the within-batch graph counts its pairs
        positions, rank = np.unique(np.concatenate(pos_parts), return_inverse=True)
        packed = rank.astype(np.uint64) << np.uint64(32)
        del pos_parts, rank
        packed |= np.concatenate(doc_parts).astype(np.uint64)
        del doc_parts
        pairs, counts = count_pairs(packed)
        keep = pairs[counts >= min_shared]
        for lo in range(0, keep.shape[0], _SLICE):
            part = keep[lo : lo + _SLICE]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(positions[(part >> np.uint64(32)).astype(np.int64)]),
                    pa.array((part & np.uint64(0xFFFFFFFF)).astype(np.int64)),
                ],
                names=["pos", "doc"],
            )

    return task


def corpus_rows_df(spark: Any, corpus: Any, positions: Any) -> Any:
    """The corpus rows at ``positions`` (a DataFrame with a ``pos`` column), ``ROW_SCHEMA``."""
    rows = _chunks_df(spark, corpus).mapInArrow(_read_task("rows", 0), ROW_SCHEMA)
    return rows.join(positions, "pos")


def dense_numbers(spark: Any, df: Any, col: str, name: str) -> Any:
    """(col, name): each distinct value of ``col`` numbered 0, 1, ... in ascending order (a sort and
    Spark's ``zipWithIndex``: the driver sees one count per partition)."""
    ranked = (
        df.select(col)
        .distinct()
        .rdd.map(lambda r: r[0])
        .sortBy(lambda v: v)
        .zipWithIndex()
        .map(lambda t: (int(t[0]), int(t[1])))
    )
    return spark.createDataFrame(ranked, f"{col} long, {name} long")


# ---------------------------------------------------------------------------------------- merge
def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _write_file(uri: str, data: bytes) -> None:
    """Write a part from an executor: local files fsynced, others through pyarrow's filesystems."""
    if _is_local(uri):
        path = uri.removeprefix("file://")
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return
    from pyarrow import fs

    if uri.startswith(("s3a://", "s3n://")):
        uri = "s3://" + uri.split("://", 1)[1]
    filesystem, path = fs.FileSystem.from_uri(uri)
    with filesystem.open_output_stream(path) as out:
        out.write(data)


def _merge_task(seg_dir: str, start: int, widths: tuple[int, int], dated: bool) -> Any:
    """mapInArrow over kept documents (``i``: their number among the kept, id, signature columns)
    partitioned by part (``i // CHUNK_ROWS``): each part written as ``CorpusIndex`` writes a
    segment's part (``arrow_table``, row groups of ``CHUNK_ROWS``); one row per part out."""

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        held = list(batches)
        if not held or not sum(b.num_rows for b in held):
            return
        table = pa.Table.from_batches(held).combine_chunks()
        i = table.column("i").to_numpy()
        order = np.argsort(i, kind="stable")
        table, i = table.take(order), i[order]
        part = i // CHUNK_ROWS
        names, rows, sizes, digests = [], [], [], []
        for p in np.unique(part).tolist():
            sel = np.flatnonzero(part == p)
            sub = table.take(sel)
            first = int(i[sel[0]])
            if first != p * CHUNK_ROWS or int(i[sel[-1]]) != first + sel.size - 1:
                raise RuntimeError(f"merge part {p}: its documents are not numbered {first}.. in a row")
            fps = Fingerprints(
                ids=[str(x) for x in sub.column("id").to_pylist()], sigs=_signatures_of(sub, widths)
            )
            if dated:  # the days the engine compared, as fingerprint_records reads them
                fps.sigs.day = days_of(sub.column("order").to_pylist(), sel.size)
            sink = pa.BufferOutputStream()
            pq.write_table(arrow_table(fps, start + first), sink, row_group_size=CHUNK_ROWS)
            data = sink.getvalue().to_pybytes()
            name = f"part-{p:05d}.parquet"
            _write_file(f"{seg_dir}/{name}", data)
            names.append(name)
            rows.append(sel.size)
            sizes.append(len(data))
            digests.append(xxhash.xxh3_64_hexdigest(data))
        yield pa.RecordBatch.from_arrays(
            [pa.array(names), pa.array(rows, pa.int64()), pa.array(sizes, pa.int64()), pa.array(digests)],
            names=["file", "rows", "bytes", "xxh3"],
        )

    return task


def write_merge(spark: Any, corpus: Any, kept: Any, count: int, config: DedupConfig) -> int:
    """Add the kept documents (``kept``: doc, id and the signature columns; ``count`` of them) to
    the corpus index as a new segment written by the executors; returns the index's new size.

    A local index: the parts go to a hidden folder, which ``CorpusIndex.commit_segment`` renames
    into place and names in a new header (under the index's lock, refused if another merge landed
    meanwhile). Elsewhere the parts go to the segment's folder (unseen until a header names them)
    and the header is replaced through Hadoop's FileSystem, as ``SparkCorpus.append`` does.
    """
    F = _functions()
    from neardup.integrations.spark.job import _read_remote_header, _write_remote

    cfg = config.match
    widths = (cfg.sketch_size, max(cfg.max_numbers, 1))
    header = corpus.header
    if not count:  # nothing kept: no segment, as a local merge writes none
        return int(header["count"])
    start = int(header["count"])
    name = segment_name(header)
    local = corpus.local
    if local is not None:
        seg_dir = local.segment_tmp(name)
        target = str(seg_dir)
    else:
        refuse_changed(corpus.path, header, _read_remote_header(spark, corpus.path))
        target = f"{corpus.path}/{name}"
        fs, hpath = _hadoop_path(spark, target)
        fs.mkdirs(hpath)
    parts: list[dict[str, Any]] = []
    if count:
        numbered = dense_numbers(spark, kept, "doc", "i")
        n_parts = -(-count // CHUNK_ROWS)
        cols = ["i", "id", "exact", "content", "simhash", "layout", "has_layout", "size", "tokens"]
        cols += ["sketch", "numbers", "profile", "order"]
        written = (
            kept.join(numbered, "doc")
            .select(*cols)
            .repartition(n_parts, (F.col("i") / CHUNK_ROWS).cast("long"))
            .mapInArrow(
                _merge_task(target, start, widths, reads_dates(cfg)),
                "file string, rows long, bytes long, xxh3 string",
            )
            .collect()
        )
        parts = sorted(
            (
                {"file": r["file"], "rows": int(r["rows"]), "bytes": int(r["bytes"]), "xxh3": r["xxh3"]}
                for r in written
            ),
            key=lambda p: str(p["file"]),
        )
    if sum(int(p["rows"]) for p in parts) != count:
        raise RuntimeError(f"the merge wrote {sum(int(p['rows']) for p in parts)} documents of {count}")
    if local is not None:
        local.commit_segment(seg_dir, count, parts)
        corpus.header = local.header
        return len(local)
    import orjson

    from neardup.dedup.index import HEADER

    new_header, _ = merged_header(header, count, parts)
    _write_remote(spark, f"{corpus.path}/{HEADER}", orjson.dumps(new_header, option=orjson.OPT_INDENT_2))
    corpus.header = new_header
    return int(new_header["count"])


def _hadoop_path(spark: Any, path: str) -> tuple[Any, Any]:
    from neardup.integrations.spark.job import _hadoop_fs

    return _hadoop_fs(spark, path)
