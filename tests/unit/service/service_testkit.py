"""Test kit of the service unit tests: in-process client of the service app (httpx.ASGITransport on a private event loop) and a fake backend."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx
from fastapi import FastAPI

from neardup.exceptions import InputError, StoreError

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class FakeBackend:
    """Just enough of ContentSeen + SeenURLs to pin the HTTP layer (unit tests only)."""

    def __init__(self) -> None:
        self.docs: dict[str, str] = {}  # text -> doc_id
        self.dups: dict[str, list[str]] = {}
        self.urls: dict[str, set[str]] = {}
        self.closed = False
        self.dates: list[Any] = []  # the date of each check, as the handler passed it

    def check_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]:
        self.dates.append(date)
        body = text if text is not None else (html or "")
        if body == "boom-input":
            raise InputError("the page has no main text")
        if body == "boom-store":
            raise StoreError("redis went away")
        if body == "boom-bug":
            raise RuntimeError("a bug")
        first = self.docs.get(body)
        if first is None:
            if add:
                self.docs[body] = url
            return {"kind": "new", "doc_id": url, "duplicate_of": None, "distance": None}
        if add:
            self.dups.setdefault(first, []).append(url)
        return {"kind": "exact", "doc_id": url, "duplicate_of": first, "distance": 0}

    def duplicates(self, doc_id: str) -> dict[str, Any] | None:
        if doc_id == "bad":
            raise InputError("document ids are integers, got 'bad'")
        if doc_id not in self.docs.values():
            return None
        return {"doc_id": doc_id, "duplicates": self.dups.get(doc_id, [])}

    def check_urls(self, job: str, urls: list[str]) -> list[bool]:
        seen = self.urls.setdefault(job, set())
        out = []
        for u in urls:
            out.append(u in seen)
            seen.add(u)
        return out

    def stats(self) -> dict[str, Any]:
        return {"documents": len(self.docs)}

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class ASGIClient:
    """A synchronous facade over httpx.AsyncClient(transport=ASGITransport(app)), lifespan included."""

    def __init__(self, app: FastAPI, *, raise_app_exceptions: bool = True) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = app
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
        self.http = httpx.AsyncClient(transport=transport, base_url="http://test")
        self._lifespan: AbstractAsyncContextManager[Any] = app.router.lifespan_context(app)
        self.loop.run_until_complete(self._lifespan.__aenter__())

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        return self.loop.run_until_complete(self.http.request(method, url, **kw))

    def get(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("POST", url, **kw)

    def close(self) -> None:
        self.loop.run_until_complete(self._lifespan.__aexit__(None, None, None))
        self.loop.run_until_complete(self.http.aclose())
        self.loop.close()
