"""What each endpoint does, written once: the fast path and the FastAPI routes both call these.

``ROUTES`` is the table of endpoints: method, path, the handler's name, the body model (a route
with a body model is also served by the fast path, see ``neardup.service.middleware``) and what
the OpenAPI schema shows. Authentication, body limits and request metrics are not here: the
middleware applies them to every request before a handler runs.

>>> [r.path for r in ROUTES if r.body is not None]
['/v1/urls/check', '/v1/documents/check']
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from neardup._version import __version__
from neardup.exceptions import ApiError, InputError
from neardup.service.backend import AsyncBackend
from neardup.service.metrics import ServiceMetrics
from neardup.service.models import DocumentCheck, URLBatch, URLResults, VerdictModel, url_problem
from neardup.service.settings import ServiceSettings

__all__ = ["API_PREFIX", "ROUTES", "Handlers", "Route"]

API_PREFIX = "/v1"


@dataclass(frozen=True)
class Route:
    """One endpoint: ``handler`` names a :class:`Handlers` method; ``body`` is its request model."""

    method: str
    path: str
    handler: str
    body: type[BaseModel] | None = None
    response_model: Any = None
    tags: tuple[str, ...] = ()
    in_schema: bool = True


ROUTES: tuple[Route, ...] = (
    Route("GET", "/healthz", "health", in_schema=False),
    Route("GET", f"{API_PREFIX}/health", "health", tags=("meta",)),
    Route("POST", f"{API_PREFIX}/urls/check", "check_urls", URLBatch, URLResults, ("urls",)),
    Route(
        "POST", f"{API_PREFIX}/documents/check", "check_document", DocumentCheck, VerdictModel, ("documents",)
    ),
    Route("GET", f"{API_PREFIX}/documents/{{doc_id:path}}/duplicates", "duplicates", tags=("documents",)),
)


def _bad_urls(bad: list[tuple[int, str]]) -> ApiError:
    """The 422 for a batch holding URLs that cannot be checked: ``(index, why)`` of each."""
    shown = "; ".join(f"urls.{i}: {why}" for i, why in bad[:5])
    more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
    return ApiError(
        422,
        "invalid",
        f"{len(bad)} URL(s) cannot be checked: {shown}{more}; nothing of the batch was recorded: "
        "send it again without them (bad_indexes lists them)",
        extra={"bad_indexes": [i for i, _ in bad[:1000]]},
    )


class Handlers:
    """The endpoints' work on one backend; each returns the JSON-ready answer or raises ApiError
    (or a neardup error, which ``neardup.service.responses`` turns into one)."""

    def __init__(self, settings: ServiceSettings, backend: AsyncBackend, metrics: ServiceMetrics) -> None:
        self.settings = settings
        self.backend = backend
        self.metrics = metrics
        self.started = time.time()

    async def health(self) -> dict[str, Any]:
        """Liveness (answers within about a second whatever the stores do), store reachability and
        analysis workers; ``status`` is ``degraded`` while a store does not answer."""
        # the backend's health gathers its counts off the event loop (they wait for the state lock)
        extra = await self.backend.health()
        s = self.settings
        return {
            "status": "degraded" if extra.pop("degraded", False) else "ok",
            **extra,
            "version": __version__,
            "auth": "bearer" if s.token else "none (loopback only)",
            "state": str(s.state) if s.state else None,
            "redis": s.redis is not None,
            "uptime_s": round(time.time() - self.started, 3),
        }

    async def check_urls(self, batch: URLBatch) -> dict[str, Any]:
        """Check a batch of URLs against the job's seen-store and add the new ones (a write)."""
        limit = self.settings.max_batch
        if len(batch.urls) > limit:
            raise ApiError(
                413, "too_large", f"a batch holds at most {limit} URLs, got {len(batch.urls)}; split it"
            )
        max_chars = self.settings.max_url_chars
        bad = [(i, why) for i, u in enumerate(batch.urls) if (why := url_problem(u, max_chars))]
        if bad:
            raise _bad_urls(bad)
        try:
            seen = await self.backend.acheck_urls(batch.job, batch.urls)  # a store thread, with a deadline
        except InputError as exc:
            # URLs only canonicalization finds bad (a port out of range, a bad IDNA label): the
            # seen-store names each (SeenURLs.invalid) and recorded nothing of the batch
            invalid = getattr(exc, "invalid", None)
            if not invalid:
                raise
            raise _bad_urls([(i, why) for i, _, why in invalid]) from None
        new = len(seen) - sum(seen)
        self.metrics.urls_new.inc(new)
        self.metrics.urls_seen.inc(len(seen) - new)
        return {"job": batch.job, "seen": seen, "new": new}

    async def check_document(self, doc: DocumentCheck) -> dict[str, Any]:
        """ContentSeen's verdict on a page; with ``add`` (the default, a write) it is remembered."""
        why = url_problem(doc.url, self.settings.max_url_chars)
        if why:
            raise ApiError(422, "invalid", f"url: {why}")
        # analysis in worker processes (or inline), never in a thread pool: see neardup.service.backend
        verdict = await self.backend.acheck_document(doc.url, doc.html, doc.text, doc.add, doc.date)
        kind = str(verdict.get("kind", "unknown"))
        self.metrics.verdict(kind)
        if doc.add and kind == "new":
            self.metrics.documents_added.inc()
        return verdict

    async def duplicates(self, doc_id: str) -> dict[str, Any]:
        """The document's duplicates (documents whose duplicate_of is it) and its cluster."""
        if not doc_id or len(doc_id) > 512:
            raise ApiError(422, "invalid", f"doc_id must have 1..512 characters, got {len(doc_id)}")
        found = await self.backend.aduplicates(doc_id)
        if found is None:
            raise ApiError(404, "not_found", f"no document with id {doc_id!r} was added")
        return found
