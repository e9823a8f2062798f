"""ContentSeen benchmark: main-text extractors compared, then end-to-end ``check`` against 1M documents.

    .venv/bin/python bench/bench_contentseen.py [--quick] [--repeat 3] [--no-write] [--only durability]

1. Extractors (resiliparse, trafilatura, readability-lxml, jusText) on real articles from
   zh-xwlb and en-bbc wrapped at runtime in four site templates (navigation, sidebars, related
   links, ads, scripts, comments, footers; ``neardup.contentseen.synth``): token F1 of the
   extracted text against the article body, and milliseconds per page.
2. ``ContentSeen.check`` of real-size news pages (HTML 10-30 KB) against an index of 1M documents
   (1M random fingerprints plus the real pages, and 1M sentence keys in the nshash map):
   pages/s on one core, ``add=False`` (only asks) and ``add=True`` (remembers), with the time
   each stage takes. Target: >= 300 pages/s per core.
3. Durability levels: ``check(url, text=...)`` adding real zh-xwlb article texts to a ContentSeen
   with a state directory (on the repository's disk) at ``always``, ``everysec`` and ``no``,
   beside ``memory://``: pages/s on one thread (wall clock: what a crawler's pipeline sees, fsync
   waits included) and per CPU second, fsyncs done. Target: >= 1,000 pages/s at the default level.

Times are medians of --repeat runs on a shared, noisy 2-core machine: compare ratios.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))

from _sections import write_section  # noqa: E402
from neardup.contentseen import ContentSeen  # noqa: E402
from neardup.contentseen.extract import (  # noqa: E402
    decode_html,
    extract_main_text,
    layout_features,
    layout_signature,
)
from neardup.contentseen.synth import TEMPLATES, render_page  # noqa: E402
from neardup.fingerprint.nshash import longest_sentences  # noqa: E402
from neardup.match import Signatures, exact_key, signatures  # noqa: E402

_TOK = re.compile(r"[\u4e00-\u9fff]|[A-Za-z0-9]+")


def load(name: str, n: int, skip: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i < skip:
                continue
            d = json.loads(line)
            if len(d.get("text", "")) < 200:
                continue
            out.append(d)
            if len(out) >= n:
                break
    return out


def paragraphs(doc: dict[str, Any]) -> list[str]:
    return [p.strip() for p in doc["text"].split("\n") if p.strip()]


def pages_of(docs: list[dict[str, Any]], seed: int) -> list[tuple[str, str, str]]:
    """(template, html, truth) for each doc, templates in turn, related links from other titles."""
    rng = random.Random(seed)
    titles = [d["title"] for d in docs]
    out = []
    for i, d in enumerate(docs):
        paras = paragraphs(d)
        tpl = TEMPLATES[i % len(TEMPLATES)]
        html = render_page(
            d["title"],
            paras,
            template=tpl,
            related=rng.sample(titles, min(12, len(titles))),
            seed=seed * 100_000 + i,
        )
        out.append((tpl, html, "\n".join(paras)))
    return out


def token_f1(pred: str, truth: str) -> float:
    p, t = Counter(_TOK.findall(pred.lower())), Counter(_TOK.findall(truth.lower()))
    common = sum((p & t).values())
    if not common:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(t.values())
    return 2 * precision * recall / (precision + recall)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median CPU seconds of this process over ``repeat`` runs (the machine is shared: wall time
    counts the other jobs' load too), and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def timed_wall(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Median (CPU seconds, wall seconds) over ``repeat`` runs, and the last result."""
    cpu, wall, out = [], [], None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), out


