"""What records' dates cost: bytes a corpus index row's day takes on disk, and ContentSeen's memory
and state step per document with and without dates (the same dated news pages).

python bench/bench_dates_cost.py index --count 5000
python bench/bench_dates_cost.py contentseen --count 3000
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "../shared/data/zh-xwlb.jsonl.gz"


def _news(count: int) -> list[dict[str, Any]]:
    out = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line))
            if len(out) == count:
                break
    return out


def index_cost(count: int) -> None:
    """Part bytes of an index of dated records, with and without the day column."""
    import pyarrow.parquet as pq

    from neardup.dedup.config import DedupConfig
    from neardup.dedup.fingerprints import fingerprint_records
    from neardup.dedup.index import DAY, CorpusIndex
    from neardup.io import Record

    cfg = DedupConfig(workers=1)
    recs = [Record(id=d["id"], text=d["text"], extra={"date": d["date"]}) for d in _news(count)]
    fps = fingerprint_records(recs, cfg)
    d = Path(tempfile.mkdtemp())
    ix = CorpusIndex.create(d / "idx", cfg, fps)
    with_day = without = 0
    for seg in ix.segments:
        for pt in seg["parts"]:
            with_day += int(pt["bytes"])
            f = d / "idx" / seg["name"] / pt["file"]
            pq.write_table(pq.read_table(f).drop_columns([DAY]), d / "x.parquet", row_group_size=1 << 18)
            without += (d / "x.parquet").stat().st_size
    print(f"rows {len(fps)}: parts {with_day} B with days, {without} B without: "
          f"{(with_day - without) / len(fps):.2f} B/row")  # fmt: skip


def contentseen_cost(count: int) -> None:
    """Traced memory and state-step time per document, pages checked without then with dates."""
    from neardup.contentseen import ContentSeen

    pages = _news(count)
    with ContentSeen() as warm:
        warm.check("https://warm.invalid/", text=pages[0]["text"], date=pages[0]["date"])
    for dated in (False, True, True, False, False, True):
        with ContentSeen() as cs:
            analyses = [cs.analyse(text=p["text"]) for p in pages]
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            t0 = time.perf_counter()
            for p, a in zip(pages, analyses, strict=True):
                cs.check_analysed(f"https://x.example/{p['id']}", a, date=p["date"] if dated else None)
            secs = time.perf_counter() - t0
            gc.collect()
            used = tracemalloc.get_traced_memory()[0] - base
            tracemalloc.stop()
        print(f"dates={dated}: state step {secs / count * 1e6:.0f} us/doc, traced {used / count:.0f} B/doc")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("index", "contentseen"))
    ap.add_argument("--count", type=int, default=3000)
    args = ap.parse_args()
    (index_cost if args.what == "index" else contentseen_cost)(args.count)


if __name__ == "__main__":
    main()
