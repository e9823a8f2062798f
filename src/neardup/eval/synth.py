"""Labelled near-duplicates made from real articles, with the edits reposting sites really make.

Chinese news sites "repost" (copy) articles nearly whole: the title is changed, an editor line and a
source line are added, the site's header, footer, share buttons and ads wrap the text, a few
characters change, a sentence is dropped or added, paragraphs move, the end is cut off, or a few
paragraphs are pasted into another article (seed 002). :func:`synthesize` applies those edits to
articles of a real corpus and writes the ground truth beside the set: every document's group and how
it was made (``kind``: original, exact, reformatted, near, partial, hard_negative; ``edits``: the list of
edits). Hard negatives are real, different articles that look alike: in zh-xwlb the same yearly
meeting or the same templated story in another year or on the next day (same title once digits are
removed, text overlap below ``hn_max_overlap``).

Two profiles. ``realistic`` (the default) combines several strong edits per copy, so near copies sit
where real reposts do (character 5-gram Jaccard about .35-.75 with the source), wraps 40 % of
reformatted and near copies in portal, mobile, blog and repost pages whose boilerplate lists other
articles' titles, and writes each copy's ``jaccard5`` into the truth. ``classic`` keeps the light
edits of the first sets (about one changed character in 300), byte for byte.

Deterministic: the same input, config and seed give the same set, byte for byte.

>>> recs = [{"id": f"d{i}", "title": f"t{i}", "text": "。".join(f"第{i}篇第{j}句话写了一些内容" for j in range(30))}
...         for i in range(20)]
>>> docs, truth = synthesize(recs, SynthConfig(lang="zh", n_sources=5, min_chars=50, seed=1))
>>> {t["kind"] for t in truth} <= {"exact", "hard_negative", "near", "original", "partial", "reformatted"}
True
"""

from __future__ import annotations

import datetime as _dt
import random
import re
import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from neardup.exceptions import ConfigError
from neardup.text.sentences import split_sentences


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["SynthConfig", "natural_truth", "ngram_jaccard", "synthesize"]

Lang = Literal["zh", "en"]
Profile = Literal["realistic", "classic"]


@dataclass(frozen=True)
class SynthConfig:
    """How many articles become sources, and how often each kind of copy is made.

    ``kind_weights`` are the relative odds of exact, reformatted, near and partial copies; each source
    that gets copies gets 1..``max_copies`` of them. ``hard_negatives`` defaults to n_sources // 5.

    ``profile="realistic"`` (the default) edits copies as much as real reposts do (5-gram Jaccard with
    the source mostly .35-.75) and writes each copy's ``jaccard5`` into the truth; ``"classic"`` makes
    the light edits of the first sets (about ten changed characters), the same bytes for the same seed.
    """

    lang: Lang = "zh"
    seed: int = 0
    n_sources: int = 1000
    copy_rate: float = 0.7  # share of sources that get copies (the rest stay alone, as distractors)
    max_copies: int = 3
    kind_weights: tuple[float, float, float, float] = (0.15, 0.3, 0.4, 0.15)
    hard_negatives: int | None = None
    hn_max_overlap: float = 0.5  # a hard negative shares less than this Jaccard of 5-grams with its pair
    min_chars: int | None = None  # sources shorter than this are not used; None: 300 zh, 1200 en
    # share of reformatted/near copies given as a site's HTML page (`html` field); None: 0.2 classic,
    # 0.4 realistic
    html_rate: float | None = None
    title_field: str = "title"
    date_field: str = "date"
    profile: Profile = "realistic"
    kinds: tuple[str, ...] = field(default=("exact", "reformatted", "near", "partial"), repr=False)

    def __post_init__(self) -> None:
        if self.lang not in ("zh", "en"):
            raise ConfigError(f"lang must be 'zh' or 'en', got {self.lang!r}")
        if self.n_sources < 1:
            raise ConfigError(f"n_sources must be >= 1, got {self.n_sources}")
        if not 0 <= self.copy_rate <= 1:
            raise ConfigError(f"copy_rate must be between 0 and 1, got {self.copy_rate}")
        if self.max_copies < 1:
            raise ConfigError(f"max_copies must be >= 1, got {self.max_copies}")
        if len(self.kind_weights) != 4 or min(self.kind_weights) < 0 or sum(self.kind_weights) <= 0:
            raise ConfigError(
                f"kind_weights must be 4 non-negative odds (exact, reformatted, near, partial), "
                f"got {self.kind_weights}"
            )
        if not 0 < self.hn_max_overlap < 1:
            raise ConfigError(f"hn_max_overlap must be between 0 and 1, got {self.hn_max_overlap}")
        if self.html_rate is not None and not 0 <= self.html_rate <= 1:
            raise ConfigError(f"html_rate must be between 0 and 1, got {self.html_rate}")
        if self.profile not in ("realistic", "classic"):
            raise ConfigError(f"profile must be 'realistic' or 'classic', got {self.profile!r}")

    @property
    def min_length(self) -> int:
        if self.min_chars is not None:
            return self.min_chars
        return 300 if self.lang == "zh" else 1200

    @property
    def html_share(self) -> float:
        if self.html_rate is not None:
            return self.html_rate
        return 0.2 if self.profile == "classic" else 0.4

    @property
    def n_hard_negatives(self) -> int:
        return self.n_sources // 5 if self.hard_negatives is None else self.hard_negatives


# ---------------------------------------------------------------------------------------------
# what reposting sites add, per language

