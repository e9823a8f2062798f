"""Run the neardup CLI in this process and record every numba compile: seconds per kernel.

    NUMBA_CACHE_DIR=$(mktemp -d) CP_OUT=cp.json python bench/compile_profile.py dedup in.jsonl.gz -o out.jsonl

Prints (and writes to ``$CP_OUT``) the wall time, the total compile time, the compile time of each
kernel called from Python including its callees, and each kernel's own (exclusive) compile time.
With an empty ``NUMBA_CACHE_DIR`` this is what a first run on a fresh install compiles.
"""

import json, os, sys, time, atexit
from collections import defaultdict
from numba.core import event

stack = []  # [name, start, child_time]
excl = defaultdict(float)
count = defaultdict(int)
root = defaultdict(float)
mods = {}


class L(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["dispatcher"], time.perf_counter(), 0.0])

    def on_end(self, ev):
        d, t0, child = stack.pop()
        dt = time.perf_counter() - t0
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        excl[name] += dt - child
        count[name] += 1
        if stack:
            stack[-1][2] += dt
        else:
            root[name] += dt


event.register("numba:compile", L())
T0 = time.perf_counter()


def report():
    total = sum(excl.values())
    rows = sorted(excl.items(), key=lambda kv: -kv[1])
    out = {
        "wall": time.perf_counter() - T0,
        "compile_total": total,
        "kernels": [[k, round(v, 3), count[k]] for k, v in rows],
        "roots": sorted([[k, round(v, 3)] for k, v in root.items()], key=lambda r: -r[1]),
    }
    with open(os.environ.get("CP_OUT", "compile_profile.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"wall {out['wall']:.1f}s compile {total:.1f}s", file=sys.stderr)
    print("-- by kernel called from Python (inclusive):", file=sys.stderr)
    for k, v in out["roots"]:
        print(f"{v:8.3f} {k}", file=sys.stderr)
    print("-- exclusive:", file=sys.stderr)
    for k, v, c in out["kernels"][:25]:
        print(f"{v:8.3f} {c:3d} {k}", file=sys.stderr)


atexit.register(report)

from neardup.cli.main import main

sys.argv = ["neardup"] + sys.argv[1:]
try:
    main()
except SystemExit:
    pass
