"""In-process exact seen-store: an open-addressing hash table of 64-bit URL hashes in numpy, C loops.

12 bytes a slot (uint64 hash + uint32 last-fetch second), load factor <= 0.7, so about 17-34
bytes per URL. Linear probing with backward-shift deletion (no tombstones). Not shared between
processes: use the sqlite or Redis store for that. The loops are the C kernels of ``_urls_c`` (numba
where the extension was not built: :mod:`neardup.urls._kernels` chooses).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.urls import _kernels as K
from neardup.urls.seen import JobClock, StoreInfo

__all__ = ["MemorySeenStore"]

_MAX_LOAD = 0.7


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
        K.memory_reinsert(self._keys, self._vals, old_k, old_v)

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
        n_new, _ = K.memory_check_add(self._keys, self._vals, hashes, self.job.seconds(now), recrawl, out)
        self._used += n_new
        return out

    def record(self, hashes: np.ndarray[Any, Any], stamp: int) -> None:
        """Mark ``hashes`` as fetched at second ``stamp`` (a replayed log entry; no ttl roll)."""
        if self._created is None:
            self._created = float(stamp)
        self._grow_for(hashes.shape[0])
        self._used += int(K.memory_record(self._keys, self._vals, hashes, stamp))

    def contains(self, hashes: np.ndarray[Any, Any], now: float) -> np.ndarray[Any, Any]:
        self._roll(now)
        out = np.empty(hashes.shape[0], dtype=np.bool_)
        K.memory_contains(self._keys, hashes, out)
        return out

    def forget(self, hashes: np.ndarray[Any, Any], now: float) -> int:
        self._roll(now)
        removed = int(K.memory_remove(self._keys, self._vals, hashes))
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
