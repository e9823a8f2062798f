"""The client's API and error mapping (AsyncClient over httpx.ASGITransport; the sync Client is
exercised against a real server in tests/integration/service)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from service_testkit import TOKEN, FakeBackend

import neardup
import neardup.client
import neardup.service
from neardup.client import AsyncClient, Client
from neardup.contentseen.checker import ContentChecker
from neardup.exceptions import (
    InputError,
    NeardupError,
    NotFound,
    RequestTooLarge,
    ServiceAuthError,
    ServiceError,
    ServiceUnavailable,
    StoreError,
)
from neardup.service.app import create_app
from neardup.service.settings import ServiceSettings


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def _client(backend: FakeBackend, token: str | None = TOKEN, **settings: Any) -> AsyncClient:
    app = create_app(ServiceSettings(token=TOKEN, **settings), backend=backend)
    return AsyncClient("http://test", token=token, transport=httpx.ASGITransport(app=app))


def test_service_client_has_one_import_path() -> None:
    assert set(neardup.client.__all__) >= {"Client", "AsyncClient"}
    assert neardup.Client is Client and neardup.AsyncClient is AsyncClient
    assert not hasattr(neardup.service, "Client")  # one import path per name
    assert issubclass(ServiceError, NeardupError)


def test_service_client_is_a_content_checker() -> None:
    with Client("http://127.0.0.1:9") as c:
        assert isinstance(c, ContentChecker)


def test_service_client_round_trip(backend: FakeBackend) -> None:
    async def go() -> None:
        async with _client(backend) as c:
            assert (await c.health())["status"] == "ok"
            assert await c.check_urls("j", ["https://a.example/1", "https://a.example/1"]) == [False, True]
            v = await c.check("https://a.example/1", text="正文")
            assert v["kind"] == "new"
            v = await c.check("https://b.example/1", text="正文", add=False)
            assert v["duplicate_of"] == "https://a.example/1"
            assert (await c.duplicates("https://a.example/1"))["duplicates"] == []

    _run(go())


def test_service_client_errors_carry_the_reason(backend: FakeBackend) -> None:
    async def go() -> None:
        async with _client(backend, token=None) as anon:
            with pytest.raises(ServiceAuthError, match="401 unauthorized") as e:
                await anon.check_urls("j", ["https://a.example/"])
            assert e.value.status == 401 and e.value.code == "unauthorized"
        async with _client(backend, max_batch=2) as c:
            with pytest.raises(RequestTooLarge, match="at most 2 URLs"):
                await c.check_urls("j", ["https://a.example/1"] * 3)
            with pytest.raises(InputError, match=r"urls\.0: expected an http"):
                await c.check_urls("j", ["ftp://a.example/"])
            with pytest.raises(InputError, match="no main text"):
                await c.check("https://a.example/1", text="boom-input")
            with pytest.raises(StoreError, match="redis went away"):
                await c.check("https://a.example/1", text="boom-store")
            with pytest.raises(NotFound):
                await c.duplicates("nope")
            with pytest.raises(InputError, match="neither"):
                await c.check("https://a.example/1")

    _run(go())


def test_service_client_unreachable_is_service_unavailable() -> None:
    with (
        Client("http://127.0.0.1:9", timeout=2) as c,
        pytest.raises(ServiceUnavailable, match="cannot reach"),
    ):
        c.health()
    assert issubclass(ServiceUnavailable, StoreError) and issubclass(ServiceUnavailable, NeardupError)


@pytest.mark.parametrize(("url", "timeout"), [("localhost:8000", 5.0), ("http://x", 0)])
def test_service_client_checks_its_arguments(url: str, timeout: float) -> None:
    with pytest.raises(InputError):
        Client(url, timeout=timeout)
