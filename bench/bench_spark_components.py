"""Components of a batch: the candidate graph's, the verified graph's (``verified_components``),
and how far the per-component answer is from one pass over the whole batch.

    NEARDUP_DATA=../shared/data python bench/bench_spark_components.py zh-xwlb en-20news

Per corpus, one JSON line: sketch pairs; the largest component of the candidate graph (every
pair an edge), before boilerplate (``first_components``) and after (``verified_components``); a
histogram of the verified components' sizes; the batch's boilerplate values; the wall time of
``match_components`` (median of ``--repeat``, default 3) with the default ``max_component`` (the
candidate graph's components below it) and forced to 1 (the verified cut), alternated; and the
keep/remove verdicts, kinds and partners that differ from one pass over the batch
(``match_signatures``) in each regime.
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))

from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.dedup.fingerprints import fingerprint_records  # noqa: E402
from neardup.io import iter_records  # noqa: E402
from neardup.match import match_signatures  # noqa: E402
from neardup.match.components import (  # noqa: E402
    candidate_pairs,
    first_components,
    match_components,
    union_find,
    verified_components,
)

BUCKETS = [(1, 1), (2, 2), (3, 9), (10, 99), (100, 999), (1000, 10**12)]


def histogram(labels: np.ndarray) -> dict[str, int]:
    """Components by size: how many of each size bucket."""
    sizes = np.bincount(labels)
    sizes = sizes[sizes > 0]
    return {
        f"{lo}-{hi}" if hi < 10**12 else f"{lo}+": int(((sizes >= lo) & (sizes <= hi)).sum())
        for lo, hi in BUCKETS
    }


def main() -> None:
    args = sys.argv[1:]
    repeat = 3
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i : i + 2]
    for name in args or ["zh-xwlb", "en-20news"]:
        cfg = DedupConfig()
        m = cfg.match
        sigs = fingerprint_records(iter_records([DATA / f"{name}.jsonl.gz"], skip_bad=True), cfg).sigs
        n = len(sigs)
        (ka, kb), (sa, sb), _ = candidate_pairs(sigs, m)
        candidate = union_find(n, np.concatenate([ka, sa]), np.concatenate([kb, sb]))
        first, _, _, _ = first_components(sigs, m)
        labels, _, (values, _) = verified_components(sigs, m)
        cut = dataclasses.replace(m, max_component=1)
        secs: dict[str, list[float]] = {"plain": [], "verified": []}
        for _ in range(repeat):
            for name_, c in (("plain", m), ("verified", cut)):
                t0 = time.perf_counter()
                match_components(sigs, c)
                secs[name_].append(time.perf_counter() - t0)
        one = match_signatures(sigs, m)
        plain, per = match_components(sigs, m), match_components(sigs, cut)
        ar = np.arange(n)
        report = {
            "corpus": name,
            "docs": n,
            "sketch_pairs": int(sa.size),
            "largest_candidate_graph": int(np.bincount(candidate).max()),
            "largest_before_boilerplate": int(np.bincount(first).max()),
            "largest_verified": int(np.bincount(labels).max()),
            "sizes_verified": histogram(labels),
            "boilerplate_values": int(values.size),
            "max_component": m.max_component,
            "match_components_s": round(statistics.median(secs["plain"]), 2),
            "match_components_verified_s": round(statistics.median(secs["verified"]), 2),
            "vs_one_pass_verdicts": int(((one.rep != ar) != (plain.rep != ar)).sum()),
            "vs_one_pass_kinds": int((one.kind != plain.kind).sum()),
            "verified_vs_one_pass_verdicts": int(((one.rep != ar) != (per.rep != ar)).sum()),
            "verified_vs_one_pass_kinds": int((one.kind != per.kind).sum()),
            "verified_vs_one_pass_partners": int((one.partner != per.partner).sum()),
            "load": round(os.getloadavg()[0], 1),
        }
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
