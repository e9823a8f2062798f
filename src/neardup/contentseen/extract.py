"""Main text of a web page, and a signature of its template (layout).

Main text comes from Resiliparse's main-content extraction by default (the fastest of the
extractors measured in docs/contentseen.md, within a point of the most accurate one); Trafilatura
and readability-lxml can be chosen with ``extractor=``. All live behind the ``html`` extra.

The layout signature is a 64-bit SimHash over the page's *structure*: the sequence of start tags
with their first class name (``div.sidebar``, ``li``, ``a``), text removed, taken as a set of
3-tag shingles. Two pages of one site template land within a few bits of each other whatever
their articles say; pages of different templates land far apart.

>>> html = "<html><body><nav><a href='/'>Home</a></nav><p>Hello world. It rains today.</p></body></html>"
>>> "Hello world" in extract_main_text(html)
True
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from neardup._deps import require
from neardup.contentseen.budget import check_html, parse_html
from neardup.exceptions import ConfigError
from neardup.fingerprint.simhash import simhash_from_features

__all__ = [
    "EXTRACTORS",
    "Extractor",
    "Page",
    "decode_html",
    "extract_main_text",
    "layout_features",
    "layout_signature",
    "normalize_html",
    "parse_page",
]

Extractor = Literal["resiliparse", "trafilatura", "readability", "justext"]
EXTRACTORS: tuple[str, ...] = ("resiliparse", "trafilatura", "readability", "justext")

# a line is prose when it has a sentence or clause mark (Chinese anywhere, Latin before a space or
# the end, so "example.com" is not) or is long; link rows, crumbs, dates and titles are not
_PROSE = re.compile(r"[。！？；，、]|[.!?;,](?:\s|$)")
_LONG_LINE = 100
_BETWEEN_TAGS = re.compile(r">\s+<")
_TAG_OR_COMMENT = re.compile(r"<(?:([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|!--)")
_RAW_TEXT_TAGS = frozenset({"script", "style", "noscript", "template", "textarea"})
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"\s*([^"\s]*)|'\s*([^'\s]*)|([^\s>"']+))""", re.I)
_LAYOUT_SKIP_TAGS = frozenset(
    {
        "html",
        "head",
        "meta",
        "link",
        "title",
        "br",
        "wbr",
        "b",
        "i",
        "em",
        "strong",
        "span",
        "font",
        "u",
        "small",
        "sup",
        "sub",
    }
)


# layout_features scans a page with findall of _LAYOUT_SCAN, which stops where the loop of
# _layout_tokens_scan stops, in the same order: at a comment (to its "-->" or the page's end), at a
# raw-text element up to its exact "</script" (whose body may hold "<b"), or at a start tag, whose
# text (name and attributes, up to the first ">" even inside quotes) is the one group.
#
# The regex engine spends ~0.1 us on each "<" of a body (str.find does not), so the regex skips a
# raw-text body only when it holds at most _RAW_BODY_LT + 1 "<". Past that, the group is the start
# tag and all the rest of the page up to its last ">", which ends the findall; layout_features then
# finds the close with str.find and scans on after it. Each such body copies the rest of the page:
# past _RAW_RESUMES of them, or for a raw-text element without an exact lowercase close (or one
# matched as a plain start tag, when no ">" follows it), the page is redone by _layout_tokens_scan,
# whose "</SCRIPT" fallback looks in page.lower(), a string that "İ" makes longer than the page.
_NAME_CHARS = string.ascii_letters + string.digits + "-"
_RAW_MARK = "<"  # the token of a raw-text start tag; no layout token is "<"
_RAW_BODY_LT = 64
_RAW_RESUMES = 4


def _ascii_nocase(s: str) -> str:
    return "".join(f"[{c}{c.upper()}]" for c in s)


def _raw_text_start(tag: str) -> str:
    # <script ...> after its "s", which the caller matched (the lookbehind tells which element it
    # was): the name in any ASCII case and not longer, then up to the first ">"
    return rf"(?<=[{tag[0]}{tag[0].upper()}]){_ascii_nocase(tag[1:])}(?![a-zA-Z0-9-])[^>]*>"


