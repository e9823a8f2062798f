"""The pipeline's drop message names the page its reason is about when that page is not the
cluster's first (a copy of a mirror: duplicate of the first page, the same page as the mirror)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("scrapy")
from scrapy.exceptions import DropItem

from neardup.contentseen import ContentSeen
from neardup.integrations.scrapy import ContentSeenPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "contentseen"))
from _cs_articles import RIVER, page


def test_the_drop_message_names_the_page_the_reason_is_about() -> None:
    with ContentSeen("memory://") as cs:
        pipe = ContentSeenPipeline(cs)
        pipe.process_item({"url": "https://example.com/a", "html": page(RIVER)})
        with pytest.raises(DropItem) as mirror:
            pipe.process_item({"url": "https://mirror.example/b", "html": page(RIVER, "blog")})
        with pytest.raises(DropItem) as copy:
            pipe.process_item({"url": "https://mirror.example/c", "html": page(RIVER, "blog")})
    assert "content duplicate of https://example.com/a:" in str(mirror.value)
    assert "(https://" not in str(mirror.value)  # the reason is about the first page itself
    assert str(copy.value).startswith("exact duplicate of https://example.com/a: ")
    assert "as document 2 (https://mirror.example/b)" in str(copy.value)
