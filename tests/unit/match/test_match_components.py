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
from neardup.match.cluster import Clusters
from neardup.match.components import (
    batch_boilerplate,
    batch_components,
    boilerplate_table,
    component_rows,
    first_components,
    largest_component,
    match_components,
    pass_order,
    union_find,
    verified_components,
)
from neardup.match.engine import run_components


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
    labels, _, _, hot = first_components(sigs, MatchConfig(hot_posting=3))
    assert hot.size > 20  # the article's values, posted by its five copies
    assert np.isin(hot, sigs.sketch[0, :32]).all()
    # the copies keep only what they do not share with all the others: too little to link
    assert len(set(labels[:5].tolist())) > 1
    plain, _ = batch_components(sigs, MatchConfig(hot_posting=3))
    assert len(set(plain[:5].tolist())) > 1  # the candidate graph's components alike
    # the pass's own pairs link them: the article posts its values once, as its representative
    assert verified_components(sigs, MatchConfig(hot_posting=3))[0][:5].tolist() == [0] * 5
    assert batch_components(sigs, MatchConfig())[0][:5].tolist() == [0] * 5


def test_the_pass_per_component_gives_the_one_pass_answer_without_boilerplate() -> None:
    first = MatchConfig(keep="first")
    for seed in (1, 2):
        sigs = signatures(_corpus(seed))
        one = match_signatures(sigs, first)
        per = match_components(sigs, first)
        for name in ("rep", "kind", "partner", "similarity", "conflicts", "hamming", "text"):
            assert np.array_equal(getattr(one, name), getattr(per, name)), name
        assert {KINDS[k] for k in per.kind} >= {"unique", "near", "partial"}


def test_with_keep_fuller_each_component_is_taken_longest_text_first() -> None:
    for seed in (1, 2):
        sigs = signatures(_corpus(seed))
        per = match_components(sigs)
        # one pass over the documents sorted by pass_order gives the same answer
        key = pass_order(sigs, MatchConfig())
        assert key is not None and pass_order(sigs, MatchConfig(keep="first")) is None
        perm = np.lexsort((np.arange(len(sigs)), key))
        one = match_signatures(sigs.take(perm))
        back = np.empty_like(perm)
        back[perm] = np.arange(perm.shape[0])
        assert np.array_equal(perm[one.rep][back], per.rep)
        assert np.array_equal(np.where(one.partner >= 0, perm[one.partner], -1)[back], per.partner)
        for name in ("kind", "similarity", "conflicts", "hamming", "text"):
            assert np.array_equal(getattr(one, name)[back], getattr(per, name)), name
        # every cluster's representative is its longest text
        assert (sigs.tokens[per.rep] >= sigs.tokens).all()


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
    plain, _ = batch_components(sigs, MatchConfig())
    assert plain[:5].tolist() == [0] * 5  # the candidate graph: one component
    labels, _, _ = verified_components(sigs, MatchConfig())
    assert labels.tolist() == [0, 1, 2, 3, 4, 5, 5, 5]
    for cap in (1, 50_000):  # verified components, the candidate graph's: one answer here
        out = match_components(sigs, MatchConfig(max_component=cap))
        assert [KINDS[k] for k in out.kind[5:]] == ["unique", "near", "partial"]
        assert out.partner[7] in (5, 6)


def _one_pass(sigs, cfg):  # type: ignore[no-untyped-def]
    n = len(sigs)
    return Clusters.from_run(run_components(sigs, cfg, np.array([0, n]), np.arange(n)))


def test_with_boilerplate_the_pass_per_component_gives_the_one_pass_answer() -> None:
    # stock phrases posted by more representatives than max_posting, across components that do
    # not link: boilerplate over the batch, so each component's pass leaves them out as one pass does
    cfg = MatchConfig(max_posting=3, max_component=1)
    rng = random.Random(11)
    stocks = [
        "以上就是今天新闻联播的全部内容，感谢收看，再见。",
        "下面请看详细报道。本台记者从现场发回报道。",
    ]
    texts = []
    for i in range(30):
        body = article(rng, 6) + stocks[i % 2]
        texts.append(body)
        if i % 5 == 0:
            texts.append(_copies(rng, body, 1)[0])
        if i % 7 == 3:
            texts.append(article(rng, 4) + body[:120])
    sigs = signatures(texts)
    labels, _, (values, after) = verified_components(sigs, cfg)
    assert values.size > 0 and (after >= 0).all()
    assert len(set(labels.tolist())) > 10  # the stock phrases glue nothing
    one, per = _one_pass(sigs, cfg), match_components(sigs, cfg)
    for name in ("rep", "kind", "partner", "similarity", "conflicts", "hamming", "text"):
        assert np.array_equal(getattr(one, name), getattr(per, name)), name


