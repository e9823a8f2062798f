"""Peak memory and time of the candidate graph's sketch edges (``components.sketch_edges``) with
the pairs counted in one range of the later document, in the number of ranges the library picks
(``components.shared_pairs``: about a quarter of the rows' count of pairs held at once), and in
given numbers of ranges; and a check that the edges and hot values are identical arrays.

    .venv/bin/python bench/bench_graph_memory.py INPUT [--parts 4 8]

The graph is where ``neardup dedup`` peaks (docs/benchmarks.md, "peak memory of neardup dedup"):
counted at once, the pairs of 195,410 zh documents are 27.8 million distinct (poster, holder)
pairs, about 40 bytes each while merging, to keep the 2.2 million shared by at least
``min_shared`` values. Each range is one more pass of the ``value_pairs`` kernel over the rows.
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
from neardup.match import components  # noqa: E402
from neardup.match.config import MatchConfig  # noqa: E402
from neardup.match.signature import EMPTY32  # noqa: E402


def sketch_edges_parts(sketch: Any, config: MatchConfig, parts: int) -> tuple[Any, Any, Any]:
    """``components.sketch_edges`` with the pairs counted in ``parts`` ranges of the later
    document (``bench_dedup_stages.py --graph-parts``)."""
    return components.sketch_edges(sketch, config, parts=parts)


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
    ap.add_argument("--parts", type=int, nargs="*", default=[4, 8])
    args = ap.parse_args()
    config = DedupConfig()
    sketch = fingerprint_records(iter_records([args.input]), config).sigs.sketch
    print(f"{sketch.shape[0]:,} documents, {int((sketch != EMPTY32).sum()):,} sketch values")
    ref = None
    for parts in [1, None, *args.parts]:
        base = _fresh_peak()
        t = time.perf_counter()
        got = components.sketch_edges(sketch, config.match, parts=parts)
        spent = time.perf_counter() - t
        peak = (_status("VmHWM") - base) / 2**20
        if ref is None:
            ref, same = got, True
        else:
            same = all(np.array_equal(x, y) for x, y in zip(got, ref, strict=True))  # type: ignore[arg-type]
        name = "auto" if parts is None else str(parts)
        print(
            f"parts {name:>4}  {spent:6.1f} s, peak above the batch {peak:6.0f} MB, "
            f"{got[0].size:,} edges, identical to one part: {same}"
        )
        del got


if __name__ == "__main__":
    main()