_ZH = {
    "title_prefix": ["【转载】", "【独家】", "重磅！", "最新：", "热点｜", "快讯：", ""],
    "title_suffix": [
        "_新浪新闻",
        " - 网易新闻",
        "_凤凰网资讯",
        "｜今日头条",
        "_腾讯新闻",
        "_搜狐网",
        " - 东方财富网",
    ],
    "editors": ["王晓明", "李静", "张伟", "刘洋", "陈晨", "杨帆", "赵磊", "孙悦"],
    "sources": ["央视网", "新华社", "人民网", "中国新闻网", "光明网", "环球网", "澎湃新闻"],
    "editor_line": ["责任编辑：{e}", "（责任编辑：{e}）", "编辑：{e}　审核：{e2}", "【编辑：{e}】"],
    "source_line": ["来源：{s}", "本文来源：{s}", "原标题：{t}", "文章来源：{s}　{d}", "稿源：{s}"],
    "header": [
        "首页 > 新闻中心 > 国内新闻",
        "当前位置：首页 > 时政 > 正文",
        "网站首页 | 新闻 | 财经 | 体育 | 娱乐",
        "{d} 来源：{s} 阅读量：{n}",
        "字号：大 中 小　打印本页",
    ],
    "footer": [
        "分享到：微信 微博 QQ空间",
        "【打印】【关闭窗口】【返回顶部】",
        "版权声明：本网站所刊载信息，不代表本站观点。如转载请注明出处。",
        "相关新闻：",
        "扫一扫在手机打开当前页",
        "免责声明：本文仅代表作者观点，与本站无关。",
    ],
    "ads": [
        "扫描下方二维码，关注我们的公众号，获取更多精彩资讯。",
        "点击下载新闻客户端，看更多热点新闻。",
        "【广告】限时优惠，立即抢购！",
        "更多精彩内容，请关注官方微博。",
        "推荐阅读：今日热点新闻汇总",
        "长按识别二维码，加入读者交流群。",
    ],
    "more": ["（未完）", "……点击阅读全文", "（全文完）", "阅读更多>>"],
    "lead": "央视网消息（新闻联播）：",
}
_EN = {
    "title_prefix": ["BREAKING: ", "UPDATE: ", "Exclusive: ", "Read: ", ""],
    "title_suffix": [" | News Daily", " - World Report", " | The Wire", " :: Headlines", " - Newsroom"],
    "editors": ["John Smith", "Mary Jones", "Alex Brown", "Sam Taylor", "Chris Lee"],
    "sources": ["BBC News", "Reuters", "AP", "News Agency", "Wire Services"],
    "editor_line": ["By {e}", "Edited by {e}", "Reporting by {e}; editing by {e2}", "Written by {e}"],
    "source_line": ["Source: {s}", "Originally published by {s}", "Original title: {t}", "Via {s}, {d}"],
    "header": [
        "Home > News > World",
        "You are here: Home / Business / Article",
        "Menu | News | Sport | Weather",
        "Published {d} | {n} views",
        "Text size: A A A",
    ],
    "footer": [
        "Share this article: Facebook Twitter Email",
        "Print | Close window | Back to top",
        "Copyright notice: all rights reserved. Reproduction without permission is prohibited.",
        "Related stories:",
        "Comments are closed.",
        "Disclaimer: views expressed are the author's own.",
    ],
    "ads": [
        "Advertisement",
        "Subscribe to our newsletter for the latest headlines.",
        "Sponsored: Top deals today",
        "Download our app for breaking news alerts.",
        "Continue reading below",
        "Follow us on social media.",
    ],
    "more": ["(continued)", "... Read the full story", "[...]", "Read more >>"],
    "lead": "",
}
_HTML = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
    '<div class="nav"><a href="/">{home}</a> | <a href="/news">{news}</a></div>'
    '<div class="main"><article><h1>{title}</h1>{header}<div class="content">{body}</div></article>'
    "<aside><ul>{side}</ul></aside></div>"
    '<div class="footer">{footer}</div></body></html>'
)
# full-width forms to ASCII, as some sites' templates do (。 stays: no site turns it into a full stop)
_HALF = str.maketrans(
    {"，": ",", "：": ":", "；": ";", "！": "!", "？": "?", "（": "(", "）": ")", "“": '"', "”": '"'}
)
_EN_SUBST = {
    "said": "says",
    "the": "a",
    "and": "&",
    "percent": "%",
    "company": "firm",
    "government": "govt",
    "will": "would",
    "also": "as well",
    "people": "persons",
    "year": "yr",
}


def _words(lang: Lang) -> dict[str, Any]:
    return _ZH if lang == "zh" else _EN


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n+", text) if p.strip()]


def _join(paras: Sequence[str], lang: Lang) -> str:
    return "\n".join(paras) if lang == "zh" else "\n\n".join(paras)


def _sentences_of(paras: Sequence[str]) -> list[list[str]]:
    return [split_sentences(p) or [p] for p in paras]


def _sjoin(sents: Sequence[str], lang: Lang) -> str:
    return "".join(sents) if lang == "zh" else " ".join(sents)


def ngram_jaccard(a: str, b: str, n: int = 5, *, words: bool = False) -> float:
    """Jaccard similarity of the character (or word) n-gram sets of two texts.

    >>> ngram_jaccard("abcdef", "abcdef")
    1.0
    """
    ga, gb = _grams(a, n, words), _grams(b, n, words)
    if not ga and not gb:
        return 1.0
    return len(ga & gb) / len(ga | gb)


def _grams(text: str, n: int, words: bool) -> set[str]:
    if words:
        toks = re.findall(r"\w+", text.lower())
        return {" ".join(toks[i : i + n]) for i in range(max(len(toks) - n + 1, 1 if toks else 0))}
    t = re.sub(r"\s+", "", text)
    return {t[i : i + n] for i in range(max(len(t) - n + 1, 1 if t else 0))}


# ---------------------------------------------------------------------------------------------
# edits


