"""Rewrites that keep an article's content: traditional script, numbers and dates written another
way, one figure corrected. Each returns the new text and the edits it made (none: nothing applied).

>>> to_traditional("这是国家发展的新闻")
'這是國家發展的新聞'
>>> zh_numeral(21), zh_year("2020")
('二十一', '二〇二〇')
"""

from __future__ import annotations

import random
import re
from decimal import Decimal
from functools import lru_cache
from importlib import resources

from neardup.text.normalize import taiwan_phrases

__all__ = ["correct_figure", "renumber", "to_taiwan_phrasing", "to_traditional", "zh_numeral"]

ZH_DIGITS = "〇一二三四五六七八九"


@lru_cache(maxsize=1)
def _s2t() -> dict[int, str]:
    text = resources.files("neardup").joinpath("data/s2t.tsv").read_text(encoding="utf-8")
    table: dict[int, str] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            s, _, t = line.partition("\t")
            table[ord(s)] = t
    return table


def to_traditional(text: str) -> str:
    """Simplified characters in their usual traditional form (OpenCC's character table)."""
    return text.translate(_s2t())


@lru_cache(maxsize=1)
def _taiwan_phrasing() -> tuple[re.Pattern[str], dict[str, str]]:
    # the phrases only Taiwan writes, read backwards: the mainland phrase -> the first Taiwan phrase
    # that stands for it
    back: dict[str, str] = {}
    for taiwan, mainland in sorted(taiwan_phrases()[0].items()):
        back.setdefault(mainland, taiwan)
    return re.compile("|".join(map(re.escape, sorted(back, key=len, reverse=True)))), back


def to_taiwan_phrasing(text: str) -> str:
    """Mainland phrases as Taiwan writes them, in simplified characters (``to_traditional`` after it
    gives a repost in Taiwan phrasing, as OpenCC's s2twp writes one; the phrases both write in
    other senses, 支持 / 支援, are left as they are).

    >>> to_taiwan_phrasing("网络信息发布")
    '网路资讯释出'
    """
    pattern, back = _taiwan_phrasing()
    return pattern.sub(lambda m: back[m.group()], text)


def zh_numeral(n: int) -> str:
    """1..99 in Chinese numerals, as written in running text (十二, 二十, 九十九)."""
    if not 1 <= n <= 99:
        raise ValueError(f"n must be 1..99, got {n}")
    tens, ones = divmod(n, 10)
    if not tens:
        return ZH_DIGITS[ones]
    return ("" if tens == 1 else ZH_DIGITS[tens]) + "十" + (ZH_DIGITS[ones] if ones else "")


_ZH_NUMERAL = {zh_numeral(n): n for n in range(1, 100)}


def zh_year(digits: str) -> str:
    """A year digit by digit in Chinese numerals (2020 -> 二〇二〇)."""
    return "".join(ZH_DIGITS[int(d)] for d in digits)


def _plain(x: Decimal) -> str:
    s = format(x.normalize(), "f")
    return s


# ------------------------------------------------------------------------------ numbers another way


def _zh_today(text: str, date: str) -> tuple[str, str | None]:
    digits = re.sub(r"\D", "", date)[:8]
    if len(digits) != 8:
        return text, None
    md = f"{int(digits[4:6])}月{int(digits[6:8])}日"
    if f"今天（{md}）" in text:  # 今天（6月23日） -> 6月23日
        return text.replace(f"今天（{md}）", md).replace("今天", md), "today->date"
    if "今天" in text or "今日" in text:
        return text.replace("今天", md).replace("今日", md), "today->date"
    if re.search(rf"(?<!\d){md}", text):
        return re.sub(rf"(?<!\d){md}", "今天", text), "date->today"
    return text, None


_ZH_UNITS = {"万亿": Decimal(10) ** 12, "亿": Decimal(10) ** 8, "万": Decimal(10) ** 4}
_ZH_DOWN = {"万亿": "亿", "亿": "万", "万": ""}


def _zh_units(text: str) -> tuple[str, str | None]:
    """1.5万 -> 15000, 3.2亿 -> 32000万, 1.5万亿 -> 15000亿; or back when the text has no such unit."""

    def down(m: re.Match[str]) -> str:
        value = Decimal(m.group(1)) * _ZH_UNITS[m.group(2)]
        unit = _ZH_DOWN[m.group(2)]
        out = value / _ZH_UNITS[unit] if unit else value
        if out != out.to_integral_value():
            return m.group(0)
        return _plain(out) + unit

    new = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)(万亿|亿|万)", down, text)
    if new != text:
        return new, "units_expanded"

    def up(m: re.Match[str]) -> str:
        n = int(m.group(1))
        if n % 1000:
            return m.group(0)
        return _plain(Decimal(n) / 10**4) + "万"

    new = re.sub(r"(?<![\d.,])(\d{5,8})(?![\d.,])", up, text)
    return (new, "units_folded") if new != text else (text, None)


def _zh_years(text: str) -> tuple[str, str | None]:
    new = re.sub(r"(?<!\d)((?:19|20)\d\d)(?=年)", lambda m: zh_year(m.group(1)), text)
    if new != text:
        return new, "years_in_numerals"
    new = re.sub(
        r"([〇零一二三四五六七八九]{4})(?=年)",
        lambda m: "".join(str(ZH_DIGITS.index("〇" if c == "零" else c)) for c in m.group(1)),
        text,
    )
    return (new, "years_in_digits") if new != text else (text, None)


