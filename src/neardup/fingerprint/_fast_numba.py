"""The numba kernels of ``_fast``: the fallback when the C extension ``_fp_c`` was not built.

Bit for bit what ``_fp_c`` computes (tested on random texts and the corpora); ``majority_bits`` is
also a callee of the match engine's numba signature kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.fingerprint._xxh3 import xxh3_64

__all__ = ["majority_bits"]


@njit(cache=True, nogil=True)
def _normalize_kernel(
    cps: np.ndarray,
    offsets: np.ndarray,
    table: np.ndarray,
    mstart: np.ndarray,
    mlen: np.ndarray,
    mflat: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(cps.shape[0]):
        c = cps[i]
        cap += mlen[c] + 1 if c < 0x10000 else 1
    out = np.empty(cap + 1, np.uint32)
    out_off = np.zeros(n + 1, np.int64)
    flags = np.zeros(n, np.uint8)
    o = 0
    for d in range(n):
        pending = False
        started = False
        fl = 0
        i = offsets[d]
        end = offsets[d + 1]
        k = 0  # position in a replacement being emitted
        kend = 0
        while i < end or k < kend:
            if k < kend:
                cp = np.uint32(mflat[k])
                k += 1
            else:
                cp = cps[i]
                i += 1
                if cp < 0x10000 and mlen[cp] > 0:
                    k = mstart[cp]
                    kend = k + mlen[cp]
                    continue
            if cp < 0x80:
                if 65 <= cp <= 90:
                    cp += np.uint32(32)
                space = (table[cp] & 1) != 0
            elif cp < 0x10000:
                f = table[cp]
                space = (f & 1) != 0
                fl |= f & 2
                if (f & 8) == 0:
                    fl |= 1
            else:
                space = False
                fl |= 4
            if space:
                pending = started
                continue
            if pending:
                out[o] = 0x20
                o += 1
                pending = False
            out[o] = cp
            o += 1
            started = True
        out_off[d + 1] = o
        flags[d] = fl
    return out[:o], out_off, flags


_L8 = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True)
def majority_bits(hs: np.ndarray, bits: int = 64) -> Any:  # pragma: no cover
    """SimHash of equally weighted hashes: bit b is set when more than half of ``hs`` have it.

    Bits are counted 8 byte-lanes at a time, flushing the lanes before one can overflow.
    """
    total = hs.shape[0]
    counts = np.zeros(64, np.int64)
    acc = np.zeros(8, np.uint64)
    pending = 0
    for k in range(total):
        h = hs[k]
        for j in range(8):
            acc[j] += (h >> np.uint64(j)) & _L8
        pending += 1
        if pending == 255 or k == total - 1:
            for j in range(8):
                v = acc[j]
                for lane in range(8):
                    counts[8 * lane + j] += np.int64((v >> np.uint64(8 * lane)) & np.uint64(0xFF))
                acc[j] = 0
            pending = 0
    fp = np.uint64(0)
    for b in range(bits):
        if 2 * counts[b] > total:
            fp |= np.uint64(1) << np.uint64(b)
    return fp


@njit(cache=True, nogil=True)
def _shingle_kernel(
    cps: np.ndarray,
    offsets: np.ndarray,
    table: np.ndarray,
    n: int,
    step: int,
    bits: int,
    binary: bool,
    sec: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    nd = offsets.shape[0] - 1
    out = np.zeros(nd, np.uint64)
    ok = np.ones(nd, np.bool_)
    maxlen = 0
    for d in range(nd):
        if offsets[d + 1] - offsets[d] > maxlen:
            maxlen = offsets[d + 1] - offsets[d]
    buf = np.empty(4 * maxlen + 8, np.uint8)
    starts = np.empty(maxlen + 1, np.int64)
    hs = np.empty(maxlen + 1, np.uint64)
    for d in range(nd):
        # keep letters and digits, UTF-8 encode, remember where each character starts
        nb = 0
        nc = 0
        for i in range(offsets[d], offsets[d + 1]):
            cp = cps[i]
            if cp >= 0x10000:
                ok[d] = False
                break
            if (table[cp] & 4) == 0:
                continue
            starts[nc] = nb
            nc += 1
            if cp < 0x80:
                buf[nb] = cp
                nb += 1
            elif cp < 0x800:
                buf[nb] = 0xC0 | (cp >> 6)
                buf[nb + 1] = 0x80 | (cp & 0x3F)
                nb += 2
            else:
                buf[nb] = 0xE0 | (cp >> 12)
                buf[nb + 1] = 0x80 | ((cp >> 6) & 0x3F)
                buf[nb + 2] = 0x80 | (cp & 0x3F)
                nb += 3
        if not ok[d] or nc == 0:
            continue
        starts[nc] = nb
        # windows: as neardup.text.char_shingles
        nh = 0
        if nc <= n:
            h, good = xxh3_64(buf, 0, nb, sec)
            if not good:
                ok[d] = False
                continue
            hs[0] = h
            nh = 1
        else:
            i = 0
            while i + n <= nc:
                h, good = xxh3_64(buf, starts[i], starts[i + n] - starts[i], sec)
                if not good:
                    ok[d] = False
                    break
                hs[nh] = h
                nh += 1
                i += step
            if ok[d] and step == n and nc % n:
                a = nc - nc % n
                h, good = xxh3_64(buf, starts[a], nb - starts[a], sec)
                hs[nh] = h
                nh += 1
        if not ok[d]:
            continue
        feats = hs[:nh]
        if binary:
            feats = np.unique(feats)
        fp = majority_bits(feats, bits)
        out[d] = fp
    return out, ok
