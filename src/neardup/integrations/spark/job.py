"""``neardup dedup`` on Apache Spark: the match engine's stages as a PySpark job, same output.

1. Signatures in the executors: ``read_documents`` (``documents.py``) lists the input files and
   reads them with Spark's own sources; ``signature_df`` parses each row with ``neardup.io``'s rules
   and signs it with ``neardup.match.page_signatures``, as ``neardup dedup`` signs it, in one
   ``mapInArrow`` pass (no shuffle). Out come signature columns (unsigned integers as signed bits of
   the same width) and each document's place (file, split, row).
2. With an output directory (the command line) and no SimHash candidates, everything else is the
   distributed plan (``plan.py``, ``against.py``): candidate graph, components, the engine per
   component, output, and against a corpus index its candidates by joins on candidate keys and
   ``--merge`` written by the executors; nothing per document reaches the driver.
3. Otherwise (SimHash candidates, or no output directory) the driver path: the driver collects the
   signatures (no text) into a ``Fingerprints``, in reading order, and runs
   ``neardup.dedup.local.dedup_fingerprints``, the very function ``neardup dedup`` runs. Against a
   corpus index ``SparkCorpus`` finds the candidate pairs in the executors (the batch's signatures
   broadcast, one task per chunk running ``neardup.match.cross_candidates``).
4. ``merge`` on the driver path appends the batch's kept documents to the index as a new segment:
   a local index through ``CorpusIndex.append``; elsewhere the same Parquet table
   (``arrow_table``) and header (``merged_header``) are written through Hadoop's FileSystem.
5. The output rows are written by the executors (``output.write_output``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import xxhash

from neardup import exceptions
from neardup._deps import require
from neardup._workers import WorkerDied, WorkerPool, WorkerStuck, describe_exit
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints, _read_item, unique_ids
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
from neardup.exceptions import ConfigError, FormatError, InputError, StoreError
from neardup.integrations.spark.documents import SparkDocuments, parse_lines, parse_rows
from neardup.integrations.spark.errors import spark_errors
from neardup.io import ReadStats, Record
from neardup.match import MatchConfig, Signatures, cross_candidates, page_signatures, signatures
from neardup.match.dates import days_of, reads_dates
from neardup.match.pages import has_html

__all__ = [
    "SIGNATURE_SCHEMA",
    "SparkCorpus",
    "SparkDedupResult",
    "collect_fingerprints",
    "get_spark",
    "session_conf",
    "signature_df",
    "spark_dedup",
    "split_conf",
]

I64 = npt.NDArray[np.int64]

#: the executors' signature rows: a document's place (its file's rank, the byte offset its split of
#: the file starts at, its row in the split), its id (null: ``file:line``), the keep rule's field as a
#: string, an error (a bad record: the rest is null), then ``neardup.dedup.index.arrow_table``'s
#: columns, uint64 as long (same bits), the uint32 sketch as int (same bits)
SIGNATURE_SCHEMA = (
    "file int, split long, row long, id string, order string, error string, "
    "exact long, content long, simhash long, layout long, "
    "has_layout boolean, size int, tokens int, sketch array<int>, numbers array<long>, profile array<int>"
)
_PLACE = ("file", "split", "row", "id", "order", "error")


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


def _signature_batch(schema: Any, parsed: list[Any], sigs: Signatures | None) -> Any:
    """One Arrow batch of signature rows (``parsed``: the records' places, ids, order values and
    errors); unsigned values are reinterpreted, never converted. ``sigs=None``: error rows."""
    import pyarrow as pa

    n = len(parsed)
    place = [
        pa.array([p[i] for p in parsed], schema.field(name).type)
        for i, name in zip((0, 1, 2, 3, 6, 7), _PLACE, strict=True)
    ]
    if sigs is None:
        rest = [pa.nulls(n, schema.field(name).type) for name in schema.names[len(_PLACE) :]]
        return pa.RecordBatch.from_arrays([*place, *rest], schema=schema)

    def lists(name: str, values: Any) -> Any:
        offsets = pa.array(np.arange(n + 1, dtype=np.int32) * values.shape[1])
        return pa.ListArray.from_arrays(offsets, pa.array(values.ravel()), type=schema.field(name).type)

    arrays = [
        *place,
        pa.array(sigs.exact.view(np.int64)),
        pa.array(sigs.content.view(np.int64)),
        pa.array(sigs.simhash.view(np.int64)),
        pa.array(sigs.layout.view(np.int64)),
        pa.array(sigs.has_layout, pa.bool_()),
        pa.array(sigs.size.astype(np.int32)),
        pa.array(sigs.tokens.astype(np.int32)),
        lists("sketch", np.ascontiguousarray(sigs.sketch).view(np.int32)),
        lists("numbers", np.ascontiguousarray(sigs.numbers).view(np.int64)),
        pa.ListArray.from_arrays(
            pa.array((sigs.prof_ptr - sigs.prof_ptr[0]).astype(np.int32)),
            pa.array(sigs.prof[sigs.prof_ptr[0] : sigs.prof_ptr[-1]].view(np.int32)),
            type=schema.field("profile").type,
        ),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


#: reads one (text, html) item into a page; called as ``read_item(item, extractor=...)``
ReadItem = Callable[..., Any]


def bounded_pages(
    pool: WorkerPool, items: list[tuple[str | None, str | None]]
) -> tuple[list[Any], dict[int, str]]:
    """The pages of ``items`` read by ``pool``'s worker process, and, per item it could not read,
    the reason: past the pool's deadline on one item (the worker is killed and replaced) or a
    worker dead on it twice. Those items are left out (``None``) and the others read again, so
    one record costs the task at most the deadline."""
    pages: list[Any] = [None] * len(items)
    failed: dict[int, str] = {}
    left = list(range(len(items)))
    while left:
        tid = pool.submit([items[i] for i in left])
        try:
            got = pool.result(tid)
        except WorkerStuck as exc:
            failed[left[exc.item]] = (
                f"extracting its main text took over {exc.seconds:g} s (the per-record deadline, "
                "--record-timeout); its worker was stopped. Remove the record, or raise the deadline"
            )
            del left[exc.item]
            continue
        except WorkerDied as exc:
            failed[left[exc.item]] = (
                f"the process extracting its main text died on it twice ({describe_exit(exc.exitcode)}); "
                "remove the record, or give the run more memory"
            )
            del left[exc.item]
            continue
        for i, page in zip(left, got, strict=True):
            pages[i] = page
        left = []
    return pages, failed


def signature_df(docs: SparkDocuments, config: DedupConfig, *, read_item: ReadItem = _read_item) -> Any:
    """Stage 1 in the executors: read, parse and sign in one pass -> ``SIGNATURE_SCHEMA`` rows (no
    text). Text lines and Parquet rows are two ``mapInArrow`` over Spark's own sources, unioned.

    HTML is read by one worker process per task (``read_item``, as ``neardup dedup``'s workers
    read it), under the per-record deadline ``config.record_timeout``: a record whose main text
    takes longer (a parser loop in C code, which nothing in the task's own process can stop) or
    kills its worker twice becomes a bad record with a message saying so, which stops the run
    naming the record, or is skipped and counted under ``--skip-bad``."""
    cfg = config.match
    schema = _arrow_schema()  # on the driver: parsing the schema needs the JVM
    rank = docs.rank()
    acc = docs.line_counts
    reader = functools.partial(read_item, extractor=cfg.extractor)
    deadline = config.record_timeout

    def sign(parsed_batches: Iterator[list[Any]]) -> Iterator[Any]:
        # the signing ``fingerprint_records`` does: pages (main text, layout, exact key), then signatures
        pool: WorkerPool | None = None
        try:
            for parsed in parsed_batches:
                good = [p for p in parsed if p[7] is None]
                bad = [p for p in parsed if p[7] is not None]
                items = [(p[4], p[5]) for p in good]
                pages = None
                if any(has_html(item) for item in items):
                    pool = pool or WorkerPool(1, reader, deadline=deadline)
                    pages, failed = bounded_pages(pool, items)
                    if failed:
                        for i, why in sorted(failed.items()):
                            p = good[i]
                            who = "" if p[3] is None else f"record {p[3]!r}: "
                            bad.append((*p[:7], who + why))
                        keep = [i for i in range(len(good)) if i not in failed]
                        good = [good[i] for i in keep]
                        items = [items[i] for i in keep]
                        pages = [pages[i] for i in keep]
                if good:
                    sigs, _ = page_signatures(items, cfg, pages=pages)
                    yield _signature_batch(schema, good, sigs)
                if bad:
                    yield _signature_batch(schema, bad, None)
        finally:
            if pool is not None:
                pool.close()

    def lines(batches: Iterator[Any]) -> Iterator[Any]:
        counts: dict[tuple[int, int], int] = {}
        yield from sign(parse_lines(docs_light, rank, batches, counts))
        acc.add(counts)

    def rows(batches: Iterator[Any]) -> Iterator[Any]:
        yield from sign(parse_rows(docs_light, rank, batches))

    # what the executors need of the documents: no DataFrames, no accumulator (they do not pickle)
    docs_light = dataclasses.replace(docs, lines=None, rows=None, line_counts=None)
    frames = []
    if docs.lines is not None:
        frames.append(docs.lines.mapInArrow(lines, SIGNATURE_SCHEMA))
    if docs.rows is not None:
        frames.append(docs.rows.mapInArrow(rows, SIGNATURE_SCHEMA))
    if not frames:
        raise InputError("no input files")
    out = frames[0]
    for other in frames[1:]:
        out = out.unionByName(other)
    return out


def _collect_arrow(df: Any) -> Any:
    """The DataFrame as one Arrow table on the driver (no pandas on the way); None when empty."""
    if hasattr(df, "toArrow"):  # pyspark >= 4
        return df.toArrow()
    import pyarrow as pa

    batches = df._collect_as_arrow()
    return pa.Table.from_batches(batches) if batches else None


def _lines_of(table: Any, counts: dict[tuple[int, int], int]) -> Any:
    """Each row's line in its file: the lines of the file's earlier splits, plus its row, plus 1.
    ``table`` is sorted by (file, split, row)."""
    file = table.column("file").to_numpy().astype(np.int64)
    split = table.column("split").to_numpy().astype(np.int64)
    line = table.column("row").to_numpy().astype(np.int64) + 1
    if not bool((split > 0).any()):
        return line
    before: dict[tuple[int, int], int] = {}
    total: dict[int, int] = {}
    for (f, s), n in sorted(counts.items()):
        before[(f, s)] = total.get(f, 0)
        total[f] = total.get(f, 0) + n
    starts = np.flatnonzero(np.r_[True, (file[1:] != file[:-1]) | (split[1:] != split[:-1])])
    ends = np.r_[starts[1:], len(file)]
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        line[a:b] += before.get((int(file[a]), int(split[a])), 0)
    return line


def collect_fingerprints(
    sig_df: Any, config: DedupConfig, docs: SparkDocuments, stats: ReadStats | None = None
) -> Fingerprints:
    """Stage 1 on the driver: the signature rows, in reading order, as ``Fingerprints``.

    Documents are numbered 0..n-1 in (file, split, row) order: ``neardup dedup``'s reading order.
    A bad record raises the ``InputError`` ``neardup dedup`` raises for it (the first one in reading
    order), or is counted in ``stats`` and left out with ``docs.skip_bad``. Ids repeated in the
    input are refused or renamed (``config.duplicate_ids``) by the code ``neardup dedup`` uses; the
    keep field's values are kept only for ``keep="newest"``.
    """
    cfg = config.match
    stats = stats if stats is not None else ReadStats()
    with spark_errors(docs.files):
        table = _collect_arrow(sig_df)
    if table is None or table.num_rows == 0:
        return Fingerprints(ids=[], sigs=signatures([], cfg), order=[] if cfg.keep == "newest" else None)
    table = table.sort_by([("file", "ascending"), ("split", "ascending"), ("row", "ascending")])
    line = _lines_of(table, dict(docs.line_counts.value))
    file = table.column("file").to_numpy()
    errors = table.column("error")
    if errors.null_count < table.num_rows:
        bad = np.flatnonzero(errors.is_valid().to_numpy(zero_copy_only=False))
        messages = errors.take(bad).to_pylist()
        first = InputError(messages[0], source=docs.files[int(file[bad[0]])].source, line=int(line[bad[0]]))
        if not docs.skip_bad:
            raise first
        stats.skipped += len(bad)
        stats.first_error = stats.first_error or str(first)
        good = np.flatnonzero(errors.is_null().to_numpy(zero_copy_only=False))
        table, line, file = table.take(good), line[good], file[good]
    n = table.num_rows
    stats.read += n
    if n > 1:
        f = file.astype(np.int64)
        if not bool(((f[1:] > f[:-1]) | ((f[1:] == f[:-1]) & (line[1:] > line[:-1]))).all()):
            raise FormatError("two documents at the same place: read the input with read_documents")

    sigs = signatures_of(table, (cfg.sketch_size, max(cfg.max_numbers, 1)))
    names = [f.name for f in docs.files]
    raw_ids = [
        f"{names[f]}:{ln}" if i is None else i
        for i, f, ln in zip(table.column("id").to_pylist(), file.tolist(), line.tolist(), strict=True)
    ]
    dated = cfg.keep == "newest" or reads_dates(cfg)
    values = table.column("order").to_pylist() if dated else [None] * n
    if reads_dates(cfg):
        sigs.day = days_of(values, n)
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


def read_chunk(chunk: Chunk, columns: list[str] | None = None) -> Any:
    """The rows of a chunk as an Arrow table (the row groups that hold them, sliced); ``columns``:
    those only (default: all of ``COLUMNS``)."""
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
        table = pf.read_row_groups(groups, columns=columns or list(COLUMNS)) if groups else None
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
            with spark_errors():
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
        if not len(kept):  # nothing kept: no segment, as a local merge writes none
            return len(self)
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
    """``result``: the batch's clusters on the driver (the driver path); None when the distributed
    plan ran, which wrote the output and left only ``summary``."""

    result: DedupResult | None
    seconds: dict[str, float] = field(default_factory=dict)
    index_documents: int | None = None
    corpus_documents: int | None = None
    read: ReadStats = field(default_factory=ReadStats)
    summary: dict[str, Any] = field(default_factory=dict)


@contextmanager
def session_conf(spark: Any, conf: dict[str, str]) -> Iterator[None]:
    """Set SQL settings for the block, then put the old values back (a shared session stays as it was)."""
    old = {k: spark.conf.get(k, None) for k in conf}
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


def split_conf(partitions: int | None, input_bytes: int | None) -> dict[str, str]:
    """The file-source settings that read the input as about ``partitions`` tasks: splits of
    ``input_bytes / partitions`` bytes when the size is known, else at least ``partitions`` splits
    (Spark's ``minPartitionNum``; splits stay over ``openCostInBytes``, 4 MB). Gzip files are
    never split.

    >>> split_conf(3, 3000)["spark.sql.files.maxPartitionBytes"], split_conf(None, 10)
    ('1000', {})
    """
    if not partitions:
        return {}
    conf = {"spark.sql.files.minPartitionNum": str(partitions)}
    if input_bytes is not None:
        size = max(1, -(-input_bytes // partitions))
        conf["spark.sql.files.maxPartitionBytes"] = str(size)
        conf["spark.sql.files.openCostInBytes"] = "0"
    return conf


def spark_dedup(
    spark: Any,
    docs: SparkDocuments,
    config: DedupConfig,
    *,
    against: str | SparkCorpus | None = None,
    merge: bool = False,
    read_conf: dict[str, str] | None = None,
    out: str | None = None,
    fmt: str | None = None,
) -> SparkDedupResult:
    """Dedup the documents ``read_documents`` found; ``read_conf``: Spark settings for the read
    (``split_conf``).

    With ``out`` and no corpus (and no SimHash candidates) the distributed plan runs
    (``neardup.integrations.spark.plan``): every stage in the executors, the output written to
    ``out``. Otherwise the driver collects the signatures and runs ``dedup_fingerprints``; the
    caller writes ``result.rows()``."""
    if merge and against is None:
        raise ConfigError("merge needs an index to merge into (against=INDEX_DIR)")
    corpus = SparkCorpus(spark, against) if isinstance(against, str) else against
    if corpus is not None:
        corpus.check_settings(config)
    if out is not None and config.match.candidate_distance is None:
        from neardup.integrations.spark.plan import distributed_dedup

        plan = distributed_dedup(
            spark, docs, config, out, fmt, read_conf=read_conf, corpus=corpus, merge=merge
        )
        done = SparkDedupResult(result=None, seconds=plan.seconds, read=plan.read, summary=plan.summary)
        if corpus is not None:
            done.corpus_documents = len(corpus)
            done.index_documents = plan.summary.get("index_documents")
        return done
    secs: dict[str, float] = {}
    t0 = time.perf_counter()
    stats = ReadStats()
    with session_conf(spark, read_conf or {}):
        fps = collect_fingerprints(signature_df(docs, config), config, docs, stats)
    secs["signatures"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    result = dedup_fingerprints(fps, config, corpus)
    secs["match"] = time.perf_counter() - t1
    done = SparkDedupResult(result=result, seconds=secs, read=stats)
    if corpus is not None:
        done.corpus_documents = len(corpus)
        result.stats["corpus_documents"] = len(corpus)
        if merge:
            t2 = time.perf_counter()
            done.index_documents = corpus.append(fps.take(np.flatnonzero(result.keep)))
            secs["merge"] = time.perf_counter() - t2
    done.summary = result.summary()
    return done
