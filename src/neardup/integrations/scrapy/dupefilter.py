"""A Scrapy dupefilter on ``neardup.urls.SeenURLs``: one URL seen-store per spider (job), re-crawl windows.

Settings (``settings.py`` or ``custom_settings``)::

    DUPEFILTER_CLASS = "neardup.integrations.scrapy.NeardupDupeFilter"
    NEARDUP_URL_STORE = "sqlite:///var/crawl/urls.db"   # memory:// (default), sqlite, redis://
    NEARDUP_JOB_ID = "news-2026"                        # default: the spider's name
    NEARDUP_RECRAWL_AFTER = 86400                       # seconds; a URL is due again after a day
    NEARDUP_URL_TTL = None                              # seconds; the whole job's set expires
    NEARDUP_SERVICE_URL = "http://127.0.0.1:8000"       # ask the neardup service instead

Requests are keyed by canonical URL (tracking parameters dropped, see ``canonicalize_url``); requests
that are not GET/HEAD, or whose URL the canonicalizer refuses, fall back to Scrapy's request
fingerprints kept in memory. The first filtered request is logged (all of them with
``DUPEFILTER_DEBUG``); ``dupefilter/filtered`` and ``neardup/urls/*`` count them all.
"""

from __future__ import annotations

import logging
from typing import Any

from neardup.exceptions import InputError
from neardup.integrations.scrapy._settings import get_float, job_id_for, service_client

__all__ = ["NeardupDupeFilter"]

logger = logging.getLogger(__name__)


class NeardupDupeFilter:
    """``request_seen(request)`` is True when the spider's job has fetched the URL (and it is not due
    for re-crawl). Use ``from_crawler``; Scrapy does."""

    def __init__(
        self,
        *,
        store: str = "memory://",
        job_id: str | None = None,
        recrawl_after: float | None = None,
        ttl: float | None = None,
        debug: bool = False,
        crawler: Any = None,
        client: Any = None,
    ) -> None:
        self.store = store
        self.job_id = job_id
        self.recrawl_after = recrawl_after
        self.ttl = ttl
        self.debug = debug
        self.crawler = crawler
        self.client = client
        self.logdupes = True
        self._seen: Any = None
        self._fingerprints: set[bytes] = set()
        self._fingerprinter: Any = getattr(crawler, "request_fingerprinter", None)

    @classmethod
    def from_crawler(cls, crawler: Any) -> NeardupDupeFilter:
        s = crawler.settings
        return cls(
            store=s.get("NEARDUP_URL_STORE") or "memory://",
            job_id=s.get("NEARDUP_JOB_ID") or None,
            recrawl_after=get_float(s, "NEARDUP_RECRAWL_AFTER"),
            ttl=get_float(s, "NEARDUP_URL_TTL"),
            debug=s.getbool("DUPEFILTER_DEBUG") or s.getbool("NEARDUP_DEBUG"),
            crawler=crawler,
            client=service_client(s),
        )

    # -- Scrapy's dupefilter contract ---------------------------------------------------------
    def open(self) -> None:
        if self.job_id is None:
            spider = getattr(self.crawler, "spider", None)
            settings = getattr(self.crawler, "settings", {})
            self.job_id = job_id_for(settings, spider)
        if self.client is None and self._seen is None:
            from neardup.urls import SeenURLs

            self._seen = SeenURLs(
                self.job_id, store=self.store, recrawl_after=self.recrawl_after, ttl=self.ttl
            )
        logger.info(
            "neardup dupefilter: job %r, store %s",
            self.job_id,
            self.client.base_url if self.client is not None else self.store,
        )

    def request_seen(self, request: Any) -> bool:
        if self.job_id is None or (self._seen is None and self.client is None):
            self.open()
        self._inc("neardup/urls/checked")
        if request.method not in ("GET", "HEAD"):
            return self._seen_fingerprint(request)
        try:
            if self.client is not None:
                seen = bool(self.client.check_urls(self.job_id, [request.url])[0])
            else:
                seen = not self._seen.check_and_add(request.url)
        except InputError:
            self._inc("neardup/urls/not_canonical")
            return self._seen_fingerprint(request)
        if seen:
            self._inc("neardup/urls/seen")
        return seen

    def _seen_fingerprint(self, request: Any) -> bool:
        if self._fingerprinter is None:
            from scrapy.utils.request import RequestFingerprinter

            self._fingerprinter = RequestFingerprinter()
        fp = self._fingerprinter.fingerprint(request)
        if fp in self._fingerprints:
            self._inc("neardup/urls/seen")
            return True
        self._fingerprints.add(fp)
        return False

    def log(self, request: Any, spider: Any) -> None:
        if self.debug:
            logger.debug(
                "Filtered duplicate request: %(request)s", {"request": request}, extra={"spider": spider}
            )
        elif self.logdupes:
            logger.debug(
                "Filtered duplicate request: %(request)s - no more duplicates will be shown "
                "(see DUPEFILTER_DEBUG to show all duplicates)",
                {"request": request},
                extra={"spider": spider},
            )
            self.logdupes = False
        self._inc("dupefilter/filtered")

    def close(self, reason: str) -> None:
        if self._seen is not None:
            stats = self._seen.stats()
            logger.info("neardup dupefilter closed (%s): %s", reason, stats)
            self._seen.close()
            self._seen = None
        if self.client is not None:
            self.client.close()

    def _inc(self, key: str) -> None:
        stats = getattr(self.crawler, "stats", None)
        if stats is not None:
            stats.inc_value(key)
