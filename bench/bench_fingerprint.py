"""Fingerprint throughput, end to end from raw text, one core, beside the PyPI ``simhash`` package.

    .venv/bin/python bench/bench_fingerprint.py [--quick] [--no-write]

Measures (median of 3 runs, wall and CPU time; the machine is shared, so CPU-time MB/s is the
per-core figure): neardup word mode (normalize + jieba-compatible segmentation + TF-IDF + SimHash)
and shingle mode on zh-xwlb and en-20news; ``simhash.Simhash(text)`` and
``simhash.Simhash(jieba.lcut(text))`` on the same texts; where word-mode time goes; rjieba's
agreement with jieba; and near-duplicate recall / random-pair false matches against k.
Writes the ``fingerprint`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from neardup.config import SimHashConfig  # noqa: E402
from neardup.fingerprint.simhash import SimHasher, hamming_many  # noqa: E402


def load(name: str, limit: int) -> list[str]:
    out: list[str] = []
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            if text.strip():
                out.append(text)
            if len(out) >= limit:
                break
    return out


def measure(fn: Callable[[], Any], nbytes: int, repeat: int = 3) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return {"wall": nbytes / statistics.median(walls) / 1e6, "cpu": nbytes / statistics.median(cpus) / 1e6}


def size(texts: list[str]) -> int:
    return sum(len(t.encode("utf-8")) for t in texts)


def throughput(quick: bool) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    import jieba
    import simhash

    jieba.setLogLevel(60)
    jieba.initialize()
    n_ours, n_peer = (800, 150) if quick else (2000, 250)
    rows: list[dict[str, Any]] = []
    breakdown: dict[str, dict[str, float]] = {}
    for corpus in ("zh-xwlb", "en-20news"):
        docs = load(corpus, n_ours)
        peer_docs = docs[:n_peer]
        b, pb = size(docs), size(peer_docs)
        results: dict[str, dict[str, float]] = {}
        for mode in ("words", "shingles"):
            hasher = SimHasher(SimHashConfig(features=mode))  # type: ignore[arg-type]
            hasher.fingerprint_many(docs[:50])  # load tables, compile
            results[mode] = measure(lambda h=hasher, d=docs: SimHasher(h.config).fingerprint_many(d), b)
            # the same run with the feature cache warm (a long-running process)
            results[mode + "_warm"] = measure(lambda h=hasher, d=docs: h.fingerprint_many(d), b)
        results["simhash(text)"] = measure(lambda p=peer_docs: [simhash.Simhash(t) for t in p], pb)
        results["simhash(jieba)"] = measure(
            lambda p=peer_docs: [simhash.Simhash(jieba.lcut(t)) for t in p], pb
        )
        for name, r in results.items():
            rows.append({"corpus": corpus, "mode": name, **r})
        breakdown[corpus] = word_breakdown(docs)
    return rows, breakdown


def word_breakdown(docs: list[str]) -> dict[str, float]:
    """CPU seconds per MB of each word-mode stage (feature cache warm)."""
    from itertools import chain

    from neardup.fingerprint import _fast, _kernels
    from neardup.text.segment import cut

    hasher = SimHasher()
    hasher.fingerprint_many(docs)  # fills the feature cache: the stages below are steady state
    mb = size(docs) / 1e6

    def cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
        best, out = float("inf"), None
        for _ in range(3):
            c0 = time.process_time()
            out = fn()
            best = min(best, time.process_time() - c0)
        return best / mb, out

    t_norm, norm = cpu(lambda: _fast.normalize_batch(docs))
    t_seg, toks = cpu(lambda: [cut(t) for t in norm])
    t_flat, flat = cpu(lambda: list(chain.from_iterable(toks)))
    t_look, ids = cpu(lambda: hasher._vocab.lookup(flat))
    offsets = np.zeros(len(docs) + 1, np.int64)
    np.cumsum([len(x) for x in toks], out=offsets[1:])
    top = np.zeros(len(docs), np.int64)
    vh, vw = hasher._vocab.vh, hasher._vocab.vw
    t_kern, _ = cpu(lambda: _kernels.batch_fingerprints(ids, offsets, vh, vw, 64, False, top, 0))
    return {
        "normalize": t_norm,
        "segment": t_seg,
        "lookup": t_flat + t_look,
        "kernel": t_kern,
        "tokens_per_mb": len(flat) / mb,
    }


def agreement(quick: bool) -> dict[str, float]:
    import jieba
    import rjieba

    docs = load("zh-xwlb", 500 if quick else 3000)
    same_docs = 0
    tok_total = tok_same = 0
    for t in docs:
        a, b = jieba.lcut(t), rjieba.cut(t)
        same_docs += a == b

        # token agreement: tokens with the same (start, end) span in both segmentations
        def spans(toks: list[str]) -> set[tuple[int, int]]:
            out, pos = set(), 0
            for tok in toks:
                out.add((pos, pos + len(tok)))
                pos += len(tok)
            return out

        sa, sb = spans(a), spans(b)
        tok_total += len(sa)
        tok_same += len(sa & sb)
    return {
        "docs": len(docs),
        "identical_docs": same_docs / len(docs),
        "token_agreement": tok_same / tok_total,
    }


def repost(text: str, rnd: random.Random) -> str:
    """A typical repost edit: one sentence dropped, three characters changed, boilerplate added."""
    from neardup.text.sentences import split_sentences

    sents = split_sentences(text)
    if len(sents) > 3:
        del sents[rnd.randrange(len(sents))]
    chars = list("".join(sents))
    for _ in range(3):
        if chars:
            chars[rnd.randrange(len(chars))] = rnd.choice("的一是在了和有大这主中人上为们")
    return "".join(chars) + "（来源：某某网 责任编辑：张三）"


def quality(quick: bool) -> dict[str, Any]:
    rnd = random.Random(7)
    docs = [t for t in load("zh-xwlb", 1500 if quick else 6000) if len(t) >= 200][: 400 if quick else 1200]
    variants = [repost(t, rnd) for t in docs]
    out: dict[str, Any] = {"pairs": len(docs)}
    for mode in ("words", "shingles"):
        h = SimHasher(SimHashConfig(features=mode))  # type: ignore[arg-type]
        a, b = h.fingerprint_many(docs), h.fingerprint_many(variants)
        dup = hamming_many(a, b)
        # every other document of the sample is a non-duplicate: nearest one per document
        nearest = np.array([np.partition(hamming_many(a, a[i]), 1)[1] for i in range(len(a))])
        perm = np.array(rnd.sample(range(len(a)), len(a)))
        rand = hamming_many(a, a[perm])[perm != np.arange(len(a))]
        out[mode] = {
            "recall": {k: float((dup <= k).mean()) for k in range(0, 11)},
            "nearest_other_le_k": {k: float((nearest <= k).mean()) for k in range(0, 11)},
            "random_pair_le_k": {k: float((rand <= k).mean()) for k in range(0, 11)},
            "dup_median": float(np.median(dup)),
            "random_median": float(np.median(rand)),
        }
    return out


def render(
    rows: list[dict[str, Any]],
    breakdown: dict[str, dict[str, float]],
    agree: dict[str, float],
    qual: dict[str, Any],
    quick: bool,
) -> str:
    lines = [
        "## fingerprint",
        "",
        f"Command: `.venv/bin/python bench/bench_fingerprint.py{' --quick' if quick else ''}`; "
        f"date {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; machine 2 cores, 24 GiB, shared with other jobs "
        "(wall-clock figures are depressed by contention; CPU-time MB/s is the per-core figure).",
        "",
        "Throughput, end to end from raw text (UTF-8 MB/s, median of 3 runs, one process). `words` = NFKC-style",
        "normalization + rjieba segmentation + TF-IDF (jieba's IDF table) + SimHash-64/xxh3; `shingles` = 4-character",
        "shingles in numba; `_warm` = the same SimHasher again (its token cache filled); peers: the PyPI `simhash`",
        "package on the first documents of the same sample.",
        "",
        "| corpus | mode | MB/s (CPU) | MB/s (wall) | x simhash(text) | x simhash(jieba) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for corpus in ("zh-xwlb", "en-20news"):
        sub = {r["mode"]: r for r in rows if r["corpus"] == corpus}
        p1, p2 = sub["simhash(text)"]["cpu"], sub["simhash(jieba)"]["cpu"]
        for mode, r in sub.items():
            lines.append(
                f"| {corpus} | {mode} | {r['cpu']:.1f} | {r['wall']:.1f} | {r['cpu'] / p1:.1f} | {r['cpu'] / p2:.1f} |"
            )
    lines += ["", "Targets (CPU MB/s per core):", ""]
    for corpus in ("zh-xwlb", "en-20news"):
        sub = {r["mode"]: r for r in rows if r["corpus"] == corpus}
        peer = max(sub["simhash(text)"]["cpu"], sub["simhash(jieba)"]["cpu"])
        for mode, target in (("words", 10.0), ("shingles", 40.0)):
            got = sub[mode]["cpu"]
            verdict = "met" if got >= target else f"missed by {100 * (1 - got / target):.0f}%"
            ratio = got / peer
            lines.append(
                f"- {corpus} {mode}: {got:.1f} MB/s vs target {target:.0f}: **{verdict}**; "
                f"{ratio:.0f}x the faster `simhash` call ({'met' if ratio >= 10 else 'missed'} the 10x target)"
            )
    lines += [
        "",
        "Where word-mode time goes (CPU seconds per MB, feature cache warm; tokens include spaces and "
        "punctuation, which get weight 0):",
        "",
        "| corpus | normalize (numba) | segment (rjieba) | token -> id lookup | SimHash kernel (numba) | tokens/MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for corpus, bd in breakdown.items():
        lines.append(
            f"| {corpus} | {bd['normalize']:.3f} | {bd['segment']:.3f} | {bd['lookup']:.3f} | "
            f"{bd['kernel']:.3f} | {bd['tokens_per_mb']:,.0f} |"
        )
    zh = breakdown.get("zh-xwlb")
    zh_shingles = next((r["cpu"] for r in rows if r["corpus"] == "zh-xwlb" and r["mode"] == "shingles"), 0.0)
    if zh:
        seg_cap = 1 / zh["segment"] if zh["segment"] else float("inf")
        lines += [
            "",
            f"Word mode is bound by segmentation: rjieba alone runs at {seg_cap:.1f} MB/s of Chinese per core here, "
            + ("below" if seg_cap < 10 else "barely above")
            + " the 10 MB/s target before any other work, and turning its Python strings into feature ids is "
            "the second cost; normalization and the SimHash kernel (numba) are small. Reaching 10 MB/s would need "
            "jieba's DAG + HMM segmentation in compiled code that emits feature ids without building Python "
            "strings. Against the like-for-like peer, `simhash.Simhash(jieba.lcut(text))`, word mode is about 10x "
            "faster; against `simhash.Simhash(text)` (which does no segmentation) it is not. Shingle mode "
            "(normalization, letter/digit filter, XXH3 and bit counting all in numba) runs at "
            f"{zh_shingles:.1f} MB/s on Chinese (3 bytes a character); English has three times as many windows per MB.",
        ]
    lines += [
        "",
        f"rjieba vs jieba (HMM on, default dictionary) on {agree['docs']} zh-xwlb items: "
        f"{100 * agree['identical_docs']:.1f}% of documents segmented identically, "
        f"{100 * agree['token_agreement']:.2f}% of jieba's tokens found with the same span.",
        "",
        f"Near-duplicate detection against k ({qual['pairs']} zh-xwlb items of >= 200 characters, each against a "
        "repost with one sentence dropped, 3 characters changed and a source line added; `nearest` = share of items "
        "whose nearest *other* item of the sample is within k; `random` = share of random pairs within k):",
        "",
        "| k | words recall | words nearest | words random | shingles recall | shingles nearest | shingles random |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in range(0, 11):
        w, s = qual["words"], qual["shingles"]
        lines.append(
            f"| {k} | {w['recall'][k]:.3f} | {w['nearest_other_le_k'][k]:.3f} | {w['random_pair_le_k'][k]:.4f} "
            f"| {s['recall'][k]:.3f} | {s['nearest_other_le_k'][k]:.3f} | {s['random_pair_le_k'][k]:.4f} |"
        )
    lines.append("")
    lines.append(
        f"Median distance repost/original: words {qual['words']['dup_median']:.0f}, shingles "
        f"{qual['shingles']['dup_median']:.0f}; random pairs: words {qual['words']['random_median']:.0f}, "
        f"shingles {qual['shingles']['random_median']:.0f}."
    )
    return "\n".join(lines) + "\n"


def per_call(quick: bool) -> str:
    """``Simhash(text)`` one document per call, as a seed user calls it: ours beside the package's."""
    import simhash

    from neardup.fingerprint.compat import Simhash

    n = 100 if quick else 300
    lines = [
        f"One `Simhash(text)` call per document, {n} documents per corpus, median of 5 rounds of CPU time "
        f"in one process ({dt.date.today().isoformat()}, {platform_line()}): `neardup.fingerprint.compat.Simhash` "
        "(default: the package's MD5, identical values; `xxh3`: the fast mode) beside `simhash.Simhash` "
        f"{simhash_version()}. Command: `.venv/bin/python bench/bench_fingerprint.py --per-call`.",
        "",
        "| corpus | chars/doc | simhash.Simhash | compat.Simhash (md5) | x | compat.Simhash (xxh3) | x |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for corpus in ("zh-xwlb", "en-20news"):
        docs = load(corpus, n)
        for t in docs[:20]:  # warm both (regex cache, imports)
            assert Simhash(t).value == simhash.Simhash(t).value
            Simhash(t, hashfunc="xxh3")
        fns: dict[str, Callable[[], Any]] = {
            "peer": lambda d=docs: [simhash.Simhash(t) for t in d],
            "md5": lambda d=docs: [Simhash(t) for t in d],
            "xxh3": lambda d=docs: [Simhash(t, hashfunc="xxh3") for t in d],
        }
        per: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(5):  # interleaved rounds, so machine load hits all three alike
            for name, fn in fns.items():
                c0 = time.process_time()
                fn()
                per[name].append((time.process_time() - c0) / len(docs) * 1e6)
        us = {k: statistics.median(v) for k, v in per.items()}
        chars = sum(map(len, docs)) // len(docs)
        lines.append(
            f"| {corpus} | {chars} | {us['peer']:.0f} us | {us['md5']:.0f} us | {us['peer'] / us['md5']:.1f} "
            f"| {us['xxh3']:.0f} us | {us['peer'] / us['xxh3']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def platform_line() -> str:
    import os
    import platform

    return f"Python {platform.python_version()}, {os.cpu_count()} cores, shared machine"


def simhash_version() -> str:
    from importlib.metadata import version

    return version("simhash")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller samples")
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    ap.add_argument("--per-call", action="store_true", help="only Simhash(text) per call against the package")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"corpora not found at {DATA}")
    if args.per_call:
        text = per_call(args.quick)
        print(text)
        if not args.no_write:
            from _sections import write_section

            write_section(ROOT / "docs" / "benchmarks.md", "fingerprint-per-call", text)
        return
    rows, breakdown = throughput(args.quick)
    agree = agreement(args.quick)
    qual = quality(args.quick)
    text = render(rows, breakdown, agree, qual, args.quick)
    print(text)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "benchmarks.md", "fingerprint", text)


if __name__ == "__main__":
    main()
