"""Benchmark of neardup's HammingIndex against faiss IndexBinaryMultiHash and the `simhash` package.

    .venv/bin/python bench/bench_index.py            # N = 10M (peers: faiss 10M, simhash 1M)
    .venv/bin/python bench/bench_index.py --quick    # N = 1M, a minute
    .venv/bin/python bench/bench_index.py --big 100000000   # the 100M row only (needs ~16 GB)

Data: uniformly random 64-bit fingerprints; queries are indexed fingerprints with 1..k bits
flipped (planted neighbours at distance 1..k), k = 3, one thread. Every row is checked against
brute force on a sample of queries (recall, and no result beyond k). Times are given both as wall
clock and as CPU time of the process: the benchmark machine is shared (2 cores, other jobs), so
the CPU-time rate is the better estimate of one dedicated core. Writes the `index` section of
docs/benchmarks.md and the design curve into docs/index.md unless --no-write.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from neardup.index import HammingIndex, design_for_tables, segments  # noqa: E402

K = 3


class Timer:
    def __enter__(self) -> Timer:
        self.w0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.w0
        self.cpu = time.process_time() - self.c0


def median_run(fn: Any, reps: int) -> tuple[Any, float, float]:
    walls, cpus, out = [], [], None
    for _ in range(reps):
        with Timer() as t:
            out = fn()
        walls.append(t.wall)
        cpus.append(t.cpu)
    return out, float(np.median(walls)), float(np.median(cpus))


def make_data(n: int, nq: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, n, dtype=np.uint64)
    src = rng.integers(0, n, nq)
    q = fps[src].copy()
    dist = rng.integers(1, K + 1, nq)
    for j in range(K):
        flip = np.uint64(1) << rng.integers(0, 64, nq).astype(np.uint64)
        # distinct bits: retry collisions by shifting; exactness checks use brute force anyway
        q = np.where(dist > j, q ^ flip, q)
    return fps, q, src


def popcount(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(np.atleast_1d(x).astype(np.uint64, copy=False))
    if hasattr(np, "bitwise_count"):  # numpy >= 2
        return np.bitwise_count(x)
    return np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)


def brute(fps: np.ndarray, q: np.ndarray) -> list[set[int]]:
    return [set(np.flatnonzero(popcount(fps ^ x) <= K).tolist()) for x in q]


def check(fps: np.ndarray, q: np.ndarray, sample: int, results: list[set[int]]) -> tuple[float, int]:
    """Recall on the first ``sample`` queries and how many results lie beyond k."""
    want = brute(fps, q[:sample])
    found = sum(len(w & r) for w, r in zip(want, results, strict=True))
    total = sum(len(w) for w in want)
    beyond = sum(len(r - w) for w, r in zip(want, results, strict=True))
    return found / max(total, 1), beyond


def group(qidx: np.ndarray, ids: np.ndarray, nq: int) -> list[set[int]]:
    out: list[set[int]] = [set() for _ in range(nq)]
    for a, b in zip(qidx.tolist(), ids.tolist(), strict=True):
        if a < nq:
            out[a].add(b)
    return out


def rss_mb() -> float:
    """Current resident memory (MiB): VmRSS of /proc/self/status."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def bench_neardup(fps: np.ndarray, q: np.ndarray, design: str, sample: int, reps: int) -> dict[str, Any]:
    ids = np.arange(fps.shape[0], dtype=np.int64)
    warm = HammingIndex(design=design)
    warm.add_many(ids[:10000], fps[:10000])
    warm.query_many(q[:10])
    gc.collect()
    r0 = rss_mb()  # the input arrays exist already: what the build adds and keeps
    idx, bw, bc = median_run(lambda: _built(design, ids, fps), 1)
    gc.collect()
    rss_fp = (rss_mb() - r0) * 2**20 / fps.shape[0]
    res, qw, qc = median_run(lambda: idx.query_many(q), reps)
    recall, beyond = check(fps, q, sample, group(res[0], res[1], sample))
    nb = idx.nbytes()
    one = segments.PARALLEL_BUILD
    segments.PARALLEL_BUILD = 1 << 62
    _, _, bc1 = median_run(lambda: _built(design, ids, fps), 1)
    segments.PARALLEL_BUILD = one
    gc.collect()
    out = {
        "system": f"neardup {design} ({idx.design.n_tables} tables)",
        "n": fps.shape[0],
        "build_wall": bw,
        "build_cpu": bc,
        "build_cpu_1t": bc1,
        "qps_wall": q.shape[0] / qw,
        "qps_cpu": q.shape[0] / qc,
        "bytes_tables": nb["tables"] / fps.shape[0],
        "bytes_total": sum(nb.values()) / fps.shape[0],
        "rss_fp": rss_fp,
        "recall": recall,
        "beyond": beyond,
        "index": idx,
    }
    return out


