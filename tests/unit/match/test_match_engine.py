"""The engine's pass: the batch and the stream agree, links are verified (to the representative or
to a member of its cluster), reposts never become boilerplate."""

from __future__ import annotations

import random

import numpy as np
from dedup_synth import article

from neardup.match import KINDS, EngineState, MatchConfig, match_signatures, signatures


def _copies(rng: random.Random, text: str, n: int) -> list[str]:
    out = []
    for _ in range(n):
        chars = list(text)
        for i in rng.sample(range(len(chars)), k=len(chars) // 60):
            chars[i] = rng.choice("的了是在和有")
        out.append("".join(chars))
    return out


def _corpus(seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    sources = [article(rng, 14) for _ in range(30)]
    texts = list(sources)
    for s in sources[:10]:
        texts += _copies(rng, s, 3)
    for s in sources[10:15]:
        half = s[len(s) // 3 : 2 * len(s) // 3]
        texts.append(article(rng, 8) + half + article(rng, 4))
    rng.shuffle(texts)
    return texts


def test_the_stream_gives_the_batchs_clusters_kinds_and_evidence() -> None:
    texts = _corpus()
    sigs = signatures(texts)
    batch = match_signatures(sigs)
    state = EngineState()
    for i in range(len(texts)):
        one = sigs.take([i])
        asked = state.run(one, add=False)  # asking first changes nothing
        got = state.run(one)
        for key in ("kind", "partner", "similarity", "rep"):
            assert np.array_equal(asked[key], got[key]), key
        assert got["rep"][0] == batch.rep[i] and got["kind"][0] == batch.kind[i]
        assert got["partner"][0] == batch.partner[i]
        assert got["similarity"][0] == batch.similarity[i]
    assert {KINDS[k] for k in batch.kind} >= {"unique", "near", "partial"}


def test_a_document_joins_only_a_representative_it_verifies_against() -> None:
    rng = random.Random(4)
    a = article(rng, 16)
    b = a[: len(a) * 3 // 4]  # a cut copy of a
    c = b[len(b) // 3 :] + article(rng, 8)  # b's end and text of its own
    out = match_signatures(signatures([a, b, c]), MatchConfig(member_checks=0))
    assert out.rep.tolist()[:2] == [0, 0]
    assert out.rep[2] != 0  # c ~ b and b ~ a does not make c ~ a


def _edited(text: str, lo: int, hi: int) -> str:
    chars = list(text)
    for i in range(lo, hi, 12):
        chars[i] = "的"
    return "".join(chars)


def test_two_copies_edited_apart_meet_through_their_source_in_the_cluster() -> None:
    # a copy cut from the source's first part comes first and represents the cluster; the source
    # joins it (the first copy adds nothing to it); a copy cut from the source's last part shares
    # only a passage with the first one, but is contained in the source, a member it is checked
    # against when the representative fails
    source = article(random.Random(5), 16)
    n = len(source)
    first, second = source[: n * 2 // 3], source[n // 3 :]
    sigs = signatures([first, source, second])
    out = match_signatures(sigs)
    assert out.rep.tolist() == [0, 0, 0]
    assert [KINDS[k] for k in out.kind] == ["unique", "contained", "contained"]
    assert out.partner.tolist() == [-1, 0, 1]  # the evidence names the member it verified against
    alone = match_signatures(sigs, MatchConfig(member_checks=0))
    assert alone.rep.tolist() == [0, 0, 2] and KINDS[alone.kind[2]] == "partial"


def test_scattered_edits_leave_one_document() -> None:
    # a look-alike character every dozen characters changes every 5-gram window it touches, but
    # the texts still cover each other: each adds only its edited characters
    source = article(random.Random(5), 16)
    half = len(source) // 2
    first, second = _edited(source, 0, half), _edited(source, half, len(source))
    out = match_signatures(signatures([first, source, second]), MatchConfig(member_checks=0))
    assert out.rep.tolist() == [0, 0, 0]
    assert [KINDS[k] for k in out.kind] == ["unique", "near", "near"]


def test_an_article_reposted_hundreds_of_times_is_never_boilerplate() -> None:
    rng = random.Random(7)
    source = article(rng, 14)
    texts = [source, *_copies(rng, source, 300)]
    out = match_signatures(signatures(texts), MatchConfig(max_posting=16))
    assert (out.rep == 0).all()  # copies join the cluster and post nothing


def test_a_lead_line_every_document_carries_becomes_boilerplate() -> None:
    rng = random.Random(9)
    lead = "央视网消息（新闻联播）：本台记者从有关方面获悉，"
    texts = [lead + article(rng, 2) for _ in range(200)]
    out = match_signatures(signatures(texts))
    assert (out.rep == np.arange(len(texts))).all()  # a shared lead makes no duplicates
    assert (np.asarray([KINDS[k] for k in out.kind[100:]]) == "unique").mean() > 0.9


def test_a_corpus_prefix_is_kept_as_representatives() -> None:
    rng = random.Random(3)
    a = article(rng, 14)
    texts = [a, _copies(rng, a, 1)[0]]
    out = match_signatures(signatures(texts), fixed=2)
    assert out.rep.tolist() == [0, 1] and out.partner.tolist() == [-1, -1]
