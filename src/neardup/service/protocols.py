"""uvicorn's HTTP protocol with the service's JSON body on the 400 it sends itself, and a bound
on the size of a request's head.

A request that is not HTTP at all (a bad request line, a header with a control character) never
reaches the ASGI app: uvicorn's parser (httptools, or h11) answers it with a plain-text 400. This
protocol answers it in the service's shape instead: ``{"error": "bad_request", "detail": ...}``.
httptools takes request heads of any size (an 8 MB header was read whole); past
:data:`MAX_HEADER_BYTES` (request line and headers), whether the head arrives in one read or in
many, this protocol answers ``431`` with a JSON body and closes the connection, before the ASGI app
sees the request.

    uvicorn.Config(app, http=json_400_protocol())

>>> json_400_protocol().__name__
'JSON400Protocol'
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["MAX_HEADER_BYTES", "json_400_protocol", "json_400_response", "json_error_response"]

MAX_HEADER_BYTES = 64 * 1024  # request line and headers; browsers and crawlers send under 8 KB


def json_error_response(status: str, code: str, detail: str) -> bytes:
    """The bytes of a complete answer (``status``: "400 Bad Request") with a JSON body, closing
    the connection."""
    body = json.dumps({"error": code, "detail": detail}, ensure_ascii=True).encode("ascii")
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def json_400_response(why: str) -> bytes:
    """The bytes of a complete ``400`` answer with a JSON body, closing the connection."""
    return json_error_response(
        "400 Bad Request", "bad_request", f"the request is not valid HTTP/1.1 ({why}); it was not read"
    )


def json_400_protocol() -> type[asyncio.Protocol]:
    """uvicorn's default HTTP protocol class (httptools when installed, else h11), answering JSON."""
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # pragma: no cover - httptools is not installed
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

        class H11JSON400Protocol(base):  # type: ignore[misc]  # h11 bounds heads itself (16 KB)
            def send_400_response(self, msg: str) -> None:
                self.transport.write(json_400_response(msg.rstrip(".")))
                self.transport.close()

        H11JSON400Protocol.__name__ = "JSON400Protocol"
        return H11JSON400Protocol

    class JSON400Protocol(base):  # type: ignore[misc]
        _in_body = False  # the head of the current request is complete
        _head_bytes = 0  # bytes received since the current request's head began
        _head_parsed = 0  # bytes of the current request's target and headers, as parsed
        _refused = False  # a 431 was sent: the rest of the connection is ignored

        def send_400_response(self, msg: str) -> None:
            self.transport.write(json_400_response(msg.rstrip(".")))
            self.transport.close()

        def _refuse_head(self) -> None:
            self._refused = True
            self.transport.write(
                json_error_response(
                    "431 Request Header Fields Too Large",
                    "headers_too_large",
                    f"the request line and headers are over {MAX_HEADER_BYTES} bytes; it was not read",
                )
            )
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            if not self._in_body:
                self._head_bytes += len(data)
            super().data_received(data)
            # a head still arriving: refused before httptools buffers all of it
            if not self._in_body and self._head_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
                self._refuse_head()

        def on_message_begin(self) -> None:
            self._head_parsed = 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._head_parsed += len(url)
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._head_parsed += len(name) + len(value) + 4  # ": " and CRLF
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            if self._refused:
                return
            # a head that arrived whole in one read never reaches the check in data_received
            if self._head_parsed > MAX_HEADER_BYTES:
                self._refuse_head()
                return
            self._in_body = True
            self._head_bytes = 0
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if not self._refused:
                super().on_body(body)

        def on_message_complete(self) -> None:
            self._in_body = False
            if not self._refused:
                super().on_message_complete()

    return JSON400Protocol
