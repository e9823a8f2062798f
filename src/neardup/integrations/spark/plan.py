"""The distributed plan of ``neardup spark dedup``: nothing per document on the driver.

The answer is the one ``neardup dedup`` gives (``neardup.match.components``): the batch split into
the connected components of its candidate graph, each component through the engine's sequential
pass; when the largest component holds more than ``max_component`` documents, the components of the
verified candidate graph with the batch's boilerplate (``_verified_labels``), decided the same way. Every stage runs in the executors; the driver sees counts, one row per input split, and a
checksum per round of the components' algorithm.

1. **sign**: ``job.signature_df`` (read, parse, sign in one pass), kept by Spark (memory and disk)
   so the input is read once. A bad record stops the run with ``neardup dedup``'s message (the
   first in reading order: one row reaches the driver), or is counted and left out.
2. **number**: a document's number is its split's offset plus its row in the split (splits in
   reading order; the driver holds one offset per split), so numbers follow ``neardup dedup``'s
   order, with gaps where blank lines or bad records were. Ids made from ``file:line`` come from
   the splits' line counts; repeated ids are refused (one row to the driver) or renamed ``id#2``
   by ``unique_ids`` over the documents whose id repeats (and ids holding ``#``).
2b. **against a corpus** (``against.py``): the batch's corpus candidates by joins on candidate
   keys with ``neardup dedup --against``'s per-chunk rules; the matched corpus documents numbered
   ahead of the batch (the batch's numbers shifted past them) with a ``fixed`` flag, so the stages
   below run over corpus + batch and the engine treats them as representatives already.
3. **candidate graph**: each document's sketch values as (value, document, posted?) rows,
   partitioned by value; per task the kernel ``neardup dedup`` runs (``value_pairs``) finds the
   sketch pairs (hot values left out), counted in the task and summed by a shuffle (``min_shared``
   of them make an edge); exact and content keys link each holder to the first holder (a window).
4. **components**: the alternating large-star / small-star rounds of Kiveris et al. (2014) on the
   edge DataFrame, checkpointed each round, until a round changes nothing (the driver compares the
   edge count and an xor of edge hashes). A component is named by its smallest document. The
   largest component's size (one count by component) is compared with ``max_component``; past
   it, the sketch pairs are verified in the executors (``_verified_pairs``) in two rounds
   (``_first_edges``: each document's best candidate, then only the pairs those links leave
   apart, as the local pass skips the pairs of documents already connected), the pass over their
   components gives the representatives and the batch's boilerplate, the pass's own pairs and the
   pairs between components are verified again with it, and the rounds run on those edges.
5. **engine**: documents partitioned by component, in document order within it (taken longest
   text first with the keep rules ``fuller`` and ``longest``, as ``neardup dedup`` takes them:
   ``neardup.match.components.pass_order``); each task runs
   ``run_components`` (the kernel of ``neardup dedup``) over many components, then the keep rule
   and the output rows (``DedupResult.rows``) of those documents.
6. **output**: the rows sorted by document (range partitions) and written by the executors; the
   summary's counts are one aggregate. ``--merge``: the kept documents written as the index's new
   segment by the executors (``against.write_merge``).

Memory: the driver holds one row per input split and per kind; an executor task holds one Arrow
batch of signatures, one value partition's (value, document) rows and pair counts (a partition per
``PARTITION_DOCS`` documents at least), ``VERIFY_ROWS`` candidate pairs with both documents'
columns (a verification task streams its partition), or the components of its share of the
documents (at least one whole component: the largest component bounds a task).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints, unique_ids
from neardup.dedup.index import signatures_of
from neardup.dedup.local import DedupResult, keepers
from neardup.dedup.rethreshold import decision_rows
from neardup.exceptions import InputError
from neardup.integrations.spark.documents import SparkDocuments
from neardup.integrations.spark.errors import spark_errors
from neardup.integrations.spark.output import output_format, write_frame
from neardup.io import ReadStats, Record
from neardup.match.cluster import Clusters
from neardup.match.components import component_rows, counted_pairs, pass_order, union_find
from neardup.match.dates import days_of, reads_dates
from neardup.match.engine import run_components
from neardup.match.verify import KINDS

__all__ = ["DistributedResult", "connected_components", "distributed_dedup"]

#: the signature columns the engine stage needs, as ``job.SIGNATURE_SCHEMA`` names them
SIG_COLUMNS = (
    "exact",
    "content",
    "simhash",
    "layout",
    "has_layout",
    "size",
    "tokens",
    "sketch",
    "numbers",
    "profile",
)
#: rows of the graph stage: a sketch pair (``a << 32 | b``) seen n times in a task
GRAPH_SCHEMA = "p long, n int"
#: the engine stage's rows: the document, its output line (JSON) or Parquet columns, its kind's
#: code and whether it is kept
LINE_SCHEMA = "doc long, value string, kind byte, keep boolean, indexed boolean, cluster_doc long"


def _parquet_schema() -> str:
    """The Spark schema of the Parquet output's rows: the evidence struct is the one
    ``neardup.formats.row_schema`` gives ``neardup dedup``'s Parquet output."""
    from pyspark.sql.pandas.types import from_arrow_type

    evidence = from_arrow_type(_evidence_type()).simpleString()
    return (
        "doc long, id string, cluster string, duplicate_of string, kind string, related_to string, "
        f"distance int, evidence {evidence}, kind_code byte, keep boolean, indexed boolean, cluster_doc long"
    )


#: documents an engine task gathers before running the components complete so far
ENGINE_BATCH = 20_000
#: the graph and match stages use at least one partition per this many documents: a graph task
#: sorts its value partition's rows (13 bytes each) and counts their pairs (at most
#: ``link_posters`` a row; 797-861 MiB of Python at 24,000 documents a partition of 500,000 edited
#: zh-xwlb copies), an edge task sums that partition's counts
PARTITION_DOCS = 25_000


@dataclass
class DistributedResult:
    """What the distributed plan leaves on the driver: the summary's counts and stage times."""

    summary: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    read: ReadStats = field(default_factory=ReadStats)
    rounds: int = 0


