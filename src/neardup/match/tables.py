"""Open-addressing hash tables in numpy arrays, for the numba kernels of the match engine.

The posting table maps a sketch value to how many cluster representatives posted it and which;
the key tables map an exact or content key to the first document holding it. Capacities are
powers of two and tables are kept at most 70 % full (``neardup.match.engine.EngineState`` grows
them between documents).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["is_common", "key_get", "key_put", "posting_slot"]


@njit(cache=True, inline="always")
def _h32(v: np.uint32, mask: int) -> int:  # pragma: no cover
    x = np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)
    return int(x >> np.uint64(33)) & mask


@njit(cache=True, inline="always")
def _h64(v: np.uint64, mask: int) -> int:  # pragma: no cover
    x = (v ^ (v >> np.uint64(31))) * np.uint64(0xBF58476D1CE4E5B9)
    return int(x >> np.uint64(29)) & mask


@njit(cache=True, nogil=True)
def posting_slot(pv: np.ndarray, v: np.uint32) -> int:  # pragma: no cover
    """The slot of value ``v`` in the posting table, or of the empty slot where it would go."""
    mask = pv.shape[0] - 1
    i = _h32(v, mask)
    while pv[i] != v and pv[i] != np.uint32(0xFFFFFFFF):
        i = (i + 1) & mask
    return i


@njit(cache=True, nogil=True)
def is_common(pv: np.ndarray, pc: np.ndarray, max_posting: int, v: np.uint32) -> bool:  # pragma: no cover
    """True when ``v`` is boilerplate: posted by more than ``max_posting`` representatives."""
    if pv.shape[0] == 0:
        return False
    i = posting_slot(pv, v)
    return bool(pv[i] == v and pc[i] > max_posting)


@njit(cache=True, nogil=True)
def key_get(keys: np.ndarray, rows: np.ndarray, k: np.uint64) -> int:  # pragma: no cover
    mask = keys.shape[0] - 1
    i = _h64(k, mask)
    while rows[i] >= 0:
        if keys[i] == k:
            return int(rows[i])
        i = (i + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def key_put(keys: np.ndarray, rows: np.ndarray, k: np.uint64, row: int) -> bool:  # pragma: no cover
    """Insert k -> row unless k is present; True when inserted."""
    mask = keys.shape[0] - 1
    i = _h64(k, mask)
    while rows[i] >= 0:
        if keys[i] == k:
            return False
        i = (i + 1) & mask
    keys[i] = k
    rows[i] = row
    return True
