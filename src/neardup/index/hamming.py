"""HammingIndex: every fingerprint within k bits of a query, exactly, from permuted sorted tables.

>>> import numpy as np
>>> idx = HammingIndex(bits=64, max_distance=3)
>>> idx.add_many(np.array([1, 2, 3]), np.array([0b0000, 0b0111, 0b1111], dtype=np.uint64))
>>> idx.query(0b0001)
[(1, 1), (2, 2), (3, 3)]
>>> [a.tolist() for a in idx.pairs()]
[[1, 2], [2, 3], [3, 1]]

Storage is log-structured: immutable sorted segments plus a small unsorted buffer. ``add_many``
of a large batch becomes a segment at once; small adds collect in the buffer (searched by brute
force) until it holds ``buffer_size`` fingerprints. Neighbouring segments are merged when they
grow comparable (so there are O(log N) of them) and all are merged by ``compact()``. ``remove``
leaves a tombstone that queries honour and merges drop.
"""

from __future__ import annotations

import math
import os
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from neardup.exceptions import ConfigError, InputError
from neardup.index import kernels as K
from neardup.index.design import Design, auto_design, design_for_tables
from neardup.index.segments import Kernels, Segment, grow_call, wide_self_join

__all__ = ["HammingIndex", "as_fingerprints", "join", "self_join"]

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


_I64_MIN = -(1 << 63)
_U64_MAX = (1 << 64) - 1


