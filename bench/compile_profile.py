"""Run the neardup CLI in this process and record every numba compile: seconds per kernel.

    NUMBA_CACHE_DIR=$(mktemp -d) CP_OUT=cp.json python bench/compile_profile.py dedup in.jsonl.gz -o out.jsonl

Prints (and writes to ``$CP_OUT``) the wall time, the total compile time, the compile time of each
kernel called from Python including its callees, and each kernel's own (exclusive) compile time.
With an empty ``NUMBA_CACHE_DIR`` this is what a first run on a fresh install compiles.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections import defaultdict
from typing import Any

from numba.core import event


class _Compiles(event.Listener):  # type: ignore[misc]
    """Compile events as a stack: a kernel's own time is its time minus its callees'."""

    def __init__(self) -> None:
        self.stack: list[list[Any]] = []  # [name, start, callees' time]
        self.own: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)
        self.root: dict[str, float] = defaultdict(float)

    def on_start(self, ev: Any) -> None:
        f = ev.data["dispatcher"].py_func
        self.stack.append([f"{f.__module__}.{f.__qualname__}", time.perf_counter(), 0.0])

    def on_end(self, ev: Any) -> None:
        name, t0, callees = self.stack.pop()
        dt = time.perf_counter() - t0
        self.own[name] += dt - callees
        self.count[name] += 1
        if self.stack:
            self.stack[-1][2] += dt
        else:
            self.root[name] += dt


def main() -> None:
    listener = _Compiles()
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    t0 = time.perf_counter()
    from neardup.cli.main import main as cli

    sys.argv = ["neardup", *sys.argv[1:]]
    try:
        with contextlib.suppress(SystemExit):
            cli()
    finally:
        rows = sorted(listener.own.items(), key=lambda kv: -kv[1])
        out = {
            "wall": time.perf_counter() - t0,
            "compile_total": sum(listener.own.values()),
            "roots": sorted(([k, round(v, 3)] for k, v in listener.root.items()), key=lambda r: -r[1]),
            "kernels": [[k, round(v, 3), listener.count[k]] for k, v in rows],
        }
        with open(os.environ.get("CP_OUT", "compile_profile.json"), "w") as fh:
            json.dump(out, fh, indent=1)
        print(f"wall {out['wall']:.1f}s compile {out['compile_total']:.1f}s", file=sys.stderr)
        print("-- by kernel called from Python (with its callees):", file=sys.stderr)
        for k, v in out["roots"]:
            print(f"{v:8.3f} {k}", file=sys.stderr)
        print("-- each kernel's own:", file=sys.stderr)
        for k, v, c in out["kernels"][:40]:
            print(f"{v:8.3f} {c:3d} {k}", file=sys.stderr)


if __name__ == "__main__":
    main()
