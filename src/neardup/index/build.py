"""Build of the residual tables: a radix pass on the directory bits, then small in-cache sorts.

One pass over the fingerprints counts, for every table of a group, how many permuted values fall
in each directory bucket (the counts are the tables' directories). Each table then scatters its
values to their buckets and sorts every bucket on its own (a few hundred values at 10M, in cache):

- a table ``t > 0`` stores only its 32-bit ``hi`` column, so it scatters that column straight into
  place and sorts each bucket as uint32 (the bits below ``hi`` are not stored, their order is moot);
- table 0 (the sorted fingerprints) scatters one uint64 per value, its residual bits above the
  value's position inside the bucket, and sorts those keys; the position then moves the ids
  (equal fingerprints keep their input order) and the residual gives ``hi`` and ``lo``.

A bucket is sorted by a counting pass on its leading ``log2(size)`` bits followed by an insertion
sort (random data leave about one value per sub-bucket, so it barely moves anything); skewed
buckets fall back to a comparison sort. Where the packing does not fit (a directory wider than
:data:`~neardup.index.kernels.RADIX_BITS`, or a table-0 bucket too big for its position bits),
the full-width sorts of :mod:`neardup.index.kernels` build the table.

These are the numba kernels; the C extension ``_index_c`` runs the same algorithm where it is
built (:mod:`neardup.index.kernels` chooses).

>>> import numpy as np
>>> from neardup.index.design import Design
>>> from neardup.index.segments import Kernels
>>> kern = Kernels(Design.parse("4x16", bits=64, max_distance=3))
>>> fps = np.array([9, 1 << 63 | 5, 9], dtype=np.uint64)
>>> hi = np.empty((4, 3), dtype=np.uint32); lo = np.empty(3, dtype=np.uint32)
>>> off = np.empty((4, 3), dtype=np.int32); ids = np.empty(3, dtype=np.int32)
>>> work = np.empty(3, dtype=np.uint64)
>>> build_tables(fps, np.array([7, 8, 6]), kern.perm, np.arange(4), (64, 1, 31), hi, lo, ids, off, work)
>>> ids.tolist(), lo.tolist(), off[0].tolist()
([7, 6, 8], [9, 9, 5], [0, 2, 3])
"""

# mypy: disable-error-code="call-arg,var-annotated,no-any-return,unused-ignore"
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.index import _kernels_nb as K
from neardup.index._kernels_nb import permute1
from neardup.index.residual import split_table

__all__ = ["build_tables"]

#: buckets up to this size are sorted by a counting pass + insertion sort, bigger ones by np.sort
_SMALL = 1 << 12


@njit(cache=True, nogil=True)
def _sort_bucket(v: Any, a: int, e: int, width: int, scratch: Any, cnt: Any) -> None:
    """Sort ``v[a:e]`` (values below ``2**width``) in place.

    A counting sort on the leading ``log2(e - a)`` bits puts each value into its sub-bucket (about
    one value each for random data), then an insertion sort orders each sub-bucket. If the
    insertion sort has to move too much (skewed data), numpy's sort finishes the job.
    """
    m = e - a
    if m > _SMALL:
        v[a:e].sort()
        return
    if m > 16:
        d = 1
        while (1 << d) < m:
            d += 1
        d = min(d, width)
        sh = np.uint64(width - d)
        nd = 1 << d
        cnt[: nd + 1] = 0
        for j in range(a, e):
            cnt[np.int64(np.uint64(v[j]) >> sh) + 1] += 1
        for s in range(nd):
            cnt[s + 1] += cnt[s]
        for j in range(a, e):
            s = np.int64(np.uint64(v[j]) >> sh)
            scratch[cnt[s]] = v[j]
            cnt[s] += 1
    else:
        for j in range(a, e):
            scratch[j - a] = v[j]
    moves = 0
    limit = 8 * m + 64
    for j in range(m):
        y = scratch[j]
        z = a + j
        if moves <= limit:
            while z > a and v[z - 1] > y:
                v[z] = v[z - 1]
                z -= 1
                moves += 1
        v[z] = y
    if moves > limit:
        v[a:e].sort()


@njit(cache=True, nogil=True)
def _histograms(fps: Any, perm: Any, ts: Any, rbits: int, off: Any) -> None:
    """``off[t]``: the directory of every table ``t`` in ``ts`` (one pass over ``fps``)."""
    src, dst, msk = perm
    rs = np.uint64(rbits)
    for t in ts:
        off[t, :] = 0
    for i in range(fps.shape[0]):
        x = fps[i]
        for t in ts:
            p = permute1(x, src, dst, msk, t) if t > 0 else x
            off[t, np.int64(p >> rs) + 1] += 1
    for t in ts:
        for b in range(off.shape[1] - 1):
            off[t, b + 1] += off[t, b]


