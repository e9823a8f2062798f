"""``neardup.dedup.rethreshold`` across profiles: a news run decides a copy dated more than
``occasion_days`` from its source a template before storing any pair, and stores it only with
``report_templates``; the corpus profile merges it. With the template rows the other profile is
predicted as a real run decides it; without them, or from a corpus run (whose rows hold no dates),
the other profile's rows say why they cannot be trusted."""

from __future__ import annotations

import json
import random
from typing import Any

from neardup.dedup import DedupConfig, dedup_fingerprints, fingerprint_records
from neardup.dedup.rethreshold import decision_rows, format_rethreshold, rethreshold
from neardup.io import Record
from neardup.match import MatchConfig

_JOINED = {"exact", "content", "near", "contained", "supersedes"}
_GRID = [0.0, 0.25, 0.5, 0.75, 1.0]


def _sentence(rng: random.Random, n: int) -> str:
    # CJK characters drawn from the whole block: two texts share no window by chance
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n)) + "。"


def _docs(seed: int = 5) -> list[Record]:
    """Articles, each with a copy that adds a passage of its own (10 to 240 characters) and drops
    its source's last sentence, so that the copies fall on both sides of the text rule at different
    strictness values; every other copy is dated a year after its source (another occasion for the
    news profile), the rest two days after."""
    rng = random.Random(seed)
    recs = []
    for i in range(24):
        body = "".join(_sentence(rng, 24) for _ in range(16))
        recs.append(Record(id=f"a{i}", text=body, extra={"date": f"2023-{1 + i % 12:02d}-01"}))
        extra = "".join(_sentence(rng, 19) for _ in range(1 + i // 2))[: 10 * (i + 1)]
        cut = body[:-25]
        text = cut[:200] + extra + cut[200:] if i % 4 > 1 else cut + extra
        year = 2024 if i % 2 else 2023
        recs.append(Record(id=f"a{i}-copy", text=text, extra={"date": f"{year}-{1 + i % 12:02d}-03"}))
    return recs


def _run(profile: str, strictness: float, report_templates: bool = False) -> list[dict[str, Any]]:
    match = MatchConfig(profile=profile, strictness=strictness, report_templates=report_templates)  # type: ignore[arg-type]
    cfg = DedupConfig(workers=1, match=match)
    return list(decision_rows(dedup_fingerprints(fingerprint_records(_docs(), cfg), cfg)))


def _joined(row: dict[str, Any]) -> bool:
    return row["kind"] in _JOINED or (
        row["kind"] == "first" and bool(row.get("evidence")) and not row.get("related_to")
    )


def _real(profile: str, strictness: float, base: list[dict[str, Any]]) -> tuple[int, int, int]:
    was = {row["id"]: _joined(row) for row in base}
    now = {row["id"]: _joined(row) for row in _run(profile, strictness, report_templates=True)}
    return (
        sum(now.values()),
        sum(was[i] and not now[i] for i in now),
        sum(now[i] and not was[i] for i in now),
    )


def test_copies_dated_apart_are_templates_for_news_and_merge_for_corpus() -> None:
    news = {r["id"]: r for r in _run("news", 0.5, report_templates=True)}
    corpus = {r["id"]: r for r in _run("corpus", 0.5)}
    assert news["a3"]["kind"] == "template" and _joined(corpus["a3"])
    assert sum(_joined(r) for r in corpus.values()) > sum(_joined(r) for r in news.values())


def test_with_template_rows_each_profile_is_predicted_as_a_real_run_decides_it() -> None:
    base = _run("news", 0.5, report_templates=True)
    r = rethreshold(base, _GRID, ["news", "corpus"], source="t")
    # the copies dated apart are templates only by their dates: decided again, not left as they are
    assert r.dated > 0 and r.reproduced == r.text_pairs and r.not_reproduced == 0
    assert r.templates > 0
    for o in r.outcomes:
        got = (o.merged, o.merged_to_kept, o.kept_to_merged)
        assert got == _real(o.profile, o.strictness, base), o
    corpus = [o for o in r.outcomes if o.profile == "corpus"]
    assert all(o.caveat is None for o in r.outcomes if o.profile == "news")
    # one pair per document, as news reported it: still a caveat, not a refusal
    assert all(o.caveat and "tends to be low" in o.caveat for o in corpus)
    assert "templates by their records' dates" in format_rethreshold(r)


def test_without_template_rows_the_corpus_rows_say_the_pairs_were_never_stored() -> None:
    base = _run("news", 0.5)
    assert not any(row["kind"] == "template" for row in base)
    r = rethreshold(base, [0.5], ["news", "corpus"], source="t")
    news, corpus = (next(o for o in r.outcomes if o.profile == p) for p in ("news", "corpus"))
    assert news.caveat is None and corpus.caveat and "--report-templates" in corpus.caveat
    # what the caveat is for: the copies dated apart left no pair to decide again
    assert corpus.merged < _real("corpus", 0.5, base)[0]
    text = format_rethreshold(r)
    row = next(line for line in text.splitlines() if line.lstrip().startswith("corpus"))
    assert f"{corpus.merged:,}*" in row
    notes = [line for line in text.splitlines() if line.startswith("  * corpus from a news run:")]
    assert len(notes) == 1 and "--report-templates" in notes[0]
    data = json.loads(json.dumps(r.to_dict()))
    assert {o["profile"]: o["caveat"] is None for o in data["outcomes"]} == {"news": True, "corpus": False}


def test_from_a_corpus_run_the_news_rows_say_the_dates_are_not_in_the_rows() -> None:
    base = _run("corpus", 0.5)
    r = rethreshold(base, [0.5], ["news", "corpus"], run_profile="corpus", source="t")
    news, corpus = (next(o for o in r.outcomes if o.profile == p) for p in ("news", "corpus"))
    assert corpus.caveat is None and news.caveat and "no dates" in news.caveat
    # what the caveat is for: the copies dated apart count as merged, a news run keeps them apart
    assert news.merged > _real("news", 0.5, base)[0]
    assert "* news from a corpus run:" in format_rethreshold(r)
