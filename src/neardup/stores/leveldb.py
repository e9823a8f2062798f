"""A LevelDB store through plyvel (``leveldb:///path/db``; ``?sync=1`` fsyncs every write batch).

LevelDB lets one process open a database at a time (it holds a LOCK file), so this store is for one
process; use Redis for many. Each ``assign_many`` call reads through an in-memory overlay and lands
as one atomic write batch together with the id counter, so ids survive a crash or restart and never
collide. Layout (all values 8-byte big-endian signed ints unless noted)::

    k<tagged key>  value          a<id>  parent id (merged group)
    g<id>          assignments    c<name> counter    m<name> metadata (UTF-8)
    \\x00version    b"1"

>>> import tempfile
>>> from neardup.stores import open_store
>>> with open_store(f"leveldb://{tempfile.mkdtemp()}/db") as s:
...     s.assign_many([[1, 2], [2, 3]])
[1, 1]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from neardup._deps import require
from neardup.exceptions import FormatError, StoreError
from neardup.stores._url import StoreURL, check_query
from neardup.stores.base import Key, StoreBase, assign_groups, check_keys, decode_key, encode_key

__all__ = ["LevelDBStore"]

_VERSION_KEY = b"\x00version"
_VERSION = b"1"
_IDS = "ids"


def _enc_int(value: int) -> bytes:
    return value.to_bytes(8, "big", signed=True)


def _dec_int(data: bytes) -> int:
    return int.from_bytes(data, "big", signed=True)


def _kv_key(key: Key) -> bytes:
    if isinstance(key, int):
        return b"ki" + key.to_bytes(8, "big")
    return b"k" + encode_key(key)


class _Overlay:
    """A mapping over one LevelDB key prefix that reads through to the database and keeps writes
    (None = deleted) until they land in one write batch."""

    __slots__ = ("_db", "_enc", "writes")

    def __init__(self, db: Any, enc: Any) -> None:
        self._db = db
        self._enc = enc
        self.writes: dict[Any, int | None] = {}

    def get(self, key: Any, default: int | None = None) -> int | None:
        if key in self.writes:
            v = self.writes[key]
            return default if v is None else v
        raw = self._db.get(self._enc(key))
        return default if raw is None else _dec_int(raw)

    def __setitem__(self, key: Any, value: int) -> None:
        self.writes[key] = value

    def pop(self, key: Any, default: int = 0) -> int:
        v = self.get(key)
        self.writes[key] = None
        return default if v is None else v


def _refuse_foreign(db: Any, url: str) -> None:
    """Close ``db`` and raise FormatError if it holds keys but no neardup version key."""
    with db.iterator(include_value=True) as it:
        sample = [kv for kv, _ in zip(it, range(20), strict=False)]
    if not sample:
        return
    db.close()
    # veelion/nshash writes md5 hex digests (or farmhash ints) of sentences -> decimal similar ids
    upstream = all(
        ((len(k) == 32 and all(c in b"0123456789abcdef" for c in k)) or k.isdigit()) and v.isdigit()
        for k, v in sample
    )
    if upstream:
        raise FormatError(
            f"{url!r} is a veelion/nshash LevelDB store (sentence-hash keys, decimal ids), not a neardup "
            "one: neardup splits and hashes sentences differently, so its ids cannot be reused or "
            "extended without collisions. Re-run your documents into a new store (neardup nshash "
            "docs.jsonl --store leveldb:///new/path), or move this folder aside and start afresh"
        )
    raise FormatError(
        f"{url!r} is a LevelDB database with other data (no neardup version key): "
        "pick an empty or new folder for a neardup store"
    )


def _id_key(tag: bytes) -> Any:
    return lambda i: tag + _enc_int(i)


def _refuse_damaged(path: str, url: str) -> None:
    """A folder that holds files but no ``CURRENT`` is a damaged or foreign database: LevelDB,
    asked to create one there, would start empty and delete the tables it finds."""
    if not os.path.isdir(path) or os.path.exists(os.path.join(path, "CURRENT")):
        return
    if os.listdir(path):
        raise FormatError(
            f"{url!r}: the folder holds files but no LevelDB CURRENT file: a damaged or foreign "
            "database, not opened (opening would discard its tables); restore it from a backup, or "
            "choose an empty or new folder"
        )


class LevelDBStore(StoreBase):
    """A persistent store in a LevelDB directory (created if missing)."""

    def __init__(self, path: str | os.PathLike[str], *, url: str | None = None, sync: bool = False) -> None:
        plyvel = require("plyvel", "leveldb", purpose="LevelDB stores")
        self.path = os.fspath(path)
        self.url = url or f"leveldb://{self.path}"
        self.sync = sync
        self._lock = threading.RLock()
        parent = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(parent):
            raise StoreError(
                f"cannot create store {self.url!r}: its parent folder {parent!r} does not exist; "
                f"create it first (mkdir -p {parent}) or choose another path"
            )
        _refuse_damaged(self.path, self.url)
        try:
            # a bloom filter makes lookups of absent keys (most sentence hashes) cheap
            self._db: Any = plyvel.DB(self.path, create_if_missing=True, bloom_filter_bits=10)
        except (plyvel.Error, OSError) as exc:
            hint = (
                "LevelDB allows one process per database; is another process using it?"
                if "lock" in str(exc).lower()
                else "check the path and its permissions"
            )
            raise StoreError(f"cannot open store {self.url!r}: {exc} ({hint})") from exc
        version = self._db.get(_VERSION_KEY)
        if version is None:
            _refuse_foreign(self._db, self.url)
            self._db.put(_VERSION_KEY, _VERSION, sync=True)
        elif version != _VERSION:
            self._db.close()
            raise FormatError(
                f"{self.url!r} is a version {version.decode(errors='replace')} neardup store; "
                f"this neardup reads version {_VERSION.decode()}: upgrade neardup"
            )
        self._alias_key = _id_key(b"a")
        self._size_key = _id_key(b"g")

    @property
    def _live(self) -> Any:
        if self._db is None or self._db.closed:
            raise self._closed_error()
        return self._db

    @classmethod
    def from_url(cls, url: StoreURL, **options: Any) -> LevelDBStore:
        """``leveldb:///path/db``; ``?sync=1`` fsyncs every write batch (its one query parameter)."""
        check_query(url, frozenset({"sync"}), "a LevelDB store")
        sync = url.params.get("sync", "0") not in ("0", "false", "no", "")
        return cls(url.path, url=url.redacted(), sync=sync, **options)

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError(
            "a LevelDB store cannot be pickled: LevelDB allows one process per database; "
            "use a redis:// store to share ids between processes"
        )

    # -- key-value ---------------------------------------------------------------------------
    def get(self, key: Key) -> int | None:
        raw = self._live.get(_kv_key(key))
        return None if raw is None else _dec_int(raw)

    def get_many(self, keys: Sequence[Key]) -> list[int | None]:
        db = self._live
        out: list[int | None] = []
        for k in keys:
            raw = db.get(_kv_key(k))
            out.append(None if raw is None else _dec_int(raw))
        return out

    def put(self, key: Key, value: int) -> None:
        self.put_many([(key, value)])

    def put_many(self, items: Sequence[tuple[Key, int]]) -> None:
        items = list(items)
        check_keys([k for k, _ in items])
        with self._lock, self._live.write_batch(sync=self.sync, transaction=True) as wb:
            for k, v in items:
                wb.put(_kv_key(k), _enc_int(self.check_value(v)))

    def delete(self, key: Key) -> None:
        self._live.delete(_kv_key(key), sync=self.sync)

    def incr(self, name: str, amount: int = 1) -> int:
        with self._lock:
            db = self._live
            k = b"c" + name.encode()
            raw = db.get(k)
            value = (0 if raw is None else _dec_int(raw)) + amount
            db.put(k, _enc_int(value), sync=self.sync)
            return value

    # -- groups ------------------------------------------------------------------------------
    def _assign_prepared(self, groups: list[list[Key]]) -> list[int]:
        with self._lock:
            db = self._live
            # read every key of the batch once, up front; assign in a plain dict; write back changes
            dbget = db.get
            found: dict[Key, int | None] = {}
            for keys in groups:
                for k in keys:
                    if k not in found:
                        raw = dbget(b"ki" + k.to_bytes(8, "big") if type(k) is int else _kv_key(k))
                        found[k] = None if raw is None else _dec_int(raw)
            kv = {k: v for k, v in found.items() if v is not None}
            alias = _Overlay(db, self._alias_key)
            sizes = _Overlay(db, self._size_key)
            ctr_key = b"c" + _IDS.encode()
            raw = db.get(ctr_key)
            first = 0 if raw is None else _dec_int(raw)
            out, last = assign_groups(groups, kv, alias, sizes, first)
            kv_writes = [(k, v) for k, v in kv.items() if found[k] != v]
            try:
                with db.write_batch(sync=self.sync, transaction=True) as wb:
                    for k, sid in kv_writes:
                        wb.put(b"ki" + k.to_bytes(8, "big") if type(k) is int else _kv_key(k), _enc_int(sid))
                    for overlay in (alias, sizes):
                        enc = overlay._enc
                        for k, v in overlay.writes.items():
                            if v is None:
                                wb.delete(enc(k))
                            else:
                                wb.put(enc(k), _enc_int(v))
                    if last != first:
                        wb.put(ctr_key, _enc_int(last))
            except Exception as exc:  # plyvel.Error, IOError from a full disk
                raise StoreError(f"store {self.url!r}: write failed: {exc}") from exc
            return out

    def resolve(self, ids: Sequence[int]) -> list[int]:
        db = self._live
        out = []
        for i in ids:
            p = db.get(self._alias_key(i))
            while p is not None:
                i = _dec_int(p)
                p = db.get(self._alias_key(i))
            out.append(i)
        return out

    def _scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        with self._live.iterator(prefix=prefix) as it:
            for k, v in it:
                yield k[len(prefix) :], v

    def groups(self) -> Iterator[tuple[int, int]]:
        for k, v in self._scan(b"g"):
            yield _dec_int(k), _dec_int(v)

    def items(self) -> Iterator[tuple[Key, int]]:
        for k, v in self._scan(b"k"):
            yield decode_key(k), _dec_int(v)

    def stats(self) -> dict[str, Any]:
        keys = sum(1 for _ in self._scan(b"k"))
        aliases = sum(1 for _ in self._scan(b"a"))
        groups = assignments = 0
        for _, size in self.groups():
            groups += 1
            assignments += size
        raw = self._live.get(b"c" + _IDS.encode())
        return {
            "backend": "leveldb",
            "url": self.url,
            "keys": keys,
            "ids_assigned": 0 if raw is None else _dec_int(raw),
            "groups": groups,
            "aliases": aliases,
            "assignments": assignments,
        }

    def get_meta(self, name: str) -> str | None:
        raw = self._live.get(b"m" + name.encode())
        return None if raw is None else bytes(raw).decode()

    def set_meta(self, name: str, value: str) -> None:
        self._live.put(b"m" + name.encode(), str(value).encode(), sync=True)

    def clear(self) -> None:
        with self._lock:
            db = self._live
            with db.write_batch(sync=self.sync, transaction=True) as wb:
                for k in db.iterator(include_value=False):
                    if k != _VERSION_KEY:
                        wb.delete(k)

    # -- lifetime ----------------------------------------------------------------------------
    def flush(self) -> None:
        """LevelDB writes land at once (its log); with ``sync=False`` an OS crash may lose the last ones."""
        self._live  # noqa: B018 - raises if closed

    def close(self) -> None:
        if self._db is not None and not self._db.closed:
            self._db.close()
