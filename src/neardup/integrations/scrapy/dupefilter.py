"""A Scrapy dupefilter on ``neardup.urls.SeenURLs``: Scrapy's ``RFPDupeFilter`` contract, shared stores.

Settings (``settings.py`` or ``custom_settings``)::

    DUPEFILTER_CLASS = "neardup.integrations.scrapy.NeardupDupeFilter"
    NEARDUP_URL_STORE = "sqlite:///var/crawl/urls.db"   # default: JOBDIR's neardup-urls.db, else memory://
    NEARDUP_CANONICALIZE_URLS = True                    # drop tracking parameters etc. first (default off)
    NEARDUP_JOB_ID = "news-2026"                        # default: the spider's name
    NEARDUP_RECRAWL_AFTER = 86400                       # seconds; a request is due again after a day
    NEARDUP_URL_TTL = None                              # seconds; the whole job's set expires
    NEARDUP_SERVICE_URL = "http://127.0.0.1:8000"       # ask the neardup service instead

As Scrapy's ``RFPDupeFilter``: a request is keyed by the crawler's request fingerprinter
(``REQUEST_FINGERPRINTER_CLASS``: method, canonical URL and body, so a HEAD never hides a GET); with
``JOBDIR`` set and no store configured, the seen set lives in ``JOBDIR/neardup-urls.db`` and survives
a pause and resume; log lines go to the ``scrapy.dupefilters`` logger, the first duplicate (or every
one with ``DUPEFILTER_DEBUG``, with its referer) at DEBUG, and ``dupefilter/filtered`` counts them.
With ``NEARDUP_CANONICALIZE_URLS`` the fingerprinter sees neardup's canonical URL (tracking
parameters dropped, host lower-cased, see ``canonicalize_url``). The store keeps each fingerprint as
the key ``https://request.fingerprint.invalid/<hex>``, so one job's store can be shared by many
workers (Redis, or the service) and gets recrawl windows and expiry.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, Protocol

from neardup.exceptions import InputError, NeardupError
from neardup.integrations.scrapy._settings import (
    SERVICE_ERROR_REASON,
    get_bool,
    get_float,
    job_id_for,
    job_id_setting,
    make_store_folder,
    probe_service,
    service_client,
    service_failure,
    stop_crawl,
)

if TYPE_CHECKING:
    from neardup.client import Client
    from neardup.urls import SeenURLs

__all__ = ["NeardupDupeFilter"]

FINGERPRINT_URL = "https://request.fingerprint.invalid/"


class _JobURLs(Protocol):
    """One job's URL seen-set, in this process or in the service."""

    where: str

    def seen(self, key: str) -> bool: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class _LocalURLs:
    def __init__(self, urls: SeenURLs, where: str) -> None:
        self.urls = urls
        self.where = where

    def seen(self, key: str) -> bool:
        return not self.urls.check_and_add(key)

    def stats(self) -> dict[str, Any]:
        return self.urls.stats()

    def close(self) -> None:
        self.urls.close()


class _ServiceURLs:
    def __init__(self, client: Client, job: str) -> None:
        self.client = client
        self.job = job
        self.where = client.base_url

    def seen(self, key: str) -> bool:
        return bool(self.client.check_urls(self.job, [key])[0])

    def stats(self) -> dict[str, Any]:
        return {"service": self.where, "job": self.job}

    def close(self) -> None:
        self.client.close()


