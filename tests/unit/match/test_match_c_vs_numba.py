"""The match engine's kernels in C (``_match_c``) give numba's results bit for bit: the batch pass,
the stream (one document at a time, asked before it is added, tables growing), the journal replay,
the pass per component against a corpus, and the pair checks of ``compare`` and ``rethreshold``, on
the real corpora and on synthesized hard cases; bad buffers raise; a fresh process that
deduplicates a small file imports no numba.

Each comparison runs the same public code twice, once with the extension and once with it hidden
(``kernels._c = None``: the numba kernels run)."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.match import kernels
from neardup.match.config import MatchConfig
from neardup.match.dates import NO_DAY
from neardup.match.engine import EngineState, _outputs, _results, run_components
from neardup.match.signature import Signatures, signatures
from neardup.match.verify import NEAR, PARTIAL, TEMPLATE, evidence, thresholds

pytest.importorskip("neardup.match._match_c", reason="the C extension is not built here")
from neardup.match import _match_c

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[3].parent / "shared" / "data"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="the real corpora are not here")


def _kinds_as_numba(sigs: Signatures, pairs: list[tuple[int, int]], th: Any) -> dict[tuple[int, int], int]:
    """The text kind of each pair (a near sketch verdict read with its text evidence), after
    checking that the evidence and the kind are numba's."""

    def decide() -> list[Any]:
        evs = [kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4) for i, j in pairs]
        return [(ev.tolist(), kernels.decide_text(3, ev, 0, th)) for ev in evs]

    got = decide()
    with _numba():
        want = decide()
    assert got == want
    return {pairs[n]: got[n][1] for n in range(len(pairs))}


def test_rewrites_and_opposites_decide_as_numba() -> None:
    """A report spun with other verbs wherever they stand (进行 -> 展开, 不断 -> 持续), a word swapped
    in one place, verbs that tell opposite events (上涨 -> 下跌) and a noun replaced wherever it stands
    (安全 -> 生态): the evidence
    and the kinds are numba's, with the words' tables set in C."""
    source = (
        "省政府今天召开常务会议，研究部署下半年安全生产工作。会议强调，各地要不断压实企业主体责任，把隐患排查"
        "整治作为当前工作的重中之重，对重点行业进行全面检查，发现问题当场交办。会议还研究了防汛工作，要求各地"
        "密切关注天气变化，及时发布预警信息，确保安全度汛。会议表示，要不断提升基层应急处置能力，对重点乡镇"
        "进行专项督导，推动各项措施落地见效。"
    )
    market = "今天沪深两市股指{x}，成交金额与上周基本持平。" + source + "收盘时，煤炭板块{x}超过百分之三。"
    texts = [
        source,
        source.replace("不断", "持续").replace("进行", "展开"),
        source.replace("表示", "称"),
        market.format(x="上涨"),
        market.format(x="下跌"),
        source.replace("安全", "生态"),
    ]
    sigs = signatures(texts, MatchConfig())
    th = thresholds(MatchConfig(report_templates=True))
    pairs = [(i, j) for i in range(len(texts)) for j in range(len(texts)) if i != j]

    kinds = _kinds_as_numba(sigs, pairs, th)
    assert kinds[0, 1] == kinds[1, 0] == kinds[0, 2] == NEAR  # the rewrites
    assert kinds[3, 4] == kinds[0, 5] == TEMPLATE  # opposite events, another subject


