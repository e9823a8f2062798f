"""Components of a batch's candidate graph before and after verifying its pairs, and how far the
per-component answer is from one pass over the whole batch.

    NEARDUP_DATA=../shared/data python bench/bench_spark_components.py zh-xwlb en-20news

Per corpus: candidate pairs, the pair kinds from the two documents alone, the largest component of
the candidate graph, of the verified graph (``batch_components``) and of the merging pairs only,
the time to verify, and the kinds, partners and keep/remove verdicts that differ between the
per-component pass (``match_components``) and one pass (``match_signatures``). One JSON line each.
"""

from __future__ import annotations

import json
import os
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
    _kinds_serial,
    batch_components,
    candidate_pairs,
    match_components,
    pair_rule,
    union_find,
)
from neardup.match.verify import KINDS  # noqa: E402


def main() -> None:
    for name in sys.argv[1:] or ["zh-xwlb", "en-20news"]:
        cfg = DedupConfig()
        m = cfg.match
        sigs = fingerprint_records(iter_records([DATA / f"{name}.jsonl.gz"]), cfg).sigs
        n = len(sigs)
        (ka, kb), (sa, sb), _ = candidate_pairs(sigs, m)
        idx = np.arange(sa.size)
        t0 = time.perf_counter()
        # every pair verified (distinct nodes: nothing is skipped), to count the kinds
        kinds = _kinds_serial(idx, sa, sb, sigs.columns(), np.diff(sigs.prof_ptr) > 0, pair_rule(m), True)
        verify_s = time.perf_counter() - t0
        merging = np.isin(kinds, [1, 2, 3, 6])

        def largest(
            a: np.ndarray, b: np.ndarray, n: int = n, ka: np.ndarray = ka, kb: np.ndarray = kb
        ) -> int:
            return int(np.bincount(union_find(n, np.concatenate([ka, a]), np.concatenate([kb, b]))).max())

        labels, _ = batch_components(sigs, m)
        one = match_signatures(sigs, m)
        per = match_components(sigs, m)
        ar = np.arange(n)
        report = {
            "corpus": name,
            "docs": n,
            "sketch_pairs": int(sa.size),
            "pair_kinds": {KINDS[k]: int(c) for k, c in enumerate(np.bincount(kinds, minlength=8)) if c},
            "verify_all_s": round(verify_s, 2),
            "largest_candidate_graph": largest(sa, sb),
            "largest_verified": int(np.bincount(labels).max()),
            "largest_merging_only": largest(sa[merging], sb[merging]),
            "alone_verified": int((np.bincount(labels) == 1).sum()),
            "vs_one_pass_kinds": int((one.kind != per.kind).sum()),
            "vs_one_pass_partners": int((one.partner != per.partner).sum()),
            "vs_one_pass_verdicts": int(((one.rep != ar) != (per.rep != ar)).sum()),
            "load": round(os.getloadavg()[0], 1),
        }
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
