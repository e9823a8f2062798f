"""JSON answers and the conversion of every exception into one, for the middleware and the routes.

Every refusal is ``{"error": code, "detail": why}`` with a 4xx status (5xx for the server's own
faults), rendered ASCII-only because it may quote user input:

>>> as_api_error(errors.InputError("no main text"), "POST /v1/documents/check").status
422
>>> error_bytes(ApiError(413, "too_large", "over the limit"))
b'{"error":"too_large","detail":"over the limit"}'
"""

from __future__ import annotations

import errno
import json
import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup import exceptions as errors
from neardup.exceptions import ApiError

__all__ = [
    "ERROR_RESPONSES",
    "ErrorBody",
    "FastJSON",
    "as_api_error",
    "dumps",
    "error_bytes",
    "error_response",
    "install_error_handlers",
    "validation_error",
]

log = logging.getLogger("neardup.service")


class ErrorBody(BaseModel):
    """The body of every refusal (the OpenAPI schema of the 4xx and 5xx answers)."""

    error: str = Field(description="a short code: invalid_json, invalid, too_large, unauthorized, ...")
    detail: str = Field(description="what is wrong and how to fix it")
    errors: list[dict[str, Any]] | None = None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 404, 413, 422, 503)
}


def _jsonable(obj: Any) -> Any:
    """orjson fallback: numpy scalars and arrays, sets, paths."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return str(obj)


def dumps(content: Any) -> bytes:
    """An answer's JSON bytes (inputs are checked to be valid Unicode, so this cannot fail on them)."""
    return orjson.dumps(content, default=_jsonable)


def _ascii_json(content: Any) -> bytes:
    return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def error_bytes(err: ApiError) -> bytes:
    """An error's JSON bytes, ASCII-only: errors may quote user input, which may hold lone surrogates."""
    return _ascii_json(err.body())


class FastJSON(JSONResponse):
    """Answers rendered by orjson."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


class _ErrorJSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return _ascii_json(content)


def error_response(err: ApiError) -> JSONResponse:
    return _ErrorJSON(err.body(), status_code=err.status, headers=err.headers or None)


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(p) for p in loc)


#: pydantic-core's JSON errors for a \u escape of a UTF-16 surrogate without its pair
_LONE_SURROGATE = ("unexpected end of hex escape", "lone leading surrogate in hex escape")


def validation_error(errors_: list[Any], prefix: tuple[str, ...] = ()) -> ApiError:
    """A 400 (not JSON) or 422 (not the expected shape) from pydantic/FastAPI error dicts."""
    bad_json = [e for e in errors_ if e.get("type") == "json_invalid"]
    if bad_json:
        first = bad_json[0]
        why = (first.get("ctx") or {}).get("error") or first.get("msg", "")
        where = _loc(first.get("loc", ()))
        if why.startswith(_LONE_SURROGATE):
            # a \ud800-\udfff escape without its pair: JSON's grammar takes it, Unicode does not
            at = why.partition(" at ")[2]
            return ApiError(
                400,
                "invalid_json",
                "the body holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair)"
                + (f" at {at}" if at else "")
                + ", which is not valid Unicode; send valid Unicode text (a character beyond U+FFFF "
                "escaped as a pair, e.g. \\ud83d\\ude00, or as UTF-8)",
            )
        return ApiError(
            400, "invalid_json", f"the body is not valid JSON: {why}" + (f" at {where}" if where else "")
        )
    slim = [
        {"loc": _loc((*prefix, *e.get("loc", ()))), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in errors_[:20]
    ]
    head = slim[0] if slim else {"loc": "body", "msg": "invalid"}
    more = f" (and {len(errors_) - 1} more)" if len(errors_) > 1 else ""
    return ApiError(422, "invalid", f"{head['loc']}: {head['msg']}{more}", extra={"errors": slim})


_RETRY = {"Retry-After": "1"}
_OUT_OF_RESOURCES = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS))
_LOGGED = frozenset(("store_unavailable", "state_damaged"))  # the operator must look at these
# neardup's errors by class, most specific first: (class, status, code); ApiError passes as is
_BY_CLASS: tuple[tuple[type[BaseException], int, str], ...] = (
    (errors.InputError, 422, "invalid"),
    (errors.ConfigError, 422, "invalid"),
    (errors.AnalysisTimeout, 503, "analysis_timeout"),
    (errors.StoreError, 503, "store_unavailable"),
    (errors.MissingDependency, 501, "missing_dependency"),
    (errors.FormatError, 500, "state_damaged"),
    (errors.NeardupError, 400, "bad_request"),
)


def as_api_error(exc: BaseException, where: str) -> ApiError:
    """The answer for an exception raised while serving ``where``; bugs are logged with their traceback."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ValidationError):
        return validation_error(list(exc.errors()), ("body",))
    for cls, status, code in _BY_CLASS:
        if isinstance(exc, cls):
            if code in _LOGGED:
                log.error("%s on %s: %s", code.replace("_", " "), where, exc)
            return ApiError(status, code, str(exc), headers=dict(_RETRY) if status == 503 else None)
    if isinstance(exc, NotImplementedError):
        return ApiError(501, "not_implemented", str(exc) or "not implemented by this server")
    if isinstance(exc, OSError) and exc.errno in _OUT_OF_RESOURCES:
        # out of file descriptors or memory: the server is overloaded, not broken; try again later
        log.error("out of resources on %s: %s", where, exc)
        return ApiError(
            503,
            "overloaded",
            f"the server is out of resources ({errno.errorcode.get(exc.errno or 0, exc.errno)}); send the "
            "request again shortly",
            headers=dict(_RETRY),
        )
    # a bug, not bad input: log it with its traceback, answer without one
    log.error("unhandled error on %s", where, exc_info=exc)
    return ApiError(500, "internal", "internal error; the server log has the details")


_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def _http_error(request: Request, exc: StarletteHTTPException) -> ApiError:
    """Starlette's own refusals (no route, wrong method, unreadable body) in the service's shape."""
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no such endpoint: {request.method} {request.url.path}; see /openapi.json"
    if exc.status_code == 400 and "parsing the body" in detail:
        return ApiError(400, "invalid_json", "the body could not be read as JSON (is it UTF-8?)")
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return ApiError(exc.status_code, code, detail, headers=dict(exc.headers or {}))


def install_error_handlers(app: FastAPI) -> None:
    """Every error of the FastAPI routes answered as ``{"error", "detail"}`` JSON."""

    async def convert(request: Request, exc: Exception) -> JSONResponse:
        where = f"{request.method} {request.url.path}"
        if isinstance(exc, RequestValidationError):
            return error_response(validation_error(list(exc.errors())))
        if isinstance(exc, StarletteHTTPException):
            return error_response(_http_error(request, exc))
        return error_response(as_api_error(exc, where))

    # ours and neardup's are handled inside the app; Exception (bugs) by Starlette's outermost layer
    for cls in (RequestValidationError, StarletteHTTPException, errors.NeardupError, NotImplementedError):
        app.add_exception_handler(cls, convert)
    app.add_exception_handler(ValidationError, convert)
    app.add_exception_handler(Exception, convert)
