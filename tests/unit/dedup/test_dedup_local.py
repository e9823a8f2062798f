from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from dedup_synth import article, make_docs, near_copy

from neardup.dedup import CorpusIndex, DedupConfig, dedup_fingerprints, dedup_records, fingerprint_records
from neardup.exceptions import ConfigError, FormatError, InputError
from neardup.io import Record
from neardup.match import MatchConfig

CFG = DedupConfig(workers=1)
FIRST = DedupConfig(workers=1, match=MatchConfig(keep="first"))


def recs(docs: list[dict[str, str]]) -> list[Record]:
    return [Record(id=d["id"], text=d.get("text"), html=d.get("html")) for d in docs]


def test_one_row_per_document_and_clusters_named_by_their_first() -> None:
    docs = make_docs(30)
    rows = list(dedup_records(recs(docs), CFG))
    assert [r["id"] for r in rows] == [d["id"] for d in docs]
    first_seen: dict[str, int] = {}
    for i, r in enumerate(rows):
        assert {"id", "cluster", "duplicate_of", "kind", "distance"} <= set(r)
        first_seen.setdefault(r["cluster"], i)
        if r["duplicate_of"] is None:
            assert r["cluster"] == r["id"] and r["kind"] in ("unique", "first", "partial", "layout")
        else:
            assert r["duplicate_of"] == r["cluster"] and r["kind"] in ("exact", "content", "near")
            assert r["evidence"]["against"] == r["cluster"]  # verified against the kept copy itself
    # the cluster's name is its first document in input order
    for name, i in first_seen.items():
        assert rows[i]["id"] == name


def test_exact_and_near_copies_are_found() -> None:
    import random

    rng = random.Random(1)
    text = article(rng, 10)
    rows = list(
        dedup_records(
            recs(
                [
                    {"id": "a", "text": text},
                    {"id": "b", "text": text + " "},
                    {"id": "c", "text": near_copy(rng, text)},
                    {"id": "d", "text": article(rng, 10)},
                ]
            ),
            CFG,
        )
    )
    assert [(r["kind"], r["duplicate_of"]) for r in rows] == [
        ("first", None),
        ("exact", "a"),
        ("near", "a"),
        ("unique", None),
    ]
    assert rows[1]["distance"] == 0
    ev = rows[2]["evidence"]
    assert ev["similarity"] >= MatchConfig().near_similarity or max(ev["containment"]) >= 0.6


