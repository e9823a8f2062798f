"""Write ``src/neardup/data/words_zh.tsv``: Chinese words and whether a repost may swap one for another
without changing what the text reports, from jieba's dictionary (MIT) and its part-of-speech tags,
for the text evidence's substitutions (``neardup.match.words``).

A rewriting site ("伪原创") swaps verbs, adverbs and adjectives for others (进行 -> 展开, 不断 -> 持续,
表示 -> 称) wherever they stand; a template told of another subject swaps names, places, titles,
numbers and dates (智利 -> 印度尼西亚, 总统 -> 总理, 金牌 -> 银牌). Each word of jieba's dictionary of
one to four characters written at least ``MIN_FREQ`` times is listed with ``w`` (a verb, an
adjective, an adverb, a conjunction, a preposition, a pronoun, a particle, an idiom: a word a
rewrite swaps) or ``n`` (any other: nouns, names, places, organisations, numerals, times,
abbreviations such as 法 for 法院). A single character is listed only as ``w``, when written at least
``MIN_FREQ_CHAR`` times (称, 说, 已): a character of another kind says nothing until the word it lies
in is read (金 of 金牌, 法 of 法院).

    python tools/make_words_zh.py "$(python -c 'import jieba, os; print(os.path.dirname(jieba.__file__))')/dict.txt"
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from _tables import write_table

MIN_FREQ = 300
MIN_FREQ_CHAR = 3000
# jieba's tags (ICTCLAS): verbs, adjectives, adverbs, conjunctions, prepositions, pronouns,
# particles, onomatopoeia, interjections, modal particles, descriptive words, idioms, set phrases
REWRITE_TAGS = {
    "v", "vd", "vn", "vi", "vq", "vg", "a", "ad", "an", "ag", "d", "dg", "df", "c", "p", "r", "rr",
    "rz", "rg", "u", "ud", "ug", "uj", "ul", "uv", "uz", "y", "e", "o", "z", "zg", "i", "l",
}  # fmt: skip
CJK = re.compile(r"^[\u4e00-\u9fff]{1,4}$")


def rows(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) != 3 or not CJK.match(parts[0]) or int(parts[1]) < MIN_FREQ:
            continue
        word, freq, tag = parts[0], int(parts[1]), parts[2]
        rewrite = tag in REWRITE_TAGS and (len(word) > 1 or freq >= MIN_FREQ_CHAR)
        if rewrite or len(word) > 1:
            out.append((word, "w" if rewrite else "n"))
    return sorted(out)


def main() -> None:
    table = rows(Path(sys.argv[1]))
    out = Path(__file__).resolve().parents[1] / "src/neardup/data/words_zh.tsv"
    n = write_table(
        out,
        [("word -> w (a rewrite may swap it) or n, from jieba's dictionary (tools/make_words_zh.py)", table)],
    )
    print(f"{out}: {n} words, {sum(k == 'w' for _, k in table)} rewrite words")


if __name__ == "__main__":
    main()
