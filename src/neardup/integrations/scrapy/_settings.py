"""Reading ``NEARDUP_*`` Scrapy settings with errors that name the setting."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from neardup.exceptions import ConfigError

if TYPE_CHECKING:
    from neardup.client import Client
    from neardup.contentseen.checker import ContentChecker

__all__ = ["content_checker", "get_float", "get_kinds", "job_id_for", "service_client"]

_JOB_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def get_float(settings: Any, name: str) -> float | None:
    """A positive number of seconds, or None when unset/empty/0."""
    raw = settings.get(name)
    if raw in (None, "", 0, "0"):
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be > 0 seconds (or unset for never), got {raw!r}")
    return value


def get_kinds(settings: Any, name: str, default: tuple[str, ...]) -> frozenset[str]:
    from neardup.contentseen.verdict import DUPLICATE_KINDS, RELATED_KINDS

    valid = DUPLICATE_KINDS | RELATED_KINDS
    raw = settings.getlist(name, list(default))
    kinds = frozenset(str(k).strip() for k in raw if str(k).strip())
    unknown = sorted(kinds - valid)
    if unknown:
        raise ConfigError(f"{name} lists unknown kinds {unknown}; valid: {', '.join(sorted(valid))}")
    return kinds


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

    timeout = settings.getfloat("NEARDUP_SERVICE_TIMEOUT", 30.0)
    return Client(str(url), token=settings.get("NEARDUP_SERVICE_TOKEN") or None, timeout=timeout)


def content_checker(settings: Any) -> ContentChecker:
    """The service's client when NEARDUP_SERVICE_URL is set, else a ``ContentSeen`` on NEARDUP_STATE
    (default ``memory://``) with NEARDUP_MAX_DISTANCE, NEARDUP_EXTRACTOR, NEARDUP_NSHASH_STORE and
    NEARDUP_DURABILITY."""
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
    max_distance = settings.get("NEARDUP_MAX_DISTANCE")
    return ContentSeen(
        settings.get("NEARDUP_STATE") or "memory://",
        max_distance=settings.getint("NEARDUP_MAX_DISTANCE") if max_distance else None,
        extractor=settings.get("NEARDUP_EXTRACTOR") or "resiliparse",
        nshash_store=settings.get("NEARDUP_NSHASH_STORE") or None,
        durability=check_durability(settings.get("NEARDUP_DURABILITY") or "everysec", "NEARDUP_DURABILITY"),
    )
