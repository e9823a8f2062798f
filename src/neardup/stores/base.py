"""The key-value store protocol behind nshash (and any component that needs integer ids), and ``open_store``.

A store maps keys (unsigned 64-bit ints, ``str`` or ``bytes``) to integer values, and assigns
*group ids* to batches of keys atomically (``assign_many``): a set of keys gets the id already held
by any of them, or a fresh id from a counter kept in the store itself, so ids survive restarts and
never collide. When one set of keys touches two groups, the groups merge (union-find): the smaller
id wins, the larger one becomes an alias of it, and every later lookup resolves to the winner.

Backends, one module each, picked by URL scheme through the one scheme table
(:mod:`neardup.stores.schemes`, shared with the URL seen-stores):

================================  ==========================================================
``memory://``                     a dict in this process, gone when it closes
``file:///path/snap``             a dict, loaded from and saved atomically to ``/path/snap``
``leveldb:///path/db``            LevelDB through plyvel (one process at a time)
``redis://host:6379/0?prefix=p``  Redis hashes under ``p:``, atomic Lua assignment (many processes)
================================  ==========================================================

>>> store = open_store("memory://")
>>> store.assign_many([[1, 2], [3], [2, 4]])
[1, 2, 1]
>>> store.assign_many([[3, 4]])  # joins groups 1 and 2: 1 wins
[1]
>>> store.resolve([2])
[1]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

from neardup.exceptions import ConfigError, StoreError
from neardup.stores.schemes import backend, schemes

__all__ = [
    "SCHEMES",
    "Closeable",
    "Key",
    "KeyValueStore",
    "MutableStore",
    "StoreBase",
    "assign_groups",
    "check_keys",
    "decode_key",
    "encode_key",
    "open_store",
]

#: the URL schemes ``open_store`` accepts (from the one scheme table, ``neardup.stores.schemes``)
SCHEMES: tuple[str, ...] = schemes("kv")

Key: TypeAlias = "int | str | bytes"

_U64 = 1 << 64
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


@runtime_checkable
class KeyValueStore(Protocol):
    """What every backend offers and callers use. Values and ids are Python ints; keys are ``Key``.

    ContentSeen uses the key-value half (``get_many``, ``put_many``, ``incr``), nshash the group
    half (``assign_many``, ``resolve``, ``groups``, metadata).
    """

    url: str  # the URL it was opened with, password redacted

    def get(self, key: Key) -> int | None:
        """The value stored under ``key``, or None."""
        ...

    def get_many(self, keys: Sequence[Key]) -> list[int | None]:
        """``get`` of each key, in one round trip where the backend allows."""
        ...

    def put_many(self, items: Sequence[tuple[Key, int]]) -> None:
        """Store each pair (plain writes: no grouping), in one round trip / write batch."""
        ...

    def incr(self, name: str, amount: int = 1) -> int:
        """Add ``amount`` to the named counter (created at 0) and return the new value, atomically."""
        ...

    def assign_many(self, groups: Sequence[Sequence[Key]]) -> list[int]:
        """For each list of keys, in order: the group id they share, merging and assigning as needed.

        Atomic per backend call: same result as calling it one list at a time.
        """
        ...

    def resolve(self, ids: Sequence[int]) -> list[int]:
        """The current (merged) id of each group id."""
        ...

    def groups(self) -> Iterator[tuple[int, int]]:
        """``(group id, assignments)`` of every live group (merged ids excluded)."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counts: keys, ids assigned, live groups, aliases, assignments."""
        ...

    def get_meta(self, name: str) -> str | None:
        """A named metadata string (e.g. the settings a store was built with)."""
        ...

    def set_meta(self, name: str, value: str) -> None: ...

    def flush(self) -> None:
        """Make what was written durable (snapshot, sync); a no-op where writes are already durable."""
        ...

    def close(self) -> None:
        """Flush and release the store; further use raises StoreError."""
        ...

    def __enter__(self) -> KeyValueStore: ...

    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class MutableStore(KeyValueStore, Protocol):
    """A store with single-key writes, a scan and a reset: every backend here, for tools and tests."""

    def put(self, key: Key, value: int) -> None:
        """Store ``value`` under ``key`` (a plain write: no grouping)."""
        ...

    def delete(self, key: Key) -> None:
        """Remove ``key`` if present."""
        ...

    def items(self) -> Iterator[tuple[Key, int]]:
        """Every ``(key, value)`` pair, in no particular order."""
        ...

    def clear(self) -> None:
        """Drop everything this store holds (for Redis: only the keys under its prefix)."""
        ...


_C = TypeVar("_C", bound="Closeable")


