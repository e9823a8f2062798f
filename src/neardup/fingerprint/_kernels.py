"""Kernels behind SimHash: bit sums over (hash, weight) features for whole batches.

They run in the C extension ``_fp_c`` (built by pip at install, so nothing compiles at run time);
where it could not be built (no C compiler at install) the same kernels run in numba
(``_kernels_numba``, compiled once into the kernel cache), with the same results.

Weights are fixed-point int64 (see ``simhash.WEIGHT_SCALE``), so sums are exact and do not depend on
the order features are added in: the same features give the same fingerprint everywhere.

>>> int(sums_to_fp(accumulate(np.array([0b110101, 0b101001], np.uint64), np.array([5, 4]), 6)))
53
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["accumulate", "batch_fingerprints", "sums_to_fp"]

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: the numba kernels
    _fp_c = None


def _i64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def _u64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, np.uint64)


def accumulate(hashes: np.ndarray, weights: np.ndarray, bits: int) -> np.ndarray:
    """Signed bit sums: sums[b] = sum of w over features with bit b set minus those with it clear."""
    if _fp_c is None:
        from neardup.fingerprint import _kernels_numba

        return _kernels_numba.accumulate(hashes, weights, bits)
    sums = np.empty(bits, np.int64)
    _fp_c.accumulate_into(_u64(hashes), _i64(weights), bits, sums)
    return sums


def sums_to_fp(sums: np.ndarray) -> Any:
    """The fingerprint of bit sums: bit b set where sums[b] > 0 (a numpy uint64)."""
    if _fp_c is None:
        from neardup.fingerprint import _kernels_numba

        return _kernels_numba.sums_to_fp(sums)
    return np.uint64(_fp_c.sums_to_fp(_i64(sums)))


def batch_fingerprints(
    ids: np.ndarray,
    offsets: np.ndarray,
    vh: np.ndarray,
    vw: np.ndarray,
    bits: int,
    binary: bool,
    top_n: np.ndarray,
    levels: int,
) -> np.ndarray:
    """Fingerprints of documents ids[offsets[d]:offsets[d+1]] (feature ids into vh/vw).

    ``top_n[d]`` is the number of features document d keeps (0: all), ``levels`` quantizes weights to
    1..levels (0: not), ``binary`` weighs each distinct feature once instead of by its count.
    """
    if _fp_c is None:
        from neardup.fingerprint import _kernels_numba

        return _kernels_numba.batch_fingerprints(ids, offsets, vh, vw, bits, binary, top_n, levels)
    out = np.empty(offsets.shape[0] - 1, np.uint64)
    _fp_c.batch_fingerprints_into(
        _i64(ids), _i64(offsets), _u64(vh), _i64(vw), bits, binary, _i64(top_n), levels, out
    )
    return out
