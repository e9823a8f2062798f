"""``neardup spark dedup`` at scale on ``local[N]`` against ``neardup dedup`` on the same input.

    python bench/bench_spark_scale.py --docs 500000 --dir /tmp/scale           # generate, run both, compare
    python bench/bench_spark_scale.py --docs 500000 --dir /tmp/scale --no-local
    python bench/bench_spark_scale.py --docs 125000 --dir /tmp/scale --max-component 50000 --timeline t.tsv

Input: zh-xwlb (``NEARDUP_DATA`` or ``../shared/data``) repeated with edits until ``--docs``
documents: copy c of an article replaces a few characters with common ones (a typo every ~150
characters, as ``neardup.eval.synth``'s near copies do), and some copies drop the first paragraph
or add a source line; copies are spread over the files, so an article's copies are far apart.
Plain JSONL files, ``--files`` of them (a gzip file would be one read task).

Runs ``neardup dedup`` (wall time, peak RSS from ``/usr/bin/time``) and ``neardup spark dedup``
through ``bench/bench_spark_memory.py`` (the default 1 GB driver: driver Python peak, JVM peak,
Python workers' peak), then compares the outputs byte for byte. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NEARDUP_DATA", HERE.parent.parent / "shared" / "data"))
COMMON = "的了是在和有一不"


def _edited(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(max(1, len(chars) // 150)):
        chars[rng.randrange(len(chars))] = rng.choice(COMMON)
    out = "".join(chars)
    r = rng.random()
    if r < 0.15 and "\n" in out:
        out = out.split("\n", 1)[1]  # the first paragraph dropped
    elif r < 0.3:
        out = out + "\n（来源：" + rng.choice(["新华网", "人民网", "央视网", "中国新闻网"]) + "）"
    return out


def generate(n_docs: int, folder: Path, files: int, seed: int = 7) -> list[Path]:
    """``n_docs`` documents in ``files`` JSONL files (kept when already there)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"part-{i:03d}.jsonl" for i in range(files)]
    stamp = folder / f".done-{n_docs}-{files}-{seed}"
    if stamp.exists():
        return paths
    with gzip.open(DATA / "zh-xwlb.jsonl.gz", "rt", encoding="utf-8") as fh:
        articles = [json.loads(line) for line in fh]
    rng = random.Random(seed)
    outs = [p.open("w", encoding="utf-8") for p in paths]
    try:
        for i in range(n_docs):
            a = articles[i % len(articles)]
            copy = i // len(articles)
            text = a["text"] if copy == 0 else _edited(a["text"], rng)
            doc = {"id": f"{a['id']}~{copy}", "text": text}
            outs[(i * 7919) % files].write(json.dumps(doc, ensure_ascii=False) + "\n")
    finally:
        for f in outs:
            f.close()
    stamp.touch()
    return paths


def _time_v(cmd: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-v", *cmd], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr[-3000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr).group(1)) * 1024  # type: ignore[union-attr]
    return wall, rss, res.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=500_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/neardup-scale"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--no-local", action="store_true")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--max-component", type=int, default=None, help="given to both runs (default: theirs)")
    ap.add_argument("--timeline", type=Path, default=None, help="the Spark run's workers, one line a second")
    ap.add_argument("--trace", type=Path, default=None, help="the Spark run's plan tasks, one line each")
    args = ap.parse_args()
    options = [] if args.max_component is None else ["--max-component", str(args.max_component)]
    inputs = [str(p) for p in generate(args.docs, args.dir / f"in-{args.docs}", args.files)]
    env = {**os.environ, "NEARDUP_COMPILE_NOTICE": "0", "PYSPARK_PYTHON": sys.executable}
    report: dict[str, object] = {
        "docs": args.docs,
        "input_bytes": sum(os.path.getsize(p) for p in inputs),
        "master": args.master,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg()[0],
        "options": options,
    }
    tag = f"{args.docs}" if args.max_component is None else f"{args.docs}-mc{args.max_component}"
    local_out = args.dir / f"local-{tag}.jsonl"
    spark_out = args.dir / f"spark-{tag}.jsonl"
    if not args.no_local:
        wall, rss, err = _time_v(
            [sys.executable, "-m", "neardup.cli.main", "dedup", *inputs, "--out", str(local_out), *options],
            env,
        )
        report["local_wall_s"] = round(wall, 1)
        report["local_peak_rss_mib"] = rss >> 20
        report["local_summary"] = err.strip().splitlines()[0]
    if not args.no_spark:
        t0 = time.perf_counter()
        res = subprocess.run(
            [
                sys.executable,
                str(HERE / "bench_spark_memory.py"),
                *inputs,
                "--master",
                args.master,
                "--out",
                str(spark_out),
                *(["--timeline", str(args.timeline)] if args.timeline else []),
                *(["--trace", str(args.trace)] if args.trace else []),
                "--",
                *options,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        report["spark_wall_s"] = round(time.perf_counter() - t0, 1)
        lines = [ln for ln in res.stdout.splitlines() if ln.strip()]
        report["spark"] = lines[-3:] if lines else res.stderr[-2000:]
        if res.returncode != 0:
            report["spark_error"] = res.stderr[-2000:]
    if local_out.exists() and spark_out.is_dir():
        with local_out.open("rb") as want:
            same = True
            for part in sorted(spark_out.glob("part-*.jsonl")):
                with part.open("rb") as got:
                    while chunk := got.read(1 << 20):
                        if want.read(len(chunk)) != chunk:
                            same = False
                            break
                if not same:
                    break
            same = same and want.read(1) == b""
        report["identical"] = same
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
