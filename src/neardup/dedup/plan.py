"""The MapReduce plan of seed 001 as array kernels, shared by ``neardup dedup`` and the Spark job.

Three steps over 64-bit SimHash fingerprints with a Hamming radius ``k``:

1. **Within the batch** (``forest_edges``): split the bits into ``k + 1`` blocks (the "permuted
   tables"); two fingerprints within ``k`` bits agree exactly on at least one block (pigeonhole), so
   grouping by each block's value and comparing inside each group finds every pair. Only a spanning
   forest of each group's matches is emitted: clusters are connected components, so the edges that
   would only close cycles are never needed, and a group of 50,000 near-identical documents yields
   50,000 edges instead of 1.25 billion.
2. **Against the corpus** (``BatchTables``): the batch's tables are built once (small), and the corpus
   streams past them chunk by chunk (``BatchTables.probe``); a batch document is a duplicate if any
   chunk says so (a min-reduce of the matching corpus position, which is an OR with a witness).
3. **Merge**: the batch's non-duplicates are appended to the corpus (see ``neardup.dedup.index``).

Big buckets: a group larger than ``LEAF_MAX`` is split again on its own varying bits (bits that are
equal across the group can not differ between its members, so ``k + 1`` blocks of the varying bits
again cover every pair); a group whose varying bits number ``<= k`` is one cluster without any
comparison. Only below ``MAX_DEPTH`` levels is a group capped (each member compared with the next
``cap`` members only), counted in ``PlanStats.capped`` and reported as a warning.

>>> import numpy as np
>>> fps = np.array([0b1111, 0b0111, 1 << 40, 0xFFFF << 20], dtype=np.uint64)
>>> a, b = forest_edges(fps, 3)  # d(0, 1) = 1, d(1, 2) = 4, d(2, 3) = 17: only 0 and 1 join
>>> sorted(set(zip(a.tolist(), b.tolist())))
[(0, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numba
import numpy as np
import numpy.typing as npt
from numba.core import types
from numba.extending import intrinsic

from neardup.exceptions import ConfigError

__all__ = [
    "LEAF_MAX",
    "MAX_DEPTH",
    "BatchTables",
    "PlanStats",
    "block_ranges",
    "first_of_groups",
    "forest_edges",
    "group_by_key",
    "grouped_forest_edges",
    "hamming_u64",
    "min_merge",
    "table_design",
    "table_keys",
]

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

LEAF_MAX = 4096  # groups up to this size are compared exhaustively in the numba kernel
MAX_DEPTH = 6  # re-splits of a big group before it is capped
DEFAULT_CAP = 20_000


@dataclass
class PlanStats:
    """Work counted by the plan (datatrove style): groups, re-splits, capped groups."""

    groups: int = 0
    largest_group: int = 0
    resplits: int = 0
    collapsed: int = 0  # groups whose varying bits were <= k: one cluster, no comparisons
    capped: int = 0
    capped_docs: int = 0
    edges: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if isinstance(v, int)}


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """The CPU's popcount instruction (llvm.ctpop), several times faster than a SWAR popcount."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:  # pragma: no cover - compiled
    return int(_ctpop(x))  # type: ignore[call-arg]


@numba.njit(cache=True, inline="always")
def _find(parent: I64, i: int) -> int:  # pragma: no cover - compiled
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@numba.njit(cache=True, parallel=True)
def _forest_kernel(
    f: U64,
    p: I64,
    starts: I64,
    active: npt.NDArray[np.bool_],
    k: int,
    cap: int,
    out_a: I64,
    out_b: I64,
    counts: I64,
) -> None:  # pragma: no cover - compiled
    nb = starts.size - 1
    for bi in numba.prange(nb):
        s = starts[bi]
        n = starts[bi + 1] - s
        counts[bi] = 0
        if n < 2 or not active[bi]:
            continue
        parent = np.arange(n)
        c = 0
        ncomp = n
        for i in range(n - 1):
            if ncomp == 1:
                break
            fi = f[s + i]
            jend = n if cap <= 0 else min(n, i + 1 + cap)
            for j in range(i + 1, jend):
                if _popcount(fi ^ f[s + j]) <= k:
                    ri = _find(parent, i)
                    rj = _find(parent, j)
                    if ri != rj:
                        if ri < rj:
                            parent[rj] = ri
                        else:
                            parent[ri] = rj
                        out_a[s + c] = p[s + i]
                        out_b[s + c] = p[s + j]
                        c += 1
                        ncomp -= 1
        counts[bi] = c


