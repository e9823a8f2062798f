"""Key-value stores for integer group ids: memory (with file snapshots), LevelDB and Redis.

>>> from neardup.stores import open_store
>>> open_store("memory://").assign_many([[1], [1, 2]])
[1, 1]
"""

from __future__ import annotations

from neardup.stores.base import SCHEMES, Key, KeyValueStore, open_store

__all__ = ["SCHEMES", "Key", "KeyValueStore", "open_store"]
