"""What the keep rule costs inside ``neardup dedup``: the CLI's own run with ``keepers`` timed.

python bench/bench_keep_rule.py FILE [--keep fuller|first|longest|newest]
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any

import neardup.dedup.local as local
from neardup.cli.main import main as cli


def main() -> None:
    timed: dict[str, Any] = {}
    keepers = local.keepers

    def timing(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = keepers(*args, **kwargs)
        timed["seconds"], timed["documents"] = time.perf_counter() - t0, len(args[0])
        return out

    local.keepers = timing
    sys.argv = ["neardup", "dedup", *sys.argv[1:], "-q", "--skip-bad", "--out", "/dev/null"]
    with contextlib.suppress(SystemExit):
        cli()
    print(f"keepers: {timed['documents']:,} documents, {timed['seconds'] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