@numba.njit(cache=True, parallel=True)
def _hamming_kernel(a: U64, b: U64, out: I64) -> None:  # pragma: no cover - compiled
    for i in numba.prange(a.size):
        out[i] = _popcount(a[i] ^ b[i])


def hamming_u64(a: U64, b: U64) -> I64:
    """Element-wise Hamming distance of two uint64 arrays.

    >>> hamming_u64(np.array([3], np.uint64), np.array([0], np.uint64)).tolist()
    [2]
    """
    a = np.ascontiguousarray(a, dtype=np.uint64)
    b = np.ascontiguousarray(b, dtype=np.uint64)
    out = np.empty(a.size, np.int64)
    _hamming_kernel(a, b, out)
    return out


def block_ranges(bit_positions: list[int], nblocks: int) -> list[tuple[int, int]]:
    """Split sorted bit positions into ``nblocks`` runs; returns (lowest bit, span) per block.

    >>> block_ranges(list(range(64)), 4)
    [(0, 16), (16, 16), (32, 16), (48, 16)]
    """
    nblocks = max(1, min(nblocks, len(bit_positions)))
    out = []
    for chunk in np.array_split(np.asarray(bit_positions, dtype=np.int64), nblocks):
        lo, hi = int(chunk[0]), int(chunk[-1])
        out.append((lo, hi - lo + 1))
    return out


Table = tuple[tuple[int, int], ...]  # the (lowest bit, span) blocks whose values form a table's key


def table_design(bit_positions: list[int], k: int, n: int, max_per_key: float = 8) -> list[Table]:
    """The permuted tables for ``n`` fingerprints that may differ only at ``bit_positions``.

    Seed 001's design is ``k + 1`` blocks, one table per block. When that leaves more than about 8
    fingerprints per key, ``k + 2`` blocks are used with one table per pair of blocks (two
    fingerprints within ``k`` bits agree on at least two of ``k + 2`` blocks): more tables, far
    fewer comparisons.

    >>> [len(t) for t in table_design(list(range(64)), 3, 1000)]
    [1, 1, 1, 1]
    >>> len(table_design(list(range(64)), 3, 10_000_000))
    10
    """
    nbits = len(bit_positions)
    nblocks = k + 1
    if nbits >= k + 2 and n / 2.0 ** (nbits / (k + 1)) > max_per_key:
        nblocks = k + 2
    blocks = block_ranges(bit_positions, nblocks)
    return [tuple(blocks[i] for i in combo) for combo in combinations(range(len(blocks)), len(blocks) - k)]


def table_keys(fps: U64, table: Table) -> tuple[U64, int]:
    """The key of one permuted table for each fingerprint, and the key's width in bits."""
    key = np.zeros(fps.size, dtype=np.uint64)
    shift = 0
    for lo, width in table:
        mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
        part = (fps >> np.uint64(lo)) & mask
        key |= part << np.uint64(shift) if shift else part
        shift += width
    return key, shift


def group_by_key(key: U64, width: int) -> tuple[I64, U64]:
    """Positions sorted by key (ties in position order) and the sorted keys.

    Packs ``key << b | position`` into one uint64 and sorts that when it fits (numpy's sort of
    uint64 is several times faster than an argsort).
    """
    n = key.size
    ib = max(1, (n - 1).bit_length())
    if width + ib <= 64:
        packed = (key << np.uint64(ib)) | np.arange(n, dtype=np.uint64)
        packed.sort()
        return (packed & np.uint64((1 << ib) - 1)).astype(np.int64), packed >> np.uint64(ib)
    order = np.argsort(key, kind="stable")
    return order.astype(np.int64), key[order]


def _check_k(k: int, bits: int = 64) -> None:
    if not 0 <= k < bits:
        raise ConfigError(f"max_distance must be between 0 and {bits - 1}, got {k}")


def forest_edges(
    fps: U64, k: int, *, cap: int = DEFAULT_CAP, stats: PlanStats | None = None, positions: I64 | None = None
) -> tuple[I64, I64]:
    """Edges (a, b) over array positions whose connected components are those of ``d(a, b) <= k``.

    ``fps`` should hold distinct values (collapse identical ones first with ``first_of_groups``;
    identical ones still work, they just cost more). Exact unless a group is capped (see module doc).
    """
    _check_k(k)
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    pos = np.arange(fps.size, dtype=np.int64) if positions is None else np.asarray(positions, np.int64)
    st = stats if stats is not None else PlanStats()
    parts_a: list[I64] = []
    parts_b: list[I64] = []
    if fps.size >= 2:
        _recurse(fps, pos, k, 0, max(cap, 0), parts_a, parts_b, st)
    if not parts_a:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    a = np.concatenate(parts_a)
    b = np.concatenate(parts_b)
    st.edges += int(a.size)
    return a, b


