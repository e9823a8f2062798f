"""The realistic profile's cases of real text reuse beyond reposts: documents that quote or reuse a
source but add their own text (related, never the same document), templates with another subject (a
different story), and copies that change the script, the way numbers are written, a figure, or keep
only the lead (the same document).

=============  ============  =====================================================================
case           truth group   what it is
=============  ============  =====================================================================
quote          its own       a reply or commentary: own text, a quoted block of the source (all or
                             part; ``>`` lines in English, 「」/“”/文章指出 in Chinese), more own text
follow_up      its own       another story that reuses one or two background paragraphs of the source
template       its own       the source with its subject replaced wherever it appears (country,
                             person, place or club, edition language, meeting number, year) and a few
                             sentences or figures changed: 5-gram Jaccard .5-.8 with the source
corrected      the source's  one figure corrected (9.4 -> 94, 1.3 -> 1.33), otherwise a light repost
script         the source's  the repost in traditional script (Chinese only), lightly edited
renumbered     the source's  numbers and dates written another way (今天 <-> 11月25日, 1.5万 <-> 15000,
                             2020年 <-> 二〇二〇年; 15,000 <-> 15000, £9.4m <-> £9.4 million)
excerpt        the source's  the lead kept, later paragraphs dropped (30-70 % of the text), nothing added
=============  ============  =====================================================================

Each case draws from its own random stream (``seed`` and the case's name), so adding or dropping a
case leaves the others' documents as they were.
"""

from __future__ import annotations

import random
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from neardup.eval.synth.config import CASES, SynthConfig
from neardup.eval.synth.realistic import Reposter
from neardup.eval.synth.subjects import find_subjects, swap_one
from neardup.eval.synth.text import (
    grams,
    join_paragraphs,
    join_sentences,
    ngram_jaccard,
    paragraphs,
    sentences_of,
)
from neardup.eval.synth.variants import correct_figure, renumber, to_taiwan_phrasing, to_traditional

__all__ = ["RELATED_CASES", "SAME_GROUP_CASES", "make_cases"]

SAME_GROUP_CASES = ("corrected", "script", "renumbered", "excerpt")
RELATED_CASES = ("quote", "follow_up")
_SUFFIX = {
    "quote": "q",
    "follow_up": "f",
    "template": "t",
    "corrected": "c",
    "script": "s",
    "renumbered": "n",
    "excerpt": "x",
}

Case = tuple[dict[str, Any], dict[str, Any]]  # (document, truth row)


def make_cases(
    sources: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    exclude: set[str],
    cfg: SynthConfig,
) -> list[Case]:
    """The documents and truth rows of ``cfg.cases``: about ``cfg.case_rate`` of ``sources`` get each
    case. Own text comes from ``pool`` articles (never one in ``exclude``: the set's documents and the
    hosts of partial copies), each used once."""
    want = max(1, round(cfg.case_rate * len(sources))) if sources else 0
    hosts = _Hosts([p for p in pool if str(p["id"]) not in exclude], cfg.seed)
    out: list[Case] = []
    for case in CASES:
        if case not in cfg.cases or (case == "script" and cfg.lang != "zh"):
            continue
        rng = random.Random(f"{cfg.seed}:{case}")
        maker = _Maker(cfg, rng, pool, hosts)
        order = list(range(len(sources)))
        rng.shuffle(order)
        made = 0
        for k in order:
            if made >= want:
                break
            got = getattr(maker, case)(sources[k])
            if got is not None:
                out.append(got)
                made += 1
    return out


class _Hosts:
    """Articles that lend their text to quotes and follow-ups, each at most once, in an order the
    seed fixes."""

    def __init__(self, pool: list[Mapping[str, Any]], seed: int) -> None:
        self.pool = pool
        self.order = list(range(len(pool)))
        random.Random(f"{seed}:hosts").shuffle(self.order)
        self.used: set[int] = set()

    def take(self, min_chars: int, category: str = "") -> Mapping[str, Any] | None:
        """The next unused article of ``min_chars`` or more; of ``category`` when one of the next
        200 is (a follow-up of a sports story is a sports story)."""
        chosen: int | None = None
        looked = 0
        for i in self.order:
            if i in self.used or len(str(self.pool[i]["text"])) < min_chars:
                continue
            if chosen is None:
                chosen = i
            if not category or str(self.pool[i].get("category") or "") == category:
                chosen = i
                break
            looked += 1
            if looked >= 200:
                break
        if chosen is None:
            return None
        self.used.add(chosen)
        return self.pool[chosen]


