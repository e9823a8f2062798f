"""Evaluation: labelled sets (``synthesize``), scores (``evaluate``), method sweeps and the HTML report.

>>> from neardup.eval import Truth, evaluate
>>> t = Truth.from_records([{"id": "a", "group": "g"}, {"id": "b", "group": "g"}])
>>> evaluate({"a": 1, "b": 1}, t).duplicates.f1
1.0
"""

from __future__ import annotations

from neardup.eval.metrics import (
    Evaluation,
    Scores,
    Truth,
    TruthDoc,
    adjusted_rand_index,
    evaluate,
    pair_counts,
    score_clusters,
)
from neardup.eval.report import build_report, write_report
from neardup.eval.sweep import RECOMMENDED, SweepRow, choose_default, graded_separation, sweep
from neardup.eval.synth import SynthConfig, natural_truth, synthesize

__all__ = [
    "RECOMMENDED",
    "Evaluation",
    "Scores",
    "SweepRow",
    "SynthConfig",
    "Truth",
    "TruthDoc",
    "adjusted_rand_index",
    "build_report",
    "choose_default",
    "evaluate",
    "graded_separation",
    "natural_truth",
    "pair_counts",
    "score_clusters",
    "sweep",
    "synthesize",
    "write_report",
]
