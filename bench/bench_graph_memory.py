"""The candidate graph's sketch edges (``components.sketch_edges``) against a lower-memory way of
finding the same edges: peak memory, time, and a check that the edges are identical.

    .venv/bin/python bench/bench_graph_memory.py INPUT [--parts 1 4 8]

The graph is where ``neardup dedup`` peaks (docs/benchmarks.md, "peak memory of neardup dedup"):
on 195,410 zh documents ``counted_pairs`` holds 27.8 million distinct (poster, holder) pairs, and
its merges (concatenate, argsort, reorder) about 40 bytes each, to keep the 2.2 million shared by
at least ``min_shared`` values. The way measured here (``sketch_edges_parts``):

1. the sorted 64-bit keys become the (value, document, posted?) rows in place: 13 bytes a sketch
   value held, not 29 (the keys and their low halves are no longer kept beside the rows);
2. the pairs are counted in ``parts`` passes over the rows, each keeping only the pairs whose
   later document falls in its range of documents, and dropping the pairs shared by fewer than
   ``min_shared`` values before the next pass. A pair's count is the same in whichever pass it is
   counted, so the surviving pairs are the same; sorted, the edges are identical arrays.

The time is ``parts`` runs of the ``value_pairs`` kernel (cheap) and one count of every pair, as now.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.dedup.fingerprints import fingerprint_records  # noqa: E402
from neardup.io import iter_records  # noqa: E402
from neardup.match import components, kernels  # noqa: E402
from neardup.match.config import MatchConfig  # noqa: E402
from neardup.match.signature import EMPTY32  # noqa: E402

_EMPTY = np.empty(0, np.int64)


def _pairs_in(
    values: Any, docs: Any, posted: Any, config: MatchConfig, lo: int, hi: int, chunk: int = 1 << 21
) -> tuple[Any, Any]:
    """``components.counted_pairs`` keeping the pairs whose later document is in [lo, hi) and
    shared by at least ``min_shared`` values: (packed pairs, ascending; hot values)."""
    n = values.shape[0]
    parts_p: list[Any] = []
    parts_n: list[Any] = []
    hots = []
    held = merged = 0
    i = 0
    whole = lo == 0 and hi >= 1 << 32
    while i < n:
        j = i + chunk
        j = n if j >= n else int(np.searchsorted(values, values[j - 1], side="right"))  # whole values
        packed, hot = kernels.value_pairs(
            values[i:j], docs[i:j], posted[i:j], config.hot_posting, config.link_posters
        )
        hots.append(hot)
        if not whole:
            b = packed & np.uint64(0xFFFFFFFF)
            packed = packed[(b >= np.uint64(lo)) & (b < np.uint64(hi))]
            del b
        p, c = components.count_pairs(packed)
        del packed
        parts_p.append(p)
        parts_n.append(c)
        held += p.shape[0]
        if held > 2 * max(merged, chunk):
            parts_p, parts_n = components._merge_counts(parts_p, parts_n)
            held = merged = parts_p[0].shape[0]
        i = j
    parts_p, parts_n = components._merge_counts(parts_p, parts_n)
    p, c = parts_p[0], parts_n[0]
    hot_all = np.sort(np.concatenate(hots)) if hots else np.empty(0, np.uint32)
    return p[c >= config.min_shared], hot_all


def sketch_edges_parts(sketch: Any, config: MatchConfig, parts: int) -> tuple[Any, Any, Any]:
    """``components.sketch_edges``, the pairs counted in ``parts`` ranges of the later document."""
    n, k = sketch.shape
    if n == 0:
        return _EMPTY, _EMPTY, np.empty(0, np.uint32)
    flat = sketch.ravel()
    valid = flat != EMPTY32
    keys = flat.astype(np.uint64)
    keys <<= np.uint64(32)
    keys |= np.repeat(np.arange(n, dtype=np.uint64), k)
    keys[np.tile(np.arange(k) >= config.posted, n)] |= np.uint64(1 << 31)
    keys = keys[valid]
    del valid
    keys.sort()
    # the rows, in place of the keys: value, posted? (the flag bit), document
    values = (keys >> np.uint64(32)).astype(np.uint32)
    keys &= np.uint64(0xFFFFFFFF)
    posted = keys < np.uint64(1 << 31)
    keys &= np.uint64(0x7FFFFFFF)
    docs = keys.view(np.int64)
    del keys
    bounds = np.linspace(0, n, parts + 1).astype(np.int64).tolist()
    bounds[-1] = 1 << 32
    got = []
    hot = np.empty(0, np.uint32)
    for r in range(parts):
        p, h = _pairs_in(values, docs, posted, config, bounds[r], bounds[r + 1])
        if r == 0:
            hot = h
        got.append(p)
    pairs = np.sort(np.concatenate(got))
    a = (pairs >> np.uint64(32)).astype(np.int64)
    return a, (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64), hot


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _fresh_peak() -> int:
    """Return the free heap to the system and restart the peak: the resident set now."""
    ctypes.CDLL(None).malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status("VmRSS")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--parts", type=int, nargs="*", default=[1, 4, 8])
    args = ap.parse_args()
    config = DedupConfig()
    sketch = fingerprint_records(iter_records([args.input]), config).sigs.sketch
    print(f"{sketch.shape[0]:,} documents, {int((sketch != EMPTY32).sum()):,} sketch values")
    base = _fresh_peak()
    t = time.perf_counter()
    ref = components.sketch_edges(sketch, config.match)
    print(
        f"sketch_edges               {time.perf_counter() - t:6.1f} s, peak above the batch "
        f"{(_status('VmHWM') - base) / 2**20:6.0f} MB, {ref[0].size:,} edges"
    )
    for parts in args.parts:
        base = _fresh_peak()
        t = time.perf_counter()
        got = sketch_edges_parts(sketch, config.match, parts)
        same = all(np.array_equal(x, y) for x, y in zip(got, ref, strict=True))
        print(
            f"sketch_edges_parts({parts:2d})     {time.perf_counter() - t:6.1f} s, peak above the batch "
            f"{(_status('VmHWM') - base) / 2**20:6.0f} MB, identical: {same}"
        )
        del got


if __name__ == "__main__":
    main()
