"""A real ``neardup serve`` under hostile input and stalled stores: bounded answers, JSON, health.

Loopback only; every wait is bounded. Two servers: one with the default depth limit (and a locked
SQLite URL store), one without a depth limit but with a short analysis deadline and a Redis that is
SIGSTOPed.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import httpx
import pytest
from service_proc import ServiceProcess

# a loaded machine may take seconds for a request: the tests are about answers, not speed
post = partial(httpx.post, timeout=60)
get = partial(httpx.get, timeout=60)


TOKEN = "hostile-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ARTICLE = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。今天发布的规划说明了治理的重点。" * 3
# ~1 MB, under the element bound: without a depth limit its extraction runs for minutes
DEEP = "<html><body>" + "<div>" * 90_000 + ARTICLE + "</div>" * 90_000 + "</body></html>"
# pages that a separate depth scanner let through, or that cost lexbor minutes to parse
HOSTILE = {
    "self-closed": "<html><body>" + "<div/>" * 150_000 + ARTICLE + "</body></html>",
    "empty-comment": "<!-->" + "<div>" * 40_000 + ARTICLE + "</div>" * 40_000,
    "stray-end-tags": "<html><body>" + "<div></xq>" * 40_000 + ARTICLE + "</body></html>",
    "attributes": "<div " + " ".join(f"a{i}=x" for i in range(100_000)) + ">" + ARTICLE + "</div>",
}


def page(n: int) -> str:
    return f"<html><body><article><h1>第{n}篇</h1><p>{ARTICLE}第{n}段。</p></article></body></html>"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    d = tmp_path_factory.mktemp("hostile")
    (d / "token").write_text(TOKEN)
    extra = ["--analysis-processes", "1", "--store-timeout", "1", "--analysis-timeout", "20"]
    with ServiceProcess(d / "state", d / "serve.log", token_file=d / "token", extra=extra) as s:
        yield s


def test_token_is_never_echoed_and_auth_comes_before_validation(svc: ServiceProcess) -> None:
    r = post(f"{svc.url}/v1/documents/check", json={"url": "x"}, headers={"Authorization": TOKEN})
    assert r.status_code == 401 and TOKEN not in r.text and r.json()["error"] == "unauthorized"
    for body in (b"{not json", b'{"url": 1}', b'{"url": "https://a.example/", "html": "x", "add": false}'):
        r = post(f"{svc.url}/v1/documents/check", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 401 and "errors" not in r.json()  # no schema for anonymous callers


def _ask_deep(url: str) -> httpx.Response:
    """Ask (add=false) about a page nested far deeper than any parser should recurse."""
    return post(
        f"{url}/v1/documents/check",
        json={"url": "https://evil.example/deep", "html": DEEP, "add": False},
        headers=AUTH,
        timeout=30,
    )


def test_deeply_nested_page_is_refused_fast_and_the_service_stays_responsive(svc: ServiceProcess) -> None:
    r = _ask_deep(svc.url)
    # 422 from the budget, not 503 from the analysis deadline: refused before extraction
    assert r.status_code == 422 and "levels deep" in r.json()["detail"], r.text
    r = post(
        f"{svc.url}/v1/documents/check", json={"url": "https://a.example/1", "html": page(1)}, headers=AUTH
    )
    assert r.status_code == 200 and r.json()["kind"] == "new"


def test_pages_over_the_html_budget_get_422_and_cost_no_other_page_its_answer(svc: ServiceProcess) -> None:
    # the innocent page is sent beside each hostile one; with one worker it queues behind it
    with ThreadPoolExecutor(2) as ex:
        for i, (name, html) in enumerate(HOSTILE.items()):
            bad = ex.submit(
                post,
                f"{svc.url}/v1/documents/check",
                json={"url": f"https://evil.example/{name}", "html": html, "add": False},
                headers=AUTH,
                timeout=60,
            )
            good = ex.submit(
                post,
                f"{svc.url}/v1/documents/check",
                json={"url": f"https://a.example/budget/{i}", "html": page(100 + i)},
                headers=AUTH,
                timeout=60,
            )
            r = bad.result()
            # 422 (the budget), not 503 analysis_timeout (the worker's deadline)
            assert r.status_code == 422 and "refused" in r.json()["detail"], (name, r.text)
            r = good.result()
            assert r.status_code == 200 and r.json()["kind"], (name, r.text)
    health = get(f"{svc.url}/v1/health", timeout=60).json()
    assert health["analysis"]["recycled_after_deadline"] == 0


def test_job_id_with_a_trailing_newline_is_refused(svc: ServiceProcess) -> None:
    r = post(f"{svc.url}/v1/urls/check", json={"job": "news\n", "urls": ["https://a.example/"]}, headers=AUTH)
    assert r.status_code == 422 and r.json()["error"] == "invalid"


def test_non_http_request_gets_a_json_400(svc: ServiceProcess) -> None:
    with socket.create_connection(("127.0.0.1", svc.port), timeout=60) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nBad\x01Header: y\r\n\r\n")
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head
    assert b'"error": "bad_request"' in body


_HOLD_LOCK = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
con.execute("ROLLBACK")
"""


