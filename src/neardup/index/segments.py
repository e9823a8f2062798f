"""Immutable sorted segments of the Hamming index (in memory or memory-mapped from a file).

A segment holds ``T`` sorted tables of permuted fingerprints (one per key-block combination of
the design) in the residual layout of :mod:`neardup.index.residual`: a directory on the leading
``pbits`` bits per table, a 32-bit column per table and the low bits of table 0. Table 0's
permutation is the identity, so its rows are the sorted fingerprints; ``ids`` (int32 when every
id fits, else int64) and the tombstone mask follow table 0's order.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.index import kernels as K
from neardup.index.design import Design

__all__ = ["PARALLEL_BUILD", "Kernels", "Segment", "grow_call", "wide_self_join"]

#: segments of at least this many fingerprints build their tables on two threads
PARALLEL_BUILD = 1 << 20

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Kernels:
    """The design's lookup arrays, prepared once for the kernels."""

    def __init__(self, design: Design) -> None:
        self.design = design
        self.src, self.dst, self.msk = design.permutations()
        self.bsrc, self.bmask = design.block_shifts()
        self.first = design.first_table()
        self.keybits = np.array(design.key_bits, dtype=np.int64)
        self.perm = (self.src, self.dst, self.msk)
        self.blocks = (self.bsrc, self.bmask, self.first)


def choose_pbits(n: int, design: Design) -> int:
    """Bits of the prefix-offset directory: about 8 rows per bucket, at most the shortest key."""
    want = math.floor(math.log2(max(n, 2))) - 3
    return max(1, min(want, min(design.key_bits), 26))


def grow_call(fn: Any, args: tuple[Any, ...], dtypes: tuple[Any, ...], guess: int) -> tuple[Any, ...]:
    """Call a kernel that fills output arrays; if they were too small, grow them and call again."""
    cap = max(int(guess), 16)
    while True:
        outs = tuple(np.empty(cap, dtype=dt) for dt in dtypes)
        n = int(fn(*args, outs))
        if n <= cap:
            return tuple(o[:n] for o in outs)
        cap = n


class SegmentBase:
    """Id lookup and tombstones shared by plain and compressed segments."""

    kern: Kernels
    ids: npt.NDArray[Any]
    dead: npt.NDArray[np.uint8]
    n_dead: int
    _id_sorted: I64 | None = None
    _id_rows: I64 | None = None

    @property
    def n(self) -> int:
        return int(self.ids.shape[0])

    @property
    def live(self) -> int:
        return self.n - self.n_dead

    def alive_rows(self) -> I64 | None:
        """Rows not deleted, or None when none is deleted."""
        if not self.n_dead:
            return None
        return np.flatnonzero(self.dead == 0)

    def _id_index(self) -> tuple[I64, I64]:
        if self._id_sorted is None or self._id_rows is None:
            rows = np.argsort(self.ids, kind="stable")
            self._id_rows = rows
            self._id_sorted = np.asarray(self.ids)[rows]
        return self._id_sorted, self._id_rows

    def rows_of(self, ids: I64) -> I64:
        """Live rows holding any of ``ids``."""
        srt, rows = self._id_index()
        lo = np.searchsorted(srt, ids, side="left")
        hi = np.searchsorted(srt, ids, side="right")
        found = hi > lo
        if not found.any():
            return np.zeros(0, dtype=np.int64)
        lens = (hi - lo)[found]
        starts = lo[found]
        idx = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        out = rows[idx]
        if self.n_dead:
            out = out[self.dead[out] == 0]
        return np.asarray(out, dtype=np.int64)

    def kill(self, rows: I64) -> int:
        """Tombstone ``rows``; returns how many were alive."""
        if rows.shape[0] == 0:
            return 0
        if self.dead.shape[0] == 0:
            self.dead = np.zeros(self.n, dtype=np.uint8)
        elif not self.dead.flags.writeable:
            self.dead = np.array(self.dead)
        fresh = np.unique(rows[self.dead[rows] == 0])
        self.dead[fresh] = 1
        self.n_dead += int(fresh.shape[0])
        return int(fresh.shape[0])

    def fps(self) -> U64:
        """The fingerprints in row order (sorted)."""
        raise NotImplementedError

    def self_join(self, k: int) -> tuple[I64, I64, I64]:
        """(row a, row b, distance) for every pair of live rows within ``k``, each pair once."""
        return wide_self_join(self.kern, self.fps(), self.dead, k)


