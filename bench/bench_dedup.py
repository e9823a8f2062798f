"""Benchmark ``neardup dedup``: the xwlb corpus end to end against PyPI peers, and the plan at scale.

    .venv/bin/python bench/bench_dedup.py            # full: xwlb x3, peers, 10M self-join, 1M vs 30M probe
    .venv/bin/python bench/bench_dedup.py --quick    # smaller, for a smoke run

Writes the ``dedup`` section of docs/benchmarks.md and the ``spark`` section of docs/scaling.md.
Every scale step runs in its own process, so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import write_section  # noqa: E402

DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
XWLB = DATA / "zh-xwlb.jsonl.gz"
PY = sys.executable


def _features_label() -> str:
    """How DedupConfig() fingerprints, for the report (it follows the defaults in code)."""
    from neardup.dedup import DedupConfig

    cfg = DedupConfig()
    sim = cfg.simhash
    what = f"char {sim.ngram}-gram shingles" if sim.features == "shingles" else sim.features
    return f"SimHash of {sim.weighting} {what}, k <= {cfg.max_distance}"


def run_cli(out: Path, method: str) -> tuple[float, str, float]:
    """Wall seconds (start-up included), the summary line, and CPU seconds of the child."""
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    res = subprocess.run(
        [PY, "-m", "neardup.cli.main", "dedup", str(XWLB), "--out", str(out), "--method", method],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    wall = time.perf_counter() - t
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return wall, res.stderr.strip().splitlines()[0], cpu


def peers(n_docs: int | None) -> dict[str, float | int]:
    """The simhash package (Simhash + SimhashIndex, k=3) and datasketch MinHashLSH (char 5-grams)."""
    code = r"""
import gzip, json, sys, time, orjson
n = int(sys.argv[1]) if sys.argv[1] != "all" else None
docs = [orjson.loads(l)["text"] for l in gzip.open(sys.argv[2])]
docs = docs[:n] if n else docs
out = {"docs": len(docs)}
from simhash import Simhash, SimhashIndex
t = time.perf_counter()
objs = [(str(i), Simhash(d)) for i, d in enumerate(docs)]
idx = SimhashIndex(objs, k=3)
out["simhash_dups"] = sum(len(idx.get_near_dups(s)) > 1 for _, s in objs)
out["simhash_s"] = time.perf_counter() - t
from datasketch import MinHash, MinHashLSH
t = time.perf_counter()
lsh = MinHashLSH(threshold=0.8, num_perm=128)
ms = []
for i, d in enumerate(docs):
    m = MinHash(num_perm=128)
    m.update_batch([d[j:j + 5].encode() for j in range(max(1, len(d) - 4))])
    lsh.insert(str(i), m)
    ms.append(m)
out["minhash_dups"] = sum(len(lsh.query(m)) > 1 for m in ms)
out["minhash_s"] = time.perf_counter() - t
print(json.dumps(out))
"""
    res = subprocess.run(
        [PY, "-c", code, str(n_docs or "all"), str(XWLB)],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return json.loads(res.stdout)


SCALE_WITHIN = r"""
import json, resource, sys, time
import numpy as np
from neardup.dedup.plan import PlanStats, first_of_groups, forest_edges
n = int(sys.argv[1])
rng = np.random.default_rng(1)
fps = rng.integers(0, 2**64 - 1, n, dtype=np.uint64)
# 1% near copies (1-3 bits flipped) so there is something to find
m = n // 100
src = rng.integers(0, n, m)
flips = np.zeros(m, np.uint64)
for _ in range(2):
    flips |= np.uint64(1) << rng.integers(0, 64, m).astype(np.uint64)