def test_a_passage_inside_another_article_is_partial_and_never_merged() -> None:
    import random

    rng = random.Random(2)
    source = article(rng, 12)
    host = article(rng, 10) + source[len(source) // 3 : 2 * len(source) // 3] + article(rng, 6)
    rows = list(dedup_records(recs([{"id": "a", "text": source}, {"id": "b", "text": host}]), CFG))
    # the longer text is taken first: the source, taken after it, reports the passage they share
    assert rows[0]["kind"] == "partial" and rows[0]["related_to"] == "b"
    assert all(r["duplicate_of"] is None and r["cluster"] == r["id"] for r in rows)
    # in the order given (--keep first) the host reports it
    rows = list(dedup_records(recs([{"id": "a", "text": source}, {"id": "b", "text": host}]), FIRST))
    assert rows[1]["kind"] == "partial" and rows[1]["related_to"] == "a"
    assert rows[1]["duplicate_of"] is None and rows[1]["cluster"] == "b"


def test_a_longer_article_taken_first_is_reported_related_to_a_passage_copied_from_it() -> None:
    import random

    # in the order given, the article holding a passage (taken first, no relation of its own) is
    # reported related to the shorter text that copies the passage and joined another cluster
    rng = random.Random(2)
    source = article(rng, 12)
    host = article(rng, 10) + source[len(source) // 3 : 2 * len(source) // 3] + article(rng, 6)
    docs = [
        {"id": "host", "text": host},
        {"id": "a", "text": source},
        {"id": "a2", "text": source + "补充一句。"},
    ]
    rows = {r["id"]: r for r in dedup_records(recs(docs), FIRST)}
    assert rows["a2"]["duplicate_of"] == "a" and rows["a"]["related_to"] == "host"
    assert rows["host"]["kind"] == "partial" and rows[rows["host"]["related_to"]]["cluster"] == "a"


def test_no_chains_a_document_joins_only_a_representative_it_verifies_against() -> None:
    import random

    rng = random.Random(4)
    a = article(rng, 12)
    b = a[: len(a) * 3 // 4]  # a cut copy of a
    c = b[len(b) // 3 :] + article(rng, 6)  # shares most of b's end and adds its own text
    rows = list(
        dedup_records(recs([{"id": "a", "text": a}, {"id": "b", "text": b}, {"id": "c", "text": c}]), CFG)
    )
    assert rows[1]["cluster"] == "a"
    assert rows[2]["cluster"] != "a"  # c ~ b and b ~ a, but c does not verify against a


def test_keep_rules_pick_the_first_the_longest_or_the_newest() -> None:
    import random

    rng = random.Random(6)
    text = article(rng, 10)
    docs = [
        Record(id="short", text=text, extra={"date": "2024-01-02"}),
        Record(id="long", text=text + "补充一句话。", extra={"date": "2024-01-01"}),
        Record(id="new", text=text + " ", extra={"date": "2024-03-01"}),
    ]

    def clusters(keep: str) -> set[str]:
        cfg = DedupConfig(match=MatchConfig(keep=keep))  # type: ignore[arg-type]
        return {r["cluster"] for r in dedup_records(docs, cfg)}

    assert clusters("first") == {"short"}
    assert clusters("longest") == {"long"}
    assert clusters("newest") == {"new"}


def test_duplicate_ids_error_or_suffix() -> None:
    docs = [
        {"id": "x", "text": "一。"},
        {"id": "x", "text": "二。"},
        {"id": "x#2", "text": "三。"},
        {"id": "x", "text": "四。"},
    ]
    with pytest.raises(InputError, match="duplicate id 'x'"):
        list(dedup_records(recs(docs), CFG))
    rows = list(dedup_records(recs(docs), DedupConfig(workers=1, duplicate_ids="suffix")))
    ids = [r["id"] for r in rows]
    assert ids[0] == "x" and ids[1] == "x#2" and len(set(ids)) == 4


def test_thousands_of_identical_and_near_identical_documents_stay_fast() -> None:
    import random
    import time

    rng = random.Random(5)
    base = article(rng, 12)
    docs = [{"id": str(i), "text": base} for i in range(2500)]
    docs += [{"id": f"n{i}", "text": near_copy(rng, base)} for i in range(2500)]
    t = time.perf_counter()
    fps = fingerprint_records(recs(docs), DedupConfig(workers=2, chunk_size=500))
    res = dedup_fingerprints(fps, CFG)
    assert time.perf_counter() - t < 60
    summary = res.summary()
    assert summary["kept"] <= 3
    assert summary["kind_exact"] >= 2499


def test_html_records_go_through_main_text_extraction() -> None:
    pytest.importorskip("resiliparse")
    body = "<p>" + "这是一篇用于测试的新闻正文，内容足够长，可以被抽取出来作为主要文本。" * 4 + "</p>"
    page = f"<html><body><nav>首页 | 新闻</nav><article>{body}</article></body></html>"
    rows = list(
        dedup_records(
            [
                Record(id="h", text=None, html=page),
                Record(id="t", text=None, html=page.replace("首页", "主页")),
            ],
            CFG,
        )
    )
    assert rows[1]["duplicate_of"] == "h"


def test_incremental_batch_against_the_corpus_then_merge(tmp_path: Path) -> None:
    docs = make_docs(30, seed=3)
    corpus, batch = docs[:25], docs[25:]
    cfg = DedupConfig(workers=1)
    cfps = fingerprint_records(recs(corpus), cfg)
    ix = CorpusIndex.create(tmp_path / "idx", cfg, cfps)
    assert len(ix) == len(corpus)
    # batch = a copy of a corpus document, plus new ones
    batch = [{"id": "new-copy", "text": corpus[3]["text"]}, *batch]
    bfps = fingerprint_records(recs(batch), cfg)
    res = dedup_fingerprints(bfps, cfg, ix)
    rows = list(res.rows())
    assert rows[0]["duplicate_of"] == corpus[3]["id"] and rows[0]["kind"] == "exact"
    kept = bfps.take(np.flatnonzero(res.keep))
    ix.append(kept)
    ix2 = CorpusIndex.open(tmp_path / "idx")
    assert len(ix2) == len(corpus) + len(kept) and len(ix2.segments) == 2
    # the same batch again: everything is now a duplicate of the corpus
    again = dedup_fingerprints(bfps, cfg, ix2)
    assert not again.keep.any()
    merged_ids = set(kept.ids)
    for r in again.rows():
        # a merged document run again is "indexed" (not a duplicate of itself); the others name it
        assert (r["kind"] == "indexed") == (r["id"] in merged_ids), r
        assert r["duplicate_of"] != r["id"] or r["kind"] == "indexed"
    assert [r["duplicate_of"] for r in again.rows()][1:] == [r["cluster"] for r in again.rows()][1:]


def test_index_refuses_other_settings_and_foreign_headers(tmp_path: Path) -> None:
    cfg = DedupConfig(workers=1)
    ix = CorpusIndex.create(tmp_path / "idx", cfg, fingerprint_records(recs(make_docs(3)), cfg))
    other = DedupConfig(workers=1, match=MatchConfig(shingle=4))
    with pytest.raises(ConfigError, match="other fingerprint settings"):
        ix.check_settings(other)
    header = json.loads((tmp_path / "idx" / "header.json").read_text())
    header["version"] = 99
    (tmp_path / "idx" / "header.json").write_text(json.dumps(header))
    with pytest.raises(FormatError, match="version 99"):
        CorpusIndex.open(tmp_path / "idx")
    (tmp_path / "idx" / "header.json").write_text("{not json")
    with pytest.raises(FormatError, match="damaged"):
        CorpusIndex.open(tmp_path / "idx")
    with pytest.raises(FormatError, match="not a corpus index"):
        CorpusIndex.open(tmp_path)
    with pytest.raises(ConfigError, match="not empty"):
        CorpusIndex.create(tmp_path, cfg, fingerprint_records([], cfg))


def test_config_validation_messages() -> None:
    with pytest.raises(ConfigError, match="candidate_distance"):
        MatchConfig(candidate_distance=70)
    with pytest.raises(ConfigError, match="keep"):
        MatchConfig(keep="oldest")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="keep_field must name a record field"):
        MatchConfig(keep="newest", keep_field=" ")
    with pytest.raises(ConfigError, match="workers"):
        DedupConfig(workers=-1)
    cfg = DedupConfig(match=MatchConfig(keep="longest"))
    assert DedupConfig.from_dict(cfg.to_dict()) == cfg


def test_a_superseded_first_document_is_named_so_when_the_keep_rule_keeps_another_copy() -> None:
    import random

    rng = random.Random(6)
    text = article(rng, 10)
    docs = [
        Record(id="short", text=text, extra={"date": "2024-01-02"}),
        Record(id="long", text=text + "补充一句话。", extra={"date": "2024-01-03"}),
    ]
    rows = list(dedup_records(docs, DedupConfig(workers=1, match=MatchConfig(keep="newest"))))
    assert [(r["id"], r["kind"], r["duplicate_of"]) for r in rows] == [
        ("short", "superseded", "long"),
        ("long", "first", None),
    ]
    # --keep longest takes the longest text first: the shorter is its near copy
    rows = list(dedup_records(docs, DedupConfig(workers=1, match=MatchConfig(keep="longest"))))
    assert [(r["id"], r["kind"], r["duplicate_of"]) for r in rows] == [
        ("short", "near", "long"),
        ("long", "first", None),
    ]


def test_row_evidence_is_the_engines_evidence() -> None:
    import random

    from neardup.match import compare_texts

    rng = random.Random(1)
    text = article(rng, 10)
    copy = near_copy(rng, text)
    row = list(dedup_records(recs([{"id": "a", "text": text}, {"id": "b", "text": copy}]), CFG))[1]
    assert row["evidence"] == {"against": "a", **compare_texts(text, copy).to_dict()}
    assert row["evidence"]["hamming"] == row["distance"]
