"""kernels.text_evidence_rows (many pairs at once, two threads) gives each pair's text_evidence."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.match import MatchConfig
from neardup.match.kernels import text_evidence, text_evidence_rows
from neardup.match.signature import signatures
from neardup_testing import corpus_texts


def test_many_pairs_at_once_equal_each_pair_alone() -> None:
    texts = corpus_texts(300)
    cfg = MatchConfig()
    sigs = signatures(texts, cfg)
    rng = np.random.default_rng(7)
    a = rng.integers(0, len(texts), 500)
    b = rng.integers(0, len(texts), 500)
    got = text_evidence_rows(sigs.prof_ptr, sigs.prof, a, b, cfg.text_window_cjk, cfg.text_window_latin)
    for i in range(len(a)):
        want = text_evidence(
            sigs.profile(int(a[i])), sigs.profile(int(b[i])), cfg.text_window_cjk, cfg.text_window_latin
        )
        assert got[i].tolist() == want.tolist()


def test_rows_outside_the_profiles_are_refused_or_zero() -> None:
    sigs = signatures(["一段文字。", "another text here"], MatchConfig())
    out = text_evidence_rows(sigs.prof_ptr, sigs.prof, [0, 5], [1, 0], 8, 4)
    assert out[1].tolist() == [0] * out.shape[1]
    with pytest.raises((ValueError, TypeError)):
        text_evidence_rows(sigs.prof_ptr[::-1].copy(), sigs.prof, [0], [1], 8, 4)
