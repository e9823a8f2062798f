"""Records' dates: the same text told on two occasions far apart is a template, not a duplicate."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from neardup.dedup.config import DedupConfig
from neardup.dedup.local import dedup_records
from neardup.io import Record
from neardup.match import MatchConfig, compare_texts
from neardup.match.dates import NO_DAY, day_number, days_of

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")


@pytest.mark.parametrize(
    "value",
    [
        "2024-03-05",
        "20240305",
        "2024/3/5",
        "2024.03.05",
        "2024年3月5日",
        "2024-03-05T23:59:59+08:00",
        "2024-03-05 08:00",
        dt.date(2024, 3, 5),
        dt.datetime(2024, 3, 5, 12),
        20240305,
        "1709640000",
        "1709640000000",
    ],
)
def test_day_number_reads_the_usual_date_forms(value: object) -> None:
    assert day_number(value) == (dt.date(2024, 3, 5) - dt.date(1970, 1, 1)).days


@pytest.mark.parametrize("value", [None, "", "yesterday", "2024-13-40", "12", True, 3.5, "2024"])
def test_anything_else_is_an_unknown_date(value: object) -> None:
    assert day_number(value) == NO_DAY


def test_days_of_without_values_is_all_unknown() -> None:
    assert days_of(None, 3).tolist() == [NO_DAY] * 3
    assert days_of(["2024-01-02", None], 2)[1] == NO_DAY


def test_a_near_copy_a_year_later_is_another_occasion() -> None:
    assert compare_texts(NOTICE, EDITED).kind == "near"  # no dates: the text decides
    assert compare_texts(NOTICE, EDITED, dates=("2024-01-01", "2024-01-09")).kind == "near"
    assert compare_texts(NOTICE, EDITED, dates=("2023-01-01", "2024-01-09")).kind == "unique"
    shown = MatchConfig(report_templates=True)
    assert compare_texts(NOTICE, EDITED, shown, dates=("2023-01-01", "2024-01-09")).kind == "template"
    # one date unknown decides nothing; identical text stays a duplicate on any date
    assert compare_texts(NOTICE, EDITED, dates=("2023-01-01", None)).kind == "near"
    assert compare_texts(NOTICE, NOTICE + "\n", dates=("2023-01-01", "2024-01-09")).kind in (
        "exact",
        "content",
    )


def test_the_corpus_profile_and_occasion_days_0_do_not_read_dates() -> None:
    apart = ("2023-01-01", "2024-01-09")
    assert compare_texts(NOTICE, EDITED, MatchConfig(profile="corpus"), dates=apart).kind == "near"
    assert compare_texts(NOTICE, EDITED, MatchConfig(occasion_days=0), dates=apart).kind == "near"
    assert compare_texts(NOTICE, EDITED, MatchConfig(occasion_days=400), dates=apart).kind == "near"


def test_dedup_reads_the_date_field_and_clusters_each_occasion_on_its_own() -> None:
    recs = [
        Record(id="a2023", text=NOTICE, extra={"date": "2023-03-01"}),
        Record(id="b2024", text=EDITED, extra={"date": "2024-03-01"}),
        Record(id="c2024", text=EDITED.replace("加强各领域", "加强各个领域"), extra={"date": "2024-03-03"}),
        Record(id="d2023", text=NOTICE.replace("加强各领域", "加强各个领域"), extra={"date": "2023-03-02"}),
    ]

    def clusters(rows: Iterable[dict[str, Any]]) -> dict[str, str]:
        return {r["id"]: r["cluster"] for r in rows}

    got = clusters(dedup_records(recs, DedupConfig()))
    # each year's notice and its copy, not a copy of last year's notice
    assert got["b2024"] == got["c2024"] != got["a2023"] == got["d2023"]
    # the field named by --keep-field, and none at all: the text alone decides
    moved = [Record(id=r.id, text=r.text, extra={"published": r.extra["date"]}) for r in recs]
    got = clusters(dedup_records(moved, DedupConfig()))
    assert len(set(got.values())) == 1
    cfg = DedupConfig.from_dict({"match": {"keep_field": "published"}})
    got = clusters(dedup_records(moved, cfg))
    assert got["b2024"] == got["c2024"] != got["a2023"] == got["d2023"]


def test_occasion_days_is_checked() -> None:
    from neardup.exceptions import ConfigError

    with pytest.raises(ConfigError, match="occasion_days"):
        MatchConfig(occasion_days=-1)


def test_the_command_line_reads_dates_and_takes_occasion_days(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from neardup.cli.main import cli

    src = tmp_path / "news.jsonl"
    docs = [{"id": "a", "text": NOTICE, "date": "20230301"}, {"id": "b", "text": EDITED, "date": "20240301"}]
    src.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")

    def kinds(*opts: str) -> list[str]:
        out = tmp_path / "out.jsonl"
        res = CliRunner().invoke(cli, ["dedup", str(src), "-q", "--out", str(out), *opts])
        assert res.exit_code == 0, res.output
        return [json.loads(line)["kind"] for line in out.read_text(encoding="utf-8").splitlines()]

    assert kinds() == ["unique", "unique"]
    assert kinds("--occasion-days", "400") == ["first", "near"]
    assert kinds("--occasion-days", "0") == ["first", "near"]
    from neardup.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["dedup", str(src), "--occasion-days", "-1", "--out", str(tmp_path / "x.jsonl")])
    assert stop.value.code == 2


def test_a_passage_shared_by_records_far_apart_is_a_template_not_a_partial_report() -> None:
    host = (
        "今年以来，各地持续推进重点项目建设，多个交通和能源项目提前完成年度投资计划。"
        "记者从省发展改革委了解到，前三季度全省新开工项目一千二百余个，带动就业超过十万人。"
        "与此同时，消费市场稳步回暖，假日期间旅游收入同比增长两成，文旅融合成为新的增长点。"
    )
    quoting = host + NOTICE[:80] + "专家认为，这将为下一阶段的发展打下坚实基础。"
    assert compare_texts(NOTICE, quoting, dates=("2024-01-01", "2024-01-03")).kind == "partial"
    assert compare_texts(NOTICE, quoting, dates=("2023-01-01", "2024-01-03")).kind == "unique"
    shown = MatchConfig(report_templates=True)
    assert compare_texts(NOTICE, quoting, shown, dates=("2023-01-01", "2024-01-03")).kind == "template"


def test_compare_reads_dates_and_says_they_decided(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from neardup.cli.main import cli, main

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(NOTICE, encoding="utf-8")
    b.write_text(EDITED, encoding="utf-8")
    out = CliRunner().invoke(cli, ["compare", str(a), str(b), "--dates", "2023-03-01", "2024-03-01"]).output
    assert out.startswith("verdict       unique") and "near by the texts" in out and "366 days apart" in out
    out = CliRunner().invoke(cli, ["compare", str(a), str(b), "--dates", "2024-03-01", "20240302"]).output
    assert out.startswith("verdict       near")
    with pytest.raises(SystemExit) as stop:
        main(["compare", str(a), str(b), "--dates", "2024-03-01", "someday"])
    assert stop.value.code == 2
