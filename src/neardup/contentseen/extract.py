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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from neardup._deps import require
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
    parse = require("resiliparse.parse.html", "html", purpose="main-text extraction")
    tree = parse.HTMLTree.parse(html)
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
    """
    text = _extractor(extractor)(decode_html(html))
    lines = (" ".join(line.split()) for line in text.splitlines())
    if prose_only:
        return "\n".join(line for line in lines if line and _is_prose(line))
    return "\n".join(line for line in lines if line)


def layout_features(html: str | bytes) -> tuple[str, ...]:
    """The page template as a set of 3-tag shingles over start tags with their first class.

    >>> layout_features('<div class="a b"><ul><li><a>x</a></li></ul></div>')
    ('div.a>ul>li', 'ul>li>a')
    """
    page = decode_html(html)
    tokens: list[str] = []
    search = _TAG_OR_COMMENT.search
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
            end = page.find(f"</{tag}", pos)
            if end < 0:
                end = page.lower().find(f"</{tag}", pos)
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
    tokens = [t for i, t in enumerate(tokens) if i == 0 or t != tokens[i - 1]]
    if len(tokens) < 3:
        return tuple(dict.fromkeys(tokens))
    return tuple(
        dict.fromkeys(f"{a}>{b}>{c}" for a, b, c in zip(tokens, tokens[1:], tokens[2:], strict=False))
    )


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
