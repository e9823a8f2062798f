"""layout_features: the per-tag regex loop it replaced vs one findall and a token cache.

    .venv/bin/python bench/bench_layout.py [--pages 200] [--repeat 5]

Pages: zh-xwlb items in bench_service's news-site template (``page()``: ~8 K characters, ~13 KB
of UTF-8, 160 start tags, no class attributes), and the four ``neardup.contentseen.synth``
templates around the same items (class attributes, ads, comments, scripts), and page() with its
body repeated as HTML inside an inline script (~280 "<" in one raw-text body). The reference is the
old implementation: _layout_tokens_scan (the loop, kept as the fallback) and its f-string shingles.
The token cache is emptied before every timed run of the new code, so a run gains nothing from
the one before (within a run, a site's repeated tags do hit it, as they do in a crawl).

Prints ms/page, median of --repeat runs (reference and new runs interleaved), and the ratio; also
what layout_signature (the SimHash of the shingles) adds. Shared, noisy 2-core machine: compare
the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_service import page, read_items
from neardup.contentseen import extract
from neardup.contentseen.synth import TEMPLATES, render_page


def reference(html: str) -> tuple[str, ...]:
    """layout_features before: one regex search per tag, then f-string shingles."""
    tokens = extract._layout_tokens_scan(html)
    if len(tokens) < 3:
        return tuple(dict.fromkeys(tokens))
    return tuple(
        dict.fromkeys(f"{a}>{b}>{c}" for a, b, c in zip(tokens, tokens[1:], tokens[2:], strict=False))
    )


def ms_per_page(fn: Callable[[Any], object], pages: Sequence[Any], cold: bool) -> float:
    if cold:
        extract._TAG_TOKENS.clear()
        extract._TAG_TOKENS[""] = ""
    t0 = time.perf_counter()
    for p in pages:
        fn(p)
    return (time.perf_counter() - t0) / len(pages) * 1e3


def compare(name: str, pages: list[str], repeat: int) -> None:
    for p in pages:
        if extract.layout_features(p) != reference(p):
            raise SystemExit(f"{name}: layout_features differs from the reference")
    ref, new = [], []
    for _ in range(repeat):
        ref.append(ms_per_page(reference, pages, cold=False))
        new.append(ms_per_page(extract.layout_features, pages, cold=True))
    feats = [extract.layout_features(p) for p in pages]
    sig = statistics.median(ms_per_page(extract.layout_signature, feats, cold=False) for _ in range(repeat))
    r, n = statistics.median(ref), statistics.median(new)
    chars = sum(map(len, pages)) / len(pages)
    shingles = sum(map(len, feats)) / len(feats)
    print(
        f"{name:<26} {len(pages):>5} pages  {chars:>7.0f} chars  reference {r:.3f} ms  new {n:.3f} ms  "
        f"x{r / n:.2f}   (+ layout_signature {sig:.3f} ms, {shingles:.0f} shingles)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    items = read_items(args.pages)
    compare("bench_service page()", [page(it, i % 5) for i, it in enumerate(items)], args.repeat)
    synth = [
        render_page(it["title"] or "新闻", it["text"].split("\n"), template=TEMPLATES[i % 4], seed=i)
        for i, it in enumerate(items)
    ]
    compare("synth templates", synth, args.repeat)
    # a page that carries its body again as HTML in an inline script (a framework's state): a
    # raw-text body with hundreds of "<", which the regex leaves to str.find
    state = [
        h.replace(
            "</body>",
            "<script>window.__STATE__="
            + json.dumps({"html": h[h.index("<body>") :]}, ensure_ascii=False)
            + "</script></body>",
        )
        for h in (page(it, i % 5) for i, it in enumerate(items))
    ]
    compare("page() + inline state", state, args.repeat)


if __name__ == "__main__":
    main()