def _functions() -> Any:
    from pyspark.sql import functions

    return functions


# ------------------------------------------------------------------------------------ numbering
def _split_table(
    docs: SparkDocuments, sig: Any
) -> tuple[list[tuple[int, int, int, int, int, str, str]], int]:
    """Per split of the input (file, split): the number of its first good row, the row itself, the
    lines before it in its file, and the file's name and source (one row per split reaches the
    driver); and the number of bad records. Numbers follow the reading order, with gaps at blank
    lines and bad records."""
    F = _functions()
    good_row = F.when(F.col("error").isNull(), F.col("row"))
    rows = (
        sig.groupBy("file", "split")
        .agg(F.min(good_row).alias("first"), F.max(good_row).alias("last"), F.count("error").alias("bad"))
        .collect()
    )
    n_bad = sum(int(r["bad"]) for r in rows)
    counts = dict(docs.line_counts.value) if docs.line_counts is not None else {}
    span = {(int(r["file"]), int(r["split"])): (r["first"], r["last"]) for r in rows}
    out = []
    offset = 0
    lines: dict[int, int] = {}
    for f, s in sorted(set(span) | set(counts)):
        first, last = span.get((f, s), (None, None))
        first = 0 if first is None else int(first)
        out.append((f, s, offset, first, lines.get(f, 0), docs.files[f].name, docs.files[f].source))
        if last is not None:
            offset += int(last) - first + 1
        lines[f] = lines.get(f, 0) + counts.get((f, s), 0)
    return out, n_bad


def _first_error(docs: SparkDocuments, bad: Any, splits: Any) -> InputError:
    F = _functions()
    row = (
        bad.join(F.broadcast(splits), ["file", "split"], "left")
        .orderBy("file", "split", "row")
        .select("file", "row", F.coalesce("before", F.lit(0)).alias("before"), "error")
        .first()
    )
    return InputError(
        row["error"],
        source=docs.files[int(row["file"])].source,
        line=int(row["before"]) + int(row["row"]) + 1,
    )


def _unique_ids(spark: Any, docs_df: Any, policy: str) -> Any:
    """Repeated ids refused or renamed as ``unique_ids`` does in ``neardup dedup``; only the
    documents whose id repeats (and, when renaming, ids holding ``#``) reach the driver."""
    F = _functions()
    from pyspark.sql import Window

    repeated = docs_df.groupBy("id").count().filter(F.col("count") > 1).select("id")
    if repeated.limit(1).count() == 0:
        return docs_df
    if policy == "error":
        w = Window.partitionBy("id").orderBy("doc")
        first = (
            docs_df.join(repeated, "id")
            .withColumn("rn", F.row_number().over(w))
            .filter(F.col("rn") == 2)
            .orderBy("doc")
            .select("id")
            .first()
        )
        rows = docs_df.filter(F.col("id") == first["id"]).orderBy("doc").limit(2).collect()
        list(
            unique_ids(
                (Record(r["id"], None, source=r["source"], line=int(r["line"])) for r in rows), "error"
            )
        )
        raise AssertionError("unreachable: the id repeats")  # pragma: no cover
    involved = docs_df.join(repeated.withColumn("rep", F.lit(True)), "id", "left").filter(
        F.col("rep").isNotNull() | F.col("id").contains("#")
    )
    rows = involved.select("doc", "id").orderBy("doc").collect()
    renamed = []
    for r, rec in zip(rows, unique_ids((Record(r["id"], None) for r in rows), "suffix"), strict=True):
        if rec.id != r["id"]:
            renamed.append((int(r["doc"]), rec.id))
    if not renamed:
        return docs_df
    names = spark.createDataFrame(renamed, "doc long, new_id string")
    return (
        docs_df.join(F.broadcast(names), "doc", "left")
        .withColumn("id", F.coalesce(F.col("new_id"), F.col("id")))
        .drop("new_id")
    )


# ---------------------------------------------------------------------------------------- graph
def _graph_task(config: DedupConfig) -> Any:
    """mapInArrow over (value, document, posted) rows partitioned by value: the task's rows sorted
    in numpy (13 bytes a row; the JVM's sort spills on a small heap), then the pairs of each value,
    counted in the task."""
    cfg = config.match

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        keys = []
        for rb in batches:
            v = rb.column(0).to_numpy().view(np.uint32).astype(np.uint64)
            d = rb.column(1).to_numpy().astype(np.uint64)
            later = ~rb.column(2).to_numpy(zero_copy_only=False).astype(np.bool_)
            keys.append((v << np.uint64(32)) | (later.astype(np.uint64) << np.uint64(31)) | d)
        if not keys:
            return
        # by value, then posters before holders, then document: one sort of 64-bit keys, as
        # neardup.match.components.sketch_edges sorts them (documents < 2^31)
        key = np.concatenate(keys)
        key.sort()
        low = (key & np.uint64(0xFFFFFFFF)).astype(np.int64)
        with np.errstate(over="ignore"):
            pairs, counts, _ = counted_pairs(
                (key >> np.uint64(32)).astype(np.uint32), low & 0x7FFFFFFF, low < (1 << 31), cfg
            )
        yield pa.RecordBatch.from_arrays(
            [pa.array(pairs.view(np.int64)), pa.array(counts.astype(np.int32))], names=["p", "n"]
        )

    return task


def _edge_task(min_shared: int, counts: bool = False) -> Any:
    """mapInArrow over (pair, count) rows partitioned by pair: the pairs counted ``min_shared``
    times in all, as edges (a, b); ``counts``: with that count (``n``, the values they share)."""

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        ps, ns = [], []
        for rb in batches:
            ps.append(rb.column(0).to_numpy())
            ns.append(rb.column(1).to_numpy())
        if not ps:
            return
        p = np.concatenate(ps).view(np.uint64)
        n = np.concatenate(ns).astype(np.int64)
        if p.size == 0:
            return
        order = np.argsort(p, kind="stable")
        p, n = p[order], n[order]
        starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
        total = np.add.reduceat(n, starts)
        held = total >= min_shared
        keep = p[starts][held]
        a = (keep >> np.uint64(32)).astype(np.int64)
        b = (keep & np.uint64(0xFFFFFFFF)).astype(np.int64)
        if counts:
            n_held = pa.array(total[held].astype(np.int32))
            yield pa.RecordBatch.from_arrays([pa.array(a), pa.array(b), n_held], names=["a", "b", "n"])
        else:
            yield pa.RecordBatch.from_arrays([pa.array(a), pa.array(b)], names=["a", "b"])

    return task


