"""Cold start: what a new user's first runs cost in a fresh install, before and after ``neardup warmup``.

    python bench/bench_startup.py [--runs 3] [--no-write] [--only dedup,index,nshash,small]

Every measurement is a new process with its own, empty ``NUMBA_CACHE_DIR`` (nothing compiled
earlier is reused), run from this checkout's ``src`` with the running interpreter. Each target is
measured twice: **cold** (the cache empty: whatever numba needs is compiled during the run) and
**after warmup** (``python -m neardup.warmup`` filled that empty cache first, as ``make venv`` and
the install instructions do; the warmup's own time is given too). Targets (issue 25):

- ``neardup dedup`` of en-bbc (2,225 documents) <= 5 s wall, process spawn to exit;
- the first ``HammingIndex.query`` in a fresh process <= 0.5 s (after ``add_many`` of 100,000
  fingerprints, which is timed on its own);
- nshash one document a call (``NSHash.get_similar``) over zh-xwlb (19,541 items) in a fresh
  process <= the seed's plain-Python reading (``bench_nshash.SeedNSHash``) on the same texts, timed
  in the same process right after;
- and, as before, ``neardup dedup`` of 3 documents (small inputs run their kernels interpreted).

Writes the ``startup`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
sys.path.insert(0, str(ROOT / "bench"))

NEARDUP = [
    sys.executable,
    "-c",
    "import sys; sys.argv[0] = 'neardup'; from neardup.cli.main import main; main()",
]
WARMUP = [sys.executable, "-m", "neardup.warmup", "--quiet"]

INDEX_CODE = """
import json, time
t0 = time.perf_counter()
import numpy as np
from neardup import HammingIndex
from neardup._jit import on_first_compile
compiled = []
on_first_compile(lambda: compiled.append(1))
t1 = time.perf_counter()
fps = np.random.default_rng(7).integers(0, 2**63, 100_000, dtype=np.int64).astype(np.uint64)
idx = HammingIndex(bits=64, max_distance=3)
t2 = time.perf_counter()
idx.add_many(np.arange(fps.size, dtype=np.int64), fps)
t3 = time.perf_counter()
hits = idx.query(int(fps[123]) ^ 0b101)
t4 = time.perf_counter()
assert (123, 2) in hits, hits
print(json.dumps({"import": t1 - t0, "add_many": t3 - t2, "query": t4 - t3, "compiled": float(bool(compiled))}))
"""

NSHASH_CODE = """
import gzip, json, sys, time
texts = [json.loads(line)["text"] for line in gzip.open(sys.argv[1], "rt", encoding="utf-8")]
t0 = time.perf_counter()
from neardup.fingerprint.nshash import NSHash
nsh = NSHash(hashdb="memory://")
t1 = time.perf_counter()
ids = [nsh.get_similar(t) for t in texts]
t2 = time.perf_counter()
numba_loaded = "numba" in sys.modules
from bench_nshash import SeedNSHash
seed = SeedNSHash()
t3 = time.perf_counter()
seed_ids = [seed.get_similar(t) for t in texts]
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "calls": t2 - t1, "seed": t4 - t3, "n": len(texts),
                  "compiled": float(numba_loaded)}))
