"""Sentence splitting for Chinese and English text.

Chinese ends sentences at 。！？；… and newlines; English at . ! ? followed by space, keeping common
abbreviations (Mr., e.g., U.S.) and decimals (3.14) whole.

>>> split_sentences("今天下雨了。明天呢？Mr. Smith left. He paid 3.5 dollars!")
['今天下雨了。', '明天呢？', 'Mr. Smith left.', 'He paid 3.5 dollars!']
"""

from __future__ import annotations

import re

__all__ = ["ABBREVIATIONS", "split_sentences"]

ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "univ",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "gov",
        "sen",
        "rep",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "no",
        "fig",
        "vol",
        "pp",
        "approx",
        "est",
        "e.g",
        "i.e",
        "u.s",
        "u.k",
        "a.m",
        "p.m",
    ]
)

# a CJK terminator (possibly repeated, with closing quotes/brackets), or a newline
_CJK_END = re.compile(r"[。！？；!?;…]+[”’」』）)\"']*|\n+")
_LATIN_END = re.compile(r"([.!?]+[\"')\]]*)\s+(?=\S)")


def _split_latin(chunk: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _LATIN_END.finditer(chunk):
        end = m.end(1)
        candidate = chunk[start:end]
        if m.group(1) == ".":
            last_word = candidate[:-1].rsplit(None, 1)[-1].lower() if candidate[:-1].split() else ""
            if last_word.rstrip(".") in ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
                continue
        out.append(candidate.strip())
        start = m.end()
    tail = chunk[start:].strip()
    if tail:
        out.append(tail)
    return out


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, terminators kept, whitespace trimmed, empty ones dropped."""
    sentences: list[str] = []
    start = 0
    for m in _CJK_END.finditer(text):
        piece = text[start : m.end()] if not m.group().startswith("\n") else text[start : m.start()]
        start = m.end()
        sentences.extend(_split_latin(piece))
    if start < len(text):
        sentences.extend(_split_latin(text[start:]))
    return [s for s in sentences if s]