class NeardupDupeFilter:
    """``request_seen(request)`` is True when the spider's job has seen the request's fingerprint (and
    it is not due for re-crawl). Use ``from_crawler``; Scrapy does.

    >>> from scrapy import Request
    >>> df = NeardupDupeFilter()
    >>> df.request_seen(Request("https://example.com/a")), df.request_seen(Request("https://example.com/a"))
    (False, True)
    >>> df.request_seen(Request("https://example.com/a", method="HEAD"))
    False
    """

    def __init__(
        self,
        *,
        store: str | None = None,
        job_id: str | None = None,
        recrawl_after: float | None = None,
        ttl: float | None = None,
        debug: bool = False,
        crawler: Any = None,
        client: Client | None = None,
        fingerprinter: Any = None,
        canonicalize: bool = False,
        jobdir: str | None = None,
    ) -> None:
        if store is None:
            store = (
                f"sqlite://{os.path.abspath(os.path.join(jobdir, 'neardup-urls.db'))}"
                if jobdir
                else "memory://"
            )
        self.store = store
        self.job_id = job_id
        self.recrawl_after = recrawl_after
        self.ttl = ttl
        self.debug = debug
        self.crawler = crawler
        self.client = client
        self.canonicalize = canonicalize
        self.logdupes = True
        self.logger = logging.getLogger("scrapy.dupefilters")
        self._urls: _JobURLs | None = None
        self._failed = False  # the store or service failed: the crawl is stopping
        if fingerprinter is None:
            fingerprinter = getattr(crawler, "request_fingerprinter", None)
        if fingerprinter is None:
            from scrapy.utils.request import RequestFingerprinter

            fingerprinter = RequestFingerprinter(crawler)
        self.fingerprinter = fingerprinter

    @classmethod
    def from_crawler(cls, crawler: Any) -> NeardupDupeFilter:
        from scrapy.utils.job import job_dir

        s = crawler.settings
        return cls(
            store=s.get("NEARDUP_URL_STORE") or None,
            job_id=job_id_setting(s),
            recrawl_after=get_float(s, "NEARDUP_RECRAWL_AFTER"),
            ttl=get_float(s, "NEARDUP_URL_TTL"),
            debug=get_bool(s, "DUPEFILTER_DEBUG", False) or get_bool(s, "NEARDUP_DEBUG", False),
            crawler=crawler,
            client=service_client(s),
            canonicalize=get_bool(s, "NEARDUP_CANONICALIZE_URLS", False),
            jobdir=job_dir(s),
        )

    # -- Scrapy's dupefilter contract ---------------------------------------------------------
    def open(self) -> None:
        if self.job_id is None:
            spider = getattr(self.crawler, "spider", None)
            settings = getattr(self.crawler, "settings", {})
            self.job_id = job_id_for(settings, spider)
        if self._urls is None:
            try:
                self._urls = self._open_urls(self.job_id)
            except NeardupError as exc:
                if self.crawler is None:
                    raise
                self._fail(exc, opening=True)
                return
        self.logger.info("neardup dupefilter: job %r, store %s", self.job_id, self._urls.where)

    def _open_urls(self, job: str) -> _JobURLs:
        if self.client is not None:
            urls = _ServiceURLs(self.client, job)
            probe_service(urls.client.check_urls, job)  # reachable, and the token accepted
            return urls
        from neardup.urls import SeenURLs

        make_store_folder(self.store)
        seen = SeenURLs(job, store=self.store, recrawl_after=self.recrawl_after, ttl=self.ttl)
        return _LocalURLs(seen, self.store)

    def _fail(self, exc: Exception, *, opening: bool = False) -> None:
        """Stop the crawl with one log line: the URL store or the service cannot be used."""
        self._failed = True
        if self.client is not None:
            message = service_failure(exc)
        else:
            message = f"the URL store {self.store} cannot be used: {exc} (check NEARDUP_URL_STORE)"
        stop_crawl(self.crawler, message, opening=opening)
        if opening:  # the scheduler opens before the spider: close it from spider_opened
            from scrapy import signals
            from scrapy.exceptions import CloseSpider

            def refuse(spider: Any = None) -> None:
                raise CloseSpider(SERVICE_ERROR_REASON)

            self._refuse = refuse  # signals hold weak references
            self.crawler.signals.connect(refuse, signal=signals.spider_opened)

    def request_fingerprint(self, request: Any) -> bytes:
        """The configured fingerprinter's bytes for ``request`` (on its canonical URL if asked)."""
        if self.canonicalize:
            from neardup.urls import canonicalize_url

            try:
                url = canonicalize_url(request.url)
            except InputError:
                self._inc("neardup/urls/not_canonical")
            else:
                if url != request.url:
                    request = request.replace(url=url)
        fp: bytes = self.fingerprinter.fingerprint(request)
        return fp

    def request_seen(self, request: Any) -> bool:
        if self._urls is None and not self._failed:
            self.open()
        if self._failed or self._urls is None:
            return True  # the crawl is stopping: nothing more is scheduled
        self._inc("neardup/urls/checked")
        try:
            seen = self._urls.seen(FINGERPRINT_URL + self.request_fingerprint(request).hex())
        except NeardupError as exc:
            if self.crawler is None:
                raise
            self._fail(exc)
            return True
        if seen:
            self._inc("neardup/urls/seen")
        return seen

    def log(self, request: Any, spider: Any) -> None:
        if self.debug:
            from scrapy.utils.request import referer_str

            self.logger.debug(
                "Filtered duplicate request: %(request)s (referer: %(referer)s)",
                {"request": request, "referer": referer_str(request)},
                extra={"spider": spider},
            )
        elif self.logdupes:
            self.logger.debug(
                "Filtered duplicate request: %(request)s - no more duplicates will be shown "
                "(see DUPEFILTER_DEBUG to show all duplicates)",
                {"request": request},
                extra={"spider": spider},
            )
            self.logdupes = False
        self._inc("dupefilter/filtered")

    def close(self, reason: str) -> None:
        if self._urls is not None:
            self.logger.info("neardup dupefilter closed (%s): %s", reason, self._urls.stats())
            self._urls.close()
            self._urls = None
        elif self.client is not None:
            self.client.close()

    def _inc(self, key: str) -> None:
        stats = getattr(self.crawler, "stats", None)
        if stats is not None:
            stats.inc_value(key)
