"""``neardup dedup`` end to end against the Rust MinHash peers rensa and gaoya, JSONL.gz to clusters.

    .venv/bin/python bench/bench_peers.py --peers-python /work/peers-venv/bin/python
    .venv/bin/python bench/bench_peers.py --peers-python ... --x10     # also 10 copies of zh-xwlb

The peers live in their own venv (``python3 -m venv /work/peers-venv && /work/peers-venv/bin/pip
install rensa gaoya orjson``) so they never touch neardup's. Every run is its own process under
``/usr/bin/time -v`` (wall time with interpreter start-up, peak RSS) and does the whole job: read the
gzip JSONL (orjson), sign, find candidates, cluster (union-find), write one ``{"id", "cluster"}`` line
per document; the tools take turns (one run each per repeat, so a change of load falls on all). The
peers use 128 permutations, character 5-grams, 16 bands of 8 and keep a candidate pair when its
estimated Jaccard is at least 0.8 (rensa; gaoya's index applies its threshold itself); rensa runs on
one core, gaoya's bulk calls on every core (rayon), neardup as it ships. Every tool runs with its
modules' bytecode compiled, as ``pip install`` leaves a package: neardup's source trees (this one and
``--also-src``) are byte-compiled first (``compileall``, into their ``__pycache__``), so a
``PYTHONDONTWRITEBYTECODE`` environment does not charge neardup alone for compiling its modules on
every run (0.2 s of a zh-xwlb run here).

The 10x set is zh-xwlb followed by 9 edited copies of it (``bench_spark_scale._edited``: a typo every
~150 characters, some copies without their first paragraph or with a source line), gzip JSONL.
Prints a table; ``--write`` puts it into the ``peers`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import write_section  # noqa: E402
from bench_spark_scale import _edited  # noqa: E402

DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
XWLB = DATA / "zh-xwlb.jsonl.gz"

PEER = r"""
import gzip, sys, orjson
tool, src, dst = sys.argv[1:4]
with gzip.open(src, "rb") as f:
    recs = [orjson.loads(line) for line in f]