def _built(design: str, ids: np.ndarray, fps: np.ndarray) -> HammingIndex:
    idx = HammingIndex(design=design)
    idx.add_many(ids, fps)
    return idx


def bench_compressed(
    idx: HammingIndex, fps: np.ndarray, q: np.ndarray, sample: int, reps: int
) -> dict[str, Any]:
    from neardup.index.codec import CompressedSegment

    with tempfile.TemporaryDirectory(dir=os.environ.get("NEARDUP_BENCH_TMP")) as tmp:
        path = Path(tmp) / "idx.ndx"
        with Timer() as ts:
            idx.save(path, compress=True)
        with Timer() as to:
            c = HammingIndex.open(path, verify=False)
        with Timer() as tv:
            HammingIndex.open(path, verify=True)
        seg = c._segments[0]
        assert isinstance(seg, CompressedSegment)
        res, qw, qc = median_run(lambda: c.query_many(q), reps)
        recall, beyond = check(fps, q, sample, group(res[0], res[1], sample))
        size = path.stat().st_size
        return {
            "system": f"neardup {idx.design.spec} compressed, mmap ({idx.design.n_tables} tables)",
            "n": fps.shape[0],
            "build_wall": ts.wall,
            "build_cpu": ts.cpu,
            "qps_wall": q.shape[0] / qw,
            "qps_cpu": q.shape[0] / qc,
            "bytes_tables": seg.bytes_per_fp_per_table() * idx.design.n_tables,
            "bytes_per_table": seg.bytes_per_fp_per_table(),
            "bytes_total": size / fps.shape[0],
            "rss_fp": float("nan"),  # the file is memory-mapped: its pages are the OS's page cache
            "recall": recall,
            "beyond": beyond,
            "open_s": to.wall,
            "open_verify_s": tv.wall,
        }


def bench_faiss(fps: np.ndarray, q: np.ndarray, sample: int) -> dict[str, Any]:
    import faiss

    faiss.omp_set_num_threads(1)
    x = fps.view(np.uint8).reshape(-1, 8)
    r0 = rss_mb()
    with Timer() as tb:
        index = faiss.IndexBinaryMultiHash(64, 4, 16)
        index.add(x)
    mem = (rss_mb() - r0) * 2**20 / fps.shape[0]
    nq = min(q.shape[0], 3000)
    xq = q[:nq].view(np.uint8).reshape(-1, 8)
    with Timer() as tq:
        lims, _dists, labels = index.range_search(xq, K + 1)  # faiss keeps d < radius: k + 1 includes k
    res = [set(labels[lims[i] : lims[i + 1]].tolist()) for i in range(sample)]
    recall, beyond = check(fps, q, sample, res)
    del index
    gc.collect()
    return peer_row("faiss IndexBinaryMultiHash(64, 4, 16)", fps.shape[0], tb, nq, tq, mem, recall, beyond)


def peer_row(
    system: str, n: int, tb: Timer, nq: int, tq: Timer, mem: float, recall: float, beyond: int
) -> dict[str, Any]:
    """A peer's row: build and query timers, RSS growth per fingerprint, exactness."""
    return {
        "system": system,
        "n": n,
        "build_wall": tb.wall,
        "build_cpu": tb.cpu,
        "qps_wall": nq / tq.wall,
        "qps_cpu": nq / tq.cpu,
        "bytes_tables": float("nan"),
        "bytes_total": mem,
        "recall": recall,
        "beyond": beyond,
    }