def test_an_occasion_in_a_run_of_figures_decides_as_numba() -> None:
    """A weekday replaced in a run of the day's figures beside other figures replaced (the next day's
    report), and a date line with a version number replaced alone (a FAQ's new version): numba's
    evidence and kinds."""
    report = (
        "Shares in the chip maker fell sharply after it warned that sales would miss forecasts for the "
        "third quarter in a row. By {time} GMT on {day} the shares were down {drop}% at {price} pence, "
        "valuing the company at about {value}m. The firm said it would cut costs by closing {n} of its "
        "factories in Scotland next year. Analysts said the warning was worse than expected, although its "
        "dividend of {div}p was not at risk and its balance sheet remained strong after the sale of its "
        "software arm to a rival last spring for an undisclosed sum."
    )
    monday = report.format(
        time="1200", day="Monday", drop="16.2", price="235.75", value="138", n="two", div="4.5"
    )
    tuesday = report.format(
        time="1321", day="Tuesday", drop="18.8", price="260.3", value="152", n="three", div="5.1"
    )
    faq = "Questions about the recycling scheme. Last modified: {date}. Version: {v}. " + monday
    texts = [
        monday,
        tuesday,
        faq.format(date="5 April 1993", v="1.1"),
        faq.format(date="11 December 1992", v="1.0"),
    ]
    sigs = signatures(texts, MatchConfig())
    th = thresholds(MatchConfig(report_templates=True))

    def decide() -> list[Any]:
        evs = [kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4) for i, j in ((0, 1), (2, 3))]
        return [(ev.tolist(), kernels.decide_text(3, ev, 0, th)) for ev in evs]

    got = decide()
    with _numba():
        want = decide()
    assert got == want
    assert [kind for _, kind in got] == [TEMPLATE, NEAR]


@contextmanager
def _numba() -> Iterator[None]:
    """The numba kernels run inside the block (the extension hidden)."""
    saved = kernels._c
    kernels._c = None
    try:
        yield
    finally:
        kernels._c = saved


def _read(name: str, limit: int) -> list[str]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return [json.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]


def _synth(lang: str, name: str, sources: int, seed: int) -> list[str]:
    """Synthesized reposts, quotes, follow-ups, templates, excerpts and hard negatives of real articles."""
    from neardup.eval.synth import SynthConfig, synthesize

    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for _, line in zip(range(400), f, strict=False)]
    docs, _ = synthesize(recs, SynthConfig(lang=lang, n_sources=sources, seed=seed))  # type: ignore[arg-type]
    return [d["text"] if "text" in d else d["html"] for d in docs]  # portal pages: their HTML as text


def _hard_cases(seed: int) -> list[str]:
    """Made-up texts that stress ties and edges: repeated windows (equal keys in the window sort),
    swapped subjects, dates and editions, quoted lines, empty and one-token texts, copies."""
    rng = random.Random(seed)
    words = [
        "北京",
        "上海",
        "智利",
        "印度尼西亚",
        "会议",
        "第三次",
        "第四次",
        "2023年",
        "2024年",
        "10月5日",
        "10月6日",
    ]
    base = "".join(rng.choice(words) + "，" for _ in range(60))
    out = [
        "",
        "一",
        "a",
        base,
        base + base,
        base.replace("智利", "印度尼西亚"),
        base.replace("2023年", "2024年"),
    ]
    out += ["> " + base[:200] + "\n" + "".join(rng.choice(words) for _ in range(80)), base[:150], base[100:]]
    latin = " ".join(
        rng.choice(["the", "cat", "sat", "on", "mat", "in", "2024", "May", "5"]) for _ in range(300)
    )
    out += [
        latin,
        latin.replace("cat", "dog"),
        latin[: len(latin) // 2],
        "| " + latin[:300] + "\n" + latin[400:],
    ]
    for _ in range(40):
        t = list(rng.choice(out[3:]))
        for i in rng.sample(range(len(t)), k=min(len(t), rng.randint(0, 12))):
            t[i] = rng.choice("的了是在和有年月日")
        out.append("".join(t))
    return out


def _texts() -> list[str]:
    texts = _hard_cases(5)
    if DATA.is_dir():
        texts += _read("zh-xwlb.jsonl.gz", 2000) + _read("en-20news.jsonl.gz", 1500)
        texts += _synth("zh", "zh-xwlb.jsonl.gz", 40, 3) + _synth("en", "en-20news.jsonl.gz", 30, 4)
    random.Random(7).shuffle(texts)
    return texts


_CACHE: dict[str, Any] = {}


def _sigs(config: MatchConfig) -> Signatures:
    key = json.dumps(config.signature_settings(), sort_keys=True)
    if key not in _CACHE:
        if "texts" not in _CACHE:
            _CACHE["texts"] = _texts()
        sigs = signatures(_CACHE["texts"], config)
        sigs.day = _days(len(sigs), 8)
        _CACHE[key] = sigs
    return _CACHE[key]  # type: ignore[no-any-return]


def _days(n: int, seed: int) -> np.ndarray:
    """Records' day numbers over two months, a fifth of them undated (``NO_DAY``)."""
    rng = np.random.default_rng(seed)
    day = (19_000 + rng.integers(0, 60, n)).astype(np.int32)
    day[rng.random(n) < 0.2] = NO_DAY
    return day


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert set(got) == set(want)
    for name in want:
        g, w = got[name], want[name]
        assert g.dtype == w.dtype and g.shape == w.shape, name
        # bit for bit: floats compared as their bytes
        assert g.tobytes() == w.tobytes(), (
            name,
            np.flatnonzero((g != w).reshape(len(g), -1).any(axis=1))[:10],
        )


CONFIGS = [
    MatchConfig(),
    MatchConfig(profile="corpus", strictness=0.8, member_checks=1, max_posting=3),
    MatchConfig(
        report_templates=True,
        strictness=0.2,
        min_shared=1,
        text_window_cjk=5,
        text_window_latin=2,
        occasion_days=3,
    ),
    MatchConfig(profile_tokens=0),  # sketches and numbers only
]


@needs_data
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "corpus", "templates", "sketches"])
def test_the_batch_pass_equals_numba(config: MatchConfig) -> None:
    sigs = _sigs(config)
    n = len(sigs)
    rng = np.random.default_rng(3)
    # SimHash-like extra candidates: earlier rows
    b = np.sort(rng.integers(1, n, 3 * n))
    a = (rng.random(b.shape[0]) * b).astype(np.int64)
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, b + 1, 1)
    extra = (np.cumsum(ptr), a)
    got = EngineState(config).run(sigs, fixed=150, extra=extra)
    with _numba():
        want = EngineState(config).run(sigs, fixed=150, extra=extra)
    _same(got, want)
    assert len(set(got["kind"].tolist())) >= 4 and int(got["verified"][0]) > n
    from neardup.match import engine

    assert engine._run.signatures  # numba's kernel did run