def table_groups(n_tables: int, workers: int) -> list[I64]:
    """Tables split between ``workers`` threads, least loaded first (table 0, which also moves
    the ids, counts twice)."""
    load = [0] * workers
    groups: list[list[int]] = [[] for _ in range(workers)]
    for t in range(n_tables):
        w = load.index(min(load))
        groups[w].append(t)
        load[w] += 2 if t == 0 else 1
    return [np.array(g, dtype=np.int64) for g in groups if g]


def low_bits(bits: int, pbits: int) -> int:
    """Bits of table 0 below its 32-bit column (stored in the ``lo`` column)."""
    return max(0, bits - pbits - 32)


def known_bits(kern: Kernels, pbits: int) -> tuple[U64, I64, I64]:
    """Per table: the fingerprint bits an entry knows (directory + ``hi``), how many of them
    lead, and the blocks it knows whole (bit mask)."""
    d = kern.design
    lobits = low_bits(d.bits, pbits)
    full = (1 << d.bits) - 1
    pm = full ^ ((1 << lobits) - 1)
    masks, leads, whole = [], [], []
    for t in range(d.n_tables):
        m = 0
        for j in range(kern.src.shape[1]):
            m |= ((pm >> int(kern.dst[t, j])) & int(kern.msk[t, j])) << int(kern.src[t, j])
        lead = 0
        while lead < d.bits and (m >> (d.bits - 1 - lead)) & 1:
            lead += 1
        masks.append(m)
        leads.append(lead)
        blocks = [(int(kern.bmask[i]) << int(kern.bsrc[i])) for i in range(d.n_blocks)]
        whole.append(sum(1 << i for i, b in enumerate(blocks) if b & m == b))
    return np.array(masks, dtype=np.uint64), np.array(leads, dtype=np.int64), np.array(whole, dtype=np.int64)


def wide_table(kern: Kernels, fps: U64, t: int) -> U64:
    """Table ``t`` with full 64-bit permuted values, sorted (``fps`` sorted is table 0)."""
    if t == 0:
        return fps
    d = kern.design
    out = np.empty(fps.shape[0], dtype=np.uint64)
    sbits = min(choose_pbits(fps.shape[0], d), K.RADIX_BITS)
    K.permute_sorted(fps, kern.perm, t, sbits, d.bits, out)
    return out


