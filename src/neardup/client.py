"""Python clients of the neardup service, for crawler workers (httpx; sync and async).

>>> from neardup.client import Client
>>> with Client("http://127.0.0.1:8000", token="...") as c:  # doctest: +SKIP
...     c.check_urls("news", ["https://example.com/a"])       # [False]: not seen before
...     c.check("https://example.com/a", html=page).kind       # 'new', 'exact', 'near', ...

``check`` takes what ``ContentSeen.check`` takes (``html`` as str or bytes, decoded here by the page's
declared or detected encoding; ``text``; ``add``; ``sync``) and returns the same ``Verdict``, so a
``Client`` is a ``ContentChecker`` as a ``ContentSeen`` is. As in httpx, ``BaseClient`` holds the
settings, builds every request (:class:`Call`) and reads every answer; ``Client`` and
``AsyncClient`` only send.

Errors come back as the exceptions of ``neardup.exceptions`` carrying the server's reason:
422/400 -> InvalidRequest (an InputError), 401/403 -> ServiceAuthError, 413 -> RequestTooLarge,
404 -> NotFound, 502/503/504 and network failures -> ServiceUnavailable (a StoreError), anything
else -> ServiceError.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import quote

from neardup._deps import require
from neardup.contentseen.checker import Html, page_input
from neardup.contentseen.verdict import Verdict
from neardup.exceptions import (
    InputError,
    InvalidRequest,
    NotFound,
    RequestTooLarge,
    ServiceAuthError,
    ServiceError,
    ServiceUnavailable,
)

__all__ = ["AsyncClient", "BaseClient", "Call", "Client"]

_API = "/v1"
_ERROR_CLASSES: dict[int, type[ServiceError]] = {
    400: InvalidRequest,
    401: ServiceAuthError,
    403: ServiceAuthError,
    404: NotFound,
    413: RequestTooLarge,
    422: InvalidRequest,
    502: ServiceUnavailable,
    503: ServiceUnavailable,
    504: ServiceUnavailable,
}


def _error_for(status: int, body: Any, method: str, url: str) -> ServiceError:
    code = detail = None
    if isinstance(body, dict):
        code = body.get("error")
        detail = body.get("detail")
    detail = str(detail if detail is not None else body)[:2000]
    msg = f"{method} {url} -> {status} {code or ''}: {detail}".replace("  ", " ")
    cls = _ERROR_CLASSES.get(status, ServiceError)
    return cls(msg, status=status, code=code, detail=detail, body=body)


class _ServiceVerdict(Verdict):
    """A ``Verdict`` that also answers ``v["kind"]`` and ``v.get("reasons")``, as a JSON dict does."""

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)


def _verdict(body: Any) -> Verdict:
    if not isinstance(body, dict) or "kind" not in body:
        raise ServiceError(f"the service answered a check with {str(body)[:200]!r}, not a verdict")
    return _ServiceVerdict.from_dict(body)


def _as_is(body: Any) -> Any:
    return body


@dataclass(frozen=True)
class Call:
    """One request to the service and how to read its answer's JSON body."""

    method: str
    path: str
    json: Any = None
    decode: Callable[[Any], Any] = _as_is


