"""Wall time and memory of each stage of ``neardup dedup`` in one process: imports, read + parse,
sign, match, rows + write (the CLI's own calls, default settings).

    .venv/bin/python bench/bench_dedup_stages.py ../shared/data/zh-xwlb.jsonl.gz [--out /tmp/out.jsonl]
    .venv/bin/python bench/bench_dedup_stages.py INPUT --stream   # read while signing, as the CLI does

By default the records are read into a list first so reading is timed apart from signing: on
large inputs the list itself costs memory and garbage-collector time. With ``--stream`` they are
read while they are signed, as ``neardup dedup`` does, so the memory figures are the CLI's. Within
match, the candidate graph (``components.batch_components``) and the pass
(``engine.run_components``, with the CPU seconds of the calling thread: the rest of the pass's CPU
is its helper thread's) are timed too.

Memory: each stage prints the process's resident set at its end and its peak within the stage
(Linux: the peak is reset at each stage's start through ``/proc/self/clear_refs``), then the bytes
per document of what the batch holds after signing (signature columns, text profiles, ids).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

t0 = time.perf_counter()
import neardup.cli.dedup  # noqa: E402, F401  (the CLI's imports, as a run pays them)
from neardup.dedup.config import DedupConfig  # noqa: E402
from neardup.dedup.fingerprints import fingerprint_records  # noqa: E402
from neardup.dedup.local import dedup_fingerprints  # noqa: E402
from neardup.dedup.rethreshold import decision_rows  # noqa: E402
from neardup.formats import write_records  # noqa: E402
from neardup.io import iter_records  # noqa: E402
from neardup.match import components  # noqa: E402
from neardup.match.signature import FIELDS  # noqa: E402

IMPORTS = time.perf_counter() - t0
SPENT: dict[str, list[float]] = {}
PEAKS: dict[str, int] = {}


def _status(key: str) -> int:
    """A ``/proc/self/status`` figure in bytes (0 where there is none)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _reset_peak() -> None:
    """Start a new peak resident set (Linux 4.0+; elsewhere the peak stays the run's)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _mem() -> str:
    return f"RSS {_status('VmRSS') / 2**20:7.0f} MB, peak {_status('VmHWM') / 2**20:7.0f} MB"


def _timed(name: str, fn: Any) -> Any:
    """``fn``, adding its wall seconds and its thread's CPU seconds to ``SPENT[name]`` and its
    peak resident set to ``PEAKS[name]`` (the peak counter restarts at its call, so an enclosing stage's peak
    counts from the last such call: see ``PEAKS`` for the parts)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        t, c = time.perf_counter(), time.thread_time()
        _reset_peak()
        try:
            return fn(*args, **kwargs)
        finally:
            got = SPENT.setdefault(name, [0.0, 0.0])
            got[0] += time.perf_counter() - t
            got[1] += time.thread_time() - c
            PEAKS[name] = max(PEAKS.get(name, 0), _status("VmHWM"))

    return run


components.batch_components = _timed("graph", components.batch_components)
components.run_components = _timed("pass", components.run_components)


def _held(fps: Any) -> None:
    """What the batch holds after signing, in bytes a document."""
    n = max(len(fps), 1)
    sigs = fps.sigs
    cols = sum(getattr(sigs, name).nbytes for name in FIELDS) + sigs.day.nbytes
    prof = sigs.prof.nbytes + sigs.prof_ptr.nbytes
    ids = sys.getsizeof(fps.ids) + sum(sys.getsizeof(i) for i in fps.ids)
    print(
        f"held: columns {cols / n:7.0f} B/doc, profiles {prof / n:7.0f} B/doc "
        f"({sigs.prof.shape[0] / n:.0f} tokens, capacity {sigs.prof.shape[0]:,}), ids {ids / n:5.0f} B/doc"
    )
    for name in (*FIELDS, "day"):
        print(f"  {name:<11} {getattr(sigs, name).nbytes / n:7.0f} B/doc")


def _stage(name: str, t: float) -> None:
    print(f"{name:<13} {time.perf_counter() - t:7.2f} s   {_mem()}")
    _reset_peak()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "neardup-stages.jsonl"))
    ap.add_argument("--stream", action="store_true", help="read while signing, as the CLI does")
    ap.add_argument(
        "--graph-parts",
        type=int,
        default=0,
        help="find the sketch edges as bench_graph_memory.py does, in this many parts (0: as the engine does)",
    )
    args = ap.parse_args()
    if args.graph_parts:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_graph_memory import sketch_edges_parts

        components.sketch_edges = lambda sketch, cfg: sketch_edges_parts(sketch, cfg, args.graph_parts)
    print(f"imports       {IMPORTS:7.2f} s   {_mem()}")
    _reset_peak()
    config = DedupConfig()
    t = time.perf_counter()
    if args.stream:
        fps = fingerprint_records(iter_records([args.input]), config)
        _stage("read + sign", t)
    else:
        recs = list(iter_records([args.input]))
        _stage(f"read + parse ({len(recs):,} records)", t)
        t = time.perf_counter()
        fps = fingerprint_records(iter(recs), config)
        del recs
        _stage("sign", t)
    _held(fps)
    t = time.perf_counter()
    result = dedup_fingerprints(fps, config, None)
    _stage("match", t)
    for name, (wall, cpu) in SPENT.items():
        print(
            f"  {name:<11} {wall:7.2f} s  (calling thread's CPU {cpu:.2f} s), peak {PEAKS[name] / 2**20:7.0f} MB"
        )
    t = time.perf_counter()
    write_records(args.out, decision_rows(result), "jsonl")
    _stage("rows + write", t)


if __name__ == "__main__":
    main()
