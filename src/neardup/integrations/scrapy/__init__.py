"""Scrapy integration: a URL dupefilter (SeenURLs) and an item pipeline that drops duplicate pages.

Everything is configured by Scrapy settings named ``NEARDUP_*`` (see docs/scrapy.md)::

    DUPEFILTER_CLASS = "neardup.integrations.scrapy.NeardupDupeFilter"
    ITEM_PIPELINES = {"neardup.integrations.scrapy.ContentSeenPipeline": 300}
"""

from __future__ import annotations

from neardup.integrations.scrapy.dupefilter import NeardupDupeFilter
from neardup.integrations.scrapy.pipeline import ContentSeenPipeline

__all__ = ["ContentSeenPipeline", "NeardupDupeFilter"]
