"""The C kernels (``_fp_c``) against the numba kernels they replace, warm, in one process.

    python bench/bench_fp_c.py [--repeat 5] [--data ../shared/data] [--corpora zh-xwlb,en-bbc] [--cases ...]
    python bench/bench_fp_c.py --dedup [--repeat 3]     # warm `neardup dedup` of zh-xwlb, C vs numba

Times, per corpus (zh-xwlb, en-bbc), the match engine's signing (``match.signature.signatures``),
SimHash of the default config (jieba words, TF-IDF: ``fingerprint_many``) and of character shingles,
and the sketch candidate pairs, each with the C kernels and with the numba kernels (already
compiled: one call first), alternating, median of ``--repeat``. Prints one JSON line per case. ``--dedup`` instead times whole warm ``neardup dedup`` runs of
zh-xwlb in fresh processes, alternating a process that uses the C kernels and one where the
extension cannot be imported (the fallback a user without a compiler gets).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from neardup.config import SimHashConfig
from neardup.fingerprint import _fast, _kernels
from neardup.fingerprint.simhash import SimHasher
from neardup.match import candidates, signature
from neardup.match.config import MatchConfig

_MODULES = (_fast, _kernels, signature, candidates)


def _texts(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def _with(c: bool, fn: Callable[[], Any]) -> float:
    """Seconds ``fn`` takes with the C kernels (c) or the numba ones."""
    saved = [m._fp_c for m in _MODULES]  # type: ignore[attr-defined]
    try:
        if not c:
            for m in _MODULES:
                m._fp_c = None  # type: ignore[attr-defined]
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t
    finally:
        for m, s in zip(_MODULES, saved, strict=True):
            m._fp_c = s  # type: ignore[attr-defined]


class _NoExtension:
    """An import hook that makes ``neardup.fingerprint._fp_c`` missing, as without a compiler."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "neardup.fingerprint._fp_c":
            raise ImportError("the C extension is hidden by bench_fp_c")


def _run_cli(with_c: bool, argv: list[str]) -> None:
    if not with_c:
        sys.meta_path.insert(0, _NoExtension())  # type: ignore[arg-type]
    from neardup.cli.main import main as cli

    sys.argv = ["neardup", *argv]
    cli()


def _dedup(data: Path, repeat: int) -> None:
    src = data / "zh-xwlb.jsonl.gz"
    with tempfile.TemporaryDirectory() as tmp:
        times: dict[str, list[float]] = {"c": [], "numba": []}
        for i in range(repeat + 1):  # the first round warms the kernel cache and the page cache
            for kind in ("c", "numba"):
                cmd = [
                    sys.executable,
                    __file__,
                    "--run-cli",
                    kind,
                    "dedup",
                    str(src),
                    "-o",
                    f"{tmp}/{kind}.jsonl",
                ]
                t = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True)
                if i:
                    times[kind].append(time.perf_counter() - t)
        c, nb = statistics.median(times["c"]), statistics.median(times["numba"])
        same = Path(f"{tmp}/c.jsonl").read_bytes() == Path(f"{tmp}/numba.jsonl").read_bytes()
        print(
            json.dumps(
                {
                    "corpus": "zh-xwlb",
                    "case": "neardup dedup (warm, wall)",
                    "c_s": round(c, 3),
                    "numba_s": round(nb, 3),
                    "c_over_numba": round(c / nb, 3),
                    "same_output": same,
                    "runs": times,
                }
            )
        )


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--run-cli":
        return _run_cli(sys.argv[2] == "c", sys.argv[3:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dedup", action="store_true")
    ap.add_argument("--corpora", default="zh-xwlb,en-bbc")
    ap.add_argument("--cases", default="signatures,sketch_pairs,simhash_words,simhash_shingles")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "data"))
    args = ap.parse_args()
    if args.dedup:
        return _dedup(Path(args.data), args.repeat)
    cfg = MatchConfig()
    for name in args.corpora.split(","):
        texts = _texts(Path(args.data) / f"{name}.jsonl.gz")
        sigs = signature.signatures(texts, cfg)
        cases: dict[str, Callable[[], Any]] = {
            "signatures": lambda t=texts: signature.signatures(t, cfg),
            "sketch_pairs": lambda s=sigs: candidates.sketch_pairs(s.sketch, cfg),
            "simhash_words": lambda t=texts: SimHasher().fingerprint_many(t),
            "simhash_shingles": lambda t=texts: SimHasher(
                SimHashConfig(features="shingles")
            ).fingerprint_many(t),
        }
        for case, fn in cases.items():
            if case not in args.cases.split(","):
                continue
            _with(True, fn), _with(False, fn)  # warm: caches, dictionaries, numba kernels loaded
            c_times, nb_times = [], []
            for _ in range(args.repeat):
                c_times.append(_with(True, fn))
                nb_times.append(_with(False, fn))
            c, nb = statistics.median(c_times), statistics.median(nb_times)
            print(
                json.dumps(
                    {
                        "corpus": name,
                        "docs": len(texts),
                        "case": case,
                        "c_s": round(c, 4),
                        "numba_s": round(nb, 4),
                        "c_over_numba": round(c / nb, 3),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
