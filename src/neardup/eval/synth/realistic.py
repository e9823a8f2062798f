"""The realistic profile's edits: several strong edits per copy, as a repost that went through a few
sites (5-gram Jaccard with the source mostly .35-.75): sentences dropped and added, the end cut,
look-alike characters and typos, restyled text, wire credits, pages of real site templates.

>>> import random
>>> from neardup.eval.synth.config import SynthConfig
>>> rp = Reposter("zh", random.Random(1), [], SynthConfig())
>>> rp.change_chars(["在这里做事情"], 0.5, []) != ["在这里做事情"]
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from neardup.eval.synth.classic import Editor
from neardup.eval.synth.pages import repost_page
from neardup.eval.synth.text import is_cjk, join_sentences, paragraphs, respell, rewrap, sentences_of
from neardup.eval.synth.vocab import (
    EN_BOILER,
    EN_CREDITS,
    EN_DATELINES,
    EN_NAMES,
    FULLWIDTH,
    HALFWIDTH,
    ZH_BOILER,
    ZH_COMMON,
    ZH_LEADS,
    ZH_LOOKALIKE,
)

__all__ = ["Reposter"]


class Reposter(Editor):
    """Realistic copies: several strong edits at once, as a repost that went through a few sites."""

    def title_of(self, rec: Mapping[str, Any]) -> str:
        return str(rec.get(self.cfg.title_field) or "")

    def other_titles(self, k: int, exclude: str) -> list[str]:
        titles = [
            t for t in (self.title_of(x) for x in self.rng.sample(self.pool, min(k + 2, len(self.pool)))) if t
        ]
        return [t for t in titles if t != exclude][:k]

    def _boiler(self, exclude: str) -> str:
        line: str = self.rng.choice(ZH_BOILER if self.lang == "zh" else EN_BOILER)
        if "{o}" in line:
            others = self.other_titles(1, exclude)
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
        sents = sentences_of(paras)
        flat = [(i, j) for i, s in enumerate(sents) for j in range(len(s))]
        if len(flat) < 4:
            return paras
        # two of six sentences would be a third of a short article: one at most there
        n = self.rng.randint(1, 2) if len(flat) >= 8 else 1
        for i, j in self.rng.sample(flat[1:], k=n):
            sents[i][j] = ""
        edits.append(f"drop_sentences:{n}")
        return [join_sentences(s, self.lang) for s in sents]

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
        sents = sentences_of(paras)
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
            out = [join_sentences(s, self.lang) for s in sents[:i_last]]
            out.append(join_sentences(sents[i_last][: j_last + 1], self.lang))
            kept = sum(n for _, _, n in flat[: k + 1])
        else:
            joined = [join_sentences(s, self.lang) for s in sents]
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
        cjk = [i for i, c in enumerate(chars) if is_cjk(c)]
        n = min(len(cjk), max(1, round(len(cjk) * rate)))
        confusable = [i for i in cjk if chars[i] in ZH_LOOKALIKE]
        picks = r.sample(confusable, k=min(len(confusable), r.randint(n // 3, n)))
        taken = set(picks)
        others = r.sample([i for i in cjk if i not in taken], k=min(n - len(picks), len(cjk) - len(taken)))
        for i in picks:
            chars[i] = r.choice(ZH_LOOKALIKE[chars[i]])
        for i in others:
            op = r.random()
            if op < 0.8:
                chars[i] = r.choice(ZH_COMMON.replace(chars[i], ""))
            elif op < 0.9:
                chars[i] = ""
            else:
                chars[i] = chars[i] + r.choice(ZH_COMMON)
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
                    paras = [p.translate(HALFWIDTH) for p in paras]
                    op = "halfwidth"
                else:
                    paras = [p.translate(FULLWIDTH) for p in paras]
                    op = "fullwidth"
            elif op == "width":
                paras = [p.replace("'", "’").replace(" - ", " — ").replace('"', "“") for p in paras]
                op = "curly_quotes"
            elif op == "rewrap":
                paras = rewrap(paras, self.lang, r, split_over=2, merge_odds=0.4)
            elif op == "blank_lines":
                sep = "\n\n" if self.lang == "zh" else "\n"
            elif op == "lead" and self.lang == "zh" and paras and paras[0].startswith(self.w["lead"]):
                paras = [r.choice(ZH_LEADS) + paras[0][len(self.w["lead"]) :], *paras[1:]]
            elif op == "lead" and self.lang == "en" and paras:
                dateline = r.choice(EN_DATELINES).format(d=r.choice(("Jan 5", "March 12", "Oct 30")))
                paras = [dateline + paras[0], *paras[1:]]
                op = "dateline"
            elif op == "spelling" and self.lang == "en":
                uk_to_us = r.random() < 0.8
                changed = [respell(p, uk_to_us) for p in paras]
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
        head = self.title_line(title, edits, 0.35)
        tail: list[str] = []
        if r.random() < 0.5:
            line = self.fill(r.choice(self.w["source_line"]), orig_title, date)
            (head if r.random() < 0.5 else tail).append(line)
            edits.append("source_line")
        if self.lang == "en" and r.random() < 0.4:
            names = r.sample(EN_NAMES, 3)
            tail.append(r.choice(EN_CREDITS).format(e=names[0], e2=names[1], e3=names[2]))
            edits.append("wire_credit")
        return head + paras + self.sign_off(tail, orig_title, date, edits, (0.6, 0.25))

    def page(self, paras: list[str], title: str, edits: list[str]) -> str:
        """A page of a portal, mobile site, blog or repost farm; its boilerplate lists other articles."""
        html, template = repost_page(self, paras, title)
        edits.append(f"html:{template}")
        return html

    def embed(self, paras: list[str], host: Mapping[str, Any], edits: list[str]) -> list[str]:
        """A contiguous run of a third to two thirds of the source's characters inside another article."""
        r = self.rng
        sents = [s for p in sentences_of(paras) for s in p]
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
            flat = join_sentences(sents, self.lang)
            k = round(len(flat) * target)
            start = r.randint(0, len(flat) - k)
            sents, a, b = [flat[start : start + k]], 0, 0
        piece = [join_sentences(sents[a : b + 1], self.lang)]
        share = len(piece[0]) / total
        edits.append(f"embedded:{share:.2f}")
        if r.random() < 0.3:
            piece = self.change_chars(piece, r.uniform(0.005, 0.015), edits)
        hparas = paragraphs(str(host["text"]))
        pos = r.randint(0, len(hparas))
        return [*hparas[:pos], *piece, *hparas[pos:]]
