"""The realistic profile's cases beyond reposts: quotes, follow-ups, subject-swapped templates,
corrected figures, traditional script, numbers written another way, excerpts."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from neardup.cli.main import cli, main
from neardup.eval.metrics import NEGATIVE_KINDS, RELATED_KINDS, Truth, evaluate
from neardup.eval.synth import CASES, SynthConfig, ngram_jaccard, synthesize
from neardup.eval.synth.cases import SAME_GROUP_CASES
from neardup.eval.synth.subjects import find_subjects, swap_one
from neardup.eval.synth.text import join_paragraphs, paragraphs
from neardup.eval.synth.variants import correct_figure, renumber, to_taiwan_phrasing, to_traditional
from neardup.exceptions import ConfigError
from neardup.match import compare_texts

_CHARS = (
    "发展建设推进改革创新经济社会文化生态城市乡村企业科技人才教育医疗交通能源农业工业服务市场开放合作安全"
)
_COUNTRIES = ["智利", "越南", "泰国", "巴西", "埃及", "希腊", "秘鲁", "老挝"]
_WORDS = (
    "river bridge council vote market price school plan water city report police court health energy road"
)
_PEOPLE = ["Tony Blair", "Gordon Brown", "Michael Howard", "Charles Kennedy", "Jack Straw"]
_NATIONS = ["France", "Germany", "Spain", "Italy", "Japan"]


def _filler(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(n))


def _zh(n: int = 48) -> list[dict[str, Any]]:
    """Made-up news with what the cases look for: a country, a year, figures, 今天, 万."""
    rng = random.Random(5)
    recs = []
    for i in range(n):
        c = _COUNTRIES[i % len(_COUNTRIES)]
        day = i % 27 + 1
        paras = [
            f"央视网消息（新闻联播）：今天（3月{day}日），国家主席在人民大会堂会见{c}总统。{_filler(rng, 30)}。",
            f"双方表示，2023年两国贸易额增长{10 + i % 80}%，{c}愿同中方深化合作。{_filler(rng, 40)}。",
            f"据介绍，共有{i % 9 + 1}.5万人参加活动，投资{i + 3}.{i % 9 + 1}亿元。{_filler(rng, 40)}。{_filler(rng, 30)}。",
            f"{_filler(rng, 35)}。{c}方面认为{_filler(rng, 30)}。{_filler(rng, 25)}。",
            f"{_filler(rng, 40)}。{_filler(rng, 40)}。",
        ]
        recs.append(
            {
                "id": f"z{i:03d}",
                "title": f"国家主席会见{c}总统",
                "date": f"202303{day:02d}",
                "text": "\n".join(paras),
            }
        )
    return recs


def _en(n: int = 48) -> list[dict[str, Any]]:
    rng = random.Random(6)
    words = _WORDS.split()
    recs = []
    for i in range(n):
        who, where = _PEOPLE[i % len(_PEOPLE)], _NATIONS[i % len(_NATIONS)]
        last = who.split()[1]

        def sent(k: int) -> str:
            return " ".join(rng.choice(words) for _ in range(k)).capitalize() + "."

        paras = [
            f"{who} has said the deal with {where} is worth £{i % 9 + 1}.4m. {sent(12)} {sent(10)}",
            f"Mr {last} told the BBC that 15,000 jobs in {where} were safe in 2004. {sent(14)} {sent(12)}",
            f"Profits rose {10 + i % 80}% to $1.{i % 9 + 1}bn, three months after the vote. {sent(12)} {sent(11)}",
            f"{sent(13)} {last} added that {sent(9)} {sent(12)}",
            f"{sent(14)} {sent(13)} {sent(10)}",
        ]
        recs.append({"id": f"e{i:03d}", "title": f"{last} hails {where} deal", "text": "\n\n".join(paras)})
    return recs


def _set(lang: str = "zh", seed: int = 1, **kw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    recs = _zh() if lang == "zh" else _en()
    cfg = SynthConfig(lang=lang, n_sources=24, seed=seed, min_chars=100, case_rate=0.25, **kw)  # type: ignore[arg-type]
    return synthesize(recs, cfg)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_case_is_made_labelled_and_deterministic(lang: str) -> None:
    docs, truth = _set(lang)
    assert (docs, truth) == _set(lang)
    assert _set(lang, seed=2)[0] != docs
    kinds = Counter(t["kind"] for t in truth)
    want = set(CASES) - ({"script"} if lang == "en" else set())
    assert want <= set(kinds), kinds
    assert all(kinds[k] == round(0.25 * kinds["original"]) for k in want)  # case_rate of the originals
    Truth.from_records(truth)  # every kind is one the scorer knows
    ids = {d["id"] for d in docs}
    for t in truth:
        if t["kind"] in SAME_GROUP_CASES:
            assert t["group"] == t["source"] and t["source"] in ids
        elif t["kind"] in RELATED_KINDS:
            assert t["group"] == t["id"] and t["source"] in ids and "negative_of" not in t
        elif t["kind"] == "template":
            assert t["group"] == t["id"] and t["negative_of"] in ids and t["why"] == "subject_swap"


def test_cases_leave_the_rest_of_the_set_as_it_was_and_draw_from_their_own_streams() -> None:
    base_docs, base_truth = _set(cases=())
    docs, _ = _set()
    by_id = {d["id"]: d for d in docs}
    assert all(by_id[d["id"]] == d for d in base_docs)  # the same reposts, in another order
    assert {t["kind"] for t in base_truth}.isdisjoint(CASES)
    only_quotes, _ = _set(cases=("quote",))
    quotes = {d["id"]: d for d in only_quotes if d["id"] not in {b["id"] for b in base_docs}}
    assert quotes and all(by_id[i] == d for i, d in quotes.items())


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_templates_swap_their_subject_everywhere_at_jaccard_half_to_0_8(lang: str) -> None:
    docs, truth = _set(lang)
    by_id = {d["id"]: d for d in docs}
    templates = [t for t in truth if t["kind"] == "template"]
    assert templates
    for t in templates:
        doc, src = by_id[t["id"]], by_id[t["negative_of"]]
        j = ngram_jaccard(doc["text"], src["text"], 5, words=lang == "en")
        assert 0.5 <= j <= 0.8 and t["jaccard5"] == round(j, 4)
        swaps = [e for e in t["edits"] if e.startswith("subject_")]
        assert swaps
        for e in swaps:
            kind, _, change = e.partition(":")
            old, _, new = change.partition("->")
            if kind in ("subject_country", "subject_person") and new:
                surname = old.split()[-1]
                assert surname not in doc["title"] + doc["text"]  # consistently, title included
                assert new in doc["title"] + doc["text"]


def test_subject_swaps_on_the_real_template_cases() -> None:
    rng = random.Random(3)
    meeting = "十四届全国人大一次会议主席团举行第三次会议。主席团第三次会议听取了报告。"
    new, edits = swap_one(meeting, "ordinal", "zh", rng)
    assert new.count("第四次会议") == 2 or new.count("第二次会议") == 2, new
    book = "《习近平关于社会主义文化建设论述摘编》英文版出版发行。英文版的出版有助于……"
    new, edits = swap_one(book, "edition", "zh", rng)
    assert "英文版" not in new and new.count("文版") == 2 and edits
    visit = "习近平欢迎智利总统博里奇访华。中智关系发展良好，智方愿同中方合作。"
    new, _ = swap_one(visit, "country", "zh", rng)
    assert "智利" not in new and "中智" not in new and "智方" not in new
    assert find_subjects("中组部2023年走访慰问老党员", "zh") == ["year"]
    new, _ = swap_one("Tony Blair said... Mr Blair added", "person", "en", rng)
    assert "Blair" not in new and len(set(re.findall(r"Mr (\w+)", new)) | {new.split()[1]}) == 1


def test_script_variants_are_traditional_and_differ_from_the_source() -> None:
    docs, truth = _set("zh")
    by_id = {d["id"]: d for d in docs}
    rows = [t for t in truth if t["kind"] == "script"]
    assert rows
    for t in rows:
        doc, src = by_id[t["id"]], by_id[t["source"]]
        assert doc["text"] != src["text"] and to_traditional(doc["text"]) == doc["text"]
        assert "國家主席" in doc["text"] and "国家主席" not in doc["text"]
        assert t["jaccard5"] < 0.5  # character 5-grams alone do not see the copy
    # about half in Taiwan phrasing too (網路 for 网络), each still its source's copy to the engine
    phrased = [t for t in rows if "taiwan_phrasing" in t["edits"]]
    assert 0 < len(phrased) < len(rows)
    assert all(
        compare_texts(by_id[t["source"]]["text"], by_id[t["id"]]["text"]).is_duplicate for t in phrased
    )
    assert to_taiwan_phrasing("网络信息") == "网路资讯"
    assert to_traditional("这是国家发展的新闻") == "這是國家發展的新聞"
    # the traditional table folds back through OpenCC's simplified forms of the same characters
    assert set(to_traditional("发国会议经济")).isdisjoint("发国会议经济")


def test_corrected_copies_change_one_figure() -> None:
    for lang in ("zh", "en"):
        docs, truth = _set(lang)
        by_id = {d["id"]: d for d in docs}
        rows = [t for t in truth if t["kind"] == "corrected"]
        assert rows
        for t in rows:
            (fix,) = [e for e in t["edits"] if e.startswith("correct_figure:")]
            old, new = fix.split(":", 1)[1].split("->")
            assert old != new and old in by_id[t["source"]]["text"]
            assert new in by_id[t["id"]]["text"].translate({c + 0xFEE0: c for c in range(0x21, 0x7F)})
    seen = set()
    for seed in range(40):
        got = correct_figure("The £9.4m deal in 2004 rose 27% on 12 May", random.Random(seed))
        assert got is not None
        text, old, new = got
        assert "2004" in text and "12 May" in text  # years and dates are not figures
        seen.add((old, new))
    assert ("9.4", "94") in seen and any(o == "9.4" and n.startswith("9.4") and len(n) == 4 for o, n in seen)
    assert correct_figure("没有数字的文章。", random.Random(1)) is None


def test_numbers_written_another_way() -> None:
    rng = random.Random(1)
    text, edits = renumber("今天（11月25日），1.5万人参加。2020年增长10%。", "zh", rng, "20261125")
    assert set(edits) <= {"today->date", "units_expanded", "years_in_numerals", "percent_in_words"} and edits
    for _ in range(20):  # every rewrite shows up with some seed
        text, edits = renumber("今天，1.5万人参加。2020年增长10%。", "zh", rng, "20261125")
        assert text != "今天，1.5万人参加。2020年增长10%。"
    full = {
        e
        for s in range(30)
        for e in renumber("今天，1.5万人参加。2020年增长10%。", "zh", random.Random(s), "20261125")[1]
    }
    assert full == {"today->date", "units_expanded", "years_in_numerals", "percent_in_words"}
    assert renumber("1.5万人", "zh", random.Random(2))[0] == "15000人"
    assert renumber("15000人和二〇二〇年", "zh", random.Random(0))[0] in {
        "1.5万人和二〇二〇年",
        "15000人和2020年",
        "1.5万人和2020年",
    }
    text, edits = renumber("It cost £9.4m and 15,000 jobs, up 76%, three times.", "en", random.Random(4))
    assert edits and text != "It cost £9.4m and 15,000 jobs, up 76%, three times."
    docs, truth = _set("zh")
    by_id = {d["id"]: d for d in docs}
    for t in (t for t in truth if t["kind"] == "renumbered"):
        assert by_id[t["id"]]["text"] != by_id[t["source"]]["text"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_quotes_hold_a_passage_of_their_source_between_text_of_their_own(lang: str) -> None:
    docs, truth = _set(lang)
    by_id = {d["id"]: d for d in docs}
    rows = [t for t in truth if t["kind"] == "quote"]
    assert rows
    markers = ("> ", '"') if lang == "en" else ("「", "“")
    for t in rows:
        doc, src = by_id[t["id"]], by_id[t["source"]]
        assert any(m in doc["text"] for m in markers)
        assert 0.2 <= t["added"] <= 0.8  # substantial text of its own
        assert t["containment5"] >= 0.25
        first, last = paragraphs(doc["text"])[0], paragraphs(doc["text"])[-1]
        assert first not in src["text"]  # it opens with its own words
        assert not any(m in first for m in markers)
        assert last  # and goes on after the quotation
    assert any(t["source"] != t["id"] for t in rows)


def test_follow_ups_reuse_one_or_two_background_paragraphs() -> None:
    docs, truth = _set("zh")
    by_id = {d["id"]: d for d in docs}
    rows = [t for t in truth if t["kind"] == "follow_up"]
    assert rows
    for t in rows:
        src = paragraphs(by_id[t["source"]]["text"])
        doc = paragraphs(by_id[t["id"]]["text"])
        shared = [p for p in doc if any(p.endswith(s) for s in src)]
        assert 1 <= len(shared) <= 2 and shared[0] != doc[0]
        assert t["added"] >= 0.5


def test_excerpts_keep_the_lead_and_add_nothing() -> None:
    for lang in ("zh", "en"):
        docs, truth = _set(lang)
        by_id = {d["id"]: d for d in docs}
        for t in (t for t in truth if t["kind"] == "excerpt"):
            src = join_paragraphs(paragraphs(by_id[t["source"]]["text"]), lang)  # type: ignore[arg-type]
            text = by_id[t["id"]]["text"]
            share = float(t["edits"][0].split(":")[1])
            assert src.startswith(text) and 0.25 <= share <= 0.75


def test_the_scorer_keeps_related_and_template_kinds_apart() -> None:
    truth = Truth.from_records(
        [
            {"id": "a", "group": "a"},
            {"id": "a-c1", "group": "a", "kind": "corrected", "source": "a"},
            {"id": "a-q1", "group": "a-q1", "kind": "quote", "source": "a"},
            {"id": "a-f1", "group": "a-f1", "kind": "follow_up", "source": "a"},
            {"id": "a-t1", "group": "a-t1", "kind": "template", "negative_of": "a"},
        ]
    )
    assert set(NEGATIVE_KINDS) == {"hard_negative", "template"}
    # a run that merges everything: the quote, follow-up and template count as wrong pairs
    merged = evaluate({i: 0 for i in truth.ids()}, truth)
    assert merged.merged_by_kind == {"quote": 1.0, "follow_up": 1.0, "template": 1.0}
    assert merged.related_by_kind == {"quote": 0.0, "follow_up": 0.0}
    assert merged.hard_negatives_merged == 1.0 and merged.duplicates.precision < 0.2
    assert merged.recall_by_kind["corrected"] == 1.0
    # the run a person would make: the correction merged, the quote and follow-up reported as related
    right = evaluate(
        {"a": 0, "a-c1": 0, "a-q1": 1, "a-f1": 2, "a-t1": 3}, truth, {"a-q1": "a", "a-f1": "a-c1"}
    )
    assert right.duplicates.f1 == 1.0 and right.hard_negatives_merged == 0.0
    assert right.merged_by_kind == {"quote": 0.0, "follow_up": 0.0, "template": 0.0}
    assert right.related_by_kind == {"quote": 1.0, "follow_up": 1.0}
    assert right.to_dict()["related_by_kind"] == {"quote": 1.0, "follow_up": 1.0}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"cases": ("quote", "reply")}, "cases"),
        ({"case_rate": 0.0}, "case_rate"),
        ({"case_rate": 2}, "case_rate"),
    ],
)
def test_case_config_names_the_bad_argument(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SynthConfig(**bad)


def test_classic_profile_ignores_the_cases() -> None:
    cfg = dict(lang="zh", n_sources=24, seed=1, min_chars=100, profile="classic")
    assert synthesize(_zh(), SynthConfig(**cfg)) == synthesize(_zh(), SynthConfig(**cfg, cases=()))  # type: ignore[arg-type]


def test_synth_cli_cases_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _zh()), encoding="utf-8")
    out, truth = tmp_path / "set.jsonl", tmp_path / "truth.jsonl"
    base = [
        "synth",
        str(corpus),
        "-o",
        str(out),
        "--truth",
        str(truth),
        "--n-sources",
        "24",
        "--min-chars",
        "100",
    ]
    res = CliRunner().invoke(cli, [*base, "--cases", "template,excerpt", "--case-rate", "0.25"])
    assert res.exit_code == 0, res.output
    kinds = Counter(json.loads(line)["kind"] for line in truth.read_text().splitlines())
    assert kinds["template"] == kinds["excerpt"] == 6 and not kinds["quote"]
    assert "template 6" in res.output  # the set's stats count each case
    res = CliRunner().invoke(cli, [*base, "--cases", "none"])
    assert res.exit_code == 0 and not set(CASES) & {
        json.loads(x)["kind"] for x in truth.read_text().splitlines()
    }
    with pytest.raises(SystemExit) as exc:
        main([*base, "--cases", "quote,reply"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cases must be among" in err[0]


def test_cases_on_real_news_sit_where_they_should() -> None:
    from neardup.io import iter_json_objects

    data = Path(__file__).resolve().parents[4] / "shared" / "data"
    import os

    data = Path(os.environ.get("NEARDUP_DATA", data))
    zh, en = data / "zh-xwlb.jsonl.gz", data / "en-bbc.jsonl.gz"
    if not zh.exists() or not en.exists():
        pytest.skip("zh-xwlb / en-bbc corpora not present")
    for path, lang in ((zh, "zh"), (en, "en")):
        recs = [obj for _, obj in iter_json_objects(path)][: 3000 if lang == "zh" else 2225]
        _, truth = synthesize(
            recs, SynthConfig(lang=lang, n_sources=200, seed=2, hard_negatives=0, case_rate=0.1)
        )  # type: ignore[arg-type]
        kinds = Counter(t["kind"] for t in truth)
        for k in CASES:
            if k != "script" or lang == "zh":
                assert kinds[k] >= 15, (lang, k, kinds)
        tj = [float(t["jaccard5"]) for t in truth if t["kind"] == "template"]
        assert all(0.5 <= j <= 0.8 for j in tj)
        assert max(tj) - min(tj) > 0.1  # spread over the band, not piled at one end
        assert all(float(t["added"]) >= 0.2 for t in truth if t["kind"] in RELATED_KINDS)


def test_the_traditional_copy_folds_back_through_the_engines_table() -> None:
    from importlib import resources

    table = resources.files("neardup").joinpath("data/t2s.tsv")
    if not table.is_file():
        pytest.skip("no traditional -> simplified table in this build")
    t2s = {}
    for line in table.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            a, _, b = line.partition("\t")
            t2s[ord(a)] = b
    docs, truth = _set("zh")
    kind = {t["id"]: t["kind"] for t in truth}
    text = "".join(d["text"] for d in docs if kind[d["id"]] == "original")
    back = to_traditional(text).translate(t2s)
    assert sum(a != b for a, b in zip(text, back, strict=True)) <= len(text) / 1000


def test_every_case_has_its_id_suffix() -> None:
    from neardup.eval.synth.cases import _SUFFIX

    assert set(_SUFFIX) == set(CASES) and len(set(_SUFFIX.values())) == len(CASES)
