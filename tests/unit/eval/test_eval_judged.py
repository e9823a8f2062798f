"""The engine against real text reuse judged by reading (tests/data/judged): per-label merge rates
are pinned, so a change that merges more different stories, or splits more same-article pairs, fails
here before it reaches users. The figures and their history are in docs/quality.md."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from neardup.eval.judged import LABELS, JudgedPair, judge_pairs, load_judged, rates, read_texts
from neardup.match import MatchConfig

JUDGED = Path(__file__).resolve().parents[2] / "data" / "judged"
CORPUS = {
    "zh-rmrb-xwlb-2020.cross": "zh-rmrb-xwlb-2020",
    "zh-rmrb-xwlb-2020.within": "zh-rmrb-xwlb-2020",
    "zh-xwlb": "zh-xwlb",
    "en-bbc": "en-bbc",
    "en-20news": "en-20news",
}


def test_the_judged_files_hold_ids_and_labels_only() -> None:
    for name in CORPUS:
        pairs = load_judged(JUDGED / f"{name}.tsv")
        assert len(pairs) >= 100, name
        assert {p.label for p in pairs} <= set(LABELS)
        assert len({(p.id_a, p.id_b) for p in pairs}) == len(pairs), f"{name}: a pair twice"
        assert all(p.id_a != p.id_b for p in pairs)
        # notes are a few words of English: no corpus sentence is shipped
        assert all(len(p.note) <= 160 for p in pairs), name


def test_at_least_600_pairs_over_the_four_corpora() -> None:
    assert sum(len(load_judged(JUDGED / f"{name}.tsv")) for name in CORPUS) >= 600


@pytest.mark.slow
def test_merge_rates_per_label_on_the_judged_real_pairs(data_dir: Path) -> None:
    merged: dict[str, list[bool]] = defaultdict(list)
    for name, corpus in CORPUS.items():
        pairs: list[JudgedPair] = load_judged(JUDGED / f"{name}.tsv")
        ids = {x for p in pairs for x in (p.id_a, p.id_b)}
        texts = read_texts(data_dir / f"{corpus}.jsonl.gz", ids)
        dates = read_texts(data_dir / f"{corpus}.jsonl.gz", ids, field="date")
        for r in judge_pairs(pairs, texts, dates=dates):
            merged[r["pair"].label].append(bool(r["merged"]))
    got = rates(merged)
    # measured 2026-12-07 (docs/quality.md, the second decision round): same .952, related .026,
    # template .017, different 0
    assert got["same"]["rate"] >= 0.94, got
    assert got["different"]["rate"] <= 0.02, got
    assert got["related"]["rate"] <= 0.03, got
    assert got["template"]["rate"] <= 0.02, got


@pytest.mark.slow
def test_strictness_and_profile_move_the_decisions_on_the_judged_pairs(data_dir: Path) -> None:
    pairs = load_judged(JUDGED / "zh-xwlb.tsv") + load_judged(JUDGED / "zh-rmrb-xwlb-2020.cross.tsv")
    texts = read_texts(data_dir / "zh-xwlb.jsonl.gz", {x for p in pairs for x in (p.id_a, p.id_b)})
    texts.update(
        read_texts(data_dir / "zh-rmrb-xwlb-2020.jsonl.gz", {x for p in pairs for x in (p.id_a, p.id_b)})
    )

    def merged(**knob: object) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for r in judge_pairs(pairs, texts, MatchConfig(**knob)):  # type: ignore[arg-type]
            out[r["pair"].label] += int(r["merged"])
        return out

    loose, calibrated, strict = merged(strictness=0.0), merged(), merged(strictness=1.0)
    assert loose["same"] >= calibrated["same"] >= strict["same"]
    assert sum(loose.values()) > sum(strict.values())
    # the corpus profile calls a template of another occasion the same text
    assert merged(profile="corpus")["template"] >= calibrated["template"]
