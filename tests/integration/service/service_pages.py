"""News pages for the service tests: zh-xwlb items wrapped in site templates (nav, sidebar, footer)."""

from __future__ import annotations

import gzip
import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SITES = ("news.example.com", "mirror.example.net", "repost.example.org")


def read_items(data_dir: Path, n: int, *, min_chars: int = 200) -> list[dict[str, Any]]:
    """The first ``n`` zh-xwlb items with at least ``min_chars`` of text, distinct by text."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    with gzip.open(data_dir / "zh-xwlb.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = rec["text"]
            if len(text) < min_chars or text in seen:
                continue
            seen.add(text)
            out.append(rec)
            if len(out) >= n:
                break
    return out


def _chrome(site: int) -> tuple[str, str]:
    nav = "".join(f'<li><a href="/channel/{i}">频道{i}</a></li>' for i in range(30 + site * 7))
    side = "".join(
        f'<li><a href="/hot/{i}.html">热点新闻标题第{i}条：今日要闻速览</a></li>' for i in range(25)
    )
    foot = "关于我们 | 联系方式 | 版权声明 | 网站地图 | 违法和不良信息举报 " * (3 + site)
    head = (
        f"<header><div class='logo'>站点{site}</div><nav><ul>{nav}</ul></nav></header>"
        f"<aside class='sidebar'><h3>热门</h3><ul>{side}</ul></aside>"
    )
    return head, f"<footer><p>{foot}</p><p>© 2026 {SITES[site]}</p></footer>"


def page(item: dict[str, Any], site: int = 0) -> str:
    """An HTML page (about 10-20 KB) whose main text is the item's paragraphs."""
    head, foot = _chrome(site)
    paras = "".join(f"<p>{html.escape(p)}</p>" for p in item["text"].split("\n") if p.strip())
    style = "<style>" + "".join(f".c{i}{{margin:{i}px;padding:{i % 7}px}}" for i in range(120)) + "</style>"
    script = "<script>" + "var cfg={};" * 40 + "</script>"
    return (
        f"<!DOCTYPE html><html lang='zh-CN'><head><meta charset='utf-8'><title>{html.escape(item['title'] or '新闻')}"
        f"</title>{style}{script}</head><body>{head}<main><article><h1>{html.escape(item['title'] or '')}</h1>"
        f"<div class='content'>{paras}</div></article></main>{foot}</body></html>"
    )


def page_url(item: dict[str, Any], site: int = 0) -> str:
    return f"https://{SITES[site]}/news/{item['id']}.html"


def pages(items: list[dict[str, Any]], site: int = 0) -> Iterator[tuple[str, str]]:
    for item in items:
        yield page_url(item, site), page(item, site)
