"""A batch as connected components of its candidate graph, each run through the engine on its own;
past ``max_component`` documents in the largest, the components of its verified candidate graph.

The engine's pass (``neardup.match.engine``) compares a document only with documents it can reach
through **candidate pairs**: the first holder of its exact key or content key, the representatives
that posted at least ``min_shared`` of its sketch values, and then those representatives' cluster
members. The candidate pairs of a batch are

- two documents with the same exact key, or the same content key (texts with tokens): these link
  as they are (the same page, the same text);
- ``(a, b)``, ``a`` before ``b``, when ``b``'s sketch holds at least ``min_shared`` of the values
  ``a`` posts (its ``posted`` smallest), counting only values that are not **hot**.

A value is **hot** when more than ``hot_posting`` documents of the batch post it (a site's
footer, a programme's lead line in a large crawl): it links nothing. For a value that is not hot,
only its first ``link_posters`` posters (in document order) are paired with its holders: copies of
one article reposted thousands of times are linked to the article's first copies, not each to
each, so the pairs stay linear in the batch (at most ``link_posters`` x ``sketch_size`` a
document).

The components of that graph (``batch_components``: every pair an edge) are what the pass runs
on while the largest holds at most ``MatchConfig.max_component`` documents (200,000 by default);
their boilerplate rule counts each component's representatives. A corpus whose documents quote
each other chains into one large component (zh-xwlb: 15,309 of 19,541), which bounds one Spark
task's memory; past the setting the batch is cut along verified pairs instead
(``verified_components``, below), at the price of judging the pairs twice and one more pass.

A sketch pair is then **verified** from the two documents alone (``link_pairs``: the engine's
``verify_pair``, the sketches first and the texts when the sketches call the pair near, partial or
layout), and only a pair whose kind is not ``unique`` is an edge: stock phrases that share three
sketch values no longer chain a corpus into one component (zh-xwlb's largest component: 15,309 of
19,541 documents unverified, 213 verified). A pair whose documents are already connected is not
verified (it changes no component).

The pass counts **boilerplate** (a value posted by more than ``max_posting`` representatives) over
everything before the document, in one pass over the batch. So that each component's pass sees
what one pass over the batch sees (``verified_components``): the components before boilerplate
are run through the pass for their representatives; a value posted by more than ``max_posting``
of them is the batch's boilerplate from the row after its ``max_posting + 1``-th poster
(``batch_boilerplate``); the pairs the pass itself would look at (``rep_pairs``) and the sketch
pairs are verified again with that boilerplate left out as it stands at the later document; and
each component's tables mark those values boilerplate from that row on
(``run_components(..., common=...)``). On zh-xwlb, en-20news, en-bbc and zh-rmrb-xwlb-2020 the
answer is one pass's but for one keep/remove verdict (the representatives that date a value can
differ from one pass's).

Each component is run through the sequential pass, documents in batch order, with tables of its
own (``neardup.match.engine.run_components``). A document alone in its component has no candidate
the pass would report or merge: it is ``unique``, and the pass does not run. Whatever a row names
(the cluster, the partner, ``related_to``) is in the same component, and every step is a function
of the documents alone, so one process (here) and Spark's executors
(``neardup.integrations.spark.plan``, the same kernels) give the same rows: a component is named
by its smallest document.

>>> from neardup.match.signature import signatures
>>> sigs = signatures(["今天北京天气晴朗，适合出门散步。", "今天北京天气晴朗，适合出门散步！", "完全不同的另一篇文章内容。"])
>>> labels, hot = batch_components(sigs, MatchConfig())
>>> labels.tolist(), hot.size
([0, 0, 2], 0)
"""

from __future__ import annotations

import dataclasses
import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._memory import release_free_memory
from neardup.index.kernels import union_find_labels as union_find  # per node, its component's smallest node
from neardup.match import kernels
from neardup.match._numba_lazy import later, njit
from neardup.match.cluster import Clusters, thresholds
from neardup.match.config import MatchConfig
from neardup.match.engine import run_components
from neardup.match.signature import EMPTY32, Signatures
from neardup.match.verify import CONTENT, EXACT, UNIQUE, decide, pair_evidence, popcount, verify_pair

prange = later("numba", "prange")  # numba's parallel range, resolved when the kernels compile

