"""Residual tables: each sorted table keeps only the bits its position does not already give.

A table sorted by its permuted fingerprints is cut by a directory on the leading ``pbits`` bits
(``offsets[t, b]`` .. ``offsets[t, b + 1]`` is the run whose leading bits equal ``b``), so those
bits need not be stored (Manku, Jain and Das Sarma, 2007). Of the ``bits - pbits`` residual bits,
every table stores the next 32 (the ``hi`` column, uint32); only table 0 (the identity
permutation, i.e. the sorted fingerprints) also stores the rest (the ``lo`` column). For 64-bit
fingerprints, 4 tables of 16-bit keys and 10M entries that is 6 + 3 * 4 = 18 bytes per
fingerprint instead of 32.

A query scans its run of ``hi`` in each table: an entry whose 32 known residual bits differ from
the query's in more than k places is skipped (for random data, all but about one in a million).
A surviving entry of table ``t > 0`` knows ``pbits + 32`` bits of its fingerprint; the rows of
table 0 that agree with them (found through table 0's directory and ``hi`` column) give the full
fingerprint, its distance and its row. A pair is reported only by the first table whose key
blocks agree, as in :mod:`neardup.index._kernels_nb`.

These are the numba kernels; the C extension ``_index_c`` runs the same algorithm where it is
built (:mod:`neardup.index.kernels` chooses).

>>> import numpy as np
>>> v = np.array([3 << 60, 5 << 60 | 7], dtype=np.uint64)
>>> hi = np.empty((1, 2), dtype=np.uint32); lo = np.empty(2, dtype=np.uint32)
>>> off = np.empty((1, 17), dtype=np.int64)
>>> split_table(v, 28, 60, hi[0], lo, off[0])
>>> bool((join_table0(hi, lo, off, 28, 60) == v).all())
True
"""

# mypy: disable-error-code="call-arg,var-annotated,no-any-return,unused-ignore"
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.index._kernels_nb import emit, equal_blocks, permute1, popcount64, prefetch2, within16

__all__ = ["join_table0", "query_residual", "split_table"]


@njit(cache=True, nogil=True)
def split_table(v: Any, lobits: int, rbits: int, hi_row: Any, lo_out: Any, off_row: Any) -> None:
    """Cut sorted values into the directory (bits above ``rbits``), ``hi`` and (if given) ``lo``."""
    nb = off_row.shape[0] - 1
    for b in range(nb + 1):
        off_row[b] = 0
    rs = np.uint64(rbits)
    ls = np.uint64(lobits)
    one = np.uint64(1)
    hmask = (one << np.uint64(rbits - lobits)) - one
    lmask = (one << ls) - one
    has_lo = lo_out.shape[0] > 0
    for i in range(v.shape[0]):
        x = v[i]
        off_row[np.int64(x >> rs) + 1] += 1
        hi_row[i] = (x >> ls) & hmask
        if has_lo:
            lo_out[i] = x & lmask
    for b in range(nb):
        off_row[b + 1] += off_row[b]


@njit(cache=True)
def join_table0(hi: Any, lo: Any, off: Any, lobits: int, rbits: int) -> Any:
    """The full values of table 0 (the sorted fingerprints) from its directory and columns."""
    n = hi.shape[1]
    out = np.empty(n, dtype=np.uint64)
    rs = np.uint64(rbits)
    ls = np.uint64(lobits)
    has_lo = lo.shape[0] > 0
    for b in range(off.shape[1] - 1):
        base = np.uint64(b) << rs
        for r in range(np.int64(off[0, b]), np.int64(off[0, b + 1])):
            v = base | (np.uint64(hi[0, r]) << ls)
            if has_lo:
                v |= np.uint64(lo[r])
            out[r] = v
    return out


@njit(cache=True, inline="always")
def _bounds(hi: Any, t: int, a: int, e: int, s: Any, key: Any) -> Any:
    """Rows [lo, end) of ``a..e`` whose ``hi[t, r] >> s`` equals ``key`` (sorted inside a run)."""
    lo_ = a
    end = e
    while lo_ < end:
        mid = (lo_ + end) >> 1
        if (np.uint64(hi[t, mid]) >> s) < key:
            lo_ = mid + 1
        else:
            end = mid
    start = lo_
    end = e
    while lo_ < end:
        mid = (lo_ + end) >> 1
        if (np.uint64(hi[t, mid]) >> s) <= key:
            lo_ = mid + 1
        else:
            end = mid
    return start, lo_