class _Editor:
    def __init__(self, lang: Lang, rng: random.Random, pool: Sequence[Mapping[str, Any]], cfg: SynthConfig):
        self.lang, self.rng, self.pool, self.cfg = lang, rng, pool, cfg
        self.w = _words(lang)

    def _fill(self, template: str, title: str, date: str) -> str:
        r = self.rng
        return template.format(
            e=r.choice(self.w["editors"]),
            e2=r.choice(self.w["editors"]),
            s=r.choice(self.w["sources"]),
            t=title,
            d=date or "2024-05-01",
            n=r.randint(100, 99999),
        )

    def title(self, title: str) -> str:
        r = self.rng
        return f"{r.choice(self.w['title_prefix'])}{title}{r.choice(self.w['title_suffix'])}"

    # formatting: the content stays, its dress changes
    def reformat(self, paras: list[str], edits: list[str]) -> list[str]:
        r = self.rng
        ops = r.sample(["whitespace", "punct", "rewrap", "lead"], k=r.randint(1, 3))
        for op in ops:
            if op == "whitespace":
                paras = [
                    ("　　" if self.lang == "zh" else "    ") + p + (" " * r.randint(0, 2)) for p in paras
                ]
            elif op == "punct" and self.lang == "zh":
                paras = [p.translate(_HALF) for p in paras]
            elif op == "punct":
                paras = [p.replace("'", "’").replace(" - ", " — ") for p in paras]
            elif op == "rewrap" and len(paras) > 1:
                # merge neighbours or split long paragraphs at sentence ends
                out: list[str] = []
                for sents in _sentences_of(paras):
                    if len(sents) > 3 and r.random() < 0.5:
                        cut = r.randint(1, len(sents) - 1)
                        out += [_sjoin(sents[:cut], self.lang), _sjoin(sents[cut:], self.lang)]
                    elif out and r.random() < 0.3:
                        out[-1] = out[-1] + ("" if self.lang == "zh" else " ") + _sjoin(sents, self.lang)
                    else:
                        out.append(_sjoin(sents, self.lang))
                paras = out
            elif op == "lead" and self.w["lead"] and paras and paras[0].startswith(self.w["lead"]):
                paras = [paras[0][len(self.w["lead"]) :], *paras[1:]]
            else:
                continue
            edits.append(op)
        return paras

    def dress(self, paras: list[str], title: str, date: str, edits: list[str]) -> list[str]:
        """Editor and source lines and a stray footer: what survives main-text extraction of a repost."""
        r = self.rng
        head: list[str] = []
        tail: list[str] = []
        if r.random() < 0.3:
            head.append(title)
            edits.append("title_line")
        if r.random() < 0.4:
            (head if r.random() < 0.5 else tail).append(
                self._fill(r.choice(self.w["source_line"]), title, date)
            )
            edits.append("source_line")
        if r.random() < 0.5:
            tail.append(self._fill(r.choice(self.w["editor_line"]), title, date))
            edits.append("editor_line")
        if r.random() < 0.2:
            tail.append(self._fill(r.choice(self.w["footer"]), title, date))
            edits.append("site_footer")
        return head + paras + tail

    def html(self, paras: list[str], title: str, date: str, edits: list[str]) -> str:
        """The copy as a page of a reposting site: navigation, header, share buttons, ads, footer."""
        r = self.rng
        edits.append("html_template")
        body = "".join(f"<p>{_escape(p)}</p>" for p in paras)
        nav = ("首页", "新闻") if self.lang == "zh" else ("Home", "News")
        header = "".join(
            f'<div class="meta">{_escape(self._fill(x, title, date))}</div>'
            for x in r.sample(self.w["header"], k=2)
        )
        side = "".join(f"<li>{_escape(x)}</li>" for x in r.sample(self.w["ads"], k=2))
        footer = "".join(
            f"<p>{_escape(self._fill(x, title, date))}</p>" for x in r.sample(self.w["footer"], k=3)
        )
        return _HTML.format(
            title=_escape(title), home=nav[0], news=nav[1], header=header, body=body, side=side, footer=footer
        )

    # content edits: what makes a near copy near
    def content(self, paras: list[str], edits: list[str]) -> list[str]:
        r = self.rng
        ops = r.sample(["chars", "drop", "add", "swap", "truncate", "ads"], k=r.randint(1, 2))
        for op in ops:
            sents = _sentences_of(paras)
            flat = [(i, j) for i, s in enumerate(sents) for j in range(len(s))]
            if op == "chars":
                paras = self._chars(paras)
            elif op == "drop" and len(flat) > 4:
                for i, j in r.sample(flat[1:], k=min(r.randint(1, 2), len(flat) // 5 or 1)):
                    sents[i][j] = ""
                paras = [_sjoin(s, self.lang) for s in sents]
            elif op == "add":
                other = _sentences_of(_paragraphs(str(r.choice(self.pool)["text"])))
                extra = [s for p in other for s in p][:40]
                if not extra:
                    continue
                for _ in range(1):
                    i = r.randrange(len(sents))
                    sents[i].insert(r.randint(0, len(sents[i])), r.choice(extra))
                paras = [_sjoin(s, self.lang) for s in sents]
            elif op == "swap" and len(paras) > 2:
                i = r.randrange(len(paras) - 1)
                paras[i], paras[i + 1] = paras[i + 1], paras[i]
            elif op == "truncate" and len(flat) > 6:
                keep = max(1, round(len(flat) * r.uniform(0.8, 0.95)))
                i_last, j_last = flat[keep - 1]
                paras = [_sjoin(s, self.lang) for s in sents[:i_last]] + [
                    _sjoin(sents[i_last][: j_last + 1], self.lang)
                ]
                paras.append(r.choice(self.w["more"]))
            elif op == "ads" and len(paras) > 1:
                for _ in range(1):
                    paras.insert(r.randint(1, len(paras) - 1), r.choice(self.w["ads"]))
            else:
                continue
            edits.append(
                {
                    "drop": "drop_sentences",
                    "add": "add_sentences",
                    "swap": "swap_paragraphs",
                    "chars": "change_chars",
                }.get(op, op)
            )
        return [p for p in paras if p]

    def _chars(self, paras: list[str]) -> list[str]:
        r = self.rng
        text = "\n".join(paras)
        n = max(1, min(10, len(text) // 300))
        chars = list(text)
        if self.lang == "zh":
            cjk = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
            for i in r.sample(cjk, k=min(n, len(cjk))):
                op = r.random()
                if op < 0.6:
                    chars[i] = chars[r.choice(cjk)]  # a wrong character, as a careless retyping gives
                elif op < 0.8:
                    chars[i] = ""
                else:
                    chars[i] = chars[i] + chars[r.choice(cjk)]
            return "".join(chars).split("\n")
        words = text.split(" ")
        idx = [i for i, w in enumerate(words) if len(w) > 3]
        for i in r.sample(idx, k=min(n, len(idx))):
            w = words[i]
            if w.lower() in _EN_SUBST and r.random() < 0.5:
                words[i] = _EN_SUBST[w.lower()]
            else:
                k = r.randrange(len(w) - 1)
                words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2 :]  # swapped letters: a typo
        return " ".join(words).split("\n")

    def partial(self, paras: list[str], host: Mapping[str, Any], edits: list[str]) -> list[str]:
        """A run of the source's paragraphs (30-60 % of it) pasted into another article."""
        r = self.rng
        sents = [s for p in _sentences_of(paras) for s in p]
        share = r.uniform(0.3, 0.6)
        k = max(1, round(len(sents) * share))
        start = r.randint(0, len(sents) - k)
        piece = _sjoin(sents[start : start + k], self.lang)
        hparas = _paragraphs(str(host["text"]))
        pos = r.randint(0, len(hparas))
        edits.append(f"embedded:{share:.2f}")
        return [*hparas[:pos], piece, *hparas[pos:]]


# ---------------------------------------------------------------------------------------------
# the realistic profile: edits as strong as real reposts make

# Pairs that retyping, OCR and pinyin input methods confuse; a copy's wrong characters come from
# here first, then from common characters.
_ZH_CONFUSABLE: tuple[str, ...] = (
    "己已巳",
    "在再",
    "的得地",
    "做作",
    "即既",
    "帐账",
    "象像",
    "部步",
    "以已",
    "那哪",
    "他她",
    "到倒",
    "座坐",
    "须需",
    "竟竞",
    "辨辩",
    "历厉",
    "记纪",
    "园圆",
    "带戴",
    "副付",
    "侯候",
    "练炼",
    "泄泻",
    "期其",
    "制治",
    "利力",
    "工功",
    "事是",
    "式试",
    "议意",
    "权全",
    "届界",
    "度渡",
    "型形",
    "常长",
    "现显",
    "线限",
    "建健",
    "资姿",
    "势事",
    "进近",
    "做坐",
    "决绝",
    "展战",
    "提题",
    "实时",
    "化话",
)
_ZH_LOOKALIKE: dict[str, str] = {}
for _group in _ZH_CONFUSABLE:
    for _c in _group:
        _ZH_LOOKALIKE[_c] = _ZH_LOOKALIKE.get(_c, "") + _group.replace(_c, "")
_ZH_COMMON = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种"
    "面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本"
)
_ZH_LEADS = (
    "新华社北京电 ",
    "人民网北京电 ",
    "中新网电 ",
    "本报讯 ",
    "据央视新闻报道，",
    "",
)
_ZH_BOILER = (
    "点击关注，获取更多权威资讯。",
    "本文来自新闻客户端，仅代表作者观点，不代表本平台立场。",
    "（此处已添加小程序，请到客户端查看）",
    "欢迎下载新闻客户端，第一时间获取最新消息。",
    "想了解更多精彩内容，快来关注我们吧！",
    "声明：本文转载自网络，如有侵权请联系删除。",
    "本文图片来源于网络。",
    "推荐阅读：{o}",
    "相关阅读：{o}",
    "【延伸阅读】{o}",
)
_EN_BOILER = (
    "Advertisement",
    "Story continues below advertisement.",
    "Sign up for our morning newsletter to get the day's top stories.",
    "Click here to subscribe.",
    "Read more: {o}",
    "Related: {o}",
    "Follow us on Twitter and Facebook for the latest updates.",
    "This article has been updated.",
)
_EN_DATELINES = (
    "LONDON (Reuters) - ",
    "LONDON (AP) — ",
    "NEW YORK (Reuters) - ",
    "WASHINGTON (AFP) - ",
    "PARIS (AFP) - ",
    "BRUSSELS (Reuters) - ",
    "London, {d} (PA) - ",
)
_EN_CREDITS = (
    "(Reporting by {e}; Editing by {e2})",
    "(Reporting by {e}; additional reporting by {e2}; editing by {e3})",
    "(Writing by {e}; Editing by {e2})",
    "- Additional reporting by {e}",
)
_EN_NAMES = (
    "Kate Holton",
    "William James",
    "Paul Sandle",
    "Guy Faulconbridge",
    "Alistair Smout",
    "Estelle Shirbon",
    "Mark Heinrich",
    "Andrew Heavens",
    "Michael Holden",
    "Sarah Young",
)
# British stem, US stem, endings the word may carry: the whole word is matched, so "realism" stays
_EN_SPELLING: tuple[tuple[str, str, str], ...] = (
    ("colour", "color", "|s|ed|ful|ing"),
    ("favour", "favor", "|s|ed|ite|ites|able"),
    ("honour", "honor", "|s|ed|ing"),
    ("labour", "labor", "|s|ed|er|ers"),
    ("neighbour", "neighbor", "|s|ing|hood|hoods"),
    ("behaviour", "behavior", "|s|al"),
    ("harbour", "harbor", "|s"),
    ("rumour", "rumor", "|s|ed"),
    ("centre", "center", "|s|d"),
    ("theatre", "theater", "|s"),
    ("metre", "meter", "|s"),
    ("organis", "organiz", "e|es|ed|ing|ation|ations|er|ers"),
    ("realis", "realiz", "e|es|ed|ing|ation"),
    ("recognis", "recogniz", "e|es|ed|ing"),
    ("criticis", "criticiz", "e|es|ed|ing"),
    ("apologis", "apologiz", "e|es|ed|ing"),
    ("privatis", "privatiz", "e|es|ed|ing|ation"),
    ("emphasis", "emphasiz", "e|es|ed|ing"),
    ("minimis", "minimiz", "e|es|ed|ing"),
    ("maximis", "maximiz", "e|es|ed|ing"),
    ("summaris", "summariz", "e|es|ed|ing"),
    ("authoris", "authoriz", "e|es|ed|ing|ation"),
    ("modernis", "moderniz", "e|es|ed|ing|ation"),
    ("analys", "analyz", "e|ed|ing"),
    ("popularis", "populariz", "e|es|ed|ing|ation"),
    ("computeris", "computeriz", "e|es|ed|ing|ation"),
    ("characteris", "characteriz", "e|es|ed|ing|ation"),
    ("prioritis", "prioritiz", "e|es|ed|ing|ation"),
    ("mobilis", "mobiliz", "e|es|ed|ing|ation"),
    ("capitalis", "capitaliz", "e|es|ed|ing|ation"),
    ("globalis", "globaliz", "e|es|ed|ing|ation"),
    ("industrialis", "industrializ", "e|es|ed|ing|ation"),
    ("normalis", "normaliz", "e|es|ed|ing|ation"),
    ("stabilis", "stabiliz", "e|es|ed|ing|ation"),
    ("finalis", "finaliz", "e|es|ed|ing|ation"),
    ("legalis", "legaliz", "e|es|ed|ing|ation"),
    ("subsidis", "subsidiz", "e|es|ed|ing|ation"),
    ("utilis", "utiliz", "e|es|ed|ing|ation"),
    ("symbolis", "symboliz", "e|es|ed|ing|ation"),
    ("specialis", "specializ", "e|es|ed|ing|ation"),
    ("visualis", "visualiz", "e|es|ed|ing|ation"),
    ("hospitalis", "hospitaliz", "e|es|ed|ing|ation"),
    ("centralis", "centraliz", "e|es|ed|ing|ation"),
    ("commercialis", "commercializ", "e|es|ed|ing|ation"),
    ("liberalis", "liberaliz", "e|es|ed|ing|ation"),
    ("standardis", "standardiz", "e|es|ed|ing|ation"),
    ("jeopardis", "jeopardiz", "e|es|ed|ing|ation"),
    ("categoris", "categoriz", "e|es|ed|ing|ation"),
    ("revolutionis", "revolutioniz", "e|es|ed|ing|ation"),
    ("sanitis", "sanitiz", "e|es|ed|ing|ation"),
    ("digitis", "digitiz", "e|es|ed|ing|ation"),
    ("monetis", "monetiz", "e|es|ed|ing|ation"),
    ("nationalis", "nationaliz", "e|es|ed|ing|ation"),
    ("defence", "defense", "|s"),
    ("licence", "license", "|s"),
    ("offence", "offense", "|s"),
    ("programme", "program", "|s"),
    ("travell", "travel", "ed|ing|er|ers"),
    ("cancell", "cancel", "ed|ing"),
    ("catalogue", "catalog", "|s"),
    ("jewellery", "jewelry", ""),
    ("aluminium", "aluminum", ""),
    ("cheque", "check", "|s"),
    ("tyre", "tire", "|s"),
    ("grey", "gray", ""),
    ("whilst", "while", ""),
    ("amongst", "among", ""),
)


def _spelling_re(uk_to_us: bool) -> tuple[re.Pattern[str], dict[str, str]]:
    table = {(uk if uk_to_us else us): (us if uk_to_us else uk) for uk, us, _ in _EN_SPELLING}
    alts = [f"{re.escape(uk if uk_to_us else us)}(?:{ends})" for uk, us, ends in _EN_SPELLING if ends] + [
        re.escape(uk if uk_to_us else us) for uk, us, ends in _EN_SPELLING if not ends
    ]
    return re.compile(r"\b(" + "|".join(alts) + r")\b", re.IGNORECASE), table


_TO_US = _spelling_re(True)
_TO_UK = _spelling_re(False)


def _respell(text: str, uk_to_us: bool) -> tuple[str, int]:
    pattern, table = _TO_US if uk_to_us else _TO_UK

    def sub(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        for stem in sorted(table, key=len, reverse=True):
            if low.startswith(stem):
                out = table[stem] + low[len(stem) :]
                return out.capitalize() if word[0].isupper() else out
        return word

    return pattern.subn(sub, text)


_FULLWIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})
_SITES_ZH = ("xinwen", "news163", "ifeng", "sohu", "qq", "toutiao", "eastday", "china")
_SITES_EN = ("newsdaily", "worldreport", "thewire", "headlines", "dailypost", "metro")
_ICP_PROVINCES = "京沪粤浙苏鲁川鄂闽湘"
_TEMPLATE_ODDS = (("portal", 3), ("mobile", 3), ("repost", 2), ("blog", 1), ("minimal", 1))


def _is_cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff"


class _Reposter(_Editor):
    """Realistic copies: several strong edits at once, as a repost that went through a few sites."""

    def title_of(self, rec: Mapping[str, Any]) -> str:
        return str(rec.get(self.cfg.title_field) or "")

    def _other_titles(self, k: int, exclude: str) -> list[str]:
        titles = [
            t for t in (self.title_of(x) for x in self.rng.sample(self.pool, min(k + 2, len(self.pool)))) if t
        ]
        return [t for t in titles if t != exclude][:k]

    def _boiler(self, exclude: str) -> str:
        line: str = self.rng.choice(_ZH_BOILER if self.lang == "zh" else _EN_BOILER)
        if "{o}" in line:
            others = self._other_titles(1, exclude)
            line = line.format(
                o=others[0] if others else ("今日热点" if self.lang == "zh" else "Top stories")
            )
        return line

    def new_title(self, title: str, edits: list[str]) -> str:
        r = self.rng
        if r.random() < 0.2:
            return title
        if self.lang == "zh" and r.random() < 0.3:
            title = re.sub(r"^【[^】]*】", "", title)
        edits.append("title")
        return self.title(title)

    # content edits
    def near(self, paras: list[str], title: str, edits: list[str]) -> list[str]:
        r = self.rng
        n_before = len(edits)
        ops = set(r.sample(["drop", "add", "truncate", "swap"], k=r.randint(1, 3)))
        if r.random() < 0.85:
            ops.add("chars")
        if "drop" in ops:
            paras = self._drop(paras, edits)
        if "swap" in ops and len(paras) > 2:
            i = r.randrange(len(paras) - 1)
            paras[i], paras[i + 1] = paras[i + 1], paras[i]
            edits.append("swap_paragraphs")
        if "truncate" in ops:
            paras = self._truncate(paras, edits)
        if "add" in ops:
            paras = self._add(paras, title, edits)
        # two content edits or more: one alone is lighter than real reposts (a short article may
        # have refused a drop or a swap above)
        if "chars" in ops or len(edits) - n_before < 2:
            # zh: 2-6 % of characters; en: 2-5 % of words (a word typo breaks more 5-grams)
            rate = r.uniform(0.02, 0.06) if self.lang == "zh" else r.uniform(0.02, 0.05)
            paras = self.change_chars(paras, rate, edits)
        if len(edits) - n_before < 2 and "add" not in ops:  # a boilerplate line always fits
            paras = self._add(paras, title, edits)
        return [p for p in paras if p]

    def _drop(self, paras: list[str], edits: list[str]) -> list[str]:
        sents = _sentences_of(paras)
        flat = [(i, j) for i, s in enumerate(sents) for j in range(len(s))]
        if len(flat) < 4:
            return paras
        # two of six sentences would be a third of a short article: one at most there
        n = self.rng.randint(1, 2) if len(flat) >= 8 else 1
        for i, j in self.rng.sample(flat[1:], k=n):
            sents[i][j] = ""
        edits.append(f"drop_sentences:{n}")
        return [_sjoin(s, self.lang) for s in sents]

    def _add(self, paras: list[str], title: str, edits: list[str]) -> list[str]:
        """1-2 ad or boilerplate sentences, inside a paragraph or as a paragraph of their own."""
        r = self.rng
        n = r.randint(1, 2)
        for _ in range(n):
            line = self._boiler(title)
            pos = r.randint(1, len(paras)) if len(paras) > 1 else len(paras)
            if r.random() < 0.5 and 0 < pos <= len(paras):
                joiner = "" if self.lang == "zh" else " "
                paras[pos - 1] = paras[pos - 1] + joiner + line
            else:
                paras.insert(pos, line)
        edits.append(f"add_boilerplate:{n}")
        return paras

    def _truncate(self, paras: list[str], edits: list[str]) -> list[str]:
        """The end cut off, 60-95 % of the characters kept, often with a 'read more' after it.

        The cut falls on the sentence end nearest the drawn share when one lies in 60-95 %, else
        inside a sentence, as sites that cut at a character count do.
        """
        r = self.rng
        sents = _sentences_of(paras)
        flat = [(i, j, len(s)) for i, ss in enumerate(sents) for j, s in enumerate(ss)]
        total = sum(n for _, _, n in flat)
        if total < 20:
            return paras
        share = r.uniform(0.6, 0.95)
        ends: list[tuple[float, int]] = []
        kept = 0
        for k, (_, _, n) in enumerate(flat[:-1]):
            kept += n
            if 0.6 <= kept / total <= 0.95:
                ends.append((abs(kept / total - share), k))
        if ends:
            k = min(ends)[1]
            i_last, j_last, _ = flat[k]
            out = [_sjoin(s, self.lang) for s in sents[:i_last]]
            out.append(_sjoin(sents[i_last][: j_last + 1], self.lang))
            kept = sum(n for _, _, n in flat[: k + 1])
        else:
            joined = [_sjoin(s, self.lang) for s in sents]
            kept, out = round(total * share), []
            left = kept
            for p in joined:
                out.append(p[:left])
                left -= len(out[-1])
                if left <= 0:
                    break
        if r.random() < 0.6:
            out.append(r.choice(self.w["more"]))
        edits.append(f"truncate:{kept / total:.2f}")
        return [p for p in out if p]

    def change_chars(self, paras: list[str], rate: float, edits: list[str]) -> list[str]:
        """``rate`` of the characters (zh) or words (en) wrong: look-alikes and typos."""
        r = self.rng
        text = "\n".join(paras)
        if self.lang == "en":
            return self._typos(text, rate, edits)
        chars = list(text)
        cjk = [i for i, c in enumerate(chars) if _is_cjk(c)]
        n = min(len(cjk), max(1, round(len(cjk) * rate)))
        confusable = [i for i in cjk if chars[i] in _ZH_LOOKALIKE]
        picks = r.sample(confusable, k=min(len(confusable), r.randint(n // 3, n)))
        taken = set(picks)
        others = r.sample([i for i in cjk if i not in taken], k=min(n - len(picks), len(cjk) - len(taken)))
        for i in picks:
            chars[i] = r.choice(_ZH_LOOKALIKE[chars[i]])
        for i in others:
            op = r.random()
            if op < 0.8:
                chars[i] = r.choice(_ZH_COMMON.replace(chars[i], ""))
            elif op < 0.9:
                chars[i] = ""
            else:
                chars[i] = chars[i] + r.choice(_ZH_COMMON)
        edits.append(f"change_chars:{rate:.3f}")
        return "".join(chars).split("\n")

    def _typos(self, text: str, rate: float, edits: list[str]) -> list[str]:
        r = self.rng
        words = text.split(" ")
        idx = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]
        n = min(len(idx), max(1, round(len(words) * rate)))
        for i in r.sample(idx, k=n):
            w = words[i]
            k = r.randrange(1, len(w) - 1)
            op = r.random()
            if op < 0.4:
                words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2 :]  # swapped letters
            elif op < 0.7:
                words[i] = w[:k] + w[k + 1 :]  # a dropped letter
            elif op < 0.85:
                words[i] = w[:k] + w[k] + w[k:]  # a doubled letter
            else:
                words[i] = w[:k] + r.choice("aeioustrnl") + w[k + 1 :]  # a wrong key
        edits.append(f"typos:{rate:.3f}")
        return " ".join(words).split("\n")

    # formatting: the same words, another dress
    def restyle(self, paras: list[str], edits: list[str]) -> tuple[list[str], str]:
        """Plain-text reformatting; returns the paragraphs and the separator they are joined with."""
        r = self.rng
        sep = "\n" if self.lang == "zh" else "\n\n"
        ops = r.sample(["indent", "width", "rewrap", "blank_lines", "lead", "spelling"], k=r.randint(1, 3))
        for op in ops:
            if op == "indent":
                pad = "　　" if self.lang == "zh" and r.random() < 0.7 else " " * r.choice((2, 4))
                paras = [pad + p for p in paras]
            elif op == "width" and self.lang == "zh":
                if r.random() < 0.5:
                    paras = [p.translate(_HALF) for p in paras]
                    op = "halfwidth"
                else:
                    paras = [p.translate(_FULLWIDTH) for p in paras]
                    op = "fullwidth"
            elif op == "width":
                paras = [p.replace("'", "’").replace(" - ", " — ").replace('"', "“") for p in paras]
                op = "curly_quotes"
            elif op == "rewrap":
                out: list[str] = []
                for sents in _sentences_of(paras):
                    if len(sents) > 2 and r.random() < 0.5:
                        cut = r.randint(1, len(sents) - 1)
                        out += [_sjoin(sents[:cut], self.lang), _sjoin(sents[cut:], self.lang)]
                    elif out and r.random() < 0.4:
                        out[-1] = out[-1] + ("" if self.lang == "zh" else " ") + _sjoin(sents, self.lang)
                    else:
                        out.append(_sjoin(sents, self.lang))
                paras = out
            elif op == "blank_lines":
                sep = "\n\n" if self.lang == "zh" else "\n"
            elif op == "lead" and self.lang == "zh" and paras and paras[0].startswith(self.w["lead"]):
                paras = [r.choice(_ZH_LEADS) + paras[0][len(self.w["lead"]) :], *paras[1:]]
            elif op == "lead" and self.lang == "en" and paras:
                dateline = r.choice(_EN_DATELINES).format(d=r.choice(("Jan 5", "March 12", "Oct 30")))
                paras = [dateline + paras[0], *paras[1:]]
                op = "dateline"
            elif op == "spelling" and self.lang == "en":
                uk_to_us = r.random() < 0.8
                changed = [_respell(p, uk_to_us) for p in paras]
                if not sum(n for _, n in changed):
                    continue
                paras = [p for p, _ in changed]
                op = "spelling_us" if uk_to_us else "spelling_uk"
            else:
                continue
            edits.append(op)
        return paras, sep

    def dress_lines(
        self, paras: list[str], title: str, orig_title: str, date: str, edits: list[str]
    ) -> list[str]:
        """Title, source, editor and wire-credit lines that survive main-text extraction."""
        r = self.rng
        head: list[str] = []
        tail: list[str] = []
        if r.random() < 0.35:
            head.append(title)
            edits.append("title_line")
        if r.random() < 0.5:
            line = self._fill(r.choice(self.w["source_line"]), orig_title, date)
            (head if r.random() < 0.5 else tail).append(line)
            edits.append("source_line")
        if self.lang == "en" and r.random() < 0.4:
            names = r.sample(_EN_NAMES, 3)
            tail.append(r.choice(_EN_CREDITS).format(e=names[0], e2=names[1], e3=names[2]))
            edits.append("wire_credit")
        if r.random() < 0.6:
            tail.append(self._fill(r.choice(self.w["editor_line"]), orig_title, date))
            edits.append("editor_line")
        if r.random() < 0.25:
            tail.append(self._fill(r.choice(self.w["footer"]), orig_title, date))
            edits.append("site_footer")
        return head + paras + tail

    def page(self, paras: list[str], title: str, edits: list[str]) -> str:
        """A page of a portal, mobile site, blog or repost farm; its boilerplate lists other articles."""
        from neardup.contentseen.synth import render_page

        r = self.rng
        template = r.choices([t for t, _ in _TEMPLATE_ODDS], weights=[w for _, w in _TEMPLATE_ODDS])[0]
        zh = self.lang == "zh"
        site = r.choice(_SITES_ZH if zh else _SITES_EN)
        related = self._other_titles(r.randint(8, 16), title)
        html = render_page(
            title, paras, template=template, related=related, seed=r.randrange(2**31), site=site
        )
        if zh and "ICP备" in html:  # the mobile template has its own licence line
            legal = ""
        elif zh:
            legal = (
                f'<div class="icp"><a href="https://beian.miit.gov.cn/">'
                f"{r.choice(_ICP_PROVINCES)}ICP备{r.randrange(10**7, 10**8)}号-{r.randint(1, 9)}</a> "
                f"{r.choice(_ICP_PROVINCES)}公网安备 {r.randrange(10**13, 10**14)}号 "
                f"违法和不良信息举报电话：010-{r.randrange(10**7, 10**8)} "
                f"互联网新闻信息服务许可证：{r.randrange(10**10, 10**11)}</div>"
            )
        else:
            legal = (
                f'<div class="legal">{site.title()} Media Ltd, registered in England and Wales No. '
                f"{r.randrange(10**6, 10**7)}. Registered office: {r.randint(1, 200)} High Street, London. "
                f"We use cookies to improve your experience. Manage cookie settings.</div>"
            )
        edits.append(f"html:{template}")
        return html.replace("</body>", legal + "</body>", 1)

    def embed(self, paras: list[str], host: Mapping[str, Any], edits: list[str]) -> list[str]:
        """A contiguous run of a third to two thirds of the source's characters inside another article."""
        r = self.rng
        sents = [s for p in _sentences_of(paras) for s in p]
        lens = [len(s) for s in sents]
        total = sum(lens) or 1
        target = r.uniform(1 / 3, 2 / 3)
        best: list[tuple[float, int, int]] = []
        for a in range(len(sents)):
            acc = 0
            for b in range(a, len(sents)):
                acc += lens[b]
                share = acc / total
                if 1 / 3 <= share <= 2 / 3:
                    best.append((abs(share - target), a, b))
                elif share > 2 / 3:
                    break
        if best:
            gap = min(g for g, _, _ in best)
            _, a, b = r.choice([x for x in best if x[0] == gap])
        else:  # no sentence run fits: cut the text itself
            flat = _sjoin(sents, self.lang)
            k = round(len(flat) * target)
            start = r.randint(0, len(flat) - k)
            sents, a, b = [flat[start : start + k]], 0, 0
        piece = [_sjoin(sents[a : b + 1], self.lang)]
        share = len(piece[0]) / total
        edits.append(f"embedded:{share:.2f}")
        if r.random() < 0.3:
            piece = self.change_chars(piece, r.uniform(0.005, 0.015), edits)
        hparas = _paragraphs(str(host["text"]))
        pos = r.randint(0, len(hparas))
        return [*hparas[:pos], *piece, *hparas[pos:]]


# ---------------------------------------------------------------------------------------------
# hard negatives


def _norm_title(title: str) -> str:
    t = re.sub(r"【[^】]*】|\[[^]]*\]", "", title)
    t = re.sub(r"\d+|[一二三四五六七八九十]+(?=[届次年月日])", "", t)
    return re.sub(r"[\W_]+", "", t).lower()


def _year(rec: Mapping[str, Any], date_field: str) -> str:
    return str(rec.get(date_field) or "")[:4]


def _hard_negative_pairs(
    recs: Sequence[Mapping[str, Any]], cfg: SynthConfig, rng: random.Random
) -> list[tuple[int, int, float]]:
    """Pairs of different articles that look alike, hardest (highest text overlap) first."""
    words = cfg.lang == "en"
    n = 5
    cands: set[tuple[int, int]] = set()
    by_title: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(recs):
        t = _norm_title(str(r.get(cfg.title_field) or ""))
        if len(t) >= 4:
            by_title[t].append(i)
    for members in by_title.values():
        if len(members) < 2 or len(members) > 400:
            continue
        sample = members if len(members) <= 30 else rng.sample(members, 30)
        for a_pos, a in enumerate(sample):
            for b in sample[a_pos + 1 :]:
                if _year(recs[a], cfg.date_field) != _year(recs[b], cfg.date_field) or not _year(
                    recs[a], cfg.date_field
                ):
                    cands.add((min(a, b), max(a, b)))
    if cfg.profile == "realistic":
        cands |= _adjacent_days(recs, by_title, cfg.date_field)
    cands |= _similar_bodies(recs, rng, words)
    scored: list[tuple[int, int, float]] = []
    grams = {}
    for a, b in cands:
        for i in (a, b):
            if i not in grams:
                grams[i] = _grams(str(recs[i]["text"]), n, words)
        ga, gb = grams[a], grams[b]
        j = len(ga & gb) / max(1, len(ga | gb))
        if j < cfg.hn_max_overlap:
            scored.append((a, b, j))
    scored.sort(key=lambda x: (-x[2], x[0], x[1]))
    return scored


def _day(rec: Mapping[str, Any], date_field: str) -> _dt.date | None:
    digits = re.sub(r"\D", "", str(rec.get(date_field) or ""))[:8]
    if len(digits) != 8:
        return None
    try:
        return _dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))
    except ValueError:
        return None


