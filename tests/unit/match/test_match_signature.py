"""Signatures: tokens, keys, sketches, number facts, and their compact bytes."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

from neardup.match import MatchConfig, Signatures, exact_key, signatures
from neardup.match.signature import EMPTY32, FIELDS

MODULES = [
    "neardup.match",
    "neardup.match.signature",
    "neardup.match.candidates",
    "neardup.match.verify",
    "neardup.match.explain",
    "neardup.match.config",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_exact_key_ignores_whitespace_and_space_between_tags_only() -> None:
    assert exact_key("<p>a  b</p>\n  <p>c</p>") == exact_key("<p>a b</p><p>c</p>")
    assert exact_key("<p>a b</p>") != exact_key("<p>a  c</p>")


def test_content_key_ignores_punctuation_width_and_case() -> None:
    s = signatures(
        ["今天，北京天气晴朗。Hello World 2024", "今天,北京天气晴朗!hello world ２０２４", "今天北京天气晴"]
    )
    assert s.content[0] == s.content[1] != s.content[2]
    assert s.exact[0] != s.exact[1]


def test_cjk_characters_and_latin_words_are_tokens() -> None:
    s = signatures(["中文abc def", "one two three four five six"], MatchConfig(shingle=5))
    assert s.tokens.tolist() == [4, 6]
    assert s.size.tolist() == [1, 2]  # a text shorter than a window is one window


def test_sketch_is_the_smallest_window_hashes_sorted_and_padded() -> None:
    import random

    from dedup_synth import article

    s = signatures([article(random.Random(1), 10), "短文本"], MatchConfig(sketch_size=16, posted=8))
    row = s.sketch[0]
    assert (np.diff(row.astype(np.int64)) > 0).all()
    assert (s.sketch[1][1:] == EMPTY32).all() and s.sketch[1][0] != EMPTY32


def test_numbers_in_the_same_place_with_other_values_differ() -> None:
    a, b, c = signatures(["今天（10月5日）开会。", "今天（10月6日）开会。", "今天（10月5日）开会！"]).numbers
    assert set(a.tolist()) == set(c.tolist())
    assert set(a.tolist()) != set(b.tolist())


def test_chinese_numerals_are_number_facts() -> None:
    a, b = signatures(["十四届全国人大三次会议开幕", "十四届全国人大二次会议开幕"]).numbers
    assert set(a.tolist()) != set(b.tolist())


def test_row_bytes_round_trip_and_refuse_garbage() -> None:
    s = signatures(["长江是中华民族的母亲河，2024年10月5日。"], layouts=[0xABC])
    back = Signatures.from_row_bytes(s.row_bytes(0))
    for name in FIELDS:
        assert np.array_equal(getattr(back, name), getattr(s, name)), name
    with pytest.raises(ValueError):
        Signatures.from_row_bytes(b"short")
    with pytest.raises(ValueError):
        Signatures.from_row_bytes(s.row_bytes(0) + b"x")


def test_empty_and_symbol_only_texts_have_no_tokens() -> None:
    s = signatures(["", "。。！！", "   "])
    assert s.tokens.tolist() == [0, 0, 0] and s.size.tolist() == [0, 0, 0]


def test_config_checks_name_the_field_and_the_range() -> None:
    from neardup.exceptions import ConfigError

    with pytest.raises(ConfigError, match="shingle must be between 1 and 16"):
        MatchConfig(shingle=0)
    with pytest.raises(ConfigError, match="min_shared"):
        MatchConfig(min_shared=100)
    assert MatchConfig.from_dict(MatchConfig(keep="newest").to_dict()) == MatchConfig(keep="newest")


def test_long_quotations_in_marks_are_quoted_like_quoted_lines() -> None:
    from neardup.match.text import _QUOTED

    def flags(text: str) -> list[bool]:
        return [bool(v & _QUOTED) for v in signatures([text]).profile(0)]

    quote = "今年全市新增就业岗位十二万个，城镇调查失业率保持在百分之五以内，居民收入稳步增长。"
    n = len(signatures([quote]).profile(0))
    lead = "评论员文章指出："
    got = flags(lead + "“" + quote + "”这说明“稳就业”的政策见效了。")
    # the long quotation is quoted, the text around it and a short term in marks are not
    assert got[7 : 7 + n] == [True] * n and not any(got[:7]) and not any(got[7 + n :])
    # nested marks stay inside the outer quotation; an unclosed one marks nothing
    assert sum(flags("他说：“" + quote + "「稳就业」" + quote + "”")) == 2 * n + 3
    assert not any(flags("他说：“" + quote))


def test_long_straight_quotations_are_quoted_and_continue_across_paragraphs() -> None:
    def flags(text: str) -> list[bool]:
        return [bool(int(v) & 0x20000000) for v in signatures([text]).profile(0)]

    quote = " ".join(["the committee will publish its findings on the airport plans next spring"] * 3)
    n = len(quote.split())
    assert sum(flags('He said: "' + quote + '" and left.')) == n
    # speech and titles are not quoted text: only a passage of 200 code points or more is
    assert sum(flags('He said: "the committee will publish its findings next spring" and left.')) == 0
    # an English quotation of two paragraphs opens both and closes the last
    assert sum(flags('He said: "' + quote + '\n\n"' + quote + '" and left.')) == 2 * n
    # one left open ends with its paragraph when the next does not continue it
    assert sum(flags('He said: "' + quote + "\nThe next paragraph is the reporter's own.")) == n


def test_british_and_american_spellings_are_one_word_and_other_words_stay_apart() -> None:
    def tokens(text: str) -> list[int]:
        return [int(v) for v in signatures([text]).profile(0)]

    for uk, us in [
        ("colourful neighbourhood", "colorful neighborhood"),
        ("organisations realised", "organizations realized"),
        ("analysed the centre", "analyzed the center"),
        ("centred catalogue", "centered catalog"),
        ("travelled programmes", "traveled programs"),
        ("defence licence", "defense license"),
    ]:
        assert tokens(uk) == tokens(us), (uk, us)
    for a, b in [("four", "for"), ("hours", "hors"), ("rise", "rize"), ("selling", "seling")]:
        assert tokens(a) != tokens(b), (a, b)


def test_an_occasion_number_is_read_with_its_units_kind() -> None:
    def tokens(text: str) -> list[int]:
        return [int(v) for v in signatures([text]).profile(0)]

    def occasions(text: str) -> int:
        return sum(1 for v in signatures([text]).profile(0) if int(v) & 0x40000000)

    # an ordinal is one number with 届 次 期 or after 第, and after a typo of its unit
    ordinal = tokens("第十四届")[1]
    assert tokens("十四届")[0] == ordinal == tokens("第十四界")[1] == tokens("第十四次")[1]
    # another kind of unit is another number: the 4 of 四次会议 is not the 4 of 3月4日
    assert tokens("4次")[0] != tokens("3月4日")[2]
    assert tokens("3月4日")[2] == tokens("3月4号")[2]
    # 第一时间 ("at once") names no occasion; 第一次 does
    assert occasions("第一时间赶到") == 0 and occasions("第一次会议") == 1
    # 第一个 ("the first one": 第二个百年奋斗目标) counts, it names no occasion
    assert occasions("开启第二个百年奋斗目标") == 0 and occasions("第二次会议") == 1
    # a year among words is a year as 2004年 is; a number that is no year, or a year between CJK
    # characters (东京2020奥运会), is not
    assert occasions("the 2004 and 1999 elections") == 2 and tokens("in 2004")[1] == tokens("2004年")[0]
    assert occasions("a 2150 or 20040 or 12 seat") == 0 and occasions("东京2020奥运会") == 0
