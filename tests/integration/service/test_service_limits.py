"""A real ``neardup serve`` out of file descriptors, under an oversized request head, with a Redis
URL carrying ``?prefix=``, and stopped with a page stuck in analysis: bounded JSON answers."""

from __future__ import annotations

import contextlib
import json
import resource
import signal
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import httpx
import pytest
from service_proc import ServiceProcess

from neardup.service.protocols import MAX_HEADER_BYTES

# a loaded machine may take seconds for a request: the tests are about answers, not speed
post = partial(httpx.post, timeout=60)
get = partial(httpx.get, timeout=60)

pytestmark = pytest.mark.timeout(900)

ARTICLE = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。今天发布的规划说明了治理的重点。" * 3


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    d = tmp_path_factory.mktemp("limits")
    with ServiceProcess(d / "state", d / "serve.log", extra=["--analysis-processes", "1"]) as s:
        yield s


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # answered before all was sent
            s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
    return out


def test_an_oversized_request_head_gets_a_json_431(svc: ServiceProcess) -> None:
    big = b"x" * (8 * 1024 * 1024)
    out = _raw(svc.port, b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + big + b"\r\n\r\n")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431"), out[:200]
    assert json.loads(body)["error"] == "headers_too_large"
    # a head under the bound, and a large body after a small head, are served
    ok = {"X-Fill": "y" * (MAX_HEADER_BYTES // 2)}
    assert get(f"{svc.url}/v1/health", headers=ok, timeout=30).status_code == 200
    r = post(
        f"{svc.url}/v1/documents/check",
        json={"url": "https://a.example/big", "text": ARTICLE * 200, "add": False},
        timeout=60,
    )
    assert r.status_code == 200, r.text


def test_out_of_file_descriptors_answers_503_not_500(svc: ServiceProcess) -> None:
    assert svc.proc is not None
    pid = svc.proc.pid
    with httpx.Client(base_url=svc.url, timeout=30) as client:
        assert client.get("/v1/health").status_code == 200  # the connection stays open
        soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        in_use = len(list(Path(f"/proc/{pid}/fd").iterdir()))
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (in_use, hard))  # no descriptor left
        try:
            answers = [
                client.post("/v1/urls/check", json={"job": f"fd-{i}", "urls": ["https://a.example/"]})
                for i in range(3)
            ]
            answers.append(
                client.post("/v1/documents/check", json={"url": "https://a.example/d", "text": ARTICLE})
            )
            answers.append(client.get("/v1/health"))
        finally:
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
    for r in answers:
        assert r.status_code in (200, 503), (r.status_code, r.text)
        assert "error" in r.json() or r.status_code == 200
    assert any(r.status_code == 503 for r in answers[:3]), [r.text for r in answers]
    # and once descriptors are back, the same requests succeed
    r = post(f"{svc.url}/v1/urls/check", json={"job": "fd-0", "urls": ["https://a.example/"]}, timeout=30)
    assert r.status_code == 200 and r.json()["seen"] == [False], r.text


def test_health_is_ok_with_a_redis_prefix(tmp_path: Path, redis_url: str) -> None:
    url = redis_url + ("&" if "?" in redis_url else "?") + "prefix=crawl"
    with ServiceProcess(
        tmp_path / "state", tmp_path / "serve.log", redis=url, extra=["--analysis-processes", "0"]
    ) as s:
        r = post(f"{s.url}/v1/urls/check", json={"job": "j", "urls": ["https://a.example/"]}, timeout=30)
        assert r.status_code == 200
        health = get(f"{s.url}/v1/health", timeout=30).json()
        assert health["status"] == "ok" and health["stores"]["urls"] == "ok", health


def test_sigterm_with_a_page_stuck_in_analysis_stops_within_15_s(tmp_path: Path) -> None:
    # the default analysis deadline (20 s) is longer than the stop may take
    deep = "<html><body>" + "<div>" * 90_000 + ARTICLE + "</div>" * 90_000 + "</body></html>"
    extra = ["--analysis-processes", "1", "--max-html-depth", "0"]
    s = ServiceProcess(tmp_path / "state", tmp_path / "serve.log", extra=extra)
    with s, ThreadPoolExecutor(1) as ex:
        stuck = ex.submit(
            post,
            f"{s.url}/v1/documents/check",
            json={"url": "https://evil.example/deep", "html": deep, "add": False},
            timeout=60,
        )
        for _ in range(600):  # bounded: until the page is in its worker
            if get(f"{s.url}/v1/health", timeout=30).json()["analysis"]["busy"] == 1:
                break
            time.sleep(0.1)
        t0 = time.monotonic()
        assert s.stop(sig=signal.SIGTERM) == 0
        stopped = time.monotonic() - t0
        with contextlib.suppress(httpx.TransportError):  # closed at shutdown: the client sends again
            stuck.result(timeout=60)
    assert stopped < 15, stopped  # the documented bound: 8 s of grace, then the worker is killed