def _candidate_graph(docs_df: Any, config: DedupConfig, partitions: int) -> tuple[Any, Any]:
    """The candidate graph as two DataFrames of pairs (a < b): key edges (the same page or text:
    they link as they are) and sketch pairs (to be verified), with the values they share (``n``)."""
    F = _functions()
    from pyspark.sql import Window

    cfg = config.match
    values = (
        docs_df.select("doc", F.posexplode("sketch").alias("pos", "v"))
        .filter(F.col("v") != -1)  # EMPTY32 as a signed int
        .select("v", "doc", (F.col("pos") < cfg.posted).alias("posted"))
        .repartition(partitions, "v")
    )
    # the pairs' counts summed in Python after a plain shuffle: a sort of 64-bit keys per task,
    # where a JVM hash aggregate of the same rows spills on a small heap
    sketch = (
        values.mapInArrow(_graph_task(config), GRAPH_SCHEMA)
        .repartition(partitions, "p")
        .mapInArrow(_edge_task(cfg.min_shared, counts=True), "a long, b long, n int")
    )
    keys = []
    for col, usable in (("exact", None), ("content", F.col("tokens") > 0)):
        held = docs_df if usable is None else docs_df.filter(usable)
        w = Window.partitionBy(col)
        keys.append(
            held.select(F.min("doc").over(w).alias("a"), F.col("doc").alias("b")).filter(
                F.col("a") < F.col("b")
            )
        )
    return keys[0].unionByName(keys[1]), sketch


#: what the sketches' look at a pair needs of each document (no text profile: the bulk of a row)
GATE_COLUMNS = ("exact", "content", "simhash", "layout", "has_layout", "size", "tokens", "sketch", "numbers")


#: candidate pairs a verification task holds at once, with both documents' columns (about 5.2 KB
#: a pair with the text profiles on zh-xwlb, a few times that in Python while judged)
VERIFY_ROWS = 10_000
#: documents a verification task remembers as union-find nodes (16 bytes each), so that a pair
#: whose documents its earlier pairs already linked is not read; past it, it starts afresh
VERIFY_NODES = 1 << 22


class _Forest:
    """A union-find over the documents a task has seen (sorted document numbers and, per node,
    its parent's index), grown chunk by chunk and cleared past ``VERIFY_NODES`` nodes."""

    def __init__(self, limit: int = VERIFY_NODES) -> None:
        self.limit = limit
        self.docs = np.empty(0, np.int64)
        self.parent = np.empty(0, np.int64)

    def nodes(self, a: Any, b: Any) -> tuple[Any, Any]:
        """The nodes of pairs ``(a, b)``, adding the documents not seen yet (the indexes shift: the
        parents are renumbered); past the limit, the chunk's documents alone."""
        docs = np.unique(np.concatenate([a, b]))
        new = np.setdiff1d(docs, self.docs, assume_unique=True)
        if new.size:
            if self.docs.size + new.size > self.limit:
                self.docs, self.parent = np.empty(0, np.int64), np.empty(0, np.int64)
                new = docs
            merged = np.union1d(self.docs, new)
            at = np.searchsorted(merged, self.docs)
            parent = np.arange(merged.size, dtype=np.int64)
            parent[at] = at[self.parent]
            self.docs, self.parent = merged, parent
        return (
            np.searchsorted(self.docs, a).astype(np.int64),
            np.searchsorted(self.docs, b).astype(np.int64),
        )


def _verify_task(config: DedupConfig, full: bool, common: tuple[Any, Any] | None = None) -> Any:
    """mapInArrow over candidate pairs joined with both documents' columns (``a_*``, ``b_*``): the
    pairs that link (``neardup.match.components.link_pairs``, one thread: a task is a core).
    ``full=False``: the sketches' kind alone, from ``GATE_COLUMNS`` and a ``texts`` flag a side;
    ``full=True``: the kind the texts give, profiles included. ``common``: the batch's boilerplate
    (``batch_boilerplate``), left out of a pair as it stands at the pair's later document.

    The pairs stream through: ``VERIFY_ROWS`` at a time, whatever the partition holds. With the
    texts, a pair whose documents the task's linked pairs already connect (a union-find over up to
    ``VERIFY_NODES`` documents, kept from chunk to chunk) is not read: that changes no component."""
    cfg = config.match
    widths = (cfg.sketch_size, max(cfg.max_numbers, 1))
    cols = (*GATE_COLUMNS, "profile") if full else GATE_COLUMNS
    chunk, limit = VERIFY_ROWS, VERIFY_NODES  # read here, on the driver: the tasks get the values

    def judge(t: Any, forest: _Forest | None) -> Any:
        import pyarrow as pa

        from neardup.match.components import link_pairs
        from neardup.match.signature import Signatures

        a = t.column("a").to_numpy()
        b = t.column("b").to_numpy()
        order = np.lexsort((b, a))
        t = t.take(pa.array(order))
        a, b = a[order], b[order]
        m = t.num_rows
        sides = [signatures_of(pa.table({c: t.column(f"{s}_{c}") for c in cols}), widths) for s in ("a", "b")]
        sigs = Signatures.concat(sides)
        del sides
        texts = None
        if not full:
            texts = np.concatenate(
                [t.column(f"{s}_texts").to_numpy(zero_copy_only=False) for s in ("a", "b")]
            )
        del t
        rows = np.arange(m, dtype=np.int64)
        if forest is not None:
            # a pair whose documents the task's linked pairs already connect need not be read
            ends = forest.nodes(a, b)
            parent = forest.parent
        else:
            # the sketches' look skips nothing: a pair they pass may still be unique once the texts
            # are read, so it connects nothing yet
            ends = (rows, rows + m)
            parent = np.arange(2 * m, dtype=np.int64)
        linked, _ = link_pairs(
            sigs,
            (rows, rows + m),
            cfg,
            nodes=ends,
            parent=parent,
            texts=texts,
            full=full,
            common=common,
            at=b,
            parallel=False,
        )
        return pa.RecordBatch.from_arrays([pa.array(a[linked]), pa.array(b[linked])], names=["a", "b"])

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        forest = _Forest(limit) if full else None
        held: list[Any] = []
        count = 0
        for rb in batches:
            if not rb.num_rows:
                continue
            held.append(rb)
            count += rb.num_rows
            if count >= chunk:
                yield judge(pa.Table.from_batches(held).combine_chunks(), forest)
                held, count = [], 0
        if held:
            yield judge(pa.Table.from_batches(held).combine_chunks(), forest)

    return task