@needs_data
def test_the_candidate_graph_equals_numba() -> None:
    """The graph's ranges read through the C index (``value_groups``, ``range_pairs``) and scanned
    by numba's ``value_pairs`` over the same int32 rows: the same edges and hot values."""
    from neardup.match.components import sketch_edges

    config = CONFIGS[0]
    sketch = _sigs(config).sketch
    for parts in (1, 4):
        got = sketch_edges(sketch, config, parts=parts)
        with _numba():
            want = sketch_edges(sketch, config, parts=parts)
        assert all(np.array_equal(x, y) for x, y in zip(got, want, strict=True)), parts
        assert got[0].size > 100


@needs_data
@pytest.mark.parametrize("config", CONFIGS[:2], ids=["default", "corpus"])
def test_components_with_a_corpus_equal_numba(config: MatchConfig) -> None:
    sigs = _sigs(config)
    n = len(sigs)
    labels = np.random.default_rng(9).integers(0, 5, n)
    labels[np.random.default_rng(10).random(n) < 0.05] = 99  # some rows in no component
    rows = np.concatenate([np.flatnonzero(labels == c) for c in range(5)]).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum([np.sum(labels == c) for c in range(5)])]).astype(np.int64)
    got = run_components(sigs, config, ptr, rows, fixed=300)
    with _numba():
        want = run_components(sigs, config, ptr, rows, fixed=300)
    _same(got, want)


