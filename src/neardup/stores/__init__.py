"""Stores: key-value stores for integer group ids (memory with file snapshots, LevelDB, Redis), the
one scheme table every store URL goes through (``schemes``), and the state directory format.

>>> from neardup.stores import open_store
>>> open_store("memory://").assign_many([[1], [1, 2]])
[1, 1]
"""

from __future__ import annotations

from neardup.stores._url import with_prefix
from neardup.stores.base import SCHEMES, Key, KeyValueStore, MutableStore, StoreBase, open_store
from neardup.stores.schemes import backend, schemes

__all__ = [
    "SCHEMES",
    "Key",
    "KeyValueStore",
    "MutableStore",
    "StoreBase",
    "backend",
    "open_store",
    "schemes",
    "with_prefix",
]
