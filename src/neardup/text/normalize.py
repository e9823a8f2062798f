"""Text normalization before features are taken: NFKC, full-width to half-width, lowercase, spaces.

>>> normalize("Ｈｅｌｌｏ，　Ｗｏｒｌｄ！\\n\\t新闻")
'hello, world! 新闻'
"""

from __future__ import annotations

import re
import unicodedata
from html import unescape

__all__ = ["normalize", "strip_tags"]

_TAG = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->|<[^>]+>", re.IGNORECASE | re.DOTALL
)
_SPACE_NO_NL = re.compile(r"[^\S\n]+")
_NL_RUN = re.compile(r"\s*\n\s*")


def strip_tags(html: str) -> str:
    """Drop HTML tags, comments, scripts and styles; unescape entities. Not main-text extraction.

    >>> strip_tags("<p>A&amp;B<script>x()</script></p><br>c")
    ' A&B   c'
    """
    return unescape(_TAG.sub(" ", html))


def normalize(text: str, strip_html: bool = False, *, keep_newlines: bool = False) -> str:
    """Normalize ``text`` for fingerprinting.

    Unicode NFKC (which also maps full-width ASCII and the ideographic space to half-width),
    lowercase, whitespace runs collapsed to one space (with ``keep_newlines``, line breaks are kept
    as single newlines), ends trimmed. ``strip_html`` drops tags first.

    >>> normalize("<b>ＡＢＣ</b>  def", strip_html=True)
    'abc def'
    """
    if strip_html:
        text = strip_tags(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    if keep_newlines:
        return _NL_RUN.sub("\n", _SPACE_NO_NL.sub(" ", text)).strip()
    return " ".join(text.split())
