"""The match engine against real text reuse judged by reading (tests/data/judged), beside datasketch's
MinHash in the same run: the share of pairs each merges, per label and per file.

    NEARDUP_DATA=../shared/data python bench/bench_judged.py [--strictness 0.5] [--profile news]

A pair is merged by neardup when ``compare_texts`` gives a merging kind (exact, content, near,
contained); by datasketch when the MinHash (128 permutations) Jaccard estimate of the two texts'
token 5-gram sets (the engine's tokens: CJK characters, Latin words) reaches 0.5, datasketch's
usual MinHashLSH threshold.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from neardup.eval.judged import judge_pairs, load_judged, rates, read_texts  # noqa: E402
from neardup.match import MatchConfig  # noqa: E402

FILES = {
    "zh-rmrb-xwlb-2020.cross": "zh-rmrb-xwlb-2020",
    "zh-rmrb-xwlb-2020.within": "zh-rmrb-xwlb-2020",
    "zh-xwlb": "zh-xwlb",
    "en-bbc": "en-bbc",
    "en-20news": "en-20news",
}


def _tokens(text: str) -> list[str]:
    import re

    return re.findall(r"[\u4e00-\u9fff\u3400-\u4dbf]|[^\W_]+", text.lower())


def _minhash_jaccard(a: str, b: str) -> float:
    from datasketch import MinHash

    def mh(text: str) -> MinHash:
        toks = _tokens(text)
        m = MinHash(num_perm=128, seed=1)
        for i in range(max(1, len(toks) - 4)):
            m.update(" ".join(toks[i : i + 5]).encode("utf-8"))
        return m

    return float(mh(a).jaccard(mh(b)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strictness", type=float, default=0.5)
    ap.add_argument("--profile", default="news")
    args = ap.parse_args()
    data = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
    cfg = MatchConfig(profile=args.profile, strictness=args.strictness)  # type: ignore[arg-type]
    ours: dict[str, list[bool]] = defaultdict(list)
    peer: dict[str, list[bool]] = defaultdict(list)
    t_ours = t_peer = 0.0
    for name, corpus in FILES.items():
        pairs = load_judged(ROOT / "tests" / "data" / "judged" / f"{name}.tsv")
        ids = {x for p in pairs for x in (p.id_a, p.id_b)}
        texts = read_texts(data / f"{corpus}.jsonl.gz", ids)
        dates = read_texts(data / f"{corpus}.jsonl.gz", ids, field=cfg.keep_field)
        t0 = time.process_time()
        res = judge_pairs(pairs, texts, cfg, dates)
        t_ours += time.process_time() - t0
        t0 = time.process_time()
        mine: dict[str, list[bool]] = defaultdict(list)
        for r in res:
            p = r["pair"]
            merged_peer = _minhash_jaccard(texts[p.id_a], texts[p.id_b]) >= 0.5
            mine[p.label].append(bool(r["merged"]))
            ours[p.label].append(bool(r["merged"]))
            peer[p.label].append(merged_peer)
        t_peer += time.process_time() - t0
        print(f"{name:26s} " + "  ".join(f"{k} {v['merged']}/{v['pairs']}" for k, v in rates(mine).items()))
    print()
    print("| label | pairs | neardup merged | datasketch MinHash >= .5 merged |")
    print("|---|---|---|---|")
    ro, rp = rates(ours), rates(peer)
    for label in ("same", "related", "template", "different", "unsure"):
        if label in ro:
            o, q = ro[label], rp[label]
            print(
                f"| {label} | {o['pairs']} | {o['rate']:.1%} ({o['merged']}) | {q['rate']:.1%} ({q['merged']}) |"
            )
    apart = [x for label in ("related", "template", "different") for x in ours[label]]
    apart_peer = [x for label in ("related", "template", "different") for x in peer[label]]
    print(
        f"\ndifferent stories (related + template + different) merged: neardup {sum(apart) / len(apart):.1%}, "
        f"datasketch {sum(apart_peer) / len(apart_peer):.1%}; CPU s: neardup {t_ours:.1f}, datasketch {t_peer:.1f}"
    )


if __name__ == "__main__":
    main()
