"""A Scrapy item pipeline that drops pages whose content was seen before (ContentSeen).

Settings::

    ITEM_PIPELINES = {"neardup.integrations.scrapy.ContentSeenPipeline": 300}
    NEARDUP_STATE = "/var/crawl/contentseen"     # a directory, or memory:// (default)
    NEARDUP_MAX_DISTANCE = None                   # an extra SimHash candidate source (bits); off by default
    NEARDUP_DROP_KINDS = ["exact", "content", "near", "layout", "partial"]  # seed 004's duplicate pages
    NEARDUP_SERVICE_URL = "http://127.0.0.1:8000" # use the neardup service instead (+ NEARDUP_SERVICE_TOKEN)

Items carry the page's URL and HTML (or main text) in the fields NEARDUP_URL_FIELD (``url``),
NEARDUP_HTML_FIELD (``html``) and NEARDUP_TEXT_FIELD (``text``); the page's date, when the item has
one, in NEARDUP_DATE_FIELD (``date``: an ISO date or date-time, a datetime, Unix seconds; a near copy
dated more than the engine's ``occasion_days`` from its partner is another occasion, not a
duplicate; an unreadable date is unknown). A duplicate of a kind listed in
NEARDUP_DROP_KINDS raises ``DropItem`` (logged once at INFO, then at DEBUG; all with NEARDUP_DEBUG);
with NEARDUP_VERDICT_FIELD set, kept items get the verdict dict in that field. Stats:
``neardup/items/checked``, ``neardup/items/new``, ``neardup/items/dropped``,
``neardup/items/dropped/<kind>``, ``neardup/items/kept_duplicate/<kind>``, ``neardup/items/no_content``,
``neardup/items/service_errors`` (the service, or the state's store, could not be reached: with
NEARDUP_FAIL_OPEN, the default, the item is kept unchecked; without, the error propagates and
Scrapy drops the item).

The pipeline holds one ``ContentChecker`` (``neardup.contentseen.checker``): a ``ContentSeen`` in
this process, or a ``neardup.client.Client`` of the service; both answer ``check`` with a
``Verdict``, so the pipeline never asks which one it has.
"""

from __future__ import annotations

import datetime as _dt
import logging
from typing import Any

from neardup.contentseen.checker import ContentChecker
from neardup.contentseen.verdict import DUPLICATE_KINDS, KINDS, Verdict
from neardup.exceptions import NeardupError, StoreError
from neardup.integrations.scrapy._settings import (
    SERVICE_ERROR_REASON,
    content_checker,
    get_bool,
    get_kinds,
    job_id_for,
    probe_service,
    service_failure,
    stop_crawl,
)

__all__ = ["ContentSeenPipeline"]

logger = logging.getLogger(__name__)


