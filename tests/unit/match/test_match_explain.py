"""What ``compare`` shows beside a verdict reads the texts as the signing does: numbers, dates and
percentages written another way are neither substitutions, nor added text, nor differing numbers."""

from __future__ import annotations

from neardup.match.explain import added_spans, differing_numbers, shared_passage, substitutions

WORDS = (
    "新华社北京五月六日电 国务院今天召开常务会议，会议决定增加百分之六点一的投资。会议强调要做好防汛工作。"
)
DIGITS = "新华社北京5月6日电 国务院今天召开常务会议，会议决定增加6.1%的投资。会议强调要做好防汛工作。"


def test_numbers_written_another_way_are_not_shown_as_differences() -> None:
    assert substitutions(WORDS, DIGITS) == []
    assert added_spans(WORDS, DIGITS) == [] and added_spans(DIGITS, WORDS) == []
    assert differing_numbers(WORDS, DIGITS) == ([], [])
    assert shared_passage(WORDS, DIGITS) is not None
    assert "6.1%" in (shared_passage(DIGITS, WORDS) or "")


def test_a_changed_figure_is_still_shown() -> None:
    changed = DIGITS.replace("6.1%", "7.2%")
    assert differing_numbers(WORDS, changed) == (["加6.1"], ["加7.2"])  # with the characters around them
    assert substitutions(WORDS, changed) == [("6.1", "7.2", 1)]