def _adjacent_days(
    recs: Sequence[Mapping[str, Any]], by_title: Mapping[str, list[int]], date_field: str
) -> set[tuple[int, int]]:
    """The same templated story (same title without its numbers) on consecutive days."""
    out: set[tuple[int, int]] = set()
    one = _dt.timedelta(days=1)
    for members in by_title.values():
        by_day: dict[_dt.date, list[int]] = defaultdict(list)
        for i in members:
            day = _day(recs[i], date_field)
            if day is not None:
                by_day[day].append(i)
        for day, here in by_day.items():
            for a in here:
                for b in by_day.get(day + one, ()):
                    out.add((min(a, b), max(a, b)))
    return out


def _similar_bodies(
    recs: Sequence[Mapping[str, Any]], rng: random.Random, words: bool, limit: int = 3000
) -> set[tuple[int, int]]:
    """Top pairs by bag-of-words (or character bigram) cosine within a sample of the corpus."""
    from scipy import sparse

    idx = list(range(len(recs)))
    if len(idx) > limit:
        idx = sorted(rng.sample(idx, limit))
    rows, cols = [], []
    vocab: dict[str, int] = {}
    for row, i in enumerate(idx):
        text = str(recs[i]["text"])
        toks = (
            set(re.findall(r"[a-z]{4,}", text.lower()))
            if words
            else {text[k : k + 2] for k in range(len(text) - 1)}
        )
        for t in toks:
            rows.append(row)
            cols.append(vocab.setdefault(t, len(vocab)))
    if not rows:
        return set()
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(idx), len(vocab)))
    df = np.asarray((x > 0).sum(axis=0)).ravel()
    x = x.multiply(np.log((1 + len(idx)) / (1 + df))).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel()) + 1e-9
    x = sparse.diags(1 / norms) @ x
    out: set[tuple[int, int]] = set()
    for start in range(0, len(idx), 500):
        block = (x[start : start + 500] @ x.T).toarray()
        for r_off in range(block.shape[0]):
            block[r_off, : start + r_off + 1] = 0  # upper triangle only
        rr, cc = np.nonzero(block >= 0.45)
        out |= {(idx[start + a], idx[b]) for a, b in zip(rr.tolist(), cc.tolist(), strict=False)}
    return out


