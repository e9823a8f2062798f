"""Documents as pages: what every front end signs for a document given as text, HTML or both.

A document is a ``(text, html)`` pair; ``read_page`` decides what is signed:

- HTML only: the main text is extracted (boilerplate removed) and signed;
- text and HTML: the given text is signed (the caller already extracted it);
- with HTML, the page also gives the layout signature (the template: tag paths of its blocks) and
  the exact key (the page as fetched, whitespace collapsed); without HTML the exact key is the text's.

``read_pages`` is the costly, Python-level half (HTML parsing): ``neardup dedup`` runs it in worker
processes and the Spark job in its executors, then ``page_signatures`` signs the pages in one batch
kernel. ``ContentSeen`` and ``neardup compare`` call ``page_signatures`` on the pages directly, so
a document gets the same signature whichever front end sees it.

>>> sigs, texts = page_signatures([("今天北京天气晴朗。", None), (None, "<p>今天北京天气晴朗。</p>")])
>>> texts[1] == texts[0], bool(sigs.content[0] == sigs.content[1]), sigs.has_layout.tolist()
(True, True, [False, True])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from neardup.match.config import MatchConfig
from neardup.match.signature import PreparedTexts, Signatures, prepare_texts

__all__ = ["Page", "has_html", "page_signatures", "prepare_pages", "read_page", "read_pages"]

#: a document as given: (text, html); either may be None, HTML as text or undecoded bytes
Item = tuple[str | None, str | bytes | None]


class Page(NamedTuple):
    """What is signed of one document."""

    text: str  # the text signed: the given text, or the page's main text
    raw: str | None  # the decoded page (its exact key), None without HTML
    layout: int | None  # the page's layout signature, None without HTML (or a page with no blocks)


def has_html(item: Item) -> bool:
    """Whether reading the item parses HTML (the part worth a worker process)."""
    return bool(item[1])


def read_page(text: str | None, html: str | bytes | None, extractor: str = "resiliparse") -> Page:
    """The page of one document; empty HTML counts as none.

    >>> read_page("正文", None)
    Page(text='正文', raw=None, layout=None)
    """
    if not html:
        return Page(text or "", None, None)
    from neardup.contentseen.extract import decode_html, extract_main_text, layout_signature

    page = decode_html(html)
    main = text if text else extract_main_text(page, extractor)
    return Page(main, page, layout_signature(page) or None)


def read_pages(items: Sequence[Item], extractor: str = "resiliparse") -> list[Page]:
    """``read_page`` of each item (picklable: a worker process's task)."""
    return [read_page(text, html, extractor) for text, html in items]


def page_signatures(
    items: Sequence[Item], config: MatchConfig | None = None, *, pages: Sequence[Page] | None = None
) -> tuple[Signatures, list[str]]:
    """Signatures of ``(text, html)`` items, and the texts signed.

    ``pages``: the items' ``read_pages`` when they were read elsewhere (worker processes).
    """
    prepared, texts = prepare_pages(items, config, pages=pages)
    return prepared.sign(), texts


def prepare_pages(
    items: Sequence[Item], config: MatchConfig | None = None, *, pages: Sequence[Page] | None = None
) -> tuple[PreparedTexts, list[str]]:
    """``page_signatures`` up to the signing: the items' texts read for it (``PreparedTexts.sign``
    signs them), and the texts."""
    cfg = config or MatchConfig()
    got = read_pages(items, cfg.extractor) if pages is None else pages
    if len(got) != len(items):
        raise ValueError(f"pages: expected one per item ({len(items)}), got {len(got)}")
    texts = [p.text for p in got]
    layouts = [p.layout for p in got]
    prepared = prepare_texts(
        texts,
        cfg,
        raw=[p.raw for p in got],
        layouts=layouts if any(lay is not None for lay in layouts) else None,
    )
    return prepared, texts
