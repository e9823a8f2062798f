"""Peak memory of ``neardup spark dedup`` on ``local[N]``: the driver's Python, the JVM (driver and
executors in one process in local mode) and the Python workers (the sum of those alive at once).

    python bench/bench_spark_memory.py /work/shared/data/zh-xwlb.jsonl.gz --master 'local[2]'

Peaks come from /proc (VmHWM of this process and of the JVM; worker RSS sampled every 0.1 s). The
largest single Python worker is reported with the Spark stages running when it peaked;
``--timeline FILE`` writes one line a second (time, active stages, each worker's RSS in MiB).
``--trace FILE`` appends one line per Python task of the plan (its function, stage, partition,
rows in and out, seconds, and the worker's peak RSS during the task: VmHWM reset at its start).
Options after ``--`` go to ``neardup spark dedup`` (e.g. ``-- --max-component 50000``).
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
from typing import Any


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


#: the plan's mapInArrow tasks: factories (called with the stage's settings) and plain tasks
_FACTORIES = ("_graph_task", "_edge_task", "_verify_task", "_rep_task", "_engine_task")
_TASKS = ("_forest_task", "_label_task")


def _traced(name: str, fn: Any, path: str) -> Any:
    """``fn`` (a mapInArrow task) writing one line to ``path`` when it ends (runs in the worker)."""

    def task(batches: Any) -> Any:
        import time as _time
        from pathlib import Path as _Path

        from pyspark import TaskContext

        with contextlib.suppress(OSError):
            _Path("/proc/self/clear_refs").write_text("5")  # VmHWM from here
        t = _time.perf_counter()
        seen = [0, 0]

        def counted(it: Any) -> Any:
            for rb in it:
                seen[0] += rb.num_rows
                yield rb

        for out in fn(counted(batches)):
            seen[1] += out.num_rows
            yield out
        ctx = TaskContext.get()
        peak = 0
        for line in _Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) >> 10
        with open(path, "a") as fh:
            fh.write(
                f"{name}\t{ctx.stageId() if ctx else -1}\t{ctx.partitionId() if ctx else -1}\t"
                f"{seen[0]}\t{seen[1]}\t{_time.perf_counter() - t:.1f}\t{peak}\n"
            )

    return task


def _trace_plan(path: str) -> None:
    from neardup.integrations.spark import plan

    with open(path, "a") as fh:
        fh.write("task\tstage\tpartition\trows_in\trows_out\tseconds\tpeak_rss_mib\n")
    for name in _FACTORIES:
        factory = getattr(plan, name)
        setattr(
            plan,
            name,
            lambda *a, _n=name, _f=factory, **k: _traced(_n, _f(*a, **k), path),
        )
    for name in _TASKS:
        setattr(plan, name, _traced(name, getattr(plan, name), path))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--out", default=None, help="keep the output here (default: a temp directory)")
    ap.add_argument("--timeline", type=Path, default=None, help="one line a second: stages, workers' RSS")
    ap.add_argument("--trace", type=Path, default=None, help="one line per plan task: its peak RSS")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from click.testing import CliRunner

    from neardup.cli.main import cli
    from neardup.integrations.spark import get_spark

    if args.trace:
        _trace_plan(str(args.trace.resolve()))
    spark = get_spark(
        args.master, conf={"spark.driver.memory": args.driver_memory, "spark.ui.enabled": "false"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    me = os.getpid()
    jvm = [p for p in _children(me) if b"java" in Path(f"/proc/{p}/cmdline").read_bytes()]
    workers_peak = 0
    one_peak: tuple[int, list[int]] = (0, [])
    done = threading.Event()
    tracker = spark.sparkContext.statusTracker()
    log = args.timeline.open("w") if args.timeline else None

    def sample() -> None:
        nonlocal workers_peak, one_peak
        last = 0.0
        while not done.is_set():
            pids = [p for j in jvm for p in _tree(j) if p != j]
            rss = [_status(p, "VmRSS") for p in pids]
            workers_peak = max(workers_peak, sum(rss))
            now = time.perf_counter()
            if max(rss, default=0) > one_peak[0] or (log and now - last >= 1.0):
                stages = sorted(tracker.getActiveStageIds())
                if max(rss, default=0) > one_peak[0]:
                    one_peak = (max(rss), stages)
                if log and now - last >= 1.0:
                    last = now
                    log.write(f"{now - t0:.1f}\t{stages}\t{sorted((r >> 20 for r in rss), reverse=True)}\n")
                    log.flush()
            time.sleep(0.1)

    before = _status(me, "VmRSS")
    t0 = time.perf_counter()
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or f"{tmp}/out.jsonl"
        res = CliRunner().invoke(
            cli, ["spark", "dedup", *args.inputs, "--out", out, *extra], catch_exceptions=False
        )
    wall = time.perf_counter() - t0
    done.set()
    thread.join()
    mib = 1 << 20
    print(res.stderr.strip())
    print(
        f"wall {wall:.1f} s; driver Python: {before / mib:.0f} MiB before the job, peak "
        f"{_status(me, 'VmHWM') / mib:.0f} MiB; JVM (driver + local executors) peak "
        f"{sum(_status(j, 'VmHWM') for j in jvm) / mib:.0f} MiB; Python workers peak (sum) "
        f"{workers_peak / mib:.0f} MiB; largest Python worker {one_peak[0] / mib:.0f} MiB "
        f"(stages {one_peak[1]})"
    )
    spark.stop()


if __name__ == "__main__":
    main()
