"""The one scheme table: which backend module serves a store URL's scheme, for each kind of store.

Three kinds of store read URLs: ``kv`` (:class:`~neardup.stores.base.KeyValueStore`: nshash's
group ids, ContentSeen's key map), ``seen`` (the exact URL seen-stores of ``neardup.urls``) and
``bloom`` (their Bloom-filter mode). Backends are imported only when a URL asks for them, and a
backend's optional dependency is checked first, so a missing one names the extra to install.

================  =================  ===============  =====================
scheme            kv                 seen             bloom
================  =================  ===============  =====================
``memory``        MemoryStore        MemorySeenStore  MemoryBloomStore
``file``          MemoryStore
``leveldb``       LevelDBStore
``sqlite``                           SqliteSeenStore
``redis[s]``      RedisStore         RedisSeenStore   RedisBloomStore
``unix``          RedisStore         RedisSeenStore   RedisBloomStore
================  =================  ===============  =====================

>>> schemes("seen")
('memory', 'sqlite', 'redis', 'rediss', 'unix')
>>> backend("memory", "kv").__name__
'MemoryStore'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

from neardup._deps import require
from neardup.exceptions import ConfigError

__all__ = ["Backend", "StoreKind", "backend", "schemes"]

StoreKind = Literal["kv", "seen", "bloom"]


@dataclass(frozen=True)
class Backend:
    """Where a backend lives and what it needs: ``module.name``, ``needs`` from ``neardup[extra]``."""

    module: str
    name: str
    needs: str | None = None
    extra: str | None = None

    def load(self) -> Any:
        """The backend class (MissingDependency naming the extra when ``needs`` is not installed)."""
        if self.needs is not None:
            require(self.needs, self.extra or self.needs, purpose=f"{self.name} stores")
        return getattr(importlib.import_module(self.module), self.name)


_REDIS = {
    "kv": Backend("neardup.stores.redis", "RedisStore", "redis", "redis"),
    "seen": Backend("neardup.urls.redis", "RedisSeenStore", "redis", "redis"),
    "bloom": Backend("neardup.urls.bloom", "RedisBloomStore", "redis", "redis"),
}

# order matters: a bare path means the first file-like scheme a kind accepts
_TABLE: dict[str, dict[str, Backend]] = {
    "memory": {
        "kv": Backend("neardup.stores.memory", "MemoryStore"),
        "seen": Backend("neardup.urls.memory", "MemorySeenStore"),
        "bloom": Backend("neardup.urls.bloom", "MemoryBloomStore"),
    },
    "file": {"kv": Backend("neardup.stores.memory", "MemoryStore")},
    "leveldb": {"kv": Backend("neardup.stores.leveldb", "LevelDBStore", "plyvel", "leveldb")},
    "sqlite": {"seen": Backend("neardup.urls.sqlite", "SqliteSeenStore")},
    "redis": _REDIS,
    "rediss": _REDIS,
    "unix": _REDIS,
}


def schemes(kind: StoreKind) -> tuple[str, ...]:
    """The URL schemes a kind of store accepts, in table order."""
    return tuple(s for s, kinds in _TABLE.items() if kind in kinds)


def backend(scheme: str, kind: StoreKind) -> Any:
    """The backend class serving ``scheme`` for ``kind``; ConfigError listing the valid schemes."""
    entry = _TABLE.get(scheme, {}).get(kind)
    if entry is None:
        valid = ", ".join(f"{s}://" for s in schemes(kind))
        raise ConfigError(f"unknown store scheme {scheme!r} for {kind} stores; valid schemes: {valid}")
    return entry.load()