def test_the_components_are_the_candidate_graph_s_until_the_largest_passes_max_component() -> None:
    rng = random.Random(13)
    stock = "以上就是今天新闻联播的全部内容，感谢收看，再见。"
    a = article(rng, 14)
    texts = [article(rng, 2) + stock for _ in range(6)] + [a, *_copies(rng, a, 2)]
    sigs = signatures(texts)
    plain, _ = batch_components(sigs, MatchConfig())
    assert largest_component(plain) == 6  # the stock phrase glues the six
    for cap, common in ((6, None), (5, verified_components(sigs, MatchConfig())[2])):
        cfg = MatchConfig(max_component=cap)
        labels = plain if common is None else verified_components(sigs, cfg)[0]
        ptr, rows = component_rows(labels, pass_order(sigs, cfg) if common is None else None)
        want = Clusters.from_run(run_components(sigs, cfg, ptr, rows, common=common))
        got = match_components(sigs, cfg)
        for name in ("rep", "kind", "partner", "similarity", "text"):
            assert np.array_equal(getattr(want, name), getattr(got, name)), (cap, name)
    assert largest_component(verified_components(sigs, MatchConfig())[0]) == 3
    assert largest_component(np.empty(0, np.int64)) == 0


def test_boilerplate_counts_representatives_and_names_the_row_after_which_it_holds() -> None:
    cfg = MatchConfig(max_posting=2, posted=2, min_shared=1)
    sk = np.array([[5, 9], [5, 9], [5, 8], [6, 7], [5, 6]], np.uint32)
    values, after = batch_boilerplate(sk, np.array([True, False, True, True, True]), cfg)
    # rows 0, 2 and 4 post 5 (row 1 is a copy: not a representative): boilerplate after row 4
    assert values.tolist() == [5] and after.tolist() == [4]
    pv, pc = boilerplate_table(values, after)
    assert pc[pv == 5].tolist() == [-4]


def test_a_component_table_marks_the_batch_boilerplate_from_its_row_on() -> None:
    rng = random.Random(6)
    a = article(rng, 14)
    sigs = signatures([a, _copies(rng, a, 1)[0]])
    cfg = MatchConfig()
    ptr, rows = np.array([0, 2]), np.arange(2)
    values = np.unique(sigs.sketch[0][sigs.sketch[0] != np.uint32(0xFFFFFFFF)])
    late = run_components(sigs, cfg, ptr, rows, common=(values, np.full(values.size, 1)))
    early = run_components(sigs, cfg, ptr, rows, common=(values, np.full(values.size, -1)))
    assert KINDS[late["kind"][1]] == "near"  # boilerplate only after row 1
    assert KINDS[early["kind"][1]] == "unique"  # every shared value boilerplate: no candidate


def test_the_pair_kinds_of_the_c_kernel_are_numba_s() -> None:
    from neardup.match import kernels
    from neardup.match.components import _kinds_serial, candidate_pairs, pair_rule

    if kernels.BACKEND != "c":
        return
    cfg = MatchConfig(max_posting=3)
    rng = random.Random(12)
    base = [article(rng, 6) for _ in range(6)]
    texts = (
        [b + article(rng, 2) for b in base]
        + [article(rng, 3) + b[:100] for b in base]
        + _copies(rng, base[0], 3)
    )
    sigs = signatures(texts)
    _, (sa, sb), _ = candidate_pairs(sigs, cfg)
    assert sa.size > 5
    values = np.unique(sigs.sketch[:3, :8])
    rule = pair_rule(cfg, (values, np.full(values.size, 4)))  # boilerplate after row 4
    todo = np.arange(sa.size)
    texts_ = np.diff(sigs.prof_ptr) > 0
    for full in (False, True):
        got = kernels.pair_kinds(todo, sa, sb, sb, sigs.columns(), texts_, rule, full)
        want = _kinds_serial(todo, sa, sb, sb, sigs.columns(), texts_, rule, full)
        assert got.tolist() == want.tolist()