def as_fingerprints(fps: Any, bits: int = 64) -> U64:
    """Fingerprints as a contiguous 1-D uint64 array (int64 input is reinterpreted, two's complement).

    InputError for anything else: floats, booleans, strings, an array of more than one dimension,
    integers outside -2**63 .. 2**64 - 1, negative values of a narrower signed type.
    """
    if isinstance(fps, (int, np.integer)) and not isinstance(fps, bool):
        fps = [int(fps)]
    try:
        arr = np.asarray(fps)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"fingerprints must be a 1-D sequence of integers: {exc}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    elif arr.ndim != 1:
        raise InputError(f"fingerprints must be a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint64)
    kind = arr.dtype.kind
    if kind == "f" and not isinstance(fps, np.ndarray):
        # Python ints numpy could only hold as floats (e.g. -1 with 2**63): read them exactly
        arr, kind = np.asarray(fps, dtype=object).reshape(-1), "O"
    if kind == "O":
        arr = _python_fingerprints(arr.tolist())
    elif kind not in "iu":
        raise InputError(f"fingerprints must be integers (uint64, or int64 reinterpreted), got {arr.dtype}")
    elif arr.dtype == np.int64:
        arr = arr.view(np.uint64)
    elif arr.dtype != np.uint64:
        if kind == "i" and int(arr.min()) < 0:
            raise InputError(f"fingerprints must be non-negative or int64, got negative {arr.dtype} values")
        arr = arr.astype(np.uint64)
    arr = np.ascontiguousarray(arr)
    if bits == 32 and int(arr.max()) >= 1 << 32:
        raise InputError(
            f"fingerprints of a bits=32 index must be < 2**32, got {int(arr.max()):#x}: "
            "use bits=64 or mask the values"
        )
    return arr


def _python_fingerprints(values: list[Any]) -> U64:
    """Python (or numpy) integers as uint64, negative int64 values reinterpreted."""
    out = np.empty(len(values), dtype=np.uint64)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InputError(f"fingerprints must be integers; item {i} is {type(v).__name__}")
        if not _I64_MIN <= v <= _U64_MAX:
            raise InputError(
                "fingerprints must be uint64 (0 .. 2**64 - 1) or int64 (negative ones are reinterpreted); "
                f"item {i} is {v}"
            )
        out[i] = int(v) & _U64_MAX
    return out


def _as_ids(ids: Any, n: int) -> I64:
    arr = np.atleast_1d(np.asarray(ids))
    if arr.ndim != 1:
        raise InputError(f"ids must be a 1-D array, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise InputError(f"ids and fingerprints must have the same length, got {arr.shape[0]} ids and {n}")
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise InputError(f"ids must be integers (int64 document numbers), got {arr.dtype}")
    if arr.dtype == np.uint64 and int(arr.max()) > np.iinfo(np.int64).max:
        raise InputError(f"ids must fit in int64, got {int(arr.max())}")
    return np.ascontiguousarray(arr.astype(np.int64, copy=False))


class HammingIndex:
    """Exact Hamming-distance index over 32- or 64-bit fingerprints.

    Args:
        bits: 32 or 64.
        max_distance: k; every fingerprint within k bits is found (distance k included).
        design: ``"auto"``, ``"4x16"``, ``"16,12,12,12,12"`` or block widths; ``"auto"`` picks
            from ``expected_size`` (or the first batch added): 4 tables up to ~16M fingerprints,
            10 tables beyond (for k=3, 64 bits).
        metadata: JSON-able dict stored in the file header (e.g. ``{"simhash": cfg.to_dict()}``).
        expected_size: size hint for ``design="auto"``.
        buffer_size: fingerprints kept unsorted before they become a segment.

    >>> HammingIndex(design="4x16").design.n_tables
    4
    """

    def __init__(
        self,
        bits: int = 64,
        max_distance: int = 3,
        design: str | list[int] | tuple[int, ...] | Design = "auto",
        metadata: dict[str, Any] | None = None,
        *,
        expected_size: int | None = None,
        buffer_size: int = 2048,
    ) -> None:
        if metadata is not None and not isinstance(metadata, dict):
            raise ConfigError(f"metadata must be a dict or None, got {type(metadata).__name__}")
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
            raise ConfigError(f"buffer_size must be a positive integer, got {buffer_size!r}")
        if expected_size is not None and (not isinstance(expected_size, int) or expected_size < 0):
            raise ConfigError(f"expected_size must be a non-negative integer or None, got {expected_size!r}")
        self._auto = isinstance(design, str) and design == "auto" and expected_size is None
        if isinstance(design, Design):
            if design.bits != bits or design.max_distance != max_distance:
                raise ConfigError(
                    f"design is for bits={design.bits}, max_distance={design.max_distance}; "
                    f"got bits={bits}, max_distance={max_distance}"
                )
            d = design
        elif isinstance(design, str) and design == "auto":
            d = auto_design(bits, max_distance, expected_size or 1)
        else:
            d = Design.parse(design, bits=bits, max_distance=max_distance)
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.buffer_size = buffer_size
        self._set_design(d)
        self._segments: list[Any] = []
        self._buf_ids: I64 = np.zeros(0, dtype=np.int64)
        self._buf_fps: U64 = np.zeros(0, dtype=np.uint64)
        self.path: str | None = None
        self._mmap: Any = None  # the mapped file of an opened index, kept alive with it

    def __getstate__(self) -> dict[str, Any]:
        # a memory-mapped index pickles its arrays by value (e.g. to ship it to Spark executors)
        state = self.__dict__.copy()
        state["_mmap"] = None
        return state

    def _set_design(self, d: Design) -> None:
        self.design = d
        self._kern = Kernels(d)

    # --- facts -----------------------------------------------------------------------------------
    @property
    def bits(self) -> int:
        return self.design.bits

    @property
    def max_distance(self) -> int:
        return self.design.max_distance

    def __len__(self) -> int:
        return int(sum(s.live for s in self._segments)) + int(self._buf_ids.shape[0])

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, (int, np.integer)):
            return False
        ids = np.array([int(doc_id)], dtype=np.int64)
        if (self._buf_ids == ids[0]).any():
            return True
        return any(s.rows_of(ids).shape[0] for s in self._segments)

    def __repr__(self) -> str:
        return (
            f"HammingIndex(bits={self.bits}, max_distance={self.max_distance}, "
            f"design={self.design.spec!r}, tables={self.design.n_tables}, size={len(self)}, "
            f"segments={len(self._segments)}, buffered={self._buf_ids.shape[0]})"
        )

    def nbytes(self) -> dict[str, int]:
        """Bytes held per part (tables, offsets, ids, tombstones, buffer); memory-mapped bytes included."""
        out = {"tables": 0, "offsets": 0, "ids": 0, "tombstones": 0}
        for s in self._segments:
            for key, v in s.nbytes().items():
                out[key] = out.get(key, 0) + v
        out["buffer"] = int(self._buf_ids.nbytes + self._buf_fps.nbytes)
        return out

    # --- writes ----------------------------------------------------------------------------------
    def add(self, doc_id: int, fp: int) -> None:
        """Add one fingerprint under ``doc_id`` (an int64 document number)."""
        self.add_many([doc_id], [fp])

    def add_many(self, ids: Any, fps: Any) -> None:
        """Add fingerprints (a 1-D uint64 array, or int64 reinterpreted) under int64 ids; ids should
        be unique. Nothing to add is a no-op."""
        f = as_fingerprints(fps, self.bits)
        i = _as_ids(ids, f.shape[0])
        if f.shape[0] == 0:
            return
        if self._auto and len(self) == 0 and not self._segments:
            self._set_design(auto_design(self.bits, self.max_distance, f.shape[0]))
        self._auto = False
        if f.shape[0] >= self.buffer_size:
            self._flush()
            self._segments.append(Segment.build(self._kern, i, f))
            self._merge_tail()
            return
        self._buf_ids = np.concatenate([self._buf_ids, i])
        self._buf_fps = np.concatenate([self._buf_fps, f])
        if self._buf_ids.shape[0] >= self.buffer_size:
            self._flush()
            self._merge_tail()

    def remove(self, doc_id: int) -> bool:
        """Delete ``doc_id`` (a tombstone until the next merge). True if it was present."""
        return self.remove_many(np.array([doc_id], dtype=np.int64)) > 0

    def remove_many(self, ids: Any) -> int:
        """Delete every id given; returns how many fingerprints were deleted."""
        arr = np.unique(np.atleast_1d(np.asarray(ids, dtype=np.int64)))
        removed = 0
        if self._buf_ids.shape[0]:
            gone = np.isin(self._buf_ids, arr)
            if gone.any():
                removed += int(gone.sum())
                self._buf_ids = self._buf_ids[~gone]
                self._buf_fps = self._buf_fps[~gone]
        for s in self._segments:
            removed += s.kill(s.rows_of(arr))
        return removed

    def _flush(self) -> None:
        if self._buf_ids.shape[0]:
            self._segments.append(Segment.build(self._kern, self._buf_ids, self._buf_fps))
            self._buf_ids = np.zeros(0, dtype=np.int64)
            self._buf_fps = np.zeros(0, dtype=np.uint64)

    def _merge_tail(self) -> None:
        segs = self._segments
        while len(segs) >= 2 and 2 * segs[-1].live >= segs[-2].live:
            b = segs.pop()
            a = segs.pop()
            merged = self._merge([a, b])
            if merged.n:
                segs.append(merged)

    def _merge(self, segs: list[Segment]) -> Segment:
        ids, fps = [], []
        for s in segs:
            rows = s.alive_rows()
            ids.append(np.asarray(s.ids) if rows is None else np.asarray(s.ids)[rows])
            fps.append(np.asarray(s.fps()) if rows is None else np.asarray(s.fps())[rows])
        return Segment.build(self._kern, np.concatenate(ids), np.concatenate(fps))

    def compact(self) -> None:
        """Merge the buffer and all segments into one segment, dropping tombstones."""
        self._flush()
        if len(self._segments) > 1 or (self._segments and self._segments[0].n_dead):
            merged = self._merge(self._segments)
            self._segments = [merged] if merged.n else []

    # --- reads -----------------------------------------------------------------------------------
    def _k(self, max_distance: int | None) -> int:
        if max_distance is None:
            return self.max_distance
        if isinstance(max_distance, bool) or not isinstance(max_distance, (int, np.integer)):
            raise ConfigError(f"max_distance must be an integer, got {max_distance!r}")
        if not 0 <= max_distance <= self.max_distance:
            raise ConfigError(
                f"max_distance must be between 0 and the index's max_distance ({self.max_distance}) "
                f"to stay exact, got {max_distance}: build the index with a larger max_distance"
            )
        return int(max_distance)

    def query(self, fp: int, max_distance: int | None = None) -> list[tuple[int, int]]:
        """Every (id, distance) within ``max_distance`` of ``fp``, nearest first (then by id)."""
        k = self._k(max_distance)
        if type(fp) is int and 0 <= fp < (1 << self.bits):
            q = np.array([fp], dtype=np.uint64)
        else:
            q = as_fingerprints([fp], self.bits)
        # the few matches of one query are ordered here, as query_many orders them (stable sort
        # by distance, then id)
        hits: list[tuple[int, int]] = []
        for s in self._segments:
            _, rows, d = s.query(q, k)
            if rows.shape[0]:
                hits.extend(zip(d.tolist(), np.asarray(s.ids)[rows].tolist(), strict=True))
        if self._buf_ids.shape[0]:
            _, rows, d = grow_call(K.query_brute, (q, k, self._buf_fps), (np.int64,) * 3, 1)
            if rows.shape[0]:
                hits.extend(zip(d.tolist(), self._buf_ids[rows].tolist(), strict=True))
        hits.sort()
        return [(i, d) for d, i in hits]

    def query_many(self, fps: Any, max_distance: int | None = None) -> tuple[I64, I64, I64]:
        """For a batch of fingerprints: (query index, id, distance) arrays, every match within k.

        Sorted by query index, then distance, then id.
        """
        k = self._k(max_distance)
        q = as_fingerprints(fps, self.bits)
        parts_q: list[I64] = []
        parts_i: list[I64] = []
        parts_d: list[I64] = []
        for s in self._segments:
            qi, rows, d = s.query(q, k)
            parts_q.append(qi)
            parts_i.append(np.asarray(s.ids)[rows].astype(np.int64, copy=False))
            parts_d.append(d)
        if self._buf_ids.shape[0]:
            qi, rows, d = grow_call(K.query_brute, (q, k, self._buf_fps), (np.int64,) * 3, q.shape[0])
            parts_q.append(qi)
            parts_i.append(self._buf_ids[rows])
            parts_d.append(d)
        if not parts_q:
            z = np.zeros(0, dtype=np.int64)
            return z, z.copy(), z.copy()
        qa, ia, da = (np.concatenate(p) if len(p) > 1 else p[0] for p in (parts_q, parts_i, parts_d))
        order = K.order_matches(qa, da, ia, q.shape[0])
        return qa[order], ia[order], da[order]

    def pairs(self, max_distance: int | None = None) -> tuple[I64, I64, I64]:
        """Every pair of ids within ``max_distance`` (identical fingerprints included), each once.

        Returns (ids_a, ids_b, distances) with ids_a < ids_b, sorted. Merges segments first.
        """
        k = self._k(max_distance)
        self._flush()
        if len(self._segments) > 1:
            self.compact()
        if not self._segments:
            z = np.zeros(0, dtype=np.int64)
            return z, z.copy(), z.copy()
        ra, rb, d, ids = self._self_join(self._segments[0], k)
        a, b = ids[ra], ids[rb]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        order = np.lexsort((hi, lo))
        return lo[order], hi[order], d[order]

    def join_design(self, n: int) -> Design:
        """The design a self-join of ``n`` fingerprints uses: the index's own or a finer one.

        A self-join compares all fingerprints sharing a key: about ``N / 2**key_bits`` per
        fingerprint per table. With 16-bit keys at 10M that is ~150, so beyond a few million it
        pays to build more tables with longer keys (temporarily) than to compare.
        """
        best = pairs_design(self.bits, self.max_distance, n)
        if _join_cost(best, n) < _join_cost(self.design, n):
            return best
        return self.design

    def _self_join(self, s: Any, k: int) -> tuple[I64, I64, I64, I64]:
        """Rows a, rows b, distances and the ids the rows index, over the live rows of ``s``."""
        ids = np.asarray(s.ids).astype(np.int64)
        d = self.join_design(s.live)
        if d == self.design:
            ra, rb, dist = s.self_join(k)
            return ra, rb, dist, ids
        rows = s.alive_rows()
        fps = s.fps() if rows is None else s.fps()[rows]
        live_ids = ids if rows is None else ids[rows]
        ra, rb, dist = wide_self_join(Kernels(d), fps, np.zeros(0, dtype=np.uint8), k)
        return ra, rb, dist, live_ids

    def clusters(
        self, method: Literal["components", "star"] = "components", max_distance: int | None = None
    ) -> dict[int, int]:
        """Map every id to its cluster: ``"components"`` (label = smallest id; can chain far) or
        ``"star"`` (label = the centre id; members are within k of their centre)."""
        from neardup.index.clusters import cluster_labels

        ids_a, ids_b, _ = self.pairs(max_distance)
        all_ids = self.ids()
        labels = cluster_labels(all_ids, ids_a, ids_b, method=method)
        return dict(zip(all_ids.tolist(), labels.tolist(), strict=False))

    def ids(self) -> I64:
        """All live ids (unsorted)."""
        parts = [self._buf_ids]
        for s in self._segments:
            rows = s.alive_rows()
            parts.append(np.asarray(s.ids) if rows is None else np.asarray(s.ids)[rows])
        return np.concatenate(parts)

    def fingerprints(self) -> tuple[I64, U64]:
        """All live (ids, fingerprints)."""
        ids, fps = [self._buf_ids], [self._buf_fps]
        for s in self._segments:
            rows = s.alive_rows()
            ids.append(np.asarray(s.ids) if rows is None else np.asarray(s.ids)[rows])
            fps.append(np.asarray(s.fps()) if rows is None else np.asarray(s.fps())[rows])
        return np.concatenate(ids), np.concatenate(fps)

    # --- files -----------------------------------------------------------------------------------
    def save(
        self,
        path: str | os.PathLike[str],
        *,
        compress: bool = False,
        block_size: int = 128,
        codec: str = "gap",
    ) -> None:
        """Write the index to one file atomically (compacting first); see docs/index.md for the format.

        ``compress=True`` stores the tables Huffman-compressed (seed 004): about 5-5.5 bytes per
        fingerprint per table (the plain residual layout keeps 4, and 6 for table 0); an index
        opened from it queries the compressed tables, sequentially decoded and several times slower.
        ``codec="xor"`` codes each entry exactly as seed 004 (highest bit differing from the
        previous entry); ``"gap"`` (default) codes the highest bit of the difference instead,
        ~1.8 bits per entry smaller. ``block_size`` entries share one block-index entry.
        """
        from neardup.index.store import save_index

        if isinstance(block_size, bool) or not isinstance(block_size, int) or not 2 <= block_size <= 4096:
            raise ConfigError(f"block_size must be an integer between 2 and 4096, got {block_size!r}")
        self.compact()
        if codec not in ("gap", "xor"):
            raise ConfigError(f"codec must be 'gap' or 'xor', got {codec!r}")
        save_index(self, path, compress=compress, block_size=block_size, codec=codec)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, verify: bool = True) -> HammingIndex:
        """Open a saved index, memory-mapped (read-only pages; writes go to new segments)."""
        from neardup.index.store import open_index

        return open_index(path, verify=verify)