# ---------------------------------------------------------------------------------------------


def _pick_kind(rng: random.Random, weights: Sequence[float]) -> str:
    return rng.choices(("exact", "reformatted", "near", "partial"), weights=weights)[0]


def synthesize(
    records: Iterable[Mapping[str, Any]], config: SynthConfig | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Make an evaluation set from real articles: ``(docs, truth)``, both lists of dicts, shuffled.

    ``records`` need ``id`` and ``text`` (``title`` and ``date`` are used when present). Exact
    duplicates already in the corpus are dropped first, so the truth is not contradicted by the input.
    """
    cfg = config or SynthConfig()
    rng = random.Random(cfg.seed)
    seen_text: set[int] = set()
    recs: list[dict[str, Any]] = []
    for r in records:
        text = str(r.get("text") or "")
        key = zlib.crc32(re.sub(r"\s+", "", text).encode("utf-8"))
        if key in seen_text:
            continue
        seen_text.add(key)
        recs.append(dict(r))
    recs.sort(key=lambda r: str(r["id"]))
    eligible = [i for i, r in enumerate(recs) if len(str(r["text"])) >= cfg.min_length]
    if len(eligible) < 2:
        raise ConfigError(
            f"need at least 2 articles of >= {cfg.min_length} characters, got {len(eligible)}: "
            f"lower min_chars"
        )

    hn_pairs: list[tuple[int, int, float]] = []
    if cfg.n_hard_negatives:
        el = [recs[i] for i in eligible]
        used: set[int] = set()
        for a, b, _ in _hard_negative_pairs(el, cfg, rng):
            if a in used or b in used:
                continue
            used |= {a, b}
            hn_pairs.append((eligible[a], eligible[b], _))
            if len(hn_pairs) >= cfg.n_hard_negatives:
                break

    in_hn = {i for a, b, _ in hn_pairs for i in (a, b)}
    rest = [i for i in eligible if i not in in_hn]
    rng.shuffle(rest)
    n_plain = max(0, cfg.n_sources - len(in_hn))
    plain = rest[:n_plain]
    pool = [recs[i] for i in rest[n_plain:]] or [recs[i] for i in rest] or recs  # hosts and added sentences
    editor = _Editor(cfg.lang, rng, pool, cfg)

    docs: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []

    def emit_original(i: int, kind: str = "original", negative_of: str | None = None) -> None:
        r = recs[i]
        docs.append({k: v for k, v in r.items()})
        t: dict[str, Any] = {"id": str(r["id"]), "group": str(r["id"]), "kind": kind}
        if negative_of is not None:
            t["negative_of"] = negative_of
        truth.append(t)

    def emit_copies(i: int, n_copies: int) -> None:
        r = recs[i]
        sid = str(r["id"])
        title = str(r.get(cfg.title_field) or "")
        date = str(r.get(cfg.date_field) or "")
        for j in range(n_copies):
            kind = _pick_kind(rng, cfg.kind_weights)
            edits: list[str] = []
            new_title = editor.title(title)
            if new_title != title:
                edits.append("title")
            paras = _paragraphs(str(r["text"]))
            text: str
            page: str | None = None
            if kind == "exact":
                text = str(r["text"])
            elif kind == "partial":
                host = rng.choice(pool)
                text = _join(editor.partial(paras, host, edits), cfg.lang)
                new_title = str(host.get(cfg.title_field) or new_title)
            else:
                if kind == "near":
                    paras = editor.content(paras, edits)
                paras = editor.reformat(paras, edits)
                paras = editor.dress(paras, new_title, date, edits)
                page = editor.html(paras, new_title, date, edits) if rng.random() < cfg.html_share else None
                text = "" if page else _join(paras, cfg.lang)
            doc: dict[str, Any] = {"id": f"{sid}-r{j + 1}", "title": new_title}
            if kind not in ("exact", "partial") and page:
                doc["html"] = page  # a crawled page: main-text extraction must find the article
            else:
                doc["text"] = text
            if date:
                doc[cfg.date_field] = date
            docs.append(doc)
            truth.append({"id": doc["id"], "group": sid, "kind": kind, "source": sid, "edits": edits})

    words = cfg.lang == "en"
    reposter = _Reposter(cfg.lang, rng, pool, cfg)

    def emit_reposts(i: int, n_copies: int) -> None:
        r = recs[i]
        sid = str(r["id"])
        title = str(r.get(cfg.title_field) or "")
        date = str(r.get(cfg.date_field) or "")
        source_text = str(r["text"])
        for j in range(n_copies):
            kind = _pick_kind(rng, cfg.kind_weights)
            edits: list[str] = []
            new_title = reposter.new_title(title, edits)
            paras = _paragraphs(source_text)
            page: str | None = None
            extra: dict[str, Any] = {}
            if kind == "exact":
                text = source_text
            elif kind == "partial":
                host = rng.choice(pool)
                text = _join(reposter.embed(paras, host, edits), cfg.lang)
                new_title = str(host.get(cfg.title_field) or new_title)
                src_grams = _grams(source_text, 5, words)
                extra["containment5"] = round(
                    len(src_grams & _grams(text, 5, words)) / max(1, len(src_grams)), 4
                )
            else:
                if kind == "near":
                    paras = reposter.near(paras, title, edits)
                paras, sep = reposter.restyle(paras, edits)
                paras = reposter.dress_lines(paras, new_title, title, date, edits)
                text = sep.join(paras)
                if rng.random() < cfg.html_share:
                    page = reposter.page(paras, new_title, edits)
            doc: dict[str, Any] = {"id": f"{sid}-r{j + 1}", "title": new_title}
            if page is not None:
                doc["html"] = page  # a crawled page: main-text extraction must find the article
            else:
                doc["text"] = text
            if date:
                doc[cfg.date_field] = date
            docs.append(doc)
            jac = round(ngram_jaccard(text, source_text, 5, words=words), 4)
            truth.append(
                {"id": doc["id"], "group": sid, "kind": kind, "source": sid, "edits": edits, "jaccard5": jac}
                | extra
            )

    def hn_reason(a: int, b: int) -> str:
        """Why two articles look alike: their template (same title bar the numbers), or their text."""
        ta, tb = (_norm_title(str(recs[i].get(cfg.title_field) or "")) for i in (a, b))
        if ta != tb or len(ta) < 4:
            return "similar_text"
        da, db = _day(recs[a], cfg.date_field), _day(recs[b], cfg.date_field)
        if da is not None and db is not None and abs((da - db).days) == 1:
            return "adjacent_day"
        if _year(recs[a], cfg.date_field) != _year(recs[b], cfg.date_field):
            return "other_year"
        return "same_title"

    copies = emit_reposts if cfg.profile == "realistic" else emit_copies
    for a, b, jab in hn_pairs:
        emit_original(a)
        copies(a, rng.randint(1, cfg.max_copies))
        emit_original(b, "hard_negative", negative_of=str(recs[a]["id"]))
        if cfg.profile == "realistic":
            truth[-1] |= {"jaccard5": round(jab, 4), "why": hn_reason(a, b)}
        if rng.random() < 0.5:
            copies(b, rng.randint(1, cfg.max_copies))
    for i in plain:
        emit_original(i)
        if rng.random() < cfg.copy_rate:
            copies(i, rng.randint(1, cfg.max_copies))

    order = list(range(len(docs)))
    rng.shuffle(order)
    return [docs[k] for k in order], [truth[k] for k in order]


def natural_truth(
    records: Iterable[Mapping[str, Any]], *, threshold: float = 0.8, n: int = 5
) -> list[dict[str, Any]]:
    """Truth for a corpus's own duplicates: same text (whitespace ignored), or Jaccard of word
    ``n``-grams >= ``threshold``; groups are the connected components of those pairs.

    >>> natural_truth([{"id": "a", "text": "x y z w v u"}, {"id": "b", "text": "x y z w v u"},
    ...                {"id": "c", "text": "other words here entirely now"}])[1]["group"]
    'a'
    """
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    recs = list(records)
    ids = [str(r["id"]) for r in recs]
    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for row, r in enumerate(recs):
        for g in _grams(str(r["text"]), n, True):
            rows.append(row)
            cols.append(vocab.setdefault(g, len(vocab)))
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(recs), len(vocab)))
    sizes = np.asarray(x.sum(axis=1)).ravel()
    inter = (x @ x.T).tocoo()
    a, b, v = inter.row, inter.col, inter.data
    keep = a < b
    a, b, v = a[keep], b[keep], v[keep]
    jac = v / (sizes[a] + sizes[b] - v)
    exact: dict[str, int] = {}
    ea, eb = [], []
    for i, r in enumerate(recs):
        key = re.sub(r"\s+", "", str(r["text"]))
        if key in exact:
            ea.append(exact[key])
            eb.append(i)
        else:
            exact[key] = i
    sel = jac >= threshold
    ga = np.concatenate([a[sel], np.array(ea, dtype=np.int64)])
    gb = np.concatenate([b[sel], np.array(eb, dtype=np.int64)])
    g = sparse.coo_matrix((np.ones(len(ga)), (ga, gb)), shape=(len(recs), len(recs)))
    _, labels = connected_components(g, directed=False)
    first: dict[int, str] = {}
    for i, lab in enumerate(labels.tolist()):
        first.setdefault(lab, ids[i])
    size = np.bincount(labels)
    out = []
    exact_set = set(eb) | set(ea)
    for i, lab in enumerate(labels.tolist()):
        kind = "original"
        if size[lab] > 1 and first[lab] != ids[i]:
            kind = "exact" if i in exact_set else "near"
        t: dict[str, Any] = {"id": ids[i], "group": first[lab], "kind": kind}
        if kind != "original":
            t["source"] = first[lab]
        out.append(t)
    return out
