"""Python clients of the neardup service, for crawler workers (httpx; sync and async).

>>> from neardup.client import Client
>>> with Client("http://127.0.0.1:8000", token="...") as c:  # doctest: +SKIP
...     c.check_urls("news", ["https://example.com/a"])       # [False]: not seen before
...     c.check("https://example.com/a", html=page).kind       # 'new', 'exact', 'near', ...

``check`` takes what ``ContentSeen.check`` takes (``html`` as str or bytes, decoded here by the page's
declared or detected encoding; ``text``; ``add``; ``sync``) and returns the same ``Verdict``.
``BaseClient`` holds the settings and builds requests and answers; ``Client`` and ``AsyncClient``
differ only in I/O.

Errors come back as neardup exceptions carrying the server's reason: 422/400 -> InputError,
401/403 -> ServiceAuthError, 413 -> RequestTooLarge, 404 -> NotFound, 503 and network failures ->
ServiceUnavailable (a StoreError), anything else -> ServiceError.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any
from urllib.parse import quote

from neardup._deps import require
from neardup.contentseen.verdict import Verdict
from neardup.exceptions import InputError, NeardupError, StoreError

__all__ = [
    "AsyncClient",
    "BaseClient",
    "Client",
    "NotFound",
    "RequestTooLarge",
    "ServiceAuthError",
    "ServiceError",
    "ServiceUnavailable",
]

_API = "/v1"


class ServiceError(NeardupError):
    """The service answered with an error; ``status``, ``code`` and ``detail`` say which."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        detail: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.detail = detail
        self.body = body


class ServiceAuthError(ServiceError):
    """401/403: the bearer token is missing or wrong."""


class NotFound(ServiceError):
    """404: no such document or endpoint."""


class RequestTooLarge(ServiceError, InputError):
    """413: the body or the batch is over the service's limit."""


class ServiceUnavailable(ServiceError, StoreError):
    """The service cannot be reached, timed out, or its store failed (503)."""


class _InvalidRequest(ServiceError, InputError):
    """400/422: the service refused the input; the message says what is wrong."""


def _error_for(status: int, body: Any, method: str, url: str) -> ServiceError:
    code = detail = None
    if isinstance(body, dict):
        code = body.get("error")
        detail = body.get("detail")
    detail = str(detail if detail is not None else body)[:2000]
    msg = f"{method} {url} -> {status} {code or ''}: {detail}".replace("  ", " ")
    cls: type[ServiceError]
    if status in (401, 403):
        cls = ServiceAuthError
    elif status == 404:
        cls = NotFound
    elif status == 413:
        cls = RequestTooLarge
    elif status in (400, 422):
        cls = _InvalidRequest
    elif status in (502, 503, 504):
        cls = ServiceUnavailable
    else:
        cls = ServiceError
    return cls(msg, status=status, code=code, detail=detail, body=body)


def _check_args(timeout: float, base_url: str) -> None:
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise InputError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
    if not timeout > 0:
        raise InputError(f"timeout must be > 0 seconds, got {timeout}")


def _headers(token: str | None) -> dict[str, str]:
    h = {"Accept": "application/json", "User-Agent": "neardup-client"}
    if token:
        h["Authorization"] = f"Bearer {token}"
    return h


class _ServiceVerdict(Verdict):
    """A ``Verdict`` that also answers ``v["kind"]`` and ``v.get("reasons")``, as the dicts earlier
    clients returned did."""

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)