class Closeable:
    """``with obj:`` closes ``obj`` at the end of the block (stores, ContentSeen)."""

    def close(self) -> None:
        """Release what the object holds."""

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StoreBase(Closeable):
    """What the backends share: the context manager, the repr, the value check, the closed error.

    >>> with StoreBase() as s:
    ...     s.url, s.check_value(-1)
    ('memory://', -1)
    """

    url = "memory://"

    @staticmethod
    def check_value(value: int) -> int:
        """``value`` if it is a signed 64-bit int, else ConfigError."""
        if isinstance(value, bool) or not isinstance(value, int) or not _I64_MIN <= value <= _I64_MAX:
            raise ConfigError(f"values must be signed 64-bit ints, got {value!r}")
        return value

    def assign_many(self, groups: Sequence[Sequence[Key]]) -> list[int]:
        """The group id of each list of keys (see :class:`KeyValueStore`), lists checked first."""
        return self._assign_prepared(prepare_groups(groups))

    def _assign_prepared(self, groups: list[list[Key]]) -> list[int]:
        """``assign_many`` for key lists already checked and de-duplicated (the backend's part)."""
        raise NotImplementedError

    def _closed_error(self) -> StoreError:
        return StoreError(f"store {self.url!r} is closed")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


def check_keys(keys: Sequence[Key]) -> None:
    """Raise ConfigError for a key that is not an unsigned 64-bit int, str or bytes."""
    for k in keys:
        if isinstance(k, int) and not isinstance(k, bool):
            if not 0 <= k < _U64:
                raise ConfigError(f"int keys must be in [0, 2**64), got {k}")
        elif not isinstance(k, (str, bytes)):
            raise ConfigError(f"keys must be int, str or bytes, got {type(k).__name__}")


def encode_key(key: Key) -> bytes:
    """Tagged bytes of a key for stores that hold bytes: ``i`` + 8 bytes, ``s`` + UTF-8, ``b`` + raw.

    >>> encode_key(1), encode_key("a"), encode_key(b"a")
    (b'i\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01', b'sa', b'ba')
    """
    if isinstance(key, int):
        return b"i" + key.to_bytes(8, "big")
    if isinstance(key, str):
        return b"s" + key.encode("utf-8", "surrogatepass")
    return b"b" + bytes(key)


def decode_key(data: bytes) -> Key:
    """The key ``encode_key`` encoded."""
    tag, body = data[:1], data[1:]
    if tag == b"i":
        return int.from_bytes(body, "big")
    if tag == b"s":
        return body.decode("utf-8", "surrogatepass")
    return body


def assign_groups(
    groups: Sequence[Sequence[Key]], kv: dict[Key, int], alias: Any, sizes: Any, last_id: int
) -> tuple[list[int], int]:
    """The union-find assignment over the dict ``kv`` (key -> id) and the mapping-likes ``alias``
    (id -> parent id) and ``sizes`` (live id -> assignments): returns the ids and the new last id.

    ``alias`` and ``sizes`` need ``get``, ``__setitem__`` and (``sizes``) ``pop``: dicts, or a
    write-back overlay over a database. Key lists must be non-empty; repeated keys are harmless.
    """
    out: list[int] = []
    append = out.append
    kv_get = kv.get
    disjoint = kv.keys().isdisjoint
    update = kv.update
    fromkeys = dict.fromkeys
    alias_get = alias.get
    for keys in groups:
        if disjoint(keys):  # the common case, all in C: nothing known, a fresh id
            last_id += 1
            update(fromkeys(keys, last_id))
            sizes[last_id] = 1
            append(last_id)
            continue
        vals = [kv_get(k) for k in keys]
        roots = set()
        for x in {v for v in vals if v is not None}:
            r = x
            p = alias_get(r)
            while p is not None:
                r = p
                p = alias_get(r)
            if r != x and alias_get(x) != r:
                alias[x] = r  # path compression
            roots.add(r)
        sid = min(roots)
        moved = 1
        for r in roots:
            if r != sid:
                alias[r] = sid
                moved += sizes.pop(r, 0)
        sizes[sid] = sizes.get(sid, 0) + moved
        for k, v in zip(keys, vals, strict=True):
            if v != sid:
                kv[k] = sid
        append(sid)
    return out, last_id


def dedupe_keys(keys: Sequence[Key]) -> list[Key]:
    """``keys`` without repeats, first occurrence kept (dict preserves order)."""
    return list(dict.fromkeys(keys))


def prepare_groups(groups: Sequence[Sequence[Key]]) -> list[list[Key]]:
    """Validate and de-duplicate the key lists given to ``assign_many``."""
    out: list[list[Key]] = []
    for i, keys in enumerate(groups):
        if isinstance(keys, (str, bytes)) or not keys:
            raise ConfigError(f"assign_many expects a sequence of non-empty key lists; item {i} is {keys!r}")
        check_keys(keys)
        out.append(dedupe_keys(keys))
    return out


def open_store(url: str | KeyValueStore, **options: Any) -> KeyValueStore:
    """Open the store a URL names; an unknown scheme raises ConfigError listing the valid ones.

    ``memory://``, ``file:///path/snap``, ``leveldb:///path/db``, ``redis://host:port/db?prefix=p``.
    A bare path means ``file://``. A store object is returned as is.

    >>> with open_store("memory://") as s:
    ...     s.put("a", 7); s.get("a")
    7
    """
    if not isinstance(url, str):
        if isinstance(url, KeyValueStore):
            return url
        raise ConfigError(
            f"store must be a URL such as memory:// or a store object, got {type(url).__name__}"
        )
    from neardup.stores._url import parse_store_url

    parsed = parse_store_url(url, SCHEMES)
    store: KeyValueStore = backend(parsed.scheme, "kv").from_url(parsed, **options)
    return store