def _stream(config: MatchConfig, sigs: Signatures, n: int) -> list[dict[str, np.ndarray]]:
    state = EngineState(config)
    outs = []
    half = n // 2
    state.run(sigs.take(slice(0, 50)), fixed=50)  # a corpus first
    for i in range(50, half):
        one = sigs.take([i])
        if i % 3 == 0:
            outs.append(state.run(one, add=False))  # asking first changes nothing
        outs.append(state.run(one))
    # a journal replayed: the clusters known, recorded without a check
    part = sigs.take(slice(half, half + 200))
    probe = EngineState(config).run(part)
    state.record(part, probe["rep"] + state.n, probe["kind"] == 6)
    for i in range(half + 200, n):
        outs.append(state.run(sigs.take([i])))
    outs.append(
        {"meta": state.meta.copy(), "rep": state.rep[: state.n].copy(), "nxt": state.nxt[: state.n].copy()}
    )
    outs.append(
        {
            name: a.copy()
            for name, a in zip(
                ["xk", "xr", "ck", "cr", "pv", "pc", "pf", "ph", "er", "en"], state.tables(), strict=True
            )
        }
    )
    return outs


@needs_data
def test_the_stream_equals_numba() -> None:
    config = MatchConfig()
    sigs = _sigs(config)
    n = min(len(sigs), 1400)
    got = _stream(config, sigs, n)
    with _numba():
        want = _stream(config, sigs, n)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        _same(g, w)


def test_the_stream_equals_numba_on_hard_cases() -> None:
    config = MatchConfig()
    sigs = signatures(_hard_cases(11) * 3, config)
    sigs.day = _days(len(sigs), 12)
    got = _stream(config, sigs, len(sigs))
    with _numba():
        want = _stream(config, sigs, len(sigs))
    for g, w in zip(got, want, strict=True):
        _same(g, w)


@needs_data
def test_pair_checks_equal_numba() -> None:
    """``compare``'s evidence, ``rethreshold``'s text evidence and text rule, pair by pair."""
    config = MatchConfig()
    sigs = _sigs(config)
    n = len(sigs)
    rng = np.random.default_rng(1)
    out = EngineState(config).run(sigs)
    pairs = [(i, int(p)) for i, p in enumerate(out["partner"]) if p >= 0]
    pairs += [(int(a), int(b)) for a, b in rng.integers(0, n, (300, 2))]
    ths = [
        thresholds(config),
        thresholds(MatchConfig(profile="corpus", strictness=0.9, report_templates=True)),
        thresholds(MatchConfig(report_templates=True, occasion_days=2)),
    ]
    got, want = [], []
    for use_c in (True, False):
        res = got if use_c else want
        with _numba() if not use_c else _nothing():
            for i, j in pairs:
                e = evidence(sigs, i, sigs, j, config)
                ev = kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4)
                day_a, day_b = int(sigs.day[i]), int(sigs.day[j])
                res.append(
                    (
                        e,
                        ev.tobytes(),
                        [kernels.occasions_apart(k, day_a, day_b, th) for k in range(8) for th in ths],
                        [kernels.decide_text(k, ev, s, th) for k in (3, 4) for s in (0, 1) for th in ths],
                    )
                )
    assert got == want
    assert len({r[0].kind for r in got}) >= 4


def test_the_leads_occasions_and_reactions_equal_numba() -> None:
    """Leads naming a session or a day of their own (a meeting against the next one, a decree's
    第四十六号, a broadcast's 今天（5月26日）, a typo in a number), reactions told in a shorter
    text's own words and shared runs ending in a designation (同志, 同志的遗体): the evidence is
    numba's."""
    lead = "新华社北京5月26日电 学会第十三届理事会第三十七次主席会议26日下午在北京召开。会长王明主持会议。"
    body = (
        "会议审议通过了学会章程修正案（草案）和学会第十三届理事会关于常务理事会工作报告的决议（草案），决定提请审议。"
        * 3
    )
    texts = [
        lead + body,
        lead.replace("第三十七次主席会议26日下午", "常务理事会第十一次会议27日上午") + body,
        "本台消息：今天（5月26日）下午，学会第十三届理事会第三十七次主席会议在北京召开。" + body,
        "国家主席4月30日签署了第四十六号、第四十七号主席令。" + body,
        "国家主席4月30日签署了第法十六号、第四十七号主席令。" + body,
        "第三十七次会议" + body,
        "学会各界表示，收到回信倍受鼓舞，深感振奋。" + body[:60],
        "学会各界人士出席。" + body[:60],
        "新华社北京3月4日电 学会原会长、名誉会长王明同志，因病于3月4日在北京逝世。" + body[:40],
        "学会原会长、名誉会长王明同志的遗体，10日在北京火化。" + body[:40],
    ]
    sigs = signatures(texts, MatchConfig())
    pairs = [(i, j) for i in range(len(texts)) for j in range(len(texts)) if i != j]
    got = [kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4).tolist() for i, j in pairs]
    with _numba():
        want = [kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4).tolist() for i, j in pairs]
    assert got == want
    assert got[0][8] == 4  # the chairmen's meeting against the committee's session
    assert got[1][8] != 4  # the wire's dateline against the broadcast's 今天（5月26日）


