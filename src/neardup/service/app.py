"""The neardup HTTP service: an ASGI app built by ``create_app(settings)``.

    uvicorn --factory 'neardup.service.app:app_from_env'     # or: neardup serve --state DIR

Endpoints (JSON, versioned under /v1; see docs/service.md):

    GET  /healthz, /v1/health              liveness and a few counts
    GET  /metrics                          Prometheus exposition (registry private to this app)
    POST /v1/urls/check                    {job, urls[]} -> which URLs the job has seen (adds them)
    POST /v1/documents/check               {url, html|text, add} -> ContentSeen verdict
    GET  /v1/documents/{doc_id}/duplicates the document's duplicates and cluster
    GET  /openapi.json, /docs              the schema

Every POST (URL checks, document checks, add=false included: a check costs the same CPU whether
or not it writes) needs ``Authorization: Bearer <token>`` when a token is configured, and the token
is checked before the body is read. Bad input always gets a 4xx JSON answer ``{"error": code,
"detail": why}``.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Annotated, Any
from urllib.parse import urlsplit

import orjson
from fastapi import FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup._version import __version__
from neardup.exceptions import (
    ConfigError,
    FormatError,
    InputError,
    MissingDependency,
    NeardupError,
    StoreError,
)
from neardup.service.auth import ApiError, check_bearer
from neardup.service.backend import Backend, StateBackend
from neardup.service.metrics import ServiceMetrics
from neardup.service.pool import AnalysisTimeout
from neardup.service.settings import ServiceSettings, default_analysis_processes

__all__ = ["API_PREFIX", "create_app"]

log = logging.getLogger("neardup.service")

API_PREFIX = "/v1"
JOB_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_BAD_URL_CHARS = re.compile(r"[\s\x00-\x1f\x7f\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]


def _url_problem(url: str, max_chars: int) -> str | None:
    """Why ``url`` cannot be checked, or None when it can."""
    if not url or len(url) > max_chars:
        return f"expected 1..{max_chars} characters, got {len(url)}"
    if _BAD_URL_CHARS.search(url):
        return "contains whitespace, control characters or lone surrogates"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"cannot be parsed: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"expected an http:// or https:// URL, got scheme {parts.scheme!r}"
    if not parts.hostname:
        return "has no host"
    return None


# -- request and response bodies ---------------------------------------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class URLBatch(_Strict):
    """URLs to check against (and add to) the seen-store of one crawl job."""

    job: StrictStr = Field(
        description="crawl job id: letters, digits, . _ -; up to 128 characters", examples=["news-2026-11"]
    )
    urls: list[StrictStr] = Field(
        description="URLs to check; each is added to the job's store",
        examples=[["https://example.com/a?utm_source=x", "https://example.com/b"]],
    )

    @field_validator("job")
    @classmethod
    def _job_ok(cls, v: str) -> str:
        if not JOB_RE.fullmatch(v):  # fullmatch: "$" would let a trailing newline through
            raise ValueError(f"job must match {JOB_RE.pattern} (letters, digits, '.', '_', '-'), got {v!r}")
        return v


class URLResults(BaseModel):
    job: str
    seen: list[bool] = Field(description="one per URL, in order: true when the job had seen it before")
    new: int = Field(description="how many URLs were new")


class DocumentCheck(_Strict):
    """A fetched page (HTML, main text extracted) or its text, to check and optionally add."""

    url: StrictStr = Field(examples=["https://example.com/news/1.html"])
    html: StrictStr | None = Field(default=None, description="the page's HTML")
    text: StrictStr | None = Field(default=None, description="the document's text, when there is no HTML")
    add: StrictBool = Field(default=True, description="false only asks; true also remembers the document")

    @field_validator("html", "text")
    @classmethod
    def _valid_unicode(cls, v: str | None) -> str | None:
        # JSON allows "\ud800" escapes, which are not Unicode text and could not be answered back;
        # encoding finds them faster than a regex over a page, the regex then says where
        if v is None:
            return v
        try:
            v.encode("utf-8")
            return v
        except UnicodeEncodeError:
            m = _SURROGATE.search(v)
        if m is not None:
            raise ValueError(
                f"contains a lone surrogate {m.group()!r} at character {m.start()}: send valid Unicode"
            )
        return v

    @model_validator(mode="after")
    def _has_content(self) -> DocumentCheck:
        if self.html is None and self.text is None:
            raise ValueError("send the page as 'html' or its text as 'text'; got neither")
        return self


class Verdict(BaseModel):
    """ContentSeen's verdict (more fields may be present)."""

    model_config = ConfigDict(extra="allow")
    kind: str = Field(description="new, exact, content, near, layout or partial")
    doc_id: Any = None
    duplicate_of: Any = None
    distance: int | None = None
    similar_id: Any = None
    reasons: Any = None