class ContentSeenPipeline:
    """Check each item's page with a ``ContentChecker`` (in-process or the service); drop duplicates.

    >>> from neardup.contentseen import ContentSeen
    >>> pipe = ContentSeenPipeline(ContentSeen("memory://"))
    >>> pipe.process_item({"url": "https://a.example/1", "text": "长江是中华民族的母亲河。" * 9})["url"]
    'https://a.example/1'
    >>> pipe.close_spider()
    """

    def __init__(
        self,
        checker: ContentChecker,
        *,
        drop_kinds: frozenset[str] = DUPLICATE_KINDS,
        url_field: str = "url",
        html_field: str = "html",
        text_field: str = "text",
        date_field: str = "date",
        verdict_field: str | None = None,
        add: bool = True,
        debug: bool = False,
        fail_open: bool = True,
        crawler: Any = None,
    ) -> None:
        self.checker = checker
        self.drop_kinds = drop_kinds
        self.url_field = url_field
        self.html_field = html_field
        self.text_field = text_field
        self.date_field = date_field
        self.verdict_field = verdict_field
        self.add = add
        self.debug = debug
        self.crawler = crawler
        self.fail_open = fail_open
        self._logged_drop = False
        self._logged_error = False

    @classmethod
    def from_crawler(cls, crawler: Any) -> ContentSeenPipeline:
        from scrapy.exceptions import NotConfigured

        s = crawler.settings
        if not get_bool(s, "NEARDUP_CONTENTSEEN_ENABLED", True):
            raise NotConfigured("ContentSeenPipeline is disabled (NEARDUP_CONTENTSEEN_ENABLED = False)")
        drop = get_kinds(s, "NEARDUP_DROP_KINDS", tuple(k for k in KINDS if k != "new"))
        return cls(
            content_checker(s),
            drop_kinds=drop,
            url_field=s.get("NEARDUP_URL_FIELD") or "url",
            html_field=s.get("NEARDUP_HTML_FIELD") or "html",
            text_field=s.get("NEARDUP_TEXT_FIELD") or "text",
            date_field=s.get("NEARDUP_DATE_FIELD") or "date",
            verdict_field=s.get("NEARDUP_VERDICT_FIELD") or None,
            add=get_bool(s, "NEARDUP_ADD", True),
            debug=get_bool(s, "NEARDUP_DEBUG", False),
            fail_open=get_bool(s, "NEARDUP_FAIL_OPEN", True),
            crawler=crawler,
        )

    def _inc(self, key: str) -> None:
        stats = getattr(self.crawler, "stats", None)
        if stats is not None:
            stats.inc_value(key)

    def open_spider(self, spider: Any = None) -> None:
        """With the service: check once that it answers and takes the token; if not, the crawl
        stops here with one log line (``CloseSpider``) instead of failing on every page."""
        check_urls = getattr(self.checker, "check_urls", None)
        if check_urls is None or self.crawler is None:
            return
        try:
            probe_service(check_urls, job_id_for(self.crawler.settings, spider))
        except NeardupError as exc:
            from scrapy.exceptions import CloseSpider

            stop_crawl(self.crawler, service_failure(exc), opening=True)
            raise CloseSpider(SERVICE_ERROR_REASON) from None

    def _check(self, url: str, html: Any, text: Any, date: Any = None) -> Verdict | None:
        """The verdict, or None when the checker cannot answer and the pipeline fails open."""
        try:
            return self.checker.check(url, html=html or None, text=text or None, add=self.add, date=date)
        except StoreError as exc:  # the service or the state's store is down or overloaded
            if not self.fail_open:
                raise
            self._inc("neardup/items/service_errors")
            if not self._logged_error:
                logger.warning("neardup cannot check pages, keeping items unchecked: %s", exc)
                self._logged_error = True
            return None
        except NeardupError as exc:  # the service refuses (a wrong token): no page can be checked
            if self.crawler is None:
                raise
            from scrapy.exceptions import DropItem

            stop_crawl(self.crawler, service_failure(exc))
            raise DropItem("not checked: the neardup service refused it", log_level="DEBUG") from None

    def process_item(self, item: Any, spider: Any = None) -> Any:
        from itemadapter import ItemAdapter

        adapter = ItemAdapter(item)
        html = adapter.get(self.html_field)
        text = adapter.get(self.text_field)
        if not html and not text:
            self._inc("neardup/items/no_content")
            return item
        self._inc("neardup/items/checked")
        verdict = self._check(
            str(adapter.get(self.url_field) or ""), html, text, _date_value(adapter.get(self.date_field))
        )
        if verdict is None:
            return item
        if verdict.kind == "new":
            self._inc("neardup/items/new")
        elif verdict.kind in self.drop_kinds:
            self._drop(verdict)
        else:
            self._inc(f"neardup/items/kept_duplicate/{verdict.kind}")
        if self.verdict_field:
            adapter[self.verdict_field] = verdict.to_dict()
        return item

    def _drop(self, verdict: Verdict) -> None:
        from scrapy.exceptions import DropItem

        kind = verdict.kind
        self._inc("neardup/items/dropped")
        self._inc(f"neardup/items/dropped/{kind}")
        why = verdict.reasons.get("why", "")
        dup = verdict.duplicate_url or verdict.duplicate_of
        level = "INFO" if (self.debug or not self._logged_drop) else "DEBUG"
        more = "" if self.debug or self._logged_drop else " (further duplicates are logged at DEBUG)"
        self._logged_drop = True
        # the reason is about the page that matched, which may be a later member of dup's cluster
        partner = verdict.partner_url
        about = f" ({partner})" if partner and partner != verdict.duplicate_url else ""
        raise DropItem(f"{kind} duplicate of {dup}: {why}{about}{more}", log_level=level)

    def close_spider(self, spider: Any = None) -> None:
        try:
            logger.info("neardup content checker closing: %s", self.checker.stats())
        except StoreError as exc:
            logger.info("neardup content checker closing (no counts: %s)", exc)
        self.checker.close()


def _date_value(value: Any) -> Any:
    """An item's date as the checker takes it: strings, numbers, dates and datetimes as they are;
    a list (an ItemLoader's field) its first element; anything else unknown (None), so that the
    service never refuses an item for its date's type."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    ok = isinstance(value, (str, int, float, _dt.date)) and not isinstance(value, bool)
    return value if ok else None
