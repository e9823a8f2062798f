"""Wall time of each stage of ``neardup dedup`` in one process: imports, read + parse, sign, match,
rows + write (the CLI's own calls, default settings).

    .venv/bin/python bench/bench_dedup_stages.py ../shared/data/zh-xwlb.jsonl.gz [--out /tmp/out.jsonl]

The records are read into a list first so reading is timed apart from signing (the CLI streams
them): on large inputs the list itself costs memory and garbage-collector time. Within match, the
candidate graph (``components.batch_components``) and the pass (``engine.run_components``, with the
CPU seconds of the calling thread: the rest of the pass's CPU is its helper thread's) are timed too.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

t0 = time.perf_counter()
import neardup.cli.dedup  # noqa: E402, F401  (the CLI's imports, as a run pays them)
from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.dedup.fingerprints import fingerprint_records  # noqa: E402
from neardup.dedup.local import dedup_fingerprints  # noqa: E402
from neardup.dedup.rethreshold import decision_rows  # noqa: E402
from neardup.formats import write_records  # noqa: E402
from neardup.io import iter_records  # noqa: E402
from neardup.match import components  # noqa: E402

IMPORTS = time.perf_counter() - t0
SPENT: dict[str, list[float]] = {}


def _timed(name: str, fn: Any) -> Any:
    """``fn``, adding its wall seconds and its thread's CPU seconds to ``SPENT[name]``."""

    def run(*args: Any, **kwargs: Any) -> Any:
        t, c = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            got = SPENT.setdefault(name, [0.0, 0.0])
            got[0] += time.perf_counter() - t
            got[1] += time.thread_time() - c

    return run


components.batch_components = _timed("graph", components.batch_components)
components.run_components = _timed("pass", components.run_components)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "neardup-stages.jsonl"))
    args = ap.parse_args()
    print(f"imports       {IMPORTS:7.2f} s")
    t = time.perf_counter()
    recs = list(iter_records([args.input]))
    print(f"read + parse  {time.perf_counter() - t:7.2f} s  ({len(recs):,} records)")
    config = DedupConfig()
    t = time.perf_counter()
    fps = fingerprint_records(iter(recs), config)
    print(f"sign          {time.perf_counter() - t:7.2f} s")
    t = time.perf_counter()
    result = dedup_fingerprints(fps, config, None)
    print(f"match         {time.perf_counter() - t:7.2f} s")
    for name, (wall, cpu) in SPENT.items():
        print(f"  {name:<11} {wall:7.2f} s  (calling thread's CPU {cpu:.2f} s)")
    t = time.perf_counter()
    write_records(args.out, decision_rows(result), "jsonl")
    print(f"rows + write  {time.perf_counter() - t:7.2f} s")


if __name__ == "__main__":
    main()
