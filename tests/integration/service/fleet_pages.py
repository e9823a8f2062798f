"""Articles and their near copies for the fleet tests and bench (bench/bench_fleet.py).

Each article is a zh-xwlb item; its copies are made by the classic synthetic editor
(``neardup.eval.synth.classic.Editor``: a few changed characters, a sentence dropped or repeated,
paragraphs swapped, the end cut, editor and source lines) and wrapped in a reposting site's page.
Only articles whose copies one ContentSeen merges into one cluster in either order are kept, so a
single server gives exactly one ``new`` per article: the fleet is held to what one server does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from service_pages import read_items

from neardup.contentseen import ContentSeen
from neardup.eval.synth.classic import Editor
from neardup.eval.synth.config import SynthConfig
from neardup.eval.synth.text import paragraphs


@dataclass(frozen=True)
class Copy:
    article: int
    url: str
    html: str


def _copies(item: dict[str, object], a: int, copies: int, seed: int) -> list[Copy]:
    out = []
    for k in range(copies):
        rng = random.Random(seed * 1_000_003 + a * 1009 + k)
        ed = Editor("zh", rng, [item], SynthConfig(lang="zh", profile="classic"))
        edits: list[str] = []
        paras = paragraphs(str(item["text"]))
        if k:  # copy 0 is the article as published; the others are edited reposts
            paras = ed.content(ed.reformat(paras, edits), edits)
        title = str(item.get("title") or "新闻")
        page = ed.html(paras, ed.title(title) if k else title, str(item.get("date") or ""), edits)
        out.append(Copy(a, f"https://site{k}.example/{item['id']}/{a}-{k}.html", page))
    return out


def _one_cluster(pages: list[Copy]) -> bool:
    for order in (pages, pages[::-1]):
        with ContentSeen("memory://", explain=False) as cs:
            kinds = [cs.check(p.url, html=p.html).kind for p in order]
        if kinds.count("new") != 1:
            return False
    return True


def _cross_linked(groups: list[list[Copy]], seed: int) -> set[int]:
    """Articles that one ContentSeen, given every page interleaved, does not keep to themselves:
    not exactly one ``new``, or a verdict naming another article's document."""
    article: dict[int, int] = {}
    news: dict[int, int] = dict.fromkeys((g[0].article for g in groups), 0)
    bad: set[int] = set()
    with ContentSeen("memory://", explain=False) as cs:
        for p in interleaved(groups, seed):
            v = cs.check(p.url, html=p.html)
            assert v.doc_id is not None
            article[v.doc_id] = p.article
            news[p.article] += v.kind == "new"
            other = v.reasons.get("related_to", v.duplicate_of)
            if other is not None and article[other] != p.article:
                bad |= {p.article, article[other]}
    return bad | {a for a, n in news.items() if n != 1}


def article_copies(data_dir: Path, articles: int, copies: int, *, seed: int = 0) -> list[list[Copy]]:
    """``articles`` lists of ``copies`` pages each: the copies of one article, which one ContentSeen
    merges into one cluster whatever their order (first and reversed checked), and which, all pages
    interleaved (``interleaved(groups, seed)``), give one ContentSeen exactly one ``new`` per article
    and no verdict across articles."""
    items = iter(read_items(data_dir, articles * 3 + 50, min_chars=400))
    kept: list[list[Copy]] = []
    a = 0
    while True:
        while len(kept) < articles:
            item = next(items, None)
            if item is None:
                raise RuntimeError(f"only {len(kept)} of {articles} articles have {copies} copies that merge")
            pages = _copies(item, a, copies, seed)
            a += 1
            if _one_cluster(pages):
                kept.append(pages)
        bad = _cross_linked(kept, seed)
        if not bad:
            return kept
        kept = [g for g in kept if g[0].article not in bad]


def interleaved(groups: list[list[Copy]], seed: int = 0) -> list[Copy]:
    """Every page of every group, shuffled (copies of one article arrive far apart and close)."""
    pages = [p for g in groups for p in g]
    random.Random(seed).shuffle(pages)
    return pages