def bench_simhash(n: int, q_all: np.ndarray, fps_all: np.ndarray, sample: int) -> dict[str, Any]:
    from simhash import Simhash, SimhashIndex

    fps = fps_all[:n]
    rng = np.random.default_rng(5)
    src = rng.integers(0, n, 2000)
    q = fps[src] ^ (np.uint64(1) << rng.integers(0, 64, 2000).astype(np.uint64))
    r0 = rss_mb()
    with Timer() as tb:
        objs = [(str(i), Simhash(int(v))) for i, v in enumerate(fps.tolist())]
        index = SimhashIndex(objs, k=K)
        del objs
    mem = (rss_mb() - r0) * 2**20 / n
    nq = 2000
    with Timer() as tq:
        res = [{int(s) for s in index.get_near_dups(Simhash(int(v)))} for v in q[:nq].tolist()]
    recall, beyond = check(fps, q, sample, res[:sample])
    del index
    gc.collect()
    return peer_row("simhash SimhashIndex (k=3)", n, tb, nq, tq, mem, recall, beyond)


def bench_pairs(n: int, design: str, reps: int) -> dict[str, Any]:
    """pairs() over n random fingerprints of which 1% are planted near-duplicates (1..k bits)."""
    rng = np.random.default_rng(7)
    n_near = n // 100
    base = rng.integers(0, 2**64, n - n_near, dtype=np.uint64)
    src = rng.integers(0, n - n_near, n_near)
    near = base[src].copy()
    for j in range(K):
        flip = np.uint64(1) << rng.integers(0, 64, n_near).astype(np.uint64)
        near = np.where(rng.integers(0, K, n_near) >= j, near ^ flip, near)
    fps = np.concatenate([base, near])
    ids = np.arange(n, dtype=np.int64)
    idx = HammingIndex(design=design)
    idx.add_many(ids, fps)
    (a, b, d), pw, pc = median_run(idx.pairs, reps)
    # checks: every returned distance is exact and <= k; every planted pair within k is found;
    # brute force for a sample of rows
    real = popcount(fps[a] ^ fps[b])
    beyond = int((real > K).sum() + (real != d).sum())
    planted_d = popcount(near ^ base[src])
    want = {(int(s), int(n - n_near + i)) for i, s in enumerate(src) if planted_d[i] <= K}
    got = set(zip(a.tolist(), b.tolist(), strict=True))
    planted_recall = len(want & got) / max(len(want), 1)
    rows = rng.integers(0, n, 30)
    ok = tot = 0
    for r in rows.tolist():
        nb = set(np.flatnonzero(popcount(fps ^ fps[r]) <= K).tolist()) - {r}
        mine = set(b[a == r].tolist()) | set(a[b == r].tolist())
        tot += len(nb)
        ok += len(nb & mine)
    used = idx.join_design(n)
    return {
        "n": n,
        "design": f"index {idx.design.spec}, join {used.spec} ({used.n_tables} tables)",
        "pairs": int(a.shape[0]),
        "wall": pw,
        "cpu": pc,
        "recall": min(planted_recall, ok / max(tot, 1)),
        "beyond": beyond,
    }


def _num(x: float) -> str:
    return "-" if x != x else f"{x:.1f}"


def fmt_row(r: dict[str, Any]) -> str:
    bt = r["bytes_tables"]
    return (
        f"| {r['system']} | {r['n']:,} | {r['build_wall']:.2f} / {r['build_cpu']:.2f} | "
        f"{r['qps_wall']:,.0f} / {r['qps_cpu']:,.0f} | "
        f"{'-' if bt != bt else f'{bt:.1f}'} | {r['bytes_total']:.1f} | {_num(r.get('rss_fp', r['bytes_total']))} | "
        f"{r['recall']:.3f} | {r['beyond']} |"
    )