def _raw_text_body(tag: str) -> str:
    # up to the first "</script", if at most _RAW_BODY_LT + 1 other "<" come before it. Each [^<]*
    # is followed by a "<", so that the engine gives up on a longer body (or one without a close)
    # by scanning back for a "<", not by trying every place in it
    other = rf"<(?!/{tag})"
    return rf"[^<]*<(?:(?!/{tag})(?:[^<]*{other}){{0,{_RAW_BODY_LT}}}[^<]*<)?/{tag}"


# the alternatives for raw-text elements start with a set of first letters, which the regex engine
# tests before entering them (a lookahead would be entered at every tag); so does the group's
_RAW_FIRST = "".join(sorted({c for t in _RAW_TEXT_TAGS for c in (t[0], t[0].upper())}))
_OTHER_FIRST = "".join(sorted(set(string.ascii_letters) - set(_RAW_FIRST)))
_RAW_STARTS = "|".join(_raw_text_start(t) for t in sorted(_RAW_TEXT_TAGS))
_LAYOUT_SCAN = re.compile(
    # a comment: up to the first ">" that ends a "-->" after the "<!--" (or the page's end), one
    # step per ">" (not per "-"); a ">" or "->" right after the "<!--" ends none
    r"<(?:!--(?:>|->)?(?:[^>]*>(?<!-->))*(?:[^>]*>(?<=-->)|[^>]*)"
    + f"|[{_RAW_FIRST}](?:"
    + "|".join(_raw_text_start(t) + _raw_text_body(t) for t in sorted(_RAW_TEXT_TAGS))
    + ")"  # a raw-text element
    + f"|((?:[{_OTHER_FIRST}][^>]*|[{_RAW_FIRST}](?:(?:{_RAW_STARTS})(?s:.*)|[^>]*)))>)"  # a start tag
)
# start-tag text -> its token ("" for a tag left out), filled by _tag_token; the same tags recur
# within and across pages, so most tags cost one dict lookup. Also keyed by a tag's text before its
# first "=" ('a href'), which gives the token of any tag with that start and no "lass"/"LASS" in it
# (the token is then the name's, and the name ends before the "="). Raw-text tags are left out, so
# they always reach _tag_token. Bounded: cleared when full.
_TAG_TOKENS: dict[str, str] = {"": ""}
_TAG_TOKENS_MAX = 4096
_TAG_TOKENS_KEY_MAX = 256


@dataclass(frozen=True)
class Page:
    """What ContentSeen reads from one page: main text and layout features."""

    text: str
    layout: tuple[str, ...]


def decode_html(html: str | bytes) -> str:
    """Bytes to text, detecting the encoding (meta charset, BOM, content) like a browser does."""
    if isinstance(html, str):
        return html
    enc = require("resiliparse.parse.encoding", "html", purpose="HTML decoding")
    return str(enc.bytes_to_str(html, enc.detect_encoding(html)))


def normalize_html(html: str | bytes) -> str:
    """The page with runs of whitespace collapsed, the form hashed for the ``exact`` kind.

    >>> normalize_html("<p>a \\n b</p>\\n  <p>c</p>")
    '<p>a b</p><p>c</p>'
    """
    return _BETWEEN_TAGS.sub("><", " ".join(decode_html(html).split()))


def _resiliparse(html: str) -> str:
    h2t = require("resiliparse.extract.html2text", "html", purpose="main-text extraction")
    tree = parse_html(html)  # within the HTML budget: refused before a costly parse or walk
    return str(
        h2t.extract_plain_text(
            tree, main_content=True, alt_texts=False, links=False, list_bullets=False, noscript=False
        )
    )


def _trafilatura(html: str) -> str:
    trafilatura = require("trafilatura", "html", purpose="main-text extraction")
    return str(trafilatura.extract(html, include_comments=False, include_tables=True, fast=True) or "")


def _readability(html: str) -> str:
    readability = require("readability", "html", purpose="main-text extraction")
    lxml_html = require("lxml.html", "html", purpose="main-text extraction")
    summary = readability.Document(html).summary(html_partial=True)
    if not summary.strip():
        return ""
    root = lxml_html.fromstring(summary)
    blocks = [el.text_content().strip() for el in root.iter("p", "li", "h1", "h2", "h3", "pre", "td")]
    return "\n".join(b for b in blocks if b) or str(root.text_content())


def _justext(html: str) -> str:
    justext = require("justext", "html", purpose="main-text extraction")
    # jusText needs a stop-word list; it has none for Chinese, where it keeps almost nothing
    paragraphs = justext.justext(html.encode("utf-8"), justext.get_stoplist("English"))
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)