# -- 1. extractors ---------------------------------------------------------------------------------
def bench_extractors(n: int, repeat: int) -> tuple[list[dict[str, Any]], list[str]]:
    zh = pages_of(load("zh-xwlb.jsonl.gz", n), 1)
    en = pages_of(load("en-bbc.jsonl.gz", n), 2)
    sizes = [len(h.encode()) for _, h, _ in zh + en]
    notes = [
        f"{len(zh)} zh + {len(en)} en pages, HTML {min(sizes) // 1024}-{max(sizes) // 1024} KB "
        f"(median {statistics.median(sizes) / 1024:.1f} KB)"
    ]
    rows = []
    for name in ("resiliparse", "trafilatura", "readability", "justext"):
        for prose in (True, False):
            if name != "resiliparse" and not prose:
                continue

            def run(pages: list[tuple[str, str, str]], name: str = name, prose: bool = prose) -> list[str]:
                return [extract_main_text(h, name, prose_only=prose) for _, h, _ in pages]

            t_zh, out_zh = timed(lambda: run(zh), repeat)
            t_en, out_en = timed(lambda: run(en), repeat)
            f_zh = [token_f1(o, t) for o, (_, _, t) in zip(out_zh, zh, strict=True)]
            f_en = [token_f1(o, t) for o, (_, _, t) in zip(out_en, en, strict=True)]
            by_tpl: dict[str, list[float]] = {}
            for f, (tpl, _, _) in zip(f_zh + f_en, zh + en, strict=True):
                by_tpl.setdefault(tpl, []).append(f)
            rows.append(
                {
                    "extractor": name + ("" if prose else " (raw lines)"),
                    "f1_zh": statistics.mean(f_zh),
                    "f1_en": statistics.mean(f_en),
                    "f1": statistics.mean(f_zh + f_en),
                    "worst_template": min((statistics.mean(v), k) for k, v in by_tpl.items()),
                    "ms": (t_zh + t_en) / (len(zh) + len(en)) * 1000,
                }
            )
            print(
                f"  {rows[-1]['extractor']:28s} F1 {rows[-1]['f1']:.3f}  {rows[-1]['ms']:.2f} ms/page",
                flush=True,
            )
    return rows, notes


# -- 2. end-to-end check ---------------------------------------------------------------------------
def prefill_engine(cs: ContentSeen, n: int) -> None:
    """``n`` earlier documents with random signatures (distinct articles), as a long crawl leaves."""
    rnd = np.random.default_rng(1)
    k = cs.match.sketch_size
    m = cs.match.max_numbers
    for start in range(0, n, 100_000):
        b = min(100_000, n - start)
        sketch = np.sort(rnd.integers(0, 2**32 - 1, size=(b, k), dtype=np.uint64), axis=1).astype(np.uint32)
        numbers = np.sort(rnd.integers(0, 2**63, size=(b, m), dtype=np.uint64), axis=1)
        sigs = Signatures(
            exact=rnd.integers(0, 2**63, size=b, dtype=np.uint64),
            content=rnd.integers(0, 2**63, size=b, dtype=np.uint64),
            simhash=rnd.integers(0, 2**63, size=b, dtype=np.uint64),
            size=np.full(b, 600, np.int32),
            tokens=np.full(b, 604, np.int32),
            sketch=sketch,
            numbers=numbers,
        )
        rows = cs._state.engine.n + np.arange(b, dtype=np.int64)
        cs._state.engine.record(sigs, rows)
        cs._state.rows.extend(range(10**9 + start, 10**9 + start + b))


