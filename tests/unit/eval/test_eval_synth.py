from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from neardup.eval.metrics import Truth
from neardup.eval.synth import Profile, SynthConfig, natural_truth, ngram_jaccard, synthesize
from neardup.eval.synth.config import CASES
from neardup.exceptions import ConfigError

_TOPICS = ["长江经济带", "粮食生产", "航天工程", "乡村振兴", "科技创新", "生态保护", "交通建设", "文化旅游"]


_CHARS = (
    "发展建设推进改革创新经济社会文化生态城市乡村企业科技人才教育医疗交通能源农业工业服务市场开放合作安全"
)


def _corpus(n: int = 60) -> list[dict[str, object]]:
    import random

    rng = random.Random(7)
    docs = []
    for i in range(n):
        topic = _TOPICS[i % len(_TOPICS)]
        paras = []
        for p in range(4):
            sents = [
                f"{topic}第{p}段，" + "".join(rng.choice(_CHARS) for _ in range(30)) + "。" for j in range(3)
            ]
            paras.append("".join(sents))
        year = 2022 + i % 3
        docs.append(
            {
                "id": f"doc-{i:03d}",
                "title": f"{year}年{topic}工作会议召开",
                "date": f"{year}0101",
                "text": "央视网消息（新闻联播）：" + "\n".join(paras),
            }
        )
    return docs


def test_synth_is_deterministic_and_labels_every_doc() -> None:
    cfg = SynthConfig(lang="zh", n_sources=30, seed=3)
    d1, t1 = synthesize(_corpus(), cfg)
    d2, t2 = synthesize(_corpus(), cfg)
    assert json.dumps(d1, ensure_ascii=False) == json.dumps(d2, ensure_ascii=False)
    assert t1 == t2
    assert [d["id"] for d in d1] == [t["id"] for t in t1]
    truth = Truth.from_records(t1)
    assert len(truth) == len(d1)
    kinds = Counter(t["kind"] for t in t1)
    assert kinds["original"] + kinds["hard_negative"] == 30
    assert kinds["hard_negative"] >= 1
    d3, _ = synthesize(_corpus(), SynthConfig(lang="zh", n_sources=30, seed=4))
    assert d3 != d1


def test_classic_copies_keep_their_source_and_exact_copies_are_exact() -> None:
    cfg = SynthConfig(lang="zh", n_sources=30, seed=1, copy_rate=1.0, profile="classic")
    docs, truth = synthesize(_corpus(), cfg)
    by_id = {d["id"]: d for d in docs}
    for t in truth:
        if t["kind"] == "exact":
            assert by_id[t["id"]]["text"] == by_id[t["source"]]["text"]
        if t.get("source"):
            assert by_id[t["source"]]  # the source is in the set
            assert t["group"] == t["source"]
        if t["kind"] == "near":
            assert any(
                e in t["edits"]
                for e in (
                    "change_chars",
                    "drop_sentences",
                    "add_sentences",
                    "swap_paragraphs",
                    "truncate",
                    "ads",
                )
            )
        if "html_template" in t.get("edits", []):
            assert "<html>" in by_id[t["id"]]["html"] and "text" not in by_id[t["id"]]


