"""Main-text extraction and the layout features."""

from __future__ import annotations

import sys

import pytest
from _cs_articles import RIVER

from neardup.contentseen.extract import (
    EXTRACTORS,
    extract_main_text,
    layout_features,
    normalize_html,
    parse_page,
)
from neardup.contentseen.synth import TEMPLATES, render_page
from neardup.exceptions import ConfigError, MissingDependency

BOILERPLATE = ("网站地图", "热点排行", "版权所有", "dataLayer")


@pytest.mark.parametrize("template", TEMPLATES)
def test_contentseen_extract_keeps_article_drops_boilerplate(template: str) -> None:
    html = render_page(RIVER[0], RIVER[1], template=template, related=["热点新闻甲", "热点新闻乙"], seed=3)
    text = extract_main_text(html)
    for para in RIVER[1]:
        assert para in text
    for junk in BOILERPLATE:
        assert junk not in text


@pytest.mark.parametrize("extractor", ["resiliparse", "trafilatura", "readability"])
def test_contentseen_each_extractor_finds_the_article(extractor: str) -> None:
    html = render_page(RIVER[0], RIVER[1], template="portal", seed=1)
    text = extract_main_text(html, extractor)
    assert sum(p in text for p in RIVER[1]) >= 5
    assert "版权所有" not in text


def test_contentseen_extract_unknown_extractor() -> None:
    assert "justext" in EXTRACTORS
    with pytest.raises(ConfigError, match="one of resiliparse"):
        extract_main_text("<p>x</p>", "nope")


def test_contentseen_missing_extractor_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "resiliparse.extract.html2text", None)
    with pytest.raises(MissingDependency, match=r"neardup\[html\]"):
        extract_main_text("<p>hello</p>")


def test_contentseen_layout_features_ignore_text_scripts_and_comments() -> None:
    a = '<div class="nav x"><a>首页</a></div><script>if (a<b) {}</script><!-- <table> --><p>一</p>'
    b = '<div class="nav"><a>Home</a></div><p>completely different words here</p>'
    assert layout_features(a) == layout_features(b) == ("div.nav>a>p",)


def test_contentseen_normalize_html_collapses_whitespace_only() -> None:
    assert normalize_html("<p>a   b</p>\n\n<p>c</p>") == normalize_html("<p>a b</p><p>c</p>")
    assert normalize_html("<p>a</p>") != normalize_html("<p>A</p>")


def test_contentseen_parse_page_once() -> None:
    html = render_page(RIVER[0], RIVER[1], template="blog", seed=2)
    page = parse_page(html.encode("utf-8"))
    assert RIVER[1][0] in page.text and page.layout
