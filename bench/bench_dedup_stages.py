"""Wall time of each stage of ``neardup dedup`` in one process: imports, read + parse, sign, match,
rows + write (the CLI's own calls, default settings).

    .venv/bin/python bench/bench_dedup_stages.py ../shared/data/zh-xwlb.jsonl.gz [--out /tmp/out.jsonl]

The records are read into a list first so reading is timed apart from signing (the CLI streams
them): on large inputs the list itself costs memory and garbage-collector time.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

t0 = time.perf_counter()
import neardup.cli.dedup  # noqa: E402, F401  (the CLI's imports, as a run pays them)
from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.dedup.fingerprints import fingerprint_records  # noqa: E402
from neardup.dedup.local import dedup_fingerprints  # noqa: E402
from neardup.dedup.rethreshold import decision_rows  # noqa: E402
from neardup.formats import write_records  # noqa: E402
from neardup.io import iter_records  # noqa: E402

IMPORTS = time.perf_counter() - t0


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
    t = time.perf_counter()
    write_records(args.out, decision_rows(result), "jsonl")
    print(f"rows + write  {time.perf_counter() - t:7.2f} s")


if __name__ == "__main__":
    main()
