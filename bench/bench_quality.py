"""Quality benchmark: the shipped match engine against the PyPI `simhash` package and datasketch's
MinHashLSH on held-out labelled repost sets (realistic profile) made from zh-xwlb and en-bbc.

    .venv/bin/python bench/bench_quality.py [--quick] [--seed 4] [--repeat 3]

The sets are made at run time by ``neardup synth`` (never committed): ``--seed 4`` is the test seed,
the thresholds were calibrated on seeds 1, 2 and 3 (``bench/calibrate.py``). Scores are pairwise
(docs/quality.md): F1 on duplicate pairs (exact, reformatted, near copies), the share of hard-negative
look-alikes merged with their look-alike, recall by kind (partial copies: reported as related by the
engine; merged, for the peers, which have no other way to say it). Times: median of --repeat runs of
the whole pipeline from text (main-text extraction of HTML copies included), on a shared 2-core
machine: compare ratios. Writes the ``quality`` section of docs/benchmarks.md.
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
from neardup.contentseen.extract import extract_main_text  # noqa: E402
from neardup.dedup import DedupConfig, dedup_records  # noqa: E402
from neardup.eval.metrics import Truth, evaluate  # noqa: E402
from neardup.eval.synth import SynthConfig, synthesize  # noqa: E402
from neardup.index import cluster_labels  # noqa: E402
from neardup.io import Record  # noqa: E402
from neardup.match import MatchConfig  # noqa: E402

Labels = tuple[dict[str, str], dict[str, str]]  # (id -> cluster, id -> related id)


def _components(ids: list[str], pairs: list[tuple[int, int]]) -> dict[str, str]:
    """Each id's cluster: the first id of its connected component."""
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    labels = cluster_labels(np.arange(len(ids), dtype=np.int64), a, b)
    return {ids[i]: ids[lab] for i, lab in enumerate(labels.tolist())}


def _texts(docs: list[dict[str, Any]]) -> list[str]:
    return [d.get("text") or extract_main_text(d["html"]) for d in docs]


def engine(docs: list[dict[str, Any]], lang: str) -> Labels:
    # as `neardup dedup` reads the set's JSON Lines: the other fields (the date) ride along
    rows = dedup_records(
        [
            Record(
                id=d["id"],
                text=d.get("text"),
                html=d.get("html"),
                extra={k: v for k, v in d.items() if k not in ("id", "text", "html")},
            )
            for d in docs
        ],
        DedupConfig(),
    )
    pred, rel = {}, {}
    for r in rows:
        pred[r["id"]] = r["cluster"]
        if r.get("related_to"):
            rel[r["id"]] = r["related_to"]
    return pred, rel


def peer_minhash(docs: list[dict[str, Any]], lang: str, threshold: float = 0.5) -> Labels:
    from datasketch import MinHash, MinHashLSH

    texts = _texts(docs)
    ids = [d["id"] for d in docs]
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    sigs = []
    for i, t in enumerate(texts):
        m = MinHash(num_perm=128)
        if lang == "zh":
            s = "".join(t.split())
            grams = [s[k : k + 5] for k in range(max(1, len(s) - 4))]
        else:
            w = t.lower().split()
            grams = [" ".join(w[k : k + 5]) for k in range(max(1, len(w) - 4))]
        m.update_batch([g.encode("utf-8") for g in grams])
        lsh.insert(str(i), m)
        sigs.append(m)
    pairs = [(i, int(j)) for i, m in enumerate(sigs) for j in lsh.query(m) if int(j) > i]
    return _components(ids, pairs), {}


def peer_simhash(docs: list[dict[str, Any]], lang: str, k: int = 3) -> Labels:
    import logging

    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)
    texts = _texts(docs)
    ids = [d["id"] for d in docs]
    hashes = [Simhash(t) for t in texts]
    index = SimhashIndex([(str(i), h) for i, h in enumerate(hashes)], k=k)
    pairs = [(i, int(j)) for i, h in enumerate(hashes) for j in index.get_near_dups(h) if int(j) > i]
    return _components(ids, pairs), {}


def _timed(fn: Callable[[], Labels], repeat: int) -> tuple[Labels, float]:
    times = []
    out: Labels = ({}, {})
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def _pct(d: dict[str, float], k: str) -> str:
    return f"{d[k]:.1%}" if k in d else "-"


