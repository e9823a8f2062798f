"""Cold start: the first ``neardup dedup`` of 3 documents in a fresh install, as a new user runs it.

    .venv/bin/python bench/bench_startup.py [--runs 5] [--no-compiled] [--no-write]

Each run is a new process (``.venv/bin/neardup``) with a new, empty ``NUMBA_CACHE_DIR``, so nothing
compiled earlier is reused; wall time from spawn to exit, median of ``--runs``. Rows: the default
(small inputs run their kernels interpreted, no compiling), the same command again on the now-warm
cache, ``import neardup`` alone, and once with ``NEARDUP_JIT=always`` (every kernel compiled: the
start-up before small runs were interpreted). Writes the ``startup`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEARDUP = ROOT / ".venv" / "bin" / "neardup"
PYTHON = ROOT / ".venv" / "bin" / "python"
sys.path.insert(0, str(ROOT / "bench"))


def run(args: list[str], cache: str, **env: str) -> float:
    full_env = {**os.environ, "NUMBA_CACHE_DIR": cache, **env}
    full_env.pop("NUMBA_DISABLE_JIT", None)
    t0 = time.perf_counter()
    subprocess.run(args, env=full_env, check=True, capture_output=True)
    return time.perf_counter() - t0


def measure(runs: int, compiled: bool) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"dedup": [], "dedup, warm cache": [], "import neardup": [], "compiled": []}
    with tempfile.TemporaryDirectory() as tmp:
        three = Path(tmp) / "three.jsonl"
        lines = (ROOT / "examples" / "news.jsonl").read_text(encoding="utf-8").splitlines()[:3]
        three.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = [str(NEARDUP), "dedup", str(three), "--out", str(Path(tmp) / "out.jsonl")]
        for i in range(runs):
            cache = tempfile.mkdtemp(dir=tmp, prefix=f"numba-{i}-")
            out["dedup"].append(run(cmd, cache))
            out["dedup, warm cache"].append(run(cmd, cache))
            out["import neardup"].append(
                run([str(PYTHON), "-c", "import neardup"], tempfile.mkdtemp(dir=tmp))
            )
        if compiled:
            out["compiled"].append(run(cmd, tempfile.mkdtemp(dir=tmp), NEARDUP_JIT="always"))
    return out


def render(res: dict[str, list[float]], runs: int) -> str:
    med = {k: statistics.median(v) for k, v in res.items() if v}
    lines = [
        f"`neardup dedup` of 3 documents (the first 3 of examples/news.jsonl), each run a new process with "
        f"an empty `NUMBA_CACHE_DIR`, wall time, median of {runs} ({dt.date.today().isoformat()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores, shared machine). Command: "
        "`.venv/bin/python bench/bench_startup.py`. Target: <= 2 s.",
        "",
        "| run | wall (median) | runs |",
        "|---|---:|---|",
        f"| first `neardup dedup`, fresh install (small input: kernels interpreted) | {med['dedup']:.2f} s "
        f"| {', '.join(f'{x:.2f}' for x in res['dedup'])} |",
        f"| the same again (cache unchanged: nothing was compiled) | {med['dedup, warm cache']:.2f} s "
        f"| {', '.join(f'{x:.2f}' for x in res['dedup, warm cache'])} |",
        f"| `python -c 'import neardup'` | {med['import neardup']:.2f} s "
        f"| {', '.join(f'{x:.2f}' for x in res['import neardup'])} |",
    ]
    if "compiled" in med:
        lines.append(
            f"| `NEARDUP_JIT=always` (every kernel compiled first, as before) | {med['compiled']:.1f} s | 1 run |"
        )
    lines += [
        "",
        f"Inputs under {256} KiB run the numba kernels as plain Python (numba's `NUMBA_DISABLE_JIT`, set "
        "before numba loads; `neardup._jit`), which gives the same output files (tested on "
        "examples/news.jsonl for dedup, fingerprint, nshash and compare); larger inputs compile and cache "
        "as before. `NEARDUP_JIT=always|never` overrides.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-compiled", action="store_true", help="skip the compiled run (about a minute)")
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    args = ap.parse_args()
    text = render(measure(args.runs, not args.no_compiled), args.runs)
    print(text)
    if not args.no_write:
        from _sections import write_section

        write_section(ROOT / "docs" / "benchmarks.md", "startup", text)


if __name__ == "__main__":
    main()
