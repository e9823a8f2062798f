"""Text normalization before features are taken: NFKC, full-width to half-width, lowercase, spaces.

>>> normalize("Ｈｅｌｌｏ，　Ｗｏｒｌｄ！\\n\\t新闻")
'hello, world! 新闻'
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from html import unescape

__all__ = ["normalize", "strip_tags"]

_TAG = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->|<[^>]+>", re.IGNORECASE | re.DOTALL
)
_SPACE_NO_NL = re.compile(r"[^\S\n]+")
_NL_RUN = re.compile(r"\s*\n\s*")


@cache
def compat_map() -> dict[int, str]:
    """BMP characters that NFKC changes on their own, with their NFKC form (full-width forms,
    ligatures, circled and Roman numerals, ℃, …): applied character by character before the NFKC check."""
    out: dict[int, str] = {}
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        n = unicodedata.normalize("NFKC", c)
        if n != c:
            out[cp] = n
    return out


def strip_tags(html: str) -> str:
    """Drop HTML tags, comments, scripts and styles; unescape entities. Not main-text extraction.

    >>> strip_tags("<p>A&amp;B<script>x()</script></p><br>c")
    ' A&B   c'
    """
    return unescape(_TAG.sub(" ", html))


def _collapse(text: str, keep_newlines: bool) -> str:
    if keep_newlines:
        return _NL_RUN.sub("\n", _SPACE_NO_NL.sub(" ", text)).strip()
    return " ".join(text.split())


def normalize(text: str, strip_html: bool = False, *, keep_newlines: bool = False) -> str:
    """Normalize ``text`` for fingerprinting.

    Each character NFKC changes on its own is replaced by its NFKC form (full-width forms to ASCII,
    the ideographic space to a space, ℃ to °c, … to ...), then lowercase, whitespace runs collapsed
    to one space (with ``keep_newlines``, line breaks are kept as single newlines), ends trimmed;
    if the result is still not NFKC (combining sequences), full NFKC and lowercase again. The result
    is always NFKC; the order lets the common case skip the slow NFKC pass, and the numba batch
    version in ``neardup.fingerprint._fast`` gives exactly the same strings. ``strip_html`` drops
    tags first.

    >>> normalize("<b>ＡＢＣ</b>  def", strip_html=True)
    'abc def'
    """
    if strip_html:
        text = strip_tags(text)
    if text.isascii():
        return _collapse(text.lower(), keep_newlines)
    text = _collapse(text.translate(compat_map()).lower(), keep_newlines)
    if not unicodedata.is_normalized("NFKC", text):
        text = _collapse(unicodedata.normalize("NFKC", text).lower(), keep_newlines)
    return text