@pytest.mark.parametrize("profile", ["classic", "realistic"])
def test_hard_negatives_look_alike_but_differ(profile: Profile) -> None:
    docs, truth = synthesize(_corpus(), SynthConfig(lang="zh", n_sources=30, seed=2, profile=profile))
    by_id = {d["id"]: d for d in docs}
    hn = [t for t in truth if t["kind"] == "hard_negative"]
    assert hn
    for t in hn:
        a, b = by_id[t["id"]], by_id[t["negative_of"]]
        assert a["date"][:4] != b["date"][:4]
        assert ngram_jaccard(str(a["text"]), str(b["text"])) < 0.5


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"n_sources": 0}, "n_sources"),
        ({"lang": "fr"}, "lang"),
        ({"profile": "heavy"}, "profile"),
        ({"copy_rate": 1.5}, "copy_rate"),
        ({"max_copies": 0}, "max_copies"),
        ({"kind_weights": (1.0, -1.0, 0.0, 0.0)}, "kind_weights"),
        ({"hn_max_overlap": 1.0}, "hn_max_overlap"),
        ({"html_rate": -0.1}, "html_rate"),
    ],
)
def test_synth_config_names_the_bad_argument(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SynthConfig(**bad)


def test_synth_config_defaults_and_short_corpora() -> None:
    assert SynthConfig().profile == "realistic" and SynthConfig().html_share == 0.4
    assert SynthConfig(profile="classic").html_share == 0.2
    with pytest.raises(ConfigError, match="min_chars"):
        synthesize([{"id": "a", "text": "短"}], SynthConfig(n_sources=1))


def test_natural_truth_groups_exact_and_high_overlap() -> None:
    base = " ".join(f"word{i}" for i in range(60))
    recs = [
        {"id": "a", "text": base},
        {"id": "b", "text": base + " extra"},
        {"id": "c", "text": "  " + base.replace(" ", "  ")},
        {"id": "d", "text": "something else entirely here"},
    ]
    t = {r["id"]: r for r in natural_truth(recs)}
    assert t["b"]["group"] == t["c"]["group"] == "a"
    assert t["c"]["kind"] == "exact" and t["b"]["kind"] == "near"
    assert t["d"]["group"] == "d" and t["d"]["kind"] == "original"


# --------------------------------------------------------------------------------------------- profiles

_WORDS = (
    "river bridge council vote market price school plan water city report police court health energy road"
)


def _en_corpus(n: int = 40) -> list[dict[str, object]]:
    import random

    rng = random.Random(11)
    words = _WORDS.split()
    recs = []
    for i in range(n):
        paras = [
            " ".join(" ".join(rng.choice(words) for _ in range(12)).capitalize() + "." for _ in range(4))
            for _ in range(4)
        ]
        recs.append(
            {
                "id": f"e{i:02d}",
                "title": f"Council meeting {2020 + i % 3}",
                "date": f"{2020 + i % 3}-01-01",
                "text": "\n\n".join(paras),
            }
        )
    return recs


def _digest(docs: list[dict[str, object]], truth: list[dict[str, object]]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps([docs, truth], ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def test_classic_profile_output_is_pinned() -> None:
    zh = SynthConfig(lang="zh", n_sources=30, seed=5, copy_rate=1.0, html_rate=0.5, profile="classic")
    assert _digest(*synthesize(_corpus(), zh)) == (
        "09a5520f198b347a97ae3ec941683c6bd592b8bd43c5f0e299b8224acaba35b1"
    )
    en = SynthConfig(
        lang="en", n_sources=20, seed=5, copy_rate=1.0, html_rate=0.5, min_chars=300, profile="classic"
    )
    assert _digest(*synthesize(_en_corpus(), en)) == (
        "33490a67adde416ec844cc304850210d16fd90b68146bbd1dd31de3c60bd55aa"
    )


def test_realistic_profile_output_is_pinned() -> None:
    # the same seed and input give the same bytes: these digests pin the realistic set (HTML pages
    # included); without the added cases it is the set made before they existed
    for cases, want_zh, want_en in (
        (
            (),
            "e2ecdaccb04174cdb5bfd769fe5f6be44bf3ef22df35846349ed7df654e787aa",
            "0cb959d16c02b20d14e81b6e904a3936b10f293d776d6e0b382a9ebd2a17511a",
        ),
        (
            CASES,
            "6e09ca80554f0376e2c719f7609400871081dead33ada057fab4dad650d45efa",
            "5e746c158ac718918ab5d6997fb2c680859f479bab984762a03b4a74a3ab2573",
        ),
    ):
        zh = SynthConfig(
            lang="zh", n_sources=30, seed=5, copy_rate=1.0, html_rate=0.5, max_copies=4, cases=cases
        )
        assert _digest(*synthesize(_corpus(), zh)) == want_zh
        en = SynthConfig(
            lang="en",
            n_sources=20,
            seed=5,
            copy_rate=1.0,
            html_rate=0.5,
            max_copies=4,
            min_chars=300,
            cases=cases,
        )
        assert _digest(*synthesize(_en_corpus(), en)) == want_en


def test_rendered_pages_are_pinned() -> None:
    import hashlib

    from neardup.contentseen.synth import ALL_TEMPLATES, render_page

    h = hashlib.sha256()
    for tpl in ALL_TEMPLATES:
        for seed in range(4):
            zh = render_page(
                "标题", ["第一段。", "第二段 & <b>"], template=tpl, related=["甲", "乙"], seed=seed, site="qq"
            )
            en = render_page("Title", ["One.", "Two"], template=tpl, related=["a"], seed=seed, site="metro")
            h.update(zh.encode())
            h.update(en.encode())
    assert h.hexdigest() == "bb58f758686a6c44b4a03dab22eb70e6d11767d88b17bfd635a7157a4bc05d1e"


def _realistic(seed: int = 1, lang: str = "zh") -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    if lang == "zh":
        cfg = SynthConfig(lang="zh", n_sources=30, seed=seed, copy_rate=1.0, max_copies=4)
        return synthesize(_corpus(), cfg)
    cfg = SynthConfig(lang="en", n_sources=30, seed=seed, copy_rate=1.0, max_copies=4, min_chars=300)
    return synthesize(_en_corpus(), cfg)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_realistic_profile_is_deterministic(lang: str) -> None:
    assert _digest(*_realistic(3, lang)) == _digest(*_realistic(3, lang))
    assert _digest(*_realistic(3, lang)) != _digest(*_realistic(4, lang))


_CONTENT = {"drop_sentences", "add_boilerplate", "swap_paragraphs", "truncate", "change_chars", "typos"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_realistic_near_copies_combine_strong_edits(lang: str) -> None:
    _, truth = _realistic(1, lang)
    near = [t for t in truth if t["kind"] == "near"]
    assert len(near) >= 5
    for t in near:
        names = [str(e).split(":")[0] for e in t["edits"]]  # type: ignore[attr-defined]
        assert len(_CONTENT & set(names)) >= 2, t["edits"]
        for e in t["edits"]:  # type: ignore[attr-defined]
            name, _, value = str(e).partition(":")
            if name in ("change_chars", "typos"):
                assert 0.02 <= float(value) <= 0.06
            if name == "truncate":
                assert 0.6 <= float(value) <= 0.95
    seen = {str(e).split(":")[0] for t in truth for e in t.get("edits", [])}  # type: ignore[attr-defined]
    assert {"title", "editor_line", "source_line"} <= seen
    if lang == "en":
        assert {"typos", "dateline", "wire_credit"} <= seen
    else:
        assert "change_chars" in seen and {"fullwidth", "halfwidth", "indent"} & seen


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_realistic_copies_carry_their_jaccard_with_the_source(lang: str) -> None:
    docs, truth = _realistic(2, lang)
    by_id = {d["id"]: d for d in docs}
    copies = [t for t in truth if t.get("source")]
    assert copies and all("jaccard5" in t for t in copies)
    for t in copies:
        j = float(t["jaccard5"])  # type: ignore[arg-type]
        assert 0 <= j <= 1
        if t["kind"] == "exact":
            assert j == 1.0
        doc = by_id[t["id"]]
        if "text" in doc:  # HTML copies are measured on their text before rendering
            src = str(by_id[t["source"]]["text"])
            assert j == round(ngram_jaccard(str(doc["text"]), src, 5, words=lang == "en"), 4)
    near = sorted(float(t["jaccard5"]) for t in copies if t["kind"] == "near")  # type: ignore[arg-type]
    assert near[len(near) // 2] < 0.9  # much further from the source than classic copies


def _visible(html: str) -> str:
    import html as html_mod
    import re

    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    return html_mod.unescape(re.sub(r"<[^>]+>", " ", html))


def test_realistic_html_copies_hold_the_article_inside_long_boilerplate() -> None:
    docs, truth = _realistic(5)
    by_id = {d["id"]: d for d in docs}
    titles = {str(r["title"]) for r in _corpus()}
    pages = [t for t in truth if any(str(e).startswith("html:") for e in t.get("edits", []))]  # type: ignore[attr-defined]
    assert len(pages) >= 5
    assert len({str(e) for t in pages for e in t["edits"] if str(e).startswith("html:")}) >= 3  # type: ignore[attr-defined]
    longer = 0
    for t in pages:
        doc = by_id[t["id"]]
        assert "text" not in doc
        page = _visible(str(doc["html"]))
        src = str(by_id[t["source"]]["text"])
        # the article is on the page: most of the source's 5-grams are there
        src5 = {src[i : i + 5] for i in range(len(src) - 4) if "\n" not in src[i : i + 5]}
        flat = "".join(page.split())
        assert sum(g in flat for g in src5) / len(src5) > 0.3
        assert "ICP备" in page
        if "html:minimal" not in t["edits"]:  # type: ignore[operator]  # a print view lists nothing
            assert sum(ti in page for ti in titles if ti != doc["title"]) >= 3  # other articles' titles
        longer += len(flat) - len(src) > len(src)
    assert longer >= len(pages) // 3  # boilerplate longer than the article on many pages


def test_realistic_partial_copies_embed_a_third_to_two_thirds() -> None:
    docs, truth = _realistic(6)
    by_id = {d["id"]: d for d in docs}
    partial = [t for t in truth if t["kind"] == "partial"]
    assert len(partial) >= 3
    for t in partial:
        share = [float(str(e).split(":")[1]) for e in t["edits"] if str(e).startswith("embedded:")]  # type: ignore[attr-defined]
        assert len(share) == 1 and 0.33 <= share[0] <= 0.67
        assert 0.25 <= float(t["containment5"]) <= 0.75  # type: ignore[arg-type]
        src = str(by_id[t["source"]]["text"])
        host = [p for p in str(by_id[t["id"]]["text"]).split("\n") if p not in src]
        assert len("".join(host)) >= len(src) / 3  # the rest of the page is another article


def test_realistic_hard_negatives_include_a_daily_story_on_the_next_day() -> None:
    import random

    rng = random.Random(3)
    recs = []
    for day in range(1, 9):
        body = "".join(f"第{k}句" + "".join(rng.choice(_CHARS) for _ in range(25)) + "。" for k in range(12))
        recs.append(
            {
                "id": f"d{day}",
                "title": f"国庆海采：今天（10月{day}日）",
                "date": f"202210{day:02d}",
                "text": body,
            }
        )
    _, truth = synthesize(recs, SynthConfig(n_sources=4, hard_negatives=2, seed=1))
    hn = [t for t in truth if t["kind"] == "hard_negative"]
    assert hn and all(t["why"] == "adjacent_day" and float(t["jaccard5"]) < 0.5 for t in hn)


def test_mobile_template_wraps_the_article_with_an_icp_footer() -> None:
    from neardup.contentseen.synth import ALL_TEMPLATES, TEMPLATES, render_page

    assert "mobile" in ALL_TEMPLATES and "mobile" not in TEMPLATES
    page = render_page(
        "标题", ["第一段文字。", "第二段文字。"], template="mobile", related=["别的新闻"], seed=2
    )
    assert "第一段文字" in page and "别的新闻" in page and "ICP备" in page
    assert page == render_page(
        "标题", ["第一段文字。", "第二段文字。"], template="mobile", related=["别的新闻"], seed=2
    )


def test_realistic_near_copies_of_real_news_sit_in_the_repost_band() -> None:
    from pathlib import Path

    from neardup.io import iter_json_objects

    path = Path("/work/shared/data/zh-xwlb.jsonl.gz")
    if not path.exists():
        pytest.skip("zh-xwlb corpus not present")
    recs = [obj for _, obj in iter_json_objects(path)][:4000]
    _, truth = synthesize(recs, SynthConfig(n_sources=300, seed=1, hard_negatives=0))
    near = sorted(float(t["jaccard5"]) for t in truth if t["kind"] == "near")  # type: ignore[arg-type]
    assert 0.45 <= near[len(near) // 2] <= 0.7
    assert 0.25 <= near[len(near) // 10] <= 0.5


def test_a_corpus_articles_own_near_copy_is_never_another_group() -> None:
    # en-bbc files stories twice (bbc-sport-181 and -182: the same words, other punctuation); the
    # realistic set keeps one of them, so the truth never calls the same text two groups
    recs = _en_corpus()
    twins = [
        {**r, "id": f"{r['id']}-twin", "text": str(r["text"]).replace(".", "!").upper()} for r in recs[:10]
    ]
    cfg = SynthConfig(lang="en", n_sources=40, seed=3, min_chars=300)
    _, truth = synthesize(recs + twins, cfg)
    groups = {t["group"] for t in truth}
    for r in recs[:10]:
        assert not {r["id"], f"{r['id']}-twin"} <= groups
    classic = SynthConfig(lang="en", n_sources=40, seed=3, min_chars=300, profile="classic")
    assert any(
        str(t["group"]).endswith("-twin") for t in synthesize(recs + twins, classic)[1]
    )  # classic: as before


def test_near_copies_keep_the_first_and_ignore_unrelated_texts() -> None:
    from neardup.eval.synth.distinct import near_copies

    recs = _en_corpus(6)
    texts = [str(r["text"]) for r in recs]
    longer = texts[0] + "\n\n" + texts[1][:200]  # holds all of text 0: one article, extended
    assert near_copies([*texts, longer], words=True) == {6}
    assert near_copies(texts, words=True) == set()
