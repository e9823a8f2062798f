"""Bad NEARDUP_* Scrapy settings stop the crawl with a ConfigError naming the setting."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("scrapy")

from scrapy import Spider
from scrapy.utils.test import get_crawler

from neardup.exceptions import ConfigError
from neardup.integrations.scrapy import ContentSeenPipeline, NeardupDupeFilter


class _Spider(Spider):
    name = "bad-settings"


@pytest.mark.parametrize(
    ("cls", "settings", "match"),
    [
        (ContentSeenPipeline, {"NEARDUP_MAX_DISTANCE": "abc"}, "NEARDUP_MAX_DISTANCE must be a whole number"),
        (ContentSeenPipeline, {"NEARDUP_STRICTNESS": "abc"}, "NEARDUP_STRICTNESS must be a number in"),
        (
            ContentSeenPipeline,
            {"NEARDUP_SERVICE_URL": "http://127.0.0.1:1", "NEARDUP_SERVICE_TIMEOUT": "abc"},
            "NEARDUP_SERVICE_TIMEOUT must be a number of seconds",
        ),
        (
            NeardupDupeFilter,
            {"NEARDUP_SERVICE_URL": "http://127.0.0.1:1", "NEARDUP_SERVICE_TIMEOUT": "abc"},
            "NEARDUP_SERVICE_TIMEOUT",
        ),
        (
            NeardupDupeFilter,
            {"NEARDUP_CANONICALIZE_URLS": "maybe"},
            "NEARDUP_CANONICALIZE_URLS must be a boolean",
        ),
        (NeardupDupeFilter, {"NEARDUP_DEBUG": "maybe"}, "NEARDUP_DEBUG must be a boolean"),
        (ContentSeenPipeline, {"NEARDUP_ADD": "maybe"}, "NEARDUP_ADD must be a boolean"),
        (ContentSeenPipeline, {"NEARDUP_DEBUG": "maybe"}, "NEARDUP_DEBUG must be a boolean"),
        (ContentSeenPipeline, {"NEARDUP_FAIL_OPEN": "maybe"}, "NEARDUP_FAIL_OPEN must be a boolean"),
        (
            ContentSeenPipeline,
            {"NEARDUP_CONTENTSEEN_ENABLED": "maybe"},
            "NEARDUP_CONTENTSEEN_ENABLED must be a boolean",
        ),
        (ContentSeenPipeline, {"NEARDUP_DROP_KINDS": 5}, "NEARDUP_DROP_KINDS must be a list of kinds"),
        (NeardupDupeFilter, {"NEARDUP_JOB_ID": "bad job!"}, "NEARDUP_JOB_ID must be 1-200 characters"),
        (
            NeardupDupeFilter,
            {"NEARDUP_RECRAWL_AFTER": "nan"},
            "NEARDUP_RECRAWL_AFTER must be a finite number",
        ),
        (NeardupDupeFilter, {"NEARDUP_URL_TTL": "inf"}, "NEARDUP_URL_TTL must be a finite number"),
    ],
)
def test_bad_setting_is_a_config_error_naming_it(cls: Any, settings: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        cls.from_crawler(get_crawler(_Spider, settings))


@pytest.mark.parametrize(
    "settings",
    [
        {"NEARDUP_MAX_DISTANCE": "3", "NEARDUP_STRICTNESS": "0.7", "NEARDUP_DROP_KINDS": "exact,near"},
        {"NEARDUP_MAX_DISTANCE": 3.0, "NEARDUP_ADD": "false", "NEARDUP_DROP_KINDS": ["exact"]},
    ],
)
def test_good_pipeline_settings_still_read(settings: dict[str, Any]) -> None:
    pipe = ContentSeenPipeline.from_crawler(get_crawler(_Spider, settings))
    try:
        assert "near" in pipe.drop_kinds or pipe.add is False
    finally:
        pipe.close_spider()


def test_good_dupefilter_settings_still_read() -> None:
    settings = {
        "NEARDUP_JOB_ID": "news-2026",
        "NEARDUP_CANONICALIZE_URLS": "true",
        "NEARDUP_RECRAWL_AFTER": "60",
    }
    df = NeardupDupeFilter.from_crawler(get_crawler(_Spider, settings))
    assert (df.job_id, df.canonicalize, df.recrawl_after) == ("news-2026", True, 60.0)
