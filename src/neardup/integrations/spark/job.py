"""``neardup dedup`` on Apache Spark: the match engine's stages as a PySpark job, same output.

1. Signatures in the executors: ``mapInArrow`` over the documents DataFrame (``read_documents`` in
   ``documents.py``: positions in file-path-then-line order); each Arrow batch is signed by
   ``neardup.match.page_signatures``, as ``neardup dedup`` signs it, and comes back as signature
   columns (unsigned integers as signed bits of the same width).
2. The driver collects the signatures (no text) into a ``Fingerprints`` and runs
   ``neardup.dedup.local.dedup_fingerprints``, the very function ``neardup dedup`` runs: batch
   candidates, verification, clusters, keep rule.
3. Against a corpus index, ``SparkCorpus`` finds the candidate pairs in the executors: the batch's
   signatures are broadcast, each task reads one chunk of a Parquet part (the same rows
   ``CorpusIndex.iter_signatures`` gives ``neardup dedup``: candidate look-ups skip values common
   within a chunk, so the chunks must be the same) and runs ``neardup.match.cross_candidates``;
   the pairs and the matched corpus rows (ids and signatures) come back to the driver and join the
   clustering ahead of the batch, as in ``neardup dedup``.
4. ``merge`` appends the batch's kept documents to the index as a new segment: a local index
   through ``CorpusIndex.append``; elsewhere the same Parquet table (``arrow_table``) and header
   (``merged_header``) are written through Hadoop's FileSystem.

Document positions follow the input files in path order, then line order (``neardup dedup`` reads
files in the order given, directories sorted): give files in sorted order for identical output.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import xxhash

from neardup import exceptions
from neardup._deps import require
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints, unique_ids
from neardup.dedup.index import (
    CHUNK_ROWS,
    COLUMNS,
    HEADER,
    CorpusIndex,
    arrow_table,
    check_settings,
    merged_header,
    refuse_changed,
    segment_name,
    signatures_of,
)
from neardup.dedup.local import DedupResult, dedup_fingerprints
from neardup.exceptions import ConfigError, FormatError, StoreError
from neardup.io import Record, write_jsonl
from neardup.match import MatchConfig, Signatures, cross_candidates, page_signatures, signatures

__all__ = [
    "SIGNATURE_SCHEMA",
    "SparkCorpus",
    "SparkDedupResult",
    "collect_fingerprints",
    "get_spark",
    "signature_df",
    "spark_dedup",
    "write_output",
]

I64 = npt.NDArray[np.int64]

#: the executors' signature rows: ``neardup.dedup.index.arrow_table``'s columns, uint64 as long
#: (same bits), the uint32 sketch as int (same bits), plus the keep rule's field as a string
SIGNATURE_SCHEMA = (
    "pos long, id string, order string, exact long, content long, simhash long, layout long, "
    "has_layout boolean, size int, tokens int, sketch array<int>, numbers array<long>"
)


def _pyspark() -> Any:
    return require("pyspark", "spark", purpose="the Spark dedup job")


def _pq() -> Any:
    return require("pyarrow.parquet", "parquet", purpose="the corpus index (Parquet segments)")


#: input bytes per shuffle partition of a local session (a partition of signatures, not of text)
LOCAL_BYTES_PER_PARTITION = 64 << 20


def local_shuffle_partitions(master: str | None, input_bytes: int | None = None) -> int | None:
    """Shuffle partitions for a ``local``/``local[N]``/``local[*]`` master: one per 64 MB of input,
    between 1 and twice the local cores (the cores alone without a size); None for other masters,
    whose cluster settings stay in charge.

    >>> local_shuffle_partitions("local[2]", 1000), local_shuffle_partitions("local[2]"), local_shuffle_partitions("yarn")
    (1, 2, None)
    """
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", (master or "").strip())
    if m is None:
        return None
    cores = 1 if m.group(1) is None else (os.cpu_count() or 1) if m.group(1) == "*" else int(m.group(1))
    if input_bytes is None:
        return max(1, cores)
    return max(1, min(2 * cores, -(-input_bytes // LOCAL_BYTES_PER_PARTITION)))


def get_spark(
    master: str | None = "local[*]",
    app_name: str = "neardup-dedup",
    conf: dict[str, str] | None = None,
    *,
    input_bytes: int | None = None,
) -> Any:
    """A SparkSession with Arrow on; ``master=None`` keeps what spark-submit set. A local master gets
    shuffle partitions sized to ``input_bytes`` (Spark's 200 make a 3-document job take 40 s)."""
    _pyspark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON") or _python())
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    settings = {"spark.sql.execution.arrow.pyspark.enabled": "true", "spark.ui.showConsoleProgress": "false"}
    local = local_shuffle_partitions(master, input_bytes)
    if local is not None:
        settings["spark.sql.shuffle.partitions"] = str(local)
        settings["spark.default.parallelism"] = str(local)
    settings.update(conf or {})
    for k, v in settings.items():
        builder = builder.config(k, v)
    return builder.getOrCreate()


def _python() -> str:
    import sys

    return sys.executable


# ----------------------------------------------------------------------------------- signatures
def _arrow_schema() -> Any:
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType, _parse_datatype_string

    struct = _parse_datatype_string(SIGNATURE_SCHEMA)
    assert isinstance(struct, StructType)
    return to_arrow_schema(struct)


def _signature_batch(schema: Any, pos: Any, ids: Any, order: Any, sigs: Signatures) -> Any:
    """One Arrow batch of signature rows; unsigned values are reinterpreted, never converted."""
    import pyarrow as pa

    n = len(sigs)

    def lists(name: str, values: Any) -> Any:
        offsets = pa.array(np.arange(n + 1, dtype=np.int32) * values.shape[1])
        return pa.ListArray.from_arrays(offsets, pa.array(values.ravel()), type=schema.field(name).type)

    arrays = [
        pos.cast(schema.field("pos").type),
        ids.cast(schema.field("id").type),
        order.cast(schema.field("order").type),
        pa.array(sigs.exact.view(np.int64)),
        pa.array(sigs.content.view(np.int64)),
        pa.array(sigs.simhash.view(np.int64)),
        pa.array(sigs.layout.view(np.int64)),
        pa.array(sigs.has_layout, pa.bool_()),
        pa.array(sigs.size.astype(np.int32)),
        pa.array(sigs.tokens.astype(np.int32)),
        lists("sketch", np.ascontiguousarray(sigs.sketch).view(np.int32)),
        lists("numbers", np.ascontiguousarray(sigs.numbers).view(np.int64)),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def signature_df(docs: Any, config: DedupConfig) -> Any:
    """Stage 1 in the executors: ``DOCUMENT_SCHEMA`` rows -> ``SIGNATURE_SCHEMA`` rows (no text)."""
    cfg = config.match
    schema = _arrow_schema()  # on the driver: parsing the schema needs the JVM

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        # the signing ``fingerprint_records`` does: pages (main text, layout, exact key), then signatures
        for rb in batches:
            if rb.num_rows == 0:
                continue
            items = list(zip(rb.column(2).to_pylist(), rb.column(3).to_pylist(), strict=True))
            sigs, _ = page_signatures(items, cfg)
            yield _signature_batch(schema, rb.column(0), rb.column(1), rb.column(4), sigs)

    return docs.select("pos", "id", "text", "html", "order").mapInArrow(run, SIGNATURE_SCHEMA)


def _collect_arrow(df: Any) -> Any:
    """The DataFrame as one Arrow table on the driver (no pandas on the way); None when empty."""
    if hasattr(df, "toArrow"):  # pyspark >= 4
        return df.toArrow()
    import pyarrow as pa

    batches = df._collect_as_arrow()
    return pa.Table.from_batches(batches) if batches else None


def collect_fingerprints(sig_df: Any, config: DedupConfig) -> Fingerprints:
    """Stage 1 on the driver: the signature rows, in position order, as ``Fingerprints``.

    Documents are numbered 0..n-1 in ``pos`` order (file path, then line). Ids repeated in the
    input are refused or renamed (``config.duplicate_ids``) by the code ``neardup dedup`` uses; the
    keep field's values are kept only for ``keep="newest"``.
    """
    cfg = config.match
    table = _collect_arrow(sig_df)
    if table is None or table.num_rows == 0:
        return Fingerprints(ids=[], sigs=signatures([], cfg), order=[] if cfg.keep == "newest" else None)
    n = table.num_rows
    table = table.sort_by("pos")
    pos = table.column("pos").to_numpy()
    if n > 1 and not bool((pos[1:] > pos[:-1]).all()):
        raise FormatError("two documents at the same position: read the input with read_documents")

    sigs = signatures_of(table, (cfg.sketch_size, max(cfg.max_numbers, 1)))
    raw_ids = table.column("id").to_pylist()
    values = table.column("order").to_pylist() if cfg.keep == "newest" else [None] * n
    records = (
        Record(id=str(i), text=None, extra={cfg.keep_field: v}) for i, v in zip(raw_ids, values, strict=True)
    )
    ids: list[str] = []
    order: list[Any] = []
    for rec in unique_ids(records, config.duplicate_ids):
        ids.append(rec.id)
        order.append(rec.extra[cfg.keep_field])
    return Fingerprints(ids=ids, sigs=sigs, order=order if cfg.keep == "newest" else None)


# -------------------------------------------------------------------------------------- the corpus
def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _local(path: str) -> str:
    return path.removeprefix("file://")


def _open_input(uri: str) -> Any:
    """A seekable file of the index, from local disk, HDFS or S3 (pyarrow's filesystems)."""
    from pyarrow import fs

    if _is_local(uri):
        return fs.LocalFileSystem().open_input_file(os.path.abspath(_local(uri)))
    if uri.startswith(("s3a://", "s3n://")):
        uri = "s3://" + uri.split("://", 1)[1]
    filesystem, path = fs.FileSystem.from_uri(uri)
    return filesystem.open_input_file(path)


@dataclass(frozen=True)
class Chunk:
    """Rows ``[first, first + rows)`` of one part file; ``xxh3``: check the file's bytes first."""

    uri: str
    first: int
    rows: int
    xxh3: str | None = None


def read_chunk(chunk: Chunk) -> Any:
    """The rows of a chunk as an Arrow table (the row groups that hold them, sliced)."""
    pq = _pq()
    try:
        if chunk.xxh3 is not None:
            h = xxhash.xxh3_64()
            with _open_input(chunk.uri) as fh:
                while data := fh.read(1 << 22):
                    h.update(data)
            if h.hexdigest() != chunk.xxh3:
                raise FormatError(
                    f"{chunk.uri}: checksum {h.hexdigest()}, the header says {chunk.xxh3}: the part is "
                    "damaged; restore it from a backup or rebuild the index"
                )
        pf = pq.ParquetFile(_open_input(chunk.uri))
        meta = pf.metadata
        groups: list[int] = []
        start = offset = 0
        for g in range(meta.num_row_groups):
            n = meta.row_group(g).num_rows
            if offset + n > chunk.first and offset < chunk.first + chunk.rows:
                if not groups:
                    start = offset
                groups.append(g)
            offset += n
        table = pf.read_row_groups(groups, columns=list(COLUMNS)) if groups else None
    except (OSError, ValueError, KeyError, TypeError) as exc:  # ArrowInvalid is a ValueError
        raise FormatError(
            f"{chunk.uri} is not a readable corpus index part ({exc}); rebuild the index"
        ) from None
    if table is None or table.num_rows < chunk.first - start + chunk.rows:
        raise FormatError(
            f"{chunk.uri} holds fewer rows than the header says: restore it or rebuild the index"
        )
    return table.slice(chunk.first - start, chunk.rows)


def probe_chunk(chunk: Chunk, batch: Signatures, config: MatchConfig) -> tuple[Any, ...]:
    """In an executor: the batch's candidates in one corpus chunk.

    Returns (corpus positions, batch rows, matched positions, their ids, their signatures).
    """
    table = read_chunk(chunk)
    pos = table.column("pos").to_numpy().astype(np.int64)
    a, b = cross_candidates(batch, signatures_of(table), config)
    rows = np.unique(a)
    ids = [str(i) for i in table.column("id").take(rows).to_pylist()]
    return pos[a], b.astype(np.int64), pos[rows], ids, signatures_of(table.take(rows))


class SparkCorpus:
    """A corpus index whose candidate pairs with a batch are found by Spark's executors.

    ``neardup.dedup.local.dedup_fingerprints`` takes it where it takes a ``CorpusIndex``: it calls
    ``candidates`` (instead of streaming ``iter_signatures`` through the driver) and then
    ``lookup`` for the matched corpus rows, which the executors sent back with the pairs.
    """

    def __init__(self, spark: Any, path: str) -> None:
        self.spark = spark
        self.path = path.rstrip("/") or path
        self.local: CorpusIndex | None = CorpusIndex.open(_local(path)) if _is_local(path) else None
        self.header = self.local.header if self.local is not None else _read_remote_header(spark, self.path)
        self._found: tuple[I64, list[str], Signatures] | None = None

    def __len__(self) -> int:
        return int(self.header["count"])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.header["settings"])

    def check_settings(self, config: DedupConfig) -> None:
        check_settings(self.header, config, self.path)

    def chunks(self) -> list[Chunk]:
        """The chunks ``CorpusIndex.iter_signatures`` streams: per part file in position order,
        ``CHUNK_ROWS`` rows at a time; the first chunk of a file checks its checksum."""
        out: list[Chunk] = []
        for seg in self.header["segments"]:
            if not int(seg["count"]):
                continue
            seg_dir = f"{self.path}/{seg['name']}"
            parts: list[tuple[str, int, str | None]]
            if seg.get("parts") is not None:
                parts = [(f"{seg_dir}/{pt['file']}", int(pt["rows"]), str(pt["xxh3"])) for pt in seg["parts"]]
            else:  # written without a part list: its files, sorted, counted by their footers
                parts = [(f, _footer_rows(f), None) for f in self._list_parquet(seg_dir)]
            for uri, rows, digest in parts:
                for first in range(0, rows, CHUNK_ROWS):
                    out.append(
                        Chunk(uri, first, min(CHUNK_ROWS, rows - first), digest if first == 0 else None)
                    )
        return out

    def _list_parquet(self, seg_dir: str) -> list[str]:
        if _is_local(seg_dir):
            return [str(p) for p in sorted(Path(_local(seg_dir)).glob("*.parquet"))]
        fs, hpath = _hadoop_fs(self.spark, seg_dir)
        statuses = fs.globStatus(hpath.suffix("/*.parquet")) or []
        return sorted(str(s.getPath().toString()) for s in statuses)

    def candidates(self, sigs: Signatures, config: MatchConfig) -> tuple[I64, I64]:
        """(corpus position, batch row) candidate pairs, one Spark task per chunk."""
        chunks = self.chunks()
        empty = np.empty(0, np.int64)
        if not chunks or len(sigs) == 0:
            self._found = (empty, [], signatures([], config))
            return empty, empty
        sc = self.spark.sparkContext
        bc = sc.broadcast(sigs)

        def run(part: Iterator[Chunk]) -> Iterator[tuple[Any, ...]]:
            for chunk in part:
                try:
                    yield ("ok", *probe_chunk(chunk, bc.value, config))
                except exceptions.NeardupError as exc:  # said on the driver as the same error
                    yield ("error", type(exc).__name__, str(exc))

        try:
            results = sc.parallelize(chunks, len(chunks)).mapPartitions(run).collect()
        finally:
            bc.unpersist()
        for res in results:
            if res[0] == "error":
                cls = getattr(exceptions, res[1], FormatError)
                raise cls(res[2])
        ok = [r[1:] for r in results]
        matched = np.concatenate([r[2] for r in ok])
        order = np.argsort(matched, kind="stable")
        ids = [i for r in ok for i in r[3]]
        self._found = (
            matched[order],
            [ids[i] for i in order.tolist()],
            Signatures.concat([r[4] for r in ok], config).take(order),
        )
        return np.concatenate([r[0] for r in ok]), np.concatenate([r[1] for r in ok])

    def lookup(self, positions: I64) -> tuple[list[str], Signatures]:
        """ids and signatures of matched corpus rows (sorted, unique positions)."""
        if self._found is None:
            raise RuntimeError("lookup before candidates: the executors have not searched the corpus")
        have, ids, sigs = self._found
        where = np.searchsorted(have, positions)
        if positions.size and (where.max() >= have.size or not np.array_equal(have[where], positions)):
            raise FormatError(f"{self.path}: corpus positions not found: the index is damaged")
        return [ids[i] for i in where.tolist()], sigs.take(where)

    def append(self, kept: Fingerprints) -> int:
        """Add the batch's kept documents as a new segment; returns the index's new size.

        A local index goes through ``CorpusIndex.append`` (lock, checksums, refused if another merge
        landed since it was opened). Elsewhere the segment's Parquet bytes are written through
        Hadoop's FileSystem, then the header naming them replaces the old one.
        """
        if self.local is not None:
            self.local.append(kept)
            return len(self.local)
        pq = _pq()
        import pyarrow as pa

        refuse_changed(self.path, self.header, _read_remote_header(self.spark, self.path))
        start = int(self.header["count"])
        name = segment_name(self.header)
        parts: list[dict[str, Any]] = []
        if len(kept):
            sink = pa.BufferOutputStream()
            pq.write_table(arrow_table(kept, start), sink, row_group_size=CHUNK_ROWS)
            data = sink.getvalue().to_pybytes()
            _write_remote(self.spark, f"{self.path}/{name}/part-00000.parquet", data)
            parts.append(
                {
                    "file": "part-00000.parquet",
                    "rows": len(kept),
                    "bytes": len(data),
                    "xxh3": xxhash.xxh3_64_hexdigest(data),
                }
            )
        header, _ = merged_header(self.header, len(kept), parts)
        _write_remote(self.spark, f"{self.path}/{HEADER}", orjson.dumps(header, option=orjson.OPT_INDENT_2))
        self.header = header
        return int(header["count"])


def _footer_rows(uri: str) -> int:
    pq = _pq()
    return int(pq.ParquetFile(_open_input(uri)).metadata.num_rows)


def _hadoop_fs(spark: Any, path: str) -> tuple[Any, Any]:
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def _read_remote_header(spark: Any, path: str) -> dict[str, Any]:
    rows = spark.sparkContext.wholeTextFiles(f"{path}/{HEADER}").collect()
    if not rows:
        raise FormatError(f"{path} is not a corpus index (no {HEADER})")
    try:
        header = orjson.loads(rows[0][1])
    except orjson.JSONDecodeError:
        raise FormatError(f"{path}/{HEADER} is not valid JSON: the header is damaged") from None
    return CorpusIndex.check_header(header, f"{path}/{HEADER}")


def _write_remote(spark: Any, path: str, data: bytes) -> None:
    """Write a file through Hadoop's FileSystem: a temp file, then a rename over the old one."""
    fs, target = _hadoop_fs(spark, path)
    tmp = target.suffix(f".tmp-{os.getpid()}")
    out = fs.create(tmp, True)
    try:
        for i in range(0, len(data), 1 << 24):  # py4j moves a byte[] per call: 16 MiB at a time
            out.write(bytearray(data[i : i + (1 << 24)]))
    finally:
        out.close()
    if fs.exists(target):
        fs.delete(target, False)
    if not fs.rename(tmp, target):
        raise StoreError(f"could not rename {tmp.toString()} to {path}")


# ----------------------------------------------------------------------------------------- driver
@dataclass
class SparkDedupResult:
    result: DedupResult
    seconds: dict[str, float] = field(default_factory=dict)
    index_documents: int | None = None
    corpus_documents: int | None = None


def spark_dedup(
    spark: Any,
    docs: Any,
    config: DedupConfig,
    *,
    against: str | SparkCorpus | None = None,
    merge: bool = False,
) -> SparkDedupResult:
    """Dedup a documents DataFrame (``DOCUMENT_SCHEMA``, made by ``read_documents``)."""
    if merge and against is None:
        raise ConfigError("merge needs an index to merge into (against=INDEX_DIR)")
    secs: dict[str, float] = {}
    corpus = SparkCorpus(spark, against) if isinstance(against, str) else against
    if corpus is not None:
        corpus.check_settings(config)
    t0 = time.perf_counter()
    fps = collect_fingerprints(signature_df(docs, config), config)
    secs["signatures"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    result = dedup_fingerprints(fps, config, corpus)
    secs["match"] = time.perf_counter() - t1
    out = SparkDedupResult(result=result, seconds=secs)
    if corpus is not None:
        out.corpus_documents = len(corpus)
        result.stats["corpus_documents"] = len(corpus)
        if merge:
            t2 = time.perf_counter()
            out.index_documents = corpus.append(fps.take(np.flatnonzero(result.keep)))
            secs["merge"] = time.perf_counter() - t2
    return out


def write_output(spark: Any, out: str, rows: Iterator[dict[str, Any]]) -> None:
    """One JSON line per document, the lines ``neardup dedup`` writes: a local file (atomic), or a
    directory of one ``part-00000`` text file elsewhere (HDFS, S3, or a local path ending in /)."""
    if _is_local(out) and not out.endswith("/"):
        write_jsonl(_local(out), rows)
        return
    lines: Sequence[str] = [orjson.dumps(r).decode() for r in rows]
    fs, target = _hadoop_fs(spark, out.rstrip("/"))
    if fs.exists(target):
        fs.delete(target, True)
    spark.sparkContext.parallelize(lines, 1).saveAsTextFile(out.rstrip("/"))
