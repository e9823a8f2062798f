"""neardup dedup, ContentSeen and neardup compare give the same verdicts: they compose one engine."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from dedup_synth import article

from neardup.cli.main import main
from neardup.contentseen import ContentSeen
from neardup.dedup import DedupConfig, dedup_records
from neardup.eval.synth import SynthConfig, synthesize
from neardup.io import Record
from neardup.match import compare_texts

# a batch knows what comes later: the first copy a fuller one supersedes was new when it came
_SAME = {"first": "new", "unique": "new", "superseded": "new"}


@pytest.fixture(scope="module")
def reposts() -> list[dict[str, Any]]:
    """A realistic-profile labelled set made from made-up articles (HTML pages included)."""
    rng = random.Random(11)
    recs = [
        {
            "id": f"d{i:03d}",
            "title": f"标题{i % 40}",
            "date": f"202{i % 4}-0{1 + i % 9}-1{i % 9}",
            "text": "\n".join(article(rng, 5) for _ in range(4)),
        }
        for i in range(160)
    ]
    docs, _ = synthesize(recs, SynthConfig(lang="zh", n_sources=60, seed=3, hard_negatives=0))
    return docs


#: the batch taken in input order, as a stream takes its pages (with --keep fuller, the default, and
#: longest, a batch takes each group of candidates longest text first: neardup.match.components)
IN_ORDER = DedupConfig.from_dict({"match": {"keep": "first"}})


def test_dedup_and_contentseen_give_the_same_clusters_and_kinds(reposts: list[dict[str, Any]]) -> None:
    rows = list(
        dedup_records([Record(id=d["id"], text=d.get("text"), html=d.get("html")) for d in reposts], IN_ORDER)
    )
    cs = ContentSeen()
    verdicts = [cs.check(d["id"], html=d.get("html"), text=d.get("text")) for d in reposts]
    id_of = {v.doc_id: d["id"] for v, d in zip(verdicts, reposts, strict=True)}
    kinds = set()
    kept_for = {r["id"]: r["cluster"] for r in rows if r["kind"] == "superseded"}
    place = {r["id"]: i for i, r in enumerate(rows)}
    fuller_kept = set(kept_for.values())
    for row, v in zip(rows, verdicts, strict=True):
        if row["kind"] == "superseded" and row.get("related_to"):
            # a first copy related to an earlier text, then superseded by its cluster's fuller copy
            assert v.kind in ("partial", "layout"), row["id"]
        elif row["kind"] == "first" and row["id"] in fuller_kept:
            # a near copy that adds to the first: the batch keeps it, the stream (which keeps the
            # first page it saw and supersedes it only with a page that contains it) answers near
            assert v.kind in ("near", "exact", "content"), row["id"]
        elif row["kind"] in ("partial", "layout") and place[row["related_to"]] > place[row["id"]]:
            # related to a later document sharing a passage with it: the batch reports it on the
            # earlier one too (backfill), the stream answered the earlier page before the later came
            assert v.kind == "new", row["id"]
        elif v.kind == "supersedes":
            # a later page that contains the first: the stream supersedes the first with it, the
            # batch kept in order (--keep first) keeps the first and names the later contained
            assert row["kind"] == "contained", row["id"]
        else:
            assert _SAME.get(row["kind"], row["kind"]) == v.kind, row["id"]
        if v.is_duplicate:
            # the stream names a cluster by its first page; a batch by the copy it keeps, which is
            # the fuller one when a later page superseded the first
            first = id_of[v.duplicate_of]
            assert row["cluster"] in (first, kept_for.get(first)), row["id"]
        elif row["kind"] != "superseded" and v.kind != "supersedes":
            assert row["duplicate_of"] is None
        kinds.add(v.kind)
    assert kinds >= {"new", "exact", "near", "partial"}


def test_compare_prints_the_verdict_dedup_gives_the_pair(
    reposts: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = [d for d in reposts if d.get("text")]
    rng = random.Random(5)
    pairs = [(plain[0], plain[1])] + [tuple(rng.sample(plain, 2)) for _ in range(12)]
    by_source = {}
    for d in plain:
        by_source.setdefault(d["id"].split("-r")[0], []).append(d)
    pairs += [(g[0], g[1]) for g in by_source.values() if len(g) > 1][:12]
    for a, b in pairs:
        rows = list(dedup_records([Record(id="a", text=a["text"]), Record(id="b", text=b["text"])], IN_ORDER))
        got = compare_texts(a["text"], b["text"])
        # (--keep first: a later copy that contains the first is kept as the first's "contained" copy)
        assert _SAME.get(rows[1]["kind"], rows[1]["kind"]) == _SAME.get(got.kind, got.kind), (
            a["id"],
            b["id"],
        )
        if "evidence" in rows[1]:
            assert rows[1]["evidence"]["similarity"] == round(got.similarity, 3)
    # and the command line says the same
    a, b = pairs[-1]
    (tmp_path / "a.txt").write_text(a["text"], "utf-8")
    (tmp_path / "b.txt").write_text(b["text"], "utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--json"])
    assert exit_.value.code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == compare_texts(a["text"], b["text"]).kind
