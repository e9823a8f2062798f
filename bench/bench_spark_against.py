"""``neardup spark dedup --against``: the probe's time against batch size and index size, and what
merging batch by batch changes against one pass.

    python bench/bench_spark_against.py probe --batches 2500,5000,10000 --corpus 20000,40000,80000
    python bench/bench_spark_against.py batches --batch 5000 --count 10

``probe``: an index of the largest ``--corpus`` size is not needed; one index per corpus size is
built with ``neardup index build`` from edited zh-xwlb copies (``bench_spark_scale.generate``, seed
7); batches are other edited copies (seed 11). Each batch runs through ``spark_dedup`` in one
``local[2]`` session (the session started once), against the smallest index for every batch size
and with the middle batch size against every index; the time of the plan's ``against`` stage (the
candidate joins, the matched rows' read and numbering) is reported with the whole run's.

``batches``: ``--count`` batches of ``--batch`` documents merged one after another into an index
(``neardup dedup --against --merge``, which gives the lines ``neardup spark dedup`` gives: the
tests pin it) against one ``neardup dedup`` pass over all of them; counts the documents whose
verdict (kept or a duplicate) differs, and those whose cluster's kept copy differs.

Prints one JSON line per measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_spark_scale import generate  # noqa: E402


def _cli(*args: str) -> None:
    env = {**os.environ, "NEARDUP_COMPILE_NOTICE": "0"}
    res = subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode != 0:
        raise SystemExit(f"neardup {' '.join(args)} failed:\n{res.stderr[-3000:]}")


def _index(root: Path, n: int) -> Path:
    idx = root / f"idx-{n}"
    if not (idx / "header.json").exists():
        files = generate(n, root / f"corpus-{n}", 1, seed=7)
        _cli("index", "build", *map(str, files), "-o", str(idx))
    return idx


def probe(args: argparse.Namespace) -> None:
    from neardup.dedup import DedupConfig
    from neardup.integrations.spark import get_spark, read_documents, spark_dedup

    root = args.dir
    sizes = [int(x) for x in args.corpus.split(",")]
    batches = [int(x) for x in args.batches.split(",")]
    runs = [(b, sizes[0]) for b in batches] + [(batches[len(batches) // 2], c) for c in sizes[1:]]
    spark = get_spark(args.master, conf={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel(os.environ.get("BENCH_SPARK_LOG", "FATAL"))
    cfg = DedupConfig()
    for b, c in runs:
        idx = _index(root, c)
        files = generate(b, root / f"batch-{b}", 1, seed=11)
        out = root / f"out-{b}-{c}.jsonl"
        shutil.rmtree(out, ignore_errors=True)
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        docs = read_documents(spark, [str(f) for f in files])
        res = spark_dedup(spark, docs, cfg, against=str(idx), out=str(out))
        report: dict[str, Any] = {
            "what": "probe",
            "batch": b,
            "corpus": c,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load": round(load, 1),
            "wall_s": round(time.perf_counter() - t0, 1),
            "stages_s": {k: round(v, 1) for k, v in res.seconds.items()},
            "matched": res.summary.get("corpus_matched"),
            "kept": res.summary.get("kept"),
        }
        print(json.dumps(report), flush=True)
    spark.stop()


def _verdicts(path: Path) -> dict[str, tuple[bool, str]]:
    out = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out[r["id"]] = (r["duplicate_of"] is None, r["cluster"])
    return out


def batches(args: argparse.Namespace) -> None:
    root = args.dir / f"batches-{args.count}x{args.batch}"
    root.mkdir(parents=True, exist_ok=True)
    n = args.batch * args.count
    files = generate(n, root / "in", args.count, seed=13)  # copies spread over the files
    t0 = time.perf_counter()
    _cli("dedup", *map(str, files), "--out", str(root / "one-pass.jsonl"))
    one_pass = time.perf_counter() - t0
    idx = root / "idx"
    shutil.rmtree(idx, ignore_errors=True)
    t1 = time.perf_counter()
    merged: dict[str, tuple[bool, str]] = {}
    for i, f in enumerate(files):
        out = root / f"batch-{i}.jsonl"
        if i == 0:  # the first batch builds the index from its kept documents
            _cli("dedup", str(f), "--out", str(out))
            kept = root / "kept-0.jsonl"
            v = _verdicts(out)
            with f.open(encoding="utf-8") as src, kept.open("w", encoding="utf-8") as dst:
                for line in src:
                    if v[json.loads(line)["id"]][0]:
                        dst.write(line)
            _cli("index", "build", str(kept), "-o", str(idx))
        else:
            _cli("dedup", str(f), "--against", str(idx), "--merge", "--out", str(out))
        merged.update(_verdicts(out))
    batched = time.perf_counter() - t1
    whole = _verdicts(root / "one-pass.jsonl")
    verdicts = sum(whole[k][0] != merged[k][0] for k in whole)
    kept_copy = sum(whole[k][1] != merged[k][1] for k in whole)
    print(
        json.dumps(
            {
                "what": "batches",
                "batch": args.batch,
                "count": args.count,
                "documents": len(whole),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "load": round(os.getloadavg()[0], 1),
                "one_pass_s": round(one_pass, 1),
                "batched_s": round(batched, 1),
                "kept_one_pass": sum(v[0] for v in whole.values()),
                "kept_batched": sum(v[0] for v in merged.values()),
                "verdicts_differ": verdicts,
                "cluster_ids_differ": kept_copy,
            }
        ),
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["probe", "batches"])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/neardup-against"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--batches", default="2500,5000,10000")
    ap.add_argument("--corpus", default="20000,40000,80000")
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--count", type=int, default=10)
    args = ap.parse_args()
    (probe if args.what == "probe" else batches)(args)


if __name__ == "__main__":
    main()