def test_sqlite_url_store_locked_by_another_process_answers_503_having_recorded_nothing(
    svc: ServiceProcess,
) -> None:
    """A crawler that sends a batch again after a 503 gets it answered "new": the 503 was sent
    only once the store call had given up and rolled back, so no late commit marks it seen."""
    urls = [f"https://locked.example/{i}" for i in range(5)]
    r = post(f"{svc.url}/v1/urls/check", json={"job": "warm", "urls": ["https://w.example/"]}, headers=AUTH)
    assert r.status_code == 200  # the SQLite file exists now
    for attempt in range(2):
        holder = subprocess.Popen(  # another process holding a write transaction on the store
            [sys.executable, "-c", textwrap.dedent(_HOLD_LOCK), str(svc.state / "urls.sqlite")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
            with ThreadPoolExecutor(2) as ex:
                check = ex.submit(
                    post,
                    f"{svc.url}/v1/urls/check",
                    json={"job": "locked", "urls": urls},
                    headers=AUTH,
                    timeout=60,
                )
                health = get(f"{svc.url}/v1/health", timeout=30)  # bounded by its probe
                r = check.result(timeout=60)
            assert r.status_code == 503 and r.json()["error"] == "store_unavailable", r.text
            assert health.status_code == 200
            assert health.json()["status"] == "degraded" and "locked" in health.json()["stores"]["urls"]
        finally:
            holder.communicate(b"", timeout=30)  # the lock is gone the moment the 503 is in
        # the retry, at once: new, as the first try would have been had the store been free
        r = post(f"{svc.url}/v1/urls/check", json={"job": "locked", "urls": urls}, headers=AUTH, timeout=60)
        # (the second round: the URLs the first retry recorded are seen, the 503 changed nothing)
        assert r.status_code == 200 and r.json()["seen"] == [attempt > 0] * 5, (attempt, r.text)


def test_slow_page_recycles_its_worker_and_sigstopped_redis_answers_503(
    tmp_path: Path, persistent_redis: object
) -> None:
    redis = persistent_redis  # a private redis-server: this test stops it
    (tmp_path / "token").write_text(TOKEN)
    extra = [
        *("--analysis-processes", "1", "--analysis-timeout", "2", "--max-html-depth", "0"),
        *("--store-timeout", "1"),
    ]
    with ServiceProcess(
        tmp_path / "state",
        tmp_path / "serve.log",
        token_file=tmp_path / "token",
        extra=extra,
        redis=redis.url,  # type: ignore[attr-defined]
    ) as svc:
        r = _ask_deep(svc.url)
        assert r.status_code == 503 and r.json()["error"] == "analysis_timeout", r.text
        health = get(f"{svc.url}/v1/health", timeout=60).json()
        assert health["analysis"]["recycled_after_deadline"] == 1
        r = post(
            f"{svc.url}/v1/documents/check",
            json={"url": "https://a.example/2", "html": page(2)},
            headers=AUTH,
        )
        assert r.status_code == 200 and r.json()["kind"] == "new"

        urls = [f"https://stopped.example/{i}" for i in range(3)]
        pid = redis.proc.pid  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGSTOP)
        try:
            r = post(f"{svc.url}/v1/urls/check", json={"job": "s", "urls": urls}, headers=AUTH, timeout=60)
            assert r.status_code == 503, r.text  # the store deadline answered
            health = get(f"{svc.url}/v1/health", timeout=60)
            assert health.status_code == 200  # health answers whatever the store does
            assert health.json()["status"] == "degraded"
            r = post(
                f"{svc.url}/v1/documents/check",
                json={"url": "https://a.example/3", "text": ARTICLE + "又一篇。"},
                headers=AUTH,
                timeout=60,
            )
            assert r.status_code == 503
            # the stalled state step holds the state lock now
            health = get(f"{svc.url}/v1/health", timeout=60)
            assert health.status_code == 200
            assert "busy" in health.json()["stores"]["contentseen"]
            r = get(f"{svc.url}/v1/documents/1/duplicates", timeout=60)
            assert r.status_code == 503
        finally:
            os.kill(pid, signal.SIGCONT)
        time.sleep(1.5)  # the stalled batch completes, then is forgotten again
        r = post(f"{svc.url}/v1/urls/check", json={"job": "s", "urls": urls}, headers=AUTH, timeout=60)
        assert r.status_code == 200 and r.json()["seen"] == [False] * 3, r.text
        assert get(f"{svc.url}/v1/health", timeout=60).json()["status"] == "ok"

        # SIGTERM while a page is stuck in analysis: the request ends at its deadline with a JSON
        # 503 and the server stops soon after (it took 43 s and answered 500 before)
        with ThreadPoolExecutor(1) as ex:
            stuck = ex.submit(
                post,
                f"{svc.url}/v1/documents/check",
                json={"url": "https://evil.example/deep2", "html": DEEP, "add": False},
                headers=AUTH,
                timeout=30,
            )
            time.sleep(0.5)
            t0 = time.monotonic()
            assert svc.stop() == 0
            stopped = time.monotonic() - t0
            r = stuck.result(timeout=30)
        assert r.status_code == 503 and r.json()["error"] == "analysis_timeout"
        assert stopped < 15, stopped