@cache
def _extractor(name: str) -> Callable[[str], str]:
    table: dict[str, Callable[[str], str]] = {
        "resiliparse": _resiliparse,
        "trafilatura": _trafilatura,
        "readability": _readability,
        "justext": _justext,
    }
    if name not in table:
        raise ConfigError(f"extractor must be one of {', '.join(EXTRACTORS)}, got {name!r}")
    return table[name]


def check_extractor(name: str) -> None:
    """Raise ConfigError for an unknown extractor, MissingDependency when its package is absent."""
    _extractor(name)
    module = {
        "resiliparse": "resiliparse.extract.html2text",
        "trafilatura": "trafilatura",
        "readability": "readability",
        "justext": "justext",
    }[name]
    require(module, "html", purpose=f"main-text extraction with {name}")


def _is_prose(line: str) -> bool:
    return len(line) >= _LONG_LINE or _PROSE.search(line) is not None


def extract_main_text(html: str | bytes, extractor: str = "resiliparse", *, prose_only: bool = True) -> str:
    """The page's main text (article body), without navigation, sidebars, ads and footers.

    Paragraphs are separated by newlines; whitespace inside a paragraph is collapsed. With
    ``prose_only`` (default) lines that hold no sentence are dropped as well: link rows, bread
    crumbs, dates and bylines an extractor let through, and the title (so one article in two
    templates, with or without a headline in the extracted block, gives the same text).

    A page over the HTML budget (``neardup.contentseen.budget``: too deep, too many elements or
    attributes) raises InputError before the costly step.
    """
    page = decode_html(html)
    if extractor != "resiliparse":
        check_html(page)  # the budget, on the tree Resiliparse builds (it parses the page its own way)
    text = _extractor(extractor)(page)
    lines = (" ".join(line.split()) for line in text.splitlines())
    if prose_only:
        return "\n".join(line for line in lines if line and _is_prose(line))
    return "\n".join(line for line in lines if line)


def _tag_token(tag: str) -> str:
    """The token of a start tag's text (name and attributes), remembered in _TAG_TOKENS."""
    n = len(tag) - len(tag.lstrip(_NAME_CHARS))
    name = tag[:n].lower()
    if name in _RAW_TEXT_TAGS:
        return _RAW_MARK
    attrs = tag[n:]
    gated = "lass" in tag or "LASS" in tag
    if name in _LAYOUT_SKIP_TAGS:
        tok = name = ""
    else:
        c = _CLASS.search(attrs) if "lass" in attrs or "LASS" in attrs else None
        cls = (c.group(1) or c.group(2) or c.group(3)) if c else None
        tok = f"{name}.{cls}" if cls else name
    if len(tag) <= _TAG_TOKENS_KEY_MAX:
        if len(_TAG_TOKENS) >= _TAG_TOKENS_MAX:
            _TAG_TOKENS.clear()
            _TAG_TOKENS[""] = ""
        _TAG_TOKENS[tag] = tok
        if not gated:
            _TAG_TOKENS[tag.partition("=")[0]] = name
    return tok


def _layout_tokens_scan(page: str) -> list[str]:
    """The start-tag tokens of a page, one regex search per tag (see _LAYOUT_SCAN for the fast way)."""
    tokens: list[str] = []
    search = _TAG_OR_COMMENT.search
    lowered = ""  # page.lower(), made once
    no_close: set[str] = set()  # raw-text tags with no exact close after pos (pos only grows)
    pos = 0
    while True:
        m = search(page, pos)
        if m is None:
            break
        pos = m.end()
        tag = m.group(1)
        if tag is None:  # a comment: skip to its end
            end = page.find("-->", pos)
            pos = len(page) if end < 0 else end + 3
            continue
        tag = tag.lower()
        if tag in _RAW_TEXT_TAGS:  # script/style bodies hold no layout (and may hold "<b")
            end = -1 if tag in no_close else page.find(f"</{tag}", pos)
            if end < 0:
                no_close.add(tag)
                lowered = lowered or page.lower()
                end = lowered.find(f"</{tag}", pos)
            pos = len(page) if end < 0 else end
            continue
        if tag in _LAYOUT_SKIP_TAGS:
            continue
        attrs = m.group(2)
        c = _CLASS.search(attrs) if "lass" in attrs or "LASS" in attrs else None
        cls = (c.group(1) or c.group(2) or c.group(3)) if c else None
        tokens.append(f"{tag}.{cls}" if cls else tag)
    # runs of one tag (p p p: the paragraphs of an article) count once, so pages of one template
    # with short and long articles give the same sequence
    return [t for i, t in enumerate(tokens) if i == 0 or t != tokens[i - 1]]