class BaseClient:
    """Settings, request bodies and answers shared by :class:`Client` and :class:`AsyncClient`."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        transport: Any = None,
        max_connections: int = 16,
    ) -> None:
        _check_args(timeout, base_url)
        self._httpx = require("httpx", "service", purpose="the service client")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._options: dict[str, Any] = {
            "base_url": self.base_url,
            "headers": _headers(token),
            "timeout": timeout,
            "transport": transport,
            "limits": self._httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        }

    @staticmethod
    def _check_body(
        url: str, html: str | bytes | None, text: str | None, add: bool, sync: bool
    ) -> dict[str, Any]:
        """The request body of ``check``, validated like ``ContentSeen.check`` (bytes HTML decoded)."""
        if not isinstance(url, str):
            raise InputError(f"url must be a string, got {type(url).__name__}")
        if html is None and text is None:
            raise InputError("check() needs html= or text=, got neither")
        if html is not None and not isinstance(html, (str, bytes)):
            raise InputError(f"html must be str or bytes, got {type(html).__name__}")
        if text is not None and not isinstance(text, str):
            raise InputError(f"text must be a string, got {type(text).__name__}")
        if not isinstance(add, bool) or not isinstance(sync, bool):
            raise InputError(f"add and sync must be True or False, got add={add!r}, sync={sync!r}")
        body: dict[str, Any] = {"url": url, "add": add}
        if isinstance(html, bytes):
            from neardup.contentseen.extract import decode_html

            html = decode_html(html)
        if html is not None:
            body["html"] = html
        if text is not None:
            body["text"] = text
        return body

    @staticmethod
    def _verdict(body: Any) -> Verdict:
        if not isinstance(body, dict) or "kind" not in body:
            raise ServiceError(f"the service answered a check with {str(body)[:200]!r}, not a verdict")
        return _ServiceVerdict.from_dict(body)

    def _transport_error(self, exc: Exception, method: str, path: str) -> ServiceUnavailable:
        if isinstance(exc, self._httpx.TimeoutException):
            return ServiceUnavailable(f"{method} {self.base_url}{path}: timed out ({exc})")
        return ServiceUnavailable(f"{method} {self.base_url}{path}: cannot reach the service: {exc}")

    def _answer(self, resp: Any, method: str, path: str) -> Any:
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
        if resp.status_code >= 400:
            raise _error_for(resp.status_code, body, method, f"{self.base_url}{path}")
        return body

    @staticmethod
    def _urls_body(job: str, urls: Sequence[str]) -> dict[str, Any]:
        return {"job": job, "urls": list(urls)}

    @staticmethod
    def _duplicates_path(doc_id: str | int) -> str:
        return f"{_API}/documents/{quote(str(doc_id), safe='')}/duplicates"


class Client(BaseClient):
    """A synchronous client; one per thread or shared (httpx.Client is thread-safe).

    base_url: the service, e.g. ``http://127.0.0.1:8000``. token: the bearer token (writes need it when
    the service has one). timeout: seconds per request. transport: an httpx transport (tests pass
    ``httpx.ASGITransport(app)``).
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        transport: Any = None,
        max_connections: int = 16,
    ) -> None:
        super().__init__(base_url, token, timeout, transport=transport, max_connections=max_connections)
        self._client = self._httpx.Client(**self._options)

    def _request(self, method: str, path: str, json: Any = None) -> Any:
        try:
            resp = self._client.request(method, path, json=json)
        except self._httpx.TransportError as exc:
            raise self._transport_error(exc, method, path) from exc
        return self._answer(resp, method, path)

    def check_urls(self, job: str, urls: Sequence[str]) -> list[bool]:
        """For each URL, whether the job had seen it before (new ones are added)."""
        out: list[bool] = self._request("POST", f"{_API}/urls/check", self._urls_body(job, urls))["seen"]
        return out

    def check(
        self,
        url: str,
        html: str | bytes | None = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
    ) -> Verdict:
        """ContentSeen's verdict on a page, as ``ContentSeen.check`` gives it (the service commits
        each page before answering, so ``sync`` is accepted and needs no flush).

        >>> with Client("http://127.0.0.1:8000") as nd:  # doctest: +SKIP
        ...     nd.check("https://a.example/1", html=b"<html>...</html>").is_duplicate
        False
        """
        body = self._check_body(url, html, text, add, sync)
        return self._verdict(self._request("POST", f"{_API}/documents/check", body))

    def duplicates(self, doc_id: str | int) -> dict[str, Any]:
        """The document's duplicates and cluster."""
        out: dict[str, Any] = self._request("GET", self._duplicates_path(doc_id))
        return out

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = self._request("GET", f"{_API}/health")
        return out

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

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        transport: Any = None,
        max_connections: int = 16,
    ) -> None:
        super().__init__(base_url, token, timeout, transport=transport, max_connections=max_connections)
        self._client = self._httpx.AsyncClient(**self._options)

    async def _request(self, method: str, path: str, json: Any = None) -> Any:
        try:
            resp = await self._client.request(method, path, json=json)
        except self._httpx.TransportError as exc:
            raise self._transport_error(exc, method, path) from exc
        return self._answer(resp, method, path)

    async def check_urls(self, job: str, urls: Sequence[str]) -> list[bool]:
        out: list[bool] = (await self._request("POST", f"{_API}/urls/check", self._urls_body(job, urls)))[
            "seen"
        ]
        return out

    async def check(
        self,
        url: str,
        html: str | bytes | None = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
    ) -> Verdict:
        body = self._check_body(url, html, text, add, sync)
        return self._verdict(await self._request("POST", f"{_API}/documents/check", body))

    async def duplicates(self, doc_id: str | int) -> dict[str, Any]:
        out: dict[str, Any] = await self._request("GET", self._duplicates_path(doc_id))
        return out

    async def health(self) -> dict[str, Any]:
        out: dict[str, Any] = await self._request("GET", f"{_API}/health")
        return out

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
