"""The service's request and response bodies (pydantic), and the URL check every endpoint shares.

The verdict's model is derived from ``neardup.contentseen.Verdict``, so a field added there is in
the OpenAPI schema at once:

>>> sorted(VerdictModel.model_fields)[:3]
['distance', 'doc_id', 'duplicate_of']
>>> url_problem("ftp://a.example/", 100)
"expected an http:// or https:// URL, got scheme 'ftp'"
>>> non_finite_number(b'{"url": "https://a.example/", "date": NaN}')
'NaN at body.date'
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import typing
from typing import Any
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from neardup.contentseen.verdict import Verdict

__all__ = ["DocumentCheck", "URLBatch", "URLResults", "VerdictModel", "non_finite_number", "url_problem"]

_JOB_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_BAD_URL_CHARS = re.compile(r"[\s\x00-\x1f\x7f\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def url_problem(url: str, max_chars: int) -> str | None:
    """Why ``url`` cannot be checked, or None when it can."""
    if not url or len(url) > max_chars:
        return f"expected 1..{max_chars} characters, got {len(url)}"
    if _BAD_URL_CHARS.search(url):
        return "contains whitespace, control characters or lone surrogates"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"cannot be parsed: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"expected an http:// or https:// URL, got scheme {parts.scheme!r}"
    if not parts.hostname:
        return "has no host"
    return None


class _Constant:
    """A NaN, Infinity or -Infinity token of a body, where json.loads met it."""

    def __init__(self, token: str) -> None:
        self.token = token


def _path_to(doc: Any, target: object) -> str | None:
    """The ``body.a.0`` path of ``target`` (by identity) in the parsed body ``doc``."""
    stack: list[tuple[Any, str]] = [(doc, "body")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}.{i}") for i, v in enumerate(node))
    return None  # under a key given twice, whose last value the parsers keep


def non_finite_number(body: bytes) -> str | None:
    """Where ``body`` holds NaN, Infinity or -Infinity (``"NaN at body.date"``), or None.

    JSON has no such numbers, yet both parsers behind the service (Python's json for the FastAPI
    routes, pydantic-core for the fast path) read them as floats: a body holding one in a number's
    place would be answered as if it were a number. A body without either word (nearly every body)
    costs two byte scans; one with them is parsed by the same rules as FastAPI's, which also finds
    where each token is. A body that is not JSON for another reason gives None: its parser says why.
    """
    if b"NaN" not in body and b"Infinity" not in body:
        return None
    marks: list[_Constant] = []

    def constant(token: str) -> _Constant:
        marks.append(_Constant(token))
        return marks[-1]

    try:
        doc = json.loads(body, parse_constant=constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not marks:
        return None
    where = _path_to(doc, marks[0]) or "body"
    if len(where) > 200:  # keys are the caller's: a long one is not echoed whole
        where = where[:197] + "..."
    more = f" (and {len(marks) - 1} more)" if len(marks) > 1 else ""
    return f"{marks[0].token} at {where}{more}"


#: what the documents check takes as a page's date (what ContentSeen.check takes, in JSON's types)
_DATE_ACCEPTED = (
    "an ISO date or date-time string (2024-03-01, 2024-03-01T08:00:00Z), "
    "Unix seconds or milliseconds (a number), or null"
)


def _json_type(v: object) -> str:
    """How a JSON value of the wrong type is named back: the literal, or its kind for a container."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class URLBatch(_Strict):
    """URLs to check against (and add to) the seen-store of one crawl job."""

    job: StrictStr = Field(
        description="crawl job id: letters, digits, . _ -; up to 128 characters", examples=["news-2026-11"]
    )
    urls: list[StrictStr] = Field(
        description="URLs to check; each is added to the job's store",
        examples=[["https://example.com/a?utm_source=x", "https://example.com/b"]],
    )

    @field_validator("job")
    @classmethod
    def _job_ok(cls, v: str) -> str:
        if not _JOB_RE.fullmatch(v):  # fullmatch: "$" would let a trailing newline through
            raise ValueError(f"job must match {_JOB_RE.pattern} (letters, digits, '.', '_', '-'), got {v!r}")
        return v


