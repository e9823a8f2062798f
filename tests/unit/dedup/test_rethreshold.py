"""``neardup.dedup.rethreshold``: each stored pair decided again at other settings, from the rows
alone, agrees with re-running the engine at those settings when each document has one candidate."""

from __future__ import annotations

import random
from typing import Any

import pytest

from neardup.dedup import DedupConfig, dedup_fingerprints, fingerprint_records
from neardup.dedup.rethreshold import DECISION_FIELDS, decision_rows, format_rethreshold, rethreshold
from neardup.io import Record
from neardup.match import MatchConfig

_JOINED = {"exact", "content", "near", "contained", "supersedes"}


def _sentence(rng: random.Random, n: int) -> str:
    # CJK characters drawn from the whole block: two texts share no window by chance
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n)) + "。"


def _docs(seed: int = 3) -> list[Record]:
    """Articles, and for each a copy with a passage of its own added (10 to 240 characters) and
    its source's last sentence dropped, so that the copies fall on both sides of the text rule at
    different strictness values."""
    rng = random.Random(seed)
    recs = []
    for i in range(24):
        body = "".join(_sentence(rng, 24) for _ in range(16))
        recs.append(Record(id=f"a{i}", text=body))
        extra = "".join(_sentence(rng, 19) for _ in range(1 + i // 2))[: 10 * (i + 1)]
        cut = body[:-25]
        recs.append(Record(id=f"a{i}-copy", text=cut[:200] + extra + cut[200:] if i % 2 else cut + extra))
    return recs


def _run(profile: str, strictness: float) -> list[dict[str, Any]]:
    cfg = DedupConfig(workers=1, match=MatchConfig(profile=profile, strictness=strictness))  # type: ignore[arg-type]
    result = dedup_fingerprints(fingerprint_records(_docs(), cfg), cfg)
    return list(decision_rows(result))


def _joined(row: dict[str, Any]) -> bool:
    return row["kind"] in _JOINED or (
        row["kind"] == "first" and bool(row.get("evidence")) and not row.get("related_to")
    )


def test_rows_carry_every_field_the_text_rule_reads() -> None:
    rows = _run("news", 0.5)
    texts = [r["evidence"] for r in rows if r.get("evidence") and "adds" in r["evidence"]]
    assert texts, "the set must have pairs decided by the text rule"
    for ev in texts:
        assert all(f in ev for f in DECISION_FIELDS), ev
        assert ev["chars"][0] >= ev["adds"][0] and ev["chars"][1] >= ev["adds"][1]


@pytest.mark.parametrize("profile", ["news", "corpus"])
def test_predictions_match_a_real_run_at_each_setting(profile: str) -> None:
    base = _run("news", 0.5)
    grid = [0.0, 0.25, 0.75, 1.0]
    r = rethreshold(base, grid, [profile], run_profile="news", run_strictness=0.5, source="t")
    assert r.text_pairs > 0 and r.reproduced == r.text_pairs and r.incomplete == 0
    was = {row["id"]: _joined(row) for row in base}
    moved = 0
    for outcome in r.outcomes:
        if outcome.profile != profile:
            continue
        real = _run(profile, outcome.strictness)
        now = {row["id"]: _joined(row) for row in real}
        got = (outcome.merged, outcome.merged_to_kept, outcome.kept_to_merged)
        expect = (
            sum(now.values()),
            sum(was[i] and not now[i] for i in now),
            sum(now[i] and not was[i] for i in now),
        )
        assert got == expect, (outcome, expect)
        moved += outcome.merged_to_kept + outcome.kept_to_merged
    assert moved > 0, "the set must move at some setting"


def test_the_run_setting_changes_nothing_and_the_table_says_so() -> None:
    base = _run("news", 0.5)
    r = rethreshold(base, [0.5], ["news"])
    (o,) = r.outcomes
    assert o.run and o.changes == {} and o.merged_to_kept == o.kept_to_merged == 0
    text = " ".join(format_rethreshold(r).split())  # the notes are wrapped
    assert "0.5 (run)" in text and "too many" in text and "too few" in text


def test_rows_without_the_decision_fields_are_left_as_they_are_and_counted() -> None:
    base = _run("news", 0.5)
    for row in base:
        for f in DECISION_FIELDS:
            (row.get("evidence") or {}).pop(f, None)
    r = rethreshold(base, [0.0, 1.0], ["news"])
    assert r.incomplete == r.text_pairs > 0 and r.reproduced == 0
    assert all(o.merged_to_kept == o.kept_to_merged == 0 for o in r.outcomes)
    assert "lack the decision fields" in " ".join(format_rethreshold(r).split())


def test_another_run_setting_than_the_one_given_is_reported() -> None:
    strict = _run("news", 1.0)
    r = rethreshold(strict, [1.0], ["news"], run_strictness=0.0)  # wrong: it was made at 1.0
    assert r.not_reproduced > 0
    assert "--run-strictness" in " ".join(format_rethreshold(r).split())