def bench_check(n_index: int, n_pages: int, repeat: int) -> dict[str, Any]:
    docs = load("zh-xwlb.jsonl.gz", n_pages * 8 + 500)
    rng = random.Random(7)
    # pages of 10-30 KB: merge consecutive items until the article has >= 1,200 characters
    articles: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(docs) and len(articles) < n_pages * 2:
        title, paras = docs[i]["title"], paragraphs(docs[i])
        while sum(map(len, paras)) < 1200 and i + 1 < len(docs):
            i += 1
            paras += paragraphs(docs[i])
        articles.append((title, paras))
        i += 1
    titles = [t for t, _ in articles]
    html = [
        render_page(t, p, template=TEMPLATES[j % 3], related=rng.sample(titles, 12), seed=j)
        for j, (t, p) in enumerate(articles)
    ]
    known, probes = html[:n_pages], html[n_pages:]
    # a fifth of the probes are reposts of known pages in another template (duplicates)
    for j in range(0, len(probes), 5):
        t, p = articles[j]
        probes[j] = render_page(
            t, p, template=TEMPLATES[(j + 1) % 3], related=rng.sample(titles, 12), seed=10**6 + j
        )
    sizes = [len(h.encode()) for h in probes]

    cs = ContentSeen("memory://")
    t0 = time.perf_counter()
    prefill_engine(cs, n_index)
    prefill = time.perf_counter() - t0
    for j, h in enumerate(known):
        cs.check(f"https://origin.example/{j}", html=h)

    def ask() -> Counter[str]:
        return Counter(
            cs.check(f"https://probe.example/{j}", html=h, add=False).kind for j, h in enumerate(probes)
        )

    ask()  # warm caches (jieba, numba, the vocabulary)
    t_ask, w_ask, kinds = timed_wall(ask, repeat)

    # the stages, one at a time, over the same probes
    texts = [extract_main_text(h) for h in probes]
    sigs = [signatures([t]) for t in texts]
    engine = cs._state.engine
    stages: dict[str, Callable[[], Any]] = {
        "decode + exact key": lambda: [exact_key(decode_html(h)) for h in probes],
        "main text (resiliparse)": lambda: [extract_main_text(h) for h in probes],
        "signature (tokens, sketch, SimHash, numbers)": lambda: [signatures([t]) for t in texts],
        "layout signature": lambda: [layout_signature(layout_features(h)) for h in probes],
        "longest sentences (shown in reasons)": lambda: [longest_sentences(t, 5) for t in texts],
        "engine check (candidates + verification)": lambda: [engine.run(x, add=False) for x in sigs],
    }
    stage_ms = {name: timed(fn, repeat)[0] / len(probes) * 1000 for name, fn in stages.items()}
    state_bytes = engine.nbytes()

    # adding: fresh copies of the probe pages under other URLs
    c0, w0 = time.process_time(), time.perf_counter()
    for j, h in enumerate(probes):
        cs.check(f"https://added.example/{j}", html=h)
    t_add, w_add = time.process_time() - c0, time.perf_counter() - w0
    out = {
        "index": engine.n,
        "state_bytes": state_bytes,
        "pages": len(probes),
        "sizes": sizes,
        "prefill_s": prefill,
        "ask_rate": len(probes) / t_ask,
        "add_rate": len(probes) / t_add,
        "ask_wall": len(probes) / w_ask,
        "add_wall": len(probes) / w_add,
        "kinds": dict(kinds),
        "stage_ms": stage_ms,
    }
    cs.close()
    return out


# -- 3. durability levels ----------------------------------------------------------------------------
def fdatasync_ms(where: Path, n: int = 50) -> float:
    """Median milliseconds of one fdatasync after a 300-byte append, on the disk of ``where``."""
    path = where / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    times = []
    try:
        for _ in range(n):
            os.write(fd, b"x" * 300)
            t0 = time.perf_counter()
            os.fdatasync(fd)
            times.append(time.perf_counter() - t0)
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(times) * 1000


