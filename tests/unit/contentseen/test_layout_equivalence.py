"""layout_features (one findall and a token cache) gives what the plain loop gives, exactly.

The reference is extract._layout_tokens_scan (one regex search per start tag in a Python loop, the
fallback layout_features takes on pages its findall cannot finish), shingled here the plain way.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.contentseen import extract
from neardup.contentseen.extract import layout_features
from neardup.contentseen.synth import TEMPLATES, render_page


def _reference_layout_features(page: str) -> tuple[str, ...]:
    """The 3-tag shingles of the one-search-per-tag loop (extract._layout_tokens_scan), in order."""
    tags = extract._layout_tokens_scan(page)
    grams = tags if len(tags) < 3 else [">".join(tags[i : i + 3]) for i in range(len(tags) - 2)]
    return tuple(dict.fromkeys(grams))


def _check(page: str) -> None:
    want = _reference_layout_features(page)
    assert layout_features(page) == want
    assert layout_features(page) == want  # again, with the tags of the page now in the cache


MALFORMED = [
    "",
    "plain text, no tags",
    "<",
    ">",
    "<>",
    "< div>",
    "<div",
    "<div class='a'",
    "a < b and c > d <p>x",
    "<!DOCTYPE html><html><body><p>x</p></body></html>",
    "<!doctype html><div><p>a</p></div>",
    "<p>a</p></p></div><p>b",
    "</p></div></span>",
    # comments
    "<!-- <div class='x'> --><ul><li><a>x</a></li></ul>",
    "<div><!-- unclosed <p><a><b>",
    "<div><!--><p>after</p>--><ul>",
    "<div><!---><p>inside</p>--><ul>",
    "<!----><div><p><a>",
    "<div><!-- a --- b --><ul><li>",
    "<div><!-- --!><p></p> --><a><li>",
    "<div title='<!--'><p><a></a></p></div>",
    "<!--<script>--><p><a><div>",
    "<!--[if lt IE 9]><script src=x></script><![endif]--><div><ul><li>",
    # raw-text elements
    "<script>var a = '<div class=x>';</script><ul><li><a>",
    "<script><p>never closed <div><ul><li>",
    "<SCRIPT>if (a<b) {}</script><div><p><a>",
    "<SCRIPT>x</SCRIPT><div><p><a></a></p></div>",
    "<script>x</SCRIPT><div><p><a></a></p></div><script>y</script><ul><li>",
    "<Script type=text/javascript>x</sCrIpT><nav><ul><li>",
    "<script>a</script ><div><p></p><ul>",
    "<script/>x</script><div><p><a>",
    "<scripts><div><p><a>",
    "<script-x><div><p><a>",
    "<style>p{}</style><div><p><a>",
    "<style>a>b{}</style><div><p><a>",
    "<noscript><img src=x></noscript><div><p><a>",
    "<template><div class=t></div></template><main><p><a>",
    "<textarea><p>typed</p></textarea><form><p><a>",
    "<TEXTAREA>x</TextArea><form><p><a>",
    "<div data-x='<script>'><p><a></a></p></div><ul><li>",
    "<script>x</scriptx><div><p><a>",
    "<style>x<style>y</style><div><p><a>",
    "<script>document.write('<script src=x>');</script><div><p><a>",
    "<script>a<SCRIPT>b</script><div><p><a>",
    "<div>" + "<script><p>" * 50,
    "<div>" + "<SCRIPT>x</SCRIPT><p>" * 50,
    "<div>" + "<style>" * 50 + "<p><a>",
    "<ul>" + "<li><script>x</script><a>" * 20,
    "<noscript><template><textarea></textarea></template></noscript><div><p><a>",
    # raw-text bodies with more "<" than the regex skips: str.find takes over (or the loop does)
    "<div><script>" + "a<b;" * 100 + "</script><ul><li><a>x</a></li></ul>",
    "<div><script>" + "a<b;" * 65 + "</script><ul><li><a>x</a></li></ul><!-- end -->",
    "<div><style>" + "x<y" * 70 + "</style><ul><li><a>x</a></li></ul><!-- a --><!-- b",
    "<div>" + ("<script>" + "a<b;" * 70 + "</script><p><a></a>") * 3 + "<ul><li>",
    "<div>" + ("<script>" + "a<b;" * 70 + "</script><p><a></a>") * 7 + "<ul><li>",
    "<div><script>" + "a<b;" * 70 + "<p><a><ul><li>",
    "<div><script>" + "a<b;" * 70 + "</SCRIPT><p><a><ul><li>",
    "<div><SCRIPT>" + "a<b;" * 70 + "</script><p><a><ul><li>",
    "<div><script>" + "a<b;" * 70 + "</script",
    "<div><script>" + "a<b" * 70,
    "<div><script>" + "a<b;" * 70 + "</script>x<!-- tail",
    "İ<div><script>" + "a<b;" * 70 + "</SCRİPT></script><p><a>",
    # "İ" lowercases to two characters: page.lower() is longer than the page
    "İİİ<SCRIPT>x</SCRIPT><div><p><a><ul><li>",
    "<SCRIPT>İİİİ</SCRIPT><div><p><a><ul><li>",
    "<div>İ</div><script>x</SCRİPT><p><a><li>",
    "İ<style>x</STYLE>İİ<div><p><a><ul><li><nav>",
    "<p>İ</p><script>ok</script><div><p><a><li>",
    # uppercase tags and attributes, class forms
    "<DIV CLASS='Main Wide'><UL><LI><A HREF=x>y</A></LI></UL></DIV>",
    '<div class="a b"><ul><li><a>x</a></li></ul></div>',
    "<div class='a b'><p><a>",
    "<div class=a><p><a>",
    '<div class="  lead"><p><a>',
    "<div class='  lead '><p><a>",
    '<div class = " spaced"><p><a>',
    '<div class=""><p><a>',
    "<div class=''><p><a>",
    '<div class=" "><p><a>',
    "<div class=><p><a>",
    "<div class><p><a>",
    '<div Class="c1"><p><a>',
    '<div cLASS="c2"><p><a>',
    '<div clASS="c3"><p><a>',
    '<div cLass="c4"><p><a>',
    '<div claſs="c5" lass><p><a>',
    '<div data-class="d" class="e"><p><a>',
    '<div subclass="s" class="e"><p><a>',
    '<div class="x" class="y"><p><a>',
    '<div id="a" class="late"><p><a>',
    '<div class="it\'s"><p><a>',
    "<div class='say \"hi\"'><p><a>",
    '<div class="a>b"><p><a>',
    "<div title='x>y' class=z><p><a>",
    '<div class="a<b"><p><a>',
    "<div class=a=b><p><a>",
    '<div class="x"\nid=1><p><a>',
    "<div\nclass=nl><p><a>",
    "<div\tclass=tab><p><a>",
    "<div/class=slash><p><a>",
    '<div class="\u3000x"><p><a>',
    '<div class="x\u3000y"><p><a>',
    "<glass class=g><p><a>",
    "<class><p><a>",
    "<div lass=1><p><a>",
    "<div LASS=1 class=u><p><a>",
    # names and skipped tags
    "<DiV><Ul><Li><A>",
    "<my-widget><x-y class=k><p><a>",
    "<h1><h2><h3><h1><h2><h3>",
    "<p><span><p><b><p><i><p>",
    "<p><br><p><br/><p>",
    "<div><span class=s><a><span><li>",
    "<html><head><title>t</title><meta charset=utf-8><link rel=x></head><body><p><a>",
    "<li><a href='/1'>1</a></li>" * 30 + "<p>",
    "<li><a href=1>" * 7 + "<li><a href=2><img>" * 5 + "<p>",
    "<tr><td><td><tr><td>" * 4,
    "<a><b><a><b><a><c><a>",
    "<a><c><a><c><a><c><a><c><a><p><a><c><a><c>",
    "<x><y><x><y><x><y><z><x><y><x><y>",
]


@pytest.mark.parametrize("page", MALFORMED)
def test_layout_features_malformed_html_as_before(page: str) -> None:
    _check(page)


_TEXTS = {
    "en": (
        "Rain closes the river road",
        [
            "The river rose overnight. Roads are closed.",
            "Crews expect to reopen them tomorrow, weather allowing.",
        ],
    ),
    "zh": (
        "秋粮收购进度过半",
        ["各地秋粮收购进度过半，价格总体平稳。", "粮食部门表示，将继续做好收购工作。"],
    ),
}


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("lang", sorted(_TEXTS))
def test_layout_features_synth_pages_as_before(template: str, lang: str) -> None:
    title, paras = _TEXTS[lang]
    for seed in range(3):
        page = render_page(title, paras * (seed + 1), template=template, related=[title, "x"], seed=seed)
        _check(page)
        _check(page.upper())  # uppercase tags, attributes and raw-text closes
        _check(page.replace("</script>", "</SCRIPT>"))
        _check(page.replace("<script>", "<script>var s = '<div class=z>';"))
        _check(page.replace("<body", "<!-- <div class=c> --><body"))
        _check(page.replace('class="', "class='").replace('">', "'>"))


def test_layout_features_cache_stays_bounded() -> None:
    n = extract._TAG_TOKENS_MAX + 100
    page = "".join(f'<li class="c{i}"><a href="/{i}">{i}</a></li>' for i in range(n))
    _check(page)
    assert len(extract._TAG_TOKENS) <= extract._TAG_TOKENS_MAX
    _check("<div class='z'><p>" + "x" * 300 + "<div class='" + "y" * 300 + "'><p><a>")


_FRAGMENTS = [
    "<",
    ">",
    "</",
    "/>",
    "<!--",
    "-->",
    "-",
    "!",
    "=",
    '"',
    "'",
    " ",
    "\n",
    "x",
    "İ",
    "ſ",
    "\u3000",
    "div",
    "DIV",
    "li",
    "a",
    "p",
    "span",
    "b",
    "ul",
    "script",
    "SCRIPT",
    "Script",
    "style",
    "noscript",
    "template",
    "textarea",
    "class",
    "CLASS",
    "Class",
    "cLASS",
    "clASS",
    "lass",
    "LASS",
    " class=",
    " class='q r'",
    ' class=" k"',
    " class=v",
    " href=/x",
    "<li>",
    "<a href=1>",
    "<li><a>",
    "<p>",
    "</p>",
    "<div class=d>",
    "<script>",
    "</script>",
    "</SCRIPT>",
    "<style>",
    "</style>",
    "<!DOCTYPE html>",
]


_LONG_BODIES = st.integers(60, 80).map(lambda n: "<script>" + "a<b;" * n)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join))
def test_layout_features_tag_soup_as_before(page: str) -> None:
    _check(page)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), _LONG_BODIES), max_size=30).map("".join))
def test_layout_features_tag_soup_with_long_raw_text_as_before(page: str) -> None:
    _check(page)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=6)), max_size=30).map("".join))
def test_layout_features_tag_soup_with_any_text_as_before(page: str) -> None:
    _check(page)
