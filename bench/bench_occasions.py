"""Stories told again on another occasion, made from real articles: how often the engine merges
them with their source (it should not), beside edits that keep the occasion (it should).

    NEARDUP_DATA=../shared/data python bench/bench_occasions.py [--limit 1000]

From en-bbc: every weekday named moved on a day, every month (but May) moved on a month, the day
of a month moved, every weekday moved and every figure but years changed (another day's report);
one weekday written "yesterday", US written U.S., contractions (don't for do not), British spelling
written American, ordinal words as figures, dates written month first, "the" misspelt "teh" in two
places, common misspellings struck at 10 % (a repost's edits). From zh-xwlb: every date 5月6日 moved
on a day, every figure but years changed, 中国 replaced by 俄国 (another subject); one figure (a
count, an amount) corrected, 今天 written as a date, 的 mistyped 地 three times, look-alike or
homophone characters from a table struck at 5 % and 10 % (the same wrong character wherever it
struck), amounts in 万 and 亿 written in
digits, times written 18:04, dates and percentages written in Chinese numerals, four such rewrites at once, two or four common verbs or adverbs
swapped for synonyms wherever they stand (a rewriting site's spin) (a repost's edits). Prints the share
merged (exact, content, near, contained) per probe.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import orjson

from neardup.match import compare_texts

ROOT = Path(__file__).resolve().parents[1]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September", "October"]
MONTHS += ["November", "December"]
WEEKDAY = re.compile(r"\b(" + "|".join(DAYS) + r")\b")
MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")
DAY_OF_MONTH = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r")\b")
FIGURE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
ZH_DATE = re.compile(r"(\d{1,2})月(\d{1,2})日")
# a figure that is no date, year, session or ordinal: a count, an amount, a share
ZH_FIGURE = re.compile(r"(?<![\d.第])\d+(?![\d.年月日号届次期周时])")
ZH_SCALED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)([万亿])(?![万亿])")
ZH_CLOCK = re.compile(r"(\d{1,2})时(\d{1,2})分")
ZH_PERCENT = re.compile(r"(?<![\d.])(\d{1,2})(?:\.(\d+))?%")
ORDINALS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th", "tenth": "10th"}
ORDINAL = re.compile(r"\b(" + "|".join(ORDINALS) + r")\b")
CN_DIGITS = "〇一二三四五六七八九"
MERGED = {"exact", "content", "near", "contained"}
# British spellings and the American ones, written out here rather than read from the engine's table
# (tools/make_spellings.py), so the probe tests the table and does not repeat it
AMERICAN = {
    "organisation": "organization",
    "organisations": "organizations",
    "organised": "organized",
    "recognised": "recognized",
    "criticised": "criticized",
    "realise": "realize",
    "apologised": "apologized",
    "emphasised": "emphasized",
    "privatisation": "privatization",
    "colour": "color",
    "favour": "favor",
    "favourite": "favorite",
    "favourites": "favorites",
    "labour": "labor",
    "Labour": "Labor",
    "behaviour": "behavior",
    "honour": "honor",
    "neighbours": "neighbors",
    "centre": "center",
    "centres": "centers",
    "theatre": "theater",
    "metres": "meters",
    "programme": "program",
    "programmes": "programs",
    "defence": "defense",
    "offence": "offense",
    "licence": "license",
    "travelled": "traveled",
    "cancelled": "canceled",
    "analyse": "analyze",
    "catalogue": "catalog",
    "grey": "gray",
    "jewellery": "jewelry",
    "cheque": "check",
    "tyres": "tires",
}
# verbs, adverbs and adjectives a rewriting site swaps for synonyms, written out here (not read from
# the engine's word table)
SYNONYMS = {
    "表示": "称",
    "进一步": "更加",
    "加强": "强化",
    "推动": "推进",
    "提高": "提升",
    "坚持": "坚守",
    "促进": "推进",
    "强调": "指出",
    "认为": "觉得",
    "已经": "已",
    "开展": "展开",
    "不断": "持续",
    "举行": "召开",
    "参加": "参与",
    "进行": "开展",
    "积极": "主动",
}
# contractions a house style uses, written here (not read from the engine)
CONTRACTED = {
    "do not": "don't",
    "does not": "doesn't",
    "did not": "didn't",
    "is not": "isn't",
    "are not": "aren't",
    "was not": "wasn't",
    "will not": "won't",
    "cannot": "can't",
    "would not": "wouldn't",
    "has not": "hasn't",
    "have not": "haven't",
    "it is": "it's",
    "that is": "that's",
    "we are": "we're",
    "they are": "they're",
}
CONTRACTIBLE = re.compile(r"\b(" + "|".join(CONTRACTED) + r")\b")
BRITISH_WORD = re.compile(r"\b(" + "|".join(AMERICAN) + r")\b")


def _figures(text: str) -> str:
    def change(m: re.Match[str]) -> str:
        x = m.group()
        if "." not in x and 1900 <= int(x) <= 2099:
            return x
        return f"{float(x) * 1.1 + 1:.1f}" if "." in x else str(int(x) * 11 // 10 + 1)

    return FIGURE.sub(change, text)


def _en(text: str) -> dict[str, str | None]:
    nxt = {d: DAYS[(i + 1) % 7] for i, d in enumerate(DAYS)}
    nxm = {m: MONTHS[(i + 1) % len(MONTHS)] for i, m in enumerate(MONTHS)}
    has_day, has_month = WEEKDAY.search(text), MONTH.search(text)
    return {
        "weekday moved (template)": WEEKDAY.sub(lambda m: nxt[m.group()], text) if has_day else None,
        "month moved (template)": MONTH.sub(lambda m: nxm[m.group()], text) if has_month else None,
        "day of month moved (template)": DAY_OF_MONTH.sub(
            lambda m: f"{int(m.group(1)) % 28 + 1} {m.group(2)}", text
        )
        if DAY_OF_MONTH.search(text)
        else None,
        "weekday and figures (template)": _figures(WEEKDAY.sub(lambda m: nxt[m.group()], text))
        if has_day and len(FIGURE.findall(text)) >= 3
        else None,
        "a weekday as 'yesterday' (copy)": WEEKDAY.sub("yesterday", text, count=1) if has_day else None,
        "US written U.S. (copy)": text.replace("US ", "U.S. ") if "US " in text else None,
        "ordinal words written as figures, first as 1st (copy)": ORDINAL.sub(
            lambda m: ORDINALS[m.group()], text
        ),
        "dates written month first, 10 January as January 10 (copy)": DAY_OF_MONTH.sub(
            lambda m: f"{m.group(2)} {m.group(1)}", text
        ),
        "2 or more phrases contracted, do not as don't (copy)": CONTRACTIBLE.sub(
            lambda m: CONTRACTED[m.group()], text
        )
        if len(CONTRACTIBLE.findall(text)) >= 2
        else None,
        "the same misspelling in two places, the as teh (copy)": _the_as_teh(text),
        "common misspellings, each word struck at 10 % (copy)": _struck(text, 0.1),
        "British spelling written American, 3 words or more (copy)": BRITISH_WORD.sub(
            lambda m: AMERICAN[m.group()], text
        )
        if len(BRITISH_WORD.findall(text)) >= 3
        else None,
    }


def _cn_small(n: int) -> str:
    """1-99 in Chinese numerals (11 as 十一, 20 as 二十)."""
    tens, units = divmod(n, 10)
    return (
        ("" if tens < 2 else CN_DIGITS[tens]) + ("十" if tens else "") + (CN_DIGITS[units] if units else "")
    )


def _cn_percent(m: re.Match[str]) -> str:
    point = "点" + "".join(CN_DIGITS[int(c)] for c in m.group(2)) if m.group(2) else ""
    return "百分之" + (_cn_small(int(m.group(1))) or "零") + point


def _written_out(text: str) -> str | None:
    """Every amount in 万 or 亿 written in digits (1.1亿 -> 110000000), as another site writes it."""

    def out(m: re.Match[str]) -> str:
        value = Decimal(m.group(1)) * (10**4 if m.group(2) == "万" else 10**8)
        return str(int(value)) if value == int(value) else m.group(0)

    copy = ZH_SCALED.sub(out, text)
    return copy if copy != text else None


ZH_FULL_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日")


def _dates_in_numerals(text: str) -> str:
    return ZH_DATE.sub(lambda m: f"{_cn_small(int(m.group(1)))}月{_cn_small(int(m.group(2)))}日", text)


def _percentages_in_words(text: str) -> str:
    return ZH_PERCENT.sub(_cn_percent, text)


def _times_with_a_colon(text: str) -> str:
    return ZH_CLOCK.sub(lambda m: f"{m.group(1)}:{int(m.group(2)):02d}", text)


def _times_in_numerals(text: str) -> str:
    """18时04分 as 十八点零四分, 10时30分 as 十点半 (a minute of 0 as 整)."""

    def numerals(m: re.Match[str]) -> str:
        hour, minute = _cn_small(int(m.group(1))) or "零", int(m.group(2))
        if minute == 30:
            return f"{hour}点半"
        if minute == 0:
            return f"{hour}点整"
        return f"{hour}点{'零' if minute < 10 else ''}{_cn_small(minute)}分"

    return ZH_CLOCK.sub(numerals, text)


# the ways of writing a date, a time, a percentage or an amount that a copy may take, four at once
_ZH_REWRITES = (
    _dates_in_numerals,
    _percentages_in_words,
    _times_with_a_colon,
    lambda t: _written_out(t) or t,
    lambda t: ZH_FULL_DATE.sub(lambda m: f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", t),
    lambda t: ZH_DATE.sub(r"\1月\2号", t),
)


# common misspellings (a typist's) and look-alike or homophone characters (an OCR pass, an input
# method): a repost that went through them carries the same wrong form wherever it struck
MISSPELT = {
    "the": "teh", "and": "adn", "which": "wich", "their": "thier", "because": "becuase", "with": "wiht",
    "that": "taht", "people": "poeple", "said": "siad", "government": "goverment", "receive": "recieve",
    "would": "woudl", "from": "form", "were": "wre",
}  # fmt: skip
MISSPELT_WORD = re.compile(r"\b(" + "|".join(MISSPELT) + r")\b")
LOOK_ALIKE = {
    "展": "辗", "发": "法", "国": "囯", "济": "挤", "会": "汇", "作": "做", "设": "没", "建": "健", "进": "近",
    "部": "布", "在": "再", "是": "事", "和": "合", "人": "入", "大": "太", "年": "午", "日": "曰", "工": "功",
    "业": "亚", "己": "已", "未": "末", "土": "士",
}  # fmt: skip


def _struck(text: str, rate: float) -> str | None:
    """Each misspellable word (English) or look-alike character (Chinese) struck at ``rate``."""
    rng = random.Random(text)
    if MISSPELT_WORD.search(text):
        copy = MISSPELT_WORD.sub(lambda m: MISSPELT[m.group()] if rng.random() < rate else m.group(), text)
    else:
        copy = "".join(LOOK_ALIKE[c] if c in LOOK_ALIKE and rng.random() < rate else c for c in text)
    return copy if copy != text else None


def _the_as_teh(text: str) -> str | None:
    """The second and the fifth "the" misspelt alike."""
    parts = re.split(r"\bthe\b", text)
    if len(parts) < 7:
        return None
    return parts[0] + "".join(("teh" if k in (1, 4) else "the") + p for k, p in enumerate(parts[1:]))


def _rewritten(text: str) -> str | None:
    """Four of the rewrites above, chosen per text: a copy that writes its figures its own way."""
    copy = text
    for rewrite in random.Random(text).sample(_ZH_REWRITES, 4):
        copy = rewrite(copy)
    return copy if copy != text else None


def _spun(text: str, k: int) -> str | None:
    words = [w for w in SYNONYMS if w in text]
    if len(words) < k:
        return None
    for w in random.Random(text).sample(words, k):
        text = text.replace(w, SYNONYMS[w])
    return text


def _zh(text: str) -> dict[str, str | None]:
    figures = FIGURE.findall(text)
    one = ZH_FIGURE.search(text)
    return {
        "amounts in 万 and 亿 written in digits (copy)": _written_out(text),
        "2 verbs swapped for synonyms wherever they stand (copy)": _spun(text, 2),
        "4 verbs swapped for synonyms wherever they stand (copy)": _spun(text, 4),
        "今天 written as the date (copy)": text.replace("今天", "5月6日") if "今天" in text else None,
        "times 18时04分 written 18:04 (copy)": _times_with_a_colon(text),
        "times 18时04分 written 十八点零四分, 十点半, 三点整 (copy)": _times_in_numerals(text),
        "dates 5月6日 written 五月六日 (copy)": _dates_in_numerals(text),
        "percentages 6.1% written 百分之六点一 (copy)": _percentages_in_words(text),
        "four of: dates 五月六日 / 2020-05-06 / 6号, times 18:04, percentages 百分之, amounts in digits (copy)": _rewritten(
            text
        ),
        "的 mistyped 地 three times (copy)": text.replace("的", "地", 3) if text.count("的") > 5 else None,
        "look-alike or homophone characters, each struck at 5 % (copy)": _struck(text, 0.05),
        "look-alike or homophone characters, each struck at 10 % (copy)": _struck(text, 0.1),
        "中国 replaced by 俄国 (template)": text.replace("中国", "俄国") if text.count("中国") >= 2 else None,
        "date moved a day (template)": ZH_DATE.sub(
            lambda m: f"{m.group(1)}月{int(m.group(2)) % 28 + 1}日", text
        )
        if ZH_DATE.search(text)
        else None,
        "figures changed (template)": _figures(text) if len(figures) >= 4 else None,
        "one figure corrected (copy)": text[: one.start()]
        + str(int(float(one.group())) + 1)
        + text[one.end() :]
        if one and "." not in one.group() and not 1900 <= int(one.group()) <= 2099
        else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=1000, help="articles of each corpus")
    args = ap.parse_args()
    data = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
    print("| corpus | probe | pairs | merged |")
    print("|---|---|---|---|")
    for corpus, probes in (("en-bbc", _en), ("zh-xwlb", _zh)):
        with gzip.open(data / f"{corpus}.jsonl.gz") as f:
            texts = [str(orjson.loads(line).get("text") or "") for line in f][: args.limit]
        merged: Counter[str] = Counter()
        pairs: Counter[str] = Counter()
        for text in texts:
            for name, other in probes(text).items():
                if other is None or other == text:
                    continue
                pairs[name] += 1
                merged[name] += compare_texts(text, other).kind in MERGED
        for name in pairs:
            print(
                f"| {corpus} | {name} | {pairs[name]} | {merged[name] / pairs[name]:.1%} ({merged[name]}) |"
            )


if __name__ == "__main__":
    main()
