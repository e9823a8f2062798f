"""The pass with a helper thread (text evidence of a document's candidate pairs computed on two
threads) answers exactly what it answers on one thread, on the shared corpora and on made-up copies."""

from __future__ import annotations

import random

import numpy as np
import pytest
from dedup_synth import article
from test_match_engine import _copies

from neardup.match import MatchConfig, kernels, signatures
from neardup.match.candidates import simhash_pairs
from neardup.match.components import batch_components, component_rows
from neardup.match.engine import run_components
from neardup_testing import corpus_texts

pytestmark = pytest.mark.skipif(kernels.BACKEND != "c", reason="the helper thread is in the C pass")


def _pass(texts: list[str], threads: int) -> dict[str, np.ndarray]:
    cfg = MatchConfig()
    sigs = signatures(texts, cfg)
    extra = simhash_pairs(sigs, cfg) if cfg.candidate_distance is not None else None
    labels, _ = batch_components(sigs, cfg, extra)
    ptr, rows = component_rows(labels)
    csr = None
    if extra is not None:
        a, b = extra
        cnt = np.zeros(len(sigs) + 1, np.int64)
        np.add.at(cnt, b + 1, 1)
        csr = (np.cumsum(cnt), a[np.lexsort((a, b))])
    kernels.set_threads(threads)
    return run_components(sigs, cfg, ptr, rows, extra=csr)


def _same(one: dict[str, np.ndarray], two: dict[str, np.ndarray]) -> None:
    assert one.keys() == two.keys()
    for name in one:
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)


def test_two_threads_answer_as_one_on_the_corpora(restore_threads: None) -> None:
    texts = corpus_texts(1500)
    if not texts:
        pytest.skip("the shared corpora are missing")
    one = _pass(texts, 1)
    assert int(one["verified"][0]) > 1000 and int((one["kind"] > 0).sum()) > 50  # pairs to share
    for _ in range(2):  # scheduling differs between runs; the answer does not
        _same(one, _pass(texts, 2))


def test_two_threads_answer_as_one_on_copies(restore_threads: None) -> None:
    rng = random.Random(7)
    texts: list[str] = []
    for _ in range(40):
        a = article(rng, 20)
        texts += [a, *_copies(rng, a, 4)]
    rng.shuffle(texts)
    _same(_pass(texts, 1), _pass(texts, 2))


def test_threads_are_one_or_two(restore_threads: None) -> None:
    assert kernels.set_threads(1) == 1
    assert kernels.set_threads(8) == 2
    assert kernels.set_threads(0) in (1, 2)
    with pytest.raises(ValueError, match="threads must be >= 0"):
        kernels.set_threads(-1)
