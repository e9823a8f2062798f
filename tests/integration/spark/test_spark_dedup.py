"""Spark and ``neardup dedup`` give identical clusters on the same input, incremental path included."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import article, make_docs

from neardup.dedup import CorpusIndex, DedupConfig, dedup_fingerprints, fingerprint_records
from neardup.io import iter_records

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

CFG = DedupConfig(method="both", workers=1, nshash_n=3, nshash_min_sentence_chars=10)


def docs_with_nshash_pairs(seed: int) -> list[dict[str, str]]:
    import random

    rng = random.Random(seed)
    docs = make_docs(30, seed=seed)
    shared = article(rng, 3)
    docs.append({"id": "ns-a", "text": shared + article(rng, 5)})
    docs.append({"id": "ns-b", "text": article(rng, 6) + shared})
    return docs


def write_jsonl(path: Path, docs: list[dict[str, str]]) -> str:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return str(path)


def local_rows(path: str, index: Path | None = None, merge: bool = False) -> list[dict[str, Any]]:
    fps = fingerprint_records(iter_records([path]), CFG, simhash=True, nshash=True)
    ix = CorpusIndex.open(index) if index else None
    res = dedup_fingerprints(fps, CFG, ix)
    if merge and ix is not None:
        ix.append(fps.take(np.flatnonzero(res.keep)))
    return list(res.rows())


def spark_rows(spark: Any, path: str, index: Path | None = None, merge: bool = False) -> list[dict[str, Any]]:
    from neardup.integrations.spark import read_documents, spark_dedup

    docs = read_documents(spark, [path])
    res = spark_dedup(spark, docs, CFG, against=str(index) if index else None, merge=merge)
    return list(res.result.rows())


def test_spark_and_local_give_identical_clusters(spark: Any, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "batch.jsonl", docs_with_nshash_pairs(1))
    local = local_rows(path)
    assert any(r["kind"] == "near" for r in local) and any(r["kind"] == "exact" for r in local)
    assert any(r["kind"] == "nshash" for r in local)
    assert spark_rows(spark, path) == local


def test_spark_incremental_against_and_merge_match_local(spark: Any, tmp_path: Path) -> None:
    docs = docs_with_nshash_pairs(2)
    corpus, batch = docs[:25], docs[25:]
    batch = [{"id": "copy-of-corpus", "text": corpus[2]["text"]}, *batch]
    cpath = write_jsonl(tmp_path / "corpus.jsonl", corpus)
    bpath = write_jsonl(tmp_path / "batch.jsonl", batch)
    fps = fingerprint_records(iter_records([cpath]), CFG, simhash=True, nshash=True)
    CorpusIndex.create(tmp_path / "idx-local", CFG, fps)
    shutil.copytree(tmp_path / "idx-local", tmp_path / "idx-spark")

    local = local_rows(bpath, tmp_path / "idx-local", merge=True)
    remote = spark_rows(spark, bpath, tmp_path / "idx-spark", merge=True)
    assert remote == local
    assert local[0]["duplicate_of"] == corpus[2]["id"]

    a, b = CorpusIndex.open(tmp_path / "idx-local"), CorpusIndex.open(tmp_path / "idx-spark")
    assert len(a) == len(b) > len(corpus)
    # after the merge, the batch is entirely made of duplicates, on both sides
    assert all(r["duplicate_of"] is not None for r in local_rows(bpath, tmp_path / "idx-local"))
