"""Quality benchmark: neardup's recommended setting against the PyPI `simhash` package and datasketch
MinHashLSH on a labelled Chinese repost set made from zh-xwlb by `neardup synth`.

    .venv/bin/python bench/bench_quality.py [--quick] [--n-sources 800] [--seed 2] [--repeat 3]

Prints a markdown table and writes the `quality` section of docs/benchmarks.md and the curves under
docs/img/. Pair-level scores: F1 on duplicate pairs (exact, reformatted, near copies), precision on
the hard-negative groups, recall of partial copies. Times are medians of --repeat runs on a shared,
noisy 2-core machine: compare ratios, not absolute figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))

from _sections import write_section  # noqa: E402
from neardup.eval.metrics import Evaluation, Truth, evaluate  # noqa: E402
from neardup.eval.report import svg_curves  # noqa: E402
from neardup.eval.sweep import (  # noqa: E402
    RECOMMENDED,
    RECOMMENDED_LONG,
    choose_default,
    clusters_from_pairs,
    main_text,
    recommended_pairs,
    sweep,
)
from neardup.eval.synth import SynthConfig, synthesize  # noqa: E402

Pairs = tuple[np.ndarray, np.ndarray]


def _components(n: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    if not pairs:
        return np.arange(n)
    a = np.array(pairs, dtype=np.int64)
    return clusters_from_pairs(n, a[:, 0], a[:, 1])


def peer_simhash(texts: list[str], tokens: str) -> np.ndarray:
    from simhash import Simhash, SimhashIndex

    if tokens == "jieba":
        import jieba

        jieba.setLogLevel(60)
        hashes = [Simhash(list(jieba.cut(t))) for t in texts]
    else:
        hashes = [Simhash(t) for t in texts]
    import logging

    logging.getLogger("simhash").setLevel(logging.ERROR)
    index = SimhashIndex([(str(i), h) for i, h in enumerate(hashes)], k=3)
    pairs = [(i, int(j)) for i, h in enumerate(hashes) for j in index.get_near_dups(h) if int(j) > i]
    return _components(len(texts), pairs)


def peer_minhash(texts: list[str], threshold: float) -> np.ndarray:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    sigs = []
    for i, t in enumerate(texts):
        s = "".join(t.split())
        m = MinHash(num_perm=128)
        m.update_batch([s[k : k + 5].encode("utf-8") for k in range(max(1, len(s) - 4))])
        lsh.insert(str(i), m)
        sigs.append(m)
    pairs = [(i, int(j)) for i, m in enumerate(sigs) for j in lsh.query(m) if int(j) > i]
    return _components(len(texts), pairs)


def neardup_recommended(texts: list[str]) -> np.ndarray:
    i, j = recommended_pairs(texts)
    return clusters_from_pairs(len(texts), i, j)


def neardup_code_default(texts: list[str]) -> np.ndarray:
    from neardup.eval.sweep import hamming_pairs
    from neardup.fingerprint.simhash import SimHasher

    fps = SimHasher().fingerprint_many(texts)
    i, j, _ = hamming_pairs(fps, 3)
    return clusters_from_pairs(len(texts), i, j)


def recommended_dedup_config(workers: int = 1, setting: dict[str, Any] | None = None) -> Any:
    """DedupConfig for the recommended setting (the lead sets these as the defaults in code)."""
    from neardup.config import SimHashConfig
    from neardup.dedup import DedupConfig

    r = RECOMMENDED if setting is None else setting
    method = "both" if str(r["method"]).endswith("|nshash") else "simhash"
    return DedupConfig(
        method=method,
        max_distance=int(r["k"]),
        nshash_n=int(r["n"]),
        workers=workers,
        simhash=SimHashConfig(
            features=r["features"], ngram=int(r["ngram"]), weighting=r.get("weighting", "tfidf")
        ),
    )


def neardup_dedup(ids: list[str], texts: list[str], cfg: Any) -> np.ndarray | None:
    """Clusters from `neardup.dedup.dedup_records` (helper G's module), None when it is not there."""
    try:
        from neardup.dedup import dedup_records
    except ImportError:
        return None
    from neardup.io import Record

    out = {
        o["id"]: o["cluster"]
        for o in dedup_records([Record(id=i, text=t) for i, t in zip(ids, texts, strict=True)], cfg)
    }
    labels: dict[Any, int] = {}
    return np.array([labels.setdefault(out[i], len(labels)) for i in ids])


def _timed(fn: Callable[[], np.ndarray], repeat: int) -> tuple[np.ndarray, float]:
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    assert out is not None
    return out, statistics.median(times)


def _row(name: str, ev: Evaluation, seconds: float) -> dict[str, Any]:
    d = ev.duplicates
    return {
        "name": name,
        "f1": d.f1,
        "precision": d.precision,
        "recall": d.recall,
        "hn_precision": ev.hn_precision,
        "partial_recall": ev.recall_by_kind.get("partial"),
        "near_recall": ev.recall_by_kind.get("near"),
        "ari": ev.overall.ari,
        "seconds": seconds,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 sources, one timing run, no sweep plots")
    ap.add_argument("--n-sources", type=int, default=800)
    ap.add_argument(
        "--seed", type=int, default=2, help="2: the test set (defaults were chosen on seeds 1 and 3)"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = ap.parse_args()
    n_sources = 300 if args.quick else args.n_sources
    repeat = 1 if args.quick else args.repeat
    t_start = time.perf_counter()

    with gzip.open(DATA / "zh-xwlb.jsonl.gz", "rt", encoding="utf-8") as fh:
        corpus = [json.loads(line) for line in fh]
    docs, truth_rows = synthesize(corpus, SynthConfig(lang="zh", n_sources=n_sources, seed=args.seed))
    truth = Truth.from_records(truth_rows)
    texts = [d["text"] if "text" in d else main_text(d["html"]) for d in docs]
    ids = [str(d["id"]) for d in docs]
    kinds: dict[str, int] = {}
    for t in truth_rows:
        kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
    print(f"set: {len(docs)} documents from {n_sources} sources (seed {args.seed}): {kinds}", file=sys.stderr)

    def score(labels: np.ndarray) -> Evaluation:
        return evaluate(dict(zip(ids, labels.tolist(), strict=True)), truth)

    try:
        from neardup.dedup import DedupConfig

        dedup_ok = True
    except ImportError:
        dedup_ok = False
    runs: list[tuple[str, Callable[[], np.ndarray | None]]] = []
    if dedup_ok:
        runs += [
            (
                f"neardup dedup, recommended ({RECOMMENDED['label']})",
                lambda: neardup_dedup(ids, texts, recommended_dedup_config()),
            ),
            (
                f"neardup dedup, long-article setting ({RECOMMENDED_LONG['label']})",
                lambda: neardup_dedup(ids, texts, recommended_dedup_config(setting=RECOMMENDED_LONG)),
            ),
            (
                "neardup dedup, DedupConfig() defaults as in code at this run",
                lambda: neardup_dedup(ids, texts, DedupConfig(workers=1)),
            ),
        ]
    else:
        runs += [
            (
                f"neardup recommended, brute force ({RECOMMENDED['label']})",
                lambda: neardup_recommended(texts),
            ),
            ("neardup SimHash words k=3, brute force", lambda: neardup_code_default(texts)),
        ]
    runs += [
        ("simhash SimhashIndex k=3, jieba tokens", lambda: peer_simhash(texts, "jieba")),
        ("simhash SimhashIndex k=3, default features", lambda: peer_simhash(texts, "default")),
        ("datasketch MinHashLSH char 5-grams, t=0.5", lambda: peer_minhash(texts, 0.5)),
        ("datasketch MinHashLSH char 5-grams, t=0.8", lambda: peer_minhash(texts, 0.8)),
    ]
    rows = []
    for name, fn in runs:
        print(f"  {name} ...", file=sys.stderr)
        first = fn()
        if first is None:
            print("    (not available yet: skipped)", file=sys.stderr)
            continue
        _, secs = _timed(fn, repeat - 1) if repeat > 1 else (first, 0.0)
        if repeat == 1:
            t0 = time.perf_counter()
            fn()
            secs = time.perf_counter() - t0
        rows.append(_row(name, score(first), secs))

    curves = ""
    if not args.quick:
        sw = sweep(
            texts,
            ids,
            truth,
            methods=("simhash-words", "simhash-shingles", "nshash", "simhash-shingles|nshash"),
            ks=range(0, 13),
            lang="zh",
        )
        best = choose_default(sw)
        img = ROOT / "docs" / "img"
        img.mkdir(parents=True, exist_ok=True)
        for method in dict.fromkeys(r.method for r in sw):
            rs = [r for r in sw if r.method == method]
            series = {
                "precision": [(r.param, r.evaluation.duplicates.precision) for r in rs],
                "recall": [(r.param, r.evaluation.duplicates.recall) for r in rs],
                "F1": [(r.param, r.evaluation.duplicates.f1) for r in rs],
                "P on hard neg.": [(r.param, r.evaluation.hn_precision) for r in rs],
            }
            xl = "n (sentences)" if method == "nshash" else "k (bits)"
            name = "quality-zh-" + method.replace("|", "-or-").replace("+", "-and-") + ".svg"
            if not args.no_write:
                (img / name).write_text(
                    svg_curves(series, title=f"{method} (zh synthetic)", xlabel=xl), encoding="utf-8"
                )
        curves = "\n".join(
            f"| {r.method} | {r.param:g} | {r.evaluation.duplicates.precision:.4f} | "
            f"{r.evaluation.duplicates.recall:.4f} | {r.evaluation.duplicates.f1:.4f} | "
            f"{r.evaluation.hn_precision:.4f} |"
            for r in sw
        )
        if best:
            curves += (
                f"\n\nBest by the rule (F1, precision on hard negatives >= 0.99): **{best.method} at "
                f"{best.param:g}**, F1 {best.evaluation.duplicates.f1:.4f}."
            )

    ours = rows[0]
    peers = [r for r in rows if not r["name"].startswith("neardup")]
    best_peer = max(peers, key=lambda r: r["f1"]) if peers else None
    head = (
        "| method | F1 (dup pairs) | precision | recall | P on hard negatives | near recall | partial recall "
        "| ARI | time s |\n|---|---|---|---|---|---|---|---|---|"
    )
    table = (
        head
        + "\n"
        + "\n".join(
            f"| {r['name']} | {r['f1']:.4f} | {r['precision']:.4f} | {r['recall']:.4f} | {r['hn_precision']:.4f} | "
            f"{r['near_recall'] if r['near_recall'] is None else format(r['near_recall'], '.4f')} | "
            f"{r['partial_recall'] if r['partial_recall'] is None else format(r['partial_recall'], '.4f')} | "
            f"{r['ari']:.4f} | {r['seconds']:.2f} |"
            for r in rows
        )
    )
    verdict = [
        f"- F1 >= 0.95 on duplicate pairs: {'met' if ours['f1'] >= 0.95 else 'missed'} ({ours['f1']:.4f}"
        + ("" if ours["f1"] >= 0.95 else f", short by {0.95 - ours['f1']:.4f}")
        + ")",
        f"- precision >= 0.99 on hard negatives: {'met' if ours['hn_precision'] >= 0.99 else 'missed'} "
        f"({ours['hn_precision']:.4f})",
        f"- recall of partial copies (reported, no target): {ours['partial_recall']:.4f}",
    ]
    if best_peer:
        verdict.append(
            f"- better F1 than every peer: {'met' if ours['f1'] > best_peer['f1'] else 'missed'} "
            f"(best peer {best_peer['name']}: {best_peer['f1']:.4f})"
        )
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = (
        "python bench/bench_quality.py"
        + (" --quick" if args.quick else "")
        + (f" --n-sources {args.n_sources}" if args.n_sources != 800 and not args.quick else "")
        + (f" --seed {args.seed}" if args.seed != 2 else "")
    )
    section = f"""## Quality: neardup against `simhash` and datasketch on a labelled Chinese repost set

Command `{cmd}`, {when}, machine 2 cores, 24 GiB (shared, noisy), Python {platform.python_version()}.
Set: `neardup synth` on zh-xwlb, {n_sources} sources, seed {args.seed}: {len(docs)} documents ({", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))}).
Clusters are connected components of each method's pairs; scores are pairwise (docs/quality.md explains them).
Times: median of {repeat} run(s), whole pipeline from text (features, fingerprints, pairs, clusters).

{table}

Targets for neardup's recommended setting:
{chr(10).join(verdict)}
"""
    print(section)
    if curves:
        print(
            "| method | param | precision | recall | F1 | P on hard negatives |\n|---|---|---|---|---|---|\n"
            + curves
        )
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "quality", section)
    print(f"total {time.perf_counter() - t_start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
