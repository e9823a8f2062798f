"""NeardupDupeFilter side by side with Scrapy's own RFPDupeFilter as the oracle."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

scrapy = pytest.importorskip("scrapy")

from scrapy import Request, Spider  # noqa: E402
from scrapy.core.scheduler import Scheduler  # noqa: E402
from scrapy.dupefilters import RFPDupeFilter  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from neardup.integrations.scrapy import NeardupDupeFilter  # noqa: E402

OURS = "neardup.integrations.scrapy.NeardupDupeFilter"
THEIRS = "scrapy.dupefilters.RFPDupeFilter"


class _Spider(Spider):
    name = "contract"


class LowercaseFingerprinter:
    """A custom REQUEST_FINGERPRINTER_CLASS: the URL lower-cased, method ignored."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> LowercaseFingerprinter:
        return cls()

    def fingerprint(self, request: Any) -> bytes:
        return request.url.lower().encode()


def _df(cls: str, **settings: Any) -> Any:
    crawler = get_crawler(_Spider, settings_dict={"DUPEFILTER_CLASS": cls, **settings})
    crawler.spider = _Spider.from_crawler(crawler)
    crawler.stats.open_spider()
    scheduler = Scheduler.from_crawler(crawler)
    df = scheduler.df
    df.open()
    df.test_crawler = crawler
    return df


def _both(**settings: Any) -> tuple[Any, Any]:
    ours, theirs = _df(OURS, **settings), _df(THEIRS, **settings)
    assert isinstance(ours, NeardupDupeFilter) and isinstance(theirs, RFPDupeFilter)
    return ours, theirs


URLS = [
    "http://scrapytest.org/index.html",
    "http://scrapytest.org/INDEX.html",
    "http://scrapytest.org/index.html#frag",
    "http://scrapytest.org/a?b=1&a=2",
    "http://scrapytest.org/a?a=2&b=1",
    "http://SCRAPYTEST.org/a?utm_source=x",
]
requests = st.builds(
    lambda url, method, body: Request(url, method=method, body=body),
    st.sampled_from(URLS),
    st.sampled_from(["GET", "HEAD", "POST"]),
    st.sampled_from([b"", b"q=1"]),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(requests, max_size=12), st.booleans())
def test_request_seen_answers_like_rfpdupefilter(reqs: list[Any], custom: bool) -> None:
    extra = {"REQUEST_FINGERPRINTER_CLASS": LowercaseFingerprinter} if custom else {}
    ours, theirs = _both(**extra)
    assert [ours.request_seen(r) for r in reqs] == [theirs.request_seen(r) for r in reqs]
    ours.close("finished")
    theirs.close("finished")


def test_head_does_not_shadow_get_and_custom_fingerprinter_is_honoured() -> None:
    ours, theirs = _both()
    for df in (ours, theirs):
        assert not df.request_seen(Request("http://scrapytest.org/x", method="HEAD"))
        assert not df.request_seen(Request("http://scrapytest.org/x"))
    ours, theirs = _both(REQUEST_FINGERPRINTER_CLASS=LowercaseFingerprinter)
    for df in (ours, theirs):
        assert not df.request_seen(Request("http://scrapytest.org/INDEX.html"))
        assert df.request_seen(Request("http://scrapytest.org/index.html"))


def test_jobdir_keeps_the_seen_set_across_pause_and_resume(tmp_path: Path) -> None:
    for cls, sub in ((OURS, "ours"), (THEIRS, "theirs")):
        jobdir = str(tmp_path / sub)
        df = _df(cls, JOBDIR=jobdir)
        assert not df.request_seen(Request("http://scrapytest.org/1"))
        df.close("shutdown")
        resumed = _df(cls, JOBDIR=jobdir)
        assert resumed.request_seen(Request("http://scrapytest.org/1"))
        assert not resumed.request_seen(Request("http://scrapytest.org/2"))
        resumed.close("finished")
    assert (tmp_path / "ours" / "neardup-urls.db").exists()


def test_canonical_urls_only_when_asked() -> None:
    plain = _df(OURS)
    assert not plain.request_seen(Request("https://example.com/a?utm_source=x"))
    assert not plain.request_seen(Request("https://example.com/a"))
    canon = _df(OURS, NEARDUP_CANONICALIZE_URLS=True)
    assert not canon.request_seen(Request("https://example.com/a?utm_source=x"))
    assert canon.request_seen(Request("https://EXAMPLE.com/a"))
    assert not canon.request_seen(Request("https://example.com/a", method="HEAD"))


@pytest.mark.parametrize("debug", [True, False])
def test_log_lines_match_rfpdupefilter(debug: bool, caplog: pytest.LogCaptureFixture) -> None:
    got: dict[str, list[tuple[str, str]]] = {}
    for cls in (OURS, THEIRS):
        df = _df(cls, DUPEFILTER_DEBUG=debug)
        crawler = df.test_crawler
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="scrapy.dupefilters"):
            for _ in range(2):
                r = Request("http://scrapytest.org/index.html", headers={"Referer": "http://scrapytest.org/"})
                df.log(r, crawler.spider)
        got[cls] = [(rec.name, rec.getMessage()) for rec in caplog.records if rec.levelno == logging.DEBUG]
        assert crawler.stats.get_value("dupefilter/filtered") == 2
    assert got[OURS] == got[THEIRS]
    assert len(got[OURS]) == (2 if debug else 1)
    if debug:
        assert "(referer: http://scrapytest.org/)" in got[OURS][0][1]