def _verified_pairs(
    docs_df: Any, pairs: Any, config: DedupConfig, *, fixed: int = 0, common: tuple[Any, Any] | None = None
) -> Any:
    """The candidate pairs (a, b) that link their documents, verified in the executors: first the
    sketches' kind (each side's ``GATE_COLUMNS``, about 0.8 KB a document), then, for the pairs the
    sketches do not call unique, the kind the texts give (profiles joined only for those). A pair
    of two of the first ``fixed`` documents (matched corpus documents, representatives already)
    is not verified: the pass never checks one against another. ``common``: the batch's boilerplate
    (``neardup.match.components.batch_boilerplate``), left out as ``link_pairs`` leaves it out."""
    F = _functions()
    if fixed:
        pairs = pairs.filter(F.col("b") >= F.lit(fixed))

    def side(s: str, cols: tuple[str, ...], texts: bool) -> Any:
        extra = [(F.size("profile") > 0).alias(f"{s}_texts")] if texts else []
        return docs_df.select(F.col("doc").alias(s), *[F.col(c).alias(f"{s}_{c}") for c in cols], *extra)

    gate = (
        pairs.join(side("a", GATE_COLUMNS, True), "a")
        .join(side("b", GATE_COLUMNS, True), "b")
        .mapInArrow(_verify_task(config, full=False, common=common), "a long, b long")
    )
    full = (*GATE_COLUMNS, "profile")
    return (
        gate.join(side("a", full, False), "a")
        .join(side("b", full, False), "b")
        .mapInArrow(_verify_task(config, full=True, common=common), "a long, b long")
    )