fps[rng.integers(0, n, m)] = fps[src] ^ flips
from neardup.dedup.plan import forest_edges as _w
_w(fps[:1000], 3)  # compile outside the timing
t = time.perf_counter()
c0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
firsts, fa, fb = first_of_groups(fps)
st = PlanStats()
a, b = forest_edges(fps[firsts], 3, stats=st, positions=firsts)
from neardup.dedup.clusters import components
roots = components(n, np.concatenate([fa, a]), np.concatenate([fb, b]))
sec = time.perf_counter() - t
cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0
print(json.dumps({"n": n, "seconds": sec, "cpu_s": cpu, "edges": int(a.size + fa.size), "clusters": int(np.unique(roots).size),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SCALE_PROBE = r"""
import json, resource, sys, time
import numba
import numpy as np
from neardup.dedup.plan import BatchTables, min_merge
nb, nc, chunk = int(sys.argv[1]), int(sys.argv[2]), 10_000_000
rng = np.random.default_rng(2)
batch = rng.integers(0, 2**64 - 1, nb, dtype=np.uint64)
BatchTables(batch[:1000], 3).probe(batch[:5000], np.arange(5000))  # compile outside the timing
t = time.perf_counter()
tables = BatchTables(batch, 3)
build = time.perf_counter() - t
best = np.full(nb, -1, np.int64)
probe = 0.0
cpu = 0.0
gen = 0.0
done = 0
while done < nc:
    size = min(chunk, nc - done)
    g = time.perf_counter()
    corpus = rng.integers(0, 2**64 - 1, size, dtype=np.uint64)
    corpus[:1000] = batch[rng.integers(0, nb, 1000)] ^ np.uint64(0b11)  # a few duplicates per chunk
    pos = np.arange(done, done + size, dtype=np.int64)
    p = time.perf_counter()
    gen += p - g
    c0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    best = min_merge(np.stack([best, tables.probe(corpus, pos)]))
    probe += time.perf_counter() - p
    cpu += resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0
    done += size
print(json.dumps({"batch": nb, "corpus": nc, "build_s": build, "probe_s": probe, "cpu_s": cpu, "matched": int((best >= 0).sum()),
                  "threads": numba.get_num_threads(),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "tables_mb": (tables.tab_fps.nbytes + tables.tab_pos.nbytes + tables.offsets.nbytes) / 1e6}))
"""


def sub(code: str, *args: object) -> dict[str, float]:
    res = subprocess.run(
        [PY, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=900, check=True
    )
    return json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--full-peers", action="store_true", help="Peers over all 19,541 documents (~10 min here)."
    )
    ap.add_argument("--corpus", type=int, default=None, help="Corpus fingerprints for the probe step.")
    args = ap.parse_args()
    if not XWLB.exists():
        sys.exit(f"corpus not found: {XWLB}")
    repeats = 1 if args.quick else 3
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()[0]
    rows: list[str] = []

    # 1. xwlb end to end (start-up included), both methods
    with tempfile.TemporaryDirectory() as d:
        times: dict[str, list[float]] = {"simhash": [], "both": []}
        lines: dict[str, str] = {}
        cpus: dict[str, list[float]] = {}
        for i in range(repeats):
            for method in times:
                if method == "both" and i > 0:
                    continue
                sec, line, cpu = run_cli(Path(d) / f"{method}.jsonl", method)
                cpus.setdefault(method, []).append(cpu)
                times[method].append(sec)
                lines[method] = line
        dups = {
            m: sum(
                '"duplicate_of":null' not in ln for ln in (Path(d) / f"{m}.jsonl").read_text().splitlines()
            )
            for m in times
        }
    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"xwlb: {med} {lines}")

    # 2. peers over the same documents (in-process time, start-up excluded: in their favour)
    pn = 3000 if args.quick else (None if args.full_peers else 5000)
    p = peers(pn)
    scale = 19_541 / p["docs"]
    sim_s, mh_s = p["simhash_s"] * scale, p["minhash_s"] * scale
    print(f"peers: {p}")

    # 3. scale: within-batch, batch vs corpus
    n_within = 1_000_000 if args.quick else 10_000_000
    within = sub(SCALE_WITHIN, n_within)
    print(f"within: {within}")
    n_corpus = args.corpus or (5_000_000 if args.quick else 30_000_000)
    probe = sub(SCALE_PROBE, 1_000_000, n_corpus)
    print(f"probe: {probe}")
    per_100m = probe["probe_s"] * 100_000_000 / n_corpus
    rate_core = n_corpus / max(probe["cpu_s"], 1e-9)  # per CPU-second: independent of the machine's load

    ok = "met" if med["simhash"] <= 10 else f"missed by {med['simhash'] - 10:.1f} s"
    ok10 = "met" if within["seconds"] <= 30 else f"missed by {within['seconds'] - 30:.1f} s"
    rows = [
        "| step | neardup | peer | ratio |",
        "|---|---|---|---|",
        f"| xwlb 19,541 docs, `neardup dedup` (default --method simhash; wall, start-up incl.) | "
        f"{med['simhash']:.1f} s ({dups['simhash']} duplicates) | simhash pkg `Simhash`+`SimhashIndex` k=3: "
        f"{sim_s:.1f} s ({p['simhash_dups']} docs with a near dup) | {sim_s / med['simhash']:.1f}x faster |",
        f"| same | | datasketch `MinHashLSH` 128 perms, t=0.8, char 5-grams: {mh_s:.1f} s "
        f"({p['minhash_dups']} docs with a match) | {mh_s / med['simhash']:.1f}x faster |",
        f"| same, --method both (one run) | {med['both']:.1f} s ({dups['both']} duplicates: nshash also joins "
        "templated stories sharing a long boilerplate sentence) | | |",
        f"| within-batch step, {within['n']:,} synthetic fingerprints (1% near copies) | {within['seconds']:.1f} s "
        f"wall ({within['cpu_s']:.1f} CPU-s), "
        f"peak RSS {within['rss_mb']:.0f} MB, {within['clusters']:,} clusters | | |",
        f"| 1M batch vs {n_corpus:,} corpus fingerprints (streamed in 10M chunks) | tables {probe['build_s']:.1f} s "
        f"({probe['tables_mb']:.0f} MB), probe {probe['probe_s']:.1f} s wall ({probe['cpu_s']:.1f} CPU-s), peak RSS {probe['rss_mb']:.0f} MB | | |",
        f"| 1M vs 100M, extrapolated linearly from the {n_corpus // 1_000_000}M run | {build_s(probe):.1f} s + "
        f"{per_100m:.0f} s probe, same memory (corpus streamed) | | |",
    ]
    body = "\n".join(
        [
            f"`{Path(PY).name} bench/bench_dedup.py{' --quick' if args.quick else ''}` — {date}, machine 2 cores, "
            f"24 GiB, shared (1-min load average {load:.1f} at start: figures are noisy; ratios are from the same run).",
            "",
            *rows,
            "",
            f"- xwlb target <= 10 s wall: **{ok}** (median of {repeats}; runs: "
            f"{', '.join(f'{t:.1f}' for t in times['simhash'])} s; CPU {statistics.median(cpus['simhash']):.1f} s "
            f"over both cores, i.e. ~{statistics.median(cpus['simhash']) / 2:.1f} s wall on an idle 2-core machine). Most of the time is SimHash fingerprinting "
            f"({_features_label()}, the default of `DedupConfig`) on 2 processes; the plan itself takes well under a second.",
            f"- 10M within-batch target <= 30 s: **{ok10}**"
            + ("" if within["n"] >= 10_000_000 else " (quick run: 1M only)")
            + ". Design: C(5,2) = 10 tables of "
            "26-bit keys once 16-bit keys would leave > 8 fingerprints a key; one packed uint64 sort per table.",
            f"- 1M vs 100M: measured {n_corpus:,} corpus fingerprints and extrapolated (the machine is shared; the "
            f"corpus is streamed so memory does not grow with it): about {per_100m:.0f} s of probing, "
            f"{rate_core / 1e6:.2f}M corpus fingerprints per second per core.",
            f"- Peers ran on {p['docs']:,} documents"
            + (" and were scaled to 19,541" if pn else "")
            + "; their times exclude interpreter start-up, neardup's include it.",
        ]
    )
    print(body)
    scaling = spark_section(date, rate_core, probe, within, statistics.median(cpus["simhash"]))
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "dedup", body)
        write_section(ROOT / "docs" / "scaling.md", "spark", scaling)


def build_s(probe: dict[str, float]) -> float:
    return float(probe["build_s"])


READ_CPU_PER_M = (
    0.13  # CPU-s to decode 1M index rows (pos, fp, exact, ns) from Parquet, measured with pyarrow
)


def spark_section(
    date: str,
    rate_core: float,
    probe: dict[str, float],
    within: dict[str, float],
    xwlb_cpu: float | None = None,
) -> str:
    # seed 001: 1 TB of non-duplicate pages vs a new batch of 1M. At ~10 KB of HTML per page, 1 TB is
    # ~100M pages; the corpus index stores ~70 bytes per page (fp, exact, 5 sentence hashes, id).
    corpus_docs = 100_000_000
    index_gb = corpus_docs * 70 / 1e9
    tasks = max(1, int(index_gb * 1e9 / 128e6))
    per_m = 1e6 / rate_core + READ_CPU_PER_M  # CPU-s per 1M corpus documents in one task
    total_cpu = per_m * corpus_docs / 1e6
    fp_rate = 19_541 / xwlb_cpu if xwlb_cpu else 1600.0
    lines = [
        "## Spark: seed 001's 1M new pages against a 1 TB corpus",
        "",
        f"Projected from CPU-second rates measured by `bench/bench_dedup.py` ({date}, this shared 2-core machine;",
        "CPU seconds rather than wall seconds, so the machine's load does not enter). The Spark executors run",
        "the very kernels measured here (`neardup.dedup.plan`) inside `mapInPandas`.",
        "",
        f"- Against-corpus task rate: probe {1e6 / rate_core:.2f} CPU-s + Parquet decode {READ_CPU_PER_M:.2f} CPU-s "
        f"= **{per_m:.2f} CPU-s per 1M corpus documents** against a broadcast 1M-document batch "
        f"({probe['tables_mb']:.0f} MB of tables, built in {probe['build_s']:.1f} s on the driver).",
        f"- Within-batch: {within['n']:,} fingerprints self-joined in {within['cpu_s']:.1f} CPU-s "
        f"({within['seconds']:.1f} s wall here); a 1M batch is well under a second of work, dominated in Spark by "
        "the shuffle of its 4-10 exploded keys per document.",
        f"- Fingerprinting new pages: ~{fp_rate:,.0f} documents per CPU-s (xwlb, {_features_label()}): 1M pages "
        f"= ~{1e6 / fp_rate:.0f} CPU-s.",
        f"- 1 TB of pages at ~10 KB each is ~{corpus_docs / 1e6:.0f}M documents; their index is ~{index_gb:.0f} GB "
        f"of Parquet (70 bytes a document, measured), ~{tasks} tasks of 128 MB; streaming it once costs "
        f"~{total_cpu:.0f} CPU-s.",
        "",
        "| cluster | fingerprint 1M new | within batch | 1M vs 100M probe | + broadcast, scheduling (guess) |",
        "|---|---|---|---|---|",
    ]
    for cores in (16, 64, 256):
        lines.append(
            f"| {cores} cores | {1e6 / fp_rate / cores:.0f} s | < 5 s + shuffle | {total_cpu / cores:.1f} s "
            f"(>= {tasks} tasks) | 10-60 s |"
        )
    lines += [
        "",
        "So the whole seed-001 job (1M new vs 1 TB) is a few minutes on a modest cluster, and it is bound by",
        "fingerprinting the new pages and by Spark's fixed costs, not by the comparison: the corpus is never",
        "re-fingerprinted, only its 8-byte fingerprints stream past the broadcast tables, which is why the seed",
        "turns the join around. Memory per executor: the broadcast (tables + exact and sentence hashes,",
        "~120 MB for 1M) plus one Arrow batch of the corpus. Untested on a real cluster: these are projections.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