class _Maker:
    def __init__(
        self, cfg: SynthConfig, rng: random.Random, pool: Sequence[Mapping[str, Any]], hosts: _Hosts
    ) -> None:
        self.cfg, self.rng, self.pool, self.hosts = cfg, rng, pool, hosts
        self.lang = cfg.lang
        self.words = cfg.lang == "en"
        self.rp = Reposter(cfg.lang, rng, list(pool), cfg)

    # ------------------------------------------------------------------------------ helpers

    def _title(self, rec: Mapping[str, Any]) -> str:
        return str(rec.get(self.cfg.title_field) or "")

    def _doc(self, src: Mapping[str, Any], case: str, title: str, text: str) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": f"{src['id']}-{_SUFFIX[case]}1", "title": title, "text": text}
        date = str(src.get(self.cfg.date_field) or "")
        if date:
            doc[self.cfg.date_field] = date
        return doc

    def _same_group(self, src: Mapping[str, Any], case: str, title: str, text: str, edits: list[str]) -> Case:
        doc = self._doc(src, case, title, text)
        sid = str(src["id"])
        jac = round(ngram_jaccard(text, str(src["text"]), 5, words=self.words), 4)
        return doc, {
            "id": doc["id"],
            "group": sid,
            "kind": case,
            "source": sid,
            "edits": edits,
            "jaccard5": jac,
        }

    def _related(
        self, src: Mapping[str, Any], case: str, title: str, text: str, own: int, edits: list[str]
    ) -> Case:
        doc = self._doc(src, case, title, text)
        s = str(src["text"])
        sg = grams(s, 5, self.words)
        row = {
            "id": doc["id"],
            "group": doc["id"],
            "kind": case,
            "source": str(src["id"]),
            "edits": edits,
            "jaccard5": round(ngram_jaccard(text, s, 5, words=self.words), 4),
            "containment5": round(len(sg & grams(text, 5, self.words)) / max(1, len(sg)), 4),
            "added": round(own / max(1, len(re.sub(r"\s+", "", text))), 4),
        }
        return doc, row

    def _light(self, paras: list[str], title: str, orig_title: str, date: str, edits: list[str]) -> str:
        """A light repost: layout edits and the lines sites add, no content edit."""
        paras, sep = self.rp.restyle(paras, edits)
        paras = self.rp.dress_lines(paras, title, orig_title, date, edits)
        return sep.join(paras)

    def _flat(self, text: str) -> list[str]:
        return [s for p in sentences_of(paragraphs(text)) for s in p]

    def _run(self, sents: list[str], lo: float, hi: float) -> tuple[int, int] | None:
        """A contiguous run of sentences holding a share of the characters drawn in [lo, hi]."""
        lens = [len(s) for s in sents]
        total = sum(lens) or 1
        target = self.rng.uniform(lo, hi)
        best: list[tuple[float, int, int]] = []
        for a in range(len(sents)):
            acc = 0
            for b in range(a, len(sents)):
                acc += lens[b]
                share = acc / total
                if lo <= share <= hi:
                    best.append((abs(share - target), a, b))
                elif share > hi:
                    break
        if not best:
            return None
        gap = min(g for g, _, _ in best)
        _, a, b = self.rng.choice([x for x in best if x[0] - gap < 0.02])
        return a, b

    def _own(self, host: Mapping[str, Any], chars: int) -> list[str]:
        """Whole sentences of ``host`` from its start, about ``chars`` characters."""
        out: list[str] = []
        n = 0
        for s in self._flat(str(host["text"])):
            if n >= chars:
                break
            out.append(s)
            n += len(s)
        return out

    # ------------------------------------------------------------------------------ related: own group

    def quote(self, src: Mapping[str, Any]) -> Case | None:
        r, zh = self.rng, self.lang == "zh"
        sents = self._flat(str(src["text"]))
        if len(sents) >= 4 and r.random() < 0.65:
            run = self._run(sents, 0.3, 0.9)
            if run is None:
                return None
            quoted = sents[run[0] : run[1] + 1]
        else:
            quoted = sents
        q_chars = sum(len(s) for s in quoted)
        own_chars = max(200 if zh else 400, round(q_chars * r.uniform(0.3, 1.2)))
        host = self.hosts.take(own_chars)
        if host is None:
            return None
        own = self._own(host, own_chars)
        n_chunks = r.choice((2, 3)) if len(quoted) >= 4 and r.random() < (0.3 if zh else 0.45) else 1
        chunks = _split(quoted, n_chunks)
        pieces = [join_sentences(p, self.lang) for p in _split(own, len(chunks) + 1)]
        edits = [f"quoted:{q_chars / max(1, sum(len(s) for s in sents)):.2f}"]
        style = self._quote_style(edits)
        body = [pieces[0]]
        intro = self._quote_intro(src)
        if intro:
            body.append(intro)
        for k, chunk in enumerate(chunks):
            body += self._mark(chunk, style)
            if k + 1 < len(pieces):
                body.append(pieces[k + 1])
        if len(chunks) > 1:
            edits.append(f"interleaved:{len(chunks)}")
        text = join_paragraphs([p for p in body if p], self.lang)
        own_n = sum(len(re.sub(r"\s+", "", p)) for p in own) + len(re.sub(r"\s+", "", intro))
        src_title = self._title(src)
        if r.random() < 0.5 and src_title:
            title = ("Re: " + src_title) if not zh else r.choice(("评论：", "锐评｜", "观点：")) + src_title
        else:
            title = self._title(host)
        return self._related(src, "quote", title, text, own_n, edits)

    def _quote_style(self, edits: list[str]) -> str:
        if self.lang == "en":
            style = self.rng.choice(("gt", "gt_wrapped", "quotes"))
        else:
            style = self.rng.choice(("said", "corner", "curly"))
        edits.append(f"markers:{style}")
        return style

    def _quote_intro(self, src: Mapping[str, Any]) -> str:
        r = self.rng
        if self.lang == "zh":
            return ""  # the framing words go with the quotation marks
        name = r.choice(("John Smith", "Mary Jones", "the BBC", "a reader", "the article"))
        return r.choice(
            (
                f"On {r.choice(('Monday', 'Tuesday', 'Friday'))}, {name} wrote:",
                f"In article <{r.getrandbits(40):x}@news.example.net>, {name} writes:",
                "Quote:",
                f"{name.capitalize()} reported:",
            )
        )

    def _mark(self, chunk: list[str], style: str) -> list[str]:
        p = join_sentences(chunk, self.lang)
        if style == "gt":
            return ["> " + p]
        if style == "gt_wrapped":
            return ["\n".join("> " + line for line in textwrap.wrap(p, 72))]
        if style == "quotes":
            return [f'"{p}"']
        if style == "corner":
            return [f"「{p}」"]
        if style == "curly":
            return [f"“{p}”"]
        lead = self.rng.choice(("文章指出", "报道指出", "新闻联播报道说", "据央视报道", "该文写道"))
        return [f"{lead}：“{p}”"]

    def follow_up(self, src: Mapping[str, Any]) -> Case | None:
        r, zh = self.rng, self.lang == "zh"
        paras = paragraphs(str(src["text"]))
        total = sum(len(p) for p in paras) or 1
        background: list[str] = []
        least = 80 if zh else 300  # a passage worth reporting, not a heading
        if len(paras) >= 3:
            n = r.choice((1, 2))
            start = r.randint(1, len(paras) - n)
            background = paras[start : start + n]
            size = sum(len(p) for p in background)
            if size < least or size / total > 0.5:
                background = []
        if not background:
            sents = self._flat(str(src["text"]))
            run = self._run(sents[1:], 0.2, 0.4) if len(sents) > 3 else None
            if run is None:
                return None
            background = [join_sentences(sents[1 + run[0] : 2 + run[1]], self.lang)]
        bg_chars = sum(len(p) for p in background)
        if bg_chars < least:
            return None
        host = self.hosts.take(
            max(300 if zh else 1000, round(bg_chars * 1.5)), str(src.get("category") or "")
        )
        if host is None:
            return None
        new = paragraphs(str(host["text"]))
        edits = [f"background:{len(background)}"]
        if r.random() < 0.5:
            lead_in = r.choice(
                ("据此前报道，", "回顾：", "背景链接：") if zh else ("Background: ", "Earlier: ")
            )
            background = [lead_in + background[0], *background[1:]]
            edits.append("lead_in")
        pos = r.randint(1, max(1, len(new) - 1)) if len(new) > 1 else 1
        body = [*new[:pos], *background, *new[pos:]]
        text = join_paragraphs(body, self.lang)
        own = sum(len(re.sub(r"\s+", "", p)) for p in new)
        title = self._title(host)
        if r.random() < 0.3:
            title = ("追踪｜" if zh else "UPDATE: ") + title
        return self._related(src, "follow_up", title, text, own, edits)

    # ------------------------------------------------------------------------------ another subject

    def template(self, src: Mapping[str, Any]) -> Case | None:
        r = self.rng
        title, text = self._title(src), str(src["text"])
        both = title + "\n" + text
        kinds = find_subjects(both, self.lang)
        if not kinds:
            return None
        r.shuffle(kinds)
        src_grams = grams(text, 5, self.words)

        def jac(t: str) -> float:
            g = grams(t.split("\n", 1)[1], 5, self.words)
            return len(g & src_grams) / max(1, len(g | src_grams))

        target = r.uniform(0.5, 0.8)
        edits: list[str] = []
        cur = both
        for k in kinds:  # the subject: swapped wherever it appears, while it stays in the band
            if edits and jac(cur) <= target:
                break
            new, e = swap_one(cur, k, self.lang, r)
            if e and jac(new) >= 0.5:
                cur, edits = new, edits + e
        if not edits:
            return None
        changed = 0
        for _ in range(40):  # the details of another story: a few sentences or figures of its own
            if jac(cur) <= target or changed >= 6:
                break
            step = self._other_sentence(cur) if r.random() < 0.7 else self._other_figure(cur)
            if step is not None and jac(step) >= 0.5:
                cur = step
                changed += 1
        j = jac(cur)
        if not 0.5 <= j <= 0.8:
            return None
        if changed:
            edits.append(f"details:{changed}")
        new_title, new_text = cur.split("\n", 1)
        doc = self._doc(src, "template", new_title, new_text)
        row = {
            "id": doc["id"],
            "group": doc["id"],
            "kind": "template",
            "negative_of": str(src["id"]),
            "why": "subject_swap",
            "edits": edits,
            "jaccard5": round(ngram_jaccard(new_text, text, 5, words=self.words), 4),
        }
        return doc, row

    def _other_sentence(self, cur: str) -> str | None:
        r = self.rng
        title, body = cur.split("\n", 1)
        paras = paragraphs(body)
        sents = sentences_of(paras)
        spots = [(i, j) for i, s in enumerate(sents) for j in range(len(s)) if (i, j) != (0, 0)]
        if not spots or not self.pool:
            return None
        i, j = r.choice(spots)
        other = self._flat(str(r.choice(self.pool)["text"]))
        fits = [s for s in other if 0.5 <= len(s) / max(1, len(sents[i][j])) <= 2]
        if not fits:
            return None
        sents[i][j] = r.choice(fits)
        sep = "\n" if self.lang == "zh" else "\n\n"
        return title + "\n" + sep.join(join_sentences(s, self.lang) for s in sents)

    def _other_figure(self, cur: str) -> str | None:
        r = self.rng
        title, body = cur.split("\n", 1)
        figures = sorted(set(re.findall(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]\d|\d)", body)))
        figures = [f for f in figures if not (len(f) == 4 and f[:2] in ("19", "20"))]
        if not figures:
            return None
        old = r.choice(figures)
        new = (
            str(int(float(old)) + r.randint(1, 9))
            if "." not in old
            else f"{float(old) + r.randint(1, 9):.1f}"
        )
        body = re.sub(rf"(?<![\d.,]){re.escape(old)}(?![\d.,]\d|\d)", new, body)
        return title + "\n" + body

    # ------------------------------------------------------------------------------ the same document

    def corrected(self, src: Mapping[str, Any]) -> Case | None:
        r = self.rng
        got = correct_figure(str(src["text"]), r)
        if got is None:
            return None
        text, old, new = got
        edits = [f"correct_figure:{old}->{new}"]
        title = self.rp.new_title(self._title(src), edits)
        paras = paragraphs(text)
        if r.random() < 0.35:
            paras.append(
                f"（更正：此前报道中的“{old}”有误，已更正为“{new}”。）"
                if self.lang == "zh"
                else f"Correction: an earlier version of this story gave the figure as {old}, not {new}."
            )
            edits.append("correction_note")
        body = self._light(paras, title, self._title(src), str(src.get(self.cfg.date_field) or ""), edits)
        return self._same_group(src, "corrected", title, body, edits)

    def script(self, src: Mapping[str, Any]) -> Case | None:
        r = self.rng
        edits = ["traditional"]
        title = self.rp.new_title(self._title(src), edits)
        body = self._light(
            paragraphs(str(src["text"])),
            title,
            self._title(src),
            str(src.get(self.cfg.date_field) or ""),
            edits,
        )
        # half the copies in Taiwan phrasing too (drawn per source, apart from the set's own draws)
        if random.Random(f"taiwan-{src['id']}").random() < 0.5:
            body, title = to_taiwan_phrasing(body), to_taiwan_phrasing(title)
            edits.append("taiwan_phrasing")
        body, title = to_traditional(body), to_traditional(title)
        if r.random() < 0.5:
            body = body.translate(_TW_QUOTES)
            edits.append("corner_quotes")
        if body == str(src["text"]):
            return None
        return self._same_group(src, "script", title, body, edits)

    def renumbered(self, src: Mapping[str, Any]) -> Case | None:
        date = str(src.get(self.cfg.date_field) or "")
        text, edits = renumber(str(src["text"]), self.lang, self.rng, date)
        if not edits:
            return None
        title = self.rp.new_title(self._title(src), edits)
        body = self._light(paragraphs(text), title, self._title(src), date, edits)
        return self._same_group(src, "renumbered", title, body, edits)

    def excerpt(self, src: Mapping[str, Any]) -> Case | None:
        sents = sentences_of(paragraphs(str(src["text"])))
        flat = [(i, j, len(s)) for i, ss in enumerate(sents) for j, s in enumerate(ss)]
        total = sum(n for _, _, n in flat)
        if len(flat) < 3 or not total:
            return None
        share = self.rng.uniform(0.3, 0.7)
        ends: list[tuple[float, int]] = []
        kept = 0
        for k, (_, _, n) in enumerate(flat[:-1]):
            kept += n
            if 0.25 <= kept / total <= 0.75:
                ends.append((abs(kept / total - share), k))
        if not ends:
            return None
        k = min(ends)[1]
        i_last, j_last, _ = flat[k]
        out = [join_sentences(s, self.lang) for s in sents[:i_last]]
        out.append(join_sentences(sents[i_last][: j_last + 1], self.lang))
        kept = sum(n for _, _, n in flat[: k + 1])
        edits = [f"excerpt:{kept / total:.2f}"]
        title = self.rp.new_title(self._title(src), edits)
        return self._same_group(src, "excerpt", title, join_paragraphs(out, self.lang), edits)


_TW_QUOTES = str.maketrans({"“": "「", "”": "」", "‘": "『", "’": "』"})


def _split(items: Sequence[Any], n: int) -> list[list[Any]]:
    """``items`` in ``n`` contiguous, nearly equal runs (fewer when there are fewer items)."""
    n = max(1, min(n, len(items))) if items else 1
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return out
