"""Open-addressing hash tables in numpy arrays, for the numba kernels of the match engine.

The posting table maps a sketch value to how many cluster representatives posted it and which;
the key tables map an exact or content key to the first document holding it. A slot is picked by
Lemire's multiply-shift reduction of a 32-bit hash (any capacity, not only powers of two, so a
table is sized to 80 % full instead of up to twice that), with linear probing;
``neardup.match.engine.EngineState`` grows the tables between documents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.match._numba_lazy import njit

__all__ = ["Arrays", "is_common", "key_get", "key_put", "posting_slot", "record_document"]

# the engine's meta slots: posting slots used, posting entries, exact keys, content keys
SLOTS, ENTRIES, XKEYS, CKEYS = range(4)
EMPTY32 = np.uint32(0xFFFFFFFF)
# how the kernels take a group of arrays: the signature columns (``Signatures.columns()``) or the
# key and posting tables (``EngineState.tables()``), one tuple each
Arrays = tuple[np.ndarray, ...]


@njit(cache=True, inline="always")
def _h32(v: np.uint32, size: int) -> Any:  # pragma: no cover
    x = (np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
    return np.int64((x * np.uint64(size)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _h64(v: np.uint64, size: int) -> Any:  # pragma: no cover
    x = ((v ^ (v >> np.uint64(31))) * np.uint64(0xBF58476D1CE4E5B9)) >> np.uint64(32)
    return np.int64((x * np.uint64(size)) >> np.uint64(32))


@njit(cache=True, nogil=True)
def posting_slot(pv: np.ndarray, v: np.uint32) -> Any:  # pragma: no cover
    """The slot of value ``v`` in the posting table, or of the empty slot where it would go."""
    size = pv.shape[0]
    i = _h32(v, size)
    while pv[i] != v and pv[i] != np.uint32(0xFFFFFFFF):
        i += 1
        if i == size:
            i = 0
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
    size = keys.shape[0]
    i = _h64(k, size)
    while rows[i] >= 0:
        if keys[i] == k:
            return int(rows[i])
        i += 1
        if i == size:
            i = 0
    return -1


@njit(cache=True, nogil=True)
def key_put(keys: np.ndarray, rows: np.ndarray, k: np.uint64, row: int) -> bool:  # pragma: no cover
    """Insert k -> row unless k is present; True when inserted."""
    size = keys.shape[0]
    i = _h64(k, size)
    while rows[i] >= 0:
        if keys[i] == k:
            return False
        i += 1
        if i == size:
            i = 0
    keys[i] = k
    rows[i] = row
    return True


@njit(cache=True, nogil=True)
def record_document(
    j: int, merged: bool, sig: Arrays, tab: Arrays, posted: int, max_posting: int, meta: np.ndarray
) -> None:  # pragma: no cover
    """Leave document ``j``'s keys (and, for a representative, its posted values) for later ones.
    ``sig`` holds the signature columns (``Signatures.columns()``), ``tab`` the key and posting
    tables (``EngineState.tables()``)."""
    exact, content, _, _, tokens, sketch = sig[0], sig[1], sig[2], sig[3], sig[4], sig[5]
    xk, xr, ck, cr, pv, pc, pf, ph, er, en = tab
    if key_put(xk, xr, exact[j], j):
        meta[XKEYS] += 1
    if tokens[j] > 0 and key_put(ck, cr, content[j], j):
        meta[CKEYS] += 1
    if merged:
        return
    for t in range(min(posted, sketch.shape[1])):
        v = sketch[j, t]
        if v == EMPTY32:
            break
        i = posting_slot(pv, v)
        if pv[i] != v:
            pv[i] = v
            pc[i] = 1
            pf[i] = j
            ph[i] = -1
            meta[SLOTS] += 1
            continue
        pc[i] += 1
        if pc[i] <= max_posting + 1:  # past that the value is boilerplate: its rows are not needed
            e = meta[ENTRIES]
            er[e] = j
            en[e] = ph[i]
            ph[i] = e
            meta[ENTRIES] += 1
