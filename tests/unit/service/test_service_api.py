"""The service's API contract, in process through httpx.ASGITransport, with a fake backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from service_testkit import AUTH, TOKEN, ASGIClient, FakeBackend

from neardup.service.app import create_app
from neardup.service.settings import ServiceSettings


@pytest.fixture(params=[True, False], ids=["fast-path", "fastapi"])
def client(request: pytest.FixtureRequest, backend: FakeBackend, make_client: Any) -> ASGIClient:
    """Every contract test runs twice: through the fast path and through FastAPI's routing."""
    settings = ServiceSettings(token=TOKEN, max_batch=50, max_body_bytes=64 * 1024, fast_path=request.param)
    return make_client(create_app(settings, backend=backend))


def test_service_health_and_openapi(client: ASGIClient) -> None:
    r = client.get("/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["auth"] == "bearer"
    assert client.get("/healthz").json()["status"] == "ok"
    schema = client.get("/openapi.json").json()
    assert {"/v1/urls/check", "/v1/documents/check", "/v1/documents/{doc_id}/duplicates"} <= set(
        schema["paths"]
    )


def test_service_document_check_then_duplicate(client: ASGIClient, backend: FakeBackend) -> None:
    r = client.post(
        "/v1/documents/check", json={"url": "https://a.example/1", "text": "同一篇文章"}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    assert r.json()["kind"] == "new"
    r = client.post(
        "/v1/documents/check", json={"url": "https://b.example/1", "text": "同一篇文章"}, headers=AUTH
    )
    assert r.json() == {
        "kind": "exact",
        "doc_id": "https://b.example/1",
        "duplicate_of": "https://a.example/1",
        "distance": 0,
    }
    r = client.get("/v1/documents/https%3A%2F%2Fa.example%2F1/duplicates")
    assert r.status_code == 200
    assert r.json()["duplicates"] == ["https://b.example/1"]


def test_service_add_false_only_asks_and_needs_the_token_too(
    client: ASGIClient, backend: FakeBackend
) -> None:
    body = {"url": "https://a.example/1", "text": "x", "add": False}
    r = client.post("/v1/documents/check", json=body)
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"
    r = client.post("/v1/documents/check", json=body, headers=AUTH)
    assert r.status_code == 200 and r.json()["kind"] == "new"
    assert backend.docs == {}


def test_service_writes_need_the_bearer_token(client: ASGIClient) -> None:
    body = {"url": "https://a.example/1", "text": "x"}
    r = client.post("/v1/documents/check", json=body)
    assert r.status_code == 401
    assert r.json()["error"] == "unauthorized" and "Bearer" in r.json()["detail"]
    assert r.headers["www-authenticate"].startswith("Bearer")
    r = client.post(
        "/v1/documents/check", json=body, headers={"Authorization": "Bearer wrong-token-xxxxxxxx"}
    )
    assert r.status_code == 401 and "wrong" in r.json()["detail"]
    r = client.post("/v1/urls/check", json={"job": "j", "urls": []}, headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_service_url_batch_reports_seen_in_order(client: ASGIClient) -> None:
    urls = ["https://a.example/1", "https://a.example/2"]
    r = client.post("/v1/urls/check", json={"job": "news", "urls": urls}, headers=AUTH)
    assert r.json() == {"job": "news", "seen": [False, False], "new": 2}
    r = client.post(
        "/v1/urls/check", json={"job": "news", "urls": [*urls, "https://a.example/3"]}, headers=AUTH
    )
    assert r.json()["seen"] == [True, True, False]
    r = client.post("/v1/urls/check", json={"job": "other", "urls": urls}, headers=AUTH)
    assert r.json()["seen"] == [False, False]


@pytest.mark.parametrize(
    ("body", "status", "code", "says"),
    [
        (b"{not json", 400, "invalid_json", "not valid JSON"),
        (b"\xff\xfe\x00garbage", 400, "invalid_json", ""),
        (b'{"url": "https://a.example/1", "text": "\xff\xfe"}', 400, "invalid_json", ""),
        (b"[]", 422, "invalid", ""),
        (b'{"url": "https://a.example/1"}', 422, "invalid", "neither"),
        (b'{"text": "x"}', 422, "invalid", "url"),
        (b'{"url": 5, "text": "x"}', 422, "invalid", "url"),
        (b'{"url": "https://a.example/1", "text": "x", "add": "yes"}', 422, "invalid", "add"),
        (b'{"url": "https://a.example/1", "text": "x", "htm": "x"}', 422, "invalid", "htm"),
        (b'{"url": "ftp://a.example/1", "text": "x"}', 422, "invalid", "http"),
        (b'{"url": "https:///nohost", "text": "x"}', 422, "invalid", "host"),
        (b'{"url": "https://a.example/\\n1", "text": "x"}', 422, "invalid", "whitespace"),
        (b'{"url": "https://a.example/1", "text": "boom-input"}', 422, "invalid", "no main text"),
        # lone surrogates: FastAPI's parser takes them (then 422), pydantic-core's refuses the JSON (400)
        (b'{"url": "https://a.example/1", "text": "ab\\ud800cd"}', (400, 422), "", ""),
        (b'{"url": "https://a.example/\\udfff", "text": "x"}', (400, 422), "", ""),
        (b'{"url": "https://a.example/1", "text": "x", "\\ud800": 1}', (400, 422), "", ""),
        (b'{"url": "https://a.example/1", "text": "boom-store"}', 503, "store_unavailable", "redis"),
    ],
)
def test_service_bad_document_input_is_4xx_json(
    client: ASGIClient, body: bytes, status: int | tuple[int, ...], code: str, says: str
) -> None:
    r = client.post("/v1/documents/check", content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code in (status if isinstance(status, tuple) else (status,)), r.text
    assert r.json()["error"] == code or not code
    assert says in r.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"url": "https://a.example/1", "text": "\\ud800"}',  # a high surrogate, then the string's end
        b'{"url": "https://a.example/1", "text": "ab\\ud800cd"}',
        b'{"url": "https://a.example/1", "text": "ab\\udfff"}',  # a low surrogate alone
        b'{"url": "https://a.example/1", "text": "\\ud800\\u0041"}',  # a high one, then no low one
    ],
)
def test_service_a_lone_surrogate_is_named_as_such(client: ASGIClient, body: bytes) -> None:
    r = client.post("/v1/documents/check", content=body, headers={**AUTH, "Content-Type": "application/json"})
    detail = r.json()["detail"]
    assert r.status_code in (400, 422) and "lone UTF-16 surrogate" in detail, r.text
    assert "not valid Unicode" in detail and "hex escape" not in detail


_DOC = "/v1/documents/check"
_URLS = "/v1/urls/check"


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        (_DOC, b'{"url": "https://a.example/1", "text": "x", "date": NaN}', "NaN at body.date"),
        (_DOC, b'{"url": "https://a.example/1", "text": "x", "date": Infinity}', "Infinity at body.date"),
        (_DOC, b'{"url": "https://a.example/1", "text": "x", "date": -Infinity}', "-Infinity at body.date"),
        (_DOC, b'{"url": "https://a.example/1", "text": NaN}', "NaN at body.text"),
        (
            _DOC,
            b'{"url": "https://a.example/1", "text": "x", "add": false, "k": [1, {"m": NaN}]}',
            "body.k.1.m",
        ),
        (_DOC, b'{"url": "https://a.example/1", "text": "x", "date": NaN, "add": Infinity}', "(and 1 more)"),
        (_URLS, b'{"job": "j", "urls": ["https://a.example/", Infinity]}', "Infinity at body.urls.1"),
        (_URLS, b"NaN", "NaN at body;"),
        # a key given twice: the parsers keep its last value, the refusal holds for the first too
        (_URLS, b'{"job": "j", "urls": NaN, "urls": []}', "NaN at body;"),
    ],
)
def test_service_nan_and_infinity_anywhere_in_a_body_are_invalid_json(
    client: ASGIClient, backend: FakeBackend, path: str, body: bytes, named: str
) -> None:
    r = client.post(path, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert set(r.json()) == {"error", "detail"} and r.json()["error"] == "invalid_json"
    detail = r.json()["detail"]
    assert named in detail and "not JSON numbers" in detail and "send finite numbers" in detail
    assert backend.dates == [] and backend.docs == {} and backend.urls == {}


def test_service_nan_and_infinity_as_text_pass(client: ASGIClient, backend: FakeBackend) -> None:
    body = b'{"url": "https://a.example/NaN", "text": "NaN, Infinity, -Infinity", "date": "Infinity"}'
    r = client.post(_DOC, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert backend.dates == ["Infinity"]  # a date string the engine does not read: an unknown date


def test_service_a_date_past_the_float_range_is_refused(client: ASGIClient, backend: FakeBackend) -> None:
    # valid JSON that both parsers read as infinity
    body = b'{"url": "https://a.example/1", "text": "x", "date": -1e999}'
    r = client.post(_DOC, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith("body.date:") and "must be finite" in r.json()["detail"]
    assert backend.dates == []


def test_service_non_finite_number_names_the_first_and_bounds_the_path() -> None:
    from neardup.service.models import non_finite_number

    assert non_finite_number(b'{"a": [1.5, "NaN"], "NaN": "Infinity"}') is None
    assert non_finite_number(b'{"a": NaN') is None  # not JSON for another reason: its parser says why
    assert non_finite_number(b'{"a": NaN, "b": [Infinity, -Infinity]}') == "NaN at body.a (and 2 more)"
    long_key = b"k" * 1000
    where = non_finite_number(b'{"' + long_key + b'": NaN}')
    assert where is not None and where.startswith("NaN at body.kkk") and len(where) < 220


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"job": "bad job!", "urls": []}, 422, "job must match"),
        ({"job": "j", "urls": "https://a.example/"}, 422, "urls"),
        ({"job": "j", "urls": [1, 2]}, 422, "urls.0"),
        ({"job": "j", "urls": ["https://a.example/", "not a url", "mailto:x@y"]}, 422, "urls.1"),
        ({"job": "j", "urls": [f"https://a.example/{i}" for i in range(51)]}, 413, "at most 50"),
        ({"job": "j", "urls": ["https://a.example/" + "x" * 9000]}, 422, "characters"),
    ],
)
def test_service_bad_url_batches_are_4xx_json(client: ASGIClient, body: Any, status: int, says: str) -> None:
    r = client.post("/v1/urls/check", json=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert says in r.json()["detail"]


def test_service_huge_body_is_413_before_parsing(client: ASGIClient) -> None:
    big = {"url": "https://a.example/1", "text": "字" * 100_000}
    r = client.post("/v1/documents/check", json=big, headers=AUTH)
    assert r.status_code == 413
    assert r.json()["error"] == "too_large" and "65536" in r.json()["detail"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the guard counts the stream
        yield b'{"url": "https://a.example/1", "text": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    r = client.post(
        "/v1/documents/check", content=chunks(), headers={**AUTH, "Content-Type": "application/json"}
    )
    assert r.status_code == 413


def test_service_unknown_route_and_method_are_json(client: ASGIClient) -> None:
    r = client.get("/v1/nope")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = client.get("/v1/documents/check")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"


def test_service_unknown_document_is_4xx(client: ASGIClient) -> None:
    r = client.get("/v1/documents/nope/duplicates")
    assert r.status_code == 404 and "no document with id 'nope'" in r.json()["detail"]
    r = client.get("/v1/documents/bad/duplicates")
    assert r.status_code == 422 and "integers" in r.json()["detail"]


def test_service_metrics_count_requests_and_verdicts(client: ASGIClient) -> None:
    client.post("/v1/documents/check", json={"url": "https://a.example/1", "text": "x"}, headers=AUTH)
    client.post("/v1/documents/check", json={"url": "https://a.example/1"}, headers=AUTH)
    text = client.get("/metrics").text
    assert 'neardup_verdicts_total{kind="new"} 1.0' in text
    assert 'route="/v1/documents/check",status="200"' in text
    assert 'route="/v1/documents/check",status="422"' in text
    assert "neardup_http_request_seconds_bucket" in text


def test_service_two_apps_do_not_share_metrics(backend: FakeBackend) -> None:
    a = create_app(ServiceSettings(), backend=backend)
    b = create_app(ServiceSettings(), backend=FakeBackend())
    assert a.state.metrics.registry is not b.state.metrics.registry


def test_service_without_token_writes_are_open(backend: FakeBackend, make_client: Any) -> None:
    c = make_client(create_app(ServiceSettings(), backend=backend))
    r = c.post("/v1/urls/check", json={"job": "j", "urls": ["https://a.example/"]})
    assert r.status_code == 200
    assert c.get("/v1/health").json()["auth"] == "none (loopback only)"


def test_service_lifespan_shutdown_closes_the_backend(backend: FakeBackend) -> None:
    c = ASGIClient(create_app(ServiceSettings(), backend=backend))
    assert not backend.closed
    c.close()
    assert backend.closed


def test_service_a_bug_is_a_500_json_without_traceback(backend: FakeBackend, make_client: Any) -> None:
    c = make_client(create_app(ServiceSettings(), backend=backend), raise_app_exceptions=False)
    r = c.post("/v1/documents/check", json={"url": "https://a.example/1", "text": "boom-bug"})
    assert r.status_code == 500
    assert r.json()["error"] == "internal" and "Traceback" not in r.text
