"""The C pass on two threads, components shared between them (and a large component first, with
the helper thread), answers exactly what one thread answers; the text evidence's sorts (radix for
long profiles, numba's quicksort order for window ties) give the numba kernel's evidence."""

from __future__ import annotations

import random

import numpy as np
import pytest
from dedup_synth import article
from test_match_engine import _copies
from test_match_pass_threads import _pass

from neardup.match import MatchConfig, kernels, signatures
from neardup.match.components import batch_components

pytestmark = pytest.mark.skipif(kernels.BACKEND != "c", reason="the shared components are the C pass's")


def test_a_large_component_and_many_small_ones_answer_as_on_one_thread(restore_threads: None) -> None:
    rng = random.Random(11)
    big = article(rng, 30)
    texts = [big, *_copies(rng, big, 560)]  # one component of 561 rows: an eighth of the rows or more
    for _ in range(120):  # and many small ones, shared between the two threads
        a = article(rng, 12)
        texts += [a, *_copies(rng, a, rng.randint(1, 4))]
    rng.shuffle(texts)
    cfg = MatchConfig()
    labels, _ = batch_components(signatures(texts, cfg), cfg)
    sizes = np.bincount(labels)
    assert sizes.max() >= 512 and (sizes > 1).sum() > 50
    one = _pass(texts, 1)
    assert int((one["kind"] > 0).sum()) > 600
    for _ in range(3):  # scheduling differs between runs; the answer does not
        two = _pass(texts, 2)
        for name in one:
            np.testing.assert_array_equal(one[name], two[name], err_msg=name)


def _profile_with_ties(rng: random.Random, n: int) -> str:
    """A long text whose passages repeat (equal windows at several places) with a few edits."""
    parts = [article(rng, 3) for _ in range(4)]
    return "".join(rng.choice(parts) for _ in range(n))


def test_text_evidence_of_long_profiles_with_repeated_windows_is_numbas() -> None:
    numba = pytest.importorskip("numba")  # noqa: F841  (the twin kernels)
    rng = random.Random(5)
    cfg = MatchConfig()
    a = _profile_with_ties(rng, 12)
    texts = [a, *_copies(rng, a, 3), _profile_with_ties(rng, 10), "short text"]
    sigs = signatures(texts, cfg)
    assert int(np.diff(sigs.prof_ptr).max()) >= 512  # the radix sorts and the pair argsort run
    nb_text = kernels._nb("text")
    for i in range(len(texts)):
        for j in range(len(texts)):
            got = kernels.text_evidence(
                sigs.profile(i), sigs.profile(j), cfg.text_window_cjk, cfg.text_window_latin
            )
            want = nb_text.text_evidence(
                sigs.profile(i), sigs.profile(j), cfg.text_window_cjk, cfg.text_window_latin
            )
            assert got.tolist() == np.asarray(want).tolist(), (i, j)


def test_rows_grouped_by_partner_equal_each_pair_alone() -> None:
    rng = random.Random(3)
    cfg = MatchConfig()
    sources = [article(rng, 10) for _ in range(6)]
    texts = [t for s in sources for t in (s, *_copies(rng, s, 4))]
    sigs = signatures(texts, cfg)
    n = len(texts)
    a = np.array([rng.randrange(n) for _ in range(300)], np.int64)
    b = np.array([rng.choice((0, 5, 10, 7)) for _ in range(300)], np.int64)  # partners shared by many rows
    got = kernels.text_evidence_rows(
        sigs.prof_ptr, sigs.prof, a, b, cfg.text_window_cjk, cfg.text_window_latin
    )
    for i in range(a.size):
        want = kernels.text_evidence(
            sigs.profile(int(a[i])), sigs.profile(int(b[i])), cfg.text_window_cjk, cfg.text_window_latin
        )
        assert got[i].tolist() == want.tolist()
