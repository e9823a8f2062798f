from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.eval.metrics import Truth, evaluate
from neardup.eval.single_signal import SweepRow, choose_default, clusters_from_pairs, hamming_pairs


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=0, max_size=40), st.integers(0, 64))
def test_hamming_pairs_match_brute_force(values: list[int], k: int) -> None:
    fps = np.array(values, dtype=np.uint64)
    i, j, d = hamming_pairs(fps, k, block=7)
    got = set(zip(i.tolist(), j.tolist(), d.tolist(), strict=True))
    want = {
        (a, b, bin(values[a] ^ values[b]).count("1"))
        for a in range(len(values))
        for b in range(a + 1, len(values))
        if bin(values[a] ^ values[b]).count("1") <= k
    }
    assert got == want


def test_clusters_are_connected_components() -> None:
    labels = clusters_from_pairs(5, np.array([0, 1]), np.array([1, 4]))
    assert labels[0] == labels[1] == labels[4] != labels[2] != labels[3]


def _row(method: str, param: float, pred: dict[str, int]) -> SweepRow:
    truth = Truth.from_records(
        [
            {"id": "a", "group": "a"},
            {"id": "b", "group": "a", "kind": "near", "source": "a"},
            {"id": "c", "group": "c", "kind": "hard_negative", "negative_of": "a"},
            {"id": "d", "group": "d"},
        ]
    )
    return SweepRow(method, param, evaluate(pred, truth))


def test_choose_default_respects_the_hard_negative_floor_and_skips_the_reference() -> None:
    rows = [
        _row("simhash-words", 3, {"a": 0, "b": 1, "c": 2, "d": 3}),  # F1 0, precise
        _row("simhash-words", 4, {"a": 0, "b": 0, "c": 2, "d": 3}),  # perfect
        _row("simhash-words", 5, {"a": 0, "b": 0, "c": 0, "d": 3}),  # merges the look-alike
        _row("cosine", 0.9, {"a": 0, "b": 0, "c": 2, "d": 3}),
    ]
    best = choose_default(rows)
    assert best is not None and (best.method, best.param) == ("simhash-words", 4)
    assert choose_default(rows[2:3]) is None
    assert choose_default(rows, methods=["cosine"]).method == "cosine"  # type: ignore[union-attr]
    assert rows[1].to_dict()["f1"] == pytest.approx(1.0)
