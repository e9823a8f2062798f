"""A real Scrapy crawl (``scrapy runspider`` in a subprocess) of a small site served on loopback,
with mirrored and reposted pages: the dupefilter and the ContentSeen pipeline drop what they should."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from neardup.contentseen.synth import render_page

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow
SPIDER = HERE / "_neardup_test_spider.py"
sys.path.insert(0, str(HERE.parents[1] / "unit" / "contentseen"))
from _cs_articles import HARVEST, RAILWAY, RIVER  # noqa: E402

LIBRARY = (
    "City library reopens",
    [
        "The central library reopened on Monday after an eighteen-month renovation that added a rooftop reading garden.",
        "Visitors queued before dawn, and the first hundred borrowers received a hand-printed bookmark from local artists.",
        "The new building has twice as many study desks, a repair cafe for electronics and a small recording studio.",
        "Librarians say loans of printed books have risen every year since the city dropped overdue fines.",
    ],
)
RELATED = ["相关新闻一", "相关新闻二", "热点排行三", "专题报道四"]


def _page(
    article: tuple[str, list[str]], template: str, seed: int = 0, paras: list[str] | None = None
) -> str:
    html = render_page(
        article[0], paras if paras is not None else article[1], template=template, related=RELATED, seed=seed
    )
    return html.replace("</body>", '<a class="back" href="/index.html">index</a></body>')


# path -> (html, the verdict the pipeline should give, in crawl order)
def _site() -> dict[str, tuple[str, str]]:
    river = _page(RIVER, "portal")
    edited = [
        RIVER[1][0].replace("今年以来，", "今年以来, "),
        *RIVER[1][1:-1],
        RIVER[1][-1].replace("专家表示", "专家认为"),
    ]
    return {
        "/news/river.html": (river, "new"),
        "/mirror/river.html": (river, "exact"),  # a mirror site: the same bytes
        "/blog/river.html": (_page(RIVER, "blog", seed=1), "content"),  # reposted in another template
        "/news/river-edit.html": (_page(RIVER, "blog", seed=2, paras=edited), "near"),  # small edits
        "/news/rail.html": (_page(RAILWAY, "portal", seed=3), "new"),
        "/news/mixed.html": (_page(("秋粮", HARVEST[1][:4] + RIVER[1][:3]), "portal", seed=4), "layout"),
        "/repost/mixed.html": (
            _page(("秋粮", HARVEST[1][4:] + RIVER[1][3:] + RAILWAY[1][:1]), "repost", seed=5),
            "partial",
        ),
        "/en/library.html": (_page(LIBRARY, "minimal", seed=6), "new"),
    }


@dataclass
class Site:
    url: str
    hits: Counter[str]
    pages: dict[str, tuple[str, str]]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    pages = _site()
    root = tmp_path / "www"
    for path, (html, _) in pages.items():
        f = root / path.lstrip("/")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(html, encoding="utf-8")
    links = []
    for path in pages:
        links.append(f'<a class="page" href="{path}">{path}</a>')
    # the same pages again, and with tracking parameters: the dupefilter's job
    links.append('<a class="page" href="/news/river.html">again</a>')
    links.append('<a class="page" href="/news/rail.html?utm_source=feed&utm_medium=rss">tracked</a>')
    (root / "index.html").write_text(f"<html><body>{''.join(links)}</body></html>", encoding="utf-8")
    hits: Counter[str] = Counter()

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def do_GET(self) -> None:
            hits[self.path.split("?")[0]] += 1
            super().do_GET()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}", hits, pages)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def crawl(
    site: Site, tmp_path: Path, tag: str, **settings: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    proc = run_crawl(site, tmp_path, tag, **settings)
    assert proc.returncode == 0, proc.stderr[-3000:]
    dropped, stats = tmp_path / f"dropped-{tag}.json", tmp_path / f"stats-{tag}.json"
    assert stats.exists(), proc.stderr[-3000:]
    return json.loads(dropped.read_text()), json.loads(stats.read_text())


def run_crawl(site: Site, tmp_path: Path, tag: str, **settings: Any) -> subprocess.CompletedProcess[str]:
    """``scrapy runspider`` of the test spider on ``site`` (items in items-TAG.jsonl)."""
    dropped, stats = tmp_path / f"dropped-{tag}.json", tmp_path / f"stats-{tag}.json"
    base = {
        "NEARDUP_TEST_START": f"{site.url}/index.html",
        "NEARDUP_TEST_DROPPED": str(dropped),
        "NEARDUP_TEST_STATS": str(stats),
        "DUPEFILTER_CLASS": "neardup.integrations.scrapy.NeardupDupeFilter",
        "NEARDUP_CANONICALIZE_URLS": True,  # tracking-parameter links are the same page
        "ITEM_PIPELINES": json.dumps({"neardup.integrations.scrapy.ContentSeenPipeline": 300}),
        "CONCURRENT_REQUESTS": 1,
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "CLOSESPIDER_TIMEOUT": 60,
        "LOG_LEVEL": "INFO",
        "NEARDUP_VERDICT_FIELD": "neardup",
    }
    base.update(settings)
    args = [
        sys.executable,
        "-m",
        "scrapy",
        "runspider",
        str(SPIDER),
        "-o",
        str(tmp_path / f"items-{tag}.jsonl"),
    ]
    for k, v in base.items():
        args += ["-s", f"{k}={v}"]
    return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=180)


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def test_scrapy_crawl_drops_mirrors_and_reposts(site: Site, tmp_path: Path) -> None:
    dropped, stats = crawl(site, tmp_path, "a")
    items = [json.loads(line) for line in (tmp_path / "items-a.jsonl").read_text().splitlines()]
    kept = {_path(i["url"]): i["neardup"]["kind"] for i in items}
    assert kept == {p: kind for p, (_, kind) in site.pages.items() if kind == "new"}
    got = {_path(d["url"]): d["reason"].split(" ", 1)[0] for d in dropped}
    assert got == {p: kind for p, (_, kind) in site.pages.items() if kind != "new"}
    assert all("duplicate of" in d["reason"] for d in dropped)
    # the dupefilter: every page fetched once, tracking-parameter and repeated links filtered
    assert max(n for p, n in site.hits.items() if p != "/index.html") == 1, site.hits
    assert site.hits["/index.html"] == 2  # the start request (dont_filter) and the first back-link
    assert stats["dupefilter/filtered"] >= 2 + 5  # 2 repeated links + back-links to the index
    assert stats["neardup/items/checked"] == len(site.pages)
    assert stats["neardup/items/new"] == 3
    assert stats["neardup/items/dropped"] == 5
    for kind in ("exact", "content", "near", "layout", "partial"):
        assert stats[f"neardup/items/dropped/{kind}"] == 1


def test_scrapy_crawl_state_survives_the_next_run(site: Site, tmp_path: Path) -> None:
    state = {"NEARDUP_STATE": str(tmp_path / "cs"), "NEARDUP_URL_STORE": f"sqlite://{tmp_path / 'urls.db'}"}
    dropped, _ = crawl(site, tmp_path, "first", **state)
    assert len(dropped) == 5
    fetched = sum(site.hits.values())
    # the same job again: every page URL was fetched already; only the start page is fetched
    _, stats = crawl(site, tmp_path, "second", **state)
    assert sum(site.hits.values()) == fetched + 1
    assert stats.get("neardup/items/checked", 0) == 0
    assert stats["dupefilter/filtered"] >= len(site.pages)
    # ContentSeen's state directory remembers every page the first crawl checked
    from neardup.contentseen import ContentSeen

    with ContentSeen(tmp_path / "cs") as cs:
        assert len(cs) == len(site.pages)
        for path, (html, _) in site.pages.items():
            assert cs.check(site.url + path, html=html, add=False).kind == "exact"


def _items(tmp_path: Path, tag: str) -> list[dict[str, Any]]:
    path = tmp_path / f"items-{tag}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_paused_and_resumed_crawl_with_jobdir_catches_duplicates_across_the_pause(
    site: Site, tmp_path: Path
) -> None:
    jobdir = {"JOBDIR": str(tmp_path / "job")}  # no NEARDUP_STATE, no NEARDUP_URL_STORE: JOBDIR's
    # the first run stops after the first kept page (as a Ctrl-C would), its queue kept in JOBDIR
    dropped1, _ = crawl(site, tmp_path, "before", CLOSESPIDER_ITEMCOUNT=1, **jobdir)
    assert (tmp_path / "job" / "neardup-contentseen").is_dir()
    kept1 = [i["url"] for i in _items(tmp_path, "before")]
    assert kept1 and len(_items(tmp_path, "before")) + len(dropped1) < len(site.pages)
    dropped2, _ = crawl(site, tmp_path, "after", **jobdir)
    kept = [_path(i["url"]) for i in _items(tmp_path, "before") + _items(tmp_path, "after")]
    dropped = [(_path(d["url"]), d["reason"].split(" ", 1)[0]) for d in dropped1 + dropped2]
    assert _items(tmp_path, "after"), "the resumed run had pages left to fetch"
    # reposts fetched after the pause are dropped as copies of the page kept before it
    assert any(url in d["reason"] for d in dropped2 for url in kept1), dropped2
    assert sorted(kept) == sorted(p for p, (_, kind) in site.pages.items() if kind == "new")
    assert sorted(dropped) == sorted((p, kind) for p, (_, kind) in site.pages.items() if kind != "new")
    assert max(n for p, n in site.hits.items() if p != "/index.html") == 1, site.hits


def test_sqlite_url_store_folder_is_created(tmp_path: Path) -> None:
    from scrapy import Request

    from neardup.integrations.scrapy import NeardupDupeFilter

    db = tmp_path / "var" / "crawl" / "urls.db"
    df = NeardupDupeFilter(store=f"sqlite://{db}", job_id="news")
    assert df.request_seen(Request("https://example.com/a")) is False
    assert df.request_seen(Request("https://example.com/a")) is True
    df.close("finished")
    assert db.is_file()


@pytest.fixture
def tokened_service(tmp_path: Path) -> Iterator[str]:
    import os
    import signal

    from tests.conftest import free_port

    from neardup_testing import wait_healthy

    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "NEARDUP_TOKEN": "the-right-token-" + "x" * 20}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "neardup.cli.main",
                "serve",
                "--state",
                str(tmp_path / "svc"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--analysis-processes",
                "0",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            assert wait_healthy(f"{url}/v1/health", proc, log.read_text, 120), log.read_text()[-2000:]
            yield url
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _assert_stopped_with_one_line(
    proc: subprocess.CompletedProcess[str], tmp_path: Path, tag: str, what: str
) -> None:
    assert proc.returncode == 1, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and what in errors[0] and "stopping the crawl" in errors[0], errors
    assert "Traceback" not in proc.stderr and "never retrieved" not in proc.stderr
    assert "(neardup_service_error)" in proc.stderr  # Scrapy's "Spider closed (reason)"
    assert _items(tmp_path, tag) == []


def test_wrong_service_token_stops_the_crawl_with_one_line_and_exit_1(
    site: Site, tmp_path: Path, tokened_service: str
) -> None:
    svc = {"NEARDUP_SERVICE_URL": tokened_service, "NEARDUP_SERVICE_TOKEN": "wrong-token"}
    proc = run_crawl(site, tmp_path, "token", **svc)
    _assert_stopped_with_one_line(proc, tmp_path, "token", "refused the token (401)")
    assert sum(n for p, n in site.hits.items() if p != "/index.html") == 0


def test_unreachable_service_stops_the_crawl_with_one_line_and_exit_1(site: Site, tmp_path: Path) -> None:
    from tests.conftest import free_port

    proc = run_crawl(site, tmp_path, "down", NEARDUP_SERVICE_URL=f"http://127.0.0.1:{free_port()}")
    _assert_stopped_with_one_line(proc, tmp_path, "down", "cannot reach the service")


def test_a_url_store_failing_mid_crawl_stops_scheduling_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from scrapy import Request

    from neardup.integrations.scrapy import NeardupDupeFilter
    from neardup_testing import scrapy_crawler

    crawler = scrapy_crawler("mid", NEARDUP_URL_STORE=f"sqlite://{tmp_path / 'urls.db'}")
    df = NeardupDupeFilter.from_crawler(crawler)
    df.open()
    assert df.request_seen(Request("https://example.com/a")) is False
    df._urls.close()  # the store goes away under the crawl  # type: ignore[union-attr]
    with caplog.at_level("ERROR"):
        assert df.request_seen(Request("https://example.com/b")) is True  # nothing more is scheduled
        assert df.request_seen(Request("https://example.com/c")) is True
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "cannot be used" in errors[0].getMessage()
    assert "NEARDUP_URL_STORE" in crawler.stats.get_value("neardup/service_error")
