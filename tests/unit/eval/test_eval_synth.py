from __future__ import annotations

import json
from collections import Counter

import pytest

from neardup.eval.metrics import Truth
from neardup.eval.synth import SynthConfig, natural_truth, ngram_jaccard, synthesize
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


def test_copies_keep_their_source_and_exact_copies_are_exact() -> None:
    docs, truth = synthesize(_corpus(), SynthConfig(lang="zh", n_sources=30, seed=1, copy_rate=1.0))
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


def test_hard_negatives_look_alike_but_differ() -> None:
    docs, truth = synthesize(_corpus(), SynthConfig(lang="zh", n_sources=30, seed=2))
    by_id = {d["id"]: d for d in docs}
    hn = [t for t in truth if t["kind"] == "hard_negative"]
    assert hn
    for t in hn:
        a, b = by_id[t["id"]], by_id[t["negative_of"]]
        assert a["date"][:4] != b["date"][:4]
        assert ngram_jaccard(str(a["text"]), str(b["text"])) < 0.5


def test_synth_config_checks_arguments() -> None:
    with pytest.raises(ConfigError, match="n_sources"):
        SynthConfig(n_sources=0)
    with pytest.raises(ConfigError, match="lang"):
        SynthConfig(lang="fr")  # type: ignore[arg-type]
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
