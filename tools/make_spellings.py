"""Write ``src/neardup/data/spellings_en.tsv``: British spellings and the American spelling of the same
word, from SCOWL's word lists (Kevin Atkinson's Spell Checker Oriented Word Lists, MIT-like licence;
Debian's ``scowl`` package), for ``neardup.text.normalize.spellings``.

SCOWL splits English words into those both spellings write and those only one writes
(``british-words.N``, ``american-words.N``; N the size level, 10 the most common). A British-only
word of level 70 or below is paired with the American-only word that VarCon's regular classes
give (-ise/-ize, -yse/-yze, -our/-or, -tre/-ter, -ence/-ense, -ogue/-og, doubled and single l,
ae/oe to e, -mme to -m, -que to -ck, ...), applied once or twice (manoeuvre -> maneuver); the
classes that turn a British word into a word both write (programme -> program, metre -> meter,
cheque -> check, practise -> practice) may also end on a word of ``english-words``. A word with
two candidates (prise: price or prize) is left out, and so are plurals in -oes and forms with an
apostrophe (the tokenizer reads colour's as colour and s).

    apt-get download scowl && dpkg -x scowl_*.deb scowl
    python tools/make_spellings.py scowl/usr/share/dict/scowl
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

from _tables import write_table

LEVELS = (10, 20, 35, 40, 50, 55, 60, 70, 80, 95)
#: British-only words up to this level are read (more common than SCOWL's "large" list)
MOST_LEVEL = 70
#: and paired with American words up to this one (storey is no storay, pourer no porer)
TARGET_LEVEL = 80
# (British, American, whether the American form may be a word both spellings write)
CLASSES = (
    ("is", "iz", False),
    ("ys", "yz", False),
    ("our", "or", False),
    ("tre", "ter", True),
    ("bre", "ber", False),
    ("ence", "ense", True),
    ("ogue", "og", False),
    ("ll", "l", False),
    ("l", "ll", False),
    ("ae", "e", False),
    ("oe", "e", False),
    ("mme", "m", True),
    ("eable", "able", False),
    ("gement", "gment", False),
    ("que", "ck", True),
    ("yre", "ire", True),
    ("ise", "ice", True),
    ("euvre", "euver", False),
    ("ey", "ay", True),
)


def words(folder: Path, kind: str, most: int) -> set[str]:
    out: set[str] = set()
    for level in LEVELS:
        path = folder / f"{kind}-words.{level}"
        if level <= most and path.exists():
            out.update(w for w in path.read_text(encoding="latin-1").split() if w.isascii() and w.isalpha())
    return out


def variants(word: str) -> Iterator[tuple[str, bool]]:
    for british, american, loose in CLASSES:
        i = word.find(british)
        while i >= 0:
            yield word[:i] + american + word[i + len(british) :], loose
            i = word.find(british, i + 1)


def pairs(folder: Path) -> dict[str, str]:
    british = words(folder, "british", MOST_LEVEL)
    american = words(folder, "american", TARGET_LEVEL)
    both = words(folder, "english", TARGET_LEVEL)
    out = {}
    for word in sorted(british):
        if re.search(r"oe[sd]?$", word) or not word.islower():
            continue
        found = set()
        for once, loose in variants(word):
            if once in american or (loose and once in both):
                found.add(once)
            found.update(twice for twice, _ in variants(once) if twice in american)
        found.discard(word)
        if len(found) == 1:
            out[word] = found.pop()
    return out


def main() -> None:
    table = pairs(Path(sys.argv[1]))
    out = Path(__file__).resolve().parents[1] / "src/neardup/data/spellings_en.tsv"
    n = write_table(
        out, [("British spelling -> American, from SCOWL (tools/make_spellings.py)", sorted(table.items()))]
    )
    print(f"{out}: {n} words")


if __name__ == "__main__":
    main()
