"""A batch as connected components of its candidate graph, each run through the engine on its own.

The engine's pass (``neardup.match.engine``) compares a document only with documents it can reach
through **candidate edges**: the first holder of its exact key or content key, the representatives
that posted at least ``min_shared`` of its sketch values, and then those representatives' cluster
members. So a batch splits into the connected components of the graph whose edges are

- two documents with the same exact key, or the same content key (texts with tokens);
- ``(a, b)``, ``a`` before ``b``, when ``b``'s sketch holds at least ``min_shared`` of the values
  ``a`` posts (its ``posted`` smallest), counting only values that are not **hot**.

A value is **hot** when more than ``hot_posting`` documents of the batch post it (a site's
footer, a programme's lead line in a large crawl): it links nothing, so it cannot glue a corpus
into one component. For a value that is not hot, only its first ``link_posters`` posters (in
document order) are paired with its holders: copies of one article reposted thousands of times are
linked to the article's first copies, not each to each, so the pairs stay linear in the batch
(at most ``link_posters`` x ``sketch_size`` a document), and the first copies are the ones that
represent the article's cluster in the pass. ``hot_posting`` is high (10,000) because the count is
of documents, not of clusters: an article reposted more often than that would lose the sketch
links between its copies (its exact and content keys still link them).

Each component is then run through the unchanged sequential pass, documents in batch order, with
tables of its own (``neardup.match.engine.run_components``); its boilerplate rule (a value posted
by more than ``max_posting`` representatives) counts the component's representatives, and a value
common to many documents of the batch puts them in one component anyway (they share it), where
it becomes boilerplate as in one pass over the batch. A document alone in its component has no
candidate: the pass would answer ``unique`` with no partner, so it does not run. The same
components come out of one process (the C kernel ``kernels.value_pairs``, numba without it) and out of Spark's executors
(``neardup.integrations.spark.plan``): a component is named by its smallest document.

Measured on the real corpora (docs/spark.md): the answer is the one-pass answer on zh-xwlb and
en-20news but for a handful of documents; the largest component, though, holds most of a corpus
whose documents quote each other (real partial relations chain), and it bounds one task's memory.

>>> from neardup.match.signature import signatures
>>> sigs = signatures(["今天北京天气晴朗，适合出门散步。", "今天北京天气晴朗，适合出门散步！", "完全不同的另一篇文章内容。"])
>>> labels, hot = batch_components(sigs, MatchConfig())
>>> labels.tolist(), hot.size
([0, 0, 2], 0)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup.index.kernels import union_find_labels as union_find  # per node, its component's smallest node
from neardup.match import kernels
from neardup.match._numba_lazy import njit
from neardup.match.cluster import Clusters
from neardup.match.config import MatchConfig
from neardup.match.engine import run_components
from neardup.match.signature import EMPTY32, Signatures

__all__ = [
    "batch_components",
    "component_rows",
    "count_pairs",
    "counted_pairs",
    "key_edges",
    "match_components",
    "union_find",
    "value_pairs",
]

I64 = npt.NDArray[np.int64]
U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]
_EMPTY = np.empty(0, np.int64)


@njit(cache=True, nogil=True)
def value_pairs(
    values: np.ndarray, docs: np.ndarray, posted: np.ndarray, hot_posting: int, link_posters: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Sketch edges' pairs from (value, document, posted?) rows sorted by value, then document.

    Returns the pairs ``a << 32 | b`` (``a`` among the first ``link_posters`` posters of a value,
    ``b`` a later holder; one per shared value: count them) and the values that are hot (posted
    by more than ``hot_posting`` documents). Every row of a value must be present.
    """
    n = values.shape[0]
    total = 0
    n_hot = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and values[j] == values[i]:
            j += 1
        p = 0
        for a in range(i, j):
            if posted[a]:
                p += 1
        if p > hot_posting:
            n_hot += 1
        else:
            total += min(p, link_posters) * (j - i)
        i = j
    out = np.empty(total, np.uint64)
    hot = np.empty(n_hot, np.uint32)
    first = np.empty(link_posters, np.int64)
    k = 0
    h = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and values[j] == values[i]:
            j += 1
        p = 0
        f = 0
        for a in range(i, j):
            if posted[a]:
                p += 1
                if f < link_posters:
                    first[f] = docs[a]
                    f += 1
        if p > hot_posting:
            hot[h] = values[i]
            h += 1
        else:
            for b in range(i, j):
                for q in range(f):
                    if first[q] < docs[b]:
                        out[k] = (np.uint64(first[q]) << np.uint64(32)) | np.uint64(docs[b])
                        k += 1
        i = j
    return out[:k], hot


def count_pairs(packed: U64) -> tuple[U64, I64]:
    """The distinct packed pairs and how many times each occurs."""
    if packed.shape[0] == 0:
        return np.empty(0, np.uint64), _EMPTY
    packed = np.sort(packed)
    new = np.concatenate(([True], packed[1:] != packed[:-1]))
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, packed.shape[0])).astype(np.int64)
    return packed[starts], counts


def key_edges(keys: U64, usable: npt.NDArray[np.bool_] | None = None) -> tuple[I64, I64]:
    """Each document holding a key linked to the first document holding it."""
    idx = np.arange(keys.shape[0], dtype=np.int64)
    if usable is not None:
        idx = idx[usable]
    if idx.size < 2:
        return _EMPTY, _EMPTY
    order = idx[np.argsort(keys[idx], kind="stable")]
    sk = keys[order]
    same = np.concatenate(([False], sk[1:] == sk[:-1]))
    group = np.cumsum(~same) - 1
    first = order[np.flatnonzero(~same)][group]
    return first[same], order[same]