def test_excerpts_frames_and_one_character_subjects_decide_as_numba() -> None:
    """A subject replaced alike by a longer one (法 -> 检察), a brief held in three runs beside a
    block of its own three times its length, two notices of one frame whose leads name two days,
    and a text of another day quoting the other: the evidence and the kinds are numba's."""
    frame = (
        "届时，省广播电视台综合频道、新闻频道、公共频道、国际频道将进行现场直播；省新闻网等平台将同步转播。"
        * 2
    )
    court = "省人代会听取和审议了省高级人民法院院长李明所作的工作报告。会议充分肯定省高级人民法院的工作。" * 3
    brief = (
        "文化和旅游部发布的数据显示：假期全国共计接待国内游客一亿一千五百万人次，实现国内旅游收入四百七十五亿元。"
        "各地景区严格落实限量、预约、错峰要求，假期旅游市场总体平稳有序。"
    )
    own = (
        "记者随后走访了城区几家供暖单位，热力公司负责人介绍全部锅炉已经完成检修，储煤可以满足二十天用量。" * 8
    )
    texts = [
        court,
        court.replace("法院", "检察院").replace("院长李明", "检察长王强"),
        brief,
        own[:60] + brief.replace("显示：", "显示，在常态化条件下，").replace("各地", "据测算，各地") + own,
        "省人代会将于16日上午9时开幕，省长将作政府工作报告。" + frame,
        "省人代会将于23日下午3时闭幕，省委书记将发表讲话。" + frame,
        "省人代会23日闭幕。本报此前的报道说：“" + frame + "”",
    ]
    sigs = signatures(texts, MatchConfig())
    ths = [thresholds(MatchConfig(report_templates=True)), thresholds(MatchConfig())]
    pairs = [(i, j) for i in range(len(texts)) for j in range(len(texts)) if i != j]

    def decide() -> list[Any]:
        evs = [kernels.text_evidence(sigs.profile(i), sigs.profile(j), 8, 4) for i, j in pairs]
        return [
            (ev.tolist(), [kernels.decide_text(k, ev, 0, th) for k in (3, 4) for th in ths]) for ev in evs
        ]

    got = decide()
    with _numba():
        want = decide()
    assert got == want
    kinds = {pairs[n]: got[n][1][0] for n in range(len(pairs))}
    assert kinds[0, 1] == kinds[4, 5] == TEMPLATE  # the subject, the frame
    assert kinds[2, 3] == kinds[4, 6] == PARTIAL  # the excerpt, the quotation
    assert got[pairs.index((2, 3))][0][16] == 3  # the brief in three runs of the round-up


