"""Immutable sorted segments of the Hamming index (in memory or memory-mapped from a file).

A segment holds ``T`` sorted tables of permuted fingerprints (``tables[t]``, one per key-block
combination of the design), prefix offsets into them, the ids in table-0 order (table 0's
permutation is the identity, so ``tables[0]`` is the sorted fingerprints) and a tombstone mask.
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

__all__ = ["PARALLEL_BUILD", "Kernels", "Segment", "grow_call"]

#: segments of at least this many fingerprints build their tables on two threads
PARALLEL_BUILD = 1 << 20

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Kernels:
    """The design's lookup arrays, prepared once for the numba kernels."""

    def __init__(self, design: Design) -> None:
        self.design = design
        self.src, self.dst, self.msk = design.permutations()
        self.bsrc, self.bmask = design.block_shifts()
        self.first = design.first_table()
        self.keybits = np.array(design.key_bits, dtype=np.int64)


def choose_pbits(n: int, design: Design) -> int:
    """Bits of the prefix-offset directory: about 8 rows per bucket, at most the shortest key."""
    want = math.floor(math.log2(max(n, 2))) - 3
    return max(1, min(want, min(design.key_bits), 26))


def grow_call(fn: Any, args: tuple[Any, ...], dtypes: tuple[Any, ...], guess: int) -> tuple[Any, ...]:
    """Call a kernel that fills output arrays; if they were too small, grow them and call again."""
    cap = max(int(guess), 16)
    while True:
        outs = tuple(np.empty(cap, dtype=dt) for dt in dtypes)
        n = int(fn(*args, *outs))
        if n <= cap:
            return tuple(o[:n] for o in outs)
        cap = n


class SegmentBase:
    """Id lookup and tombstones shared by plain and compressed segments."""

    ids: I64
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


class Segment(SegmentBase):
    """Sorted tables over a fixed set of fingerprints; only its tombstone mask ever changes."""

    def __init__(
        self,
        kern: Kernels,
        tables: U64,
        offsets: I64,
        ids: I64,
        pbits: int,
        dead: npt.NDArray[np.uint8] | None = None,
    ) -> None:
        self.kern = kern
        self.tables = tables
        self.offsets = offsets
        self.ids = ids
        self.pbits = pbits
        self.dead: npt.NDArray[np.uint8] = (
            dead if dead is not None and dead.shape[0] else np.zeros(0, dtype=np.uint8)
        )
        self.n_dead = int(self.dead.sum()) if self.dead.shape[0] else 0
        self._id_sorted: I64 | None = None
        self._id_rows: I64 | None = None

    # --- construction ----------------------------------------------------------------------------
    @classmethod
    def build(cls, kern: Kernels, ids: I64, fps: U64) -> Segment:
        """Sort the fingerprints into the design's tables (on two threads for big segments: the
        sorts and the permutation run without the GIL)."""
        d = kern.design
        n = fps.shape[0]
        tables = np.empty((d.n_tables, n), dtype=np.uint64)
        pbits = choose_pbits(n, d)
        offsets = np.empty((d.n_tables, (1 << pbits) + 1), dtype=np.int64)
        ids0: list[I64] = []

        def table(t: int) -> None:
            if t == 0:
                f0, i0 = K.sort_with_ids(fps, ids, d.bits)
                tables[0] = f0
                ids0.append(i0)
            else:
                K.permute_into(fps, kern.src, kern.dst, kern.msk, t, tables[t])
                tables[t].sort()
            offsets[t] = K.prefix_offsets(tables[t], d.bits - pbits, 1 << pbits)

        workers = min(2, os.cpu_count() or 1) if n >= PARALLEL_BUILD else 1
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="neardup-index-build") as pool:
                list(pool.map(table, range(d.n_tables)))
        else:
            for t in range(d.n_tables):
                table(t)
        return cls(kern, tables, offsets, ids0[0], pbits)

    def to_arrays(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """The arrays and parameters a file stores (tombstoned rows are dropped by compaction first)."""
        return {"tables": self.tables, "offsets": self.offsets, "ids": self.ids}, {"pbits": self.pbits}

    @classmethod
    def from_arrays(cls, kern: Kernels, arrays: dict[str, Any], params: dict[str, Any]) -> Segment:
        tables, offsets, ids = arrays["tables"], arrays["offsets"], arrays["ids"]
        pbits = int(params["pbits"])
        d = kern.design
        if tables.shape != (d.n_tables, ids.shape[0]) or offsets.shape != (d.n_tables, (1 << pbits) + 1):
            raise ValueError(f"tables {tables.shape}, offsets {offsets.shape}, ids {ids.shape}")
        return cls(kern, tables, offsets, ids, pbits)

    # --- facts -----------------------------------------------------------------------------------
    def fps(self) -> U64:
        return np.asarray(self.tables[0], dtype=np.uint64)

    def nbytes(self) -> dict[str, int]:
        return {
            "tables": int(self.tables.nbytes),
            "offsets": int(self.offsets.nbytes),
            "ids": int(self.ids.nbytes),
            "tombstones": int(self.dead.nbytes),
        }

    # --- lookups ---------------------------------------------------------------------------------
    def query(self, qfps: U64, k: int) -> tuple[I64, I64, npt.NDArray[np.int64]]:
        """(query index, row, distance) for every live row within ``k`` of a query."""
        kern = self.kern
        d = kern.design
        args = (
            qfps,
            k,
            self.tables,
            self.offsets,
            kern.keybits,
            d.bits,
            self.pbits,
            kern.src,
            kern.dst,
            kern.msk,
            kern.bsrc,
            kern.bmask,
            kern.first,
            self.dead,
        )
        q, r, dist = grow_call(K.query_tables, args, (np.int64, np.int64, np.int64), 4 * qfps.shape[0])
        return q, r, dist

    def self_join(self, k: int) -> tuple[I64, I64, npt.NDArray[np.int64]]:
        """(row a, row b, distance) for every pair of live rows within ``k``, each pair once."""
        kern = self.kern
        d = kern.design
        args = (
            k,
            self.tables,
            kern.keybits,
            d.bits,
            self.pbits,
            self.offsets,
            kern.src,
            kern.dst,
            kern.msk,
            kern.bsrc,
            kern.bmask,
            kern.first,
            self.dead,
        )
        return grow_call(K.self_join_tables, args, (np.int64, np.int64, np.int64), self.n // 8)
