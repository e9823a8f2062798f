"""uvicorn's HTTP protocol with the service's JSON body on the 400 it sends itself.

A request that is not HTTP at all (a bad request line, a header with a control character) never
reaches the ASGI app: uvicorn's parser (httptools, or h11) answers it with a plain-text 400. This
protocol answers it in the service's shape instead: ``{"error": "bad_request", "detail": ...}``.

    uvicorn.Config(app, http=json_400_protocol())

>>> json_400_protocol().__name__
'JSON400Protocol'
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["json_400_protocol", "json_400_response"]


def json_400_response(why: str) -> bytes:
    """The bytes of a complete ``400`` answer with a JSON body, closing the connection."""
    body = json.dumps(
        {"error": "bad_request", "detail": f"the request is not valid HTTP/1.1 ({why}); it was not read"},
        ensure_ascii=True,
    ).encode("ascii")
    head = (
        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def json_400_protocol() -> type[asyncio.Protocol]:
    """uvicorn's default HTTP protocol class (httptools when installed, else h11), answering JSON."""
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # pragma: no cover - httptools is not installed
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class JSON400Protocol(base):  # type: ignore[misc]
        def send_400_response(self, msg: str) -> None:
            self.transport.write(json_400_response(msg.rstrip(".")))
            self.transport.close()

    return JSON400Protocol