def make_set(lang: str, seed: int, n_sources: int) -> tuple[list[dict[str, Any]], Truth]:
    name = "zh-xwlb" if lang == "zh" else "en-bbc"
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as fh:
        recs = [json.loads(line) for line in fh]
    docs, truth = synthesize(recs, SynthConfig(lang=lang, seed=seed, n_sources=n_sources))  # type: ignore[arg-type]
    return docs, Truth.from_records(truth)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="300 sources, one timing run")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--n-sources", type=int, default=None, help="sources per set (default 800, 300 quick)")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    n_sources = args.n_sources or (300 if args.quick else 800)
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    methods: list[tuple[str, Callable[[list[dict[str, Any]], str], Labels]]] = [
        ("neardup match engine (`neardup dedup` defaults)", engine),
        ("datasketch MinHashLSH, 128 perms, threshold 0.5, 5-grams", peer_minhash),
        ("simhash package, Simhash(text) + SimhashIndex k=3", peer_simhash),
    ]
    lines = []
    case_lines: list[str] = []
    for lang in ("zh", "en"):
        docs, truth = make_set(lang, args.seed, n_sources)
        counts: dict[str, int] = {}
        for d in truth.docs.values():
            counts[d.kind] = counts.get(d.kind, 0) + 1
        lines.append(
            f"\n**{lang}** ({'zh-xwlb' if lang == 'zh' else 'en-bbc'}, seed {args.seed}, {n_sources} sources): "
            f"{len(docs)} documents ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}).\n"
        )
        lines.append(
            "| method | F1 (dup pairs) | precision | recall | look-alikes merged | near recall | partial recall | time s | time ratio |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|")
        base_t = None
        case_lines += [
            f"\n**{lang}**, cases beyond reposts (merged: with their source or look-alike; related: reported "
            "as related to their source's group, not merged; recall: put in their source's cluster):\n",
            "| method | template merged | quote merged | quote related | follow-up merged | follow-up related "
            "| corrected recall | script recall | renumbered recall | excerpt recall |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, fn in methods:
            (pred, rel), secs = _timed(lambda fn=fn, docs=docs, lang=lang: fn(docs, lang), repeat)
            ev = evaluate(pred, truth, rel)
            base_t = base_t or secs
            hn = ev.hard_negatives_merged
            lines.append(
                f"| {name} | {ev.duplicates.f1:.4f} | {ev.duplicates.precision:.4f} | {ev.duplicates.recall:.4f} | "
                f"{'-' if hn is None else f'{hn:.2%}'} | {ev.recall_by_kind.get('near', 0):.4f} | "
                f"{ev.recall_by_kind.get('partial', 0):.4f} | {secs:.2f} | {secs / base_t:.2f}x |"
            )
            print(lines[-1], flush=True)
            m, rel_k, rec = ev.merged_by_kind, ev.related_by_kind, ev.recall_by_kind
            case_lines.append(
                f"| {name} | {_pct(m, 'template')} | {_pct(m, 'quote')} | {_pct(rel_k, 'quote')} | "
                f"{_pct(m, 'follow_up')} | {_pct(rel_k, 'follow_up')} | {_pct(rec, 'corrected')} | "
                f"{_pct(rec, 'script')} | {_pct(rec, 'renumbered')} | {_pct(rec, 'excerpt')} |"
            )
            print(case_lines[-1], flush=True)
    cfg = MatchConfig()
    body = "\n".join(
        [
            "## Quality: the match engine against `simhash` and datasketch on held-out labelled reposts",
            "",
            f"Command `python bench/bench_quality.py --seed {args.seed}`, {started}, machine {os.cpu_count()} cores "
            f"(shared, noisy), Python {platform.python_version()}. Sets: `neardup synth` realistic profile, test seed "
            f"{args.seed} (thresholds were calibrated on seeds 1, 2 and 3 with `bench/calibrate.py`). Engine: token "
            f"{cfg.shingle}-grams, sketch {cfg.sketch_size}, near at similarity >= {cfg.near_similarity} or "
            f"containment >= {cfg.near_containment}, numbers in place must agree. Times: median of {repeat} run(s), "
            "text in, clusters out (the peers get the main text already extracted; the engine extracts it).",
            *lines,
            "",
            "Look-alikes merged counts the hard negatives and the subject-swapped templates together; F1 on "
            "duplicate pairs includes the corrected, script, renumbered and excerpt copies, and counts a quote, "
            "follow-up or template merged with its source as a wrong pair.",
            *case_lines,
            "",
        ]
    )
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "quality", body)
    print(body)


if __name__ == "__main__":
    main()