def bench_durability(n_pages: int, repeat: int) -> dict[str, Any]:
    import shutil
    import tempfile

    texts = [d["text"] for d in load("zh-xwlb.jsonl.gz", n_pages)]
    ContentSeen("memory://").check("warm-up", text=texts[0], add=False)  # jieba, kernels
    scratch = Path(tempfile.mkdtemp(prefix=".bench-durability-", dir=ROOT))
    out: dict[str, Any] = {"pages": len(texts), "chars": statistics.median(map(len, texts))}
    try:
        out["fdatasync_ms"] = fdatasync_ms(scratch)
        levels = ("memory://", "always", "everysec", "no")
        cpu: dict[str, list[float]] = {lv: [] for lv in levels}
        wall: dict[str, list[float]] = {lv: [] for lv in levels}
        syncs: dict[str, list[int]] = {lv: [] for lv in levels}
        for r in range(repeat):  # levels interleaved: each round sees the same load on the machine
            for level in levels:
                state = "memory://" if level == "memory://" else str(scratch / f"{level}-{r}")
                cs = ContentSeen(state, durability="everysec" if level == "memory://" else level)  # type: ignore[arg-type]
                c0, w0 = time.process_time(), time.perf_counter()
                for j, t in enumerate(texts):
                    cs.check(f"https://a.example/{j}", text=t)
                cpu[level].append(time.process_time() - c0)
                wall[level].append(time.perf_counter() - w0)
                flusher = cs._state.flusher
                syncs[level].append(
                    len(texts) if level == "always" else flusher.syncs if flusher is not None else 0
                )
                cs.close()
                print(
                    f"  round {r + 1} {level:10s} {len(texts) / wall[level][-1]:7.0f} pages/s wall",
                    flush=True,
                )
        rows = [
            {
                "level": lv,
                "wall_rate": len(texts) / statistics.median(wall[lv]),
                "cpu_rate": len(texts) / statistics.median(cpu[lv]),
                "syncs": statistics.median(syncs[lv]),
                # this level's wall rate over memory://'s in the same round
                "vs_memory": statistics.median(
                    m / w for w, m in zip(wall[lv], wall["memory://"], strict=True)
                ),
            }
            for lv in levels
        ]
        out["rows"] = rows
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def durability_section(res: dict[str, Any], cmd: str, date: str, repeat: int, load: str) -> str:
    import subprocess

    target = 1000
    default = next(r for r in res["rows"] if r["level"] == "everysec")
    rate = default["cpu_rate"]
    met = "met" if rate >= target else f"missed by {100 * (1 - rate / target):.0f}%"
    head = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h %s"], capture_output=True, text=True, check=False
    ).stdout.strip()[:90]
    lines = [
        "## ContentSeen durability levels",
        "",
        f"`{cmd}` — {date}, machine: 2 cores, 24 GiB, shared with other jobs (load average {load}), "
        f"Python {platform.python_version()}; medians of {repeat} rounds, the levels "
        "interleaved in each round, each run on a new state directory on the repository's disk "
        "(ext4 on a virtio block device).",
        "",
        f"{res['pages']} zh-xwlb article texts (median {res['chars']:.0f} characters) added one by one "
        "with `check(url, text=...)` on one thread, as a crawler's pipeline does. One fdatasync after a "
        f"300-byte append takes {res['fdatasync_ms']:.2f} ms (median of 50) on this disk during the run. "
        "Wall clock is what the pipeline waits (fsyncs included); the CPU rate counts the whole "
        "process (the background fsync thread too); while other jobs load the machine the wall "
        "rate is what this process's share of a core allows, so compare it with `memory://` in "
        f"the same round (median of the rounds' ratios). Code: `{head}`.",
        "",
        "| state | durability | pages / s per core (CPU time) | pages / s (wall, one thread) | wall vs `memory://` | fsyncs | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in res["rows"]:
        where = "`memory://`" if r["level"] == "memory://" else "directory"
        level = (
            "—"
            if r["level"] == "memory://"
            else f"`{r['level']}`" + (" (default)" if r["level"] == "everysec" else "")
        )
        goal = f">= {target} per core: {met}" if r["level"] == "everysec" else ""
        lines.append(
            f"| {where} | {level} | {r['cpu_rate']:.0f} | {r['wall_rate']:.0f} | "
            f"{r['vs_memory']:.2f}x | {r['syncs']:.0f} | {goal} |"
        )
    lines += [
        "",
        "`always` pays one fsync per page on the adding thread, so its rate is bound by the disk's "
        "fsync time (and falls with it on a busy or network disk); `everysec` does about one fsync a "
        "second in a background thread, so the adding thread runs at the in-memory rate less the "
        "journal write; `no` leaves the fsync to the OS.",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="do not write docs/benchmarks.md")
    ap.add_argument("--only", choices=["durability"], help="run only this part")
    args = ap.parse_args()
    n_ex, n_index, n_pages = (30, 100_000, 100) if args.quick else (100, 1_000_000, 400)
    cmd = "python bench/bench_contentseen.py" + (" --quick" if args.quick else "")
    print("durability levels ...", flush=True)
    load0 = os.getloadavg()[0]
    dur = bench_durability(500 if args.quick else 2000, args.repeat)
    load = f"{load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    dsection = durability_section(
        dur, cmd + (" --only durability" if args.only else ""), date, args.repeat, load
    )
    print(dsection)
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "contentseen-durability", dsection)
    if args.only == "durability":
        return
    print(f"extractors on {n_ex} + {n_ex} pages ...", flush=True)
    ex_rows, notes = bench_extractors(n_ex, args.repeat)
    print(f"check against {n_index:,} documents ...", flush=True)
    res = bench_check(n_index, n_pages, args.repeat)

    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    s = res["sizes"]
    lines = [
        "## ContentSeen",
        "",
        f"`{cmd}` — {date}, machine: 2 cores, 24 GiB (shared with other jobs: noisy), "
        f"Python {platform.python_version()}; medians of {args.repeat} runs.",
        "",
        "### Main-text extractors",
        "",
        f"Real articles (zh-xwlb, en-bbc) wrapped in the four templates of `neardup.contentseen.synth`; "
        f"{notes[0]}. Token F1 of the extracted text against the article body (Chinese: characters; "
        "English: words). `prose_only` (default) drops extracted lines that hold no sentence.",
        "",
        "| extractor | F1 zh | F1 en | F1 all | worst template (F1) | CPU ms / page |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for r in ex_rows:
        w = r["worst_template"]
        lines.append(
            f"| {r['extractor']} | {r['f1_zh']:.3f} | {r['f1_en']:.3f} | {r['f1']:.3f} | "
            f"{w[1]} ({w[0]:.3f}) | {r['ms']:.2f} |"
        )
    rate = res["ask_rate"]
    target = 1000
    met = "met" if rate >= target else f"missed by {100 * (1 - rate / target):.0f}%"
    lines += [
        "",
        "### End-to-end `check`",
        "",
        f"{res['pages']} news pages (HTML {min(s) // 1024}-{max(s) // 1024} KB, median "
        f"{statistics.median(s) / 1024:.1f} KB; one in five a repost of a known page in another template) "
        f"checked against {res['index']:,} documents (random signatures + real pages; prefill "
        f"{res['prefill_s']:.1f} s), one thread. Engine state beyond the signatures: "
        f"{(res['state_bytes']['postings'] + res['state_bytes']['keys'] + res['state_bytes']['clusters']) / max(res['index'], 1):.0f}"
        f" bytes per document (postings, key tables, clusters; signatures "
        f"{res['state_bytes']['signatures'] / max(res['index'], 1):.0f} bytes per document at the arrays' capacity).",
        "",
        "Pages per second of CPU time of the checking process (one thread: one core); the wall-clock "
        "rate of the same run is beside it, lower while other jobs load the machine.",
        "",
        "| operation | pages / s per core (CPU time) | pages / s (wall clock) | target |",
        "|---|---:|---:|---|",
        f"| `check(add=False)` (only asks) | {rate:.0f} | {res['ask_wall']:.0f} | >= {target}: {met} |",
        f"| `check(add=True)` (remembers) | {res['add_rate']:.0f} | {res['add_wall']:.0f} | |",
        "",
        f"Verdicts of the asked pages: {res['kinds']}.",
        "",
        "| stage (per page, CPU) | ms |",
        "|---|---:|",
    ]
    total = 0.0
    for name, ms in res["stage_ms"].items():
        lines.append(f"| {name} | {ms:.2f} |")
        if "layout" not in name:
            total += ms
    lines += [
        f"| sum of the asking stages | {total:.2f} |",
        "",
        "Main-text extraction dominates; the signature and the engine's check (candidates among 1M "
        "documents, verification against representatives) are a small part. `add=True` also writes the "
        "journal and records the page in the engine's tables.",
    ]
    if rate < target:
        lines += [
            "",
            f"The {target} pages/s target is missed by {100 * (1 - rate / target):.0f}%: see the stages "
            "above; main-text extraction of 10-30 KB pages bounds the rate.",
        ]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section(ROOT / "docs" / "benchmarks.md", "contentseen", section)


if __name__ == "__main__":
    main()
