"""numbers_as_digits: each rewrite applies where its pattern occurs, and texts without one are left
as they are (the fast checks that skip a rewrite never skip a text it would change)."""

from __future__ import annotations

import pytest

from neardup.text.normalize import numbers_as_digits


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("No numbers here, at all.", "No numbers here, at all."),
        ("Sales rose 15,000 units, then 3,5 and 1,2345.", "Sales rose 15000 units, then 3,5 and 1,2345."),
        ("a, b, 7", "a, b, 7"),
        ("第三次会议和十四届", "第3次会议和14届"),
        ("二〇二〇年", "2020年"),
        ("十五万人", "150000人"),
        ("1.5万亿元", "1500000000000元"),
        ("万一统一一些", "万一统一一些"),
        ("3万", "30000"),
        ("万人", "万人"),
        ("2024年 and 1,000 and 三千", "2024年 and 1000 and 3000"),
        ("遊客1.35億人次，增15萬", "遊客135000000人次，增150000"),
        ("十四屆全國人大", "14届全國人大"),
        ("Three goals and twenty-five shots", "3 goals and 25 shots"),
        ("a £9.4m deal, £9.4 million, 3bn and 2 Thousand", "a £9400000 deal, £9400000, 3000000000 and 2000"),
        ("76 per cent, 76 percent, 76%, a percentage", "76%, 76%, 76%, a percentage"),
        ("someone, one-off, twenty-seventeen, x5m", "someone, 1-off, 20-17, x5m"),
        # exact, where a float is not (1.1 x 10^8 is 110000000.00000001 as a float)
        ("超1.1亿人，0.07亿，1.25万，1.00001万", "超110000000人，7000000，12500，1.00001万"),
        ("£4.1m and 8.2 million", "£4100000 and 8200000"),
        # 亿千 is the end of 700亿 and the start of 千瓦, not a numeral of its own
        ("发电700亿千瓦时，3二百五十", "发电70000000000千瓦时，3二百五十"),
    ],
)
def test_each_rewrite(text: str, want: str) -> None:
    assert numbers_as_digits(text) == want


def test_a_repost_in_traditional_script_reads_as_its_simplified_source() -> None:
    """Numbers in traditional numerals (億 萬, 屆 after a session) and every character folded by the
    tokenizer's table give a traditional repost its source's tokens: a near copy, no number conflicts."""
    from neardup.match import MatchConfig, compare_texts
    from neardup.match.signature import fold_table

    table = fold_table()
    assert table[ord("麼")] == table[ord("么")] == ord("么")  # 什麼 is 什么 (OpenCC also maps 么 to 幺)
    src = (
        "国务院新闻办公室今天举行发布会。今年春节假期，全国国内出游达1.35亿人次，国内游客出游总花费"
        "613.67亿元，同比增长6.8%。十四届全国人大一次会议将于3月5日开幕，为什么这么多人出行？"
        "文化和旅游部有关负责人介绍，各地推出了2.8万场文化活动，带动消费增长。"
    )
    trad = (
        "國務院新聞辦公室今天舉行發佈會。今年春節假期，全國國內出遊達1.35億人次，國內遊客出遊總花費"
        "613.67億元，同比增長6.8%。十四屆全國人大一次會議將於3月5日開幕，爲什麼這麼多人出行？"
        "文化和旅遊部有關負責人介紹，各地推出了2.8萬場文化活動，帶動消費增長。"
    )
    ev = compare_texts(src, trad, MatchConfig())
    assert ev.kind in ("content", "near"), ev
    assert ev.number_conflicts == 0


def test_an_english_repost_with_numbers_written_another_way_is_a_near_copy() -> None:
    """Number words, scale abbreviations and "per cent" read as the digits and signs of the source:
    "four" -> "4" in two places is not a template's subject replaced alike."""
    from neardup.match import MatchConfig, compare_texts

    src = (
        "The coach named four new caps in his squad for the tour, and said four more could follow. "
        "The union agreed a £9.4m deal with the broadcaster, a rise of 12% on the last contract. "
        "Two of the new caps play their club rugby in France, where the season ends in May. "
        "The squad meets on Monday and flies out at the end of the week for the first of three tests."
    )
    copy = (
        "The coach named 4 new caps in his squad for the tour, and said 4 more could follow. "
        "The union agreed a £9.4 million deal with the broadcaster, a rise of 12 per cent on the last contract. "
        "2 of the new caps play their club rugby in France, where the season ends in May. "
        "The squad meets on Monday and flies out at the end of the week for the first of 3 tests."
    )
    ev = compare_texts(src, copy, MatchConfig())
    assert ev.kind in ("content", "near"), ev