def _forest_task(batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow over edges (a, b): a spanning forest of the task's edges, each node linked to the
    smallest node of its component in the task (``union_find``, as in one process). The
    components are the same; the edges left are at most the task's nodes."""
    import pyarrow as pa

    a_parts, b_parts = [], []
    for rb in batches:
        a_parts.append(rb.column(0).to_numpy())
        b_parts.append(rb.column(1).to_numpy())
    a = np.concatenate(a_parts) if a_parts else np.empty(0, np.int64)
    if a.size == 0:
        return
    b = np.concatenate(b_parts)
    nodes, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    root = union_find(nodes.size, inverse[: a.size].astype(np.int64), inverse[a.size :].astype(np.int64))
    linked = root != np.arange(nodes.size)
    yield pa.RecordBatch.from_arrays(
        [pa.array(nodes[linked].astype(np.int64)), pa.array(nodes[root[linked]].astype(np.int64))],
        names=["a", "b"],
    )


def _normal(df: Any, x: str, y: str) -> Any:
    F = _functions()
    return (
        df.select(F.greatest(x, y).alias("x"), F.least(x, y).alias("y"))
        .filter(F.col("x") != F.col("y"))
        .distinct()
    )


#: the plan keeps its signature rows (about 2.6 KB a document with the text profile) on the
#: executors' disks (``DISK_ONLY``: a partition kept in memory first is unrolled whole in the JVM
#: heap), written in cached batches of this many rows (Spark's default 10,000 rows of profiles in
#: each of a local session's tasks at once exhaust a 1 GB heap)
CACHE_CONF = {"spark.sql.inMemoryColumnarStorage.batchSize": "2000"}

#: a spanning forest of at most this many edges (16 bytes each) is labelled by one task's
#: union-find (about 0.5 GB of one Python worker at the bound), larger ones in rounds
ONE_TASK_EDGES = 16_000_000


def _label_task(batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow over a whole forest's edges (a, b), in one task: (doc, comp) for every document
    on an edge but its component's smallest, comp that smallest (``union_find``)."""
    import pyarrow as pa

    for rb in _forest_task(batches):
        yield pa.RecordBatch.from_arrays(rb.columns, names=["doc", "comp"])


def connected_components(
    edges: Any, max_rounds: int = 200, one_task_edges: int = ONE_TASK_EDGES
) -> tuple[Any, int]:
    """(doc, comp) for every document on an edge, comp the smallest document of its component;
    edges are columns ``a``, ``b``. Each task's edges are reduced to a spanning forest; a forest of
    at most ``one_task_edges`` edges is then labelled by one task's union-find (the driver sees its
    count), a larger one by the alternating large-star / small-star algorithm (Kiveris et al.,
    "Connected Components in MapReduce and Beyond", 2014): a few rounds on real graphs, each a
    handful of shuffles; the driver sees two numbers per round. Returns the labels (kept by Spark:
    persisted when one task labelled them, the last round's checkpoint otherwise; the forest is
    unpersisted) and the rounds (0 when one task labelled them)."""
    from pyspark import StorageLevel

    F = _functions()
    # each task's edges reduced to a spanning forest first: the rounds then shuffle about one edge
    # per document instead of every candidate pair, and one task labels a forest that fits it
    e = _normal(edges.mapInArrow(_forest_task, "a long, b long"), "a", "b").persist(
        StorageLevel.MEMORY_AND_DISK
    )
    if e.count() <= one_task_edges:
        labels = (
            e.repartition(1)
            .mapInArrow(_label_task, "doc long, comp long")
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        labels.count()  # labelled: the forest is no longer needed
        e.unpersist()
        return labels, 0
    forest = e
    last = None
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        # large star: every larger neighbour of u to the smallest of u's neighbourhood (u included)
        both = e.select(F.col("x").alias("u"), F.col("y").alias("v")).unionByName(
            e.select(F.col("y").alias("u"), F.col("x").alias("v"))
        )
        m = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        e = _normal(both.filter(F.col("v") > F.col("u")).join(m, "u").select("v", "m"), "v", "m")
        # small star: u and its smaller neighbours to the smallest of them
        m = e.groupBy("x").agg(F.min("y").alias("m"))
        e = _normal(
            e.join(m, "x")
            .select(F.col("y").alias("p"), "m")
            .unionByName(m.select(F.col("x").alias("p"), "m")),
            "p",
            "m",
        ).localCheckpoint(eager=False)  # computed once, by the check below: one job a round
        row = e.agg(F.count(F.lit(1)).alias("n"), F.bit_xor(F.xxhash64("x", "y")).alias("h")).first()
        now = (int(row["n"]), None if row["h"] is None else int(row["h"]))
        if now == last:
            break
        last = now
    forest.unpersist()  # the last round's edges are checkpointed
    return e.select(F.col("x").alias("doc"), F.col("y").alias("comp")), rounds


def _grouped(docs_df: Any, labels: Any, partitions: int) -> Any:
    """The documents with their component (``comp``; a document in no edge is its own),
    partitioned by component and sorted by (component, document): the engine tasks' input."""
    F = _functions()
    return (
        docs_df.join(labels, "doc", "left")
        .withColumn("comp", F.coalesce(F.col("comp"), F.col("doc")))
        .repartition(partitions, "comp")
        .sortWithinPartitions("comp", "doc")
    )


def _posted_values(docs_df: Any, config: DedupConfig, every: bool) -> Any:
    """(v, doc, posted) rows of the documents' sketches: values as signed ints, ``posted`` for a
    document's ``posted`` smallest; ``every=False``: the posted ones only."""
    F = _functions()
    rows = (
        docs_df.select("doc", F.posexplode("sketch").alias("pos", "v"))
        .filter(F.col("v") != -1)  # EMPTY32 as a signed int
        .select("v", "doc", (F.col("pos") < config.match.posted).alias("posted"))
    )
    return rows if every else rows.filter(F.col("posted"))


def _boilerplate(docs_df: Any, reps: Any, config: DedupConfig) -> tuple[Any, Any]:
    """The batch's boilerplate (``neardup.match.components.batch_boilerplate``) from the
    representatives (``reps``: doc, rep): the values posted by more than ``max_posting`` of them,
    sorted, and per value its ``max_posting + 1``-th poster (one row per value on the driver)."""
    F = _functions()
    from pyspark.sql import Window

    mp = config.match.max_posting
    posted = _posted_values(docs_df.join(reps.filter(F.col("rep")).select("doc"), "doc"), config, False)
    w = Window.partitionBy("v").orderBy("doc")
    rows = (
        posted.select("v", "doc", F.dense_rank().over(w).alias("r"))
        .filter(F.col("r") == mp + 1)
        .select("v", "doc")
        .distinct()
        .collect()
    )
    values = np.array([r["v"] for r in rows], np.int64).astype(np.int32).view(np.uint32)
    after = np.array([r["doc"] for r in rows], np.int64)
    order = np.argsort(values, kind="stable")
    return values[order], after[order]


def _rep_pairs(docs_df: Any, reps: Any, common: tuple[Any, Any], config: DedupConfig, partitions: int) -> Any:
    """``neardup.match.components.rep_pairs`` in the executors: the pairs (a, b) where ``a`` is a
    representative among the first ``max_posting + 1`` posting at least ``min_shared`` of ``b``'s
    values, before each is boilerplate."""
    import dataclasses

    spark_session = docs_df.sparkSession
    F = _functions()
    cfg = config.match
    wide = dataclasses.replace(
        config, match=dataclasses.replace(cfg, hot_posting=10**9, link_posters=cfg.max_posting + 1)
    )
    values, after = common
    rows = (
        _posted_values(docs_df, config, True)
        .join(reps, "doc")
        .withColumn("posted", F.col("posted") & F.col("rep"))
    )
    if values.size:
        bp = spark_session.createDataFrame(
            [(int(v), int(d)) for v, d in zip(values.view(np.int32).tolist(), after.tolist(), strict=True)],
            "v int, after long",
        )
        rows = rows.join(F.broadcast(bp), "v", "left").filter(
            F.col("after").isNull() | (F.col("doc") <= F.col("after"))
        )
    return (
        rows.select("v", "doc", "posted")
        .repartition(partitions, "v")
        .mapInArrow(_graph_task(wide), GRAPH_SCHEMA)
        .repartition(partitions, "p")
        .mapInArrow(_edge_task(cfg.min_shared), "a long, b long")
    )


# -------------------------------------------------------------------------------------- against
def _with_corpus(spark: Any, corpus: Any, docs_df: Any, config: DedupConfig) -> tuple[Any, int]:
    """The plan's documents with the batch's matched corpus documents ahead of them: the corpus
    documents numbered 0, 1, ... by position, the batch's numbers shifted past them, a ``fixed``
    column true for the corpus's (``neardup.integrations.spark.against``). Returns them and the
    number of matched corpus documents (one count on the driver)."""
    from pyspark import StorageLevel

    from neardup.integrations.spark.against import corpus_candidates_df, corpus_rows_df, dense_numbers

    F = _functions()
    pairs = corpus_candidates_df(spark, corpus, docs_df, config)
    ranked = dense_numbers(spark, pairs, "pos", "rank").persist(StorageLevel.MEMORY_AND_DISK)
    matched = ranked.count()
    if not matched:
        ranked.unpersist()
        return docs_df.withColumn("fixed", F.lit(False)), 0
    rows = corpus_rows_df(spark, corpus, ranked).select(
        F.col("rank").alias("doc"),
        "id",
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("string").alias("source"),
        "order",  # the corpus document's day as an ISO date (or null), where the engine reads dates
        *SIG_COLUMNS,
        F.lit(True).alias("fixed"),
    )
    shifted = docs_df.withColumn("doc", F.col("doc") + F.lit(matched)).withColumn("fixed", F.lit(False))
    both = rows.unionByName(shifted).persist(StorageLevel.DISK_ONLY)
    both.count()
    ranked.unpersist()
    return both, matched


# --------------------------------------------------------------------------------------- engine
def _component_run(
    table: Any, config: DedupConfig, common: tuple[Any, Any] | None, ranked: bool
) -> tuple[Any, Any, Any, int]:
    """The engine's pass over the components of a task's table (rows sorted by component, then
    document): the table (matched corpus documents first), its signatures, the pass's results
    and the number of corpus rows. ``common``: the batch's boilerplate, counted by document;
    ``ranked``: each component taken in ``pass_order`` (the longest text first), as
    ``match_components`` takes it when the batch's boilerplate is not counted."""
    import pyarrow as pa

    cfg = config.match
    widths = (cfg.sketch_size, max(cfg.max_numbers, 1))
    n = table.num_rows
    comp = table.column("comp").to_numpy()
    n_fixed = 0
    if "fixed" in table.schema.names:
        # matched corpus documents (representatives already) go first, as dedup_fingerprints
        # puts them ahead of the batch; each component's rows stay ascending
        fixed = table.column("fixed").to_numpy(zero_copy_only=False).astype(np.bool_)
        n_fixed = int(fixed.sum())
        if n_fixed:
            perm = np.r_[np.flatnonzero(fixed), np.flatnonzero(~fixed)]
            table, comp = table.take(pa.array(perm)), comp[perm]
    sigs = signatures_of(table, widths)
    ptr, rows = component_rows(comp, pass_order(sigs, cfg, n_fixed) if ranked else None)
    if reads_dates(cfg):
        # the batch's dates, and the matched corpus rows' days as the index stores them
        sigs.day = days_of(table.column("order").to_pylist(), n)
    docs = table.column("doc").to_numpy().astype(np.int64)
    out = run_components(sigs, cfg, ptr, rows, fixed=n_fixed, common=common, order=docs)
    return table, sigs, out, n_fixed


def _rep_task(config: DedupConfig) -> Any:
    """mapInArrow over documents partitioned by component, sorted by (component, document): per
    document, whether the pass over its component (no boilerplate given) keeps it a representative."""

    def process(table: Any) -> Any:
        import pyarrow as pa

        table, _, out, _ = _component_run(table, config, None, False)
        docs = table.column("doc").to_numpy().astype(np.int64)
        return pa.RecordBatch.from_arrays(
            [pa.array(docs), pa.array(out["rep"] == np.arange(table.num_rows))], names=["doc", "rep"]
        )

    return _by_components(process)


def _engine_task(config: DedupConfig, fmt: str, verified: Any, common: tuple[Any, Any] | None = None) -> Any:
    """mapInArrow over documents partitioned by component, sorted by (component, document): the
    engine's pass per component (``common``: the batch's boilerplate), the keep rule and the
    output rows."""
    cfg = config.match
    struct = _evidence_type() if fmt == "parquet" else None

    def process(table: Any) -> Any:
        import pyarrow as pa

        table, sigs, out, n_fixed = _component_run(table, config, common, common is None)
        n = table.num_rows
        verified.add(int(out["verified"][0]))
        clusters = Clusters.from_run(out)
        ids = [str(i) for i in table.column("id").to_pylist()]
        keep_order = table.column("order").to_pylist()[n_fixed:] if cfg.keep == "newest" else None
        batch = np.arange(n_fixed, n, dtype=np.int64)
        fps = Fingerprints(ids=ids[n_fixed:], sigs=sigs.take(batch) if n_fixed else sigs, order=keep_order)
        kept = keepers(clusters.rep, fps, n_fixed, cfg.keep, clusters)
        res = DedupResult(
            fps=fps, clusters=clusters, prefix_ids=ids[:n_fixed], kept=kept, sigs=sigs, config=cfg
        )
        docs = table.column("doc").to_numpy()
        doc = pa.array(docs[n_fixed:], pa.int64())
        kind = pa.array(clusters.kind[n_fixed:].astype(np.int8))
        keep = pa.array(res.keep)
        extra = [pa.array(res.indexed()), pa.array(docs[kept[n_fixed:]].astype(np.int64))]
        extra_names = ["indexed", "cluster_doc"]
        lines = list(decision_rows(res))  # the rows neardup dedup writes
        if fmt == "parquet":
            cols = {
                k: pa.array([r.get(k) for r in lines], pa.string())
                for k in ("id", "cluster", "duplicate_of", "kind", "related_to")
            }
            cols["distance"] = pa.array([r.get("distance") for r in lines], pa.int32())
            return pa.RecordBatch.from_arrays(
                [
                    doc,
                    *cols.values(),
                    _evidence(struct, [r.get("evidence") for r in lines]),
                    kind,
                    keep,
                    *extra,
                ],
                names=["doc", *cols, "evidence", "kind_code", "keep", *extra_names],
            )
        value = pa.array([orjson.dumps(r).decode() for r in lines], pa.string())
        return pa.RecordBatch.from_arrays(
            [doc, value, kind, keep, *extra], names=["doc", "value", "kind", "keep", *extra_names]
        )

    return _by_components(process)


def _by_components(process: Any) -> Any:
    """A mapInArrow task running ``process`` on tables of whole components (rows sorted by
    component), at least ``ENGINE_BATCH`` rows each but for the last."""

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        held: list[Any] = []
        count = 0
        for rb in batches:
            held.append(rb)
            count += rb.num_rows
            if count < ENGINE_BATCH:
                continue
            table = pa.Table.from_batches(held)
            comp = table.column("comp").to_numpy()
            cut = int(np.flatnonzero(comp != comp[-1])[-1]) + 1 if bool((comp != comp[-1]).any()) else 0
            if cut:  # the components complete so far; the last one may go on in the next batch
                yield process(table.slice(0, cut).combine_chunks())
                rest = table.slice(cut)
                held, count = rest.to_batches(), rest.num_rows
        if count:
            yield process(pa.Table.from_batches(held).combine_chunks())

    return task


def _evidence_type() -> Any:
    from neardup.formats import row_schema

    return row_schema().field("evidence").type


def _evidence(struct: Any, values: list[dict[str, Any] | None]) -> Any:
    import pyarrow as pa

    known = {f.name for f in struct}
    for e in values:
        if e and not known.issuperset(e):
            raise ValueError(
                f"evidence fields {sorted(set(e) - known)} have no Parquet type in neardup.formats.row_schema"
            )
    return pa.array(values, struct)


def _largest_component(labels: Any, n: int) -> int:
    """The number of documents in the candidate graph's largest component (``labels``: doc, comp
    for the documents on an edge; a document on none is a component of one)."""
    F = _functions()
    row = labels.filter(F.col("doc") != F.col("comp")).groupBy("comp").count().agg(F.max("count")).first()
    return int(row[0]) + 1 if row is not None and row[0] is not None else min(n, 1)


def _verified_labels(
    docs_df: Any, keys: Any, pairs: Any, config: DedupConfig, partitions: int, matched: int
) -> tuple[Any, tuple[Any, Any], int, list[Any]]:
    """``neardup.match.components.verified_components`` in the executors: the components before
    boilerplate (key edges and the sketch pairs verified from the two documents), the pass over
    them for the batch's representatives and boilerplate, the pass's own pairs and the sketch
    pairs between those components verified again with it. Returns (doc, comp) rows, the
    boilerplate, the rounds of the components' algorithm and the frames held (to unpersist)."""
    from pyspark import StorageLevel

    F = _functions()
    first, rounds = _first_edges(docs_df, keys, pairs, config, partitions, matched)
    labels0, more_rounds = connected_components(first)
    rounds += more_rounds
    reps = _grouped(docs_df, labels0, partitions).mapInArrow(_rep_task(config), "doc long, rep boolean")
    reps = reps.persist(StorageLevel.MEMORY_AND_DISK)
    common = _boilerplate(docs_df, reps, config)
    more = pairs.select("a", "b").unionByName(_rep_pairs(docs_df, reps, common, config, partitions))
    if matched:
        more = more.filter(F.col("b") >= F.lit(matched))
    apart = (
        more.join(labels0.select(F.col("doc").alias("a"), F.col("comp").alias("ca")), "a", "left")
        .join(labels0.select(F.col("doc").alias("b"), F.col("comp").alias("cb")), "b", "left")
        .filter(F.coalesce(F.col("ca"), F.col("a")) != F.coalesce(F.col("cb"), F.col("b")))
        .select("a", "b")
        .distinct()
    )
    edges = first.unionByName(_verified_pairs(docs_df, apart, config, common=common))
    labels, more_rounds = connected_components(edges)
    return labels, common, rounds + more_rounds, [labels0, reps, first]


def _first_edges(
    docs_df: Any, keys: Any, pairs: Any, config: DedupConfig, partitions: int, matched: int
) -> tuple[Any, int]:
    """The edges of the verified candidate graph before boilerplate (``first_components``): key
    edges and the sketch pairs (a, b, n) that link, judged in two rounds so that a pair whose
    documents are already connected is not read (as the local pass skips it, in (a, b) order
    over the whole batch; a Spark task sees only its partition's pairs). First each document's
    best candidate: the earlier document sharing the most values with it (the earliest of those);
    then the components of those links and the key edges, and the other pairs between two of
    them. The components are the same whichever pairs are skipped: a skipped pair connects
    documents already connected. A pair of two of the first ``matched`` documents (matched corpus
    documents, representatives already) is not verified: the pass never checks one against
    another. Returns the edges (checkpointed) and the rounds of the components' algorithm."""
    from pyspark import StorageLevel

    F = _functions()
    if matched:
        pairs = pairs.filter(F.col("b") >= F.lit(matched))
    low = (1 << 31) - 1  # documents < 2^31, as the graph stage packs them
    # one row per document: the most values shared, then the earliest candidate (the largest key)
    key = F.col("n").cast("long") * F.lit(1 << 32) + (F.lit(low) - F.col("a"))
    best = (
        pairs.groupBy("b")
        .agg(F.max(key).alias("key"))
        .select((F.lit(low) - F.pmod(F.col("key"), F.lit(1 << 32))).alias("a"), "b")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    # kept: read by its components and again in ``first`` (a shuffle between the union and the
    # cache: Spark flattens a union of a cached union and would judge these pairs again)
    once = (
        keys.unionByName(_verified_pairs(docs_df, best, config))
        .repartition(partitions, "a")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    labels, rounds = connected_components(once)
    side = labels.select(F.col("doc").alias("b"), F.col("comp").alias("cb"))
    by_b = best.select("b", F.col("a").alias("best")).join(side, "b", "left")
    rest = (
        pairs.select("a", "b")
        .join(by_b, "b")
        .filter(F.col("a") != F.col("best"))
        .join(labels.select(F.col("doc").alias("a"), F.col("comp").alias("ca")), "a", "left")
        .filter(F.coalesce(F.col("ca"), F.col("a")) != F.coalesce(F.col("cb"), F.col("b")))
        .select("a", "b")
    )
    # checkpointed: the stages below refer to these edges many times over, and the text of a
    # plan repeating this one's lineage each time outgrows a 1 GB driver's heap
    first = (
        once.unionByName(_verified_pairs(docs_df, rest, config))
        .repartition(partitions, "a")
        .localCheckpoint(eager=True)
    )
    for frame in (best, once, labels):
        frame.unpersist()
    return first, rounds


# ----------------------------------------------------------------------------------------- main
def distributed_dedup(
    spark: Any,
    docs: SparkDocuments,
    config: DedupConfig,
    out: str,
    fmt: str | None = None,
    *,
    read_conf: dict[str, str] | None = None,
    corpus: Any | None = None,
    merge: bool = False,
) -> DistributedResult:
    """Dedup the documents ``read_documents`` found and write the output rows to ``out``, every
    stage in the executors (the module's docstring). ``corpus``: a ``SparkCorpus`` the batch is
    deduplicated against (``neardup.integrations.spark.against``); ``merge``: then add the
    batch's kept documents to it."""
    from pyspark import StorageLevel

    from neardup.integrations.spark.job import session_conf, signature_df

    F = _functions()
    kind = output_format(out, fmt)
    secs: dict[str, float] = {}
    stats = ReadStats()
    t0 = time.perf_counter()
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    with spark_errors(docs.files), session_conf(spark, CACHE_CONF):
        with session_conf(spark, read_conf or {}):
            sig = signature_df(docs, config).persist(StorageLevel.DISK_ONLY)
            sig.select("file").count()  # read and signed once; the split line counts arrive
        bad = sig.filter(F.col("error").isNotNull())
        good = sig.filter(F.col("error").isNull())
        table, n_bad = _split_table(docs, sig)
        splits = spark.createDataFrame(
            table, "file int, split long, offset long, first long, before long, name string, source string"
        )
        if n_bad:
            first = _first_error(docs, bad, splits)
            if not docs.skip_bad:
                raise first
            stats.skipped = n_bad
            stats.first_error = str(first)
        line = F.col("before") + F.col("row") + 1
        docs_df = good.join(F.broadcast(splits), ["file", "split"]).select(
            (F.col("offset") + F.col("row") - F.col("first")).alias("doc"),
            F.coalesce(F.col("id"), F.concat(F.col("name"), F.lit(":"), line.cast("string"))).alias("id"),
            line.alias("line"),
            "source",
            "order",
            *SIG_COLUMNS,
        )
        docs_df = _unique_ids(spark, docs_df, config.duplicate_ids)
        docs_df = docs_df.persist(StorageLevel.DISK_ONLY)
        n = docs_df.count()
        sig.unpersist()
        stats.read = n
        secs["signatures"] = time.perf_counter() - t0

        matched = 0
        batch_df = docs_df
        if corpus is not None and n and corpus.chunks():
            t5 = time.perf_counter()
            docs_df, matched = _with_corpus(spark, corpus, docs_df, config)
            secs["against"] = time.perf_counter() - t5

        t1 = time.perf_counter()
        engine_parts = max(parts, -(-(n + matched) // PARTITION_DOCS))
        keys, pairs = _candidate_graph(docs_df, config, engine_parts)
        # the sketch pairs (16 bytes each) are read again past max_component: kept, not recounted
        pairs = pairs.persist(StorageLevel.DISK_ONLY)
        labels, rounds = connected_components(keys.unionByName(pairs.select("a", "b")))
        largest = _largest_component(labels, n + matched)
        common = None
        held: list[Any] = [labels, pairs]
        if largest > config.match.max_component:
            labels, common, more_rounds, more_held = _verified_labels(
                docs_df, keys, pairs, config, engine_parts, matched
            )
            rounds += more_rounds
            held += [labels, *more_held]
        secs["components"] = time.perf_counter() - t1

        t2 = time.perf_counter()
        verified = spark.sparkContext.accumulator(0)
        grouped = _grouped(docs_df, labels, engine_parts)
        schema = _parquet_schema() if kind == "parquet" else LINE_SCHEMA
        lines = grouped.mapInArrow(_engine_task(config, kind, verified, common), schema).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        code = "kind_code" if kind == "parquet" else "kind"
        counts = (
            lines.groupBy(code, "indexed")
            .agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("keep").cast("long")).alias("kept"))
            .collect()
        )
        clusters = kept_n = sum(int(r["kept"] or 0) for r in counts)
        if matched:  # a cluster may be kept in the corpus: count the batch's clusters
            clusters = lines.filter(~F.col("indexed")).select("cluster_doc").distinct().count()
        secs["match"] = time.perf_counter() - t2

        t3 = time.perf_counter()
        ordered = lines.orderBy("doc").drop("doc", code, "keep", "indexed", "cluster_doc")
        write_frame(spark, out, ordered, kind)
        secs["output"] = time.perf_counter() - t3
        index_documents = None
        if merge and corpus is not None:
            from neardup.integrations.spark.against import write_merge

            t4 = time.perf_counter()
            batch_rows = docs_df.filter(~F.col("fixed")) if matched else docs_df
            kept_df = batch_rows.join(lines.filter(F.col("keep")).select("doc"), "doc")
            index_documents = write_merge(spark, corpus, kept_df, kept_n, config)
            secs["merge"] = time.perf_counter() - t4
        lines.unpersist()
        for frame in held:
            frame.unpersist()
        docs_df.unpersist()
        batch_df.unpersist()
    n_indexed = sum(int(r["n"]) for r in counts if r["indexed"])
    summary: dict[str, Any] = {
        "documents": n,
        "clusters": clusters if n > n_indexed else 0,
        "kept": kept_n,
        "duplicates": n - kept_n - n_indexed,
        "indexed": n_indexed,
    }
    by_code: dict[int, int] = {}
    for r in counts:
        if not r["indexed"]:
            by_code[int(r[code])] = by_code.get(int(r[code]), 0) + int(r["n"])
    for c, name in enumerate(KINDS[1:], start=1):
        summary[f"kind_{name}"] = by_code.get(c, 0)
    summary["verified_pairs"] = int(verified.value)
    if corpus is not None:
        summary["corpus_matched"] = matched
        summary["corpus_documents"] = len(corpus)
    if index_documents is not None:
        summary["merged"] = kept_n
        summary["index_documents"] = index_documents
    summary["components_rounds"] = rounds
    return DistributedResult(summary=summary, seconds=secs, read=stats, rounds=rounds)
