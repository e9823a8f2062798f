from __future__ import annotations

import json
import re

from neardup.eval.report import build_report, diff_segments, shared_sentences, svg_curves


def test_diff_segments_cover_both_texts() -> None:
    a, b = "今天北京天气很好，我们去公园散步。", "今天上海天气很好，我们去商店购物。"
    segs = diff_segments(a, b)
    assert "".join(s[1] for s in segs) == a
    assert "".join(s[2] for s in segs) == b
    assert {s[0] for s in segs} >= {"equal", "replace"}


def test_shared_sentences_ignore_punctuation_width() -> None:
    a = "这是一个足够长的共同句子，用来测试。别的内容。"
    b = "开头不同。这是一个足够长的共同句子,用来测试!"
    assert shared_sentences(a, b) == ["这是一个足够长的共同句子，用来测试。"]


def test_report_is_self_contained_and_escapes_text() -> None:
    recs = [
        {"id": "a", "cluster": "a", "duplicate_of": None, "kind": "new", "distance": None},
        {"id": "b", "cluster": "a", "duplicate_of": "a", "kind": "near", "distance": 2},
        {"id": "c", "cluster": "c", "duplicate_of": None, "kind": "new", "distance": None},
    ]
    texts = {"a": "正文</script><script>alert(1)</script>", "b": "正文 <b>x</b>", "c": "别的"}
    ev = {
        "rows": [
            {
                "method": "simhash-words",
                "param": k,
                "precision": 1 - k / 10,
                "recall": k / 10,
                "f1": 0.5,
                "hn_precision": 1.0,
            }
            for k in range(4)
        ],
        "default": {"method": "simhash-words", "param": 3, "f1": 0.5},
    }
    page = build_report(recs, texts, ev)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # nothing loaded from the network
    assert page.count("<script>alert(1)") == 0
    data = re.search(r'<script type="application/json" id="neardup-data">(.*?)</script>', page, re.S)
    assert data is not None
    payload = json.loads(data.group(1))
    assert payload["pairs"][0]["a"] == "a" and payload["pairs"][0]["distance"] == 2
    assert payload["summary"]["duplicates"] == 1
    assert "<svg" in page and "simhash-words" in page


def test_svg_curves_draws_every_series() -> None:
    svg = svg_curves({"p": [(0, 1.0), (1, 0.5)], "r": [(0, 0.1), (1, 0.9)]}, title="t", xlabel="k")
    assert svg.count("<polyline") == 2


def test_settings_box_never_asks_for_eval_when_it_was_given() -> None:
    recs = [{"id": "a", "cluster": "a", "duplicate_of": None, "kind": "unique", "distance": None}]
    settings = re.compile(r'<section id="settings">.*?</section>', re.S)
    without = settings.search(build_report(recs, {"a": "正文"}))
    assert without is not None and "pass <code>--eval</code>" in without.group(0)
    dup = {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    scored = {"clusters": {"duplicates": dup}}  # eval score of a dedup output
    given = settings.search(build_report(recs, {"a": "正文"}, scored))
    assert given is not None and "pass <code>--eval</code>" not in given.group(0)
    assert "records no engine settings" in given.group(0)
    engine = {**scored, "engine": {"near_similarity": 0.5}}  # eval score --documents
    shown = settings.search(build_report(recs, {"a": "正文"}, engine))
    assert shown is not None and "<td>near_similarity</td><td>0.5</td>" in shown.group(0)


def test_report_shows_what_each_setting_would_change(tmp_path: object) -> None:
    import random

    from neardup.dedup import DedupConfig, dedup_fingerprints, fingerprint_records
    from neardup.dedup.rethreshold import decision_rows, rethreshold
    from neardup.io import Record

    rng = random.Random(5)
    recs = []
    for i in range(10):
        body = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(360))
        extra = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(15 * (i + 1)))
        recs += [Record(id=f"a{i}", text=body), Record(id=f"a{i}c", text=body + "。" + extra)]
    cfg = DedupConfig(workers=1)
    rows = list(decision_rows(dedup_fingerprints(fingerprint_records(recs, cfg), cfg)))
    changes = rethreshold(rows, [0.0, 0.5, 1.0])
    page = build_report(rows, settings_changes=changes)
    section = page.split('<section id="strictness">')[1].split("</section>")[0]
    assert "<svg" in section and "merged, news" in section and "merged, corpus" in section
    assert "0.5 (run)" in section and "too many" in section
    assert section.count("<tr>") == 1 + len(changes.outcomes)
    # corpus counts from a news run without template rows carry rethreshold's caveat, marked
    assert any(o.caveat for o in changes.outcomes if o.profile == "corpus")
    assert "* corpus from a news run: " in section and "--report-templates" in section
    assert "Not computed" in build_report(rows)  # without it, the page says where it comes from
