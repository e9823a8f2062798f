"""The HTTP service (``neardup serve``); its Python client is ``neardup.client``.

``create_app`` needs the ``service`` extra (FastAPI, uvicorn). Names load lazily, so importing
the package does not import FastAPI.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ServiceSettings", "create_app"]

_WHERE = {
    "ServiceSettings": "neardup.service.settings",
    "create_app": "neardup.service.app",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'neardup.service' has no attribute {name!r}")
