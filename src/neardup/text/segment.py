"""Tokenizers: jieba-compatible Chinese words (plus English words), character shingles, word n-grams.

Chinese segmentation uses rjieba (jieba's dictionary and HMM, in Rust) when installed, else jieba;
see docs/text.md for their measured agreement. ``engine="jieba"`` forces the reference.

>>> tokenize_words("Apache Hadoop 是一个分布式框架")
['apache', 'hadoop', '是', '一个', '分布式', '框架']
>>> char_shingles("abcdef", n=4)
['abcd', 'bcde', 'cdef']
>>> char_shingles("abcdefghij", n=4, step=4)
['abcd', 'efgh', 'ij']
>>> word_ngrams(["a", "b", "c"], 2)
['a b', 'b c']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from neardup.exceptions import ConfigError

__all__ = [
    "MAX_NGRAM",
    "char_shingles",
    "check_shingle_args",
    "cut",
    "is_word",
    "shingle_text",
    "tokenize_words",
    "word_ngrams",
]

MAX_NGRAM = 127
_NON_WORD = re.compile(r"[\W_]+")


@cache
def _cutter(engine: str) -> Callable[[str], list[str]]:
    if engine in ("auto", "rjieba"):
        try:
            import rjieba

            return rjieba.cut
        except ImportError:
            if engine == "rjieba":
                from neardup._deps import require

                require("rjieba", "core", purpose="fast Chinese segmentation")
    if engine in ("auto", "rjieba", "jieba"):
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)
        return jieba.lcut  # type: ignore[no-any-return]
    raise ConfigError(f"segmentation engine must be one of auto, rjieba, jieba; got {engine!r}")


def cut(text: str, engine: str = "auto") -> list[str]:
    """Raw jieba-style segmentation: every piece, spaces and punctuation included."""
    return _cutter(engine)(text)


_ALNUM = re.compile(r"[^\W_]")


def is_word(token: str) -> bool:
    """True when the token holds a letter or digit (not only spaces and punctuation)."""
    return _ALNUM.search(token) is not None


def tokenize_words(text: str, *, engine: str = "auto", lower: bool = True) -> list[str]:
    """Words of ``text``: Chinese by jieba-compatible segmentation, English and numbers whole.

    Punctuation and spaces are dropped; Latin is lowercased (call ``normalize`` first for NFKC).
    """
    if lower:
        text = text.lower()
    return [t for t in _cutter(engine)(text) if is_word(t)]


def check_shingle_args(n: int, step: int) -> None:
    """Raise ConfigError unless 1 <= n <= 127 and 1 <= step <= n."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_NGRAM:
        raise ConfigError(f"shingle size n must be an integer between 1 and {MAX_NGRAM}, got {n!r}")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= n:
        raise ConfigError(
            f"shingle step must be between 1 (overlapping windows) and n={n} (fixed-size chunks), "
            f"got {step!r}; use step < n for overlap, step == n for chunks"
        )


def char_shingles(text: str, n: int = 4, step: int = 1) -> list[str]:
    """Character windows of ``n`` at every ``step`` characters of ``text`` (taken as given).

    ``step=1`` is seed 003's overlapping tokenizer (chunk 4, overlap 3); ``step=n`` is its
    fixed-size tokenizer, whose last chunk may be shorter. A text shorter than ``n`` is one shingle;
    an empty text has none.
    """
    check_shingle_args(n, step)
    length = len(text)
    if length <= n:
        return [text] if text else []
    out = [text[i : i + n] for i in range(0, length - n + 1, step)]
    if step == n and length % n:
        out.append(text[length - length % n :])
    return out


def shingle_text(text: str) -> str:
    """The characters shingles are taken from: letters and digits only (spaces, punctuation dropped).

    >>> shingle_text("the cat, sat. 新闻！")
    'thecatsat新闻'
    """
    return _NON_WORD.sub("", text)


def word_ngrams(tokens: Sequence[str], n: int) -> list[str]:
    """Space-joined runs of ``n`` consecutive tokens; fewer than ``n`` tokens give one n-gram."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_NGRAM:
        raise ConfigError(f"word n-gram size must be an integer between 1 and {MAX_NGRAM}, got {n!r}")
    if n == 1:
        return list(tokens)
    if len(tokens) <= n:
        return [" ".join(tokens)] if tokens else []
    return [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
