"""Dates, times, percentages and ordinals written another way read as one (``dates_zh``,
``dates_en``, ordinal words in ``house_style``): a repost that only rewrites them is its source's
copy, while another date or another figure still differs."""

from __future__ import annotations

import random

import pytest

from neardup.match import compare_texts
from neardup.text.normalize import (
    _dates_zh_py,
    _fp_c,
    _mostly_cjk,
    dates_en,
    dates_zh,
    house_style,
    numbers_as_digits,
    ordinals_table,
)


def _read(text: str) -> str:
    return numbers_as_digits(house_style(text))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("会议于五月六日上午召开", "会议于5月6日上午召开"),
        ("会议于十一月二十日召开", "会议于11月20日召开"),
        ("飞船于18时04分发射", "飞船于18:04发射"),
        ("飞船于18时4分发射", "飞船于18点04分发射"),
        ("飞船於18時04分發射", "飞船於18:04發射"),
        ("晚上八点半开始", "晚上8时30分开始"),
        ("下午3点举行", "下午3时举行"),
        ("上午10点钟举行", "上午10时举行"),
        ("10点左右结束", "10时左右结束"),
        ("增长百分之六点一", "增长6.1%"),
        ("增长百分之五十", "增长50%"),
        ("于2020-05-06发布", "于2020年5月6日发布"),
        ("于2020/5/6发布", "于2020年05月06日发布"),
        ("5月6号发布", "5月6日发布"),
        ("星期天发布", "周日发布"),
        ("礼拜三发布", "星期三发布"),
        ("共有三个小组", "共有3个小组"),
        ("两名选手", "2名选手"),
        ("十一月十日召开", "11月10日召开"),
        ("上午十点半举行", "上午10:30举行"),
        ("十时三十分结束", "10时30分结束"),
        ("八点十分出发", "8:10出发"),
        ("下午三点整开会", "下午3点整开会"),
        ("晚上八点开始", "晚上8点开始"),
        ("凌晨两点发生", "凌晨2时发生"),
        ("三点左右结束", "3点左右结束"),
        ("增长百分之十", "增长10%"),
        ("增长百分之十点五", "增长10.5%"),
        ("第十条规定", "第10条规定"),
    ],
)
def test_chinese_dates_and_times_written_another_way_read_as_one(one: str, other: str) -> None:
    assert _read(one) == _read(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("三点意见", "3时意见"),  # three points, no time of day
        ("好一点", "好1时"),
        ("晚一点再说", "晚1时再说"),  # a little later
        ("以上三点意见", "以上3时意见"),  # the three points above
        ("十分重要", "10分重要"),  # very
        ("几十天", "几10天"),  # tens of days
        ("数十个", "数10个"),
        ("5月6日", "5月7日"),
        ("18时04分", "18时05分"),
        ("增长百分之六", "增长7%"),
        ("version 2020.5.6 released", "version 2020年5月6日 released"),  # no Chinese beside it
        ("12:30:45", "12时30分:45"),
    ],
)
def test_what_differs_still_differs(one: str, other: str) -> None:
    assert _read(one) != _read(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("the first time, for the twelfth year", "the 1st time, for the 12th year"),
        ("the twenty-first century", "the 21st century"),
        ("the Twenty-Second day", "the 22nd day"),
        ("On January 10, 2005 the board met", "On 10 January 2005 the board met"),
        ("On January 10th the board met", "On 10th January the board met"),
        ("the 3rd of May", "the 3 May"),
        ("On Jan. 10 the board met", "On 10 January the board met"),
        ("in Sept 2005", "in September 2005"),
        ("at 10.00 a.m. and 6:30 p.m.", "at 10am and 6:30pm"),
    ],
)
def test_english_ordinals_dates_and_times_written_another_way_read_as_one(one: str, other: str) -> None:
    assert _read(one) == _read(other)


def test_english_dates_keep_their_day_and_words_that_are_no_month() -> None:
    assert _read("On January 10") != _read("On January 11")
    assert dates_en("Mark the Decision in March") == "Mark the Decision in March"
    assert dates_en("Jun Li met him") == "Jun Li met him"  # a name, not June: no day beside it
    assert dates_en("") == ""
    assert ordinals_table()["first"] == "1st" and ordinals_table()["thirteenth"] == "13th"


def test_a_chinese_texts_english_dates_stay() -> None:
    text = "会议于今天举行（January 10, 2005）。" * 3
    assert _mostly_cjk(text)
    assert "January 10, 2005" in numbers_as_digits(text)
    assert not _mostly_cjk("January 10, 2005 " * 3 + "会议")


# written for this test: a short report, and a repost that writes its dates, times, percentages and
# counts another way (no word of its own)
REPORT = (
    "本报北京5月6日电 国家统计局今天发布数据，四月份全国规模以上工业增加值同比增长百分之三点九，"
    "比上月加快一点二个百分点。统计局新闻发言人在18时04分举行的发布会上说，三个主要门类全部实现增长，"
    "其中制造业增长百分之五点一。发言人表示，五月六日起将发布更多分地区数据，星期三还将举行专题发布会，"
    "介绍两项新的统计制度改革。四月份，全国城镇调查失业率为百分之五点二，比上月下降零点一个百分点。"
)
REPOST = (
    "本报北京5月6号电 国家统计局今天发布数据，4月份全国规模以上工业增加值同比增长3.9%，"
    "比上月加快1.2个百分点。统计局新闻发言人在18:04举行的发布会上说，3个主要门类全部实现增长，"
    "其中制造业增长5.1%。发言人表示，5月6日起将发布更多分地区数据，周三还将举行专题发布会，"
    "介绍2项新的统计制度改革。4月份，全国城镇调查失业率为5.2%，比上月下降0.1个百分点。"
)


def test_a_repost_that_rewrites_dates_and_figures_is_a_copy() -> None:
    assert compare_texts(REPORT, REPOST).kind in ("exact", "content", "near")
    # the next month's release on the same template is not
    next_month = REPOST.replace("3.9%", "4.4%").replace("5.1%", "5.6%").replace("5.2%", "5.0%")
    next_month = next_month.replace("4月份", "5月份").replace("5月6", "6月5")
    assert compare_texts(REPORT, next_month).kind not in ("exact", "content", "near", "contained")


_ALPHABET = [
    *"0123456789０１２〇零一二两三四五六七八九十百千万亿月日号號时時点點分秒个名天周週星期礼拜禮半钟鐘",
    *"整许左右午晨晚早上夜-/.:：，。 a年",
    "百分之",
    "星期",
    "左右",
    "2020-05-06",
    "18:04",
    "10点半",
    "晚上",
    "以上",
    "几",
    "数",
]


@pytest.mark.skipif(_fp_c is None, reason="built without a C compiler")
def test_the_chinese_date_reader_in_c_reads_as_python() -> None:
    rng = random.Random(11)
    for _ in range(20_000):
        text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 24)))
        assert _fp_c.dates_zh(text) == _dates_zh_py(text), text
        assert _fp_c.mostly_cjk(text) == (
            sum(c >= "\u3000" for c in text) > sum(c.isascii() and c.isalpha() for c in text)
        )
    assert dates_zh("") == ""
    with pytest.raises(TypeError):
        _fp_c.dates_zh(b"5\xe6\x9c\x88")
