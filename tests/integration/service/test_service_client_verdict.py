"""Client.check and AsyncClient.check through a real ``neardup serve``: a Verdict, as ContentSeen.check gives.

The same pages go to a local ContentSeen and to the service; the answers must agree field by field.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_pages import page, page_url, read_items
from service_proc import ServiceProcess

from neardup.client import AsyncClient, Client
from neardup.contentseen import ContentSeen, Verdict
from neardup.exceptions import InputError

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    tmp = tmp_path_factory.mktemp("verdict-svc")
    extra = ["--store-timeout", "120", "--analysis-timeout", "120"]  # answers, not speed, are tested
    with ServiceProcess(tmp / "state", tmp / "serve.log", extra=extra) as server:
        yield server


def _gbk(html: str) -> bytes:
    return html.replace("<head>", '<head><meta charset="gbk">', 1).encode("gbk", "replace")


def _calls(items: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    first, second = items
    return [
        (page_url(first), {"html": page(first)}),  # str HTML
        (page_url(first, 1), {"html": _gbk(page(first, 1))}),  # GBK bytes: a mirror
        (page_url(second), {"html": page(second).encode("utf-8")}),  # UTF-8 bytes
        (page_url(second, 2), {"text": str(second["text"]), "add": False}),  # text only, only asks
        (page_url(second, 1), {"html": page(second, 1), "text": str(second["text"]), "sync": False}),
    ]


def _fields(v: Verdict) -> tuple[Any, ...]:
    return (
        *(v.kind, v.doc_id, v.duplicate_of, v.distance, v.similar_id, v.url, v.duplicate_url),
        *(v.partner, v.partner_url),
    )


def test_client_check_returns_the_verdict_contentseen_gives(
    svc: ServiceProcess, data_dir: Path, tmp_path: Path
) -> None:
    calls = _calls(read_items(data_dir, 2))
    with ContentSeen(tmp_path / "local") as cs:
        local = [cs.check(url, **kw) for url, kw in calls]
    with Client(svc.url, timeout=180) as nd:
        remote = [nd.check(url, **kw) for url, kw in calls]
        assert all(isinstance(v, Verdict) for v in remote)
        assert [_fields(v) for v in remote] == [_fields(v) for v in local]
        assert remote[1].is_duplicate and remote[1].duplicate_url == calls[0][0]
        assert remote[1]["kind"] == remote[1].kind  # the dict access older code used still answers
        with pytest.raises(InputError, match="html must be str or bytes, got int"):
            nd.check("https://a.example/", html=123)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="neither"):
            nd.check("https://a.example/")


def test_async_client_check_gives_the_same_verdicts(svc: ServiceProcess, data_dir: Path) -> None:
    calls = _calls(read_items(data_dir, 2))

    async def go() -> list[Verdict]:
        async with AsyncClient(svc.url, timeout=180) as nd:
            return [await nd.check(url, **{**kw, "add": False}) for url, kw in calls]

    with Client(svc.url, timeout=180) as nd:
        sync = [nd.check(url, **{**kw, "add": False}) for url, kw in calls]
    got = asyncio.run(go())
    assert all(isinstance(v, Verdict) for v in got)
    assert [_fields(v) for v in got] == [_fields(v) for v in sync]


def test_the_json_verdict_gives_the_url_of_the_page_its_reason_names(
    svc: ServiceProcess, data_dir: Path
) -> None:
    item = read_items(data_dir, 3)[2]  # an article no other test of this module sends
    sends = [
        (page_url(item), page(item)),
        (page_url(item, 1), page(item, 1)),
        (page_url(item, 2), page(item, 1)),
    ]
    got = []
    for url, html in sends:
        r = httpx.post(f"{svc.url}/v1/documents/check", json={"url": url, "html": html}, timeout=180)
        assert r.status_code == 200, r.text
        got.append(r.json())
    first, mirror, copy = got
    assert (mirror["kind"], mirror["partner"], mirror["partner_url"]) == (
        "content",
        first["doc_id"],
        sends[0][0],
    )
    # a copy of the mirror: of the first page's cluster, and the same page as the mirror
    assert (copy["kind"], copy["duplicate_of"], copy["duplicate_url"]) == (
        "exact",
        first["doc_id"],
        sends[0][0],
    )
    assert (copy["partner"], copy["partner_url"]) == (mirror["doc_id"], sends[1][0])
    assert copy["reasons"]["why"] == f"the same page (whitespace aside) as document {mirror['doc_id']}"