def _after_raw_text(page: str, rest: str) -> int:
    """Where the scan goes on after a raw-text element that _LAYOUT_SCAN matched with the rest of
    the page (rest: from its name to the page's last ">"): after its exact close, or -1 for none."""
    gt = page.rfind(">") - len(rest) + rest.index(">")
    close_tag = "</" + rest[: len(rest) - len(rest.lstrip(_NAME_CHARS))].lower()
    close = page.find(close_tag, gt + 1)
    return -1 if close < 0 else close + len(close_tag)


def layout_features(html: str | bytes) -> tuple[str, ...]:
    """The page template as a set of 3-tag shingles over start tags with their first class.

    >>> layout_features('<div class="a b"><ul><li><a>x</a></li></ul></div>')
    ('div.a>ul>li', 'ul>li>a')
    """
    page = decode_html(html)
    tokens: list[str] = []
    append = tokens.append
    known = _TAG_TOKENS.get
    last = prev = ""  # tokens[-1], tokens[-2]
    run = 0  # how many of the last tokens repeat the one two before (x y x y x: 3)
    start = 0
    # no start tag matches after the page's last ">" (only comments, which add nothing), so the scan
    # stops there: else each "<a" of a tail without ">" would scan to the page's end
    end = page.rfind(">") + 1
    for _ in range(_RAW_RESUMES + 1):
        tags = _LAYOUT_SCAN.findall(page, start, end)
        while tags and not tags[-1]:  # comments and raw-text elements add nothing
            tags.pop()
        # the last match may be a raw-text element with a long body and the rest of the page
        rest: str | None = tags.pop() if tags and ">" in tags[-1] else ""
        for tag in tags:
            tok = known(tag)
            if tok is None:
                if "lass" not in tag and "LASS" not in tag:  # no class: the token is the name's
                    tok = known(tag.partition("=")[0])
                if tok is None:
                    tok = _tag_token(tag)
                    if tok == _RAW_MARK:  # a raw-text element without an exact "</script"
                        rest = None
                        break
            # runs of one tag (p p p: the paragraphs of an article) count once, so pages of one
            # template with short and long articles give the same sequence
            if tok != last and tok:
                if tok != prev:
                    append(tok)
                    prev, last, run = last, tok, 0
                elif run < 3:
                    append(tok)
                    prev, last, run = last, tok, run + 1
                else:
                    # x y x y x, then y: a run of two tags in turn (li a li a: a menu) keeps two
                    # rounds, x y x y. The shingles this drops (x>y>x, y>x>y) are repeats of ones
                    # kept before them, and the run still ends in x y, so the shingles after it
                    # are the same too
                    tokens.pop()
                    prev, last, run = last, prev, 2
        if not rest:
            break
        start = _after_raw_text(page, rest)
        if start < 0:
            rest = None
            break
    else:
        rest = None  # more long raw-text bodies than _RAW_RESUMES
    if rest is None:
        tokens = _layout_tokens_scan(page)
    if len(tokens) < 3:
        return tuple(tokens)
    # no token holds ">", so distinct tuples give distinct shingles
    return tuple(map(">".join, dict.fromkeys(zip(tokens, tokens[1:], tokens[2:], strict=False))))


def layout_signature(html: str | bytes | tuple[str, ...], *, bits: int = 64, hash: str = "xxh3") -> int:
    """A SimHash of :func:`layout_features` (each shingle weighs 1); 0 for a page without tags."""
    feats = html if isinstance(html, tuple) else layout_features(html)
    if not feats:
        return 0
    return simhash_from_features([(f, 1.0) for f in feats], bits=bits, hash=hash)


def parse_page(html: str | bytes, extractor: str = "resiliparse") -> Page:
    """Main text and layout features of a page, decoding it once."""
    text = decode_html(html)
    return Page(extract_main_text(text, extractor), layout_features(text))