@njit(cache=True, inline="always")
def _run(hi: Any, off: Any, t: int, x: Any, lead: int, bits: int, pbits: int, lobits: int) -> Any:
    """Rows of table ``t`` whose leading ``lead`` bits equal those of ``x``: (start, end, bucket)."""
    rbits = bits - pbits
    hibits = rbits - lobits
    if lead >= pbits:
        b = np.int64(x >> np.uint64(rbits))
        a = np.int64(off[t, b])
        e = np.int64(off[t, b + 1])
        extra = min(lead - pbits, hibits)
        if extra > 0 and a < e:
            s = np.uint64(hibits - extra)
            hmask = (np.uint64(1) << np.uint64(hibits)) - np.uint64(1)
            a, e = _bounds(hi, t, a, e, s, ((x >> np.uint64(lobits)) & hmask) >> s)
        return a, e, b
    b = np.int64(0)
    if lead > 0:
        b = np.int64(x >> np.uint64(bits - lead)) << (pbits - lead)
    return np.int64(off[t, b]), np.int64(off[t, b + (1 << (pbits - lead))]), b


@njit(cache=True, inline="always")
def _order_by_bucket(P: Any, rs: Any, cnt: Any, order: Any) -> None:
    """``order``: query numbers by directory bucket of ``P`` (a counting sort, stable)."""
    cnt[:] = 0
    for qi in range(P.shape[0]):
        cnt[np.int64(P[qi] >> rs) + 1] += 1
    for b in range(cnt.shape[0] - 1):
        cnt[b + 1] += cnt[b]
    for qi in range(P.shape[0]):
        b = np.int64(P[qi] >> rs)
        order[cnt[b]] = qi
        cnt[b] += 1


@njit(cache=True)
def query_residual(
    qfps: Any,
    k: int,
    tables: Any,
    keybits: Any,
    geo: Any,
    known: Any,
    perm: Any,
    blocks: Any,
    dead: Any,
    outs: Any,
) -> int:
    """Every (query, row of table 0, distance) with distance <= k, each pair once, unordered.

    ``tables`` is (hi, lo, offsets), ``geo`` (bits, pbits, lobits), ``perm`` (src, dst, msk)
    and ``blocks`` (bsrc, bmask, first) as :class:`neardup.index.segments.Kernels` holds them;
    ``known`` is (kmask, klead, kblocks): ``kmask[t]`` marks (in fingerprint order) the bits an entry of table ``t`` knows,
    ``klead[t]`` how many leading fingerprint bits are among them and ``kblocks[t]`` the blocks
    it knows whole (bit mask). One table at a time: a large batch visits it in directory order
    (queries counting-sorted by bucket), so the runs it scans come in address order and the
    table streams from memory instead of being read at random. A run is skipped 16 entries at a
    time (one vector compare) while none of them is within k on its known bits.
    """
    hi, _, off = tables
    bits, pbits, lobits = geo
    src, dst, msk = perm
    T = hi.shape[0]
    nq = qfps.shape[0]
    n = 0
    rs = np.uint64(bits - pbits)
    P = np.empty(nq, dtype=np.uint64)
    SP = np.empty(nq, dtype=np.uint64)
    SQ = np.empty(nq, dtype=np.uint64)
    order = np.arange(nq)
    sweep = nq * 8 >= off.shape[1]
    cnt = np.empty(off.shape[1] if sweep else 0, dtype=np.int64)
    cap = max(nq, 1 << 16)
    cand_qt = np.empty((cap, 2), dtype=np.int64)
    cand_k = np.empty(cap, dtype=np.uint64)
    nc = 0
    for t in range(T):
        for qi in range(nq):
            P[qi] = permute1(qfps[qi], src, dst, msk, t) if t > 0 else qfps[qi]
        if sweep:
            _order_by_bucket(P, rs, cnt, order)
        # the queries gathered in visiting order: the scan then reads them sequentially
        for j in range(nq):
            SP[j] = P[order[j]]
            SQ[j] = qfps[order[j]]
        for j in range(nq):
            if j + 8 < nq:
                prefetch2(hi, t, np.int64(off[t, np.int64(SP[j + 8] >> rs)]))
            qi = order[j]
            a, e, _ = _run(hi, off, t, SP[j], keybits[t], bits, pbits, lobits)
            if nc + (e - a) > cand_k.shape[0]:
                n = _resolve_all(qfps, cand_qt, cand_k, nc, k, tables, geo, known, blocks, dead, outs, n)
                nc = 0
            scan = (qi, t, a, e, k)
            n, nc = _scan(
                scan, SQ[j], SP[j], tables, geo, known[2], perm, blocks, dead, outs, n, cand_qt, cand_k, nc
            )
    return _resolve_all(qfps, cand_qt, cand_k, nc, k, tables, geo, known, blocks, dead, outs, n)


