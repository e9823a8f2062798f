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
    ],
)
def test_each_rewrite(text: str, want: str) -> None:
    assert numbers_as_digits(text) == want
