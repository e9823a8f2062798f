"""In-process exact seen-store: an open-addressing hash table of 64-bit URL hashes in numpy, numba loops.

12 bytes a slot (uint64 hash + uint32 last-fetch second), load factor <= 0.7, so about 17-34
bytes per URL. Linear probing with backward-shift deletion (no tombstones). Not shared between
processes: use the sqlite or Redis store for that.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from neardup.urls.seen import JobClock, StoreInfo

__all__ = ["MemorySeenStore"]

_EMPTY = np.uint64(0)
_ZERO_STANDIN = np.uint64(0x9E3779B97F4A7C15)  # a hash of exactly 0 is stored as this value
_MAX_LOAD = 0.7


@njit(cache=True, nogil=True)
def _slot(keys: Any, h: Any) -> tuple[Any, int, bool]:
    """Linear probing for hash ``h``: the value stored for it (0 is stored as the stand-in, as 0
    marks an empty slot), and its slot and True, or the empty slot where it goes and False."""
    if h == 0:
        h = _ZERO_STANDIN
    mask = keys.shape[0] - 1
    j = np.int64(h & np.uint64(mask))
    while True:
        k = keys[j]
        if k == 0:
            return h, j, False
        if k == h:
            return h, j, True
        j = (j + 1) & mask


@njit(cache=True, nogil=True)
def _check_add(keys: Any, vals: Any, hashes: Any, now: int, recrawl: int, out: Any) -> tuple[int, int]:
    n_new = 0
    n_due = 0
    for i in range(hashes.shape[0]):
        h, j, found = _slot(keys, hashes[i])
        if not found:
            keys[j] = h
            vals[j] = now
            out[i] = True
            n_new += 1
        elif recrawl >= 0 and np.int64(now) - np.int64(vals[j]) >= recrawl:
            vals[j] = now
            out[i] = True
            n_due += 1
        else:
            out[i] = False
    return n_new, n_due


@njit(cache=True, nogil=True)
def _record(keys: Any, vals: Any, hashes: Any, stamp: int) -> int:
    """Set the last-fetch second of each hash to ``stamp`` (inserting it); return how many were new."""
    n_new = 0
    for i in range(hashes.shape[0]):
        h, j, found = _slot(keys, hashes[i])
        if not found:
            keys[j] = h
            n_new += 1
        vals[j] = stamp
    return n_new


@njit(cache=True, nogil=True)
def _contains(keys: Any, hashes: Any, out: Any) -> None:
    for i in range(hashes.shape[0]):
        out[i] = _slot(keys, hashes[i])[2]


@njit(cache=True, nogil=True)
def _remove(keys: Any, vals: Any, hashes: Any) -> int:
    mask = keys.shape[0] - 1
    removed = 0
    for i in range(hashes.shape[0]):
        _, j, found = _slot(keys, hashes[i])
        if not found:
            continue
        removed += 1
        # backward-shift deletion: move later members of the probe run into the hole
        hole = j
        nxt = (j + 1) & mask
        while keys[nxt] != 0:
            home = np.int64(keys[nxt] & np.uint64(mask))
            # the entry at nxt may move to hole if its home is not in (hole, nxt] cyclically
            if (nxt - home) & mask >= (nxt - hole) & mask:
                keys[hole] = keys[nxt]
                vals[hole] = vals[nxt]
                hole = nxt
            nxt = (nxt + 1) & mask
        keys[hole] = 0
        vals[hole] = 0
    return removed


@njit(cache=True, nogil=True)
def _reinsert(keys: Any, vals: Any, old_keys: Any, old_vals: Any) -> None:
    mask = keys.shape[0] - 1
    for i in range(old_keys.shape[0]):
        h = old_keys[i]
        if h == 0:
            continue
        j = np.int64(h & np.uint64(mask))
        while keys[j] != 0:
            j = (j + 1) & mask
        keys[j] = h
        vals[j] = old_vals[i]


class MemorySeenStore:
    """Exact in-process store of URL hashes with last-fetch seconds.

    >>> import numpy as np
    >>> s = MemorySeenStore(JobClock(ttl=None, recrawl_after=None))
    >>> s.check_and_add(np.array([1, 2, 1], dtype=np.uint64), now=0.0).tolist()
    [True, True, False]
    """

    kind = "memory"

    def __init__(self, job: JobClock, *, initial_capacity: int = 1 << 16) -> None:
        self.job = job
        cap = 1 << max(4, int(initial_capacity - 1).bit_length())
        self._keys = np.zeros(cap, dtype=np.uint64)
        self._vals = np.zeros(cap, dtype=np.uint32)
        self._used = 0
        self._created: float | None = None

    def _grow_for(self, extra: int) -> None:
        need = self._used + extra
        cap = self._keys.shape[0]
        if need <= cap * _MAX_LOAD:
            return
        while need > cap * _MAX_LOAD:
            cap *= 2
        old_k, old_v = self._keys, self._vals
        self._keys = np.zeros(cap, dtype=np.uint64)
        self._vals = np.zeros(cap, dtype=np.uint32)
        _reinsert(self._keys, self._vals, old_k, old_v)

    def _roll(self, now: float) -> None:
        """Start the job afresh when its job-level ttl has passed."""
        if self._created is None or self.job.expired(self._created, now):
            if self._used:
                self._keys[:] = 0
                self._vals[:] = 0
                self._used = 0
            self._created = now

    def check_and_add(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        self._roll(now)
        self._grow_for(hashes.shape[0])
        out = np.empty(hashes.shape[0], dtype=np.bool_)
        recrawl = -1 if self.job.recrawl_after is None else int(np.ceil(self.job.recrawl_after))
        n_new, _ = _check_add(self._keys, self._vals, hashes, self.job.seconds(now), recrawl, out)
        self._used += n_new
        return out

    def record(self, hashes: np.ndarray[Any, Any], stamp: int) -> None:
        """Mark ``hashes`` as fetched at second ``stamp`` (a replayed log entry; no ttl roll)."""
        if self._created is None:
            self._created = float(stamp)
        self._grow_for(hashes.shape[0])
        self._used += int(_record(self._keys, self._vals, hashes, stamp))

    def contains(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        self._roll(now)
        out = np.empty(hashes.shape[0], dtype=np.bool_)
        _contains(self._keys, hashes, out)
        return out

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        self._roll(now)
        removed = int(_remove(self._keys, self._vals, hashes))
        self._used -= removed
        return removed

    def forget_job(self) -> None:
        self._keys = np.zeros(1 << 16, dtype=np.uint64)
        self._vals = np.zeros(1 << 16, dtype=np.uint32)
        self._used = 0
        self._created = None

    def info(self, now: float) -> StoreInfo:
        self._roll(now)
        return StoreInfo(
            urls=self._used,
            created=self._created,
            bytes=int(self._keys.nbytes + self._vals.nbytes),
            extra={"slots": int(self._keys.shape[0])},
        )

    def close(self) -> None:
        pass