"""


def _env(cache: str, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": cache,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT / 'bench'}",
    }
    for name in ("NUMBA_DISABLE_JIT", "NEARDUP_JIT"):
        env.pop(name, None)
    env.update(extra)
    return env


def _wall(args: list[str], env: dict[str, str]) -> tuple[float, str, str]:
    t0 = time.perf_counter()
    res = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0, res.stdout, res.stderr


def _fresh(tmp: str, warmed: str | None) -> str:
    """A new cache folder: empty (cold), or a copy of the one warmup filled."""
    cache = tempfile.mkdtemp(dir=tmp, prefix="numba-")
    if warmed is not None:
        shutil.copytree(warmed, cache, dirs_exist_ok=True)
    return cache


def measure_dedup(tmp: str, cache: str) -> dict[str, float]:
    cmd = [*NEARDUP, "dedup", str(DATA / "en-bbc.jsonl.gz"), "--out", str(Path(tmp) / "bbc.jsonl")]
    wall, _, stderr = _wall(cmd, _env(cache, NEARDUP_COMPILE_NOTICE="1"))
    return {"wall": wall, "compiled": float("compiling kernels" in stderr)}


def measure_index(tmp: str, cache: str) -> dict[str, float]:
    wall, stdout, _ = _wall([sys.executable, "-c", INDEX_CODE], _env(cache))
    return {**json.loads(stdout.strip().splitlines()[-1]), "wall": wall}


def measure_nshash(tmp: str, cache: str) -> dict[str, float]:
    wall, stdout, _ = _wall([sys.executable, "-c", NSHASH_CODE, str(DATA / "zh-xwlb.jsonl.gz")], _env(cache))
    return {**json.loads(stdout.strip().splitlines()[-1]), "wall": wall}


def measure_small(tmp: str, cache: str) -> dict[str, float]:
    three = Path(tmp) / "three.jsonl"
    lines = (ROOT / "examples" / "news.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    three.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [*NEARDUP, "dedup", str(three), "--out", str(Path(tmp) / "three-out.jsonl")]
    wall, _, stderr = _wall(cmd, _env(cache, NEARDUP_COMPILE_NOTICE="1"))
    return {"wall": wall, "compiled": float("compiling kernels" in stderr)}


MEASURES = {"dedup": measure_dedup, "index": measure_index, "nshash": measure_nshash, "small": measure_small}


def measure(
    runs: int, only: list[str], states: tuple[str, ...] = ("cold", "warm")
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """Per run: each target cold (its own empty cache), then one warmup into an empty cache and each
    target on its own copy of that warmed cache."""
    res: dict[str, dict[str, list[dict[str, float]]]] = {n: {"cold": [], "warm": []} for n in only}
    res["warmup"] = {"warm": []}
    with tempfile.TemporaryDirectory(prefix="neardup-startup-") as tmp:
        for i in range(runs):
            warmed = None
            for state in states:
                if state == "warm":
                    warmed = tempfile.mkdtemp(dir=tmp, prefix="warmed-")
                    secs = _wall(WARMUP, _env(warmed))[0]
                    res["warmup"]["warm"].append({"wall": secs})
                    print(f"warmup run {i + 1}: {secs:.1f} s", file=sys.stderr)
                for name in only:
                    got = MEASURES[name](tmp, _fresh(tmp, warmed))
                    res[name][state].append(got)
                    shown = json.dumps({k: round(v, 3) for k, v in got.items()})
                    print(f"{name} {state} run {i + 1}: {shown}", file=sys.stderr)
    return res


def _med(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _runs(rows: list[dict[str, float]], key: str) -> str:
    return ", ".join(f"{r[key]:.2f}" for r in rows)


def _compiled(rows: list[dict[str, float]]) -> str:
    if not rows or "compiled" not in rows[0]:
        return ""
    n = sum(r["compiled"] > 0 for r in rows)
    return "no" if n == 0 else ("yes" if n == len(rows) else f"{n} of {len(rows)}")


def _row(label: str, target: str, res: dict[str, list[dict[str, float]]], key: str, fmt: str) -> str:
    c, w = res.get("cold", []), res.get("warm", [])

    def med(rows: list[dict[str, float]]) -> str:
        return format(_med(rows, key), fmt) + " s" if rows else "-"

    runs = "; ".join(x for x in (_runs(c, key), _runs(w, key)) if x)
    return f"| {label} | {target} | {med(c)} | {_compiled(c)} | {med(w)} | {_compiled(w)} | {runs} |"


def render(res: dict[str, dict[str, list[dict[str, float]]]], runs: int) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"Each measurement a new process with its own `NUMBA_CACHE_DIR`, from a checkout's `src` "
        f"({dt.date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs, load average {load:.1f} at the end; median of "
        f"{runs}). Command: `python bench/bench_startup.py`. *Cold*: the cache empty, so whatever "
        "numba needs is compiled during the run (a fresh install that skipped warmup); *after warmup*: "
        "a copy of a cache that `python -m neardup.warmup` (what `make venv` and the install "
        "instructions run once) filled. *Compiled*: whether numba compiled anything during the run "
        "(the CLI's compile notice; for nshash, whether numba was imported at all).",
        "",
        "| first run | target | cold | compiled | after warmup | compiled | runs (cold; after warmup) |",
        "|---|---:|---:|---|---:|---|---|",
    ]
    if "dedup" in res:
        lines.append(
            _row("`neardup dedup` of en-bbc (2,225 docs), wall", "<= 5 s", res["dedup"], "wall", ".2f")
        )
    if "index" in res:
        lines.append(
            _row(
                "first `HammingIndex.query` (100k fingerprints added)",
                "<= 0.5 s",
                res["index"],
                "query",
                ".3f",
            )
        )
        lines.append(_row("the `add_many` of 100k before it", "", res["index"], "add_many", ".2f"))
    if "nshash" in res:
        lines.append(
            _row(
                "nshash `get_similar`, one a call, zh-xwlb (19,541 items)",
                "<= seed",
                res["nshash"],
                "calls",
                ".2f",
            )
        )
        lines.append(_row("the seed's reading, same texts, same process", "", res["nshash"], "seed", ".2f"))
        lines.append(_row("import + `NSHash()` before the calls", "", res["nshash"], "import", ".2f"))
    if "small" in res:
        lines.append(
            _row(
                "`neardup dedup` of 3 documents (interpreted below 256 KiB), wall",
                "<= 2 s",
                res["small"],
                "wall",
                ".2f",
            )
        )
    if res.get("warmup", {}).get("warm"):
        w = res["warmup"]["warm"]
        lines.append(
            f"| `python -m neardup.warmup` itself (once per install), wall | | | | {_med(w, 'wall'):.0f} s | "
            f"| {_runs(w, 'wall')} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=",".join(MEASURES), help="comma-separated: " + ", ".join(MEASURES))
    ap.add_argument("--cold-only", action="store_true", help="no warmup rows (print only)")
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    args = ap.parse_args()
    only = [x for x in args.only.split(",") if x]
    if args.cold_only:
        print(json.dumps(measure(args.runs, only, ("cold",)), indent=1))
        return
    text = render(measure(args.runs, only), args.runs)
    print(text)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "benchmarks.md", "startup", text)


if __name__ == "__main__":
    main()