HEAD = (
    "| system | N | build s (wall / cpu) | queries/s (wall / cpu) | table bytes/fp | array bytes/fp "
    "| RSS growth bytes/fp | recall | beyond k |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def machine() -> str:
    la = os.getloadavg()
    return (
        f"{os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
        f"{platform.machine()}, Python {platform.python_version()}, shared machine, load average at start {la[0]:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 1M instead of 10M")
    ap.add_argument("--big", type=int, default=0, help="only the large-N row (e.g. 100000000)")
    ap.add_argument(
        "--simhash-n", type=int, default=0, help="N for the simhash package (default 1M; quick 100k)"
    )
    ap.add_argument(
        "--codec-n", type=int, default=0, help="only: compressed size of one N-entry table per codec"
    )
    ap.add_argument("--no-write", action="store_true", help="print only, do not write docs")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    cmd = "python bench/bench_index.py " + " ".join(argv if argv is not None else sys.argv[1:])
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    mach = machine()
    lines: list[str] = []

    def out(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)

    if args.big:
        return big(args.big, args, cmd, when, mach)
    if args.codec_n:
        return codec_sizes(args.codec_n, args, cmd, when, mach)

    n = 1_000_000 if args.quick else 10_000_000
    nq = 100_000 if args.quick else 200_000
    sample = 100 if args.quick else 40
    fps, q, _ = make_data(n, nq)
    rows = []
    r4 = bench_neardup(fps, q, "auto", sample, args.reps)
    rows.append(r4)
    out(f"{fmt_row(r4)}")
    rows.append(bench_compressed(r4["index"], fps, q, sample, args.reps))
    out(fmt_row(rows[-1]))
    del r4["index"]
    gc.collect()
    r10 = bench_neardup(fps, q, "16,12,12,12,12", sample, args.reps)
    del r10["index"]
    rows.append(r10)
    out(fmt_row(r10))
    gc.collect()
    rows.append(bench_faiss(fps, q, sample))
    out(fmt_row(rows[-1]))
    sn = args.simhash_n or (100_000 if args.quick else 1_000_000)
    rows.append(bench_simhash(sn, q, fps, min(sample, 50)))
    out(fmt_row(rows[-1]))

    # pairs
    prow = []
    for pn in [1_000_000] if args.quick else [1_000_000, 10_000_000]:
        prow.append(bench_pairs(pn, "auto", args.reps if pn <= 1_000_000 else 1))
        out(str(prow[-1]))

    # design curve: memory vs speed as N grows
    curve = []
    ns = [100_000, 300_000, 1_000_000] if args.quick else [1_000_000, 3_000_000, 10_000_000]
    for cn in ns:
        cf, cq, _ = make_data(cn, min(nq, 100_000), seed=11)
        for tables in (4, 10, 20):
            d = design_for_tables(tables).spec
            r = bench_neardup(cf, cq, d, 20, args.reps)
            del r["index"]
            gc.collect()
            curve.append((cn, tables, d, r))
            out(f"curve N={cn:,} tables={tables}: {r['qps_cpu']:,.0f} q/s cpu, {r['bytes_total']:.1f} B/fp")

    body = render(rows, prow, curve, cmd, when, mach, args.quick, sn)
    print(body)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "benchmarks.md", "index", body)
        write_section(ROOT / "docs" / "index.md", "index-curve", render_curve(curve, cmd, when, mach))
    return 0


def render_curve(curve: list[Any], cmd: str, when: str, mach: str) -> str:
    out = [
        f"Measured by `{cmd}` on {when} ({mach}); one thread; CPU-time rates.",
        "",
        "| N | tables | design | build s (cpu) | queries/s (cpu) | queries/s (wall) | bytes/fp (tables + offsets + ids) |",
        "|---:|---:|---|---:|---:|---:|---:|",
    ]
    for cn, tables, d, r in curve:
        out.append(
            f"| {cn:,} | {tables} | {d} | {r['build_cpu']:.2f} | {r['qps_cpu']:,.0f} | {r['qps_wall']:,.0f} | "
            f"{r['bytes_total']:.1f} |"
        )
    return "\n".join(out)


