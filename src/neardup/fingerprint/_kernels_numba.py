"""numba kernels behind SimHash: bit sums over (hash, weight) features for whole batches.

The fallback of ``_kernels`` when the C extension ``_fp_c`` was not built (no C compiler at install).

Weights are fixed-point int64 (see ``simhash.WEIGHT_SCALE``), so sums are exact and do not depend on
the order features are added in: the same features give the same fingerprint everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_ONE = np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _add(sums: np.ndarray, h: Any, w: Any, bits: int) -> None:  # pragma: no cover
    """Add weight ``w`` to the sum of each bit set in ``h`` and subtract it from the others."""
    for b in range(bits):
        if (h >> np.uint64(b)) & _ONE:
            sums[b] += w
        else:
            sums[b] -= w


@njit(cache=True, nogil=True)
def accumulate(hashes: np.ndarray, weights: np.ndarray, bits: int) -> np.ndarray:  # pragma: no cover
    """Signed bit sums: sums[b] = sum of w over features with bit b set minus those with it clear."""
    sums = np.zeros(bits, np.int64)
    for i in range(hashes.shape[0]):
        h = hashes[i]
        w = weights[i]
        _add(sums, h, w, bits)
    return sums


@njit(cache=True, nogil=True)
def sums_to_fp(sums: np.ndarray) -> Any:  # pragma: no cover
    fp = np.uint64(0)
    for b in range(sums.shape[0]):
        if sums[b] > 0:
            fp |= _ONE << np.uint64(b)
    return fp


@njit(cache=True, nogil=True)
def _select(
    ids: np.ndarray, vh: np.ndarray, vw: np.ndarray, binary: bool, top_n: int, levels: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Distinct features of one document with their weights: tf (or 1) x unit weight, the top_n
    heaviest (ties: smaller hash first), then quantized to 1..levels if levels > 0."""
    kept = np.empty(ids.shape[0], np.int64)
    k = 0
    for i in range(ids.shape[0]):
        if vw[ids[i]] > 0:
            kept[k] = ids[i]
            k += 1
    kept = np.sort(kept[:k])
    uh = np.empty(k, np.uint64)
    uw = np.empty(k, np.int64)
    u = 0
    i = 0
    while i < k:
        j = i
        while j < k and kept[j] == kept[i]:
            j += 1
        tf = 1 if binary else j - i
        uh[u] = vh[kept[i]]
        uw[u] = tf * vw[kept[i]]
        u += 1
        i = j
    uh = uh[:u]
    uw = uw[:u]
    if top_n > 0 and u > top_n:
        by_hash = np.argsort(uh, kind="mergesort")
        uh = uh[by_hash]
        uw = uw[by_hash]
        order = np.argsort(-uw, kind="mergesort")[:top_n]
        uh = uh[order]
        uw = uw[order]
    if levels > 0 and uw.shape[0] > 0:
        top = uw.max()
        for i in range(uw.shape[0]):
            q = (levels * uw[i] + top - 1) // top
            uw[i] = q if q > 1 else 1
    return uh, uw


@njit(cache=True, nogil=True)
def batch_fingerprints(
    ids: np.ndarray,
    offsets: np.ndarray,
    vh: np.ndarray,
    vw: np.ndarray,
    bits: int,
    binary: bool,
    top_n: np.ndarray,
    levels: int,
) -> np.ndarray:  # pragma: no cover
    """Fingerprints of documents ids[offsets[d]:offsets[d+1]] (feature ids into vh/vw).

    ``top_n[d]`` is the number of features document d keeps (0: all). With no top-n, no levels and
    tf weights the sums are taken per occurrence (tf x w == w added tf times), skipping the sort.
    """
    n = offsets.shape[0] - 1
    out = np.zeros(n, np.uint64)
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if bits == 64 else (_ONE << np.uint64(bits)) - _ONE
    for d in range(n):
        seg = ids[offsets[d] : offsets[d + 1]]
        sums = np.zeros(bits, np.int64)
        if top_n[d] == 0 and levels == 0 and not binary:
            for i in range(seg.shape[0]):
                w = vw[seg[i]]
                if w <= 0:
                    continue
                h = vh[seg[i]]
                _add(sums, h, w, bits)
        else:
            uh, uw = _select(seg, vh, vw, binary, top_n[d], levels)
            for i in range(uh.shape[0]):
                h = uh[i]
                w = uw[i]
                _add(sums, h, w, bits)
        out[d] = sums_to_fp(sums) & mask
    return out