def _recurse(
    fps: U64, pos: I64, k: int, depth: int, cap: int, parts_a: list[I64], parts_b: list[I64], st: PlanStats
) -> None:
    n = fps.size
    varying = int(np.bitwise_or.reduce(fps ^ fps[0]))
    nvar = bin(varying).count("1")
    if nvar <= k:  # every pair is within k bits: one cluster, a star suffices
        st.collapsed += 1
        parts_a.append(np.full(n - 1, pos[0], dtype=np.int64))
        parts_b.append(pos[1:].copy())
        return
    if k == 0:  # distinct fingerprints are never within 0 bits
        return
    bit_positions = [i for i in range(64) if varying >> i & 1]
    for table in table_design(bit_positions, k, n):
        key, width = table_keys(fps, table)
        order, ks = group_by_key(key, width)
        del key
        sel, starts = _multi_groups(ks)
        del ks
        if sel.size == 0:
            continue
        sizes = np.diff(starts)
        st.groups += int(sizes.size)
        st.largest_group = max(st.largest_group, int(sizes.max()))
        keep = order[sel]
        f = fps[keep]
        p = pos[keep]
        m = int(starts[-1])
        active = np.ones(sizes.size, dtype=np.bool_)
        kernel_cap = 0
        big = np.flatnonzero(sizes > LEAF_MAX)
        if big.size:
            if depth < MAX_DEPTH:
                active[big] = False
                for bi in big.tolist():
                    s, e = int(starts[bi]), int(starts[bi + 1])
                    st.resplits += 1
                    _recurse(f[s:e], p[s:e], k, depth + 1, cap, parts_a, parts_b, st)
            elif cap > 0:
                kernel_cap = cap
                big_capped = big[sizes[big] > cap]
                if big_capped.size:
                    st.capped += int(big_capped.size)
                    st.capped_docs += int(sizes[big_capped].sum())
        out_a = np.empty(m, np.int64)
        out_b = np.empty(m, np.int64)
        counts = np.empty(sizes.size, np.int64)
        _forest_kernel(f, p, starts, active, k, kernel_cap, out_a, out_b, counts)
        if counts.any():
            slots = _slot_mask(starts, counts, m)
            parts_a.append(out_a[slots])
            parts_b.append(out_b[slots])


