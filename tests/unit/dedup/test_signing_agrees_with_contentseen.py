"""One signing for every front end: a record carrying both text and HTML is signed the same way by
``neardup dedup`` (and so the Spark job) and by ``ContentSeen``: the given text is signed, the
page gives the layout and the exact key."""

from __future__ import annotations

import pytest

from neardup.contentseen import ContentSeen
from neardup.dedup import DedupConfig, dedup_records, fingerprint_records
from neardup.io import Record
from neardup.match import page_signatures

pytest.importorskip("resiliparse")

BODY = "这是一篇用于测试的新闻正文，内容足够长，可以被抽取出来作为主要文本。" * 4
TEXT = BODY
PAGE_A = f"<html><body><nav>首页 | 新闻</nav><article><p>{BODY}</p></article></body></html>"
PAGE_B = f"<html><body><div class='x'><header>站点</header><main><p>{BODY}</p></main></div></body></html>"
RECORDS = [
    Record(id="a", text=TEXT, html=PAGE_A),  # text and HTML
    Record(id="b", text=TEXT, html=PAGE_B),  # the same text in another template
    Record(id="c", text=None, html=PAGE_A),  # HTML only: main text extracted
    Record(id="d", text=TEXT, html=PAGE_A),  # the same page again
    Record(id="e", text=TEXT),  # text only
]


def test_dedup_and_contentseen_sign_a_text_and_html_record_alike() -> None:
    fps = fingerprint_records(RECORDS, DedupConfig(workers=1))
    cs = ContentSeen("memory://")
    for i, rec in enumerate(RECORDS):
        assert cs.analyse(html=rec.html, text=rec.text).sig == fps.sigs.row_bytes(i), rec.id
    sigs, _ = page_signatures([(r.text, r.html) for r in RECORDS], DedupConfig().match)
    for i in range(len(RECORDS)):
        assert sigs.row_bytes(i) == fps.sigs.row_bytes(i)


def test_dedup_and_contentseen_give_the_same_kinds() -> None:
    rows = list(dedup_records(RECORDS, DedupConfig(workers=1)))
    cs = ContentSeen("memory://")
    verdicts = [cs.check(f"https://x.example/{r.id}", html=r.html, text=r.text).kind for r in RECORDS]
    dedup_kinds = ["new" if r["kind"] in ("first", "unique") else r["kind"] for r in rows]
    assert dedup_kinds == verdicts
    # the page is the exact key: the same text in another template is a content copy, not exact
    assert [r["kind"] for r in rows[:4]] == ["first", "content", "exact", "exact"]
    assert rows[1]["evidence"]["same_layout"] is False
