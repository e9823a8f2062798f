"""Reading ``NEARDUP_*`` Scrapy settings with errors that name the setting."""

from __future__ import annotations

import logging
import math
import os
import re
from typing import TYPE_CHECKING, Any

from neardup.exceptions import ConfigError

if TYPE_CHECKING:
    from neardup.client import Client
    from neardup.contentseen.checker import ContentChecker

__all__ = [
    "CONTENTSEEN_DIR",
    "SERVICE_ERROR_REASON",
    "content_checker",
    "get_bool",
    "get_float",
    "get_int",
    "get_kinds",
    "get_number",
    "job_id_for",
    "make_store_folder",
    "probe_service",
    "service_client",
    "service_failure",
    "state_for",
    "stop_crawl",
]

#: the ContentSeen state under JOBDIR when NEARDUP_STATE is unset (it survives a pause and resume)
CONTENTSEEN_DIR = "neardup-contentseen"

_JOB_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_JOB_ID = re.compile(r"[A-Za-z0-9_.-]{1,200}")


def get_float(settings: Any, name: str) -> float | None:
    """A positive number of seconds, or None when unset/empty/0."""
    raw = settings.get(name)
    if raw in (None, "", 0, "0"):
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not value > 0 or math.isinf(value):
        raise ConfigError(f"{name} must be a finite number of seconds > 0 (or unset for never), got {raw!r}")
    return value


def get_number(settings: Any, name: str, default: float, what: str = "a number") -> float:
    """A finite number (``default`` when unset or empty)."""
    raw = settings.get(name)
    if raw is None or raw == "":
        return default
    try:
        if isinstance(raw, bool):
            raise TypeError
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be {what}, got {raw!r}") from None
    if not math.isfinite(value):
        raise ConfigError(f"{name} must be {what}, got {raw!r}")
    return value


def get_int(settings: Any, name: str, what: str = "a whole number") -> int | None:
    """A whole number, or None when unset or empty."""
    raw = settings.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    try:
        if isinstance(raw, (bool, float)):
            raise TypeError
        return int(str(raw).strip())
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be {what}, got {raw!r}") from None


def get_bool(settings: Any, name: str, default: bool) -> bool:
    """Scrapy's boolean reading, with an error that names the setting."""
    try:
        return bool(settings.getbool(name, default))
    except ValueError:
        raise ConfigError(
            f"{name} must be a boolean (True/False, 1/0, 'true'/'false'), got {settings.get(name)!r}"
        ) from None


def get_kinds(settings: Any, name: str, default: tuple[str, ...]) -> frozenset[str]:
    from neardup.contentseen.verdict import DUPLICATE_KINDS, RELATED_KINDS

    valid = DUPLICATE_KINDS | RELATED_KINDS
    raw = settings.get(name)
    if raw is None:
        raw = list(default)
    elif isinstance(raw, str):
        raw = raw.split(",")
    elif not isinstance(raw, (list, tuple, set, frozenset)):
        raise ConfigError(
            f"{name} must be a list of kinds such as ['exact', 'near'] (valid: {', '.join(sorted(valid))}), "
            f"got {raw!r}"
        )
    kinds = frozenset(str(k).strip() for k in raw if str(k).strip())
    unknown = sorted(kinds - valid)
    if unknown:
        raise ConfigError(f"{name} lists unknown kinds {unknown}; valid: {', '.join(sorted(valid))}")
    return kinds


def job_id_setting(settings: Any) -> str | None:
    """NEARDUP_JOB_ID as given (None when unset), refused unless a valid job id."""
    raw = settings.get("NEARDUP_JOB_ID")
    if raw is None or raw == "":
        return None
    job = str(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else ""
    if not _JOB_ID.fullmatch(job):
        raise ConfigError(f"NEARDUP_JOB_ID must be 1-200 characters of letters, digits and _.-, got {raw!r}")
    return job


def job_id_for(settings: Any, spider: Any) -> str:
    """NEARDUP_JOB_ID, or the spider's name made safe for a job id (letters, digits, _.-)."""
    raw = settings.get("NEARDUP_JOB_ID") or getattr(spider, "name", None) or "scrapy"
    job = _JOB_SAFE.sub("_", str(raw))[:200].strip("_") or "scrapy"
    return job


def service_client(settings: Any) -> Client | None:
    """A ``neardup.client.Client`` for NEARDUP_SERVICE_URL (token: NEARDUP_SERVICE_TOKEN), or None."""
    url = settings.get("NEARDUP_SERVICE_URL")
    if not url:
        return None
    from neardup.client import Client

    timeout = get_number(settings, "NEARDUP_SERVICE_TIMEOUT", 30.0, "a number of seconds > 0")
    if timeout <= 0:
        raise ConfigError(f"NEARDUP_SERVICE_TIMEOUT must be a number of seconds > 0, got {timeout!r}")
    return Client(str(url), token=settings.get("NEARDUP_SERVICE_TOKEN") or None, timeout=timeout)


def state_for(settings: Any) -> str:
    """NEARDUP_STATE, else ``JOBDIR/neardup-contentseen`` when JOBDIR is set, else ``memory://``."""
    state = settings.get("NEARDUP_STATE")
    if state:
        return str(state)
    jobdir = settings.get("JOBDIR")
    if jobdir:
        return os.path.join(os.path.abspath(str(jobdir)), CONTENTSEEN_DIR)
    return "memory://"


def make_store_folder(store: str) -> None:
    """Create the folder a file-backed URL store (``sqlite:///var/crawl/urls.db``, a bare path)
    lives in, as NEARDUP_STATE's folder is created."""
    from neardup.stores._url import parse_store_url
    from neardup.urls.seen import STORE_SCHEMES

    url = parse_store_url(store, STORE_SCHEMES)
    if url.scheme in ("memory", "redis", "rediss", "unix") or not url.path:
        return
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(url.path)))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"NEARDUP_URL_STORE: cannot create the folder {folder}: {exc.strerror}") from None