__all__ = [
    "batch_boilerplate",
    "batch_components",
    "boilerplate_table",
    "candidate_pairs",
    "component_rows",
    "count_pairs",
    "counted_pairs",
    "key_edges",
    "largest_component",
    "link_pairs",
    "match_components",
    "pair_bounds",
    "pair_rule",
    "pass_order",
    "shared_pairs",
    "sketch_edges",
    "union_find",
    "value_pairs",
    "value_rows",
    "verified_components",
]

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U32 = npt.NDArray[np.uint32]
Docs = npt.NDArray[np.signedinteger[Any]]  # the rows' documents: int32 from value_rows
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
    """The distinct packed pairs and how many times each occurs (``packed`` is sorted in place)."""
    if packed.shape[0] == 0:
        return np.empty(0, np.uint64), _EMPTY
    kernels.sort_u64(packed)
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
    values: U32,
    docs: Docs,
    posted: npt.NDArray[np.bool_],
    config: MatchConfig,
    chunk: int = 1 << 21,
    span: tuple[int, int] | None = None,
) -> tuple[U64, I64, U32]:
    """``value_pairs`` over rows sorted by value, then document, a chunk of whole values at a
    time: the distinct pairs, how often each was seen, and the hot values. The pairs of a chunk are
    counted at once and merged into the running counts whenever the parts outgrow them, so memory
    follows the distinct pairs, not every (pair, shared value). ``span``: only the pairs whose
    later document is in ``[lo, hi)`` (``shared_pairs`` counts a batch's pairs range by range)."""
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
            values[i:j], docs[i:j], posted[i:j], config.hot_posting, config.link_posters, span
        )
        p, c = count_pairs(packed)
        del packed
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


# the pairs a part may hold at once, at least (``shared_pairs``); past it, a quarter of the rows
MIN_PART_PAIRS = 1 << 20


