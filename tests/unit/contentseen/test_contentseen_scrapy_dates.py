"""The Scrapy pipeline reads each item's date: next year's yearly notice is kept, not dropped."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

scrapy = pytest.importorskip("scrapy")
from scrapy.exceptions import DropItem  # noqa: E402

from neardup.integrations.scrapy import ContentSeenPipeline  # noqa: E402
from neardup_testing import scrapy_crawler  # noqa: E402

NOTICE = (
    "国家主席习近平在人民大会堂同智利总统博里奇举行会谈。习近平欢迎博里奇来华进行国事访问。"
    "习近平指出，中方高度重视发展同智利的关系，愿同智方一道推动两国全面战略伙伴关系不断向前发展。"
    "博里奇表示，智方愿同中方加强各领域合作，共同维护多边主义和自由贸易。"
)
EDITED = NOTICE.replace("愿同智方", "愿与智方")


def _pipe(**settings: Any) -> ContentSeenPipeline:
    return ContentSeenPipeline.from_crawler(scrapy_crawler("dates", NEARDUP_VERDICT_FIELD="v", **settings))


def test_the_pipeline_keeps_next_years_notice_and_drops_this_weeks_copy() -> None:
    pipe = _pipe()
    assert (
        pipe.process_item({"url": "https://a/2023", "text": NOTICE, "date": "2023-03-01"})["v"]["kind"]
        == "new"
    )
    kept = pipe.process_item({"url": "https://a/2024", "text": EDITED, "date": dt.datetime(2024, 3, 1, 8)})
    assert kept["v"]["kind"] == "new"
    with pytest.raises(DropItem, match="near duplicate of https://a/2024"):
        pipe.process_item({"url": "https://b/2024", "text": EDITED + "记者报道。", "date": ["2024-03-02"]})
    pipe.close_spider()


def test_the_date_field_is_a_setting_and_an_odd_value_is_an_unknown_date() -> None:
    pipe = _pipe(NEARDUP_DATE_FIELD="published")
    assert pipe.date_field == "published"
    pipe.process_item({"url": "https://a/2023", "text": NOTICE, "published": "2023-03-01"})
    # the "date" field is not read; an object as the date is unknown: the text decides
    with pytest.raises(DropItem, match="near"):
        pipe.process_item({"url": "https://a/2024", "text": EDITED, "date": "2024-03-01"})
    with pytest.raises(DropItem, match="near"):
        pipe.process_item({"url": "https://c/2024", "text": EDITED + "记者报道。", "published": {"y": 2024}})
    pipe.close_spider()
