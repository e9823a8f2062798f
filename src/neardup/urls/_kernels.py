"""The URL kernels: compiled C where the extension was built, numba otherwise.

Canonical keys of the common URL shapes (the shapes, and why the fast path can only agree with the
exact one, are described in :mod:`neardup.urls._kernels_nb`), the in-memory seen table
(:mod:`neardup.urls.memory`) and the Bloom filter (:mod:`neardup.urls.bloom`) are in the C
extension ``_urls_c``, compiled by pip with the machine's C compiler when the package is installed:
a fresh process neither compiles nor imports numba. Where the extension could not be built (no C
compiler at install), the same kernels run in numba, compiled into the kernel cache the first time
each is used (seconds per kernel in a fresh install, unless ``neardup warmup`` ran). Both give the
same results (tested against each other, ``tests/unit/urls``).

>>> import numpy as np
>>> h, status = canonical_one(np.frombuffer(b"HTTP://Example.com:80/a?b=1#x", np.uint8), 4096,
...                           np.zeros(1, np.uint8), np.zeros(1, np.int64), np.zeros(1, np.bool_), 0, SECRET)
>>> import xxhash; (int(h) == xxhash.xxh3_64_intdigest(b"http://example.com/a?b=1"), status)
(True, 0)
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

_c: ModuleType | None
try:
    _c = importlib.import_module("neardup.urls._urls_c")
except ImportError:  # built without a C compiler: the numba kernels run
    _c = None

__all__ = [
    "BACKEND",
    "DROP_GENERAL",
    "SECRET",
    "bloom_check_add",
    "bloom_positions",
    "canonical_batch",
    "canonical_one",
    "memory_check_add",
    "memory_contains",
    "memory_record",
    "memory_reinsert",
    "memory_remove",
]

#: which kernels run: "c" (the extension) or "numba"
BACKEND = "c" if _c is not None else "numba"

#: the drop list has patterns the kernel cannot match (``?``, ``[``, inner ``*``, non-ASCII):
#: every URL with a query takes the exact path
DROP_GENERAL = -1

Arr = npt.NDArray[Any]


def _nb() -> Any:
    """The numba kernels (imported, hence numba, only when needed)."""
    return importlib.import_module("neardup.urls._kernels_nb")


def _secret() -> npt.NDArray[np.uint8]:
    if _c is not None:
        return np.frombuffer(_c.XXH3_SECRET, dtype=np.uint8)
    return np.asarray(importlib.import_module("neardup.fingerprint._xxh3").secret())


#: XXH3's default secret (192 bytes), as the canonical kernels take it
SECRET: npt.NDArray[np.uint8] = _secret()


def canonical_batch(
    buf: Arr,
    starts: Arr,
    max_length: int,
    names: Arr,
    offs: Arr,
    is_prefix: Arr,
    drop_mode: int,
    secret: Arr,
    out: Arr,
    out_starts: Arr,
    hashes: Arr,
    status: Arr,
) -> None:
    """URL ``i`` is buf[starts[i]:starts[i+1]]; its canonical bytes go to out[out_starts[i]:out_starts[i+1]].

    ``status[i]``: 0 canonical and hashed, 1 for the exact path, 2 canonical but over 240 bytes
    (hash it outside). ``out`` needs 4 bytes per input byte plus 1 per URL, plus 8.
    """
    args = (
        buf,
        starts,
        max_length,
        names,
        offs,
        is_prefix,
        drop_mode,
        secret,
        out,
        out_starts,
        hashes,
        status,
    )
    if _c is not None:
        _c.canonical_batch(*args)
    else:
        _nb().canonical_batch(*args)


def canonical_one(
    buf: Arr, max_length: int, names: Arr, offs: Arr, is_prefix: Arr, drop_mode: int, secret: Arr
) -> tuple[int, int]:
    """(XXH3-64 of the canonical form, status) of one URL: status 0 hashed, 1 exact path, 2 too long to hash here."""
    if _c is not None:
        h, status = _c.canonical_one(buf, max_length, names, offs, is_prefix, drop_mode, secret)
    else:
        h, status = _nb().canonical_one(buf, max_length, names, offs, is_prefix, drop_mode, secret)
    return int(h), int(status)


def memory_check_add(keys: Arr, vals: Arr, hashes: Arr, now: int, recrawl: int, out: Arr) -> tuple[int, int]:
    """Check-and-add each hash (``out[i]``: new, or due for a recrawl); returns (new, due)."""
    if _c is not None:
        n_new, n_due = _c.memory_check_add(keys, vals, hashes, now, recrawl, out)
    else:
        n_new, n_due = _nb().memory_check_add(keys, vals, hashes, now, recrawl, out)
    return int(n_new), int(n_due)


def memory_record(keys: Arr, vals: Arr, hashes: Arr, stamp: int) -> int:
    """Set the last-fetch second of each hash to ``stamp`` (inserting it); return how many were new."""
    if _c is not None:
        return int(_c.memory_record(keys, vals, hashes, stamp))
    return int(_nb().memory_record(keys, vals, hashes, stamp))


def memory_contains(keys: Arr, hashes: Arr, out: Arr) -> None:
    """``out[i]``: whether hash ``i`` is in the table."""
    if _c is not None:
        _c.memory_contains(keys, hashes, out)
    else:
        _nb().memory_contains(keys, hashes, out)


def memory_remove(keys: Arr, vals: Arr, hashes: Arr) -> int:
    """Remove the hashes (backward-shift deletion); return how many were present."""
    if _c is not None:
        return int(_c.memory_remove(keys, vals, hashes))
    return int(_nb().memory_remove(keys, vals, hashes))


def memory_reinsert(keys: Arr, vals: Arr, old_keys: Arr, old_vals: Arr) -> None:
    """Move every entry of an old table into a new, empty, bigger one."""
    if _c is not None:
        _c.memory_reinsert(keys, vals, old_keys, old_vals)
    else:
        _nb().memory_reinsert(keys, vals, old_keys, old_vals)


def bloom_positions(hashes: Arr, k: int, shard_bits: int, shards: int, out_shard: Arr, out_pos: Arr) -> None:
    """The shard and the ``k`` bit positions (double hashing) of each hash."""
    if _c is not None:
        _c.bloom_positions(hashes, k, shard_bits, shards, out_shard, out_pos)
    else:
        _nb().bloom_positions(hashes, k, shard_bits, shards, out_shard, out_pos)


def bloom_check_add(words: Arr, hashes: Arr, k: int, shard_bits: int, shards: int, out: Arr) -> int:
    """Set each hash's ``k`` bits (``out[i]``: any was unset, i.e. new); return how many were new."""
    if _c is not None:
        return int(_c.bloom_check_add(words, hashes, k, shard_bits, shards, out))
    return int(_nb().bloom_check_add(words, hashes, k, shard_bits, shards, out))
