"""The Scrapy dupefilter and pipeline without a crawl: settings, NotConfigured, DropItem, stats."""

from __future__ import annotations

from typing import Any

import pytest
from _cs_articles import RAILWAY, RIVER

from neardup.contentseen.synth import render_page
from neardup.exceptions import ConfigError

scrapy = pytest.importorskip("scrapy")
from scrapy import Request  # noqa: E402
from scrapy.exceptions import DropItem, NotConfigured  # noqa: E402

from neardup.integrations.scrapy import ContentSeenPipeline, NeardupDupeFilter  # noqa: E402
from neardup_testing import scrapy_crawler  # noqa: E402


def _crawler(**settings: Any) -> Any:
    return scrapy_crawler("news spider/1", **settings)


def test_scrapy_dupefilter_filters_seen_urls_per_job() -> None:
    crawler = _crawler(NEARDUP_CANONICALIZE_URLS=True)
    df = NeardupDupeFilter.from_crawler(crawler)
    df.open()
    assert df.job_id == "news_spider_1"
    assert not df.request_seen(Request("https://example.com/a?utm_source=x"))
    assert df.request_seen(Request("https://EXAMPLE.com/a"))
    assert not df.request_seen(Request("https://example.com/b"))
    post = Request("https://example.com/a", method="POST", body=b"q=1")
    assert not df.request_seen(post)  # other methods: by Scrapy's request fingerprint
    assert df.request_seen(Request("https://example.com/a", method="POST", body=b"q=1"))
    df.log(Request("https://example.com/a"), crawler.spider)
    df.log(Request("https://example.com/a"), crawler.spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 2
    assert crawler.stats.get_value("neardup/urls/seen") == 2
    assert not df.logdupes
    df.close("finished")


def test_scrapy_dupefilter_reads_settings() -> None:
    crawler = _crawler(NEARDUP_JOB_ID="job-7", NEARDUP_RECRAWL_AFTER="3600", NEARDUP_URL_TTL=0)
    df = NeardupDupeFilter.from_crawler(crawler)
    assert (df.recrawl_after, df.ttl) == (3600.0, None)
    df.open()
    assert df.job_id == "job-7"
    df.close("finished")
    with pytest.raises(ConfigError, match="NEARDUP_RECRAWL_AFTER"):
        NeardupDupeFilter.from_crawler(_crawler(NEARDUP_RECRAWL_AFTER="soon"))


def test_scrapy_pipeline_drops_duplicates_and_counts() -> None:
    crawler = _crawler(NEARDUP_DROP_KINDS="exact,content", NEARDUP_VERDICT_FIELD="neardup")
    pipe = ContentSeenPipeline.from_crawler(crawler)
    river = render_page(*RIVER, template="portal")
    item = pipe.process_item({"url": "https://a/1", "html": river})
    assert item["neardup"]["kind"] == "new"
    with pytest.raises(DropItem, match="exact duplicate of https://a/1") as exc:
        pipe.process_item({"url": "https://b/1", "html": river})
    assert exc.value.log_level == "INFO"
    with pytest.raises(DropItem, match="content duplicate") as exc:
        pipe.process_item({"url": "https://c/1", "html": render_page(*RIVER, template="blog")})
    assert exc.value.log_level == "DEBUG"  # only the first drop is logged at INFO
    # a kind not in NEARDUP_DROP_KINDS is kept, with its verdict
    mixed = RAILWAY[1][:4] + RIVER[1][:3]
    kept = pipe.process_item({"url": "https://d/1", "html": render_page("x", mixed, template="repost")})
    assert kept["neardup"]["kind"] == "partial"
    assert pipe.process_item({"url": "https://e/1"}) == {"url": "https://e/1"}
    st = crawler.stats
    assert st.get_value("neardup/items/checked") == 4
    assert st.get_value("neardup/items/dropped") == 2
    assert st.get_value("neardup/items/dropped/exact") == 1
    assert st.get_value("neardup/items/kept_duplicate/partial") == 1
    assert st.get_value("neardup/items/no_content") == 1
    pipe.close_spider()


def test_scrapy_pipeline_not_configured_and_bad_kinds() -> None:
    with pytest.raises(NotConfigured):
        ContentSeenPipeline.from_crawler(_crawler(NEARDUP_CONTENTSEEN_ENABLED=False))
    with pytest.raises(ConfigError, match="unknown kinds"):
        ContentSeenPipeline.from_crawler(_crawler(NEARDUP_DROP_KINDS=["exact", "similar"]))


def test_scrapy_pipeline_keeps_items_when_the_service_is_down() -> None:
    # a loopback port nobody listens on
    import socket

    from neardup.integrations.scrapy._settings import service_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    crawler = _crawler(NEARDUP_SERVICE_URL=f"http://127.0.0.1:{port}", NEARDUP_SERVICE_TIMEOUT=2)
    assert service_client(crawler.settings) is not None
    pipe = ContentSeenPipeline.from_crawler(crawler)
    item = {"url": "https://a/1", "html": render_page(*RIVER, template="portal")}
    assert pipe.process_item(item) is item
    assert crawler.stats.get_value("neardup/items/service_errors") == 1
    pipe.fail_open = False
    from neardup.exceptions import StoreError

    with pytest.raises(StoreError):
        pipe.process_item(item)
    pipe.close_spider()
