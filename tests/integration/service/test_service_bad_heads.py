"""A real ``neardup serve`` and request heads over the documented bound (``MAX_HEADER_BYTES``),
however they arrive: in one write (read whole by the server at once), in pieces whose last one
completes the head, or ahead of a body in the same write: a JSON 431, never a 200. Heads under the
bound are served, a body in the same write included."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator

import pytest
from service_proc import ServiceProcess

from neardup.service.protocols import MAX_HEADER_BYTES

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    d = tmp_path_factory.mktemp("heads")
    with ServiceProcess(d / "state", d / "serve.log", extra=["--analysis-processes", "0"]) as s:
        yield s


def _exchange(port: int, *parts: bytes) -> tuple[int, dict[str, object]]:
    """Send ``parts`` (a pause between two), read the answer until the server closes; its status
    and JSON body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # answered before all was sent
            for n, part in enumerate(parts):
                if n:
                    time.sleep(0.2)  # a read of its own on the server
                s.sendall(part)
        out = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def _get(filler: int) -> bytes:
    return (
        b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Fill: " + b"y" * filler + b"\r\n\r\n"
    )


def _post(payload: bytes, fill: int = 0) -> bytes:
    """A URL check request in one piece, its head padded with ``fill`` bytes of one header."""
    pad = b"X-Fill: " + b"y" * fill + b"\r\n" if fill else b""
    return (
        b"POST /v1/urls/check HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        + pad
        + b"Content-Length: "
        + str(len(payload)).encode()
        + b"\r\n\r\n"
        + payload
    )


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES + 1024, 100 * 1024, 200 * 1024])
def test_a_head_over_the_bound_in_one_write_gets_a_json_431(svc: ServiceProcess, size: int) -> None:
    status, body = _exchange(svc.port, _get(size))
    assert status == 431 and body["error"] == "headers_too_large", body
    assert str(MAX_HEADER_BYTES) in str(body["detail"])


def test_a_head_whose_last_piece_crosses_the_bound_gets_a_json_431(svc: ServiceProcess) -> None:
    head = _get(MAX_HEADER_BYTES + 4096)
    status, body = _exchange(svc.port, head[: MAX_HEADER_BYTES - 4096], head[MAX_HEADER_BYTES - 4096 :])
    assert status == 431 and body["error"] == "headers_too_large", body


def test_a_head_over_the_bound_ahead_of_its_body_gets_a_json_431(svc: ServiceProcess) -> None:
    payload = json.dumps({"job": "heads", "urls": ["https://a.example/big-head"]}).encode()
    status, body = _exchange(svc.port, _post(payload, fill=100 * 1024))
    assert status == 431 and body["error"] == "headers_too_large", body
    # the refused request reached no endpoint: the URL is new to the job
    status, body = _exchange(svc.port, _post(payload))
    assert status == 200 and body["seen"] == [False], body


def test_heads_under_the_bound_are_served_in_one_write_or_two(svc: ServiceProcess) -> None:
    head = _get(MAX_HEADER_BYTES - 1024)
    assert _exchange(svc.port, head)[0] == 200
    assert _exchange(svc.port, head[:1000], head[1000:])[0] == 200
    # a small head and a body far over the head's bound, in one write
    payload = json.dumps({"job": "heads", "urls": [f"https://a.example/{i}" + "x" * 2000 for i in range(50)]})
    status, body = _exchange(svc.port, _post(payload.encode()))
    assert status == 200 and len(body["seen"]) == 50, body  # type: ignore[arg-type]