def counted_pairs(
    values: U32, docs: I64, posted: npt.NDArray[np.bool_], config: MatchConfig, chunk: int = 1 << 21
) -> tuple[U64, I64, U32]:
    """``value_pairs`` over rows sorted by value, then document, a chunk of whole values at a
    time: the distinct pairs, how often each was seen, and the hot values. The pairs of a chunk are
    counted at once and merged into the running counts whenever the parts outgrow them, so memory
    follows the distinct pairs, not every (pair, shared value)."""
    n = values.shape[0]
    parts_p: list[U64] = []
    parts_n: list[I64] = []
    hots: list[U32] = []
    held = merged = 0
    i = 0
    while i < n:
        j = i + chunk
        j = n if j >= n else int(np.searchsorted(values, values[j - 1], side="right"))  # whole values
        packed, hot = kernels.value_pairs(
            values[i:j], docs[i:j], posted[i:j], config.hot_posting, config.link_posters
        )
        p, c = count_pairs(packed)
        parts_p.append(p)
        parts_n.append(c)
        hots.append(hot)
        held += p.shape[0]
        if held > 2 * max(merged, chunk):
            parts_p, parts_n = _merge_counts(parts_p, parts_n)
            held = merged = parts_p[0].shape[0]
        i = j
    parts_p, parts_n = _merge_counts(parts_p, parts_n)
    hot_all = np.concatenate(hots) if hots else np.empty(0, np.uint32)
    return parts_p[0], parts_n[0], np.sort(hot_all)


def _merge_counts(ps: list[U64], ns: list[I64]) -> tuple[list[U64], list[I64]]:
    if not ps:
        return [np.empty(0, np.uint64)], [_EMPTY]
    p = np.concatenate(ps)
    c = np.concatenate(ns)
    if p.shape[0] == 0:
        return [p], [c]
    order = np.argsort(p, kind="stable")
    p, c = p[order], c[order]
    starts = np.flatnonzero(np.concatenate(([True], p[1:] != p[:-1])))
    return [p[starts]], [np.add.reduceat(c, starts).astype(np.int64)]


def sketch_edges(sketch: U32, config: MatchConfig) -> tuple[I64, I64, U32]:
    """Sketch edges (a before b) and the hot values of a batch (fewer than 2^31 documents)."""
    n, k = sketch.shape
    if n == 0:
        return _EMPTY, _EMPTY, np.empty(0, np.uint32)
    # one 64-bit key a sketch value: value, then "not posted" (so a value's posters come first, in
    # document order), then the document; sorted in place
    flat = sketch.ravel()
    valid = flat != EMPTY32
    keys = flat.astype(np.uint64) << np.uint64(32)
    keys |= np.repeat(np.arange(n, dtype=np.uint64), k)
    keys[np.tile(np.arange(k) >= config.posted, n)] |= np.uint64(1 << 31)
    keys = keys[valid]
    keys.sort()
    low = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    pairs, counts, hot = counted_pairs(
        (keys >> np.uint64(32)).astype(np.uint32), low & 0x7FFFFFFF, low < (1 << 31), config
    )
    del keys, low
    pairs = pairs[counts >= config.min_shared]
    return (pairs >> np.uint64(32)).astype(np.int64), (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64), hot


def batch_components(
    sigs: Signatures, config: MatchConfig, extra: tuple[I64, I64] | None = None
) -> tuple[I64, U32]:
    """Per document, its component (the component's smallest document), and the hot values.
    ``extra``: more edges (e.g. SimHash neighbours)."""
    n = len(sigs)
    parts = [key_edges(sigs.exact), key_edges(sigs.content, sigs.tokens > 0)]
    sa, sb, hot = sketch_edges(sigs.sketch, config)
    parts.append((sa, sb))
    if extra is not None:
        parts.append(extra)
    a = np.concatenate([p[0] for p in parts]).astype(np.int64)
    b = np.concatenate([p[1] for p in parts]).astype(np.int64)
    return union_find(n, a, b), hot


def component_rows(labels: I64) -> tuple[I64, I64]:
    """The components with more than one document: pointers and rows (ascending in each)."""
    order = np.argsort(labels, kind="stable")
    sl = labels[order]
    starts = np.flatnonzero(np.concatenate(([True], sl[1:] != sl[:-1])))
    ends = np.append(starts[1:], sl.shape[0])
    size = ends - starts
    multi = size > 1
    take = order[np.repeat(multi, size)]
    ptr = np.concatenate(([0], np.cumsum(size[multi]))).astype(np.int64)
    return ptr, take.astype(np.int64)


def match_components(
    sigs: Signatures,
    config: MatchConfig | None = None,
    *,
    fixed: int = 0,
    extra: tuple[I64, I64] | None = None,
) -> Clusters:
    """Candidates, verification and clusters of one batch, component by component (the first
    ``fixed`` rows are representatives already: a corpus's documents). ``extra``: SimHash
    candidate pairs (a before b), which are edges too."""
    cfg = config or MatchConfig()
    labels, _ = batch_components(sigs, cfg, extra)
    ptr, rows = component_rows(labels)
    csr = None
    if extra is not None:
        a, b = extra
        order = np.lexsort((a, b))
        cnt = np.zeros(len(sigs) + 1, np.int64)
        np.add.at(cnt, b + 1, 1)
        csr = (np.cumsum(cnt), a[order])
    return Clusters.from_run(run_components(sigs, cfg, ptr, rows, fixed=fixed, extra=csr))