@njit(cache=True, nogil=True)
def _table_hi(fps: Any, perm: Any, t: int, geo: Any, off_row: Any, hi_row: Any) -> None:
    """Table ``t > 0``: its ``hi`` column scattered to the buckets of ``off_row``, each sorted."""
    src, dst, msk = perm
    bits, pbits, lobits = geo
    rs = np.uint64(bits - pbits)
    ls = np.uint64(lobits)
    hibits = bits - pbits - lobits
    hmask = (np.uint64(1) << np.uint64(hibits)) - np.uint64(1)
    cur = off_row[:-1].copy()
    for i in range(fps.shape[0]):
        p = permute1(fps[i], src, dst, msk, t)
        b = np.int64(p >> rs)
        hi_row[cur[b]] = np.uint32((p >> ls) & hmask)
        cur[b] += 1
    scratch = np.empty(_SMALL, dtype=hi_row.dtype)
    cnt = np.empty(_SMALL + 1, dtype=np.int64)
    for b in range(off_row.shape[0] - 1):
        _sort_bucket(hi_row, np.int64(off_row[b]), np.int64(off_row[b + 1]), hibits, scratch, cnt)


@njit(cache=True, nogil=True)
def _table0(
    fps: Any, ids: Any, geo: Any, off_row: Any, hi_row: Any, lo: Any, ids_out: Any, keys: Any
) -> None:
    """Table 0: ``keys`` (residual bits, then the position inside the bucket) scattered and
    sorted; the positions move the ids, the residuals give ``hi`` and ``lo``."""
    bits, pbits, lobits = geo
    rbits = bits - pbits
    rs = np.uint64(rbits)
    ps = np.uint64(64 - rbits)
    pmask = (np.uint64(1) << ps) - np.uint64(1)
    rmask = (np.uint64(1) << rs) - np.uint64(1)
    lmask = (np.uint64(1) << np.uint64(lobits)) - np.uint64(1)
    hmask = (np.uint64(1) << np.uint64(rbits - lobits)) - np.uint64(1)
    cur = off_row[:-1].copy()
    for i in range(fps.shape[0]):
        x = fps[i]
        b = np.int64(x >> rs)
        j = np.int64(cur[b])
        keys[j] = ((x & rmask) << ps) | np.uint64(j - np.int64(off_row[b]))
        ids_out[j] = ids[i]
        cur[b] += 1
    scratch = np.empty(_SMALL, dtype=np.uint64)
    cnt = np.empty(_SMALL + 1, dtype=np.int64)
    moved = np.empty(_SMALL, dtype=ids_out.dtype)
    has_lo = lo.shape[0] > 0
    for b in range(off_row.shape[0] - 1):
        a = np.int64(off_row[b])
        e = np.int64(off_row[b + 1])
        _sort_bucket(keys, a, e, 64, scratch, cnt)
        big = e - a > _SMALL
        sub = ids_out[a:e].copy() if big else moved
        if not big:
            for j in range(a, e):
                moved[j - a] = ids_out[j]
        for j in range(a, e):
            k = keys[j]
            ids_out[j] = sub[np.int64(k & pmask)]
            r = k >> ps
            hi_row[j] = np.uint32((r >> np.uint64(lobits)) & hmask)
            if has_lo:
                lo[j] = r & lmask


@njit(cache=True, nogil=True)
def _wide(
    fps: Any, ids: Any, perm: Any, t: int, geo: Any, hi: Any, lo: Any, ids_out: Any, off: Any, v: Any
) -> None:
    """Table ``t`` through the full-width sorts (any directory width, any bucket size), in ``v``."""
    bits, pbits, lobits = geo
    sbits = min(pbits, K.RADIX_BITS)
    if t == 0:
        i0 = np.empty(fps.shape[0], dtype=np.int64)
        K.sorted_with_ids(fps, ids, sbits, bits, v, i0)
        for j in range(i0.shape[0]):
            ids_out[j] = i0[j]
        split_table(v, lobits, bits - pbits, hi[0], lo, off[0])
    else:
        K.permute_sorted(fps, perm, t, sbits, bits, v)
        split_table(v, lobits, bits - pbits, hi[t], lo[:0], off[t])


@njit(cache=True, nogil=True)
def build_tables(
    fps: Any, ids: Any, perm: Any, ts: Any, geo: Any, hi: Any, lo: Any, ids_out: Any, off: Any, work: Any
) -> None:
    """Fill the tables ``ts`` of a segment: ``hi[t]`` and ``off[t]``, and for table 0 also ``lo``
    and ``ids_out`` (the ids in row order). ``geo`` is (bits, pbits, lobits); ``work`` is uint64
    scratch as long as ``fps`` (allocated by numpy, which asks the kernel for huge pages: a
    build that faults 4 KiB pages in spends much of its time in the kernel)."""
    bits, pbits, _ = geo
    if pbits > K.RADIX_BITS:
        for t in ts:
            _wide(fps, ids, perm, t, geo, hi, lo, ids_out, off, work)
        return
    _histograms(fps, perm, ts, bits - pbits, off)
    for t in ts:
        if t > 0:
            _table_hi(fps, perm, t, geo, off[t], hi[t])
            continue
        most = 0
        for b in range(off.shape[1] - 1):
            most = max(most, np.int64(off[0, b + 1] - off[0, b]))
        if bits - pbits < 64 and most <= (1 << (64 - bits + pbits)):
            _table0(fps, ids, geo, off[0], hi[0], lo, ids_out, work)
        else:
            _wide(fps, ids, perm, 0, geo, hi, lo, ids_out, off, work)
