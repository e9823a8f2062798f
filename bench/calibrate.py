"""Calibrate the match engine's decision thresholds on labelled development sets.

    python bench/calibrate.py DEV.jsonl [DEV2.jsonl ...]     (each with DEV-truth.jsonl beside it)

Signatures are computed once per set; every combination of thresholds in the grid runs the
engine's pass (``match_signatures``) and is scored with ``neardup.eval.metrics.evaluate``. The rule
(docs/quality.md): the best mean F1 on duplicate pairs among settings that merge at most 1 % of the
hard-negative look-alikes of all sets together, partial recall as a tie-break. Sets are made with
``neardup synth`` (realistic profile) from ../shared/data at run time; none is committed.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_records
from neardup.eval.metrics import Truth, evaluate
from neardup.io import iter_records
from neardup.match import KINDS, MatchConfig, match_signatures

GRID: dict[str, list[Any]] = {
    "near_similarity": [0.5, 0.55],
    "near_containment": [0.6, 0.65, 0.7, 0.75],
    "containment_min_similarity": [0.2, 0.25, 0.3],
    "agree_containment": [0.5, 0.55, 0.6, 0.65],
    "agree_min": [8, 10, 12, 16],
    "partial_containment": [0.3],
}


def load(path: Path) -> tuple[Any, Truth]:
    truth = Truth.load(path.with_name(path.name.replace(".jsonl", "-truth.jsonl")))
    fps = fingerprint_records(iter_records([str(path)]), DedupConfig())
    return fps, truth


def score(fps: Any, truth: Truth, cfg: MatchConfig) -> dict[str, float]:
    c = match_signatures(fps.sigs, cfg)
    ids = fps.ids
    pred = {ids[i]: ids[int(r)] for i, r in enumerate(c.rep)}
    related = {
        ids[i]: ids[int(p)]
        for i, (k, p) in enumerate(zip(c.kind, c.partner, strict=True))
        if KINDS[k] in ("partial", "layout")
    }
    ev = evaluate(pred, truth, related)
    return {
        "f1": ev.duplicates.f1,
        "precision": ev.duplicates.precision,
        "recall": ev.duplicates.recall,
        "hn_merged": ev.hard_negatives_merged or 0.0,
        "near": ev.recall_by_kind.get("near", 0.0),
        "partial": ev.recall_by_kind.get("partial", 0.0),
    }


def main(argv: list[str]) -> int:
    sets = [load(Path(p)) for p in argv]
    base = MatchConfig()
    keys = list(GRID)
    rows = []
    t0 = time.perf_counter()
    for values in itertools.product(*(GRID[k] for k in keys)):
        cfg = replace(base, **dict(zip(keys, values, strict=True)))
        per = [score(fps, truth, cfg) for fps, truth in sets]
        rows.append(
            {
                "settings": dict(zip(keys, values, strict=True)),
                "sets": per,
                "mean_f1": float(np.mean([p["f1"] for p in per])),
                "max_hn": float(np.mean([p["hn_merged"] for p in per])),
                "min_partial": min(p["partial"] for p in per),
            }
        )
    ok = [r for r in rows if r["max_hn"] <= 0.01] or rows
    ok.sort(key=lambda r: (-r["mean_f1"], -r["min_partial"]))
    best = ok[0]
    print(
        json.dumps(
            {
                "combinations": len(rows),
                "seconds": round(time.perf_counter() - t0, 1),
                "best": best,
                "runner_up": ok[1:4],
                "defaults": score_all(sets, base),
            },
            indent=1,
        )
    )
    return 0


def score_all(sets: list[tuple[Any, Truth]], cfg: MatchConfig) -> list[dict[str, float]]:
    return [score(fps, truth, cfg) for fps, truth in sets]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