def test_repeated_typos_and_one_character_subjects_decide_as_numba() -> None:
    """The same typo or look-alike made in two places is an edit, a subject replaced in its word
    each time is a template: 国 -> 囯 in two words that share no neighbour, two of four 发展 written
    发辗, the -> teh twice (the text still writes 发展 and "the" elsewhere) merge; 中国 -> 俄国 twice
    beside 中方 -> 俄方, and 智利 -> 印度尼西亚 wherever it stands, do not. Evidence and kinds are
    numba's."""
    zh = (
        "国家主席习近平今天在人民大会堂会见来华访问的智利总统博里奇。习近平指出，中国和智利是全面战略伙伴，"
        "两国关系发展势头良好。中方愿同智方一道，推动两国务实合作不断发展，为各国人民带来更多福祉。博里奇表示，"
        "智利高度重视对华关系，愿同中国加强经贸、科技、人文等领域交流，共同促进经济发展。双方还就国际和地区问题"
        "交换了意见，一致认为应当坚持多边主义，推动世界经济复苏和可持续发展。会见后，两国元首共同见证了多项合作"
        "文件的签署。"
    )
    en = (
        "The minister said on Monday that the government would publish the report before the end of the "
        "year. He told reporters in the capital that the country would not change its position on the "
        "trade talks, and that the talks with the European Union were going well. The country has been "
        "in negotiations with the union since 2019, and officials expect the agreement to be signed next "
        "spring after the elections."
    )

    def nth(text: str, old: str, new: str, which: set[int]) -> str:
        parts = text.split(old)
        return parts[0] + "".join((new if k in which else old) + p for k, p in enumerate(parts[1:]))

    texts = [
        zh,
        zh.replace("各国", "各囯").replace("国际", "囯际"),
        nth(zh, "发展", "发辗", {0, 2}),
        zh.replace("中国", "俄国").replace("中方", "俄方"),
        zh.replace("智利", "印度尼西亚").replace("博里奇", "佐科").replace("智方", "印尼方"),
        en,
        nth(en, "the", "teh", {1, 4}),
    ]
    sigs = signatures(texts, MatchConfig())
    th = thresholds(MatchConfig(report_templates=True))
    pairs = [(0, j) for j in range(1, 5)] + [(j, 0) for j in range(1, 5)] + [(5, 6), (6, 5)]

    kinds = _kinds_as_numba(sigs, pairs, th)
    for a, b in ((0, 1), (0, 2), (5, 6)):  # the typos, both ways
        assert kinds[a, b] == kinds[b, a] == NEAR, (a, b)
    for a, b in ((0, 3), (0, 4)):  # the subjects, both ways
        assert kinds[a, b] == kinds[b, a] == TEMPLATE, (a, b)
    # look-alikes and misspellings struck at random, the same wrong form wherever it struck
    rng = random.Random(3)
    table = {
        "国": "囯",
        "发": "法",
        "展": "辗",
        "济": "挤",
        "会": "汇",
        "两": "俩",
        "the": "teh",
        "that": "taht",
    }
    struck = [zh, en]
    for n in range(60):
        base = zh if n % 2 == 0 else en
        rate = rng.choice((0.2, 0.5, 0.9))
        parts = base.split(" ") if base is en else list(base)
        struck.append(
            (" " if base is en else "").join(
                table[x] if x in table and rng.random() < rate else x for x in parts
            )
        )
    sigs = signatures(struck, MatchConfig())
    pairs = [(n % 2, n) for n in range(2, len(struck))] + [(n, n % 2) for n in range(2, len(struck))]
    _kinds_as_numba(sigs, pairs, th)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def test_text_evidence_with_repeated_windows_equals_numba() -> None:
    """Profiles with many equal windows: which copy a substitution faces follows numba's sort."""
    rng = np.random.default_rng(2)
    got, want = [], []
    cases = []
    for _ in range(300):
        vocab = rng.integers(1, 6, rng.integers(1, 5)).astype(np.uint32)
        flags = rng.choice(
            np.array([0x80000000, 0, 0x40000000, 0x20000000, 0x10000000], np.uint32), vocab.shape[0]
        )
        vocab = vocab | flags
        a = rng.choice(vocab, rng.integers(0, 120))
        b = a.copy() if rng.random() < 0.7 else rng.choice(vocab, rng.integers(0, 120))
        if b.size:
            b[rng.integers(0, b.size, rng.integers(0, 6))] = rng.choice(vocab)
        cases.append(
            (a.astype(np.uint32), b.astype(np.uint32), int(rng.integers(1, 9)), int(rng.integers(1, 5)))
        )
    for a, b, wc, wl in cases:
        got.append(kernels.text_evidence(a, b, wc, wl).tolist())
    with _numba():
        for a, b, wc, wl in cases:
            want.append(kernels.text_evidence(a, b, wc, wl).tolist())
    assert got == want


