"""What parsing a page may cost, counted on what the parsers themselves do.

Main-text extraction walks the DOM that Resiliparse's parser (lexbor) builds; two things make it
slow: a deep tree (extractors cost time quadratic in depth: 40,000 levels took 17 s) and an
element with very many attributes (lexbor checks each new attribute against the element's others:
one ``<div>`` with 100,000 attributes took minutes to *parse*). A guess at nesting made by a
separate scanner is easy to fool (``<div/>`` nests in HTML, so does what follows ``<!-->`` or a
stray end tag), so the budget is counted by the parsers:

1. attributes per element and start tags, by libxml2's HTML5 tokenizer (lxml, linear in the size
   of a tag), stopping at the first element over the limit, before lexbor sees the page;
2. depth and elements on the tree lexbor built, by two selector queries in C (a chain of
   ``max_depth + 1`` child combinators finds any element that deep), before extraction walks it.

A page over budget raises :class:`~neardup.exceptions.InputError` (the service answers 422).

>>> try:
...     check_html("<html><body>" + "<div/>" * 600 + "</body></html>", HtmlBudget(max_depth=512))
... except InputError as refused:
...     print(str(refused).split(";")[0])
the page nests elements over 512 levels deep
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any

from neardup._deps import require
from neardup.exceptions import ConfigError, InputError

__all__ = ["DEFAULT_BUDGET", "HtmlBudget", "budget_scope", "check_html", "current_budget", "parse_html"]


@dataclass(frozen=True)
class HtmlBudget:
    """Bounds on one page's parse tree; 0 turns a bound off.

    max_depth: deepest element (Chromium's parser stops nesting at 512 too). max_elements: elements
    in the tree and start tags in the source (real pages: a few thousand; 100,000 is a 2 MB page of
    nothing but tags). max_attributes: attributes on one element (real pages: under 50).
    """

    max_depth: int = 512
    max_elements: int = 100_000
    max_attributes: int = 1_000

    def __post_init__(self) -> None:
        for name in ("max_depth", "max_elements", "max_attributes"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= 100_000_000:
                raise ConfigError(
                    f"{name} must be a whole number between 0 (no limit) and 1e8, got {value!r}"
                )


DEFAULT_BUDGET = HtmlBudget()
_BUDGET: ContextVar[HtmlBudget] = ContextVar("neardup_html_budget", default=DEFAULT_BUDGET)


def current_budget() -> HtmlBudget:
    """The budget extraction applies here (:data:`DEFAULT_BUDGET` unless set by :func:`budget_scope`)."""
    return _BUDGET.get()


@contextmanager
def budget_scope(budget: HtmlBudget) -> Iterator[HtmlBudget]:
    """Apply ``budget`` to every page extracted inside the ``with`` block (this thread or task)."""
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def _refuse(what: str) -> InputError:
    return InputError(
        f"{what}; such pages cost minutes to parse or extract and are refused: send its main text as 'text' instead"
    )


_MAX_OPEN = 256  # libxml2's own limit on nesting, unless told to parse huge documents
_FEED = 1 << 16


class _TagCounter:
    """An lxml parser target that counts start tags and stops at the first one over budget."""

    def __init__(self, budget: HtmlBudget) -> None:
        self.max_attributes = budget.max_attributes or None
        self.max_elements = budget.max_elements or None
        # libxml2 looks an end tag up in its stack of open elements: stray end tags cost it time
        # linear in its depth (400,000 of them at depth 500 took 4 s, at 250 1 s), so its own
        # depth is bounded too, at 256 unless the depth limit is raised past 512. It nests
        # differently from lexbor: a page it nests this deep is refused whatever lexbor would do
        # (unclosed inline tags, 257 to 512 deep, are the rare real pages this refuses)
        depth = budget.max_depth
        self.max_open = (_MAX_OPEN if depth <= 512 else depth) if depth else None
        self.tags = 0
        self.open = 0
        self.over: str | None = None  # why the page is over budget

    def start(self, tag: str, attrib: Any) -> None:
        if self.over is not None:
            return
        self.tags += 1
        self.open += 1
        if self.max_open is not None and self.open > self.max_open:
            self.over = f"the page nests elements over {self.max_open} levels deep (as libxml2 parses it)"
        elif self.max_attributes is not None and len(attrib) > self.max_attributes:
            self.over = (
                f"an element <{tag[:40]}> has {len(attrib)} attributes (the limit is {self.max_attributes})"
            )
        elif self.max_elements is not None and self.tags > self.max_elements:
            self.over = f"the page has over {self.max_elements} elements"

    def end(self, tag: str) -> None:
        self.open -= 1

    def close(self) -> int:
        return self.tags


def _check_tokens(html: str, budget: HtmlBudget) -> None:
    if not budget.max_attributes and not budget.max_elements and not budget.max_depth:
        return
    etree = require("lxml.etree", "html", purpose="the HTML budget")
    counter = _TagCounter(budget)
    parser = etree.HTMLParser(target=counter, huge_tree=True, recover=True, no_network=True)
    try:
        # in pieces: libxml2 parses on to the end of what it was fed, whatever the target says
        for i in range(0, len(html), _FEED):
            parser.feed(html[i : i + _FEED])
            if counter.over is not None:
                break
        else:
            parser.close()
    except etree.Error:  # what the tokenizer could not read at all, lexbor reads its own way
        pass
    if counter.over is not None:
        raise _refuse(counter.over)


@cache
def _deeper_than(depth: int) -> str:
    return " > ".join(["*"] * (depth + 1))


def _check_tree(tree: Any, budget: HtmlBudget) -> None:
    doc = tree.document
    if budget.max_depth and doc.query_selector(_deeper_than(budget.max_depth)) is not None:
        raise _refuse(f"the page nests elements over {budget.max_depth} levels deep")
    if budget.max_elements:
        n = len(doc.query_selector_all("*"))
        if n > budget.max_elements:
            raise _refuse(f"the page has {n} elements (the limit is {budget.max_elements})")


def _valid_unicode(html: str) -> str:
    """``html`` with its lone surrogates (text decoded with ``errors="surrogateescape"``) as U+FFFD,
    as a browser shows bytes it cannot decode; the parsers take only valid Unicode.

    >>> _valid_unicode("a\\udcff b") == "a\\ufffd b"
    True
    """
    if html.isascii():
        return html
    try:
        html.encode("utf-8")
    except UnicodeEncodeError:
        return html.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return html


def parse_html(html: str, budget: HtmlBudget | None = None) -> Any:
    """Resiliparse's ``HTMLTree`` of ``html``, within ``budget`` (default: :func:`current_budget`).

    Raises InputError when the page is over budget, before the costly step.
    """
    budget = current_budget() if budget is None else budget
    parse = require("resiliparse.parse.html", "html", purpose="HTML parsing")
    html = _valid_unicode(html)
    if "<" not in html:
        return parse.HTMLTree.parse(html)
    _check_tokens(html, budget)
    tree = parse.HTMLTree.parse(html)
    _check_tree(tree, budget)
    return tree


def check_html(html: str | None, budget: HtmlBudget | None = None) -> None:
    """Raise InputError when ``html`` is over ``budget`` (parses it once)."""
    if html:
        parse_html(html, budget)