def _zh_percent(text: str) -> tuple[str, str | None]:
    new = re.sub(
        r"(?<![\d.])(\d{1,2})[%％]",
        lambda m: "百分之" + zh_numeral(int(m.group(1))) if int(m.group(1)) else m.group(0),
        text,
    )
    if new != text:
        return new, "percent_in_words"
    alts = "|".join(sorted(_ZH_NUMERAL, key=len, reverse=True))
    new = re.sub(rf"百分之({alts})(?![十百千万点])", lambda m: f"{_ZH_NUMERAL[m.group(1)]}%", text)
    return (new, "percent_in_digits") if new != text else (text, None)


_EN_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")


def _en_thousands(text: str) -> tuple[str, str | None]:
    new = re.sub(
        r"(?<![\d.,])(\d{1,3}(?:,\d{3})+)(?![\d,]|\.\d)", lambda m: m.group(1).replace(",", ""), text
    )
    if new != text:
        return new, "thousands_plain"

    def commas(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return m.group(0) if 1900 <= n <= 2099 else f"{n:,}"

    new = re.sub(r"(?<![\d.,])(\d{4,})(?![\d,]|\.\d)", commas, text)
    return (new, "thousands_commas") if new != text else (text, None)


def _en_money(text: str) -> tuple[str, str | None]:
    names = {"m": "million", "bn": "billion"}
    new = re.sub(r"([£$€]\d+(?:\.\d+)?)(m|bn)\b", lambda m: f"{m.group(1)} {names[m.group(2)]}", text)
    if new != text:
        return new, "money_in_words"
    short = {"million": "m", "billion": "bn"}
    new = re.sub(r"([£$€]\d+(?:\.\d+)?) (million|billion)\b", lambda m: m.group(1) + short[m.group(2)], text)
    return (new, "money_short") if new != text else (text, None)


def _en_percent(text: str, rng: random.Random) -> tuple[str, str | None]:
    word = rng.choice((" per cent", " percent"))
    new = re.sub(r"(\d+(?:\.\d+)?)%", lambda m: m.group(1) + word, text)
    if new != text:
        return new, "percent_in_words"
    new = re.sub(r"(\d+(?:\.\d+)?) per ?cent\b", lambda m: m.group(1) + "%", text)
    return (new, "percent_sign") if new != text else (text, None)


def _en_small(text: str) -> tuple[str, str | None]:
    alts = "|".join(_EN_WORDS)
    new = re.sub(rf"\b({alts})\b(?= [a-z])", lambda m: str(_EN_WORDS.index(m.group(1)) + 2), text)
    if new != text:
        return new, "small_numbers_in_digits"
    new = re.sub(r"(?<![\d.,£$€])\b([2-9])\b(?= [a-z])", lambda m: _EN_WORDS[int(m.group(1)) - 2], text)
    return (new, "small_numbers_in_words") if new != text else (text, None)


def renumber(text: str, lang: str, rng: random.Random, date: str = "") -> tuple[str, list[str]]:
    """The same numbers and dates written another way: zh 今天 <-> M月D日 (from ``date``), 1.5万 <->
    15000, 2020年 <-> 二〇二〇年, 10% <-> 百分之十; en 15,000 <-> 15000, £9.4m <-> £9.4 million,
    76% <-> 76 per cent, three <-> 3. Each rewrite that applies is made with odds 0.7 (one at least)."""
    if lang == "zh":
        ops = [
            lambda t: _zh_today(t, date),
            _zh_units,
            _zh_years,
            _zh_percent,
        ]
    else:
        ops = [_en_thousands, _en_money, lambda t: _en_percent(t, rng), _en_small]
    edits: list[str] = []
    fallback: tuple[str, str] | None = None
    for op in ops:
        new, edit = op(text)
        if edit is None:
            continue
        if rng.random() < 0.7:
            text = new
            edits.append(edit)
        elif fallback is None:
            fallback = (new, edit)
    if not edits and fallback is not None:
        text, edit = fallback
        edits.append(edit)
    return text, edits


# ------------------------------------------------------------------------------ a corrected figure

_FIGURE = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)(?![\d.,]\d|\d)")


def _is_year_or_date(text: str, m: re.Match[str]) -> bool:
    s = m.group(1)
    if "." not in s and len(s) == 4 and 1900 <= int(s) <= 2099:
        return True
    if text[m.end() : m.end() + 1] in ("年", "月", "日", "号", "时", "点"):
        return True
    return bool(
        _MONTH_AFTER.match(text, m.end()) or _MONTH_BEFORE.search(text[max(0, m.start() - 10) : m.start()])
    )


_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_MONTH_AFTER = re.compile(rf" (?:{_MONTHS})")
_MONTH_BEFORE = re.compile(rf"(?:{_MONTHS})[a-z]* $")


def correct_figure(text: str, rng: random.Random) -> tuple[str, str, str] | None:
    """One figure corrected in one place (9.4 -> 94, 1.3 -> 1.33, 94 -> 9.4, 27 -> 28): ``(text,
    old, new)``, or None when the text has no figure (years and dates are not figures)."""
    found = [m for m in _FIGURE.finditer(text) if not _is_year_or_date(text, m)]
    if not found:
        return None
    m = rng.choice(found)
    old = m.group(1)
    ops = []
    if re.fullmatch(r"\d+\.\d", old):
        ops += ["shift_point", "add_digit"]
    elif "." in old:
        ops.append("add_digit")
    elif len(old) >= 2 and old[-1] != "0":
        ops.append("insert_point")
    ops.append("last_digit")
    op = rng.choice(ops)
    if op == "shift_point":
        new = old.replace(".", "").lstrip("0") or "0"
    elif op == "add_digit":
        new = old + str(rng.randint(1, 9))
    elif op == "insert_point":
        new = old[:-1] + "." + old[-1]
    else:
        last = int(old[-1])
        new = old[:-1] + str(last + 1 if last < 9 else last - 1)
    return text[: m.start(1)] + new + text[m.end(1) :], old, new
