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
"detail": why}``. The pieces: ``handlers`` (what each endpoint does, and the route table),
``middleware`` (auth, limits, metrics, the fast path), ``responses`` (errors as JSON), ``models``
(the bodies), ``backend`` (the state behind the endpoints).
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from neardup._version import __version__
from neardup.exceptions import ConfigError, NeardupError
from neardup.service.backend import AsyncBackend, Backend, StateBackend, as_async
from neardup.service.handlers import API_PREFIX, ROUTES, Handlers, Route
from neardup.service.metrics import ServiceMetrics
from neardup.service.middleware import FastRoute, Guard
from neardup.service.responses import ERROR_RESPONSES, FastJSON, install_error_handlers
from neardup.service.settings import ServiceSettings, default_analysis_processes
from neardup.stores.durability import check_durability

__all__ = ["API_PREFIX", "app_from_env", "create_app"]

log = logging.getLogger("neardup.service")

BackendFactory = Callable[[ServiceSettings, ServiceMetrics], "Backend | AsyncBackend"]


def _open_backend(
    settings: ServiceSettings,
    metrics: ServiceMetrics,
    backend: Backend | AsyncBackend | BackendFactory | None,
) -> AsyncBackend:
    if backend is None:
        return StateBackend(settings, on_jobs_changed=metrics.url_jobs_open.set)
    if (
        callable(backend)
        and not hasattr(backend, "check_document")
        and not hasattr(backend, "acheck_document")
    ):
        return as_async(backend(settings, metrics))
    return as_async(backend)  # type: ignore[arg-type]


def _lifespan(settings: ServiceSettings, backend: AsyncBackend) -> Callable[[FastAPI], Any]:
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
            try:
                await run_in_threadpool(backend.close)
            except (NeardupError, OSError) as exc:
                log.error("shutting down: %s", exc)  # the backend released what it could
            else:
                log.info("state flushed and closed")

    return lifespan


def _endpoint(route: Route, handler: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[JSONResponse]]:
    """A FastAPI endpoint calling ``handler``: its one parameter (the body model, or the path's
    ``doc_id``) is declared by signature, so FastAPI parses, validates and documents it."""

    async def endpoint(**params: Any) -> JSONResponse:
        return FastJSON(await handler(*params.values()))

    params = []
    if route.body is not None:
        params.append(inspect.Parameter("body", inspect.Parameter.KEYWORD_ONLY, annotation=route.body))
    elif "{doc_id" in route.path:
        params.append(inspect.Parameter("doc_id", inspect.Parameter.KEYWORD_ONLY, annotation=str))
    endpoint.__signature__ = inspect.Signature(params, return_annotation=JSONResponse)  # type: ignore[attr-defined]
    endpoint.__doc__ = handler.__doc__
    endpoint.__name__ = route.handler
    return endpoint


def _add_routes(
    app: FastAPI, handlers: Handlers, metrics: ServiceMetrics
) -> dict[tuple[str, str], FastRoute]:
    """Every route of ``ROUTES`` on ``app``, plus /metrics; returns the fast path's table."""
    fast: dict[tuple[str, str], FastRoute] = {}
    for route in ROUTES:
        handler = getattr(handlers, route.handler)
        app.add_api_route(
            route.path,
            _endpoint(route, handler),
            methods=[route.method],
            response_model=route.response_model,
            tags=list(route.tags) or None,
            responses=ERROR_RESPONSES if route.method == "POST" or "{" in route.path else None,
            include_in_schema=route.in_schema,
            openapi_extra={"security": [{"bearer": []}]} if route.method == "POST" else None,
        )
        if route.body is not None:
            fast[(route.method, route.path)] = (route.body, handler)

    @app.get("/metrics", include_in_schema=False)
    async def prometheus() -> Response:
        data, ctype = metrics.render()
        return Response(data, media_type=ctype)

    return fast


def _declare_bearer(app: FastAPI) -> None:
    """The schema's ``bearer`` security scheme, which every POST route names: the middleware checks
    the token, so no per-route dependency declares it."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes["bearer"] = {"type": "http", "scheme": "bearer"}
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(
    settings: ServiceSettings | None = None,
    *,
    backend: Backend | AsyncBackend | BackendFactory | None = None,
) -> FastAPI:
    """Build the service's ASGI app. The backend (ContentSeen + URL stores) opens now and is flushed
    and closed at lifespan shutdown (uvicorn does that on SIGTERM).

    >>> from neardup.service.settings import ServiceSettings, default_analysis_processes
    >>> app = create_app(ServiceSettings(state="/tmp/nd"))  # doctest: +SKIP
    """
    settings = settings or ServiceSettings()
    metrics = ServiceMetrics()
    be = _open_backend(settings, metrics, backend)
    app = FastAPI(
        title="neardup",
        version=__version__,
        summary="Duplicate and near-duplicate detection for crawled pages: URL seen-stores and ContentSeen.",
        lifespan=_lifespan(settings, be),
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.settings = settings
    app.state.backend = be
    app.state.metrics = metrics
    install_error_handlers(app)
    _declare_bearer(app)
    fast = _add_routes(app, Handlers(settings, be, metrics), metrics)
    # the guard runs before FastAPI's routing, so a refused body never reaches a parser
    app.add_middleware(
        Guard,
        metrics=metrics,
        max_body=settings.max_body_bytes,
        fast=fast if settings.fast_path else {},
        token=settings.token,
    )
    return app


def app_from_env() -> FastAPI:
    """An app configured from NEARDUP_STATE, NEARDUP_REDIS, NEARDUP_TOKEN,
    NEARDUP_ANALYSIS_PROCESSES and NEARDUP_DURABILITY (for ``uvicorn --factory``)."""
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
        durability=check_durability(os.environ.get("NEARDUP_DURABILITY") or "everysec", "NEARDUP_DURABILITY"),
    )
    return create_app(settings.with_token_from_env(os.environ.get("NEARDUP_TOKEN_FILE") or None))
