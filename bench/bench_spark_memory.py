"""Peak memory of ``neardup spark dedup`` on ``local[N]``: the driver's Python, the JVM (driver and
executors in one process in local mode) and the Python workers (the sum of those alive at once).

    python bench/bench_spark_memory.py /work/shared/data/zh-xwlb.jsonl.gz --master 'local[2]'

Peaks come from /proc (VmHWM of this process and of the JVM; worker RSS sampled every 0.1 s).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path


def _status(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _tree(pid: int) -> list[int]:
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--out", default=None, help="keep the output here (default: a temp directory)")
    args = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from click.testing import CliRunner

    from neardup.cli.main import cli
    from neardup.integrations.spark import get_spark

    spark = get_spark(
        args.master, conf={"spark.driver.memory": args.driver_memory, "spark.ui.enabled": "false"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    me = os.getpid()
    jvm = [p for p in _children(me) if b"java" in Path(f"/proc/{p}/cmdline").read_bytes()]
    workers_peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal workers_peak
        while not done.is_set():
            pids = [p for j in jvm for p in _tree(j) if p != j]
            workers_peak = max(workers_peak, sum(_status(p, "VmRSS") for p in pids))
            time.sleep(0.1)

    before = _status(me, "VmRSS")
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or f"{tmp}/out.jsonl"
        res = CliRunner().invoke(cli, ["spark", "dedup", *args.inputs, "--out", out], catch_exceptions=False)
    wall = time.perf_counter() - t0
    done.set()
    thread.join()
    mib = 1 << 20
    print(res.stderr.strip())
    print(
        f"wall {wall:.1f} s; driver Python: {before / mib:.0f} MiB before the job, peak "
        f"{_status(me, 'VmHWM') / mib:.0f} MiB; JVM (driver + local executors) peak "
        f"{sum(_status(j, 'VmHWM') for j in jvm) / mib:.0f} MiB; Python workers peak (sum) "
        f"{workers_peak / mib:.0f} MiB"
    )
    spark.stop()


if __name__ == "__main__":
    main()
