"""The words a rewrite swaps (neardup.match.words): the tables the text evidence reads."""

from __future__ import annotations

import numpy as np

from neardup.match.words import ANTONYM_KEYS, WORD_KEYS, _profiles, cjk_profile, is_rewrite


def test_the_tables_are_sorted_and_hash_as_the_profile_does() -> None:
    assert WORD_KEYS.dtype == np.uint64 and bool(np.all(WORD_KEYS[1:] > WORD_KEYS[:-1]))
    assert ANTONYM_KEYS.shape[0] >= 70 and bool(np.all(ANTONYM_KEYS[1:] > ANTONYM_KEYS[:-1]))
    chars = "进行展开总统上涨下跌"
    vectorized = _profiles(np.array([ord(c) for c in chars], np.uint32))
    assert [int(v) for v in vectorized] == [cjk_profile(c) for c in chars]


def test_verbs_and_adverbs_are_rewrites_names_titles_and_opposites_are_not() -> None:
    for a, b in [("进行", "展开"), ("不断", "持续"), ("表示", "称"), ("建设", "建造"), ("加强", "强化")]:
        assert is_rewrite(a, b) and is_rewrite(b, a), (a, b)
    for a, b in [
        ("总统", "总理"),
        ("金牌", "银牌"),
        ("中国", "俄国"),
        ("智利", "印度尼西亚"),
        ("法院", "检察院"),
    ]:
        assert not is_rewrite(a, b), (a, b)
    for a, b in [("上涨", "下跌"), ("增长", "下降"), ("同意", "反对"), ("开幕", "闭幕")]:
        assert not is_rewrite(a, b), (a, b)