def render(
    rows: list[Any], prow: list[Any], curve: list[Any], cmd: str, when: str, mach: str, quick: bool, sn: int
) -> str:
    n = rows[0]["n"]
    main_r, comp, r10 = rows[0], rows[1], rows[2]
    faiss_r, sim_r = rows[3], rows[4]
    out = [
        "### Hamming index (`neardup.index.HammingIndex`)",
        "",
        f"Command: `{cmd}` — {when} — machine: {mach}.",
        f"Random 64-bit fingerprints, queries = indexed fingerprints with 1..3 bits flipped, k = 3, one thread"
        f" (faiss: `omp_set_num_threads(1)`). simhash package at N = {sn:,} (pure Python: 10M does not fit the"
        " time budget; its per-query cost grows with N). Recall and 'beyond k' are checked against brute force on a"
        " sample of queries in every row. Times are medians of 3 (wall / process CPU); the machine was shared, so"
        " CPU-time rates estimate one dedicated core better than wall clock.",
        "",
        HEAD,
        *[fmt_row(r) for r in rows],
        "",
        f"Compressed tables ({comp['system']}): {comp['bytes_per_table']:.2f} bytes per fingerprint per table,"
        f" open without checksum verification {comp['open_s'] * 1000:.1f} ms, with xxh3 verification"
        f" {comp['open_verify_s'] * 1000:.0f} ms; save+compress {comp['build_wall']:.1f} s.",
        "",
        "| pairs() over N (1% planted near-duplicates) | design used for the join | pairs | seconds (wall / cpu) | recall | beyond k |",
        "|---:|---|---:|---:|---:|---:|",
        *[
            f"| {p['n']:,} | {p['design']} | {p['pairs']:,} | {p['wall']:.2f} / {p['cpu']:.2f} | {p['recall']:.3f} | {p['beyond']} |"
            for p in prow
        ],
        "",
        "Targets (N = 10M, k = 3, one core):",
    ]
    ratio_f = main_r["qps_cpu"] / faiss_r["qps_cpu"]
    qv = main_r["qps_cpu"]
    rss = main_r["rss_fp"]
    bcpu = main_r["build_cpu_1t"]
    out += [
        f"- query_many at N = {n:,}: {qv:,.0f} q/s CPU-time ({main_r['qps_wall']:,.0f} wall), target 1,000,000:"
        f" {'met' if qv >= 1e6 else f'missed by {1 - qv / 1e6:.0%}'}; {ratio_f:.0f}x faiss IndexBinaryMultiHash and"
        f" {qv / sim_r['qps_cpu']:.0f}x the simhash package measured in this run.",
        f"- memory: RSS grew {rss:.1f} bytes/fp over the build (the input arrays existed before), target 24:"
        f" {'met' if rss <= 24 else f'missed by {rss - 24:.1f} bytes ({rss / 24 - 1:.0%})'}; the arrays it holds are"
        f" {main_r['bytes_tables']:.1f} bytes/fp of residual tables (table 0: 32 + 16 bits below its 16-bit"
        " directory key; tables 1-3: 32 bits each) + 4 of int32 ids +"
        f" {main_r['bytes_total'] - main_r['bytes_tables'] - 4:.1f} of directories;"
        f" faiss IndexBinaryMultiHash: {faiss_r['bytes_total']:.1f} bytes/fp of RSS in the same run.",
        f"- build: {main_r['build_cpu']:.2f} s CPU on two threads ({main_r['build_wall']:.2f} wall);"
        f" {bcpu:.2f} s CPU on one thread, target 2 s: {'met' if bcpu <= 2 else f'missed by {bcpu / 2 - 1:.0%}'}.",
        f"- compressed: {comp['bytes_per_table']:.2f} bytes/fp/table at N = {n:,} (gap codec, blocks of 128);"
        " it falls by ~0.4 per 10x N (sorted neighbours share log2 N more leading bits): the 100M"
        " measurement (`--codec-n 100000000`, `--big 100000000`) is in docs/index.md.",
    ]
    for p in prow:
        tgt = 1.0 if p["n"] <= 1_000_000 else 15.0
        out.append(
            f"- pairs() over {p['n']:,}: {p['cpu']:.2f} s CPU ({p['wall']:.2f} wall), target {tgt:g} s:"
            f" {'met' if p['cpu'] <= tgt else 'missed'}."
        )
    out.append(
        "- recall 1.000 and 0 results beyond k in every row: "
        + (
            "yes."
            if all(r["recall"] == 1.0 and r["beyond"] == 0 for r in rows + prow)
            else "NO, see the table."
        )
    )
    out.append("")
    out.append("The table-count curve (4 / 10 / 20 tables as N grows) is in docs/index.md.")
    del r10, quick
    return "\n".join(out)


