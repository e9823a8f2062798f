"""Evaluation tools: labelled sets (:func:`synthesize`, :func:`natural_truth`), scores
(:func:`evaluate`, :func:`score_clusters`), method sweeps (:func:`sweep`) and the HTML report
(:func:`build_report`, :func:`write_report`). The core library is :mod:`neardup`; these tools live
here, one import path each.

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
from neardup.eval.single_signal import RECOMMENDED, SweepRow, choose_default, graded_separation, sweep
from neardup.eval.synth import SynthConfig, natural_truth, ngram_jaccard, synthesize

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
    "ngram_jaccard",
    "pair_counts",
    "score_clusters",
    "sweep",
    "synthesize",
    "write_report",
]
