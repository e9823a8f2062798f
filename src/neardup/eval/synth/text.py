"""Text helpers of the synthetic sets: paragraphs and sentences, n-gram Jaccard, spelling variants.

>>> join_sentences(["a.", "b."], "en")
'a. b.'
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from neardup.eval.synth.config import Lang
from neardup.eval.synth.vocab import EN, EN_SPELLING, ZH
from neardup.text.sentences import split_sentences

__all__ = ["grams", "ngram_jaccard"]


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def site_words(lang: Lang) -> dict[str, Any]:
    return ZH if lang == "zh" else EN


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n+", text) if p.strip()]


def join_paragraphs(paras: Sequence[str], lang: Lang) -> str:
    return "\n".join(paras) if lang == "zh" else "\n\n".join(paras)


def sentences_of(paras: Sequence[str]) -> list[list[str]]:
    return [split_sentences(p) or [p] for p in paras]


def join_sentences(sents: Sequence[str], lang: Lang) -> str:
    return "".join(sents) if lang == "zh" else " ".join(sents)


def ngram_jaccard(a: str, b: str, n: int = 5, *, words: bool = False) -> float:
    """Jaccard similarity of the character (or word) n-gram sets of two texts.

    >>> ngram_jaccard("abcdef", "abcdef")
    1.0
    """
    ga, gb = grams(a, n, words), grams(b, n, words)
    if not ga and not gb:
        return 1.0
    return len(ga & gb) / len(ga | gb)


def grams(text: str, n: int, words: bool) -> set[str]:
    if words:
        toks = re.findall(r"\w+", text.lower())
        return {" ".join(toks[i : i + n]) for i in range(max(len(toks) - n + 1, 1 if toks else 0))}
    t = re.sub(r"\s+", "", text)
    return {t[i : i + n] for i in range(max(len(t) - n + 1, 1 if t else 0))}


def _spelling_re(uk_to_us: bool) -> tuple[re.Pattern[str], dict[str, str]]:
    table = {(uk if uk_to_us else us): (us if uk_to_us else uk) for uk, us, _ in EN_SPELLING}
    alts = [f"{re.escape(uk if uk_to_us else us)}(?:{ends})" for uk, us, ends in EN_SPELLING if ends] + [
        re.escape(uk if uk_to_us else us) for uk, us, ends in EN_SPELLING if not ends
    ]
    return re.compile(r"\b(" + "|".join(alts) + r")\b", re.IGNORECASE), table


_TO_US = _spelling_re(True)
_TO_UK = _spelling_re(False)


def respell(text: str, uk_to_us: bool) -> tuple[str, int]:
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


def is_cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff"


def rewrap(
    paras: Sequence[str], lang: Lang, rng: random.Random, *, split_over: int, merge_odds: float
) -> list[str]:
    """Paragraphs of more than ``split_over`` sentences split at a sentence end half the time, others
    merged into the paragraph before with odds ``merge_odds``: the same words, other line breaks."""
    out: list[str] = []
    for sents in sentences_of(paras):
        if len(sents) > split_over and rng.random() < 0.5:
            cut = rng.randint(1, len(sents) - 1)
            out += [join_sentences(sents[:cut], lang), join_sentences(sents[cut:], lang)]
        elif out and rng.random() < merge_odds:
            out[-1] = out[-1] + ("" if lang == "zh" else " ") + join_sentences(sents, lang)
        else:
            out.append(join_sentences(sents, lang))
    return out