# Relative costs per fingerprint per table, measured on the benchmark machine: building a table
# (permute + sort) ~25 units, one comparison inside a key group ~3.5 units.
_BUILD_COST = 25.0
_CMP_COST = 3.5


def _join_cost(d: Design, n: int) -> float:
    group = float(max(n, 1)) / float(2 ** min(d.key_bits))
    return float(d.n_tables) * (_BUILD_COST + _CMP_COST * group / 2)


def pairs_design(bits: int, max_distance: int, n: int) -> Design:
    """The design with the cheapest self-join (build plus comparisons) for ``n`` fingerprints."""
    k = max_distance
    if k == 0:
        return auto_design(bits, 0, n)
    best: Design | None = None
    for extra in (1, 2, 3):
        tables = math.comb(k + extra, extra)
        if tables > 64 or k + extra > bits // 2:
            break
        d = design_for_tables(tables, bits=bits, max_distance=k)
        if best is None or _join_cost(d, n) < _join_cost(best, n):
            best = d
    if best is None:
        best = auto_design(bits, k, n)
    return best


def self_join(
    fps: Any, max_distance: int = 3, design: str | list[int] = "auto", *, bits: int | None = None
) -> tuple[I64, I64, I64]:
    """All pairs of array positions (i < j) whose fingerprints are within ``max_distance``.

    >>> i, j, d = self_join(np.array([0, 1, 0xFF << 40], dtype=np.uint64), 3)
    >>> i.tolist(), j.tolist(), d.tolist()
    ([0], [1], [1])
    """
    bits = 64 if bits is None else bits
    f = as_fingerprints(fps, bits)
    chosen: Design | str | list[int] = design
    if isinstance(design, str) and design == "auto":
        chosen = pairs_design(bits, max_distance, f.shape[0])
    idx = HammingIndex(bits=bits, max_distance=max_distance, design=chosen, buffer_size=1)
    idx.add_many(np.arange(f.shape[0], dtype=np.int64), f)
    return idx.pairs()


def join(
    query_fps: Any,
    index_or_fps: HammingIndex | Any,
    max_distance: int | None = None,
    *,
    design: str | list[int] = "auto",
) -> tuple[I64, I64, I64]:
    """Batch-against-corpus: (query position, corpus id or position, distance) for every match.

    ``index_or_fps`` is a HammingIndex (ids are its ids) or an array of fingerprints (ids are
    positions; an index is built on the fly with ``max_distance`` defaulting to 3).
    """
    if isinstance(index_or_fps, HammingIndex):
        return index_or_fps.query_many(query_fps, max_distance)
    f = as_fingerprints(index_or_fps)
    k = 3 if max_distance is None else max_distance
    idx = HammingIndex(64, k, design, expected_size=max(f.shape[0], 1), buffer_size=1)
    idx.add_many(np.arange(f.shape[0], dtype=np.int64), f)
    return idx.query_many(query_fps)
