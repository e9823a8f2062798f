"""End to end: a real ``neardup serve`` (uvicorn subprocess) on loopback, driven by ``neardup.client.Client``."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import httpx
import pytest
from service_pages import page, page_url, read_items
from service_proc import ServiceProcess

from neardup.client import Client
from neardup.exceptions import InputError, NotFound, ServiceAuthError

# a loaded machine may take seconds for a request: the tests are about answers, not speed
post = partial(httpx.post, timeout=60)
get = partial(httpx.get, timeout=60)

pytestmark = pytest.mark.timeout(400)

TOKEN = "e2e-token-0123456789abcdef"
DUP_KINDS = {"exact", "content", "near", "layout", "partial"}


@pytest.fixture(scope="module")
def items(data_dir: Path) -> list[dict[str, object]]:
    return read_items(data_dir, 12)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    """One server (bearer token from a file) shared by the tests that need no restart."""
    tmp = tmp_path_factory.mktemp("svc")
    token_file = tmp / "token"
    token_file.write_text(TOKEN + "\n")
    with ServiceProcess(tmp / "state", tmp / "serve.log", token_file=token_file) as server:
        yield server


def test_service_e2e_check_restart_same_answers(tmp_path: Path, items: list[dict[str, object]]) -> None:
    svc = ServiceProcess(tmp_path / "state", tmp_path / "serve.log")
    with svc, Client(svc.url, timeout=30) as c:
        assert c.health()["auth"] == "none (loopback only)"
        assert "UNAUTHENTICATED" in svc.log() and "loopback only" in svc.log()
        first = [c.check(page_url(it), html=page(it)) for it in items]
        assert [v["kind"] for v in first] == ["new"] * len(items)
        mirror = c.check(page_url(items[0], 1), html=page(items[0], 1))  # same article, another site
        assert mirror["kind"] in DUP_KINDS and mirror["duplicate_of"] == first[0]["doc_id"]
        assert c.check_urls("job-1", ["https://a.example/1", "https://a.example/2"]) == [False, False]
        asked = [c.check(page_url(it, 2), html=page(it, 2), add=False) for it in items]

        code = svc.restart()  # SIGTERM: graceful, flushes
        assert code == 0, svc.log()[-2000:]
        assert svc.log().count("state flushed and closed") == 1

        again = [c.check(page_url(it, 2), html=page(it, 2), add=False) for it in items]
        assert [(a["kind"], a["duplicate_of"]) for a in again] == [
            (a["kind"], a["duplicate_of"]) for a in asked
        ]
        assert all(a["kind"] in DUP_KINDS for a in again)
        assert c.check_urls("job-1", ["https://a.example/2", "https://a.example/3"]) == [True, False]
        assert c.check_urls("job-2", ["https://a.example/2"]) == [False]
    assert svc.stop(sig=signal.SIGINT) == 0  # Ctrl-C flushes too
    assert svc.log().count("state flushed and closed") == 2


def test_service_e2e_duplicates_endpoint(svc: ServiceProcess, items: list[dict[str, object]]) -> None:
    with Client(svc.url, token=TOKEN) as c:
        orig = c.check(page_url(items[3]), html=page(items[3]))
        dup = c.check(page_url(items[3], 1), html=page(items[3], 1))
        assert dup["duplicate_of"] == orig["doc_id"]
        found = c.duplicates(orig["doc_id"])
        assert found["doc_id"] == orig["doc_id"] and found["cluster"] == orig["doc_id"]
        assert [d["doc_id"] for d in found["duplicates"]] == [dup["doc_id"]]
        assert c.duplicates(dup["doc_id"])["duplicate_of"] == orig["doc_id"]
        with pytest.raises(NotFound, match="no document with id"):
            c.duplicates(10**9)
        with pytest.raises(InputError, match="integers"):
            c.duplicates("abc")


def test_service_e2e_token_from_file_guards_writes(
    svc: ServiceProcess, items: list[dict[str, object]]
) -> None:
    assert "UNAUTHENTICATED" not in svc.log()
    with Client(svc.url) as anon:
        with pytest.raises(ServiceAuthError, match="Bearer"):
            anon.check_urls("j", ["https://a.example/"])
        with pytest.raises(ServiceAuthError):
            anon.check(page_url(items[0]), html=page(items[0]))
        with pytest.raises(ServiceAuthError):  # add=False too: a check costs the same CPU
            anon.check(page_url(items[0]), html=page(items[0]), add=False)
    with Client(svc.url, token=TOKEN) as c:
        assert c.check(page_url(items[0]), html=page(items[0]), add=False)["kind"] == "new"
        assert c.check_urls("j", ["https://a.example/"]) == [False]
        with pytest.raises(InputError, match=r"urls\.0"):
            c.check_urls("j", ["not a url"])


def test_service_e2e_bad_input_over_the_wire_is_4xx(svc: ServiceProcess) -> None:
    h = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
    cases = [
        (b"{", 400),
        (b"\xff\xfe", 400),
        (b'{"url": "https://a.example/", "html": 3}', 422),
        (b'{"url": "https://a.example/"}', 422),
        (b'{"url": "javascript:alert(1)", "text": "x"}', 422),
    ]
    for body, status in cases:
        r = post(f"{svc.url}/v1/documents/check", content=body, headers=h)
        assert r.status_code == status, (body, r.text)
        assert r.json()["detail"]
    r = post(f"{svc.url}/v1/documents/check", content=b"x" * (3 * 1024 * 1024), headers=h)
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    r = post(
        f"{svc.url}/v1/urls/check",
        headers=h,
        json={"job": "j", "urls": [f"https://a.example/{i}" for i in range(10_001)]},
    )
    assert r.status_code == 413 and "10000" in r.json()["detail"]
    assert "neardup_http_rejected_total" in get(f"{svc.url}/metrics").text
    assert get(f"{svc.url}/openapi.json").json()["info"]["title"] == "neardup"
    assert "Traceback" not in svc.log()


def test_service_e2e_nan_and_infinity_are_refused_and_nothing_is_recorded(svc: ServiceProcess) -> None:
    h = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
    text = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 3
    cases = [
        (
            "/v1/documents/check",
            f'{{"url": "https://nan.example/1", "text": "{text}", "date": NaN}}',
            "body.date",
        ),
        (
            "/v1/documents/check",
            f'{{"url": "https://nan.example/1", "text": "{text}", "x": -Infinity}}',
            "body.x",
        ),
        ("/v1/urls/check", '{"job": "nan", "urls": ["https://nan.example/1", Infinity]}', "body.urls.1"),
    ]
    for path, body, where in cases:
        r = post(f"{svc.url}{path}", content=body.encode(), headers=h)
        assert r.status_code == 400 and r.json()["error"] == "invalid_json", (body, r.text)
        assert where in r.json()["detail"] and "send finite numbers" in r.json()["detail"]
    with Client(svc.url, token=TOKEN) as c:
        assert c.check("https://nan.example/1", text=text, add=False)["kind"] == "new"
        assert c.check_urls("nan", ["https://nan.example/1"]) == [False]
    assert "Traceback" not in svc.log()


def test_service_refuses_public_bind_without_token(tmp_path: Path) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "neardup.cli.main",
            "serve",
            "--state",
            str(tmp_path / "s"),
            "--host",
            "0.0.0.0",
            "--port",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 2
    assert "refusing to listen on '0.0.0.0' without a bearer token" in r.stderr


@pytest.mark.redis
def test_service_e2e_two_services_share_state_through_redis(
    tmp_path: Path, redis_url: str, items: list[dict[str, object]]
) -> None:
    a = ServiceProcess(tmp_path / "a", tmp_path / "a.log", redis=redis_url)
    b = ServiceProcess(tmp_path / "b", tmp_path / "b.log", redis=redis_url)
    with a, b, Client(a.url) as ca, Client(b.url) as cb:
        assert ca.check_urls("shared", ["https://a.example/1"]) == [False]
        assert cb.check_urls("shared", ["https://a.example/1", "https://a.example/2"]) == [True, False]
        assert ca.check_urls("shared", ["https://a.example/2"]) == [True]
        first = ca.check(page_url(items[5]), html=page(items[5]))
        other = cb.check(page_url(items[5], 1), html=page(items[5]))  # same page, another URL, other service
        assert other["kind"] == "exact" and other["duplicate_of"] == first["doc_id"]
        assert other["doc_id"] != first["doc_id"]  # ids come from one shared counter
