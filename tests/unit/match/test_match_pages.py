"""What is signed of a document given as text, HTML or both (``neardup.match.pages``)."""

from __future__ import annotations

import pytest

from neardup.match import MatchConfig, exact_key, page_signatures, read_pages
from neardup.match.pages import read_page

pytest.importorskip("resiliparse")

BODY = "这是一篇用于测试的新闻正文，内容足够长，可以被抽取出来作为主要文本。" * 3
PAGE = f"<html><body><nav>首页</nav><article><p>{BODY}</p></article></body></html>"


def test_text_only_is_signed_as_given_with_no_layout() -> None:
    assert read_page(BODY, None) == (BODY, None, None)
    assert read_page(BODY, "") == (BODY, None, None)  # empty HTML counts as none


def test_html_only_signs_the_main_text_and_keeps_the_page_and_its_layout() -> None:
    page = read_page(None, PAGE)
    assert BODY[:20] in page.text and "首页" not in page.text
    assert page.raw == PAGE and page.layout is not None


def test_text_with_html_signs_the_text_and_takes_exact_key_and_layout_from_the_page() -> None:
    page = read_page("给定的正文。", PAGE)
    assert page.text == "给定的正文。" and page.raw == PAGE and page.layout == read_page(None, PAGE).layout
    sigs, texts = page_signatures([("给定的正文。", PAGE)])
    assert texts == ["给定的正文。"] and int(sigs.exact[0]) == exact_key(PAGE) and bool(sigs.has_layout[0])


def test_pages_read_elsewhere_give_the_same_signatures() -> None:
    items = [(None, PAGE), (BODY, None), (BODY, PAGE.encode("utf-8"))]
    cfg = MatchConfig()
    direct, _ = page_signatures(items, cfg)
    split, _ = page_signatures(items, cfg, pages=read_pages(items, cfg.extractor))
    assert [direct.row_bytes(i) for i in range(3)] == [split.row_bytes(i) for i in range(3)]
    with pytest.raises(ValueError, match="one per item"):
        page_signatures(items, cfg, pages=read_pages(items[:1]))
