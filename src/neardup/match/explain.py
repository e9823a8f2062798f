"""What a person reads beside a verdict, when the texts are at hand: the longest passage both texts
share, what each text adds to the other and the numbers they disagree on. The decision itself is made from signatures only
(``neardup.match.verify``); this module only shows its grounds.

>>> a = "今天（10月5日）北京晴。全市举行了第十四届运动会开幕式，数万名观众到场观看。"
>>> b = "今天（10月6日）北京晴。全市举行了第十四届运动会开幕式，数万名观众到场观看。"
>>> shared_passage(a, b)
'全市举行了第十四届运动会开幕式，数万名观众到场观看。'
>>> differing_numbers(a, b)
(['10月5日'], ['10月6日'])
>>> added_spans(a + "闭幕式将于10月15日举行。", a)
['闭幕式将于10月15日举行']
>>> substitutions("《摘编》英文版出版发行。英文版共分十二个专题。", "《摘编》法文版出版发行。法文版共分十二个专题。")
[('英', '法', 2)]
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from neardup.match.signature import read_as_signed
from neardup.text.normalize import normalize, t2s_map
from neardup.text.sentences import split_sentences

__all__ = ["added_spans", "differing_numbers", "shared_passage", "substitutions"]

# a number with the characters around it: "第十四届", "10月5日", "2024年", "3.5%"
_NUM = r"(?:\d+(?:[.,]\d+)*|[〇一二三四五六七八九十百千万亿两]+)"
_NUMBER = re.compile(rf"[^\W\d_]?{_NUM}(?:[^\W\d_\s]{_NUM})*[^\W\d_\s]?")


def shared_passage(a: str, b: str) -> str | None:
    """The longest sentence of ``a`` that ``b`` holds too (read as signed and normalized), or None."""
    nb = {normalize(read_as_signed(s)) for s in split_sentences(b)}
    best: str | None = None
    for s in split_sentences(a):
        if normalize(read_as_signed(s)) in nb and (best is None or len(s) > len(best)):
            best = s.strip()
    return best


def _numbers(text: str) -> list[str]:
    return [m.group(0) for m in _NUMBER.finditer(normalize(read_as_signed(text)))]


def differing_numbers(a: str, b: str, limit: int = 10) -> tuple[list[str], list[str]]:
    """Numbers (with the characters around them) found in one text and not the other, read as the
    signing reads them (五月六日 and 5月6日 agree)."""
    na, nb = _numbers(a), _numbers(b)
    sa, sb = set(na), set(nb)
    only_a = list(dict.fromkeys(x for x in na if x not in sb))[:limit]
    only_b = list(dict.fromkeys(x for x in nb if x not in sa))[:limit]
    return only_a, only_b


_TOKEN = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _tokens(text: str) -> tuple[str, list[tuple[int, int]], list[str]]:
    """The normalized text, its tokens' spans and their comparison keys: the text as the signing
    reads it (``read_as_signed``: credits, numbers and dates, Taiwan phrases, English house style),
    traditional script folded."""
    norm = normalize(read_as_signed(text))
    fold = t2s_map()
    spans, keys = [], []
    for m in _TOKEN.finditer(norm):
        spans.append((m.start(), m.end()))
        keys.append("".join(fold.get(c, c) for c in m.group(0)))
    return norm, spans, keys


def substitutions(
    a: str, b: str, *, longest: int = 16, limit: int = 5, max_tokens: int = 20_000
) -> list[tuple[str, str, int]]:
    """Short spans of ``a`` replaced by spans of ``b`` (``longest`` tokens at most on each side),
    with the number of places each replacement is made, most repeated first: a template's subject
    replaced wherever it appears (英文版 -> 法文版), a corrected figure, a repost's typos. An
    alignment of the two token sequences (``difflib``), for reading beside a verdict; texts are cut
    to ``max_tokens`` tokens."""
    ta, sa, ka = _tokens(a)
    tb, sb, kb = _tokens(b)
    ka, kb = ka[:max_tokens], kb[:max_tokens]
    seen: Counter[tuple[str, str]] = Counter()
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        # the alignment takes longest matches first, so a replaced block may start or end with
        # tokens both sides hold: trim them
        while i1 < i2 - 1 and j1 < j2 - 1 and ka[i1] == kb[j1]:
            i1, j1 = i1 + 1, j1 + 1
        while i2 - 1 > i1 and j2 - 1 > j1 and ka[i2 - 1] == kb[j2 - 1]:
            i2, j2 = i2 - 1, j2 - 1
        if i2 - i1 <= longest and j2 - j1 <= longest:
            seen[(ta[sa[i1][0] : sa[i2 - 1][1]], tb[sb[j1][0] : sb[j2 - 1][1]])] += 1
    return [(x, y, n) for (x, y), n in seen.most_common(limit)]


def added_spans(
    a: str, b: str, *, window_cjk: int = 8, window_latin: int = 4, limit: int = 5, width: int = 120
) -> list[str]:
    """The passages of ``a`` that ``b`` does not hold, longest first: the text the engine counts as
    what ``a`` adds (tokens no shared window of ``window_cjk`` characters / ``window_latin`` words
    covers, as ``neardup.match.text`` measures it), each cut to ``width`` characters."""
    text, ta, ka = _tokens(a)
    _, _, kb = _tokens(b)
    if not ka:
        return []
    cjk = sum(1 for t in ka if _CJK.fullmatch(t))
    w = max(1, min(window_cjk if 2 * cjk >= len(ka) else window_latin, len(ka), max(len(kb), 1)))
    held = {tuple(kb[i : i + w]) for i in range(len(kb) - w + 1)}
    covered = [False] * len(ka)
    for i in range(len(ka) - w + 1):
        if tuple(ka[i : i + w]) in held:
            covered[i : i + w] = [True] * w
    spans: list[str] = []
    i = 0
    while i < len(ka):
        if covered[i]:
            i += 1
            continue
        j = i
        while j < len(ka) and not covered[j]:
            j += 1
        span = text[ta[i][0] : ta[j - 1][1]]
        spans.append(span if len(span) <= width else span[: width - 1] + "…")
        i = j
    return sorted(spans, key=len, reverse=True)[:limit]
