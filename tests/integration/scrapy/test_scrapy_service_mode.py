"""The Scrapy dupefilter and pipeline through a real ``neardup serve`` on loopback (NEARDUP_SERVICE_URL)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

scrapy = pytest.importorskip("scrapy")
httpx = pytest.importorskip("httpx")
from scrapy import Request  # noqa: E402
from scrapy.exceptions import DropItem  # noqa: E402

from neardup.client import Client  # noqa: E402
from neardup.contentseen.synth import render_page  # noqa: E402
from neardup.integrations.scrapy import ContentSeenPipeline, NeardupDupeFilter  # noqa: E402
from neardup_testing import scrapy_crawler  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "contentseen"))
from _cs_articles import HARVEST, RIVER  # noqa: E402

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def service(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "neardup.cli.main",
            "serve",
            "--state",
            str(tmp_path / "state"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            # a loaded machine may stall a store call for seconds: the test is about answers
            "--store-timeout",
            "120",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"neardup serve exited: {(tmp_path / 'serve.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("neardup serve did not answer /v1/health within 90 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def _crawler(**settings: Any) -> Any:
    return scrapy_crawler("svc", NEARDUP_SERVICE_TIMEOUT=180.0, **settings)


def test_scrapy_parts_through_the_service(service: str) -> None:
    crawler = _crawler(
        NEARDUP_SERVICE_URL=service, NEARDUP_VERDICT_FIELD="neardup", NEARDUP_CANONICALIZE_URLS=True
    )
    pipe = ContentSeenPipeline.from_crawler(crawler)
    assert isinstance(pipe.checker, Client)  # the service, not a local ContentSeen
    river = render_page(*RIVER, template="portal")
    assert pipe.process_item({"url": "https://a/1", "html": river})["neardup"]["kind"] == "new"
    with pytest.raises(DropItem, match="exact duplicate of https://a/1"):
        pipe.process_item({"url": "https://mirror/1", "html": river})
    with pytest.raises(DropItem, match="content duplicate"):
        pipe.process_item({"url": "https://blog/1", "html": render_page(*RIVER, template="blog")})
    assert (
        pipe.process_item({"url": "https://a/2", "html": render_page(*HARVEST)})["neardup"]["kind"] == "new"
    )
    assert crawler.stats.get_value("neardup/items/dropped") == 2
    pipe.close_spider()

    df = NeardupDupeFilter.from_crawler(crawler)
    df.open()
    assert not df.request_seen(Request("https://example.com/x?utm_source=a"))
    assert df.request_seen(Request("https://example.com/x"))
    df.close("finished")
    # another worker of the same job sees the same URL store
    other = NeardupDupeFilter.from_crawler(
        _crawler(NEARDUP_SERVICE_URL=service, NEARDUP_CANONICALIZE_URLS=True)
    )
    other.open()
    assert other.request_seen(Request("https://example.com/x"))
    other.close("finished")
