"""The match engine's pass in C (``_match_c``) against its numba kernels, warm, in one process.

    python bench/match_c_vs_numba.py /work/shared/data/zh-xwlb.jsonl.gz [--limit N] [--repeat 3]

Signs the documents once, then runs the batch pass (``EngineState.run``), the stream (one
``EngineState.run`` per document, the first 2,000) and ``compare``'s pair check on every reported
pair, each with the C kernels and with numba's (compiled first, outside the timing), best of
``--repeat``; checks the outputs agree and prints seconds and the ratio.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from neardup.match import kernels
from neardup.match.config import MatchConfig
from neardup.match.engine import EngineState
from neardup.match.signature import signatures
from neardup.match.verify import evidence


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with gzip.open(args.path, "rt", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    if args.limit:
        texts = texts[: args.limit]
    cfg = MatchConfig()
    sigs = signatures(texts, cfg)
    stream = sigs.take(slice(0, min(2000, len(sigs))))

    def batch() -> dict[str, np.ndarray]:
        return EngineState(cfg).run(sigs)

    def one_by_one() -> list[int]:
        st = EngineState(cfg)
        return [int(st.run(stream.take([i]))["rep"][0]) for i in range(len(stream))]

    pairs = [(i, int(p)) for i, p in enumerate(batch()["partner"]) if p >= 0]

    def compare() -> list[Any]:
        return [evidence(sigs, i, sigs, j, cfg) for i, j in pairs]

    rows = []
    for name, fn in (("batch pass", batch), ("stream (2,000 docs)", one_by_one), ("compare pairs", compare)):
        t_c, out_c = _best(fn, args.repeat)
        saved = kernels._c
        kernels._c = None
        try:
            fn()  # compile (or load) the numba kernels outside the timing
            t_nb, out_nb = _best(fn, args.repeat)
        finally:
            kernels._c = saved
        same = (
            all(np.array_equal(out_c[k], out_nb[k]) for k in out_c)
            if isinstance(out_c, dict)
            else out_c == out_nb
        )
        rows.append((name, t_c, t_nb, same))
    print(f"{args.path}: {len(sigs):,} documents, {len(pairs):,} pairs; best of {args.repeat}")
    for name, t_c, t_nb, same in rows:
        print(f"  {name:22s} C {t_c:8.3f} s  numba {t_nb:8.3f} s  numba/C {t_nb / t_c:5.2f}  same={same}")


if __name__ == "__main__":
    main()
