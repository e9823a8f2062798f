"""Reference helpers shared by tests (importable because tests/ holds the root conftest)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the shared corpora (``../shared/data``, or ``$NEARDUP_DATA``)
DATA_DIR = Path(
    os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)


def corpus_texts(limit: int) -> list[str]:
    """The first ``limit`` texts of each of the four shared corpora (none when they are missing)."""
    out: list[str] = []
    if not DATA_DIR.is_dir():
        return out
    for name in ("zh-xwlb.jsonl.gz", "en-bbc.jsonl.gz", "zh-rmrb-xwlb-2020.jsonl.gz", "en-20news.jsonl.gz"):
        with gzip.open(DATA_DIR / name, "rt", encoding="utf-8") as f:
            out += [json.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]
    return out


def components(groups: list[list[int]]) -> set[frozenset[int]]:
    """Reference partition of document indexes: documents sharing a key are in one group."""
    parent = list(range(len(groups)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for i, keys in enumerate(groups):
        for k in keys:
            if k in owner:
                a, b = find(owner[k]), find(i)
                parent[max(a, b)] = min(a, b)
            else:
                owner[k] = i
    out: dict[int, set[int]] = {}
    for i in range(len(groups)):
        out.setdefault(find(i), set()).add(i)
    return {frozenset(v) for v in out.values()}


def partition(ids: list[int]) -> set[frozenset[int]]:
    """The groups of document indexes that were given the same id."""
    out: dict[int, set[int]] = {}
    for i, g in enumerate(ids):
        out.setdefault(g, set()).add(i)
    return {frozenset(v) for v in out.values()}


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """``neardup ARGS`` in a fresh interpreter (this one's), text output captured, never raising."""
    return subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_healthy(
    url: str, proc: subprocess.Popen[bytes] | None, log: Callable[[], str], timeout: float
) -> bool:
    """Poll ``url`` until it answers 200 (True), the process exits (RuntimeError with its log's
    tail) or ``timeout`` seconds pass (False)."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log()[-3000:]}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return False


def scrapy_crawler(spider_name: str, **settings: Any) -> Any:
    """A Scrapy crawler with a spider of this name attached and its stats open, for driving
    pipelines and dupefilters without a crawl."""
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    spider_cls = type("TestSpider", (Spider,), {"name": spider_name})
    crawler = get_crawler(spider_cls, settings_dict=settings)
    crawler.spider = spider_cls()
    crawler.stats.open_spider()
    return crawler
