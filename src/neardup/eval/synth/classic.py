"""The classic profile's edits: a new title, reformatting, editor and source lines, a site page, and
light content edits (a few characters, a sentence dropped or added, paragraphs swapped, the end cut).

>>> import random
>>> from neardup.eval.synth.config import SynthConfig
>>> ed = Editor("en", random.Random(1), [], SynthConfig(lang="en"))
>>> ed.reformat(["One. Two."], []) != []
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from neardup.eval.synth.config import Lang, SynthConfig
from neardup.eval.synth.pages import classic_page
from neardup.eval.synth.text import (
    is_cjk,
    join_sentences,
    paragraphs,
    rewrap,
    sentences_of,
    site_words,
)
from neardup.eval.synth.vocab import EN_SUBST, HALFWIDTH

__all__ = ["Editor"]


class Editor:
    """Classic copies: light edits, about one changed character in 300."""

    def __init__(self, lang: Lang, rng: random.Random, pool: Sequence[Mapping[str, Any]], cfg: SynthConfig):
        self.lang, self.rng, self.pool, self.cfg = lang, rng, pool, cfg
        self.w = site_words(lang)

    def fill(self, template: str, title: str, date: str) -> str:
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
                paras = [p.translate(HALFWIDTH) for p in paras]
            elif op == "punct":
                paras = [p.replace("'", "’").replace(" - ", " — ") for p in paras]
            elif op == "rewrap" and len(paras) > 1:
                paras = rewrap(paras, self.lang, r, split_over=3, merge_odds=0.3)
            elif op == "lead" and self.w["lead"] and paras and paras[0].startswith(self.w["lead"]):
                paras = [paras[0][len(self.w["lead"]) :], *paras[1:]]
            else:
                continue
            edits.append(op)
        return paras

    def dress(self, paras: list[str], title: str, date: str, edits: list[str]) -> list[str]:
        """Editor and source lines and a stray footer: what survives main-text extraction of a repost."""
        r = self.rng
        head = self.title_line(title, edits, 0.3)
        tail: list[str] = []
        if r.random() < 0.4:
            (head if r.random() < 0.5 else tail).append(
                self.fill(r.choice(self.w["source_line"]), title, date)
            )
            edits.append("source_line")
        return head + paras + self.sign_off(tail, title, date, edits, (0.5, 0.2))

    def title_line(self, title: str, edits: list[str], odds: float) -> list[str]:
        """The title again as the article's first line, with odds ``odds``."""
        if self.rng.random() < odds:
            edits.append("title_line")
            return [title]
        return []

    def sign_off(
        self, tail: list[str], title: str, date: str, edits: list[str], odds: tuple[float, float]
    ) -> list[str]:
        """An editor line and a site footer after the article, each with its odds."""
        for (part, edit), p in zip(
            (("editor_line", "editor_line"), ("footer", "site_footer")), odds, strict=True
        ):
            if self.rng.random() < p:
                tail.append(self.fill(self.rng.choice(self.w[part]), title, date))
                edits.append(edit)
        return tail

    def html(self, paras: list[str], title: str, date: str, edits: list[str]) -> str:
        """The copy as a page of a reposting site: navigation, header, share buttons, ads, footer."""
        edits.append("html_template")
        return classic_page(self, paras, title, date)

    # content edits: what makes a near copy near
    def content(self, paras: list[str], edits: list[str]) -> list[str]:
        r = self.rng
        ops = r.sample(["chars", "drop", "add", "swap", "truncate", "ads"], k=r.randint(1, 2))
        for op in ops:
            sents = sentences_of(paras)
            flat = [(i, j) for i, s in enumerate(sents) for j in range(len(s))]
            if op == "chars":
                paras = self._chars(paras)
            elif op == "drop" and len(flat) > 4:
                for i, j in r.sample(flat[1:], k=min(r.randint(1, 2), len(flat) // 5 or 1)):
                    sents[i][j] = ""
                paras = [join_sentences(s, self.lang) for s in sents]
            elif op == "add":
                other = sentences_of(paragraphs(str(r.choice(self.pool)["text"])))
                extra = [s for p in other for s in p][:40]
                if not extra:
                    continue
                for _ in range(1):
                    i = r.randrange(len(sents))
                    sents[i].insert(r.randint(0, len(sents[i])), r.choice(extra))
                paras = [join_sentences(s, self.lang) for s in sents]
            elif op == "swap" and len(paras) > 2:
                i = r.randrange(len(paras) - 1)
                paras[i], paras[i + 1] = paras[i + 1], paras[i]
            elif op == "truncate" and len(flat) > 6:
                keep = max(1, round(len(flat) * r.uniform(0.8, 0.95)))
                i_last, j_last = flat[keep - 1]
                paras = [join_sentences(s, self.lang) for s in sents[:i_last]] + [
                    join_sentences(sents[i_last][: j_last + 1], self.lang)
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
            cjk = [i for i, c in enumerate(chars) if is_cjk(c)]
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
            if w.lower() in EN_SUBST and r.random() < 0.5:
                words[i] = EN_SUBST[w.lower()]
            else:
                k = r.randrange(len(w) - 1)
                words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2 :]  # swapped letters: a typo
        return " ".join(words).split("\n")

    def partial(self, paras: list[str], host: Mapping[str, Any], edits: list[str]) -> list[str]:
        """A run of the source's paragraphs (30-60 % of it) pasted into another article."""
        r = self.rng
        sents = [s for p in sentences_of(paras) for s in p]
        share = r.uniform(0.3, 0.6)
        k = max(1, round(len(sents) * share))
        start = r.randint(0, len(sents) - k)
        piece = join_sentences(sents[start : start + k], self.lang)
        hparas = paragraphs(str(host["text"]))
        pos = r.randint(0, len(hparas))
        edits.append(f"embedded:{share:.2f}")
        return [*hparas[:pos], piece, *hparas[pos:]]
