"""Compile every numba kernel into the kernel cache once, at install, so no user run compiles.

    neardup warmup            # or: python -m neardup.warmup [--jobs 2] [--prune] [--quiet]

numba compiles a kernel for the argument types it is first called with. Warmup therefore runs the
real commands (``dedup`` with each profile, ``index build`` and ``dedup --against``,
``fingerprint`` with each hash and width, ``nshash``, ``compare``, ``urls``) and the library calls
behind the service and Spark (``HammingIndex``, ``ContentSeen``, ``SeenURLs``, ``NSHash``) on a
small made-up corpus with near copies, in ``--jobs`` processes, with the kernels compiled (never
interpreted). Everything lands in the cache folder of ``neardup._jit`` (``NUMBA_CACHE_DIR`` when
set); a later run loads each kernel from there in milliseconds. Running it again compiles nothing.

``make venv`` runs it, and so should a Dockerfile after ``pip install neardup`` (as the user the
container runs as: numba only uses a cache folder it can write). ``--prune``
removes the cache folders of other installs and versions under ``~/.cache/neardup``.

>>> sorted(WORKLOADS)[:4]
['compare', 'contentseen', 'dedup-against', 'dedup-corpus']
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import click

__all__ = ["WORKLOADS", "corpus", "main", "warmup", "warmup_cmd"]

# a small vocabulary of made-up Chinese and English words, so texts share words as real ones do
_ZH = "的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会家可下而过天去能对小多然于心学么之都好看起发当没成只如事把还用第样道想作种开美总从无情己面最女但现前些所同日手又行意动方期它头经长儿回位分爱老因很给名法间斯知世什两次使身者被高已亲其进此话常与活正感"
_EN = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "on",
    "that",
    "with",
    "as",
    "by",
    "market",
    "report",
    "year",
    "said",
    "government",
    "people",
    "company",
    "new",
    "first",
]


def _sentence(rng: random.Random, zh: bool) -> str:
    if zh:
        body = "".join(rng.choice(_ZH) for _ in range(rng.randint(12, 40)))
        if rng.random() < 0.3:
            body += f"{rng.randint(1, 2030)}年{rng.randint(1, 12)}月"
        return body + rng.choice("。。。！？；")
    words = [rng.choice(_EN) for _ in range(rng.randint(6, 18))]
    if rng.random() < 0.3:
        words.append(str(rng.randint(1, 9999)))
    return " ".join(words).capitalize() + ". "


def corpus(n: int = 240, seed: int = 25) -> list[dict[str, Any]]:
    """Records ``{"id", "text", "date"}``: Chinese and English stories with exact copies, near copies,
    contained copies, extended copies and templated stories, so every matching stage has work.

    >>> len(corpus(20)) == 20 and all(r["text"] for r in corpus(20))
    True
    """
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    base: list[str] = []
    while len(out) < n:
        i = len(out)
        kind = i % 8 if base else 0
        if kind in (0, 1, 2):  # a new story
            zh = rng.random() < 0.7
            sents = [_sentence(rng, zh) for _ in range(rng.randint(4, 14))]
            text = ("\n" if rng.random() < 0.5 else "").join(sents)
            base.append(text)
        else:
            src = rng.choice(base)
            if kind == 3:  # exact copy
                text = src
            elif kind == 4:  # a few characters changed
                chars = list(src)
                for _ in range(3):
                    j = rng.randrange(len(chars))
                    chars[j] = rng.choice(_ZH)
                text = "".join(chars)
            elif kind == 5:  # contained: the first half
                text = src[: max(1, len(src) // 2)]
            elif kind == 6:  # extended: more text after it
                text = src + _sentence(rng, True) + _sentence(rng, True)
            else:  # templated: the same story with other numbers
                text = "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in src)
        out.append({"id": f"d{i}", "text": text, "date": f"2024-01-{1 + i % 28:02d}"})
    return out


def _cli(args: list[str], input: str | None = None) -> None:
    from click.testing import CliRunner

    from neardup.cli.main import cli

    res = CliRunner().invoke(cli, args, input=input, catch_exceptions=True)
    if res.exit_code != 0:
        raise RuntimeError(f"neardup {' '.join(args)} failed ({res.exit_code}): {res.output[-500:]}")


def _write(tmp: Path, name: str = "corpus.jsonl", n: int = 240) -> str:
    path = tmp / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus(n)), encoding="utf-8")
    return str(path)


def _dedup(tmp: Path, profile: str) -> None:
    # over 1,000 documents: the batch signature kernel runs on every core from 256 documents, and
    # the engine's key tables grow past their first 1,024 slots (their rehash kernels)
    src = _write(tmp, n=1100 if profile == "news" else 300)
    _cli(
        [
            "dedup",
            src,
            "-o",
            str(tmp / "out.jsonl"),
            "-q",
            "--profile",
            profile,
            "--keep-out",
            str(tmp / "k.jsonl"),
        ]
    )
    extra = (
        ["-k", "3", "--keep", "longest", "--report-templates"] if profile == "news" else ["--keep", "newest"]
    )
    _cli(["dedup", src, "-o", str(tmp / "out2.jsonl"), "-q", "--profile", profile, *extra])


def _dedup_against(tmp: Path) -> None:
    src = _write(tmp)
    idx = str(tmp / "idx")
    _cli(["index", "build", src, "-o", idx, "-q"])
    _cli(
        [
            "dedup",
            _write(tmp, "batch.jsonl", 60),
            "-o",
            str(tmp / "o.jsonl"),
            "-q",
            "--against",
            idx,
            "--merge",
        ]
    )


def _fingerprint(tmp: Path) -> None:
    src = _write(tmp, n=60)
    for opts in (
        [],
        ["--bits", "32"],
        ["--features", "shingles"],
        ["--features", "word_ngrams", "--hash", "md5"],
        ["--weighting", "tf", "--levels", "5", "--top-n", "auto"],
        ["--format", "npy"],
    ):
        out = tmp / ("fp.npy" if "npy" in opts else "fp.jsonl")  # -o's suffix names the format
        _cli(["fingerprint", src, "-o", str(out), *opts])
    from neardup.fingerprint.simhash import SimHasher, fingerprint_many, hamming_many

    fps = fingerprint_many([r["text"] for r in corpus(40)])
    hamming_many(fps, fps[0])
    SimHasher().fingerprint("和世界交手这么多年，你是否兴致盎然、风采依旧")


def _index(tmp: Path) -> None:
    import numpy as np

    from neardup.index import HammingIndex

    rng = np.random.default_rng(25)
    # the default design (4 tables), the one for over ~16M fingerprints (10 tables), 32 bits
    for bits, k, size in ((64, 3, 5000), (64, 3, 20_000_000), (32, 3, 5000)):
        fps = rng.integers(0, 2**63, 5000, dtype=np.int64).astype(np.uint64)
        if bits == 32:
            fps &= np.uint64(0xFFFFFFFF)
        idx = HammingIndex(bits=bits, max_distance=k, expected_size=size, buffer_size=1000)
        ids = np.arange(fps.size, dtype=np.int64)
        idx.add_many(ids[:2500], fps[:2500])
        idx.add(2500, int(fps[2500]))
        idx.add_many(ids[2501:], fps[2501:])
        idx.query(int(fps[7]))
        idx.query_many(fps[:100])
        path = tmp / f"i{bits}-{k}-{size}.idx"
        idx.save(str(path))
        opened = HammingIndex.open(str(path))
        opened.query(int(fps[9]))
        opened.query_many(fps[:100])


def _nshash(tmp: Path) -> None:
    src = _write(tmp, n=80)
    _cli(["nshash", "run", src, "--store", "memory://"], None)
    from neardup.fingerprint.nshash import NSHash

    texts = [r["text"] for r in corpus(80)]
    for hashfunc in ("md5", "xxh3"):
        nsh = NSHash(hashdb="memory://", hashfunc=hashfunc)
        nsh.get_similar_many(texts)
        for t in texts[:5]:
            nsh.get_similar(t)


def _compare(tmp: Path) -> None:
    recs = corpus(8)
    (tmp / "a.txt").write_text(recs[0]["text"], encoding="utf-8")
    (tmp / "b.txt").write_text(recs[0]["text"][:50] + recs[1]["text"], encoding="utf-8")
    _cli(["compare", str(tmp / "a.txt"), str(tmp / "b.txt")])
    _cli(["compare", "--json", str(tmp / "a.txt"), str(tmp / "b.txt")])


def _contentseen(tmp: Path) -> None:
    from neardup.contentseen import ContentSeen

    recs = corpus(60)
    for url in ("memory://", str(tmp / "cs-state")):
        try:
            cs = ContentSeen(url)
        except Exception:  # a store URL form this version does not take: the memory one covers it
            continue
        for r in recs:
            cs.check(f"https://example.com/{r['id']}", text=r["text"])
        html = "<html><body><article><p>" + recs[0]["text"] + "</p></article></body></html>"
        with contextlib.suppress(Exception):  # HTML extraction needs the [html] extra
            cs.check("https://example.com/html", html=html)
        close = getattr(cs, "close", None)
        if close is not None:
            close()


def _urls(tmp: Path) -> None:
    from neardup.urls import SeenURLs, canonicalize_url

    urls = [f"https://example.com/{i}?utm_source=x&b={i % 7}" for i in range(500)]
    options: list[dict[str, Any]] = [{}, {"bloom": 0.001, "capacity": 10_000}, {"recrawl_after": 3600.0}]
    for opts in options:
        try:
            seen = SeenURLs("warmup", "memory://", **opts)
        except Exception:  # an option this store does not take
            continue
        with seen:
            seen.check_and_add_many(urls)
            seen.check_and_add(urls[0])
    canonicalize_url(urls[1])
    _cli(["urls", "canonical"], input="\n".join(urls[:20]) + "\n")


#: name -> workload; each runs real code on made-up data in its own temp folder
WORKLOADS: dict[str, Callable[[Path], None]] = {
    "dedup-news": lambda tmp: _dedup(tmp, "news"),
    "dedup-corpus": lambda tmp: _dedup(tmp, "corpus"),
    "dedup-against": _dedup_against,
    "fingerprint": _fingerprint,
    "index": _index,
    "nshash": _nshash,
    "compare": _compare,
    "contentseen": _contentseen,
    "urls": _urls,
}
# the biggest first, so --jobs processes finish together
_ORDER = [
    "dedup-news",
    "index",
    "fingerprint",
    "dedup-corpus",
    "dedup-against",
    "contentseen",
    "nshash",
    "compare",
    "urls",
]


def _run(name: str) -> tuple[str, float, int, str]:
    """Run one workload in this process; returns (name, seconds, kernels compiled, error)."""
    from numba.core import event

    compiled = 0

    class _Count(event.Listener):
        def on_start(self, ev: Any) -> None:
            nonlocal compiled
            compiled += 1

        def on_end(self, ev: Any) -> None:
            pass

    listener = _Count()
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix=f"neardup-warmup-{name}-") as tmp:
            WORKLOADS[name](Path(tmp))
        error = ""
    except Exception as exc:  # one workload's failure must not stop the others' compiling
        error = f"{type(exc).__name__}: {exc}"
    finally:
        event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]
    return name, time.perf_counter() - t0, compiled, error


def _init_worker() -> None:
    os.environ.pop("NUMBA_DISABLE_JIT", None)
    os.environ["NEARDUP_COMPILE_NOTICE"] = "0"


def warmup(
    jobs: int = 0, names: list[str] | None = None, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Compile the kernels of every workload (``names``: a subset) into the kernel cache.

    ``jobs``: processes (0: one per core, at most 4). Returns ``{"cache", "seconds", "compiled",
    "workloads": {name: {"seconds", "compiled", "error"}}}``; kernels already cached count 0.
    """
    import neardup  # noqa: F401  (sets NUMBA_CACHE_DIR for the workers)

    if "numba" in sys.modules and os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        raise RuntimeError("NUMBA_DISABLE_JIT is set in this process: nothing would be compiled")
    _init_worker()
    todo = [n for n in _ORDER if names is None or n in names]
    jobs = jobs or min(4, os.cpu_count() or 1)
    t0 = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(todo)), mp_context=get_context("spawn"), initializer=_init_worker
    ) as pool:
        for name, secs, compiled, error in pool.map(_run, todo):
            results[name] = {"seconds": round(secs, 2), "compiled": compiled, "error": error}
            if log is not None:
                log(
                    f"neardup warmup: {name}: {compiled} kernels compiled in {secs:.1f} s"
                    + (f" (failed: {error})" if error else "")
                )
    return {
        "cache": os.environ.get("NUMBA_CACHE_DIR", ""),
        "seconds": round(time.perf_counter() - t0, 2),
        "compiled": sum(r["compiled"] for r in results.values()),
        "workloads": results,
    }


