"""The spider the Scrapy integration tests run with ``scrapy runspider`` against a loopback site.

It follows every link of the start page in order (one request at a time, so verdicts are
deterministic), yields {url, html} per page, and writes the dropped items and final stats to
the files named by the settings NEARDUP_TEST_DROPPED and NEARDUP_TEST_STATS.
"""

from __future__ import annotations

import json
from typing import Any

import scrapy
from scrapy import signals


class SiteSpider(scrapy.Spider):
    name = "neardup-site"

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.item_dropped, signal=signals.item_dropped)
        crawler.signals.connect(spider.closed_write, signal=signals.spider_closed)
        spider.dropped = []
        return spider

    async def start(self) -> Any:
        yield scrapy.Request(self.settings.get("NEARDUP_TEST_START"), callback=self.parse, dont_filter=True)

    def parse(self, response: Any) -> Any:
        for i, href in enumerate(response.css("a.page::attr(href)").getall()):
            yield response.follow(href, callback=self.parse_page, priority=-i)

    def parse_page(self, response: Any) -> Any:
        yield {"url": response.url, "html": response.text}
        for href in response.css("a.back::attr(href)").getall():
            yield response.follow(href, callback=self.parse)

    def item_dropped(self, item: Any, response: Any, exception: Exception, spider: Any) -> None:
        self.dropped.append({"url": item["url"], "reason": str(exception)})

    def closed_write(self, spider: Any, reason: str) -> None:
        with open(self.settings.get("NEARDUP_TEST_DROPPED"), "w", encoding="utf-8") as fh:
            json.dump(self.dropped, fh, ensure_ascii=False)
        stats = {k: v for k, v in self.crawler.stats.get_stats().items() if isinstance(v, (int, float, str))}
        with open(self.settings.get("NEARDUP_TEST_STATS"), "w", encoding="utf-8") as fh:
            json.dump(stats, fh, ensure_ascii=False)
