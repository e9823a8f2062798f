"""Run every benchmark in bench/ one after another (each writes its section of docs/benchmarks.md).

python bench/run_all.py            # full runs (tens of minutes on 2 cores)
python bench/run_all.py --quick    # smoke runs
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCHES = ["fingerprint", "index", "nshash", "urls", "dedup", "contentseen", "service", "quality"]


def main() -> int:
    here = Path(__file__).parent
    extra = sys.argv[1:]
    failed = []
    for name in BENCHES:
        t0 = time.perf_counter()
        print(f"== bench_{name}.py {' '.join(extra)}", flush=True)
        rc = subprocess.call([sys.executable, str(here / f"bench_{name}.py"), *extra])
        print(f"== bench_{name}.py exit {rc} in {time.perf_counter() - t0:.0f} s", flush=True)
        if rc:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
