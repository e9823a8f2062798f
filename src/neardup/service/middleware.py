"""The ASGI layer in front of FastAPI: auth, body limits and metrics for every request, and the
fast path for the hot endpoints.

In order, for each HTTP request: the bearer token of every POST under ``/v1`` (before the body is
read: an anonymous caller learns nothing from the body's validation), the declared
``Content-Length``, then the body itself read up to the limit (so chunked uploads are capped
too), then a JSON body's NaN, Infinity and -Infinity (not JSON, yet both parsers behind the
service read them as numbers: refused as ``invalid_json`` whatever the route). A refused request
is answered here with ``{"error", "detail"}`` JSON and never reaches a route. An admitted JSON
request to a route with a body model (``handlers.ROUTES``) is served by the fast path:
pydantic-core parses and validates the body in one step and the same handler as the FastAPI route
runs; that saves FastAPI's per-request dependency solving (about 0.7 ms of CPU of the
0.9 ms a one-URL check cost through FastAPI). Everything else goes on to FastAPI, whose routes also
define the OpenAPI schema.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pydantic import BaseModel

from neardup.exceptions import ApiError
from neardup.service.auth import check_bearer
from neardup.service.handlers import API_PREFIX
from neardup.service.metrics import ServiceMetrics
from neardup.service.models import non_finite_number
from neardup.service.responses import as_api_error, dumps, error_bytes

__all__ = ["FastRoute", "Guard"]

Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
FastRoute = tuple[type[BaseModel], Callable[[Any], Awaitable[Any]]]


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


def _headers(scope: Scope) -> tuple[int | None, bytes, str | None]:
    """Content-Length (-1 when not a number), Content-Type and Authorization of a request."""
    declared: int | None = None
    content_type = b""
    authorization: str | None = None
    for key, value in scope["headers"]:
        if key == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                declared = -1
        elif key == b"content-type":
            content_type = value
        elif key == b"authorization":
            authorization = value.decode("latin-1")
    return declared, content_type, authorization


def _non_finite(body: bytes) -> ApiError | None:
    """The 400 for a JSON body holding NaN, Infinity or -Infinity, or None."""
    where = non_finite_number(body)
    if where is None:
        return None
    return ApiError(
        400,
        "invalid_json",
        f"the body is not valid JSON: {where}; NaN, Infinity and -Infinity are not JSON numbers: "
        "send finite numbers (null where there is no value)",
    )


async def _respond(send: Send, status: int, body: bytes, headers: dict[str, str], close: bool) -> None:
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        raw.append((b"connection", b"close"))
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The middleware: ``app.add_middleware(Guard, metrics=..., max_body=..., fast=..., token=...)``."""

    def __init__(
        self,
        app: ASGIApp,
        metrics: ServiceMetrics,
        max_body: int,
        fast: dict[tuple[str, str], FastRoute] | None = None,
        token: str | None = None,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body = max_body
        self.fast = fast or {}
        self.token = token
        self.too_large = ApiError(
            413,
            "too_large",
            f"the request body is over the limit of {max_body} bytes; send smaller batches or pages",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        declared, content_type, authorization = _headers(scope)
        refusal = self._admit(scope["method"], scope["path"], declared, authorization)
        if refusal is not None:
            await self._refuse(scope, send, *refusal)
            return
        body = await self._read_body(scope, receive, send)
        if body is None:
            return
        m = self.metrics
        fast = self.fast.get((scope["method"], scope["path"]))
        fast = fast if fast is not None and _is_json(content_type) else None
        status = [500]
        m.in_flight.inc()
        try:
            bad = _non_finite(body) if _is_json(content_type) else None
            if bad is not None:
                status[0] = bad.status
                await _respond(send, bad.status, error_bytes(bad), {}, close=False)
            elif fast is not None:
                status[0] = await self._serve_fast(fast, scope, body, send)
            else:
                await self._pass_on(scope, body, receive, send, status)
        finally:
            m.in_flight.dec()
            route = scope["path"] if fast is not None else getattr(scope.get("route"), "path", None)
            m.observe(scope["method"], route or "other", status[0], time.perf_counter() - start)

    def _admit(
        self, method: str, path: str, declared: int | None, authorization: str | None
    ) -> tuple[ApiError, str] | None:
        """The refusal (and its metrics reason) of a request by its head, or None to read on."""
        if self.token is not None and method == "POST" and path.startswith(API_PREFIX):
            try:
                check_bearer(authorization, self.token)
            except ApiError as denied:
                return denied, "unauthorized"
        if declared is not None and declared > self.max_body:
            return self.too_large, "too_large"
        if declared is not None and declared < 0:
            return ApiError(400, "bad_request", "Content-Length is not a number"), "bad_length"
        return None

    async def _refuse(self, scope: Scope, send: Send, err: ApiError, reason: str) -> None:
        self.metrics.rejected.labels(reason=reason).inc()
        await _respond(send, err.status, error_bytes(err), err.headers, close=True)
        self.metrics.requests.labels(method=scope["method"], route="other", status=str(err.status)).inc()

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole body (FastAPI would read it anyway), or None when it was refused or the
        client went away."""
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            return b""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._refuse(scope, send, self.too_large, "too_large")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _serve_fast(self, route: FastRoute, scope: Scope, body: bytes, send: Send) -> int:
        model, handler = route
        try:
            payload = dumps(await handler(model.model_validate_json(body, strict=True)))
            status, headers = 200, {}
        except Exception as exc:
            err = as_api_error(exc, f"{scope['method']} {scope['path']}")
            payload, status, headers = error_bytes(err), err.status, err.headers
        await _respond(send, status, payload, headers, close=False)
        return status

    async def _pass_on(
        self, scope: Scope, body: bytes, receive: Receive, send: Send, status: list[int]
    ) -> None:
        """FastAPI serves the request, its body replayed; ``status[0]`` gets the answer's status."""
        replay: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay_receive() -> Message:
            return replay.pop() if replay else await receive()

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        await self.app(scope, replay_receive, counting_send)
