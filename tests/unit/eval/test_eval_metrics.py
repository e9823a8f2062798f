from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.eval.metrics import Truth, adjusted_rand_index, evaluate, pair_counts, score_clusters
from neardup.exceptions import InputError


def _brute(pred: list[int], true: list[int]) -> tuple[int, int, int]:
    tp = npred = ntrue = 0
    for a, b in itertools.combinations(range(len(pred)), 2):
        same_p, same_t = pred[a] == pred[b], true[a] == true[b]
        npred += same_p
        ntrue += same_t
        tp += same_p and same_t
    return tp, npred, ntrue


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=25))
def test_pair_counts_match_brute_force(labels: list[tuple[int, int]]) -> None:
    pred = [a for a, _ in labels]
    true = [b for _, b in labels]
    assert pair_counts(pred, true) == _brute(pred, true)


def test_pair_precision_and_recall_of_a_small_example() -> None:
    # 3 true pairs, 2 predicted of which 1 true
    s = score_clusters({"a": 1, "b": 1, "c": 2, "d": 2}, {"a": "x", "b": "x", "c": "x", "d": "y"})
    assert (s.tp, s.fp, s.fn) == (1, 1, 2)
    assert s.precision == pytest.approx(0.5)
    assert s.recall == pytest.approx(1 / 3)
    assert s.f1 == pytest.approx(0.4)


def test_ari_is_one_for_identical_and_near_zero_for_random() -> None:
    true = [i // 4 for i in range(400)]
    assert adjusted_rand_index(true, true) == 1.0
    rng = random.Random(0)
    pred = [rng.randrange(100) for _ in true]
    assert abs(adjusted_rand_index(pred, true)) < 0.05


def test_missing_predictions_are_singletons_and_unknown_ids_ignored() -> None:
    s = score_clusters({"a": 0, "zzz": 0}, {"a": "g", "b": "g"})
    assert (s.tp, s.fp, s.fn) == (0, 0, 1)


def _truth() -> Truth:
    return Truth.from_records(
        [
            {"id": "s", "group": "s"},
            {"id": "s1", "group": "s", "kind": "near", "source": "s"},
            {"id": "s2", "group": "s", "kind": "partial", "source": "s"},
            {"id": "h", "group": "h", "kind": "hard_negative", "negative_of": "s"},
            {"id": "o", "group": "o"},
        ]
    )


def test_evaluate_breaks_down_by_kind_and_hard_negatives() -> None:
    ev = evaluate({"s": 1, "s1": 1, "s2": 2, "h": 1, "o": 3}, _truth())
    assert ev.duplicates.tp == 1 and ev.duplicates.fp == 2  # s-h and s1-h are wrong
    assert ev.hn_precision == pytest.approx(1 / 3)
    assert ev.hard_negatives_merged == 1.0
    assert ev.recall_by_kind == {"near": 1.0, "partial": 0.0}
    perfect = evaluate({"s": 1, "s1": 1, "s2": 1, "h": 2, "o": 3}, _truth())
    assert perfect.overall.f1 == 1.0 and perfect.hn_precision == 1.0
    assert perfect.to_dict()["duplicates"]["f1"] == 1.0


def test_truth_file_round_trip_and_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "truth.jsonl"
    _truth().save(p)
    again = Truth.load(p)
    assert again.docs == _truth().docs
    p.write_text('{"id": "a"}\n')
    with pytest.raises(InputError, match="group"):
        Truth.load(p)
    p.write_text('{"id": "a", "group": "g", "kind": "sort-of"}\n')
    with pytest.raises(InputError, match="kind must be one of"):
        Truth.load(p)
    p.write_text('{"id": "a", "group": "g"}\n{"id": "a", "group": "g"}\n')
    with pytest.raises(InputError, match="twice"):
        Truth.load(p)
