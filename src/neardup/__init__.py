"""neardup: duplicate and near-duplicate detection for texts and web pages, Chinese first.

The core of the public API is re-exported here (docs/api.md: every public name and the one path
it is imported from). Names load on first use, so ``import neardup`` stays light (numba kernels,
jieba and the optional extras are imported only by what needs them).

>>> import neardup
>>> neardup.hamming(0b1011, 0b0001)
2
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from neardup import (
    _interrupt,  # noqa: F401  (first: a Ctrl-C while the command starts is one line)
    _jit,
)
from neardup._version import __version__
from neardup.config import SimHashConfig
from neardup.exceptions import (
    ConfigError,
    FormatError,
    InputError,
    MissingDependency,
    NeardupError,
    StoreError,
)

_jit.configure_cache()  # a writable numba cache folder, before any kernel is declared

# public name -> the module it is read from on first use. The core only: each concern's other
# names are imported from its subpackage (docs/api.md lists every public name with its one path),
# and a subpackage's name (``fingerprint``, ``eval``, ...) is never a name here.
_LAZY: dict[str, str] = {
    "SimHasher": "neardup.fingerprint.simhash",
    "fingerprint_many": "neardup.fingerprint.simhash",
    "hamming": "neardup.fingerprint.simhash",
    "Simhash": "neardup.fingerprint.compat",
    "SimhashIndex": "neardup.fingerprint.compat",
    "NSHash": "neardup.fingerprint.nshash",
    "open_store": "neardup.stores",
    "HammingIndex": "neardup.index",
    "SeenURLs": "neardup.urls",
    "canonicalize_url": "neardup.urls",
    "ContentSeen": "neardup.contentseen",
    "Verdict": "neardup.contentseen",
    "DedupConfig": "neardup.dedup",
    "dedup_records": "neardup.dedup",
    "dedup_table": "neardup.dedup",
    "CorpusIndex": "neardup.dedup",
    "Client": "neardup.client",
    "AsyncClient": "neardup.client",
    "ServiceError": "neardup.exceptions",
}

__all__ = [
    "AsyncClient",
    "Client",
    "ConfigError",
    "ContentSeen",
    "CorpusIndex",
    "DedupConfig",
    "FormatError",
    "HammingIndex",
    "InputError",
    "MissingDependency",
    "NSHash",
    "NeardupError",
    "SeenURLs",
    "ServiceError",
    "SimHashConfig",
    "SimHasher",
    "Simhash",
    "SimhashIndex",
    "StoreError",
    "Verdict",
    "__version__",
    "canonicalize_url",
    "dedup_records",
    "dedup_table",
    "fingerprint_many",
    "hamming",
    "open_store",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # let type checkers and IDEs see the lazy names
    from neardup.client import AsyncClient, Client
    from neardup.contentseen import ContentSeen, Verdict
    from neardup.dedup import CorpusIndex, DedupConfig, dedup_records, dedup_table
    from neardup.exceptions import ServiceError
    from neardup.fingerprint.compat import Simhash, SimhashIndex
    from neardup.fingerprint.nshash import NSHash
    from neardup.fingerprint.simhash import SimHasher, fingerprint_many, hamming
    from neardup.index import HammingIndex
    from neardup.stores import open_store
    from neardup.urls import SeenURLs, canonicalize_url