def probe_service(check_urls: Any, job: str, attempts: int = 3) -> None:
    """One authenticated call (an empty URL batch) to learn early that the service answers and takes
    the token; a busy service (503 with a status: a store still opening) is asked again."""
    from neardup.exceptions import ServiceUnavailable

    for attempt in range(attempts):
        try:
            check_urls(job, [])
            return
        except ServiceUnavailable as exc:
            if getattr(exc, "status", None) != 503 or attempt == attempts - 1:
                raise


def service_failure(exc: Exception, setting: str = "NEARDUP_SERVICE_URL") -> str:
    """One line saying why the neardup service cannot be used and what to check."""
    from neardup.exceptions import ServiceError

    status = getattr(exc, "status", None)
    if isinstance(exc, ServiceError) and status in (401, 403):
        return f"the neardup service refused the token ({status}): check NEARDUP_SERVICE_TOKEN ({exc})"
    return f"the neardup service cannot be used: {exc} (check {setting} and that neardup serve runs)"


def content_checker(settings: Any) -> ContentChecker:
    """The service's client when NEARDUP_SERVICE_URL is set, else a ``ContentSeen`` on NEARDUP_STATE
    (default ``JOBDIR/neardup-contentseen`` with JOBDIR, else ``memory://``) with
    NEARDUP_MAX_DISTANCE, NEARDUP_EXTRACTOR, NEARDUP_NSHASH_STORE and NEARDUP_DURABILITY."""
    client = service_client(settings)
    if client is not None:
        return client
    from neardup.contentseen import ContentSeen
    from neardup.stores.durability import check_durability

    if settings.get("NEARDUP_FSYNC") is not None:
        raise ConfigError(
            "NEARDUP_FSYNC is replaced by NEARDUP_DURABILITY = 'always' | 'everysec' | 'no' "
            "(True was 'always', False was 'no')"
        )
    from neardup.match import MatchConfig

    max_distance = get_int(settings, "NEARDUP_MAX_DISTANCE", "a whole number of bits such as 3 (or unset)")
    if not settings.get("NEARDUP_MAX_DISTANCE"):
        max_distance = None  # 0 means unset, as it always has
    strictness = get_number(settings, "NEARDUP_STRICTNESS", 0.5, "a number in [0, 1]")
    return ContentSeen(
        state_for(settings),
        max_distance=max_distance,
        extractor=settings.get("NEARDUP_EXTRACTOR") or "resiliparse",
        nshash_store=settings.get("NEARDUP_NSHASH_STORE") or None,
        durability=check_durability(settings.get("NEARDUP_DURABILITY") or "everysec", "NEARDUP_DURABILITY"),
        match=MatchConfig(
            profile=settings.get("NEARDUP_PROFILE") or "news",
            strictness=strictness,
        ),
    )


#: the reason a crawl is closed with when the neardup service cannot be used
SERVICE_ERROR_REASON = "neardup_service_error"
_log = logging.getLogger("neardup.integrations.scrapy")


def stop_crawl(crawler: Any, message: str, *, opening: bool = False) -> None:
    """Log ``message`` once at ERROR and close the spider with ``SERVICE_ERROR_REASON``; the crawl
    then counts as failed, so ``scrapy crawl`` exits with code 1. ``opening``: the spider is being
    opened, and the caller closes it by raising ``CloseSpider`` (Scrapy's way for a component that
    fails to start).

    Scrapy sets a non-zero exit only for a crawl that did not run (its crawler has no spider at
    the end), so once the spider is closed (the last of its ``spider_closed`` handlers) the
    crawler's spider is cleared for that check.
    """
    if crawler is None or getattr(crawler, "_neardup_stopping", False):
        return
    crawler._neardup_stopping = True
    _log.error("neardup: %s; stopping the crawl", message)
    stats = getattr(crawler, "stats", None)
    if stats is not None:
        stats.set_value("neardup/service_error", message)
    from scrapy import signals

    def mark_failed(spider: Any = None, reason: str = "") -> None:
        crawler.spider = None  # Scrapy's test for a failed crawl: exit code 1

    crawler._neardup_mark_failed = mark_failed  # signals hold weak references
    crawler.signals.connect(mark_failed, signal=signals.spider_closed)
    try:
        engine = crawler.engine
    except (AttributeError, RuntimeError):  # Scrapy raises until the crawl starts
        engine = None
    spider = getattr(crawler, "spider", None)
    if opening or engine is None or spider is None or getattr(engine, "spider", None) is None:
        return
    if hasattr(engine, "close_spider_async"):
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(engine.close_spider_async(reason=SERVICE_ERROR_REASON))
    else:  # Scrapy before 2.14
        engine.close_spider(spider, SERVICE_ERROR_REASON)