class BaseClient:
    """Settings, requests and answers shared by :class:`Client` and :class:`AsyncClient`.

    base_url: the service, e.g. ``http://127.0.0.1:8000``. token: the bearer token (writes need it
    when the service has one). timeout: seconds per request. transport: an httpx transport (tests
    pass ``httpx.ASGITransport(app)``). max_connections: the connection pool's size.
    """

    _http_class: ClassVar[str] = "Client"  # the httpx class the I/O shell sends with

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        transport: Any = None,
        max_connections: int = 16,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InputError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        if not timeout > 0:
            raise InputError(f"timeout must be > 0 seconds, got {timeout}")
        self._httpx = require("httpx", "service", purpose="the service client")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        headers = {"Accept": "application/json", "User-Agent": "neardup-client"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        limits = self._httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        self._client = getattr(self._httpx, self._http_class)(
            base_url=self.base_url, headers=headers, timeout=timeout, transport=transport, limits=limits
        )

    # -- requests ------------------------------------------------------------------------------
    @staticmethod
    def _check_call(
        url: str, html: str | bytes | None, text: str | None, add: bool, sync: bool, date: Any = None
    ) -> Call:
        """``POST /v1/documents/check``, its arguments validated as ``ContentSeen.check`` does."""
        page = page_input(url, html, text)
        if not isinstance(add, bool) or not isinstance(sync, bool):
            raise InputError(f"add and sync must be True or False, got add={add!r}, sync={sync!r}")
        body: dict[str, Any] = {"url": url, "add": add}
        if date is not None:
            # the service reads strings and numbers; a date or datetime travels as its ISO form
            body["date"] = date.isoformat() if isinstance(date, _dt.date) else date
        if page is not None:
            body["html"] = page
        if text is not None:
            body["text"] = text
        return Call("POST", f"{_API}/documents/check", body, _verdict)

    @staticmethod
    def _urls_call(job: str, urls: Sequence[str]) -> Call:
        return Call("POST", f"{_API}/urls/check", {"job": job, "urls": list(urls)}, lambda b: b["seen"])

    @staticmethod
    def _duplicates_call(doc_id: str | int) -> Call:
        return Call("GET", f"{_API}/documents/{quote(str(doc_id), safe='')}/duplicates")

    _health_call = Call("GET", f"{_API}/health")

    # -- answers -------------------------------------------------------------------------------
    @contextmanager
    def _transport_errors(self, call: Call) -> Iterator[None]:
        """Network failures and timeouts as ``ServiceUnavailable``."""
        where = f"{call.method} {self.base_url}{call.path}"
        try:
            yield
        except self._httpx.TimeoutException as exc:
            raise ServiceUnavailable(f"{where}: timed out ({exc})") from exc
        except self._httpx.TransportError as exc:
            raise ServiceUnavailable(f"{where}: cannot reach the service: {exc}") from exc

    def _answer(self, resp: Any, call: Call) -> Any:
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
        if resp.status_code >= 400:
            raise _error_for(resp.status_code, body, call.method, f"{self.base_url}{call.path}")
        return call.decode(body)


class Client(BaseClient):
    """A synchronous client; one per thread or shared (httpx.Client is thread-safe).

    >>> with Client("http://127.0.0.1:8000") as nd:  # doctest: +SKIP
    ...     nd.check("https://a.example/1", html=b"<html>...</html>").is_duplicate
    False
    """

    def _send(self, call: Call) -> Any:
        with self._transport_errors(call):
            resp = self._client.request(call.method, call.path, json=call.json)
        return self._answer(resp, call)

    def check_urls(self, job: str, urls: Sequence[str]) -> list[bool]:
        """For each URL, whether the job had seen it before (new ones are added)."""
        out: list[bool] = self._send(self._urls_call(job, urls))
        return out

    def check(
        self,
        url: str,
        html: Html = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
        date: Any = None,
    ) -> Verdict:
        """ContentSeen's verdict on a page, as ``ContentSeen.check`` gives it (the service commits
        each page before answering, so ``sync`` is accepted and needs no flush)."""
        out: Verdict = self._send(self._check_call(url, html, text, add, sync, date))
        return out

    def duplicates(self, doc_id: str | int) -> dict[str, Any]:
        """The document's duplicates and cluster."""
        out: dict[str, Any] = self._send(self._duplicates_call(doc_id))
        return out

    def health(self) -> dict[str, Any]:
        """The service's status and counts (``GET /v1/health``)."""
        out: dict[str, Any] = self._send(self._health_call)
        return out

    stats = health  # the ContentChecker's counts are the service's

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncClient(BaseClient):
    """The same API with ``await``: ``async with AsyncClient(url, token) as c: await c.check(...)``."""

    _http_class = "AsyncClient"

    async def _send(self, call: Call) -> Any:
        with self._transport_errors(call):
            resp = await self._client.request(call.method, call.path, json=call.json)
        return self._answer(resp, call)

    async def check_urls(self, job: str, urls: Sequence[str]) -> list[bool]:
        out: list[bool] = await self._send(self._urls_call(job, urls))
        return out

    async def check(
        self,
        url: str,
        html: Html = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
        date: Any = None,
    ) -> Verdict:
        out: Verdict = await self._send(self._check_call(url, html, text, add, sync, date))
        return out

    async def duplicates(self, doc_id: str | int) -> dict[str, Any]:
        out: dict[str, Any] = await self._send(self._duplicates_call(doc_id))
        return out

    async def health(self) -> dict[str, Any]:
        out: dict[str, Any] = await self._send(self._health_call)
        return out

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