@njit(cache=True, inline="always")
def _scan(
    scan: Any,
    q: Any,
    P: Any,
    tables: Any,
    geo: Any,
    kblocks: Any,
    perm: Any,
    blocks: Any,
    dead: Any,
    outs: Any,
    n: int,
    cand_qt: Any,
    cand_k: Any,
    nc: int,
) -> Any:
    """Scan rows ``i..e`` of table ``t`` (``scan`` = (query number, t, i, e, k)) for query ``q``
    (permuted: ``P``).

    Entries of table 0 are reported at once; an entry of another table that may be a match is
    queued as a candidate (query, table, known bits) for :func:`_resolve_all`. Returns the new
    counts of results and candidates.
    """
    qi, t, i, e, k = scan
    hi, lo, _ = tables
    bits, pbits, lobits = geo
    src, dst, msk = perm
    bsrc, bmask, first = blocks
    has_dead = dead.shape[0] > 0
    has_lo = lo.shape[0] > 0
    rs = np.uint64(bits - pbits)
    ls = np.uint64(lobits)
    hmask = (np.uint64(1) << np.uint64(bits - pbits - lobits)) - np.uint64(1)
    kk = np.uint64(k)
    Ph = (P >> ls) & hmask
    ph = np.uint32(Ph)
    k32 = np.uint32(k)
    base = (P >> rs) << rs
    row = hi[t]
    while i < e:
        # 16 entries per step; the mask's lowest bit is the next entry within k on its known bits
        if i + 16 <= row.shape[0]:
            m = np.uint64(within16(row, i, ph, k32))
            if e - i < 16:
                m &= (np.uint64(1) << np.uint64(e - i)) - np.uint64(1)
            if m == 0:
                i += 16
                continue
            i += np.int64(popcount64((m & (~m + np.uint64(1))) - np.uint64(1)))
        elif popcount64(np.uint64(row[i]) ^ Ph) > kk:
            i += 1
            continue
        h = np.uint64(row[i])
        if t == 0:
            v = base | (h << ls)
            if has_lo:
                v |= np.uint64(lo[i])
            d = popcount64(v ^ q)
            ok = d <= kk and first[equal_blocks(v ^ q, bsrc, bmask)] == 0
            if ok and not (has_dead and dead[i]):
                n = emit(outs, n, qi, i, d)
            i += 1
            continue
        # the fingerprint bits this entry knows, back in fingerprint order; blocks it knows
        # equal to the query's already make an earlier table report the pair
        kb = permute1(base | (h << ls), dst, src, msk, t)
        f = first[equal_blocks(kb ^ q, bsrc, bmask) & kblocks[t]]
        if f < 0 or f >= t:
            cand_qt[nc, 0] = qi
            cand_qt[nc, 1] = t
            cand_k[nc] = kb
            nc += 1
        # entries with the same known bits lead to the same rows of table 0
        i += 1
        while i < e and np.uint64(row[i]) == h:
            i += 1
    return n, nc


@njit(cache=True)
def _resolve_all(
    qfps: Any,
    cand_qt: Any,
    cand_k: Any,
    nc: int,
    k: int,
    tables: Any,
    geo: Any,
    known: Any,
    blocks: Any,
    dead: Any,
    outs: Any,
    n: int,
) -> int:
    """Report, per candidate (query, table ``t``, bits ``known``), the rows of table 0 that agree
    with its known bits and are its match. Candidates go in fingerprint order, so their lookups
    in table 0 stream as the scans did."""
    hi, lo, off = tables
    bits, pbits, lobits = geo
    kmask, klead, _ = known
    bsrc, bmask, first = blocks
    rs = np.uint64(bits - pbits)
    ls = np.uint64(lobits)
    kk = np.uint64(k)
    has_lo = lo.shape[0] > 0
    has_dead = dead.shape[0] > 0
    for j in np.argsort(cand_k[:nc]):
        qi = cand_qt[j, 0]
        t = cand_qt[j, 1]
        q = qfps[qi]
        kb = cand_k[j]
        a, e, b = _run(hi, off, 0, kb, klead[t], bits, pbits, lobits)
        for r in range(a, e):
            while np.int64(off[0, b + 1]) <= r:
                b += 1
            v = (np.uint64(b) << rs) | (np.uint64(hi[0, r]) << ls)
            if has_lo:
                v |= np.uint64(lo[r])
            if (v ^ kb) & kmask[t]:
                continue
            d = popcount64(v ^ q)
            ok = d <= kk and first[equal_blocks(v ^ q, bsrc, bmask)] == t
            if ok and not (has_dead and dead[r]):
                n = emit(outs, n, qi, r, d)
    return n