def test_bad_buffers_raise() -> None:
    config = MatchConfig()
    sigs = signatures(_hard_cases(1)[:20], config)
    state = EngineState(config)
    state.run(sigs)
    cols = sigs.columns()
    m = len(sigs)
    res = _results(_outputs(m))
    good: dict[str, Any] = {
        "j0": 0,
        "j1": m,
        "fixed": 0,
        "add": False,
        "rep": state.rep,
        "nxt": state.nxt,
        "checked": state.checked,
        "sup": state.sup,
        "sig": cols,
        "day": np.full(m, NO_DAY, np.int32),
        "tab": state.tables(),
        "meta": state.meta,
        "extra_ptr": np.zeros(m + 1, np.int64),
        "extra": np.empty(0, np.int64),
        "k": config.sketch_size,
        "posted": config.posted,
        "min_shared": config.min_shared,
        "max_posting": config.max_posting,
        "layout_distance": config.layout_distance,
        "th": state.th,
        "max_conflicts": config.max_number_conflicts,
        "agree_min": config.agree_min,
        "member_checks": config.member_checks,
        "res": res,
    }
    names = list(good)  # in the kernel's order
    assert _match_c.run(*(good[k] for k in names)) >= 0

    def bad(error: type[Exception], **changed: Any) -> None:
        with pytest.raises(error):
            _match_c.run(*({**good, **changed}[k] for k in names))

    bad(TypeError, rep=state.rep.astype(np.int32))  # the wrong dtype
    bad(TypeError, rep=state.rep[::2])  # not contiguous
    bad(TypeError, sig=cols[:-1])  # a column missing
    bad(TypeError, sig=(*cols[:5], cols[5].astype(np.uint64), *cols[6:]))  # sketch of the wrong dtype
    bad(TypeError, tab=tuple(t.copy() for t in state.tables()[:9]))
    ro = state.meta.copy()
    ro.setflags(write=False)
    bad(TypeError, meta=ro)  # a read-only output
    bad(TypeError, day=np.zeros(m, np.int64))  # days of the wrong dtype
    bad(ValueError, day=np.zeros(3, np.int32))  # days too few
    bad(ValueError, extra_ptr=np.zeros(3, np.int64))  # extra pointers too short
    bad(ValueError, extra=np.array([m + 5], np.int64))  # extra pointers beyond the extra rows
    bad(
        ValueError, extra_ptr=np.array([0] + [1] * m, np.int64), extra=np.array([m + 5], np.int64)
    )  # a row out of range
    bad(ValueError, j1=m + 1)  # rows beyond the signatures
    far = list(cols)
    far[9] = cols[9] + 10**6  # profile pointers beyond the profiles
    bad(ValueError, sig=tuple(far))
    bad(ValueError, k=config.sketch_size + 1)  # k beyond the sketch
    bad(ValueError, th=state.th[:5])  # too few thresholds
    bad(TypeError, res=res[:7])
    bad(ValueError, res=(res[0][:1], *res[1:]))  # results too short
    with pytest.raises(TypeError):
        _match_c.text_evidence(np.zeros(3, np.int64), np.zeros(3, np.uint32), 8, 4, np.zeros(20, np.int64))
    with pytest.raises(ValueError):
        _match_c.text_evidence(np.zeros(3, np.uint32), np.zeros(3, np.uint32), 8, 4, np.zeros(5, np.int64))
    with pytest.raises(ValueError):
        _match_c.decide_text(3, np.zeros(20, np.int64), False, np.zeros(3))
    with pytest.raises(ValueError):
        _match_c.occasions_apart(3, 1, 100, np.zeros(3))
    with pytest.raises(TypeError):  # the signature columns are checked before the C kernel
        kernels.run_components(
            np.zeros(2, np.int64), np.zeros(1, np.int64), 0, *list(good.values())[4:8], cols[:3]
        )


