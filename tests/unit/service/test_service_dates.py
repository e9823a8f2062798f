"""The service's documents check takes the page's date: passed through, documented, typed."""

from __future__ import annotations

from typing import Any

import pytest
from service_testkit import AUTH, TOKEN, ASGIClient, FakeBackend

from neardup.service.app import create_app
from neardup.service.settings import ServiceSettings


@pytest.fixture(params=[True, False], ids=["fast-path", "fastapi"])
def client(request: pytest.FixtureRequest, backend: FakeBackend, make_client: Any) -> ASGIClient:
    settings = ServiceSettings(token=TOKEN, fast_path=request.param)
    return make_client(create_app(settings, backend=backend))


def test_the_date_reaches_the_backend_as_sent(client: ASGIClient, backend: FakeBackend) -> None:
    for date in ("2024-03-01", 1709251200, 1709251200000.0, None):
        body = {"url": "https://a.example/1", "text": "正文", "add": False, "date": date}
        r = client.post("/v1/documents/check", json=body, headers=AUTH)
        assert r.status_code == 200, r.text
    client.post("/v1/documents/check", json={"url": "https://a.example/1", "text": "正文"}, headers=AUTH)
    assert backend.dates == ["2024-03-01", 1709251200, 1709251200000.0, None, None]


def test_openapi_documents_the_date(client: ASGIClient) -> None:
    schema = client.get("/openapi.json").json()
    field = schema["components"]["schemas"]["DocumentCheck"]["properties"]["date"]
    assert "occasion" in field["description"]
    assert {t.get("type") for t in field["anyOf"]} == {"string", "integer", "number", "null"}


@pytest.mark.parametrize("date", [True, [2024, 3, 1], {"y": 2024}, "2024-03-01" + " " * 80])
def test_a_date_of_another_type_is_a_422_with_a_reason(client: ASGIClient, date: Any) -> None:
    body = {"url": "https://a.example/1", "text": "正文", "date": date}
    r = client.post("/v1/documents/check", json=body, headers=AUTH)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and "date" in r.json()["detail"]