def wide_self_join(kern: Kernels, fps: U64, dead: npt.NDArray[np.uint8], k: int) -> tuple[I64, I64, I64]:
    """Self-join of sorted ``fps`` over temporary full-width tables (a key group is compared
    all against all, so the full values pay for themselves here; they are freed afterwards)."""
    d = kern.design
    n = fps.shape[0]
    tables = np.empty((d.n_tables, n), dtype=np.uint64)
    for t in range(d.n_tables):
        tables[t] = wide_table(kern, fps, t)
    pbits = choose_pbits(n, d)
    off0 = K.prefix_offsets(tables[0], d.bits - pbits, 1 << pbits)[None, :]
    args = (k, tables, kern.keybits, d.bits, pbits, off0, kern.perm, kern.blocks, dead)
    return grow_call(K.self_join_tables, args, (np.int64, np.int64, np.int64), n // 8)


class Segment(SegmentBase):
    """Sorted residual tables over a fixed set of fingerprints; only its tombstones change."""

    def __init__(
        self,
        kern: Kernels,
        hi: npt.NDArray[np.uint32],
        lo: npt.NDArray[Any],
        offsets: npt.NDArray[Any],
        ids: npt.NDArray[Any],
        pbits: int,
        dead: npt.NDArray[np.uint8] | None = None,
    ) -> None:
        self.kern = kern
        self.hi = hi
        self.lo = lo
        self.offsets = offsets
        self.ids = ids
        self.pbits = pbits
        self.lobits = low_bits(kern.design.bits, pbits)
        self.kmask, self.klead, self.kblocks = known_bits(kern, pbits)
        self.dead: npt.NDArray[np.uint8] = (
            dead if dead is not None and dead.shape[0] else np.zeros(0, dtype=np.uint8)
        )
        self.n_dead = int(self.dead.sum()) if self.dead.shape[0] else 0
        self._id_sorted: I64 | None = None
        self._id_rows: I64 | None = None

    # --- construction ----------------------------------------------------------------------------
    @classmethod
    def build(cls, kern: Kernels, ids: npt.NDArray[Any], fps: U64) -> Segment:
        """Sort the fingerprints into the design's tables, each cut straight into its columns
        (on two threads for big segments, each building its own tables without the GIL)."""
        d = kern.design
        n = fps.shape[0]
        pbits = choose_pbits(n, d)
        lobits = low_bits(d.bits, pbits)
        hi = np.empty((d.n_tables, n), dtype=np.uint32)
        lo = np.empty(n if lobits else 0, dtype=np.uint16 if lobits <= 16 else np.uint32)
        offsets = np.empty((d.n_tables, (1 << pbits) + 1), dtype=np.int32 if n < 2**31 else np.int64)
        fits = n == 0 or (int(ids.min()) >= -(2**31) and int(ids.max()) < 2**31)
        ids0 = np.empty(n, dtype=np.int32 if fits else np.int64)
        geo = (d.bits, pbits, lobits)
        workers = min(2, os.cpu_count() or 1) if n >= PARALLEL_BUILD else 1
        groups = table_groups(d.n_tables, workers)

        def run(ts: I64) -> None:
            work = np.empty(n, dtype=np.uint64)
            K.build_tables(fps, ids, kern.perm, ts, geo, hi, lo, ids0, offsets, work)

        if len(groups) > 1:
            with ThreadPoolExecutor(len(groups), thread_name_prefix="neardup-index-build") as pool:
                list(pool.map(run, groups))
        else:
            run(groups[0])
        return cls(kern, hi, lo, offsets, ids0, pbits)

    def to_arrays(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """The arrays and parameters a file stores (tombstoned rows are dropped by compaction first)."""
        arrays = {"hi": self.hi, "lo": self.lo, "offsets": self.offsets, "ids": self.ids}
        return arrays, {"pbits": self.pbits}

    @classmethod
    def from_arrays(cls, kern: Kernels, arrays: dict[str, Any], params: dict[str, Any]) -> Segment:
        hi, lo, offsets, ids = arrays["hi"], arrays["lo"], arrays["offsets"], arrays["ids"]
        pbits = int(params["pbits"])
        d = kern.design
        n = ids.shape[0]
        want_lo = n if low_bits(d.bits, pbits) else 0
        if (
            hi.shape != (d.n_tables, n)
            or lo.shape != (want_lo,)
            or offsets.shape != (d.n_tables, (1 << pbits) + 1)
        ):
            raise ValueError(f"hi {hi.shape}, lo {lo.shape}, offsets {offsets.shape}, ids {ids.shape}")
        return cls(kern, hi, lo, offsets, ids, pbits)

    # --- facts -----------------------------------------------------------------------------------
    def fps(self) -> U64:
        return np.asarray(
            K.join_table0(self.hi, self.lo, self.offsets, self.lobits, self.kern.design.bits - self.pbits),
            dtype=np.uint64,
        )

    def nbytes(self) -> dict[str, int]:
        return {
            "tables": int(self.hi.nbytes + self.lo.nbytes),
            "offsets": int(self.offsets.nbytes),
            "ids": int(self.ids.nbytes),
            "tombstones": int(self.dead.nbytes),
        }

    # --- lookups ---------------------------------------------------------------------------------
    def query(self, qfps: U64, k: int) -> tuple[I64, I64, I64]:
        """(query index, row, distance) for every live row within ``k`` of a query."""
        kern = self.kern
        tables = (self.hi, self.lo, self.offsets)
        geo = (kern.design.bits, self.pbits, self.lobits)
        known = (self.kmask, self.klead, self.kblocks)
        args = (qfps, k, tables, kern.keybits, geo, known, kern.perm, kern.blocks, self.dead)
        return grow_call(K.query_residual, args, (np.int64, np.int64, np.int64), 4 * qfps.shape[0])
