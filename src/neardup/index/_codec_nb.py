"""Numba kernels of the compressed tables (:mod:`neardup.index.codec`): symbol counts, the
encoder, the decoder and the query over compressed tables.

They run where the C extension ``_index_c`` (the same kernels, built by pip at install) is missing;
:mod:`neardup.index.kernels` chooses.
"""

# mypy: disable-error-code="call-arg,var-annotated,no-any-return,unused-ignore"
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from neardup.index._kernels_nb import emit, equal_blocks, permute1, popcount64

XOR = 0  # as codec.XOR
N_SYMBOLS = 65


@intrinsic
def _clz64(typingctx: Any, x: Any) -> Any:
    sig = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        import llvmlite.ir as ir

        fn = builder.module.declare_intrinsic("llvm.ctlz", [args[0].type, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


@njit(cache=True)
def _symbols(v: Any, B: int, mode: int) -> Any:
    counts = np.zeros(N_SYMBOLS, dtype=np.int64)
    raw = 0
    for i in range(v.shape[0]):
        if i % B == 0:
            continue
        x = v[i] ^ v[i - 1] if mode == XOR else v[i] - v[i - 1]
        if x == 0:
            counts[64] += 1
        else:
            h = 63 - np.int64(_clz64(x))
            counts[h] += 1
            raw += h
    return counts, raw


@njit(cache=True, inline="always")
def _put(words: Any, pos: int, value: Any, nbits: int) -> int:
    if nbits == 0:
        return pos
    w = pos >> 6
    space = 64 - (pos & 63)
    if nbits <= space:
        words[w] |= value << np.uint64(space - nbits)
    else:
        over = nbits - space
        words[w] |= value >> np.uint64(over)
        words[w + 1] |= value << np.uint64(64 - over)
    return pos + nbits


@njit(cache=True)
def _encode(
    v: Any, B: int, codes: Any, lens: Any, words: Any, base: int, firsts: Any, starts: Any, mode: int
) -> int:
    pos = base
    one = np.uint64(1)
    for i in range(v.shape[0]):
        if i % B == 0:
            firsts[i // B] = v[i]
            starts[i // B] = pos
            continue
        x = v[i] ^ v[i - 1] if mode == XOR else v[i] - v[i - 1]
        if x == 0:
            pos = _put(words, pos, codes[64], lens[64])
        else:
            h = 63 - np.int64(_clz64(x))
            pos = _put(words, pos, codes[h], lens[h])
            if h > 0:
                low = v[i] if mode == XOR else x  # xor: cur's own low bits; gap: the difference's
                pos = _put(words, pos, low & ((one << np.uint64(h)) - one), h)
    return pos


@njit(cache=True, inline="always")
def _next(words: Any, pos: int, prev: Any, lut: Any, t: int, L: int, mode: int) -> Any:
    """Decode the value after ``prev`` at bit ``pos``; returns (value, new pos)."""
    w = pos >> 6
    off = pos & 63
    x = words[w] << np.uint64(off)
    if off:
        x |= words[w + 1] >> np.uint64(64 - off)
    e = np.int64(lut[t, np.int64(x >> np.uint64(64 - L))])
    sym = e >> 5
    pos += e & 31
    if sym == 64:
        return prev, pos
    one = np.uint64(1)
    hb = one << np.uint64(sym)
    low = np.uint64(0)
    if sym > 0:
        w = pos >> 6
        off = pos & 63
        x = words[w] << np.uint64(off)
        if off:
            x |= words[w + 1] >> np.uint64(64 - off)
        low = x >> np.uint64(64 - sym)
        pos += sym
    if mode == XOR:
        return (prev & ~(hb | (hb - one))) | hb | low, pos
    return prev + (hb | low), pos


@njit(cache=True)
def _decode_all(
    words: Any, firsts: Any, starts: Any, lut: Any, t: int, L: int, B: int, n: int, mode: int
) -> Any:
    out = np.empty(n, dtype=np.uint64)
    cur = np.uint64(0)
    pos = 0
    for i in range(n):
        if i % B == 0:
            cur = firsts[t, i // B]
            pos = starts[t, i // B]
        else:
            cur, pos = _next(words, pos, cur, lut, t, L, mode)
        out[i] = cur
    return out


@njit(cache=True, inline="always")
def _block_of(firsts: Any, t: int, x: Any) -> int:
    """Last block whose first value is < x (0 if none): interpolation search, bisection fallback."""
    nb = firsts.shape[1]
    lo = 0
    hi = nb - 1
    if firsts[t, 0] >= x:
        return 0
    if firsts[t, hi] < x:
        return hi
    # invariant: firsts[lo] < x <= firsts[hi]
    steps = 0
    while hi - lo > 1:
        a = firsts[t, lo]
        b = firsts[t, hi]
        if steps < 4 and b > a:
            frac = (np.float64(x - a)) / np.float64(b - a)
            mid = lo + np.int64(frac * (hi - lo))
            if mid <= lo:
                mid = lo + 1
            elif mid >= hi:
                mid = hi - 1
        else:
            mid = (lo + hi) >> 1
        steps += 1
        if firsts[t, mid] < x:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True)
def query_compressed(
    qfps: Any,
    k: int,
    words: Any,
    firsts: Any,
    starts: Any,
    lut: Any,
    L: int,
    B: int,
    n: int,
    mode: int,
    keybits: Any,
    bits: int,
    perm: Any,
    blocks: Any,
    dead: Any,
    outs: Any,
) -> int:
    src, dst, msk = perm
    bsrc, bmask, first = blocks
    T = firsts.shape[0]
    nb = firsts.shape[1]
    has_dead = dead.shape[0] > 0
    kk = np.uint64(k)
    cnt = 0
    if n == 0:
        return 0
    for qi in range(qfps.shape[0]):
        q = qfps[qi]
        for t in range(T):
            P = permute1(q, src, dst, msk, t) if t > 0 else q
            s = np.uint64(bits - keybits[t])
            key = P >> s
            blk = _block_of(firsts, t, key << s)
            row = blk * B
            cur = firsts[t, blk]
            pos = starts[t, blk]
            last = ~np.uint64(0)
            have_last = False
            while True:
                kc = cur >> s
                if kc > key:
                    break
                if kc == key:
                    d = popcount64(cur ^ P)
                    if d <= kk:
                        orig = permute1(cur, dst, src, msk, t) if t > 0 else cur
                        if first[equal_blocks(orig ^ q, bsrc, bmask)] == t:
                            if t == 0:
                                if not (has_dead and dead[row]):
                                    cnt = emit(outs, cnt, qi, row, d)
                            elif not (have_last and orig == last):
                                have_last = True
                                last = orig
                                # every row of table 0 holding orig
                                b0 = _block_of(firsts, 0, orig)
                                r0 = b0 * B
                                c0 = firsts[0, b0]
                                p0 = starts[0, b0]
                                while c0 <= orig:
                                    if c0 == orig and not (has_dead and dead[r0]):
                                        cnt = emit(outs, cnt, qi, r0, d)
                                    r0 += 1
                                    if r0 >= n:
                                        break
                                    if r0 % B == 0:
                                        c0 = firsts[0, r0 // B]
                                        p0 = starts[0, r0 // B]
                                    else:
                                        c0, p0 = _next(words, p0, c0, lut, 0, L, mode)
                row += 1
                if row >= n:
                    break
                if row % B == 0:
                    blk = row // B
                    if blk >= nb:
                        break
                    cur = firsts[t, blk]
                    pos = starts[t, blk]
                else:
                    cur, pos = _next(words, pos, cur, lut, t, L, mode)
    return cnt