class ErrorBody(BaseModel):
    error: str = Field(description="a short code: invalid_json, invalid, too_large, unauthorized, ...")
    detail: str = Field(description="what is wrong and how to fix it")
    errors: list[dict[str, Any]] | None = None


_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 404, 413, 422, 503)
}


# -- responses and error conversion (shared by the FastAPI routes and the fast path) ----------------
def _jsonable(obj: Any) -> Any:
    """orjson fallback: numpy scalars and arrays, sets, paths."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return str(obj)


def _dumps(content: Any) -> bytes:
    return orjson.dumps(content, default=_jsonable)


class _FastJSON(JSONResponse):
    """Answers rendered by orjson (inputs are checked to be valid Unicode, so this cannot fail on them)."""

    def render(self, content: Any) -> bytes:
        return _dumps(content)


class _ErrorJSON(JSONResponse):
    """Errors are rendered ASCII-only: they may quote user input, which may hold lone surrogates."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(p) for p in loc)


def _validation_error(errors: list[Any], prefix: tuple[str, ...] = ()) -> ApiError:
    """A 400 (not JSON) or 422 (not the expected shape) from pydantic/FastAPI error dicts."""
    bad_json = [e for e in errors if e.get("type") == "json_invalid"]
    if bad_json:
        first = bad_json[0]
        why = (first.get("ctx") or {}).get("error") or first.get("msg", "")
        where = _loc(first.get("loc", ()))
        return ApiError(
            400, "invalid_json", f"the body is not valid JSON: {why}" + (f" at {where}" if where else "")
        )
    slim = [
        {"loc": _loc((*prefix, *e.get("loc", ()))), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in errors[:20]
    ]
    head = slim[0] if slim else {"loc": "body", "msg": "invalid"}
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ApiError(422, "invalid", f"{head['loc']}: {head['msg']}{more}", extra={"errors": slim})


def _as_api_error(exc: BaseException, where: str) -> ApiError:
    """The answer for an exception raised while serving ``where``; bugs are logged with their traceback."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ValidationError):
        return _validation_error(list(exc.errors()), ("body",))
    if isinstance(exc, InputError | ConfigError):
        return ApiError(422, "invalid", str(exc))
    if isinstance(exc, AnalysisTimeout):
        return ApiError(503, "analysis_timeout", str(exc), headers={"Retry-After": "1"})
    if isinstance(exc, StoreError):
        log.error("store failure on %s: %s", where, exc)
        return ApiError(503, "store_unavailable", str(exc), headers={"Retry-After": "1"})
    if isinstance(exc, MissingDependency):
        return ApiError(501, "missing_dependency", str(exc))
    if isinstance(exc, FormatError):
        log.error("state damaged: %s", exc)
        return ApiError(500, "state_damaged", str(exc))
    if isinstance(exc, NeardupError):
        return ApiError(400, "bad_request", str(exc))
    if isinstance(exc, NotImplementedError):
        return ApiError(501, "not_implemented", str(exc) or "not implemented by this server")
    # a bug, not bad input: log it with its traceback, answer without one
    log.error("unhandled error on %s", where, exc_info=exc)
    return ApiError(500, "internal", "internal error; the server log has the details")


def _error_response(err: ApiError) -> JSONResponse:
    return _ErrorJSON(err.body(), status_code=err.status, headers=err.headers or None)


# -- the body-size guard and request metrics ---------------------------------------------------
_FastHandler = Callable[[Any, "str | None"], "dict[str, Any] | Awaitable[dict[str, Any]]"]
_FastRoute = tuple[type[BaseModel], _FastHandler]


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


class _Guard:
    """The ASGI layer before FastAPI's routing: refuses bodies over the limit (413), counts every
    request, and serves the two hot endpoints itself (the fast path).

    The fast path parses and validates a JSON body with pydantic-core in one step and calls the
    same endpoint function as the FastAPI route; it saves FastAPI's per-request dependency solving
    (about 0.7 ms of CPU of the 0.9 ms a one-URL check cost through FastAPI here). Anything it does
    not take (another content type) goes to FastAPI, whose routes also define the OpenAPI schema.
    """

    def __init__(
        self,
        app: ASGIApp,
        metrics: ServiceMetrics,
        max_body: int,
        fast: dict[tuple[str, str], _FastRoute] | None = None,
        token: str | None = None,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body = max_body
        self.fast = fast or {}
        self.token = token

    async def _serve_fast(
        self,
        route: _FastRoute,
        scope: MutableMapping[str, Any],
        body: bytes,
        authorization: str | None,
        send: Callable[[Message], Awaitable[None]],
    ) -> int:
        model, handler = route
        try:
            result = handler(model.model_validate_json(body, strict=True), authorization)
            if inspect.isawaitable(result):
                result = await result
            payload = _dumps(result)
            status, ctype, extra_headers = 200, b"application/json", {}
        except Exception as exc:
            err = _as_api_error(exc, f"{scope['method']} {scope['path']}")
            payload = bytes(_ErrorJSON(err.body()).body)
            status, ctype, extra_headers = err.status, b"application/json", err.headers
        headers = [(b"content-type", ctype), (b"content-length", str(len(payload)).encode())]
        headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra_headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})
        return status

    async def _refuse(self, send: Callable[[Message], Awaitable[None]], err: ApiError) -> None:
        body = _ErrorJSON(err.body()).body
        await send(
            {
                "type": "http.response.start",
                "status": err.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    *((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in err.headers.items()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        m = self.metrics
        start = time.perf_counter()
        status = [500]
        too_large = ApiError(
            413,
            "too_large",
            f"the request body is over the limit of {self.max_body} bytes; send smaller batches or pages",
        )
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
        if self.token is not None and scope["method"] == "POST" and scope["path"].startswith(API_PREFIX):
            # who asks comes first: an anonymous caller learns nothing from the body's validation
            try:
                check_bearer(authorization, self.token)
            except ApiError as denied:
                m.rejected.labels(reason="unauthorized").inc()
                await self._refuse(send, denied)
                m.requests.labels(method=scope["method"], route="other", status="401").inc()
                return
        if declared is not None and (declared < 0 or declared > self.max_body):
            m.rejected.labels(reason="too_large" if declared > 0 else "bad_length").inc()
            err = (
                too_large if declared > 0 else ApiError(400, "bad_request", "Content-Length is not a number")
            )
            await self._refuse(send, err)
            m.requests.labels(method=scope["method"], route="other", status=str(err.status)).inc()
            return

        # read the whole body up front (FastAPI would anyway) so chunked uploads are capped too
        chunks: list[bytes] = []
        size = 0
        if scope["method"] in ("POST", "PUT", "PATCH"):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    m.rejected.labels(reason="too_large").inc()
                    await self._refuse(send, too_large)
                    m.requests.labels(method=scope["method"], route="other", status="413").inc()
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        body = b"".join(chunks)
        fast = self.fast.get((scope["method"], scope["path"])) if self.fast else None
        if fast is not None and _is_json(content_type):
            m.in_flight.inc()
            code = 500
            try:
                code = await self._serve_fast(fast, scope, body, authorization, send)
            finally:
                m.in_flight.dec()
                m.observe(scope["method"], scope["path"], code, time.perf_counter() - start)
            return
        replay = {"type": "http.request", "body": body, "more_body": False}
        replayed = False

        async def replay_receive() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return replay
            return await receive()

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        m.in_flight.inc()
        try:
            await self.app(scope, replay_receive, counting_send)
        finally:
            m.in_flight.dec()
            route = scope.get("route")
            label = getattr(route, "path", None) or "other"
            m.observe(scope["method"], label, status[0], time.perf_counter() - start)


# -- error handlers of the FastAPI routes ----------------------------------------------------------
def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error_response(_validation_error(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no such endpoint: {request.method} {request.url.path}; see /openapi.json"
        if exc.status_code == 400 and "parsing the body" in detail:
            return _error_response(
                ApiError(400, "invalid_json", "the body could not be read as JSON (is it UTF-8?)")
            )
        code = codes.get(exc.status_code, "http_error")
        return _error_response(ApiError(exc.status_code, code, detail, headers=dict(exc.headers or {})))

    async def _convert(request: Request, exc: Exception) -> JSONResponse:
        return _error_response(_as_api_error(exc, f"{request.method} {request.url.path}"))

    # ours and neardup's are handled inside the app; Exception (bugs) by Starlette's outermost layer
    for cls in (ApiError, NeardupError, NotImplementedError, ValidationError, Exception):
        app.add_exception_handler(cls, _convert)


# -- the app ---------------------------------------------------------------------------------------
BackendFactory = Callable[[ServiceSettings, ServiceMetrics], Backend]


def _default_backend(settings: ServiceSettings, metrics: ServiceMetrics) -> Backend:
    return StateBackend(settings, on_jobs_changed=metrics.url_jobs_open.set)


def create_app(
    settings: ServiceSettings | None = None,
    *,
    backend: Backend | BackendFactory | None = None,
) -> FastAPI:
    """Build the service's ASGI app. The backend (ContentSeen + URL stores) opens now and is flushed
    and closed at lifespan shutdown (uvicorn does that on SIGTERM).

    >>> from neardup.service.settings import ServiceSettings, default_analysis_processes
    >>> app = create_app(ServiceSettings(state="/tmp/nd"))  # doctest: +SKIP
    """
    settings = settings or ServiceSettings()
    metrics = ServiceMetrics()
    if backend is None:
        be: Backend = _default_backend(settings, metrics)
    elif callable(backend) and not hasattr(backend, "check_document"):
        be = backend(settings, metrics)
    else:
        be = backend  # type: ignore[assignment]
    started = time.time()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.token is None:
            log.warning(
                "neardup service is UNAUTHENTICATED and listens on loopback only (%s); set "
                "NEARDUP_TOKEN or --token-file to require a bearer token",
                settings.host,
            )
        log.info(
            "neardup service ready: state=%s redis=%s",
            settings.state or "memory (lost at exit)",
            "yes" if settings.redis else "no",
        )
        try:
            yield
        finally:
            log.info("shutting down: flushing state")
            await run_in_threadpool(be.close)
            log.info("state flushed and closed")

    app = FastAPI(
        title="neardup",
        version=__version__,
        summary="Duplicate and near-duplicate detection for crawled pages: URL seen-stores and ContentSeen.",
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.settings = settings
    app.state.backend = be
    app.state.metrics = metrics
    _install_error_handlers(app)
    token = settings.token

    be_health = getattr(be, "health", None)
    be_duplicates = getattr(be, "aduplicates", None)
    be_check_urls = getattr(be, "acheck_urls", None)

    @app.get("/healthz", include_in_schema=False)
    @app.get(f"{API_PREFIX}/health", tags=["meta"])
    async def health() -> dict[str, Any]:
        """Liveness (answers within about a second whatever the stores do), store reachability and
        analysis workers; ``status`` is ``degraded`` while a store does not answer."""
        # the backend's health gathers its counts off the event loop (they wait for the state lock)
        extra: dict[str, Any] = await be_health() if be_health is not None else be.stats()
        return {
            "status": "degraded" if extra.pop("degraded", False) else "ok",
            **extra,
            "version": __version__,
            "auth": "bearer" if token else "none (loopback only)",
            "state": str(settings.state) if settings.state else None,
            "redis": settings.redis is not None,
            "uptime_s": round(time.time() - started, 3),
        }

    @app.get("/metrics", include_in_schema=False)
    async def prometheus() -> Response:
        data, ctype = metrics.render()
        return Response(data, media_type=ctype)

    async def do_check_urls(batch: URLBatch, authorization: str | None) -> dict[str, Any]:
        check_bearer(authorization, token)
        if len(batch.urls) > settings.max_batch:
            raise ApiError(
                413,
                "too_large",
                f"a batch holds at most {settings.max_batch} URLs, got {len(batch.urls)}; split it",
            )
        bad = [(i, why) for i, u in enumerate(batch.urls) if (why := _url_problem(u, settings.max_url_chars))]
        if bad:
            shown = "; ".join(f"urls.{i}: {why}" for i, why in bad[:5])
            more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
            raise ApiError(
                422,
                "invalid",
                f"{len(bad)} URL(s) cannot be checked: {shown}{more}",
                extra={"bad_indexes": [i for i, _ in bad[:1000]]},
            )
        if be_check_urls is not None:
            seen = await be_check_urls(batch.job, batch.urls)  # a store thread, with a deadline
        else:
            seen = be.check_urls(batch.job, batch.urls)
        new = len(seen) - sum(seen)
        metrics.urls_new.inc(new)
        metrics.urls_seen.inc(len(seen) - new)
        return {"job": batch.job, "seen": seen, "new": new}

    acheck_document = getattr(be, "acheck_document", None)

    async def do_check_document(doc: DocumentCheck, authorization: str | None) -> dict[str, Any]:
        check_bearer(authorization, token)  # add=false too: the CPU of a check is the same
        why = _url_problem(doc.url, settings.max_url_chars)
        if why:
            raise ApiError(422, "invalid", f"url: {why}")
        # analysis in worker processes (or inline), never in a thread pool: see neardup.service.backend
        verdict: dict[str, Any]
        if acheck_document is not None:
            verdict = await acheck_document(doc.url, doc.html, doc.text, doc.add)
        else:
            verdict = be.check_document(doc.url, doc.html, doc.text, doc.add)
        metrics.verdict(str(verdict.get("kind", "unknown")))
        if doc.add and verdict.get("kind") == "new":
            metrics.documents_added.inc()
        return verdict

    @app.post(f"{API_PREFIX}/urls/check", tags=["urls"], response_model=URLResults, responses=_ERRORS)
    async def check_urls(
        batch: URLBatch,
        authorization: Annotated[str | None, Header()] = None,
    ) -> JSONResponse:
        """Check a batch of URLs against the job's seen-store and add the new ones (a write)."""
        return _FastJSON(await do_check_urls(batch, authorization))

    @app.post(f"{API_PREFIX}/documents/check", tags=["documents"], response_model=Verdict, responses=_ERRORS)
    async def check_document(
        doc: DocumentCheck,
        authorization: Annotated[str | None, Header()] = None,
    ) -> JSONResponse:
        """ContentSeen's verdict on a page; with ``add`` (the default, a write) it is remembered."""
        return _FastJSON(await do_check_document(doc, authorization))

    @app.get(f"{API_PREFIX}/documents/{{doc_id:path}}/duplicates", tags=["documents"], responses=_ERRORS)
    async def duplicates(doc_id: str) -> JSONResponse:
        """The document's duplicates (documents whose duplicate_of is it) and its cluster."""
        if not doc_id or len(doc_id) > 512:
            raise ApiError(422, "invalid", f"doc_id must have 1..512 characters, got {len(doc_id)}")
        found = await be_duplicates(doc_id) if be_duplicates is not None else be.duplicates(doc_id)
        if found is None:
            raise ApiError(404, "not_found", f"no document with id {doc_id!r} was added")
        return _FastJSON(found)

    fast: dict[tuple[str, str], _FastRoute] = {}
    if settings.fast_path:
        fast[("POST", f"{API_PREFIX}/urls/check")] = (URLBatch, do_check_urls)
        fast[("POST", f"{API_PREFIX}/documents/check")] = (DocumentCheck, do_check_document)
    # the guard runs before FastAPI's routing, so a refused body never reaches a parser
    app.add_middleware(_Guard, metrics=metrics, max_body=settings.max_body_bytes, fast=fast, token=token)
    return app


def app_from_env() -> FastAPI:
    """An app configured from NEARDUP_STATE, NEARDUP_REDIS, NEARDUP_TOKEN and
    NEARDUP_ANALYSIS_PROCESSES (for ``uvicorn --factory``)."""
    processes = os.environ.get("NEARDUP_ANALYSIS_PROCESSES")
    try:
        analysis_processes = int(processes) if processes else default_analysis_processes()
    except ValueError:
        raise ConfigError(
            f"NEARDUP_ANALYSIS_PROCESSES must be a whole number of processes, got {processes!r}"
        ) from None
    settings = ServiceSettings(
        state=os.environ.get("NEARDUP_STATE") or None,  # type: ignore[arg-type]
        redis=os.environ.get("NEARDUP_REDIS") or None,
        analysis_processes=analysis_processes,
    )
    return create_app(settings.with_token_from_env(os.environ.get("NEARDUP_TOKEN_FILE") or None))
