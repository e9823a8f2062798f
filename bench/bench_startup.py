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
t1 = time.perf_counter()
fps = np.random.default_rng(7).integers(0, 2**63, 100_000, dtype=np.int64).astype(np.uint64)
idx = HammingIndex(bits=64, max_distance=3)
t2 = time.perf_counter()
idx.add_many(np.arange(fps.size, dtype=np.int64), fps)
t3 = time.perf_counter()
hits = idx.query(int(fps[123]) ^ 0b101)
t4 = time.perf_counter()
assert (123, 2) in hits, hits
print(json.dumps({"import": t1 - t0, "add_many": t3 - t2, "query": t4 - t3}))
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
from bench_nshash import SeedNSHash
seed = SeedNSHash()
t3 = time.perf_counter()
seed_ids = [seed.get_similar(t) for t in texts]
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "calls": t2 - t1, "seed": t4 - t3, "n": len(texts)}))
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


def _wall(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    res = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0, res.stdout


def _warm(cache: str) -> float:
    return _wall(WARMUP, _env(cache))[0]


def measure_dedup(tmp: str, warm: bool) -> dict[str, float]:
    cache = tempfile.mkdtemp(dir=tmp, prefix="numba-")
    out: dict[str, float] = {}
    if warm:
        out["warmup"] = _warm(cache)
    cmd = [*NEARDUP, "dedup", str(DATA / "en-bbc.jsonl.gz"), "--out", str(Path(tmp) / "bbc.jsonl")]
    out["wall"] = _wall(cmd, _env(cache, NEARDUP_COMPILE_NOTICE="0"))[0]
    return out


def measure_index(tmp: str, warm: bool) -> dict[str, float]:
    cache = tempfile.mkdtemp(dir=tmp, prefix="numba-")
    out: dict[str, float] = {"warmup": _warm(cache)} if warm else {}
    wall, stdout = _wall([sys.executable, "-c", INDEX_CODE], _env(cache))
    return {**out, **json.loads(stdout.strip().splitlines()[-1]), "wall": wall}


def measure_nshash(tmp: str, warm: bool) -> dict[str, float]:
    cache = tempfile.mkdtemp(dir=tmp, prefix="numba-")
    out: dict[str, float] = {"warmup": _warm(cache)} if warm else {}
    wall, stdout = _wall([sys.executable, "-c", NSHASH_CODE, str(DATA / "zh-xwlb.jsonl.gz")], _env(cache))
    return {**out, **json.loads(stdout.strip().splitlines()[-1]), "wall": wall}


def measure_small(tmp: str, warm: bool) -> dict[str, float]:
    cache = tempfile.mkdtemp(dir=tmp, prefix="numba-")
    out: dict[str, float] = {"warmup": _warm(cache)} if warm else {}
    three = Path(tmp) / "three.jsonl"
    lines = (ROOT / "examples" / "news.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    three.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [*NEARDUP, "dedup", str(three), "--out", str(Path(tmp) / "three-out.jsonl")]
    out["wall"] = _wall(cmd, _env(cache, NEARDUP_COMPILE_NOTICE="0"))[0]
    return out


MEASURES = {"dedup": measure_dedup, "index": measure_index, "nshash": measure_nshash, "small": measure_small}


def measure(
    runs: int, only: list[str], states: tuple[str, ...] = ("cold", "warm")
) -> dict[str, dict[str, list[dict[str, float]]]]:
    res: dict[str, dict[str, list[dict[str, float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="neardup-startup-") as tmp:
        for name in only:
            res[name] = {"cold": [], "warm": []}
            for i in range(runs):
                for state in states:
                    got = MEASURES[name](tmp, state == "warm")
                    res[name][state].append(got)
                    print(
                        f"{name} {state} run {i + 1}: {json.dumps({k: round(v, 3) for k, v in got.items()})}",
                        file=sys.stderr,
                    )
    return res


def _med(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _runs(rows: list[dict[str, float]], key: str) -> str:
    return ", ".join(f"{r[key]:.2f}" for r in rows)


def render(res: dict[str, dict[str, list[dict[str, float]]]], runs: int) -> str:
    lines = [
        f"Each run a new process with its own empty `NUMBA_CACHE_DIR`, from a checkout's `src` "
        f"({dt.date.today().isoformat()}, Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} cores shared with other jobs; median of {runs}). Command: "
        "`python bench/bench_startup.py`. *Cold*: nothing compiled before the run; *after warmup*: "
        "`python -m neardup.warmup` (what `make venv` and the install instructions run once) filled "
        "that empty cache first.",
        "",
        "| first run | target | cold | after warmup | warmup itself | runs (cold; warm) |",
        "|---|---:|---:|---:|---:|---|",
    ]
    if "dedup" in res:
        c, w = res["dedup"]["cold"], res["dedup"]["warm"]
        lines.append(
            f"| `neardup dedup` of en-bbc (2,225 docs), wall | <= 5 s | {_med(c, 'wall'):.2f} s | "
            f"{_med(w, 'wall'):.2f} s | {_med(w, 'warmup'):.1f} s | {_runs(c, 'wall')}; {_runs(w, 'wall')} |"
        )
    if "index" in res:
        c, w = res["index"]["cold"], res["index"]["warm"]
        lines.append(
            f"| first `HammingIndex.query` (100k fingerprints added) | <= 0.5 s | {_med(c, 'query'):.3f} s | "
            f"{_med(w, 'query'):.3f} s | {_med(w, 'warmup'):.1f} s | {_runs(c, 'query')}; {_runs(w, 'query')} |"
        )
        lines.append(
            f"| the `add_many` before it | | {_med(c, 'add_many'):.2f} s | {_med(w, 'add_many'):.2f} s | | "
            f"{_runs(c, 'add_many')}; {_runs(w, 'add_many')} |"
        )
    if "nshash" in res:
        c, w = res["nshash"]["cold"], res["nshash"]["warm"]
        lines.append(
            f"| nshash `get_similar` one a call, zh-xwlb (19,541 items) | <= seed | {_med(c, 'calls'):.2f} s | "
            f"{_med(w, 'calls'):.2f} s | {_med(w, 'warmup'):.1f} s | {_runs(c, 'calls')}; {_runs(w, 'calls')} |"
        )
        lines.append(
            f"| the seed's reading, same texts, same processes | | {_med(c, 'seed'):.2f} s | "
            f"{_med(w, 'seed'):.2f} s | | {_runs(c, 'seed')}; {_runs(w, 'seed')} |"
        )
        lines.append(
            f"| import + `NSHash()` before the calls | | {_med(c, 'import'):.2f} s | {_med(w, 'import'):.2f} s "
            f"| | {_runs(c, 'import')}; {_runs(w, 'import')} |"
        )
    if "small" in res:
        c, w = res["small"]["cold"], res["small"]["warm"]
        lines.append(
            f"| `neardup dedup` of 3 documents (kernels interpreted below 256 KiB), wall | <= 2 s | "
            f"{_med(c, 'wall'):.2f} s | {_med(w, 'wall'):.2f} s | | {_runs(c, 'wall')}; {_runs(w, 'wall')} |"
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
