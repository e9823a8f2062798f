"""kernels.text_evidence_rows (many pairs at once, two threads) gives each pair's text_evidence."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.match import MatchConfig
from neardup.match.kernels import text_evidence, text_evidence_rows
from neardup.match.signature import signatures
from neardup_testing import corpus_texts

BASES = (
    "市气象台今天发布寒潮蓝色预警，预计明天夜间起全市气温将下降八到十度，最低气温降至零下五度左右。"
    "气象部门提醒市民及时添衣保暖，农业设施做好防风加固，出行注意交通安全，老人和儿童尽量减少外出。"
    "热力公司负责人介绍，全部锅炉已经完成检修，储煤可以满足二十天用量，抢修队伍实行二十四小时值班。",
    "The council approved the new budget on Tuesday after a long debate. Spending on schools rises by "
    "four per cent, while road repairs get 2.5 million more. Critics said the plan ignores housing, and "
    "the mayor promised a review in the spring. Residents can read the full text on the council website.",
)


def _edited_texts(n: int, seed: int) -> list[str]:
    """Copies of two paragraphs with characters changed, dropped or added, some close together."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        chars = list(BASES[i % 2])
        for _ in range(int(rng.integers(0, 12))):
            p = int(rng.integers(0, len(chars)))
            op = int(rng.integers(0, 3))
            if op == 0:
                chars[p] = "己已巳末未土士日曰xyz"[int(rng.integers(0, 12))]
            elif op == 1:
                del chars[p]
            else:
                chars.insert(p, "的了在是和x"[int(rng.integers(0, 6))])
        out.append("".join(chars))
    return out


def test_many_pairs_at_once_equal_each_pair_alone() -> None:
    texts = corpus_texts(300) + _edited_texts(200, seed=3)
    cfg = MatchConfig()
    sigs = signatures(texts, cfg)
    rng = np.random.default_rng(7)
    a = rng.integers(0, len(texts), 500)
    b = rng.integers(0, len(texts), 500)
    got = text_evidence_rows(sigs.prof_ptr, sigs.prof, a, b, cfg.text_window_cjk, cfg.text_window_latin)
    for i in range(len(a)):
        want = text_evidence(
            sigs.profile(int(a[i])), sigs.profile(int(b[i])), cfg.text_window_cjk, cfg.text_window_latin
        )
        assert got[i].tolist() == want.tolist()


def test_rows_outside_the_profiles_are_refused_or_zero() -> None:
    sigs = signatures(["一段文字。", "another text here"], MatchConfig())
    out = text_evidence_rows(sigs.prof_ptr, sigs.prof, [0, 5], [1, 0], 8, 4)
    assert out[1].tolist() == [0] * out.shape[1]
    with pytest.raises((ValueError, TypeError)):
        text_evidence_rows(sigs.prof_ptr[::-1].copy(), sigs.prof, [0], [1], 8, 4)