def _prune() -> list[str]:
    """Remove the kernel cache folders of other installs and versions (``numba-*`` under
    ``neardup._jit.cache_root()`` other than this install's); returns those removed."""
    from neardup._jit import cache_folder, cache_root

    keep = os.path.basename(cache_folder())
    removed: list[str] = []
    root = cache_root()
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return removed
    for name in entries:
        if name.startswith("numba-") and name != keep:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            removed.append(os.path.join(root, name))
    return removed


@click.command("warmup", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Processes (0: one per core, at most 4).",
)
@click.option(
    "--only", default=None, help="Comma-separated workloads (default: all): " + ", ".join(_ORDER) + "."
)
@click.option("--prune", is_flag=True, help="First remove the kernel caches of other installs and versions.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def warmup_cmd(jobs: int, only: str | None, prune: bool, quiet: bool, as_json: bool) -> None:
    """Compile every kernel into the kernel cache once (run it after installing or upgrading).

    A run that finds its kernels in the cache starts at once; one that does not compiles them
    first (tens of seconds, once). Running warmup again compiles nothing.
    """
    names = None if only is None else [n.strip() for n in only.split(",") if n.strip()]
    if names == []:
        raise click.BadParameter(f"names no workload; known: {', '.join(_ORDER)}", param_hint="--only")
    unknown = sorted(set(names or ()) - set(WORKLOADS))
    if unknown:
        raise click.BadParameter(
            f"unknown workload {', '.join(unknown)}; known: {', '.join(_ORDER)}", param_hint="--only"
        )
    say: Callable[[str], None] = (lambda m: None) if quiet else (lambda m: click.echo(m, err=True))
    if prune:
        for path in _prune():
            say(f"neardup warmup: removed {path}")
    res = warmup(jobs, names, None if quiet or as_json else say)
    if as_json:
        click.echo(json.dumps(res))
    else:
        say(
            f"neardup warmup: {res['compiled']} kernels compiled in {res['seconds']:.1f} s into {res['cache']}"
        )
    failed = {n: r["error"] for n, r in res["workloads"].items() if r["error"]}
    for name, error in failed.items():
        click.echo(f"neardup warmup: {name} failed: {error}", err=True)
    if failed:
        raise SystemExit(1)


def main(argv: list[str] | None = None) -> None:
    """``python -m neardup.warmup``: the ``neardup warmup`` command."""
    warmup_cmd.main(args=argv, prog_name="neardup warmup")


if __name__ == "__main__":
    main()
