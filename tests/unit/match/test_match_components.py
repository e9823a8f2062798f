"""A batch as components of its candidate graph: keys and shared sketch values link documents, hot
values link nothing, and the pass per component gives the one-pass answer on a batch without
boilerplate."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
from dedup_synth import article
from test_match_engine import _copies, _corpus

from neardup.match import KINDS, MatchConfig, match_signatures, signatures
from neardup.match.components import batch_components, component_rows, match_components, union_find


def test_union_find_names_each_component_by_its_smallest_node() -> None:
    a = np.array([4, 2, 6, 1], np.int64)
    b = np.array([5, 5, 7, 3], np.int64)
    assert union_find(8, a, b).tolist() == [0, 1, 2, 1, 2, 2, 6, 6]
    ptr, rows = component_rows(np.array([0, 1, 2, 1, 2, 2, 6, 6]))
    assert ptr.tolist() == [0, 2, 5, 7] and rows.tolist() == [1, 3, 2, 4, 5, 6, 7]


def test_copies_share_a_component_and_unrelated_documents_stay_alone() -> None:
    rng = random.Random(2)
    a, b = article(rng, 14), article(rng, 14)
    texts = [a, b, *_copies(rng, a, 2), a, article(rng, 14)]
    labels, hot = batch_components(signatures(texts), MatchConfig())
    assert labels.tolist() == [0, 1, 0, 0, 0, 5] and hot.size == 0


def test_values_posted_by_more_than_hot_posting_documents_link_nothing() -> None:
    rng = random.Random(3)
    a = article(rng, 14)
    texts = [a, *_copies(rng, a, 4), article(rng, 14)]
    sigs = signatures(texts)
    labels, hot = batch_components(sigs, MatchConfig(hot_posting=3))
    assert hot.size > 20  # the article's values, posted by its five copies
    assert np.isin(hot, sigs.sketch[0, :32]).all()
    # the copies keep only what they do not share with all the others: too little to link
    assert len(set(labels[:5].tolist())) > 1
    assert batch_components(sigs, MatchConfig())[0][:5].tolist() == [0] * 5


def test_the_pass_per_component_gives_the_one_pass_answer_without_boilerplate() -> None:
    for seed in (1, 2):
        sigs = signatures(_corpus(seed))
        one = match_signatures(sigs)
        per = match_components(sigs)
        for name in ("rep", "kind", "partner", "similarity", "conflicts", "hamming", "text"):
            assert np.array_equal(getattr(one, name), getattr(per, name)), name
        assert {KINDS[k] for k in per.kind} >= {"unique", "near", "partial"}


def test_a_document_alone_in_its_component_is_unique_without_a_partner() -> None:
    rng = random.Random(5)
    texts = [article(rng, 12) for _ in range(4)]
    sigs = signatures(texts)
    out = match_components(sigs, dataclasses.replace(MatchConfig(), link_posters=1))
    assert out.kind.tolist() == [0, 0, 0, 0] and out.partner.tolist() == [-1] * 4
    assert out.rep.tolist() == [0, 1, 2, 3] and out.verified == 0
    one = match_signatures(sigs)
    assert np.array_equal(one.hamming, out.hamming) and np.array_equal(one.text, out.text)


def test_a_stock_phrase_shared_by_unrelated_documents_links_nothing_copies_and_quotes_do() -> None:
    from neardup.match.components import candidate_pairs

    rng = random.Random(4)
    stock = "以上就是今天新闻联播的全部内容，感谢收看，再见。"
    a = article(rng, 14)
    quote = article(rng, 8) + a[:160]  # a passage of a beside text of its own: partial
    texts = [article(rng, 2) + stock for _ in range(5)] + [a, *_copies(rng, a, 1), quote]
    sigs = signatures(texts)
    _, (sa, sb), _ = candidate_pairs(sigs, MatchConfig())
    assert {(0, 1), (1, 2), (3, 4)} <= set(
        zip(sa.tolist(), sb.tolist(), strict=True)
    )  # the stock phrase pairs them
    labels, _ = batch_components(sigs, MatchConfig())
    assert labels.tolist() == [0, 1, 2, 3, 4, 5, 5, 5]
    out = match_components(sigs)
    assert [KINDS[k] for k in out.kind[5:]] == ["unique", "near", "partial"]
    assert out.partner[7] in (5, 6)
