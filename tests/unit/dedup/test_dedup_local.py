from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from dedup_synth import article, make_docs, near_copy

from neardup.dedup import CorpusIndex, DedupConfig, dedup_fingerprints, dedup_records, fingerprint_records
from neardup.dedup.clusters import assign, components
from neardup.exceptions import ConfigError, FormatError, InputError
from neardup.io import Record

CFG = DedupConfig(workers=1)


def recs(docs: list[dict[str, str]]) -> list[Record]:
    return [Record(id=d["id"], text=d.get("text"), html=d.get("html")) for d in docs]


def test_one_row_per_document_and_clusters_named_by_their_first() -> None:
    docs = make_docs(30)
    rows = list(dedup_records(recs(docs), CFG))
    assert [r["id"] for r in rows] == [d["id"] for d in docs]
    first_seen: dict[str, int] = {}
    for i, r in enumerate(rows):
        assert set(r) == {"id", "cluster", "duplicate_of", "kind", "distance"}
        first_seen.setdefault(r["cluster"], i)
        if r["duplicate_of"] is None:
            assert r["cluster"] == r["id"] and r["kind"] in ("unique", "first")
        else:
            assert r["duplicate_of"] == r["cluster"] and r["kind"] in ("exact", "near")
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
    assert rows[1]["distance"] == 0 and 0 < rows[2]["distance"] <= CFG.max_distance


def test_nshash_catches_shared_longest_sentences() -> None:
    import random

    rng = random.Random(2)
    long = "".join(article(rng, 3) for _ in range(2))
    a = long + "短句一。"
    b = "完全不同的开头，" + "".join(article(rng, 6)) + long[:200] + "。"
    cfg = DedupConfig(workers=1, method="nshash", nshash_n=3, nshash_min_sentence_chars=10)
    rows = list(dedup_records(recs([{"id": "a", "text": a}, {"id": "b", "text": b}]), cfg))
    assert rows[1]["kind"] == "nshash" and rows[1]["duplicate_of"] == "a"
    assert rows[1]["distance"] is None


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


def test_assign_kinds_and_components() -> None:
    assert components(5, np.array([4, 2]), np.array([2, 0])).tolist() == [0, 1, 0, 3, 0]
    exact = np.array([1, 1, 2, 3], np.uint64)
    fps = np.array([0, 0, 1, 2**40], np.uint64)
    a = assign(0, 4, (np.array([0, 0]), np.array([1, 2])), (np.array([2]), np.array([3])), exact, fps)
    assert a.kind.tolist() == [1, 2, 3, 4] and a.rep.tolist() == [0, 0, 0, 0]
    assert a.distance.tolist() == [-1, 0, 1, 1]


def test_incremental_batch_against_the_corpus_then_merge(tmp_path: Path) -> None:
    docs = make_docs(30, seed=3)
    corpus, batch = docs[:25], docs[25:]
    cfg = DedupConfig(workers=1, method="both")
    cfps = fingerprint_records(recs(corpus), cfg, simhash=True, nshash=True)
    ix = CorpusIndex.create(tmp_path / "idx", cfg, cfps)
    assert len(ix) == len(corpus)
    # batch = a copy of a corpus document, plus new ones
    batch = [{"id": "new-copy", "text": corpus[3]["text"]}, *batch]
    bfps = fingerprint_records(recs(batch), cfg, simhash=True, nshash=True)
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
    assert [r["duplicate_of"] for r in again.rows()][1:] == [r["cluster"] for r in again.rows()][1:]


def test_index_refuses_other_settings_and_foreign_headers(tmp_path: Path) -> None:
    cfg = DedupConfig(workers=1)
    ix = CorpusIndex.create(tmp_path / "idx", cfg, fingerprint_records(recs(make_docs(3)), cfg))
    other = DedupConfig(workers=1, nshash_n=3)
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
    with pytest.raises(ConfigError, match="max_distance"):
        DedupConfig(max_distance=70)
    with pytest.raises(ConfigError, match="method"):
        DedupConfig(method="minhash")  # type: ignore[arg-type]
    assert DedupConfig.from_dict(DedupConfig(method="both").to_dict()) == DedupConfig(method="both")