@numba.njit(cache=True)
def _multi_groups(ks: U64) -> tuple[I64, I64]:  # pragma: no cover - compiled
    """Indexes of sorted keys in groups of two or more, and those groups' starts (plus the end)."""
    n = ks.size
    sel = np.empty(n, np.int64)
    starts = np.empty(n // 2 + 2, np.int64)
    m = 0
    g = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and ks[j] == ks[i]:
            j += 1
        if j - i >= 2:
            starts[g] = m
            g += 1
            for t in range(i, j):
                sel[m] = t
                m += 1
        i = j
    starts[g] = m
    return sel[:m], starts[: g + 1]


def _slot_mask(starts: I64, counts: I64, n: int) -> npt.NDArray[np.bool_]:
    """Group i wrote counts[i] edges at starts[i]...; select exactly those slots."""
    offset = np.arange(n, dtype=np.int64) - np.repeat(starts[:-1], np.diff(starts))
    return offset < np.repeat(counts, np.diff(starts))


def first_of_groups(values: npt.NDArray[np.uint64]) -> tuple[I64, I64, I64]:
    """Group equal values; returns (first position of each value, edges a -> b to that first).

    >>> firsts, a, b = first_of_groups(np.array([7, 5, 7, 7], np.uint64))
    >>> firsts.tolist(), a.tolist(), b.tolist()
    ([0, 1], [0, 0], [2, 3])
    """
    values = np.ascontiguousarray(values, dtype=np.uint64)
    n = values.size
    empty = np.empty(0, np.int64)
    if n == 0:
        return empty, empty, empty
    srt = np.sort(values)
    repeated = srt[1:][srt[1:] == srt[:-1]]
    if repeated.size == 0:  # the common case: all distinct, one fast sort
        return np.arange(n, dtype=np.int64), empty, empty
    dv = repeated[np.concatenate(([True], repeated[1:] != repeated[:-1]))]
    idx = np.minimum(np.searchsorted(dv, values), dv.size - 1)
    pos = np.flatnonzero(dv[idx] == values)  # positions holding a repeated value (ascending)
    order = pos[np.argsort(values[pos], kind="stable")]
    sv = values[order]
    new_group = np.concatenate(([True], sv[1:] != sv[:-1]))
    group_first = order[new_group]
    anchor = np.repeat(group_first, np.diff(np.append(np.flatnonzero(new_group), order.size)))
    dup = anchor != order
    is_dup = np.zeros(n, dtype=np.bool_)
    is_dup[order[dup]] = True
    return np.flatnonzero(~is_dup).astype(np.int64), anchor[dup].astype(np.int64), order[dup].astype(np.int64)


# ---------------------------------------------------------------------------------------- probing
@numba.njit(cache=True, parallel=True)
def _probe_kernel(
    corpus: U64,
    corpus_pos: I64,
    lows: I64,
    widths: I64,
    dshift: I64,
    off_base: I64,
    offsets: I64,
    tab_fps: U64,
    tab_pos: I64,
    k: int,
    cap: int,
    nbatch: int,
    nthreads: int,
    best: I64,
) -> None:  # pragma: no cover - compiled
    # best: (nthreads, nbatch) -> smallest corpus position within k, or -1
    n = corpus.size
    ntab, nblk = lows.shape
    span = (n + nthreads - 1) // nthreads
    for t in numba.prange(nthreads):
        lo_i = t * span
        hi_i = min(n, lo_i + span)
        for i in range(lo_i, hi_i):
            c = corpus[i]
            cp = corpus_pos[i]
            for tb in range(ntab):
                key = np.uint64(0)
                shift = 0
                for bk in range(nblk):
                    w = widths[tb, bk]
                    if w == 0:
                        break
                    part = (c >> np.uint64(lows[tb, bk])) & ((np.uint64(1) << np.uint64(w)) - np.uint64(1))
                    key |= part << np.uint64(shift)
                    shift += w
                d = int(key >> np.uint64(dshift[tb]))
                s = offsets[off_base[tb] + d]
                e = offsets[off_base[tb] + d + 1]
                if cap > 0 and e - s > cap:
                    e = s + cap
                for j in range(s, e):
                    if _popcount(c ^ tab_fps[tb * nbatch + j]) <= k:
                        bp = tab_pos[tb * nbatch + j]
                        cur = best[t, bp]
                        if cur < 0 or cp < cur:
                            best[t, bp] = cp


class BatchTables:
    """The batch's permuted tables, built once, probed by streaming corpus chunks (seed 001, step 2).

    Pickles as plain numpy arrays, so it can be broadcast to Spark executors.

    >>> t = BatchTables(np.array([0, 0xFFFF << 40], np.uint64), k=3)
    >>> t.probe(np.array([1, 0xFFFF], np.uint64), np.array([10, 11])).tolist()
    [10, -1]
    """

    MAX_DIRECT_BITS = 20
    PROBE_MAX_PER_KEY = 64

    def __init__(self, fps: U64, k: int, *, cap: int = DEFAULT_CAP) -> None:
        _check_k(k)
        fps = np.ascontiguousarray(fps, dtype=np.uint64)
        self.k = k
        self.cap = max(cap, 0)
        self.n = n = int(fps.size)
        # probing favours few tables with cache-resident offsets over many tables of tiny buckets
        tables = table_design(list(range(64)), k, n, max_per_key=self.PROBE_MAX_PER_KEY)
        nblk = max(len(t) for t in tables)
        self.lows = np.zeros((len(tables), nblk), np.int64)
        self.widths = np.zeros((len(tables), nblk), np.int64)
        self.dshift = np.zeros(len(tables), np.int64)
        self.off_base = np.zeros(len(tables), np.int64)
        self.tab_fps = np.empty(len(tables) * n, np.uint64)
        self.tab_pos = np.empty(len(tables) * n, np.int64)
        offsets: list[I64] = []
        base = 0
        self.largest_bucket = 0
        for t, table in enumerate(tables):
            for b, (lo, w) in enumerate(table):
                self.lows[t, b], self.widths[t, b] = lo, w
            key, width = table_keys(fps, table)
            dbits = min(width, self.MAX_DIRECT_BITS, max(4, n.bit_length() + 1))
            self.dshift[t] = width - dbits
            direct = key >> np.uint64(width - dbits)
            order, _ = group_by_key(direct, dbits)
            self.tab_fps[t * n : (t + 1) * n] = fps[order]
            self.tab_pos[t * n : (t + 1) * n] = order
            counts = np.bincount(direct.astype(np.int64), minlength=1 << dbits)
            offsets.append(np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
            self.off_base[t] = base
            base += offsets[-1].size
            if counts.size:
                self.largest_bucket = max(self.largest_bucket, int(counts.max()))
        self.offsets = np.concatenate(offsets)

    @property
    def capped(self) -> bool:
        """True when some bucket is larger than ``cap`` (probes then see only its first ``cap``)."""
        return self.cap > 0 and self.largest_bucket > self.cap

    def probe(self, corpus: U64, corpus_pos: I64, *, threads: int | None = None) -> I64:
        """For each batch fingerprint, the smallest ``corpus_pos`` within ``k`` bits, else -1."""
        corpus = np.ascontiguousarray(corpus, dtype=np.uint64)
        corpus_pos = np.ascontiguousarray(corpus_pos, dtype=np.int64)
        nthreads = max(1, min(threads or numba.get_num_threads(), max(1, corpus.size // 4096)))
        best = np.full((nthreads, self.n), -1, np.int64)
        if self.n and corpus.size:
            _probe_kernel(
                corpus,
                corpus_pos,
                self.lows,
                self.widths,
                self.dshift,
                self.off_base,
                self.offsets,
                self.tab_fps,
                self.tab_pos,
                self.k,
                self.cap,
                self.n,
                nthreads,
                best,
            )
        return min_merge(best)


def min_merge(rows: I64) -> I64:
    """Column-wise min over rows treating -1 as missing (the OR-reduce with a witness)."""
    big = np.iinfo(np.int64).max
    m = np.where(rows < 0, big, rows).min(axis=0)
    return np.where(m == big, -1, m).astype(np.int64)


def grouped_forest_edges(
    group: I64, fps: U64, pos: I64, k: int, *, cap: int = DEFAULT_CAP, stats: PlanStats | None = None
) -> tuple[I64, I64]:
    """Spanning-forest edges inside each group of rows already sorted by ``group`` (a table key).

    The reduce side of the within-batch step when the tables were exploded and shuffled elsewhere
    (the Spark job): the same kernel and the same big-group re-splits as ``forest_edges``.

    >>> g = np.array([0, 0, 1, 1]); f = np.array([1, 3, 0, 0xFFFF << 40], np.uint64)
    >>> a, b = grouped_forest_edges(g, f, np.array([5, 6, 7, 8]), 3)
    >>> list(zip(a.tolist(), b.tolist()))
    [(5, 6)]
    """
    _check_k(k)
    st = stats if stats is not None else PlanStats()
    group = np.asarray(group, np.int64)
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    pos = np.ascontiguousarray(pos, dtype=np.int64)
    n = group.size
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    sel, starts = _multi_groups(group.view(np.uint64))
    if sel.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    f = fps[sel]
    p = pos[sel]
    sizes = np.diff(starts)
    st.groups += int(sizes.size)
    st.largest_group = max(st.largest_group, int(sizes.max()))
    parts_a: list[I64] = []
    parts_b: list[I64] = []
    active = np.ones(sizes.size, dtype=np.bool_)
    for bi in np.flatnonzero(sizes > LEAF_MAX).tolist():
        s, e = int(starts[bi]), int(starts[bi + 1])
        uniq = f[s:e]
        active[bi] = False
        st.resplits += 1
        _recurse(uniq, p[s:e], k, 1, max(cap, 0), parts_a, parts_b, st)
    m = int(starts[-1])
    out_a = np.empty(m, np.int64)
    out_b = np.empty(m, np.int64)
    counts = np.empty(sizes.size, np.int64)
    _forest_kernel(f, p, starts, active, k, 0, out_a, out_b, counts)
    if counts.any():
        slots = _slot_mask(starts, counts, m)
        parts_a.append(out_a[slots])
        parts_b.append(out_b[slots])
    if not parts_a:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    a, b = np.concatenate(parts_a), np.concatenate(parts_b)
    st.edges += int(a.size)
    return a, b
