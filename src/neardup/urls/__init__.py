"""URL seen-store per crawl job: canonical URLs, re-crawl windows, memory/SQLite/Redis/Bloom backends.

>>> from neardup.urls import SeenURLs, canonicalize_url
>>> canonicalize_url("HTTPS://Example.com:443/a?utm_source=x&b=1#f")
'https://example.com/a?b=1'
"""

from __future__ import annotations

from neardup.urls.canonical import (
    DEFAULT_DROP_PARAMS,
    DEFAULT_MAX_URL_LENGTH,
    canonical_hash,
    canonical_hashes,
    canonicalize_many,
    canonicalize_url,
    check_url,
)
from neardup.urls.seen import STORE_SCHEMES, SeenStore, SeenURLs, url_hashes

__all__ = [
    "DEFAULT_DROP_PARAMS",
    "DEFAULT_MAX_URL_LENGTH",
    "STORE_SCHEMES",
    "SeenStore",
    "SeenURLs",
    "canonical_hash",
    "canonical_hashes",
    "canonicalize_many",
    "canonicalize_url",
    "check_url",
    "url_hashes",
]
