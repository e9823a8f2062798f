"""What the service serves: one ContentSeen and a URL seen-store per crawl job, behind one lock.

The state lives in this process (the Hamming index is in memory and is snapshotted by
``ContentSeen.flush``), so the service runs ONE worker and serialises state calls with a lock;
uvicorn's event loop stays free for health, metrics and refusals while a check runs in a thread.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from neardup.exceptions import InputError
from neardup.service.settings import ServiceSettings

__all__ = ["Backend", "StateBackend"]

log = logging.getLogger("neardup.service")


class Backend(Protocol):
    """The operations behind the endpoints (a fake one is injected in unit tests)."""

    def check_document(self, url: str, html: str | None, text: str | None, add: bool) -> dict[str, Any]: ...

    def duplicates(self, doc_id: str) -> dict[str, Any]: ...

    def check_urls(self, job: str, urls: list[str]) -> list[bool]: ...

    def stats(self) -> dict[str, Any]: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class StateBackend:
    """The real backend: ``neardup.contentseen.ContentSeen`` and ``neardup.urls.SeenURLs``.

    >>> b = StateBackend(ServiceSettings())  # doctest: +SKIP
    >>> b.check_document("https://example.com/a", None, "正文……", add=True)["kind"]  # doctest: +SKIP
    'new'
    """

    def __init__(
        self,
        settings: ServiceSettings,
        *,
        on_jobs_changed: Callable[[int], None] | None = None,
    ) -> None:
        from neardup.contentseen import ContentSeen

        self.settings = settings
        self._lock = threading.Lock()
        self._jobs_lock = threading.Lock()
        self._jobs: OrderedDict[str, Any] = OrderedDict()
        self._on_jobs_changed = on_jobs_changed
        state: str | Path
        if settings.state is not None:
            settings.state.mkdir(parents=True, exist_ok=True)
            state = settings.state / "contentseen"
        else:
            state = "memory://"
        kwargs: dict[str, Any] = {"max_distance": settings.max_distance}
        if settings.redis is not None:
            kwargs["nshash_store"] = settings.redis
        self.contentseen = ContentSeen(state=state, **kwargs)
        self._closed = False

    # -- documents ---------------------------------------------------------------------------
    def check_document(self, url: str, html: str | None, text: str | None, add: bool) -> dict[str, Any]:
        with self._lock:
            verdict = self.contentseen.check(url, html=html, text=text, add=add)
        out: dict[str, Any] = verdict.to_dict()
        return out

    def duplicates(self, doc_id: str) -> dict[str, Any]:
        finder = getattr(self.contentseen, "duplicates", None)
        if finder is None:
            raise NotImplementedError("this ContentSeen cannot list a document's duplicates")
        with self._lock:
            out: dict[str, Any] = finder(doc_id)
        return out

    # -- URLs --------------------------------------------------------------------------------
    def _url_store(self, job: str) -> str:
        if self.settings.redis is not None:
            return self.settings.redis
        if self.settings.state is None:
            return "memory://"
        path = self.settings.state / "urls" / job
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"leveldb://{path}"

    def _seen(self, job: str) -> Any:
        from neardup.urls import SeenURLs

        with self._jobs_lock:
            seen = self._jobs.get(job)
            if seen is not None:
                self._jobs.move_to_end(job)
                return seen
            seen = SeenURLs(
                job,
                store=self._url_store(job),
                recrawl_after=self.settings.recrawl_after,
                ttl=self.settings.url_ttl,
            )
            self._jobs[job] = seen
            while len(self._jobs) > self.settings.max_jobs:
                _, old = self._jobs.popitem(last=False)
                old.close()
            if self._on_jobs_changed is not None:
                self._on_jobs_changed(len(self._jobs))
            return seen

    def check_urls(self, job: str, urls: list[str]) -> list[bool]:
        seen = self._seen(job)
        with self._lock:
            result = seen.check_and_add_many(urls)
        if len(result) != len(urls):
            raise InputError(f"the URL store answered {len(result)} results for {len(urls)} URLs")
        return [bool(r) for r in result]

    # -- lifecycle ---------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url_jobs_open": len(self._jobs)}
        stats = getattr(self.contentseen, "stats", None)
        if callable(stats):
            try:
                out["contentseen"] = stats()
            except Exception:  # health must answer even if stats cannot
                log.exception("ContentSeen.stats failed")
        return out

    def flush(self) -> None:
        with self._lock:
            self.contentseen.flush()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with self._jobs_lock:
                for seen in self._jobs.values():
                    try:
                        seen.close()
                    except Exception:
                        log.exception("closing a URL seen-store failed")
                self._jobs.clear()
            self.contentseen.flush()
            self.contentseen.close()