def pair_bounds(
    values: U32, docs: Docs, posted: npt.NDArray[np.bool_], config: MatchConfig, n: int, chunk: int = 1 << 18
) -> npt.NDArray[np.float64]:
    """Per document (``n`` of them), a bound on the pairs ``value_pairs`` gives it as the later
    document: each row of a value that is not hot can pair with the value's first
    ``link_posters`` posters. Rows sorted by value, then document; a chunk of whole values at a
    time (at least ``n / 8`` rows: adding a chunk's counts costs ``n``)."""
    out = np.zeros(n, np.float64)
    rows = values.shape[0]
    chunk = max(chunk, n // 8)
    i = 0
    while i < rows:
        j = i + chunk
        j = rows if j >= rows else int(np.searchsorted(values, values[j - 1], side="right"))
        v = values[i:j]
        starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
        size = np.diff(np.append(starts, v.shape[0]))
        p = np.add.reduceat(posted[i:j].view(np.uint8), starts, dtype=np.int64)
        first = np.where(p > config.hot_posting, 0, np.minimum(p, config.link_posters)).astype(np.float64)
        del p, starts
        out += np.bincount(docs[i:j], np.repeat(first, size), minlength=n)
        i = j
    return out


def shared_pairs(
    values: U32,
    docs: Docs,
    posted: npt.NDArray[np.bool_],
    config: MatchConfig,
    n: int,
    *,
    budget: int | None = None,
    parts: int | None = None,
) -> tuple[U64, U32]:
    """The pairs ``a << 32 | b`` (ascending) that ``value_pairs`` finds at least ``min_shared``
    times over rows sorted by value, then document (``n`` documents), and the hot values.

    Counting every distinct pair at once holds them all (27.8 M on 195,410 documents, about 40 B
    a pair while merging) to keep the few shared by ``min_shared`` values (2.2 M). A pair's count
    is the same whichever pairs are counted beside it, so the pairs are counted in ranges of the
    later document ``b``, one pass over the rows per range, and a range's pairs shared by fewer
    than ``min_shared`` values are dropped before the next: the kept pairs are the same. The
    ranges split ``pair_bounds`` evenly, each under ``budget`` pairs (default: a quarter of the
    rows, at least ``MIN_PART_PAIRS``), so the pairs held follow the rows, whatever the batch;
    ``parts``: that many ranges instead. With the C kernels and rows as ``value_rows`` makes them
    (a value's posters first), a range does not scan the rows: each later document's earlier
    posters are gathered through an index of the values it holds (``kernels.value_groups``) and
    counted there (``kernels.range_pairs``), so no pair is held before it is counted.

    >>> cfg = MatchConfig(min_shared=2, posted=2)
    >>> values = np.array([1, 1, 1, 2, 2, 2], np.uint32)
    >>> docs = np.array([0, 1, 2, 0, 1, 2], np.int64)
    >>> posted = np.ones(6, np.bool_)
    >>> pairs, hot = shared_pairs(values, docs, posted, cfg, 3, budget=2)
    >>> [(int(p) >> 32, int(p) & 0xFFFFFFFF) for p in pairs]
    [(0, 1), (0, 2), (1, 2)]
    """
    # with the C kernels, each range reads only its documents' rows, through an index of the values
    # each document holds (``kernels.value_groups``); else each range scans every row
    index = kernels.value_groups(values, docs, posted, config.hot_posting, config.link_posters, n)
    weight = np.cumsum(pair_bounds(values, docs, posted, config, n) if index is None else index[2])
    total = float(weight[-1]) if n else 0.0
    # ranges are counted two at a time where the pass has two threads, each under half the budget:
    # the pairs held at once stay within it
    workers = 2 if kernels.threads() > 1 and total > MIN_PART_PAIRS and parts is None else 1
    if budget is None:
        budget = max(MIN_PART_PAIRS, values.shape[0] // 4)
    if parts is None:
        parts = int(np.ceil(total / max(1, budget // workers)))
    parts = max(workers, parts)
    # the first document of each range: where the running bound passes each part's share
    cut = np.searchsorted(weight, total * np.arange(1, parts) / parts, side="right") + 1
    bounds = [0, *np.unique(np.minimum(cut, n)).tolist(), 1 << 32]
    del weight
    spans = [None] if len(bounds) == 2 else list(itertools.pairwise(bounds))

    def count(span: tuple[int, int] | None) -> tuple[U64, U32]:
        if index is not None:
            span = span or (0, n)
            return kernels.range_pairs(
                values, docs, posted, index, config.link_posters, config.min_shared, span
            ), index[3]
        p, c, h = counted_pairs(values, docs, posted, config, span=span)
        kept = p[c >= config.min_shared]
        del p, c
        release_free_memory()  # the range's merges leave holes in the C heap: hand them back
        return kept, h

    if workers > 1 and len(spans) > 1:
        # the kernels and numpy's sorts release the interpreter's lock: the ranges run side by side
        with ThreadPoolExecutor(workers, thread_name_prefix="neardup-graph") as ex:
            got = list(ex.map(count, spans))
    else:
        got = [count(span) for span in spans]
    hot = got[0][1] if got else np.empty(0, np.uint32)
    pairs = np.concatenate([k for k, _ in got]) if got else np.empty(0, np.uint64)
    del got
    kernels.sort_u64(pairs)
    return pairs, hot


def _sorted_rows(keys: U64) -> tuple[U32, I32, npt.NDArray[np.bool_]]:
    """(value, document, posted?) rows from sorted keys ``value << 32 | not posted << 31 |
    document``, made a block at a time (no 8 B a row temporary): 9 B a row once the caller drops
    the keys (documents are numbered below 2^31)."""
    n = keys.shape[0]
    values = np.empty(n, np.uint32)
    docs = np.empty(n, np.int32)
    posted = np.empty(n, np.bool_)
    for s in range(0, n, 1 << 20):
        blk = keys[s : s + (1 << 20)]
        values[s : s + blk.shape[0]] = blk >> np.uint64(32)
        low = blk.astype(np.uint32)  # the low half: not posted << 31 | document
        posted[s : s + blk.shape[0]] = low < np.uint32(1 << 31)
        low &= np.uint32(0x7FFFFFFF)
        docs[s : s + blk.shape[0]] = low.view(np.int32)
    return values, docs, posted


def value_rows(
    sketch: U32,
    posted: int,
    reps: npt.NDArray[np.bool_] | None = None,
    common: tuple[U32, I64] | None = None,
    step: int = 1 << 15,
) -> tuple[U32, I32, npt.NDArray[np.bool_]]:
    """A batch's sketch values as (value, document, posted?) rows sorted by value, then posters
    before holders, then document: one 64-bit key a value (``value << 32 | not posted << 31 |
    document``, fewer than 2^31 documents), built in one C pass (``kernels.value_keys``; with
    ``common``, or without the extension, in numpy ``step`` documents at a time) and sorted in
    place, then turned into the rows (``_sorted_rows``): 9 B a row held.
    A document posts its first ``posted`` values (and only when ``reps[d]``, if given); with
    ``common`` (``batch_boilerplate``), a value is left out of the documents after the row it
    became boilerplate at."""
    built = kernels.value_keys(sketch, posted, reps) if common is None or not common[0].size else None
    if built is not None:
        kernels.sort_u64(built)
        return _sorted_rows(built)
    n, k = sketch.shape
    col = np.arange(k) < posted

    def keep(s: int, e: int) -> npt.NDArray[np.bool_]:
        blk = sketch[s:e]
        out: npt.NDArray[np.bool_] = np.not_equal(blk, EMPTY32)
        if common is not None and common[0].size:
            values, after = common
            at = np.searchsorted(values, blk)
            hit = at < values.size
            hit[hit] &= values[at[hit]] == blk[hit]
            row = np.arange(s, e, dtype=np.int64)[:, None]
            out &= ~hit | (row <= np.where(hit, after[np.minimum(at, values.size - 1)], 0))
        return out

    blocks = [(s, min(n, s + step)) for s in range(0, n, step)]
    keys = np.empty(sum(int(np.count_nonzero(keep(s, e))) for s, e in blocks), np.uint64)
    at = 0
    for s, e in blocks:
        blk = sketch[s:e].astype(np.uint64)
        blk <<= np.uint64(32)
        blk |= np.arange(s, e, dtype=np.uint64)[:, None]
        poster = np.broadcast_to(col, blk.shape) if reps is None else col & reps[s:e, None]
        blk[~poster] |= np.uint64(1 << 31)
        got = blk[keep(s, e)]
        keys[at : at + got.shape[0]] = got
        at += got.shape[0]
    kernels.sort_u64(keys)
    return _sorted_rows(keys)


def sketch_edges(
    sketch: U32, config: MatchConfig, *, budget: int | None = None, parts: int | None = None
) -> tuple[I64, I64, U32]:
    """Sketch edges (a before b) and the hot values of a batch (fewer than 2^31 documents);
    ``budget``: pairs held at once, or ``parts``: ranges of the later document (``shared_pairs``)."""
    n = sketch.shape[0]
    if n == 0:
        return _EMPTY, _EMPTY, np.empty(0, np.uint32)
    values, docs, posted = value_rows(sketch, config.posted)
    pairs, hot = shared_pairs(values, docs, posted, config, n, budget=budget, parts=parts)
    del values, docs, posted
    return (pairs >> np.uint64(32)).astype(np.int64), (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64), hot


# ------------------------------------------------------------------------- verified candidate pairs
Rule = tuple[Any, ...]


def pair_rule(config: MatchConfig, common: tuple[U32, I64] | None = None) -> Rule:
    """What the pair kernels take of a config: sketch size, layout distance, the decision
    thresholds, number conflicts allowed, agreeing numbers, and the batch's boilerplate
    (``common``: values and the row after which each is boilerplate, ``batch_boilerplate``) as a
    posting table (``boilerplate_table``)."""
    values, after = (_NO_VALUES, _EMPTY) if common is None else common
    pv, pc = boilerplate_table(values, after)
    return (
        config.sketch_size,
        config.layout_distance,
        thresholds(config),
        config.max_number_conflicts,
        config.agree_min,
        pv,
        pc,
    )


_NO_VALUES = np.empty(0, np.uint32)


def boilerplate_table(values: U32, after: I64) -> tuple[U32, npt.NDArray[np.int32]]:
    """A posting table (``neardup.match.tables``) of the batch's boilerplate for the pair kernels:
    each value with the count ``-after``, so that checking a pair at row ``j`` with ``max_posting
    = -j`` leaves out the values that are boilerplate before ``j`` (``after < j``), as the pass
    over the batch does. Empty (nothing common) for no values."""
    if values.shape[0] == 0:
        return np.empty(0, np.uint32), np.empty(0, np.int32)
    size = max(64, int(values.shape[0] / 0.8) + 1)
    pv = np.full(size, EMPTY32, np.uint32)
    pc = np.zeros(size, np.int32)
    for v, c in zip(values.tolist(), (-np.asarray(after, np.int64)).tolist(), strict=True):
        # the posting table's slot (``neardup.match.tables.posting_slot``): Lemire's reduction of
        # a multiplicative hash, then linear probing
        i = ((((v * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 32) * size) >> 32
        while pv[i] != EMPTY32 and pv[i] != v:
            i = i + 1 if i + 1 < size else 0
        pv[i] = v
        pc[i] = c
    return pv, pc


def batch_boilerplate(sketch: U32, reps: npt.NDArray[np.bool_], config: MatchConfig) -> tuple[U32, I64]:
    """The batch's **boilerplate**: the values posted (among a document's ``posted`` smallest) by
    more than ``max_posting`` representatives (``reps``, per document), sorted, and per value the
    representative that posted it the ``max_posting + 1``-th time in batch order: one pass over the
    batch counts the value boilerplate for every document after that one.

    >>> cfg = MatchConfig(max_posting=2, posted=2, min_shared=1)
    >>> sk = np.array([[5, 9], [5, 9], [5, 8], [5, 7]], np.uint32)
    >>> v, after = batch_boilerplate(sk, np.array([True, False, True, True]), cfg)
    >>> v.tolist(), after.tolist()
    ([5], [3])
    """
    posted = min(config.posted, sketch.shape[1])
    rows = np.flatnonzero(reps).astype(np.uint64)
    vals = sketch[rows, :posted].ravel()
    docs = np.repeat(rows, posted)
    take = vals != EMPTY32
    key = np.unique((vals[take].astype(np.uint64) << np.uint64(32)) | docs[take])
    v = (key >> np.uint64(32)).astype(np.uint32)
    starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1]))) if v.size else _EMPTY
    counts = np.diff(np.append(starts, v.shape[0]))
    hit = starts[counts > config.max_posting]
    return v[hit], (key[hit + config.max_posting] & np.uint64(0xFFFFFFFF)).astype(np.int64)


@njit(cache=True, nogil=True)
def _sketch_kind(j: int, x: int, at: int, sig: Any, texts: np.ndarray, rule: Rule) -> int:  # pragma: no cover
    """The kind the sketches give document ``j`` against ``x`` (``decide`` on ``pair_evidence``,
    as ``verify_pair`` computes it before reading the texts; no value counts as boilerplate).
    ``texts[r]``: row r has a text profile. Needs no profiles: Spark's first look at a pair."""
    exact, content, _, size, tokens, sketch, numbers, layout, has_layout = sig[:9]
    k, layout_distance, th, max_conflicts, agree_min, pv, pc = rule
    max_posting = -at  # the batch's boilerplate before row ``at`` (``boilerplate_table``)
    same_layout = bool(
        has_layout[j] and has_layout[x] and int(popcount(layout[j] ^ layout[x])) <= layout_distance
    )
    s, ca, cb, c, a = pair_evidence(
        sketch[j], numbers[j], size[j], sketch[x], numbers[x], size[x], k, pv, pc, max_posting
    )
    return int(
        decide(
            exact[j] == exact[x],
            content[j] == content[x] and tokens[j] > 0,
            s,
            ca,
            cb,
            c,
            a,
            same_layout,
            th[0],
            th[1],
            th[2],
            th[3],
            1 << 30 if texts[j] and texts[x] else max_conflicts,
            th[4],
            th[5],
            agree_min,
        )
    )


@njit(cache=True, nogil=True)
def _pair_kind(j: int, x: int, at: int, sig: Any, texts: np.ndarray, rule: Rule) -> int:  # pragma: no cover
    """The kind of document ``j`` against ``x`` from the two documents alone: the engine's
    ``verify_pair`` with no value counted as boilerplate, the texts read only when the sketches
    call the pair near, partial or layout (``_sketch_kind`` first, so a pair the sketches call
    unique is unique wherever it is verified, with or without the profiles at hand)."""
    kd = _sketch_kind(j, x, at, sig, texts, rule)
    if kd in (UNIQUE, EXACT, CONTENT):
        return kd
    exact, content, _, size, tokens, sketch, numbers, layout, has_layout, pp, prof = sig
    k, layout_distance, th, max_conflicts, agree_min, pv, pc = rule
    max_posting = -at  # the batch's boilerplate before row ``at`` (``boilerplate_table``)
    same_layout = bool(
        has_layout[j] and has_layout[x] and int(popcount(layout[j] ^ layout[x])) <= layout_distance
    )
    return int(
        verify_pair(
            sketch[j],
            numbers[j],
            size[j],
            prof[pp[j] : pp[j + 1]],
            sketch[x],
            numbers[x],
            size[x],
            prof[pp[x] : pp[x + 1]],
            exact[j] == exact[x],
            content[j] == content[x] and tokens[j] > 0,
            same_layout,
            k,
            pv,
            pc,
            max_posting,
            th,
            max_conflicts,
            agree_min,
        )[0]
    )


# every core for one process; one thread per Spark task. Two functions, not one factory: numba's
# cache keys a function by its name and source (as in neardup.match.signature).
@njit(cache=True, nogil=True, parallel=True)
def _kinds_parallel(
    todo: np.ndarray,
    ra: np.ndarray,
    rb: np.ndarray,
    at: np.ndarray,
    sig: Any,
    texts: np.ndarray,
    rule: Rule,
    full: bool,
) -> np.ndarray:  # pragma: no cover
    out = np.empty(todo.shape[0], np.int8)
    for q in prange(todo.shape[0]):
        t = todo[q]
        if full:
            out[q] = _pair_kind(rb[t], ra[t], at[t], sig, texts, rule)
        else:
            out[q] = _sketch_kind(rb[t], ra[t], at[t], sig, texts, rule)
    return out


@njit(cache=True, nogil=True)
def _kinds_serial(
    todo: np.ndarray,
    ra: np.ndarray,
    rb: np.ndarray,
    at: np.ndarray,
    sig: Any,
    texts: np.ndarray,
    rule: Rule,
    full: bool,
) -> np.ndarray:  # pragma: no cover
    out = np.empty(todo.shape[0], np.int8)
    for q in range(todo.shape[0]):
        t = todo[q]
        if full:
            out[q] = _pair_kind(rb[t], ra[t], at[t], sig, texts, rule)
        else:
            out[q] = _sketch_kind(rb[t], ra[t], at[t], sig, texts, rule)
    return out


@njit(cache=True, nogil=True)
def _find(parent: np.ndarray, x: int) -> int:  # pragma: no cover
    r = x
    while parent[r] != r:
        r = parent[r]
    while parent[x] != r:
        parent[x], x = r, parent[x]
    return r


@njit(cache=True, nogil=True)
def _apart(
    parent: np.ndarray, na: np.ndarray, nb: np.ndarray, s: int, e: int
) -> np.ndarray:  # pragma: no cover
    """The pairs s..e-1 whose nodes are not connected yet."""
    out = np.empty(e - s, np.int64)
    m = 0
    for t in range(s, e):
        if _find(parent, na[t]) != _find(parent, nb[t]):
            out[m] = t
            m += 1
    return out[:m]


@njit(cache=True, nogil=True)
def _join(
    parent: np.ndarray,
    na: np.ndarray,
    nb: np.ndarray,
    todo: np.ndarray,
    kinds: np.ndarray,
    linked: np.ndarray,
) -> None:  # pragma: no cover
    for q in range(todo.shape[0]):
        if kinds[q] != UNIQUE:
            t = todo[q]
            x, y = _find(parent, na[t]), _find(parent, nb[t])
            if x != y:
                parent[max(x, y)] = min(x, y)
            linked[t] = True


def link_pairs(
    sigs: Signatures,
    pairs: tuple[I64, I64],
    config: MatchConfig,
    *,
    nodes: tuple[I64, I64] | None = None,
    parent: I64 | None = None,
    texts: npt.NDArray[np.bool_] | None = None,
    full: bool = True,
    common: tuple[U32, I64] | None = None,
    at: I64 | None = None,
    parallel: bool = True,
    block: int = 1 << 16,
) -> tuple[npt.NDArray[np.bool_], int]:
    """Which candidate pairs ``(a, b)`` (rows of ``sigs``, ``a`` the earlier document) link their
    documents: those whose kind (``_pair_kind``; ``full=False``: the sketches' kind alone, no
    profiles needed) is not unique. Pairs go in blocks; a pair whose documents are already
    connected (by the pairs linked before it, or by ``parent``: a union-find forest over the
    nodes, updated) is not verified, which changes no component. ``nodes``: the pairs' documents as
    union-find nodes when they are not the rows (Spark's tasks hold one row per pair and side).
    ``texts``: per row, whether it has a text profile (default: from ``sigs``). ``common``: the
    batch's boilerplate (``batch_boilerplate``), left out of a pair checked at row ``at`` (per
    pair; default: ``b``) when it is boilerplate before that row, as in the pass over the batch.
    Returns the linked pairs and how many pairs were verified."""
    ra, rb = (np.ascontiguousarray(x, np.int64) for x in pairs)
    na, nb = (ra, rb) if nodes is None else (np.ascontiguousarray(x, np.int64) for x in nodes)
    if parent is None:
        size = int(max(na.max(initial=-1), nb.max(initial=-1))) + 1
        parent = np.arange(size, dtype=np.int64)
    if texts is None:
        texts = np.diff(sigs.prof_ptr) > 0
    sig = sigs.columns()
    rule = pair_rule(config, common)
    when = rb if at is None else np.ascontiguousarray(at, np.int64)
    # the C kernel where built (one thread); numba otherwise (every core unless ``parallel=False``)
    kinds_of = (
        kernels.pair_kinds if kernels.BACKEND == "c" else _kinds_parallel if parallel else _kinds_serial
    )
    linked = np.zeros(ra.shape[0], np.bool_)
    verified = 0
    with np.errstate(over="ignore"):
        for s in range(0, ra.shape[0], block):
            todo = kernels.apart(parent, na, nb, s, min(ra.shape[0], s + block))
            if todo.size == 0:
                continue
            kinds = kinds_of(todo, ra, rb, when, sig, np.ascontiguousarray(texts, np.bool_), rule, full)
            kernels.join(parent, na, nb, todo, kinds, linked)
            verified += int(todo.size)
    return linked, verified


def candidate_pairs(
    sigs: Signatures, config: MatchConfig, extra: tuple[I64, I64] | None = None
) -> tuple[tuple[I64, I64], tuple[I64, I64], U32]:
    """The candidate graph's key edges (each holder of an exact or content key and the key's first
    holder: the same page or text, linked without reading), its sketch pairs (plus ``extra``, e.g.
    SimHash neighbours; ``a`` before ``b``), and the hot values."""
    ka = [key_edges(sigs.exact), key_edges(sigs.content, sigs.tokens > 0)]
    sa, sb, hot = sketch_edges(sigs.sketch, config)
    if extra is not None:
        sa = np.concatenate([sa, np.asarray(extra[0], np.int64)])
        sb = np.concatenate([sb, np.asarray(extra[1], np.int64)])
    keys = (
        np.concatenate([p[0] for p in ka]).astype(np.int64),
        np.concatenate([p[1] for p in ka]).astype(np.int64),
    )
    return keys, (sa, sb), hot


def rep_pairs(
    sketch: U32, reps: npt.NDArray[np.bool_], common: tuple[U32, I64], config: MatchConfig
) -> tuple[I64, I64]:
    """The sketch pairs the pass over the batch looks at, given its representatives (``reps``)
    and boilerplate (``common``, ``batch_boilerplate``): ``(a, b)`` when ``b`` holds at least
    ``min_shared`` values that ``a``, a representative, posted among the first ``max_posting + 1``
    representatives posting them, before the value is boilerplate. (``sketch_edges`` pairs a
    value's first ``link_posters`` documents: copies that joined a cluster may take those places.)"""
    n = sketch.shape[0]
    if n == 0:
        return _EMPTY, _EMPTY
    values, docs, posted = value_rows(sketch, config.posted, np.asarray(reps, np.bool_), common)
    wide = dataclasses.replace(config, hot_posting=10**9, link_posters=config.max_posting + 1)
    pairs, _ = shared_pairs(values, docs, posted, wide, n)
    return (pairs >> np.uint64(32)).astype(np.int64), (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64)


def first_components(
    sigs: Signatures,
    config: MatchConfig,
    extra: tuple[I64, I64] | None = None,
    *,
    fixed: int = 0,
    parallel: bool = True,
) -> tuple[I64, tuple[I64, I64], tuple[I64, I64], U32]:
    """The components of the verified candidate graph before boilerplate: key edges and the
    sketch pairs whose kind from the two documents alone is not unique (``link_pairs``).
    Returns per document its component, the key edges, the sketch pairs (``a`` before ``b``; a
    pair of two of the first ``fixed`` rows, representatives already, is left out: the pass never
    checks one against another) and the hot values."""
    n = len(sigs)
    (ka, kb), (sa, sb), hot = candidate_pairs(sigs, config, extra)
    take = sb >= fixed
    sa, sb = sa[take], sb[take]
    order = np.lexsort((sb, sa))  # a poster's pairs together: its copies link early, then skip
    sa, sb = sa[order], sb[order]
    parent = union_find(n, ka, kb).astype(np.int64)
    linked, _ = link_pairs(sigs, (sa, sb), config, parent=parent, parallel=parallel)
    labels = union_find(n, np.concatenate([ka, sa[linked]]), np.concatenate([kb, sb[linked]]))
    return labels, (ka, kb), (sa, sb), hot


def verified_components(
    sigs: Signatures,
    config: MatchConfig,
    extra: tuple[I64, I64] | None = None,
    *,
    fixed: int = 0,
    parallel: bool = True,
) -> tuple[I64, U32, tuple[U32, I64]]:
    """Per document, its verified component (the component's smallest document); the hot values; the
    batch's boilerplate (``batch_boilerplate``: values, and the row after which each is).

    Three steps, each a function of the documents alone: the components before boilerplate
    (``first_components``); the pass over them (``run_components``), whose representatives give
    the batch's boilerplate as one pass over the batch counts it; the sketch pairs not connected
    yet verified again with that boilerplate left out (a stock phrase may hide that two texts
    share a passage), their links added. ``extra``: more candidate pairs (e.g. SimHash
    neighbours), as edges; ``fixed``: the first rows are representatives already (a corpus)."""
    n = len(sigs)
    first, _, (sa, sb), hot = first_components(sigs, config, extra, fixed=fixed, parallel=parallel)
    ptr, rows = component_rows(first)
    reps = run_components(sigs, config, ptr, rows, fixed=fixed, extra=_extra_csr(n, extra))["rep"]
    is_rep = reps == np.arange(n)
    common = batch_boilerplate(sigs.sketch, is_rep, config)
    ra, rb = rep_pairs(sigs.sketch, is_rep, common, config)
    take = rb >= fixed
    pa, pb = np.concatenate([sa, ra[take]]), np.concatenate([sb, rb[take]])
    parent = first.astype(np.int64)
    again, _ = link_pairs(sigs, (pa, pb), config, parent=parent, common=common, parallel=parallel)
    return (
        union_find(n, np.concatenate([first, pa[again]]), np.concatenate([np.arange(n), pb[again]])),
        hot,
        common,
    )


def batch_components(
    sigs: Signatures, config: MatchConfig, extra: tuple[I64, I64] | None = None
) -> tuple[I64, U32]:
    """Per document, its component of the candidate graph (the component's smallest document:
    every key edge and sketch pair an edge, nothing verified), and the hot values. ``extra``: more
    edges (e.g. SimHash neighbours)."""
    n = len(sigs)
    (ka, kb), (sa, sb), hot = candidate_pairs(sigs, config, extra)
    return union_find(n, np.concatenate([ka, sa]), np.concatenate([kb, sb])), hot


def largest_component(labels: I64) -> int:
    """The number of documents in the largest component (0 for no documents)."""
    return int(np.bincount(labels).max(initial=0)) if labels.size else 0


def _extra_csr(n: int, extra: tuple[I64, I64] | None) -> tuple[I64, I64] | None:
    """SimHash candidate pairs (a before b) as the pass takes them: per document, its earlier ones."""
    if extra is None:
        return None
    a, b = extra
    order = np.lexsort((a, b))
    cnt = np.zeros(n + 1, np.int64)
    np.add.at(cnt, b + 1, 1)
    return np.cumsum(cnt), a[order]


def pass_order(sigs: Signatures, config: MatchConfig, fixed: int = 0) -> I64 | None:
    """The key the pass takes a component's documents by, or None for row order: with the keep
    rule ``fuller`` or ``longest``, the longest text first (fewest tokens last, ties in row order)
    after the ``fixed`` rows (a corpus's documents), so the copy a cluster keeps is the one the
    others are verified against: a cut copy and a copy with a site's lines, each checked against
    the full article, join its cluster, where in row order the one seen first would stand for it."""
    if config.keep not in ("fuller", "longest"):
        return None
    key = -np.asarray(sigs.tokens, np.int64)
    key[:fixed] = np.iinfo(np.int64).min
    return key


def component_rows(labels: I64, key: I64 | None = None) -> tuple[I64, I64]:
    """The components with more than one document: pointers and rows (ascending in each, or by
    ``key`` and then ascending: ``pass_order``)."""
    if key is None:
        order = np.argsort(labels, kind="stable")
    else:
        order = np.lexsort((np.arange(labels.shape[0]), key, labels))
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
    """Candidates, verification and clusters of one batch, component by component. The
    components are the candidate graph's (``batch_components``) while the largest holds at most
    ``max_component`` documents; past that, the verified components with the batch's boilerplate
    (``verified_components``), counted as over the batch. The first ``fixed`` rows are
    representatives already (a corpus's documents); ``extra``: SimHash candidate pairs (a before
    b), which are edges too."""
    cfg = config or MatchConfig()
    labels, _ = batch_components(sigs, cfg, extra)
    common = None
    if largest_component(labels) > cfg.max_component:
        labels, _, common = verified_components(sigs, cfg, extra, fixed=fixed)
    # past max_component the batch's boilerplate is counted in row order, as the pass must take it
    key = pass_order(sigs, cfg, fixed) if common is None and extra is None else None
    ptr, rows = component_rows(labels, key)
    csr = _extra_csr(len(sigs), extra)
    return Clusters.from_run(run_components(sigs, cfg, ptr, rows, fixed=fixed, extra=csr, common=common))
