"""Prometheus metrics of one app, in a registry of its own (two apps in one process never collide).

>>> m = ServiceMetrics()
>>> m.verdicts.labels(kind="new").inc()
>>> b"neardup_verdicts_total" in m.render()[0]
True
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

__all__ = ["ServiceMetrics"]

# seconds; dense below 50 ms where the latency target is
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class ServiceMetrics:
    """The counters the service keeps, registered in ``self.registry``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "neardup_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "neardup_http_request_seconds",
            "Time to answer a request",
            ["route"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.rejected = Counter(
            "neardup_http_rejected", "Requests refused before the handler ran", ["reason"], registry=r
        )
        self.verdicts = Counter(
            "neardup_verdicts", "ContentSeen verdicts given, by kind", ["kind"], registry=r
        )
        self.documents_added = Counter("neardup_documents_added", "Documents added to the state", registry=r)
        self.urls = Counter("neardup_urls_checked", "URLs checked, by result", ["result"], registry=r)
        self.url_jobs_open = Gauge("neardup_url_jobs_open", "URL seen-stores open now", registry=r)
        self.in_flight = Gauge("neardup_http_in_flight", "Requests being answered now", registry=r)

        self.urls_new = self.urls.labels(result="new")
        self.urls_seen = self.urls.labels(result="seen")
        self._children: dict[tuple[str, ...], Any] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request (label children are cached: ``labels()`` is slow per call)."""
        key = (method, route, str(status))
        pair = self._children.get(key)
        if pair is None:
            pair = self._children[key] = (self.requests.labels(*key), self.latency.labels(route))
        pair[0].inc()
        pair[1].observe(seconds)

    def verdict(self, kind: str) -> None:
        key = ("verdict", kind)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self.verdicts.labels(kind)
        child.inc()

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
