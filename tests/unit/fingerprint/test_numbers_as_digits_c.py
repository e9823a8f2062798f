"""numbers_as_digits in C (``_fp_c``) gives the Python reference's string on every text of the corpora
(as read and as normalized), on strings built to hit each rewrite's edges, and on random strings over
the characters the rewrites look at; without the extension the Python version runs."""

from __future__ import annotations

import gzip
import json
import random
import sys

import pytest

from neardup.fingerprint._fast import normalize_batch
from neardup.text.normalize import (
    _dates,
    _dates_py,
    _numbers_and_dates_py,
    _numbers_as_digits_py,
    numbers_as_digits,
)
from neardup_testing import DATA_DIR

_fp_c = pytest.importorskip("neardup.fingerprint._fp_c", reason="the C extension is not built here")

CORPORA = ("zh-xwlb.jsonl.gz", "zh-rmrb-xwlb-2020.jsonl.gz", "en-bbc.jsonl.gz", "en-20news.jsonl.gz")

TRICKY = [
    "",
    "no numbers at all",
    "二〇二〇年，全年增长十五万人，达到1.5万亿元，即15,000亿元",
    # mixed numerals and units
    "一千二百万零三",
    "两千五百亿",
    "零十",
    "万十",
    "十",
    "百",
    "千万",
    "一千万",
    "千千万万",
    "万万",
    "十分",
    "三十而立，四十不惑",
    "九九九九九九九九九九九九九九九九九九九九九九九九九九九九九九亿亿亿千",
    "一亿零五十万",
    "十万八千里",
    # years: four digit characters right before 年, never 两
    "二〇二〇年",
    "二〇二〇二一年",
    "一九九八年到二〇〇八年",
    "两〇二〇年",
    "二〇二年",
    "〇〇〇〇年",
    "万一九九八年",
    # ordinals and sessions
    "第三次会议和十四届",
    "第〇〇〇次",
    "第十",
    "第一万",
    "三期",
    "第二十二届三次全会",
    # numbers times 万 and 亿
    "1.5万",
    "3万",
    "12.万",
    ".5万",
    "1.2.3万",
    "0.1亿",
    "1.23456789万",
    "2万亿",
    "9亿亿亿",
    "100亿亿",
    "1" + "亿" * 40,
    "1" * 400 + "万",
    "万人",
    # digit groups
    "15,000",
    "1,000,000",
    "1,000,000,0000",
    "3,5 and 1,2345",
    "a, b, 7",
    ",000",
    "1,000,",
    # percentages and decimals
    "增长12.5%，约三成",
    "下降百分之十五点五",
    "0.5万%",
    # full-width and other Unicode digits (\d is Unicode)
    "１,０００",
    "１,０００ 5",
    "１.５万 1",
    "٣.٥万 1",
    "१२३,४५६ 7",
    "１２万",
    # beyond the BMP and lone surrogates
    "😀一千\ud800",
    "\udfff1.5万\ud800",
    "𠀀二〇二〇年𠀀",
    # long runs (Python's int() would refuse a 5,000-digit string)
    "第" + "一" * 5000,
    "一" * 5000 + "次",
    "千" * 3000,
    # English: number words, scales, per cent, at word boundaries in any case
    "Three of twenty-five bids topped £9.4m, 76 per cent of 2 million",
    "twenty-seventeen seventeen-one ninety-nine ONE-off someone oneself _one one_ 1one",
    "x5m 5m2 1.5.m 0.07m 1.25 bn 3BN 7 k 7tn 12 Trillion 9 millions",
    "9" * 400 + "m " + "0" * 300 + "1.5m",
    "percentage per cent percent PER CENT per  cent super cent (per cent) per centum",
    "é one éone twentyé-one twenty-é",
    "700亿千瓦时 3二百五十 5.百亿 1.1亿亿 0.07亿 ٣.٥万 1.0000000000000000001万 0亿亿亿亿亿亿亿亿亿 4.1m 9.99999999999999999bn",
]

_ALPHABET = [
    *"0123456789,.,，%  ab分",
    *["one", "Two", "twenty", "-", "m", "bn", " million", "per", "cent", " ", "x", "_"],
    *"〇零一二两三四五六七八九十百千万亿",
    *"第次届期年",
    *["１", "٣", "😀", "\ud800"],
]


def _random_texts(k: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(_ALPHABET, k=rng.randint(0, 30))) for _ in range(k)]


@pytest.mark.parametrize("text", TRICKY)
def test_c_equals_python_on_tricky_strings(text: str) -> None:
    got = _fp_c.numbers_as_digits(text)
    assert (got if got is not None else _numbers_as_digits_py(text)) == _numbers_as_digits_py(text)
    assert numbers_as_digits(text) == _numbers_and_dates_py(text)


def test_c_equals_python_on_random_strings() -> None:
    for text in _random_texts(30_000, seed=26):
        assert _fp_c.numbers_as_digits(text) == _numbers_as_digits_py(text), repr(text)
        assert numbers_as_digits(text) == _numbers_and_dates_py(text), repr(text)


@pytest.mark.slow
def test_values_beyond_64_bits_fall_back_to_python() -> None:
    text = "第一次，" + "九千亿" * 1_200_000  # 1.08e18: past the C version's bound
    assert _fp_c.numbers_as_digits(text) is None
    assert numbers_as_digits(text) == _numbers_and_dates_py(text)


def test_python_fallback_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules["neardup.text.normalize"], "_fp_c", None)
    assert numbers_as_digits("十五万人，1.5万") == "150000人，15000"


def test_unchanged_text_is_returned_as_is() -> None:
    text = "一些人说，统一 and 7"
    assert _fp_c.numbers_as_digits(text) is text


def test_rejects_what_is_not_a_string() -> None:
    with pytest.raises(TypeError, match="expected str, got bytes"):
        _fp_c.numbers_as_digits(b"123")


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_c_equals_python_on_every_text_of_the_corpora(name: str) -> None:
    path = DATA_DIR / name
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        texts = [json.loads(line).get("text") or "" for line in f]
    raw = len(texts)
    # every text as read, and every third as signed (normalized: the same numbers, other spacing)
    for i, text in enumerate(texts + normalize_batch(texts[::3])):
        want = _numbers_as_digits_py(text)
        got = _fp_c.numbers_as_digits(text)
        assert got == want, text[:200]
        if i < raw:  # the dates' passes on the texts as signed (the normalized ones hold the same dates)
            assert _dates(got) == _dates_py(want), text[:200]
