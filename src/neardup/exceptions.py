"""The exceptions neardup raises, all under ``NeardupError``.

    NeardupError
     ├── ConfigError          a setting is out of range or two settings disagree
     ├── InputError           a user's input (file, line, field, URL, text) is unusable
     ├── FormatError          a stored file is of another version or damaged
     ├── StoreError           a key-value or seen store failed (connection lost, store closed)
     │    └── AnalysisTimeout a page's analysis ran past the service's deadline
     ├── MissingDependency    an optional extra is not installed (also an ImportError)
     ├── ApiError             the service refuses a request (HTTP status, code, sentence)
     └── ServiceError         the service answered a client with an error
          ├── ServiceAuthError    401/403
          ├── NotFound            404
          ├── InvalidRequest      400/422 (also an InputError)
          ├── RequestTooLarge     413 (also an InputError)
          └── ServiceUnavailable  unreachable, timed out or 502/503/504 (also a StoreError)

Every message says what was expected, what was got, and how to fix it where there is a fix.

>>> issubclass(ServiceUnavailable, StoreError), ApiError(404, "not_found", "no such doc").body()
(True, {'error': 'not_found', 'detail': 'no such doc'})
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AnalysisTimeout",
    "ApiError",
    "ConfigError",
    "FormatError",
    "InputError",
    "InvalidRequest",
    "MissingDependency",
    "NeardupError",
    "NotFound",
    "RequestTooLarge",
    "ServiceAuthError",
    "ServiceError",
    "ServiceUnavailable",
    "StoreError",
]


class NeardupError(Exception):
    """Base class of every error neardup raises on purpose."""


class ConfigError(NeardupError, ValueError):
    """A setting is invalid: `max_distance must be < number of blocks (5), got 6`."""


class InputError(NeardupError, ValueError):
    """User input is unusable. Carries the place (file, line, field) when there is one."""

    def __init__(
        self, message: str, *, source: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = ""
        if source is not None:
            where = source if line is None else f"{source}:{line}"
            where += ": "
        super().__init__(f"{where}{message}")


class FormatError(NeardupError):
    """A file on disk is of an unknown version, another configuration, or damaged."""


class StoreError(NeardupError):
    """A store failed: it could not be opened, it went away, or it was closed."""


class AnalysisTimeout(StoreError):
    """A page's analysis ran past its deadline; the worker that held it was restarted."""


class MissingDependency(NeardupError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class ApiError(NeardupError):
    """A refusal by the service: an HTTP status, a short machine code and a sentence for people.

    ``body()`` is the JSON the client gets: ``{"error": code, "detail": message, **extra}``.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.extra = extra or {}

    def body(self) -> dict[str, object]:
        return {"error": self.code, "detail": self.message, **self.extra}


class ServiceError(NeardupError):
    """The service answered with an error; ``status``, ``code`` and ``detail`` say which."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        detail: str | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.detail = detail
        self.body = body


class ServiceAuthError(ServiceError):
    """401/403: the bearer token is missing or wrong."""


class NotFound(ServiceError):
    """404: no such document or endpoint."""


class InvalidRequest(ServiceError, InputError):
    """400/422: the service refused the input; the message says what is wrong."""


class RequestTooLarge(ServiceError, InputError):
    """413: the body or the batch is over the service's limit."""


class ServiceUnavailable(ServiceError, StoreError):
    """The service cannot be reached, timed out, or its store failed (503)."""