class URLResults(BaseModel):
    job: str
    seen: list[bool] = Field(description="one per URL, in order: true when the job had seen it before")
    new: int = Field(description="how many URLs were new")


class DocumentCheck(_Strict):
    """A fetched page (HTML, main text extracted) or its text, to check and optionally add."""

    url: StrictStr = Field(examples=["https://example.com/news/1.html"])
    html: StrictStr | None = Field(default=None, description="the page's HTML")
    text: StrictStr | None = Field(default=None, description="the document's text, when there is no HTML")
    add: StrictBool = Field(default=True, description="false only asks; true also remembers the document")
    date: StrictStr | StrictInt | StrictFloat | None = Field(
        default=None,
        description=(
            "the page's date: an ISO date or date-time (2024-03-01, 2024-03-01T08:00:00Z), 20240301, "
            "2024年3月1日, or Unix seconds/milliseconds (a number or its digits); anything else is an "
            "unknown date. A near copy dated more than the engine's occasion_days from its partner is "
            "another occasion (a template), not a duplicate"
        ),
        examples=["2024-03-01"],
    )

    @field_validator("date", mode="wrap")
    @classmethod
    def _date_ok(cls, v: Any, handler: ValidatorFunctionWrapHandler) -> str | int | float | None:
        # one message for a date of another type: the union would give one error per member
        # ("body.date.str: Input should be a valid string (and 2 more)"), none saying what a date is
        try:
            date: str | int | float | None = handler(v)
        except ValidationError:
            raise PydanticCustomError(
                "date_type",
                "expected {accepted}; got {got}",
                {"accepted": _DATE_ACCEPTED, "got": _json_type(v)},
            ) from None
        if isinstance(date, str) and len(date) > 64:
            raise PydanticCustomError(
                "date_too_long", "a date string holds at most 64 characters, got {n}", {"n": len(date)}
            )
        if isinstance(date, float) and not math.isfinite(date):
            # a literal past the float range (1e999) parses as infinity; NaN and Infinity tokens
            # are refused before the body reaches a model (see non_finite_number)
            raise PydanticCustomError(
                "date_not_finite",
                "a date number must be finite (Unix seconds or milliseconds), got {v}",
                {"v": str(date)},
            )
        return date

    @field_validator("html", "text")
    @classmethod
    def _valid_unicode(cls, v: str | None) -> str | None:
        # JSON allows "\ud800" escapes, which are not Unicode text and could not be answered back;
        # encoding finds them faster than a regex over a page, the regex then says where
        if v is None:
            return v
        try:
            v.encode("utf-8")
            return v
        except UnicodeEncodeError:
            m = _SURROGATE.search(v)
        if m is not None:
            raise ValueError(
                f"holds a lone UTF-16 surrogate {m.group()!r} at character {m.start()}, which is not "
                "valid Unicode; send valid Unicode"
            )
        return v

    @model_validator(mode="after")
    def _has_content(self) -> DocumentCheck:
        if self.html is None and self.text is None:
            raise ValueError("send the page as 'html' or its text as 'text'; got neither")
        return self


def _verdict_model() -> type[BaseModel]:
    """``Verdict.to_dict()`` as a pydantic model: the dataclass's fields plus ``is_duplicate``."""
    hints = typing.get_type_hints(Verdict)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(Verdict):
        default: Any = ...  # required
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        fields[f.name] = (hints[f.name], default)
    fields["is_duplicate"] = (
        bool,
        Field(description="exact, content or near: the page repeats an earlier one"),
    )
    return create_model("Verdict", __config__=ConfigDict(extra="allow"), __doc__=Verdict.__doc__, **fields)


VerdictModel = _verdict_model()
