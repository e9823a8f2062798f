"""Fixtures of the service unit tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from service_testkit import ASGIClient, FakeBackend


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def make_client() -> Iterator[Any]:
    made: list[ASGIClient] = []

    def make(app: FastAPI, **kw: Any) -> ASGIClient:
        c = ASGIClient(app, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