def test_a_fresh_dedup_imports_no_numba(tmp_path: Path) -> None:
    """With the extensions built, a small ``neardup dedup`` neither compiles nor imports numba: the
    subprocess names the module whose import (or kernel) first brought numba in."""
    texts = _hard_cases(3)
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)), "utf-8"
    )
    code = (
        "import sys, traceback\n"
        "first = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numba' and not first:\n"
        "            first.extend(f.filename for f in traceback.extract_stack() if '/neardup/' in f.filename)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from neardup.cli.main import main\n"
        f"sys.argv = ['neardup', 'dedup', {str(src)!r}, '-o', {str(tmp_path / 'out.jsonl')!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('numba' in sys.modules, ' '.join(first))\n"
    )
    env = {**os.environ, "NEARDUP_JIT": "always"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    imported, _, stack = out.stdout.strip().splitlines()[-1].partition(" ")
    assert imported == "False", stack


def test_the_compile_notice_follows_a_late_numba_import(tmp_path: Path) -> None:
    """A CLI run listens for numba's first compile before numba is imported (it may never be): a
    numba kernel that runs later still announces it."""
    code = (
        "import sys\n"
        "from neardup._jit import on_first_compile\n"
        "hits = []\n"
        "stop = on_first_compile(lambda: hits.append(1))\n"
        "assert 'numba' not in sys.modules\n"
        "import numpy as np\n"
        "from neardup.match import kernels\n"
        "kernels._c = None\n"
        "from neardup.match.config import MatchConfig\n"
        "from neardup.match.verify import thresholds\n"
        "kernels.occasions_apart(1, 0, 400, thresholds(MatchConfig()))\n"
        "stop()\n"
        "print(len(hits), 'numba' in sys.modules)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["1", "True"]


def test_the_engine_runs_without_importing_numba() -> None:
    """With the extension built, the batch pass, the stream, a journal replay, ``compare``'s pair
    check and ``rethreshold``'s text rule neither compile nor import numba."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from neardup.match import candidates, cluster, engine, kernels, tables, text, verify\n"
        "from neardup.match.config import MatchConfig\n"
        "from neardup.match.signature import signatures\n"
        "texts = ['长江是中华民族的母亲河，流经十一个省区市。' * 4, '长江是中华民族的母亲河，流经十一个省份。' * 4,\n"
        "         'The cat sat on the mat, and then it slept.' * 5, 'The cat sat on a mat, then it slept.' * 5]\n"
        "cfg = MatchConfig()\n"
        "sigs = signatures(texts, cfg)\n"
        "out = engine.EngineState(cfg).run(sigs)\n"
        "state = engine.EngineState(cfg)\n"
        "for i in range(len(texts)):\n"
        "    state.run(sigs.take([i]), add=False)\n"
        "    state.run(sigs.take([i]))\n"
        "state.record(sigs, out['rep'] + state.n)\n"
        "e = verify.evidence(sigs, 0, sigs, 1, cfg)\n"
        "ev = kernels.text_evidence(sigs.profile(0), sigs.profile(1), 8, 4)\n"
        "kernels.decide_text(3, ev, False, verify.thresholds(cfg))\n"
        "print(kernels.BACKEND, e.kind, 'numba' in sys.modules)\n"
    )
    env = {**os.environ, "NEARDUP_JIT": "always"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    backend, kind, imported = out.stdout.split()
    assert (backend, imported) == ("c", "False"), kind


@pytest.mark.parametrize("hot_posting,link_posters", [(10_000, 8), (3, 2), (1, 1)])
def test_value_pairs_in_c_is_numbas(hot_posting: int, link_posters: int) -> None:
    """The candidate graph's pairs and hot values, C against numba, on random sorted rows."""
    from neardup.match import kernels
    from neardup.match.components import value_pairs as numba_value_pairs

    if kernels.BACKEND != "c":
        pytest.skip("the C extension was not built")
    rng = np.random.default_rng(7)
    for n in (0, 1, 60, 20_000):
        v = rng.integers(0, max(1, n // 5) + 1, n).astype(np.uint32)
        d = rng.integers(0, 100_000, n).astype(np.int64)
        order = np.lexsort((d, v))
        v, d = v[order], d[order]
        posted = rng.random(n) < 0.5
        got = kernels.value_pairs(v, d, posted, hot_posting, link_posters)
        want = numba_value_pairs(v, d, posted, hot_posting, link_posters)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    with pytest.raises(ValueError, match="differ in length"):
        kernels.value_pairs(v, d[:-1], posted, hot_posting, link_posters)
