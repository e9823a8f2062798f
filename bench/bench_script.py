"""Reposts in traditional script as OpenCC writes them: how many the engine finds, per conversion.

    NEARDUP_DATA=../shared/data python bench/bench_script.py --opencc-python /work/peers-venv/bin/python \
        [--n 300] [--seed 7]

OpenCC (``pip install opencc-python-reimplemented`` in the interpreter given: it is not a dependency
of neardup) converts ``--n`` zh-xwlb articles of 300 characters or more with each configuration:
``s2t`` (characters and the phrases that choose them, 了解 -> 瞭解), ``s2tw`` and ``s2hk`` (the same
with Taiwan / Hong Kong character variants) and ``s2twp`` (with Taiwan phrasing too: 信息 -> 資訊,
发布 -> 釋出, 数据 -> 資料). Each converted copy is compared with its source (``compare_texts``); a
copy is found when the verdict merges the two (exact, content, near, contained). Also prints the
cost of reading Taiwan phrases back (``regional_phrases``) over all of zh-xwlb, best of 3.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import orjson

from neardup.match import compare_texts
from neardup.text.normalize import regional_phrases

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("s2t", "s2tw", "s2hk", "s2twp")
MERGED = {"exact", "content", "near", "contained"}

_CONVERT = """
import json, sys, opencc
texts = json.load(open(sys.argv[1], encoding="utf-8"))
out = {c: [opencc.OpenCC(c).convert(t) for t in texts] for c in sys.argv[3:]}
json.dump(out, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opencc-python", required=True, help="a Python with opencc-python-reimplemented")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    data = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
    with gzip.open(data / "zh-xwlb.jsonl.gz") as f:
        texts = [str(orjson.loads(line).get("text") or "") for line in f]
    sample = random.Random(args.seed).sample([t for t in texts if len(t) >= 300], args.n)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "src.json", Path(tmp) / "dst.json"
        src.write_text(json.dumps(sample, ensure_ascii=False), encoding="utf-8")
        subprocess.run(
            [args.opencc_python, "-c", _CONVERT, str(src), str(dst), *CONFIGS], check=True, stdout=sys.stderr
        )
        converted = json.loads(dst.read_text(encoding="utf-8"))
    print("| conversion | copies | found | verdicts |")
    print("|---|---|---|---|")
    for config in CONFIGS:
        kinds = Counter(compare_texts(a, b).kind for a, b in zip(sample, converted[config], strict=True))
        found = sum(n for k, n in kinds.items() if k in MERGED)
        shown = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
        print(f"| {config} | {len(sample)} | {found / len(sample):.1%} ({found}) | {shown} |")
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for t in texts:
            regional_phrases(t)
        best = min(best, time.perf_counter() - t0)
    print(f"\nregional_phrases over zh-xwlb ({len(texts):,} texts): {best:.3f} s (best of 3)")


if __name__ == "__main__":
    main()
