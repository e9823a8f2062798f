"""The service client for crawler workers: ``from neardup.client import Client``.

>>> from neardup.client import Client
>>> Client("http://127.0.0.1:8000").base_url
'http://127.0.0.1:8000'
"""

from __future__ import annotations

from neardup.service.client import (
    AsyncClient,
    BaseClient,
    Client,
    NotFound,
    RequestTooLarge,
    ServiceAuthError,
    ServiceError,
    ServiceUnavailable,
)

__all__ = [
    "AsyncClient",
    "BaseClient",
    "Client",
    "NotFound",
    "RequestTooLarge",
    "ServiceAuthError",
    "ServiceError",
    "ServiceUnavailable",
]
