"""A document identical to a cluster's member (not its representative) joins that cluster: an
identical text cannot chain two stories, so the engine's rule that links go through the
representative does not apply to it. On a synthetic set where an exact copy joined another copy's
cluster before its source came, the source is found with it."""

from __future__ import annotations

import gzip
import json

import pytest

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_records
from neardup.dedup.local import dedup_fingerprints
from neardup.eval.synth import SynthConfig, synthesize
from neardup.io import iter_records
from neardup_testing import DATA_DIR


def test_every_exact_copy_shares_its_sources_cluster(tmp_path) -> None:  # type: ignore[no-untyped-def]
    corpus = DATA_DIR / "zh-xwlb.jsonl.gz"
    if not corpus.is_file():
        pytest.skip("the shared corpora are missing")
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    docs, truth = synthesize(records, SynthConfig(lang="zh", seed=5, n_sources=400))
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    config = DedupConfig()
    result = dedup_fingerprints(fingerprint_records(iter_records([path]), config), config, None)
    cluster = {r["id"]: r["cluster"] for r in result.rows()}
    exact = [t for t in truth if t["kind"] == "exact"]
    assert len(exact) > 50
    assert [t["id"] for t in exact if cluster[t["id"]] != cluster[t["source"]]] == []
