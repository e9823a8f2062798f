"""Shipped stop-word lists for Chinese and English (``neardup/data/stopwords_{zh,en}.txt``).

>>> "的" in stopwords("zh") and "the" in stopwords("en")
True
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from neardup.exceptions import ConfigError

__all__ = ["STOPWORD_LANGUAGES", "stopwords"]

STOPWORD_LANGUAGES = ("zh", "en")


@cache
def _load(lang: str) -> frozenset[str]:
    text = resources.files("neardup").joinpath(f"data/stopwords_{lang}.txt").read_text("utf-8")
    return frozenset(w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#"))


@cache
def stopwords(lang: str = "all") -> frozenset[str]:
    """The stop words of ``lang`` ("zh", "en") or of both ("all")."""
    if lang == "all":
        return frozenset().union(*(_load(x) for x in STOPWORD_LANGUAGES))
    if lang not in STOPWORD_LANGUAGES:
        raise ConfigError(f"stop-word language must be one of zh, en, all; got {lang!r}")
    return _load(lang)