ids = [r["id"] for r in recs]
texts = [r["text"] or "" for r in recs]
n = len(texts)
parent = list(range(n))
def find(i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i
def union(a, b):
    a, b = find(a), find(b)
    if a != b:
        parent[max(a, b)] = min(a, b)
if tool == "rensa":
    from rensa import RMinHash, RMinHashLSH
    mh = []
    for s in range(0, n, 2000):  # token lists a batch at a time: all at once they take GBs
        grams = [[t[j:j + 5] for j in range(max(1, len(t) - 4))] for t in texts[s:s + 2000]]
        mh.extend(RMinHash.from_token_sets(grams, num_perm=128, seed=42))
    lsh = RMinHashLSH(0.8, 128, 16)
    lsh.insert_many(mh, 0)
    for i, cands in enumerate(lsh.query_all(mh)):
        for j in cands:
            if j != i and mh[i].jaccard(mh[j]) >= 0.8:
                union(i, j)
else:
    from gaoya.minhash import MinHashStringIndex
    index = MinHashStringIndex(32, 0.8, 16, 8, None, "char", False, (5, 5), id_container="smallvec")
    index.par_bulk_insert_docs(list(range(n)), texts)
    for i, cands in enumerate(index.par_bulk_query(texts)):
        for j in cands:
            if j != i:
                union(i, j)
with open(dst, "wb") as out:
    for i in range(n):
        out.write(orjson.dumps({"id": ids[i], "cluster": ids[find(i)]}) + b"\n")
print(sum(find(i) != i for i in range(n)))
"""


def make_x10(dst: Path, copies: int = 10, seed: int = 7) -> Path:
    """zh-xwlb followed by ``copies - 1`` edited copies of it, as one gzip JSONL (kept when there)."""
    if dst.exists():
        return dst
    with gzip.open(XWLB, "rt", encoding="utf-8") as fh:
        articles = [json.loads(line) for line in fh]
    rng = random.Random(seed)
    tmp = dst.with_suffix(".part")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=6) as out:
        for copy in range(copies):
            for a in articles:
                text = a.get("text") or ""
                text = text if copy == 0 or not text else _edited(text, rng)
                out.write(json.dumps({"id": f"{a['id']}~{copy}", "text": text}, ensure_ascii=False) + "\n")
    tmp.rename(dst)
    return dst


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and the last line of output of ``cmd`` under /usr/bin/time -v."""
    t = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    rss = next(int(ln.split(":")[1]) for ln in res.stderr.splitlines() if "Maximum resident set size" in ln)
    lines = res.stdout.strip().splitlines()
    return wall, rss / 1024, lines[-1] if lines else ""


def byte_compile(*trees: str | Path | None) -> None:
    """Compile the modules of neardup's source trees as ``pip install`` does for a wheel (a run then
    reads them, whatever ``PYTHONDONTWRITEBYTECODE`` says)."""
    for tree in trees:
        if tree is not None:
            compileall.compile_dir(str(tree), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--peers-python", required=True, help="Python of the venv holding rensa, gaoya and orjson."
    )
    ap.add_argument("--x10", action="store_true", help="Also the 10x set (10 copies of zh-xwlb, 9 edited).")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", default=tempfile.gettempdir(), help="Where the 10x set and outputs go.")
    ap.add_argument("--write", action="store_true", help="Write the table into docs/benchmarks.md.")
    ap.add_argument(
        "--also-src",
        default=None,
        help="Another neardup source tree (its src/ folder, extensions built) run as 'neardup@other' in the "
        "same round robin: before and after a change in one run.",
    )
    args = ap.parse_args()
    if not XWLB.exists():
        sys.exit(f"corpus not found: {XWLB}")
    work = Path(args.work)
    installed = importlib.util.find_spec("neardup")
    assert installed is not None and installed.origin is not None, "neardup is not installed here"
    byte_compile(Path(installed.origin).parent, args.also_src and Path(args.also_src) / "neardup")
    sets = [("zh-xwlb", XWLB)]
    if args.x10:
        sets.append(("zh-xwlb x10", make_x10(work / "neardup-bench-xwlb-x10.jsonl.gz")))
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    rows = [
        "| set | tool | wall s (median of runs) | runs | peak RSS MB | docs not their own cluster | vs rensa |",
        "|---|---|---|---|---|---|---|",
    ]
    tools: tuple[str, ...] = ("neardup", "rensa", "gaoya")
    if args.also_src:
        tools = ("neardup", "neardup@other", "rensa", "gaoya")
    for name, path in sets:
        res: dict[str, tuple[float, list[float], float, str]] = {}
        cmds: dict[str, list[str]] = {}
        outs = {tool: work / f"neardup-bench-{tool}.jsonl" for tool in tools}
        envs: dict[str, dict[str, str] | None] = dict.fromkeys(tools)
        for tool in tools:
            if tool == "neardup@other":
                envs[tool] = {**os.environ, "PYTHONPATH": str(Path(args.also_src).resolve())}
            if tool.startswith("neardup"):
                cmds[tool] = [
                    sys.executable,
                    "-m",
                    "neardup.cli.main",
                    "dedup",
                    str(path),
                    "--out",
                    str(outs[tool]),
                ]
            else:
                cmds[tool] = [args.peers_python, "-c", PEER, tool, str(path), str(outs[tool])]
        walls: dict[str, list[float]] = {tool: [] for tool in tools}
        peak = dict.fromkeys(tools, 0.0)
        last = dict.fromkeys(tools, "")
        # round robin: each repeat runs every tool once, so a change of load falls on all of them
        for _ in range(args.repeats):
            for tool in tools:
                wall, r, last[tool] = timed(cmds[tool], envs[tool])
                walls[tool].append(wall)
                peak[tool] = max(peak[tool], r)
                print(name, tool, f"{wall:.2f} s", f"{r:.0f} MB", flush=True)
        for tool in tools:
            line = last[tool]
            if tool.startswith("neardup"):
                line = str(sum('"duplicate_of":null' not in ln for ln in outs[tool].read_text().splitlines()))
            res[tool] = (statistics.median(walls[tool]), walls[tool], peak[tool], line)
            print(name, tool, res[tool], flush=True)
        base = res["rensa"][0]
        for tool, (med, runs, rss, line) in res.items():
            rows.append(
                f"| {name} | {tool} | {med:.2f} | {', '.join(f'{r:.2f}' for r in runs)} | {rss:.0f} | {line} | "
                f"{med / base:.2f}x |"
            )
    body = "\n".join(
        [
            "## neardup dedup against rensa and gaoya, end to end (issues 25 and 26)",
            "",
            f"`python bench/bench_peers.py --peers-python /work/peers-venv/bin/python{' --x10' if args.x10 else ''}` — "
            f"{date}, 2 cores, shared; load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
            "(1 / 5 / 15 min). Wall time includes interpreter start-up and imports for every tool.",
            "",
            *rows,
        ]
    )
    print(body)
    if args.write:
        write_section(ROOT / "docs" / "benchmarks.md", "peers", body)


if __name__ == "__main__":
    main()
