"""What a person reads beside a verdict, when the texts are at hand: the longest passage both texts
share and the numbers they disagree on. The decision itself is made from signatures only
(``neardup.match.verify``); this module only shows its grounds.

>>> a = "今天（10月5日）北京晴。全市举行了第十四届运动会开幕式，数万名观众到场观看。"
>>> b = "今天（10月6日）北京晴。全市举行了第十四届运动会开幕式，数万名观众到场观看。"
>>> shared_passage(a, b)
'全市举行了第十四届运动会开幕式，数万名观众到场观看。'
>>> differing_numbers(a, b)
(['10月5日'], ['10月6日'])
"""

from __future__ import annotations

import re

from neardup.text.normalize import normalize
from neardup.text.sentences import split_sentences

__all__ = ["differing_numbers", "shared_passage"]

# a number with the characters around it: "第十四届", "10月5日", "2024年", "3.5%"
_NUM = r"(?:\d+(?:[.,]\d+)*|[〇一二三四五六七八九十百千万亿两]+)"
_NUMBER = re.compile(rf"[^\W\d_]?{_NUM}(?:[^\W\d_\s]{_NUM})*[^\W\d_\s]?")


def shared_passage(a: str, b: str) -> str | None:
    """The longest sentence of ``a`` that ``b`` holds too (after normalization), or None."""
    nb = {normalize(s) for s in split_sentences(b)}
    best: str | None = None
    for s in split_sentences(a):
        if normalize(s) in nb and (best is None or len(s) > len(best)):
            best = s.strip()
    return best


def _numbers(text: str) -> list[str]:
    return [m.group(0) for m in _NUMBER.finditer(normalize(text))]


def differing_numbers(a: str, b: str, limit: int = 10) -> tuple[list[str], list[str]]:
    """Numbers (with the characters around them) found in one text and not the other."""
    na, nb = _numbers(a), _numbers(b)
    sa, sb = set(na), set(nb)
    only_a = list(dict.fromkeys(x for x in na if x not in sb))[:limit]
    only_b = list(dict.fromkeys(x for x in nb if x not in sa))[:limit]
    return only_a, only_b