def codec_sizes(n: int, args: Any, cmd: str, when: str, mach: str) -> int:
    """Bytes per fingerprint of one compressed sorted table of n random fingerprints.

    Every table of the index is a bit permutation of uniform random fingerprints, so one table
    measures them all (and needs 1/10 of the memory of the 10-table index).
    """
    from neardup.index.codec import decode_table, encode_table

    v = np.random.default_rng(0).integers(0, 2**64, n, dtype=np.uint64)
    v.sort()
    lines = [
        f"Compressed table size: `{cmd}` — {when} — {mach}.",
        "",
        "| N | codec | block size | bytes/fp/table | encode s (cpu) | decode ns/entry (cpu) | exact round trip |",
        "|---:|---|---:|---:|---:|---:|---|",
    ]
    for codec in ("xor", "gap"):
        for block in (64, 128):
            with Timer() as te:
                enc = encode_table(v, block, codec)
            with Timer() as td:
                ok = bool(np.array_equal(decode_table(enc), v))
            lines.append(
                f"| {n:,} | {codec}{' (seed 004)' if codec == 'xor' else ''} | {block} | {enc.nbytes / n:.3f} |"
                f" {te.cpu:.1f} | {td.cpu / n * 1e9:.0f} | {ok} |"
            )
            print(lines[-1], flush=True)
            del enc
    body = "\n".join(lines)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "index.md", "index-codec", body)
    return 0


def big(n: int, args: Any, cmd: str, when: str, mach: str) -> int:
    """The large-N row: auto design, build, query, compress in memory, query compressed."""
    from neardup.index.codec import CompressedSegment

    nq = 100_000
    fps, q, _ = make_data(n, nq, seed=3)
    ids = np.arange(n, dtype=np.int64)
    warm = HammingIndex(expected_size=n)
    warm.add_many(ids[:10000], fps[:10000])
    warm.query_many(q[:10])
    with Timer() as tb:
        idx = HammingIndex(expected_size=n)
        idx.add_many(ids, fps)
    del ids
    gc.collect()
    res, qw, qc = median_run(lambda: idx.query_many(q), 3)
    recall, beyond = check(fps, q, 10, group(res[0], res[1], 10))
    nb = idx.nbytes()
    seg = idx._segments[0]
    with Timer() as tc:
        cseg = CompressedSegment.from_segment(seg)
    idx._segments = [cseg]
    del seg
    gc.collect()
    cres, cqw, cqc = median_run(lambda: idx.query_many(q), 3)
    crec, cbey = check(fps, q, 10, group(cres[0], cres[1], 10))
    lines = [
        f"Large-N row: `{cmd}` — {when} — {mach}; peak RSS {peak_rss_gb():.1f} GiB.",
        "",
        "| N | design | build s (wall / cpu) | queries/s (wall / cpu) | bytes/fp all tables | compressed bytes/fp/table |"
        " compress s | compressed queries/s (wall / cpu) | recall | beyond k |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {n:,} | {idx.design.spec} ({idx.design.n_tables} tables) | {tb.wall:.1f} / {tb.cpu:.1f} |"
        f" {nq / qw:,.0f} / {nq / qc:,.0f} | {nb['tables'] / n:.1f} | {cseg.bytes_per_fp_per_table():.2f} |"
        f" {tc.wall:.1f} | {nq / cqw:,.0f} / {nq / cqc:,.0f} | {min(recall, crec):.3f} | {beyond + cbey} |",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "index.md", "index-big", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
