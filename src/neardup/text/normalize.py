"""Text normalization before features are taken: NFKC, full-width to half-width, lowercase, spaces.

>>> normalize("Ｈｅｌｌｏ，　Ｗｏｒｌｄ！\\n\\t新闻")
'hello, world! 新闻'
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from functools import cache
from html import unescape
from importlib.resources import files
from types import ModuleType

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: numbers_as_digits runs in Python
    _fp_c = None
if _fp_c is not None and not hasattr(_fp_c, "numbers_as_digits"):  # built from older sources
    _fp_c = None

__all__ = [
    "abbreviations",
    "contractions",
    "dates_en",
    "dates_zh",
    "house_style",
    "normalize",
    "numbers_as_digits",
    "ordinals_table",
    "regional_phrases",
    "spellings",
    "spellings_table",
    "strip_tags",
    "t2s_map",
    "taiwan_phrases",
]

_TAG = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->|<[^>]+>", re.IGNORECASE | re.DOTALL
)
_SPACE_NO_NL = re.compile(r"[^\S\n]+")
_NL_RUN = re.compile(r"\s*\n\s*")


@cache
def t2s_map() -> dict[str, str]:
    """Traditional (and Taiwan / Hong Kong variant) characters -> simplified, one to one, from
    OpenCC's character tables (``tools/make_t2s.py``): 3,000 characters.

    >>> "".join(t2s_map().get(c, c) for c in "國務院總理")
    '国务院总理'
    """
    return dict(
        line.split("\t", 1) for line in _t2s_table().splitlines() if line and not line.startswith("#")
    )


@cache
def _t2s_table() -> str:
    return files("neardup").joinpath("data/t2s.tsv").read_text(encoding="utf-8")


# a text is in traditional script when its first _TRADITIONAL_SPAN characters write this many distinct
# characters only traditional script writes (a simplified text may write a name in one: 王於昌)
_TRADITIONAL_MIN = 3
_TRADITIONAL_SPAN = 300


# the line of tw_phrases.tsv after which the phrases both scripts write are listed
_SHARED_MARK = "# phrases both write, read as one in every Chinese text"


class _Phrases:
    """A phrase table read over texts: each key (two characters or more) replaced by its value, leftmost
    first and the longest at a place; in C (``_fp_c.phrases``) when it is built, else a regular
    expression of the keys, longest first (the same result, ten times slower and more)."""

    def __init__(self, table: dict[str, str]) -> None:
        if any(not 2 <= len(k) <= 255 for k in table):
            raise ValueError("phrase keys hold 2 to 255 characters")
        self.table = table
        # the keys' first characters (a bitmap of the BMP), and their first two with the longest key
        # they start
        bits = bytearray(8192)
        most: dict[int, int] = {}
        for k in table:
            if ord(k[0]) <= 0xFFFF:
                bits[ord(k[0]) >> 3] |= 1 << (ord(k[0]) & 7)
            pair = ord(k[0]) << 32 | ord(k[1]) << 8
            most[pair] = max(most.get(pair, 0), len(k))
        self.firsts = bytes(bits)
        self.pairs = array("Q", sorted(p | n for p, n in most.items())).tobytes()
        self.pattern = re.compile("|".join(map(re.escape, sorted(table, key=len, reverse=True))) or "(?!)")
        self._in_c = getattr(_fp_c, "phrases", None)

    def read(self, text: str) -> str:
        if self._in_c is not None:
            return str(self._in_c(text, self.firsts, self.pairs, self.table))
        return self.pattern.sub(lambda w: self.table[w.group()], text)


@cache
def taiwan_phrases() -> tuple[dict[str, str], dict[str, str]]:
    """The two tables of ``data/tw_phrases.tsv`` (``tools/make_tw_phrases.py``): the phrases only Taiwan
    writes -> the mainland phrase each stands for, and the phrases both write -> the member of its
    group each is read as.

    >>> only_taiwan, both = taiwan_phrases()
    >>> only_taiwan["网路"], both["支援"]
    ('网络', '支持')
    """
    taiwan_rows, _, shared_rows = (
        files("neardup").joinpath("data/tw_phrases.tsv").read_text(encoding="utf-8").partition(_SHARED_MARK)
    )

    def table(rows: str) -> dict[str, str]:
        return dict(line.split("\t", 1) for line in rows.splitlines() if line and not line.startswith("#"))

    return table(taiwan_rows), table(shared_rows)


@cache
def _regional() -> tuple[re.Pattern[str], dict[int, str], _Phrases, _Phrases]:
    # the rows up to the second comment line: what only traditional script writes
    only = _t2s_table().split("\n#", 1)[0].split("\n", 1)[1]
    traditional = re.compile("[" + re.escape("".join(line[0] for line in only.splitlines() if line)) + "]")
    to_simplified = {ord(t): s for t, s in t2s_map().items()}
    taiwan, shared = taiwan_phrases()
    return traditional, to_simplified, _Phrases({**taiwan, **shared}), _Phrases(shared)


def regional_phrases(text: str) -> str:
    """A Chinese text with its regional phrases read as one: in a traditional-script text, the phrases
    only Taiwan writes as the mainland ones they stand for (資訊 as 信息, 釋出 as 发布, 網路 as
    网络); in every Chinese text, the phrases both write in different senses as one (支援 and 支持,
    資料 and 数据, 透過 and 通过): OpenCC's TWPhrasesRev, ``tools/make_tw_phrases.py``. A repost
    converted with Taiwan phrasing then reads as its source once folded to simplified characters.

    A traditional text comes back in simplified characters (the signature reads every character so
    anyway).

    >>> regional_phrases("臺灣網路資訊釋出")
    '台湾网络信息发布'
    >>> regional_phrases("网路资讯")
    '网路资讯'
    >>> regional_phrases("透過資料庫支援") == regional_phrases("通过数据库支持")
    True
    """
    if text.isascii():
        return text
    traditional, to_simplified, taiwan, shared = _regional()
    if len(set(traditional.findall(text, 0, _TRADITIONAL_SPAN))) >= _TRADITIONAL_MIN:
        return taiwan.read(text.translate(to_simplified))
    return shared.read(text)


@cache
def spellings_table() -> dict[str, str]:
    """British spellings -> the American spelling of the same word, lowercase, from SCOWL's word lists
    (``data/spellings_en.tsv``, ``tools/make_spellings.py``): 3,488 words.

    >>> spellings_table()["colour"], spellings_table()["programme"]
    ('color', 'program')
    """
    rows = files("neardup").joinpath("data/spellings_en.tsv").read_text(encoding="utf-8")
    return dict(line.split("\t", 1) for line in rows.splitlines() if line and not line.startswith("#"))


# the hash bits of the table's words for the C scanner (_fp_c.words): FNV-1a of the lowercase word,
# its low 20 bits
_WORD_BITS = 1 << 20
_ASCII_WORD = re.compile(r"[A-Za-z]+")


def _fnv1a(word: str) -> int:
    h = 2166136261
    for c in word.encode("ascii"):
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def _bits(table: dict[str, str]) -> bytes:
    bits = bytearray(_WORD_BITS // 8)
    for word in table:
        h = _fnv1a(word) & (_WORD_BITS - 1)
        bits[h >> 3] |= 1 << (h & 7)
    return bytes(bits)


@cache
def _house_words() -> dict[str, str]:
    """What ``house_style`` reads as another word: British spellings and ordinal words."""
    return spellings_table() | ordinals_table()


@cache
def _word_bits(house: bool = False) -> bytes:
    return _bits(_house_words() if house else spellings_table())


def _cased(word: str, value: str) -> str:
    if len(word) > 1 and word.isupper():
        return value.upper()
    return value.capitalize() if word[0].isupper() else value


def _words_py(text: str, table: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        word, start, end = m.group(), m.start(), m.end()
        value = table.get(word.lower())
        if (
            value is None
            or (start and text[start - 1].isalpha())
            or (end < len(text) and text[end].isalpha())
        ):
            return word
        return _cased(word, value)

    return _ASCII_WORD.sub(one, text)


def _words(text: str, house: bool) -> str:
    """Each whole word of ASCII letters in the table replaced, in its case: in C (``_fp_c.words``, a
    hash test per letter) when it is built."""
    table = _house_words() if house else spellings_table()
    if _fp_c is not None and hasattr(_fp_c, "words"):
        return str(_fp_c.words(text, _word_bits(house), table))
    return _words_py(text, table)


def spellings(text: str) -> str:
    """An English text in American spelling: each word of ``spellings_table`` (a whole word of ASCII
    letters, in any case) replaced by its American form, so a repost in the other spelling reads as
    its source (colour as color, organisation as organization, programme as program). Runs in C
    (``_fp_c.words``), a hash test per letter; in Python when the C kernels are not built.

    >>> spellings("The Labour programme's colour, CENTRE and Montréal")
    "The Labor program's color, CENTER and Montréal"
    """
    return _words(text, house=False)


_CN_DIGIT = {
    "〇": 0,
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10**4, "亿": 10**8}
# the characters of numbers that traditional script writes another way (萬 億 兩, and 屆 after a
# session number): read as simplified first, so "1.35億" is the number "1.35亿" is and 十四屆 the
# session 十四届 is; every other character of a traditional text folds later, in the tokenizer's
# table (``fold_table``)
_TRADITIONAL_NUMERALS = str.maketrans("萬億兩屆", "万亿两届")
# a Chinese numeral with a place unit (十 百 千 万 亿), or four digit characters before 年 (a year)
# (not after a digit or a point: 亿千 in 700亿千瓦时 is the end of 700亿 and the start of 千瓦)
_CN_NUMBER = re.compile(
    r"(?<![\d.〇零一二两三四五六七八九十百千万亿])[〇零一二两三四五六七八九十百千万亿]*[十百千][〇零一二两三四五六七八九十百千万亿]*"
    r"|[〇零一二三四五六七八九]{4}(?=年)"
)
# an Arabic number times 万 or 亿 ("1.5万"), and digit groups split by commas ("15,000")
_SCALED = re.compile(r"(\d+(?:\.\d+)?)([万亿]+)")
_GROUPED = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ORDINAL = re.compile(
    r"(?<=第)[〇零一二两三四五六七八九十百千]+|[〇零一二两三四五六七八九十百千]+(?=[次届期])"
)
_ANY_NUMBER = re.compile(r"[0-9〇零一二两三四五六七八九十百千万亿]")
# English numbers written another way (ASCII word boundaries, any case): number words up to twenty and
# the tens, alone or hyphenated ("twenty-five"), become digits; a number times a scale word or its
# abbreviation ("9.4m", "9.4 million", "3bn") becomes the integer; "per cent" and "percent" become "%"
_EN_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_EN_VALUE = {w: i for i, w in enumerate(_EN_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_EN_TENS)}
_EN_WORD = re.compile(
    r"\b(?:("
    + "|".join(_EN_TENS)
    + r")-("
    + "|".join(_EN_UNITS[1:10])
    + r")|("
    + "|".join(_EN_VALUE)
    + r"))\b",
    re.IGNORECASE | re.ASCII,
)
# the powers of ten of the scale words
_EN_SCALE_POWER = {
    "k": 3,
    "thousand": 3,
    "m": 6,
    "million": 6,
    "bn": 9,
    "billion": 9,
    "tn": 12,
    "trillion": 12,
}
_CN_BIG_POWER = {"万": 4, "亿": 8}
_EN_SCALED = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?) ?(" + "|".join(_EN_SCALE_POWER) + r")\b", re.IGNORECASE | re.ASCII
)
_EN_PER_CENT = re.compile(r" ?\bper ?cent\b", re.IGNORECASE | re.ASCII)
_ASCII_LETTER = re.compile(r"[A-Za-z]")
# what each rewrite needs to find anything: the rewrites' own patterns scan slowly (a lookbehind or a
# starred class at every position), these scan fast, so texts without them skip the rewrite
_CN_NUMERAL = re.compile(r"[〇零一二两三四五六七八九十百千万亿]")
_DIGIT_COMMA = re.compile(r"\d,\d")


def _scaled(number: str, power: int) -> str | None:
    """``number`` (digits, perhaps a point and digits) times 10**power in digits, exactly, when that
    is an integer below 10**18; else None. Exact where a float is not: 1.1亿 is 110000000.

    >>> _scaled("1.1", 8), _scaled("9.4", 6), _scaled("1.25", 1), _scaled("0.5", 4)
    ('110000000', '9400000', None, '5000')
    """
    whole, _, frac = number.partition(".")
    if frac[power:].strip("0"):
        return None
    digits = (whole + frac[:power].ljust(power, "0")).lstrip("0") or "0"
    return digits if len(digits) <= 18 else None


def _cn_value(s: str) -> str:
    """The value of a Chinese numeral in decimal: all digit characters read digit by digit (leading
    zeros dropped), otherwise each 十百千 adds the digit before it times the unit and each 万亿
    multiplies what came since the last one.

    >>> _cn_value("二〇二〇"), _cn_value("一千二百万零三")
    ('2020', '12000003')
    """
    if all(c in _CN_DIGIT for c in s):
        return "".join(str(_CN_DIGIT[c]) for c in s).lstrip("0") or "0"
    total = section = digit = 0
    for c in s:
        if c in _CN_DIGIT:
            digit = _CN_DIGIT[c]
        elif c in _CN_UNIT:
            section += (digit or 1) * _CN_UNIT[c]
            digit = 0
        elif c in _CN_BIG:
            total += (section + digit) * _CN_BIG[c]
            section = digit = 0
    return str(total + section + digit)


def numbers_as_digits(text: str) -> str:
    """Numbers written another way read as one: Chinese numerals with a place unit and four-digit
    years in Chinese numerals become digits, "1.5万" becomes "15000", "15,000" becomes "15000"; in
    English "three" becomes "3", "twenty-five" "25", "£9.4m" and "£9.4 million" "£9400000", "76 per
    cent" "76%".

    Ordinals and session numbers (第三次, 十四届, 三次会议) become digits too. Other numerals without a place unit stay (一些,
    统一 and 万一 are words, not numbers). Runs in C (``_fp_c``) when it is built, with the same result.

    >>> numbers_as_digits("二〇二〇年，全年增长十五万人，达到1.5万亿元，即15,000亿元")
    '2020年，全年增长150000人，达到1500000000000元，即1500000000000元'
    >>> numbers_as_digits("遊客1.35億人次，十四屆")  # traditional script's numerals
    '遊客135000000人次，14届'
    >>> numbers_as_digits("Three of twenty-five bids topped £9.4m, 76 per cent of 2 million")
    '3 of 25 bids topped £9400000, 76% of 2000000'
    """
    if "萬" in text or "億" in text or "兩" in text or "屆" in text:
        text = text.translate(_TRADITIONAL_NUMERALS)
    out: str | None = None if _fp_c is None else _fp_c.numbers_as_digits(text)
    return _dates(_numbers_as_digits_py(text) if out is None else out)


def _dates(text: str) -> str:
    """Dates and times read one way (after the numbers): ``dates_en`` unless the text is mostly CJK,
    then ``dates_zh``."""
    return dates_zh(text if _mostly_cjk(text) else dates_en(text))


def _dates_py(text: str) -> str:
    """``_dates`` in Python alone: the reference of its C passes."""
    return _dates_zh_py(text if _mostly_cjk_py(text) else dates_en(text))


def _numbers_and_dates_py(text: str) -> str:
    """``numbers_as_digits`` in Python alone (no C pass): the reference the C passes are pinned to."""
    return _dates_py(_numbers_as_digits_py(text.translate(_TRADITIONAL_NUMERALS)))


def _mostly_cjk(text: str) -> bool:
    """More CJK characters (U+3000 up) than ASCII letters: a Chinese text (its English dates stay)."""
    if text.isascii():
        return False
    if _fp_c is not None and hasattr(_fp_c, "mostly_cjk"):
        return bool(_fp_c.mostly_cjk(text))
    return _mostly_cjk_py(text)


def _mostly_cjk_py(text: str) -> bool:
    return not text.isascii() and sum(c >= "\u3000" for c in text) > len(_ASCII_LETTER.findall(text))


# Dates, times and ordinals written another way, read one way, so that a repost that writes them its
# own way differs in nothing (a word replaced alike wherever it stands otherwise reads as a template's
# subject). Chinese, once the numerals with a place unit are digits: a digit character before a date
# or time unit or a measure word (五月六日 -> 5月6日, 三个 -> 3个), 百分之 and its number as % (百分之六点一
# -> 6.1%), a time of day as 时 and 分 (18:04, 18点04分 and 18時4分 -> 18时4分; 10点半 -> 10时30分), a
# date written with - / or . beside Chinese text as 年月日, 号 after a month as 日, a month's, day's,
# hour's or minute's leading zero dropped, 星期 and 礼拜 as 周. These patterns are the reference of
# ``_fp_c.dates_zh`` (which emulates each one's scan); what precedes a match is checked in its
# replacement.
_ZH_NUMERALS = "".join([*_CN_DIGIT, *_CN_UNIT, *_CN_BIG])  # 〇零一二两三四五六七八九十百千万亿
# a numeral before a unit (a lone 十 too: 十日, 十点半; 十分 is "very" unless after an hour, 几十天
# and 数十个 are "tens of"), or
# a single one before 点 after a time of day (晚上八点, 下午三点; not 一: 晚一点 is "a little later";
# not after 以上 or 加上: 以上三点 are "the three points above")
_ZH_DIGIT_UNIT = re.compile(
    r"(?:[〇零一二两三四五六七八九]{1,2}|十)"
    r"(?=[月日号號时時分秒个個名位项項家条條件岁歲天周週]"
    r"|[点點](?:[\d〇零一二三四五六七八九十]+分|半|钟|鐘|整|许|左右))"
    r"|(?:(?<=[午晨晚夜])|(?<=[早晚]上))[二两三四五六七八九十](?=[点點])"
)
_ZH_PERCENT = re.compile(
    r"百分之(\d+(?:\.\d+)?|[〇零一二两三四五六七八九]+|十)(?:[点點]([〇零一二三四五六七八九]+|\d+))?"
)
_ZH_CLOCK = re.compile(r"(\d{1,2})(?:[点點时時](\d{1,2})分|[:：](\d{2})(?![\d:：]))")
_ZH_HALF = re.compile(r"(\d{1,2})[点點时時]半")
_ZH_HOUR = re.compile(r"(\d{1,2})[点點](?:钟|鐘)?(?![\d分])")
_ZH_DATE = re.compile(r"(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d.])[日号號]?")
_ZH_DAY = re.compile(r"月(\d{1,2})[号號]")
_ZH_ZERO = re.compile(r"0(?=\d[月日时分])")
_ZH_WEEKDAY = re.compile(r"(?:星期|礼拜|禮拜|週)([一二三四五六日天])|周天")
_ZH_HOUR_BEFORE = "午晨晚早上日天夜"


def _cjk_beside(text: str, start: int, end: int) -> bool:
    """A CJK character or punctuation mark (U+3000 and up) just before ``start`` or at ``end``."""
    return (start > 0 and text[start - 1] >= "\u3000") or (end < len(text) and text[end] >= "\u3000")


def _after_number(text: str, start: int) -> bool:
    """``start`` follows a digit, a point or a Chinese numeral: inside a number, not its start."""
    return start > 0 and (
        text[start - 1].isdecimal() or text[start - 1] == "." or text[start - 1] in _ZH_NUMERALS
    )


def dates_zh(text: str) -> str:
    """Chinese dates, times, percentages and small counts in one writing (run once the numerals
    with a place unit are digits, as ``numbers_as_digits`` does).

    >>> dates_zh("五月六日下午三点半，2020-05-06 18:04，百分之六点一，星期天，三个")
    '5月6日下午3时30分，2020年5月6日 18时4分，6.1%，周日，3个'
    """
    if _fp_c is not None and hasattr(_fp_c, "dates_zh"):
        return str(_fp_c.dates_zh(text))
    return _dates_zh_py(text)


def _dates_zh_py(text: str) -> str:
    """``dates_zh`` in Python: the reference of ``_fp_c.dates_zh``. Every rewrite needs a character
    from U+3000 up (a unit, a numeral, or one beside the date)."""
    if not text or max(text) < "\u3000":
        return text
    out = text

    def digits(m: re.Match[str]) -> str:
        s = m.start()
        if m.group() == "十" and (
            (out.startswith("分", m.end()) and not (s > 0 and out[s - 1] in "点點时時"))  # 十分: very
            or (s > 0 and out[s - 1] in "几幾数數")  # 几十天, 数十个: tens of, no number
        ):
            return m.group()
        return m.group() if _after_number(out, s) else _cn_value(m.group())

    def percent(m: re.Match[str]) -> str:
        whole, frac = m.group(1), m.group(2)
        whole = _ascii_digits(whole) if whole[0].isdecimal() else _cn_value(whole)
        if not frac:
            return f"{whole}%"
        frac = _ascii_digits(frac) if frac[0].isdecimal() else "".join(str(_CN_DIGIT[c]) for c in frac)
        return f"{whole}.{frac}%"

    def clock(m: re.Match[str]) -> str:
        if _after_number(out, m.start()) or (
            m.group(3) is not None and not _cjk_beside(out, m.start(), m.end())
        ):
            return m.group()
        return f"{int(m.group(1))}时{int(m.group(2) or m.group(3))}分"

    def half(m: re.Match[str]) -> str:
        return m.group() if _after_number(out, m.start()) else f"{int(m.group(1))}时30分"

    def hour(m: re.Match[str]) -> str:
        s, e = m.start(), m.end()
        by_day = s > 0 and out[s - 1] in _ZH_HOUR_BEFORE
        about = out.startswith(("整", "许", "左右"), e)
        return f"{int(m.group(1))}时" if (by_day or about) and not _after_number(out, s) else m.group()

    def date(m: re.Match[str]) -> str:
        if _after_number(out, m.start()) or not _cjk_beside(out, m.start(), m.end()):
            return m.group()
        return f"{m.group(1)}年{int(m.group(3))}月{int(m.group(4))}日"

    def zero(m: re.Match[str]) -> str:
        return "0" if _after_number(out, m.start()) else ""

    if "十" in out or any(c in out for c in _CN_DIGIT):
        out = _ZH_DIGIT_UNIT.sub(digits, out)
    if "百分之" in out:
        out = _ZH_PERCENT.sub(percent, out)
    if "-" in out or "/" in out or "." in out:
        out = _ZH_DATE.sub(date, out)
    if any(c in out for c in "点點时時:："):
        out = _ZH_CLOCK.sub(clock, out)
        out = _ZH_HALF.sub(half, out) if "半" in out else out
        out = _ZH_HOUR.sub(hour, out) if "点" in out or "點" in out else out
    if "号" in out or "號" in out:
        out = _ZH_DAY.sub(r"月\1日", out)
    if "0" in out:
        out = _ZH_ZERO.sub(zero, out)
    if any(c in out for c in "星礼禮週周"):
        out = _ZH_WEEKDAY.sub(lambda m: "周" + ("日" if m.group(1) in (None, "天") else m.group(1)), out)
    return out


# English: ordinal words as figures (first as 1st, twentieth as 20th: ``house_style``'s word scan); a
# month's abbreviation beside a day or a year written out (Jan 10, 10 Jan., Sept 2005 -> January,
# September); a day and its month in one order (January 10th, 2005 and 10 January 2005 -> 10 January
# 2005); a time as 10am, 10:30pm (10 a.m., 10.00 a.m., 10:30 p.m.).
_EN_ORDINAL_UNITS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]
_EN_ORDINAL_TENS = [
    "twentieth",
    "thirtieth",
    "fortieth",
    "fiftieth",
    "sixtieth",
    "seventieth",
    "eightieth",
    "ninetieth",
]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH_OF = {m: m for m in _MONTHS} | {m[:3]: m for m in _MONTHS} | {"Sept": "September"}
# a month's name or abbreviation (longest first), the anchor of every English date rewrite: the re
# module skips to its capital letters in C
_EN_MONTH = re.compile("(" + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\b\.?", re.ASCII)
_EN_DAY_AFTER = re.compile(r" (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4})\b)?", re.ASCII)
_EN_YEAR_AFTER = re.compile(r" \d{4}\b", re.ASCII)
_EN_DAY_BEFORE = re.compile(r"(?<![\w.])(\d{1,2})(?:st|nd|rd|th)? (?:of )?$", re.ASCII)
_EN_CLOCK = re.compile(r"(\d{1,2})(?:[:.](\d\d))? ?([aApP])\.[mM]\.", re.ASCII)
# twenty-first, read as 20-1st by the word scan and the number words: 21st
_EN_TENS_ORDINAL = re.compile(r"(?<![\w.])([2-9])0-([1-9])(?:st|nd|rd|th)\b", re.ASCII)


def _suffix(n: int) -> str:
    return "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@cache
def ordinals_table() -> dict[str, str]:
    """Ordinal words up to the nineties -> their figures (``house_style`` reads them as one).

    >>> ordinals_table()["first"], ordinals_table()["twelfth"], ordinals_table()["fortieth"]
    ('1st', '12th', '40th')
    """
    units = {w: f"{i}{_suffix(i)}" for i, w in enumerate(_EN_ORDINAL_UNITS, 1)}
    return units | {w: f"{i}0th" for i, w in enumerate(_EN_ORDINAL_TENS, 2)}


def dates_en(text: str) -> str:
    """English dates and times in one writing: a day and its month as "10 January" (January 10th,
    the 10th of January), a year after them kept ("January 10, 2005" -> "10 January 2005"), a month's
    abbreviation beside a day or a year written out (Jan. 10, Sept 2005), a time as 10am or 6:30pm
    (10.00 a.m., 6:30 p.m.); "20-1st" (twenty-first, as the ordinal words and the number words read
    it) as 21st.

    >>> dates_en("First held on Jan 10th, 2005 at 10.00 a.m., then the 3rd of May and in Sept 2006")
    'First held on 10 January 2005 at 10am, then the 3 May and in September 2006'
    """
    pieces: list[str] = []
    last = 0
    for m in _EN_MONTH.finditer(text):
        s, e = m.start(), m.end()
        if s < last or (s and (text[s - 1].isalnum() or text[s - 1] == "_")):
            continue
        month = _MONTH_OF[m.group(1)]
        after = _EN_DAY_AFTER.match(text, e)
        before = _EN_DAY_BEFORE.search(text, max(last, s - 12), s)
        if after is not None:
            year = f" {after.group(2)}" if after.group(2) else ""
            pieces += [text[last:s], f"{int(after.group(1))} {month}{year}"]
            last = after.end()
        elif before is not None:
            pieces += [text[last : before.start()], f"{int(before.group(1))} {month}"]
            last = e
        elif month != m.group() and _EN_YEAR_AFTER.match(text, e) is not None:
            pieces += [text[last:s], month]
            last = e
    out = "".join(pieces) + text[last:] if pieces else text
    if "0-" in out:
        out = _EN_TENS_ORDINAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{_suffix(int(m.group(2)))}", out)
    if ".m." in out or ".M." in out:

        def clock(m: re.Match[str]) -> str:
            start = m.start()
            if start and (out[start - 1].isalnum() or out[start - 1] in "_.:"):
                return m.group()
            minutes = m.group(2)
            at = str(int(m.group(1))) + (f":{minutes}" if minutes and minutes != "00" else "")
            return f"{at}{m.group(3).lower()}m"

        out = _EN_CLOCK.sub(clock, out)
    return out


def _numbers_as_digits_py(text: str) -> str:
    """``numbers_as_digits`` in Python: the reference of the C version, and the fallback without it."""
    if _ANY_NUMBER.search(text) is not None:
        text = _numbers_as_digits_zh(text)
    if _ASCII_LETTER.search(text) is not None:
        text = _numbers_as_digits_en(text)
    return text


def _ascii_digits(number: str) -> str:
    """Decimal digits of any script (\\d) as ASCII ones, the point kept."""
    return (
        number
        if number.isascii()
        else "".join(c if c == "." else str(unicodedata.decimal(c)) for c in number)
    )


def _numbers_as_digits_en(text: str) -> str:
    def word(m: re.Match[str]) -> str:
        if m.group(3) is not None:
            return str(_EN_VALUE[m.group(3).lower()])
        return str(_EN_VALUE[m.group(1).lower()] + _EN_VALUE[m.group(2).lower()])

    def scaled(m: re.Match[str]) -> str:
        return _scaled(_ascii_digits(m.group(1)), _EN_SCALE_POWER[m.group(2).lower()]) or m.group(0)

    text = _EN_WORD.sub(word, text)
    text = _EN_SCALED.sub(scaled, text)
    return _EN_PER_CENT.sub("%", text)


def _numbers_as_digits_zh(text: str) -> str:
    if "," in text and _DIGIT_COMMA.search(text) is not None:
        text = _GROUPED.sub("", text)

    def scaled(m: re.Match[str]) -> str:
        # an integer below 10^18 is written out; other values stay as written
        power = sum(_CN_BIG_POWER[c] for c in m.group(2))
        return _scaled(_ascii_digits(m.group(1)), power) or m.group(0)

    def chinese(m: re.Match[str]) -> str:
        s = m.group(0)
        if s == "千万" or (len(s) == 1 and s in _CN_UNIT):
            return s
        return _cn_value(s)

    if _CN_NUMERAL.search(text) is not None:
        text = _ORDINAL.sub(lambda m: _cn_value(m.group(0)), text)
        text = _CN_NUMBER.sub(chinese, text)
    if "万" in text or "亿" in text:
        text = _SCALED.sub(scaled, text)
    return text


@cache
def compat_map() -> dict[int, str]:
    """BMP characters that NFKC changes on their own, with their NFKC form (full-width forms,
    ligatures, circled and Roman numerals, ℃, …): applied character by character before the NFKC check."""
    out: dict[int, str] = {}
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        n = unicodedata.normalize("NFKC", c)
        if n != c:
            out[cp] = n
    return out


def strip_tags(html: str) -> str:
    """Drop HTML tags, comments, scripts and styles; unescape entities. Not main-text extraction.

    >>> strip_tags("<p>A&amp;B<script>x()</script></p><br>c")
    ' A&B   c'
    """
    return unescape(_TAG.sub(" ", html))


def _collapse(text: str, keep_newlines: bool) -> str:
    if keep_newlines:
        return _NL_RUN.sub("\n", _SPACE_NO_NL.sub(" ", text)).strip()
    return " ".join(text.split())


def normalize(text: str, strip_html: bool = False, *, keep_newlines: bool = False) -> str:
    """Normalize ``text`` for fingerprinting.

    Each character NFKC changes on its own is replaced by its NFKC form (full-width forms to ASCII,
    the ideographic space to a space, ℃ to °c, … to ...), then lowercase, whitespace runs collapsed
    to one space (with ``keep_newlines``, line breaks are kept as single newlines), ends trimmed;
    if the result is still not NFKC (combining sequences), full NFKC and lowercase again. The result
    is always NFKC; the order lets the common case skip the slow NFKC pass, and the numba batch
    version in ``neardup.fingerprint._fast`` gives exactly the same strings. ``strip_html`` drops
    tags first.

    >>> normalize("<b>ＡＢＣ</b>  def", strip_html=True)
    'abc def'
    """
    if strip_html:
        text = strip_tags(text)
    if text.isascii():
        return _collapse(text.lower(), keep_newlines)
    text = _collapse(text.translate(compat_map()).lower(), keep_newlines)
    if not unicodedata.is_normalized("NFKC", text):
        text = _collapse(unicodedata.normalize("NFKC", text).lower(), keep_newlines)
    return text


# the abbreviations style guides write with and without stops (AP's U.S., the BBC's US)
_ABBREVIATIONS = (("U.S.A.", "USA"), ("U.S.", "US"), ("U.K.", "UK"), ("U.N.", "UN"), ("E.U.", "EU"))


def abbreviations(text: str) -> str:
    """``text`` with U.S., U.K., U.N., E.U. written without stops, as other style guides write them, so
    a repost in another house style reads as its source (their tokens would differ: u s, us).

    >>> abbreviations("The U.S. and the U.K. met at the U.N. in the U.S.A.")
    'The US and the UK met at the UN in the USA'
    """
    if "U." not in text:
        return text
    for dotted, plain in _ABBREVIATIONS:
        text = text.replace(dotted, plain)
    return text


# contractions written out: n't after a letter and n, 're, 've, 'll and 'm after a letter, 's and 'd
# after a pronoun, each before a non-letter (a possessive stays; a quotation in single quotes, 'make it
# work', is no contraction). The pattern starts with the apostrophe, so the scan looks for that one
# character.
_CONTRACTION = re.compile(r"'([tT]|[rR][eE]|[vV][eE]|[lL][lL]|[mM]|[sS]|[dD])(?![A-Za-z])")
_SUFFIXES = {"re": " are", "ve": " have", "ll": " will", "m": " am", "s": " is", "d": " would"}
# the words whose 's is "is" (or "has") and whose 'd is "would" (or "had"), not a possessive: written
# out one way, so "it is" and "it's" read as one (and "it has" against "it's" differ either way)
_IS_AFTER = frozenset(["it", "that", "there", "here", "what", "who", "he", "she", "where", "how"])
_WOULD_AFTER = frozenset(["i", "you", "he", "she", "it", "we", "they", "who", "that"])
_CANNOT = (("cannot", "can not"), ("Cannot", "Can not"), ("CANNOT", "CAN NOT"))


def _letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def contractions(text: str) -> str:
    """``text`` with English contractions written out (don't as do not, won't as will not, we're as
    we are, cannot as can not, it's as it is, we'd as we would), with a straight or a curly
    apostrophe, as house styles that do not contract write them; a possessive stays, and so does a
    quotation in single quotes.

    >>> contractions("We don't think it won't work, they’re sure it's fine. I'm Ann's 'man'")
    "We do not think it will not work, they are sure it is fine. I am Ann's 'man'"
    """
    if "annot" in text or "ANNOT" in text:
        for short, full in _CANNOT:
            text = text.replace(short, full)
    if "’" in text:
        text = text.replace("’", "'")
    if "'" not in text:
        return text
    if _fp_c is not None and hasattr(_fp_c, "contractions"):
        return str(_fp_c.contractions(text))
    return _contractions_py(text)


def _contractions_py(text: str) -> str:
    """``contractions``' reading at the apostrophes in Python: the reference of ``_fp_c.contractions``
    and the fallback without it."""
    pieces: list[str] = []
    last = 0
    for m in _CONTRACTION.finditer(text):
        at, suffix = m.start(), m.group(1)
        if at < 2 or not _letter(text[at - 1]) or at < last:
            continue
        if suffix in ("t", "T"):
            if text[at - 1] not in "nN" or not _letter(text[at - 2]):
                continue
            start = at - 1
            while start > 0 and _letter(text[start - 1]):
                start -= 1
            word = text[start : at - 1]  # do of don't, wo of won't, ca of can't
            if word.lower() == "wo":
                word = "WILL" if word.isupper() else "Will" if word[0].isupper() else "will"
            elif word.lower() == "ca":
                word += "N" if word.isupper() else "n"
            pieces += [text[last:start], word, " NOT" if suffix == "T" else " not"]
        else:
            if suffix in "sSdD":
                start = at
                while start > 0 and _letter(text[start - 1]):
                    start -= 1
                if text[start:at].lower() not in (_IS_AFTER if suffix in "sS" else _WOULD_AFTER):
                    continue
            full = _SUFFIXES[suffix.lower()]
            pieces += [text[last:at], full.upper() if suffix.isupper() else full]
        last = m.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def house_style(text: str) -> str:
    """An English text in one house style, as the signing reads it: U.S. as US (``abbreviations``),
    contractions written out (``contractions``), British spelling as American (``spellings``), ordinal
    words as figures (``ordinals_table``).

    >>> house_style("The U.S. programme doesn't work for the third time")
    'The US program does not work for the 3rd time'
    """
    return _words(contractions(abbreviations(text)), house=True)
