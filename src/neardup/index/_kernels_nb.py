"""Numba kernels of the Hamming index: popcounts, bit permutations, the build's sorts, the
self-join, the brute-force buffer scan, the ordering of matches and the cluster labels. All
single-threaded (the build runs several of them at once on threads: they release the GIL).

They run where the C extension ``_index_c`` (the same kernels, built by pip at install) is missing;
:mod:`neardup.index.kernels` chooses, and the index calls the kernels only through it.

The query kernel over residual tables is in :mod:`neardup.index.residual`. Every kernel that
reports results writes into caller-allocated output arrays (a tuple, its last argument) and
returns how many results it found; when that count exceeds the capacity the caller grows the
arrays and calls again (results are deterministic, so the second call writes the same results).
"""

# mypy: disable-error-code="call-arg,var-annotated,no-any-return,unused-ignore"
from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def _popcount64_py(x: Any) -> Any:
    """popcount64 when numba runs kernels as Python (NUMBA_DISABLE_JIT): intrinsics do not run there."""
    return np.uint64(int(x).bit_count())


def _prefetch2_py(arr: Any, t: Any, i: Any) -> None:
    return None


@intrinsic
def popcount64(typingctx: Any, x: Any) -> Any:
    """Hardware popcount of a uint64 (LLVM ctpop)."""
    sig = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def prefetch2(typingctx: Any, arr: Any, t: Any, i: Any) -> Any:
    """Hint the CPU to load the cache line of ``arr[t, i]`` (LLVM prefetch, read, keep in all levels)."""
    sig = types.void(arr, t, i)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
            context, builder, aryty, ary, [args[1], args[2]], wraparound=False
        )
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")  # type: ignore[no-untyped-call]
        builder.call(fn, [i8p, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _within16_py(row: Any, i: Any, ph: Any, kk: Any) -> Any:
    c = [(int(x) ^ int(ph)).bit_count() for x in row[int(i) : int(i) + 16]]
    return np.uint32(sum(1 << j for j, v in enumerate(c) if v <= int(kk)))


@intrinsic
def within16(typingctx: Any, row: Any, i: Any, ph: Any, kk: Any) -> Any:
    """Bit mask of the 16 uint32 entries ``row[i : i + 16]`` within ``kk`` bits of ``ph``.

    One vector load, xor, popcount and compare (``llvm.ctpop.v16i32``: a single AVX-512
    VPOPCNTD where the CPU has it, a few shuffles elsewhere) instead of 16 scalar popcounts.
    """
    sig = types.uint32(row, types.int64, types.uint32, types.uint32)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
            context, builder, aryty, ary, [args[1]], wraparound=False
        )
        i32 = ir.IntType(32)
        vty = ir.VectorType(i32, 16)
        v = builder.load(builder.bitcast(ptr, vty.as_pointer()), align=4)
        undef = ir.Constant(vty, ir.Undefined)
        zeros = ir.Constant(vty, [0] * 16)
        phv = builder.shuffle_vector(builder.insert_element(undef, args[2], i32(0)), undef, zeros)
        kkv = builder.shuffle_vector(builder.insert_element(undef, args[3], i32(0)), undef, zeros)
        fnty = ir.FunctionType(vty, [vty])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.v16i32")  # type: ignore[no-untyped-call]
        m = builder.bitcast(
            builder.icmp_unsigned("<=", builder.call(fn, [builder.xor(v, phv)]), kkv), ir.IntType(16)
        )
        return builder.zext(m, i32)

    return sig, codegen


if config.DISABLE_JIT:  # type: ignore[attr-defined]
    popcount64 = _popcount64_py  # type: ignore[assignment]
    prefetch2 = _prefetch2_py  # type: ignore[assignment]
    within16 = _within16_py  # type: ignore[assignment]


@njit(cache=True, inline="always")
def permute1(x: Any, src: Any, dst: Any, msk: Any, t: int) -> Any:
    """Move each block of ``x`` from shift ``src[t, j]`` to shift ``dst[t, j]`` (swap the two
    arrays to invert the permutation)."""
    out = np.uint64(0)
    for j in range(src.shape[1]):
        out |= ((x >> np.uint64(src[t, j])) & msk[t, j]) << np.uint64(dst[t, j])
    return out


@njit(cache=True, inline="always")
def emit(outs: Any, n: int, a: Any, b: Any, d: Any) -> int:
    """Write result ``n`` (``a``, ``b``, distance ``d``) if the output arrays hold it; return n + 1."""
    out_a, out_b, out_d = outs
    if n < out_a.shape[0]:
        out_a[n] = a
        out_b[n] = b
        out_d[n] = d
    return n + 1


@njit(cache=True, inline="always")
def equal_blocks(x: Any, bsrc: Any, bmask: Any) -> int:
    """Bit mask of the blocks in which ``x`` (an xor of two fingerprints) is zero."""
    eq = 0
    for i in range(bsrc.shape[0]):
        if ((x >> np.uint64(bsrc[i])) & bmask[i]) == 0:
            eq |= 1 << i
    return eq


@njit(cache=True)
def prefix_offsets(vals: Any, shift: int, nbuckets: int) -> Any:
    """offsets[b]..offsets[b+1] is the range of sorted ``vals`` whose top bits (``v >> shift``) equal b."""
    off = np.zeros(nbuckets + 1, dtype=np.int64)
    s = np.uint64(shift)
    for i in range(vals.shape[0]):
        off[np.int64(vals[i] >> s) + 1] += 1
    for b in range(nbuckets):
        off[b + 1] += off[b]
    return off


@njit(cache=True, inline="always")
def master_row(tab: Any, off: Any, v: Any, pshift: int) -> int:
    """First row of table 0 (the sorted fingerprints) equal to ``v``."""
    pre = np.int64(v >> np.uint64(pshift))
    a = np.int64(off[0, pre])
    b = np.int64(off[0, pre + 1])
    while a < b:
        mid = (a + b) >> 1
        if tab[0, mid] < v:
            a = mid + 1
        else:
            b = mid
    return a


@njit(cache=True)
def query_brute(qfps: Any, k: int, fps: Any, outs: Any) -> int:
    """Compare every query with every fingerprint of a small unsorted buffer."""
    kk = np.uint64(k)
    n = 0
    for qi in range(qfps.shape[0]):
        q = qfps[qi]
        for r in range(fps.shape[0]):
            d = popcount64(fps[r] ^ q)
            if d <= kk:
                n = emit(outs, n, qi, r, d)
    return n


@njit(cache=True)
def self_join_tables(
    k: int,
    tab: Any,
    keybits: Any,
    bits: int,
    pbits: int,
    off: Any,
    perm: Any,
    blocks: Any,
    dead: Any,
    outs: Any,
) -> int:
    """Every pair of rows (a < b) of table 0 within distance k, each pair once.

    Per table, runs of equal keys are compared all against all; a pair of distinct values is kept
    only by the first table in which its key blocks agree. Equal fingerprints come from table 0.
    """
    src, dst, msk = perm
    bsrc, bmask, first = blocks
    T = tab.shape[0]
    N = tab.shape[1]
    has_dead = dead.shape[0] > 0
    pshift = bits - pbits
    n = 0
    # identical fingerprints: all pairs inside each run of table 0
    i = 0
    while i < N:
        j = i + 1
        while j < N and tab[0, j] == tab[0, i]:
            j += 1
        for a in range(i, j):
            if has_dead and dead[a]:
                continue
            for b in range(a + 1, j):
                if has_dead and dead[b]:
                    continue
                n = emit(outs, n, a, b, 0)
        i = j
    if k == 0:
        return n
    kk = np.uint64(k)
    zero = np.uint64(0)
    for t in range(T):
        s = np.uint64(bits - keybits[t])
        g0 = 0
        while g0 < N:
            key = tab[t, g0] >> s
            g1 = g0 + 1
            while g1 < N and (tab[t, g1] >> s) == key:
                g1 += 1
            if g1 - g0 > 1:
                i = g0
                while i < g1:
                    v = tab[t, i]
                    ie = i + 1
                    while ie < g1 and tab[t, ie] == v:
                        ie += 1
                    for j in range(ie, g1):
                        w = tab[t, j]
                        d = popcount64(v ^ w)
                        if d > kk or d == zero:
                            continue
                        # skip a run of w: only the first of equal values is compared
                        if tab[t, j - 1] == w and j > ie:
                            continue
                        ov = permute1(v, dst, src, msk, t) if t > 0 else v
                        ow = permute1(w, dst, src, msk, t) if t > 0 else w
                        if first[equal_blocks(ov ^ ow, bsrc, bmask)] != t:
                            continue
                        je = j + 1
                        while je < g1 and tab[t, je] == w:
                            je += 1
                        ra = i if t == 0 else master_row(tab, off, ov, pshift)
                        rb = j if t == 0 else master_row(tab, off, ow, pshift)
                        for a in range(ra, ra + (ie - i)):
                            if has_dead and dead[a]:
                                continue
                            for b in range(rb, rb + (je - j)):
                                if has_dead and dead[b]:
                                    continue
                                n = emit(outs, n, a, b, d)
                    i = ie
            g0 = g1
    return n


@njit(cache=True)
def union_find_labels(n: int, a: Any, b: Any) -> Any:
    """Connected components over rows 0..n-1; label = smallest row of the component."""
    parent = np.arange(n)
    for e in range(a.shape[0]):
        x = a[e]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        y = b[e]
        while parent[y] != y:
            parent[y] = parent[parent[y]]
            y = parent[y]
        if x < y:
            parent[y] = x
        elif y < x:
            parent[x] = y
    for i in range(n):
        x = i
        while parent[x] != x:
            x = parent[x]
        parent[i] = x
    return parent


@njit(cache=True)
def fix_runs(f: Any, ids: Any, shift: int) -> None:
    """Sort, in place, each run of ``f`` whose values agree above ``shift`` (they are rare and short)."""
    n = f.shape[0]
    s = np.uint64(shift)
    i = 0
    while i < n:
        j = i + 1
        top = f[i] >> s
        while j < n and (f[j] >> s) == top:
            j += 1
        if j - i > 1:
            ok = True
            for r in range(i + 1, j):
                if f[r] < f[r - 1]:
                    ok = False
                    break
            if not ok:
                order = np.argsort(f[i:j], kind="mergesort")
                f2 = f[i:j][order]
                i2 = ids[i:j][order]
                f[i:j] = f2
                ids[i:j] = i2
        i = j


#: radix bits of the build's first sort pass: 65,536 buckets, a few hundred values each at 10M
RADIX_BITS = 16


@njit(cache=True, nogil=True, inline="always")
def _sort_run(v: Any, a: int, e: int) -> None:
    """Sort ``v[a:e]`` in place: insertion sort for a short run, else numpy's sort."""
    if e - a > 16:
        v[a:e].sort()
        return
    for x in range(a + 1, e):
        y = v[x]
        z = x
        while z > a and v[z - 1] > y:
            v[z] = v[z - 1]
            z -= 1
        v[z] = y


@njit(cache=True, nogil=True)
def permute_sorted(fps: Any, perm: Any, t: int, sbits: int, bits: int, out: Any) -> None:
    """``out``: the fingerprints permuted for table ``t``, sorted.

    One pass of a most-significant-digit radix sort on the leading ``sbits`` bits (count, then
    scatter), then each bucket (a few hundred values, in cache) sorted on its own.
    """
    src, dst, msk = perm
    n = fps.shape[0]
    rs = np.uint64(bits - sbits)
    start = np.zeros((1 << sbits) + 1, dtype=np.int64)
    for i in range(n):
        p = permute1(fps[i], src, dst, msk, t) if t > 0 else fps[i]
        start[np.int64(p >> rs) + 1] += 1
    for b in range(1 << sbits):
        start[b + 1] += start[b]
    cur = start[:-1].copy()
    for i in range(n):
        p = permute1(fps[i], src, dst, msk, t) if t > 0 else fps[i]
        b = np.int64(p >> rs)
        out[cur[b]] = p
        cur[b] += 1
    for b in range(1 << sbits):
        _sort_run(out, start[b], start[b + 1])


@njit(cache=True, nogil=True)
def sorted_with_ids(fps: Any, ids: Any, sbits: int, bits: int, out: Any, out_ids: Any) -> None:
    """``out``: the fingerprints sorted; ``out_ids``: their ids (equal fingerprints keep input order).

    A radix pass on the leading ``sbits`` bits moves values and ids to their buckets (input order
    kept); each bucket is then sorted as plain uint64 keys (its remaining bits, with the position
    inside the bucket packed into the lowest ones) and values and ids follow the keys inside the
    bucket, in cache. The few runs that agree on all but those low bits are put in order by
    :func:`fix_runs`.
    """
    n = fps.shape[0]
    nb = 1
    while (1 << nb) < n:
        nb += 1
    rs = np.uint64(bits - sbits)
    ps = np.uint64(64 - bits + sbits)
    start = np.zeros((1 << sbits) + 1, dtype=np.int64)
    for i in range(n):
        start[np.int64(fps[i] >> rs) + 1] += 1
    for b in range(1 << sbits):
        start[b + 1] += start[b]
    cur = start[:-1].copy()
    vals = np.empty(n, dtype=np.uint64)
    keep = ~((np.uint64(1) << np.uint64(nb)) - np.uint64(1))
    for i in range(n):
        b = np.int64(fps[i] >> rs)
        j = cur[b]
        vals[j] = fps[i]
        out_ids[j] = ids[i]
        out[j] = ((fps[i] << ps) & keep) | np.uint64(j - start[b])
        cur[b] += 1
    row_mask = ~keep
    for b in range(1 << sbits):
        a = start[b]
        e = start[b + 1]
        _sort_run(out, a, e)
        moved = out_ids[a:e].copy()
        for j in range(a, e):
            r = a + np.int64(out[j] & row_mask)
            out[j] = vals[r]
            out_ids[j] = moved[r - a]
    fix_runs(out, out_ids, max(nb - np.int64(ps), 0))


@njit(cache=True)
def order_matches(qa: Any, da: Any, ia: Any, nq: int) -> Any:
    """The order of matches by query, then distance, then id: a counting sort on the query and
    an insertion sort inside each query's (short) group; long groups take two stable sorts."""
    cnt = np.zeros(nq + 1, dtype=np.int64)
    for j in range(qa.shape[0]):
        cnt[qa[j] + 1] += 1
    for g in range(nq):
        cnt[g + 1] += cnt[g]
    pos = cnt[:-1].copy()
    out = np.empty(qa.shape[0], dtype=np.int64)
    for j in range(qa.shape[0]):
        out[pos[qa[j]]] = j
        pos[qa[j]] += 1
    for g in range(nq):
        a = cnt[g]
        b = cnt[g + 1]
        if b - a > 32:
            sub = out[a:b]
            sub = sub[np.argsort(ia[sub], kind="mergesort")]
            out[a:b] = sub[np.argsort(da[sub], kind="mergesort")]
            continue
        for x in range(a + 1, b):
            y = out[x]
            z = x
            while z > a and (da[out[z - 1]] > da[y] or (da[out[z - 1]] == da[y] and ia[out[z - 1]] > ia[y])):
                out[z] = out[z - 1]
                z -= 1
            out[z] = y
    return out


@njit(cache=True)
def star_labels(n: int, a: Any, b: Any, order: Any) -> Any:
    """Star clustering: in ``order``, each node not yet labelled becomes a centre and labels its
    unlabelled neighbours (edges ``a[e]``-``b[e]``) with itself."""
    deg = np.zeros(n + 1, dtype=np.int64)
    for e in range(a.shape[0]):
        deg[a[e] + 1] += 1
        deg[b[e] + 1] += 1
    for i in range(n):
        deg[i + 1] += deg[i]
    adj = np.empty(deg[n], dtype=np.int64)
    pos = deg[:-1].copy()
    for e in range(a.shape[0]):
        adj[pos[a[e]]] = b[e]
        pos[a[e]] += 1
        adj[pos[b[e]]] = a[e]
        pos[b[e]] += 1
    label = np.full(n, -1, dtype=np.int64)
    for o in range(order.shape[0]):
        c = order[o]
        if label[c] >= 0:
            continue
        label[c] = c
        for p in range(deg[c], deg[c + 1]):
            m = adj[p]
            if label[m] < 0:
                label[m] = c
    return label
