"""The HTTP service (``neardup serve``) and its Python client.

``create_app`` needs the ``service`` extra (FastAPI, uvicorn); the client needs only httpx.
Names load lazily so ``from neardup.service import Client`` does not import FastAPI.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["AsyncClient", "Client", "ServiceSettings", "create_app"]

_WHERE = {
    "AsyncClient": "neardup.service.client",
    "Client": "neardup.service.client",
    "ServiceSettings": "neardup.service.settings",
    "create_app": "neardup.service.app",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'neardup.service' has no attribute {name!r}")
