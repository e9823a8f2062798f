"""``prepare_texts(...).sign()`` (read for signing, then signed: what ``fingerprint_records``
splits between the reader's thread and a signing thread) is ``signatures(...)``, field by field."""

from __future__ import annotations

import numpy as np

from neardup.match.config import MatchConfig
from neardup.match.signature import FIELDS, prepare_texts, signatures

TEXTS = [
    "来源：新华社\n国务院常务会议今天召开，部署支持数据中心建设。\n责任编辑：张伟",
    "國務院常務會議今天召開，部署支援資料中心建設。",
    "The bank held rates at 5.25% on Tuesday.\n(Reporting by Sam Lee; editing by Alex Brown)",
    "",
    "今天 1.5万人参加了活动。" * 40,
]


def _same(a: object, b: object) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in (*FIELDS, "prof_ptr", "prof"))


def test_prepared_then_signed_is_signed_at_once() -> None:
    cfg = MatchConfig()
    assert _same(prepare_texts(TEXTS, cfg).sign(), signatures(TEXTS, cfg))


def test_layouts_and_raw_pages_are_carried_through() -> None:
    raw = ["<p>a</p>", None, "<div>b</div>", None, None]
    layouts = [7, None, 9, None, None]
    got = prepare_texts(TEXTS, raw=raw, layouts=layouts).sign()
    want = signatures(TEXTS, raw=raw, layouts=layouts)
    assert _same(got, want)
    assert got.has_layout.tolist() == [True, False, True, False, False]


def test_no_texts() -> None:
    assert len(prepare_texts([]).sign()) == 0 == len(signatures([]))
