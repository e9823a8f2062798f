"""What a crawler needs from a content check, in-process (``ContentSeen``) or remote (``Client``).

Both satisfy :class:`ContentChecker` structurally, so a caller (the Scrapy pipeline, a worker
script) builds one checker and never asks which kind it holds:

>>> from neardup.contentseen import ContentSeen
>>> checker: ContentChecker = ContentSeen("memory://")
>>> checker.check("https://a.example/1", text="长江是中华民族的母亲河，也是中华民族发展的重要支撑。").kind
'new'
>>> checker.close()

:func:`page_input` is the argument check both run before a page is sent or analysed.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, runtime_checkable

from neardup.contentseen.verdict import Verdict
from neardup.exceptions import InputError

__all__ = ["ContentChecker", "Html", "page_html", "page_input"]

Html: TypeAlias = (
    "str | bytes | None"  # a page as fetched: bytes are decoded by its declared or detected encoding
)


@runtime_checkable
class ContentChecker(Protocol):
    """A content seen-check: the verdict on a page, counts, and a way to let go of it.

    ``check`` answers as ``ContentSeen.check`` does (``add`` remembers the page; ``sync=False``
    leaves the fsync to a later group commit where the checker has a journal). ``stats`` gives
    the checker's counts; ``close`` flushes and frees it.
    """

    def check(
        self,
        url: str,
        html: Html = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
        date: Any = None,
    ) -> Verdict: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


def page_input(url: object, html: object, text: object) -> str | None:
    """Check what a caller gave ``check`` and return the HTML as text (bytes decoded by the page's
    declared or detected encoding), or None when only ``text`` was given.

    >>> page_input("https://a.example/1", b"<p>x</p>", None)
    '<p>x</p>'
    >>> page_input("https://a.example/1", None, None)
    Traceback (most recent call last):
    neardup.exceptions.InputError: give the page's html or its text (or both), got neither
    """
    if not isinstance(url, str):
        raise InputError(f"url must be a string, got {type(url).__name__}")
    return page_html(html, text)


def page_html(html: object, text: object) -> str | None:
    """:func:`page_input` without the URL (``ContentSeen.analyse`` takes none).

    >>> page_html("<p>x</p>", "x")
    '<p>x</p>'
    """
    if html is None and text is None:
        raise InputError("give the page's html or its text (or both), got neither")
    if html is not None and not isinstance(html, (str, bytes)):
        raise InputError(f"html must be str or bytes, got {type(html).__name__}")
    if text is not None and not isinstance(text, str):
        raise InputError(f"text must be a string, got {type(text).__name__}")
    if isinstance(html, bytes):
        from neardup.contentseen.extract import decode_html

        return decode_html(html)
    return html
