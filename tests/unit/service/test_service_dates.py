"""The service's documents check takes the page's date: passed through, documented, typed."""

from __future__ import annotations

from pathlib import Path
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


ACCEPTED = (
    "expected an ISO date or date-time string (2024-03-01, 2024-03-01T08:00:00Z), Unix seconds or "
    "milliseconds (a number), or null"
)


@pytest.mark.parametrize(
    ("date", "msg"),
    [
        (True, f"{ACCEPTED}; got true"),
        (False, f"{ACCEPTED}; got false"),
        ([2024, 3, 1], f"{ACCEPTED}; got an array"),
        ({"y": 2024}, f"{ACCEPTED}; got an object"),
        ("2024-03-01" + " " * 80, "a date string holds at most 64 characters, got 90"),
    ],
)
def test_a_bad_date_is_one_422_saying_what_a_date_may_be(
    client: ASGIClient, backend: FakeBackend, date: Any, msg: str
) -> None:
    body = {"url": "https://a.example/1", "text": "正文", "date": date}
    r = client.post("/v1/documents/check", json=body, headers=AUTH)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and r.json()["detail"] == f"body.date: {msg}"
    assert [(e["loc"], e["msg"]) for e in r.json()["errors"]] == [("body.date", msg)]
    assert backend.dates == []


def test_docs_show_the_date_refusals_the_service_gives(client: ASGIClient) -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "service.md").read_text(encoding="utf-8")
    docs = " ".join(docs.split())  # its lines are wrapped
    head = '{"url": "https://a.example/1", "text": "x", "date": '
    for date in ("true", '"' + "x" * 80 + '"', "1e999"):
        r = client.post(
            "/v1/documents/check",
            content=(head + date + "}").encode(),
            headers={**AUTH, "Content-Type": "application/json"},
        )
        assert r.status_code == 422 and r.json()["detail"] in docs, r.text
