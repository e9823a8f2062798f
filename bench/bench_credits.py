"""What reading past a site's lines costs: ``strip_credits`` over every text of a corpus, best of N.

    NEARDUP_DATA=../shared/data python bench/bench_credits.py [zh-xwlb en-bbc en-20news] [--repeat 5]

Prints, per corpus, the texts, how many ``strip_credits`` changed and the best wall time of
``--repeat`` passes over all texts (read into memory first: parsing is not timed). The lines it
reads past are in ``neardup.text.credits``; the scan for reading links and prompts anywhere in a
text is the part that grows with the text's length.
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
from pathlib import Path

import orjson

from neardup.text.credits import strip_credits

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=["zh-xwlb", "en-bbc", "en-20news"])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    data = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
    for name in args.corpora:
        with gzip.open(data / f"{name}.jsonl.gz") as f:
            texts = [str(orjson.loads(line).get("text") or "") for line in f]
        best = float("inf")
        changed = 0
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            changed = sum(strip_credits(t) is not t for t in texts)
            best = min(best, time.perf_counter() - t0)
        print(f"{name:12s} {len(texts):7,d} texts  changed {changed:6,d}  best {best:.3f} s")


if __name__ == "__main__":
    main()
