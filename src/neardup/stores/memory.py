"""An in-process dict store, optionally snapshotted to a file (``memory://``, ``file:///path/snap``).

The snapshot is a small binary format, never a pickle: a fixed magic and version, a JSON header
(counters, metadata, section sizes, an xxh3 checksum of the payload and one of the header itself),
then numpy arrays. It is written atomically (temp file, fsync, rename), so a crash leaves the
previous snapshot whole, and a damaged or newer-version file is refused with FormatError instead of
being silently replaced. An id counter behind the ids it has handed out is refused too: the next id
would join two unrelated groups.

>>> from neardup.stores import open_store
>>> s = open_store("memory://")
>>> s.assign_many([[10, 11], [12], [11]])
[1, 2, 1]
"""

from __future__ import annotations

import json
import os
import struct
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from neardup.exceptions import FormatError, StoreError
from neardup.stores._url import StoreURL, check_query
from neardup.stores.base import Key, StoreBase, assign_groups, check_keys, decode_key, encode_key

__all__ = ["SNAPSHOT_VERSION", "MemoryStore", "load_snapshot", "save_snapshot"]

MAGIC = b"NDKVSNAP"
SNAPSHOT_VERSION = 2  # 2: the header carries its own checksum (1: the payload's only; still read)
_IDS = "ids"  # the counter group ids come from


class _State:
    """Everything a memory store holds; shared with the exit-time finalizer (which must not hold the store)."""

    __slots__ = ("alias", "counters", "dirty", "kv", "meta", "sizes")

    def __init__(self) -> None:
        self.kv: dict[Key, int] = {}
        self.alias: dict[int, int] = {}
        self.sizes: dict[int, int] = {}
        self.counters: dict[str, int] = {}
        self.meta: dict[str, str] = {}
        self.dirty = False


def save_snapshot(path: str | os.PathLike[str], state: _State) -> None:
    """Write ``state`` to ``path`` atomically (temp file beside it, fsync, rename)."""
    from neardup.io import atomic_write

    int_keys = [k for k in state.kv if isinstance(k, int)]
    other_keys = [k for k in state.kv if not isinstance(k, int)]
    kv = state.kv
    parts = [
        np.array(int_keys, dtype=np.uint64).tobytes(),
        np.array([kv[k] for k in int_keys], dtype=np.int64).tobytes(),
    ]
    encoded = [encode_key(k) for k in other_keys]
    parts += [
        np.array([len(e) for e in encoded], dtype=np.uint32).tobytes(),
        b"".join(encoded),
        np.array([kv[k] for k in other_keys], dtype=np.int64).tobytes(),
        np.array(list(state.alias.keys()), dtype=np.int64).tobytes(),
        np.array(list(state.alias.values()), dtype=np.int64).tobytes(),
        np.array(list(state.sizes.keys()), dtype=np.int64).tobytes(),
        np.array(list(state.sizes.values()), dtype=np.int64).tobytes(),
    ]
    payload = b"".join(parts)
    fields = {
        "format": "neardup-kv-snapshot",
        "version": SNAPSHOT_VERSION,
        "int_keys": len(int_keys),
        "other_keys": len(other_keys),
        "other_bytes": len(parts[3]),
        "aliases": len(state.alias),
        "groups": len(state.sizes),
        "counters": state.counters,
        "meta": state.meta,
        "payload_bytes": len(payload),
        "checksum": xxhash.xxh3_64_hexdigest(payload),
    }
    fields["header_checksum"] = _header_checksum(fields)
    header = json.dumps(fields, sort_keys=True).encode()
    try:
        with atomic_write(path, "wb", join=False) as fh:
            fh.write(MAGIC + struct.pack("<II", SNAPSHOT_VERSION, len(header)))
            fh.write(header)
            fh.write(payload)
    except OSError as exc:
        raise StoreError(f"cannot write snapshot {os.fspath(path)!r}: {exc}") from exc


def _header_checksum(fields: dict[str, Any]) -> str:
    body = {k: v for k, v in fields.items() if k != "header_checksum"}
    return xxhash.xxh3_64_hexdigest(json.dumps(body, sort_keys=True).encode())


def load_snapshot(path: str | os.PathLike[str]) -> _State:
    """Read a snapshot ``save_snapshot`` wrote; FormatError if it is damaged or of another version."""
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read snapshot {name!r}: {exc}") from exc
    if data[:1] == b"\x80":  # pickle protocol 2+, e.g. veelion/nshash's {name}.hashdb.pkl
        raise FormatError(
            f"{name!r} is a Python pickle (veelion/nshash's memory store?), not a neardup store snapshot: "
            "neardup never loads pickles and keys sentences differently, so its ids cannot be reused; "
            "re-run your documents into a new store (e.g. neardup nshash docs.jsonl --store file:///new.snap)"
        )
    if data[:8] != MAGIC or len(data) < 16:
        raise FormatError(
            f"{name!r} is not a neardup store snapshot (bad magic); move it away or pick another path"
        )
    version, hlen = struct.unpack("<II", data[8:16])
    if version not in (1, SNAPSHOT_VERSION):
        raise FormatError(
            f"{name!r} is a version {version} snapshot; this neardup reads version "
            f"{SNAPSHOT_VERSION}: upgrade neardup"
        )
    try:
        header = json.loads(data[16 : 16 + hlen])
    except ValueError:
        raise FormatError(f"{name!r}: snapshot header is damaged") from None
    if not isinstance(header, dict) or (
        version >= 2 and header.get("header_checksum") != _header_checksum(header)
    ):
        raise FormatError(
            f"{name!r}: snapshot header is damaged (checksum mismatch); restore it from a backup "
            "or delete it to start empty"
        )
    try:
        return _load_sections(name, header, memoryview(data)[16 + hlen :])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"{name!r}: snapshot header is damaged ({type(exc).__name__}: {exc})") from None


def _load_sections(name: str, header: dict[str, Any], payload: memoryview) -> _State:
    if len(payload) != header["payload_bytes"] or xxhash.xxh3_64_hexdigest(payload) != header["checksum"]:
        raise FormatError(
            f"{name!r}: snapshot payload is truncated or damaged (checksum mismatch); "
            "restore it from a backup or delete it to start empty"
        )
    state = _State()
    pos = 0

    def take(dtype: Any, count: int) -> np.ndarray[Any, Any]:
        nonlocal pos
        arr = np.frombuffer(payload, dtype=dtype, count=count, offset=pos)
        pos += arr.nbytes
        return arr

    n_int, n_other = header["int_keys"], header["other_keys"]
    keys = take(np.uint64, n_int).tolist()
    state.kv = dict(zip(keys, take(np.int64, n_int).tolist(), strict=False))
    lengths = take(np.uint32, n_other).tolist()
    blob = bytes(payload[pos : pos + header["other_bytes"]])
    pos += header["other_bytes"]
    values = take(np.int64, n_other).tolist()
    off = 0
    for length, value in zip(lengths, values, strict=False):
        state.kv[decode_key(blob[off : off + length])] = value
        off += length
    state.alias = dict(
        zip(
            take(np.int64, header["aliases"]).tolist(),
            take(np.int64, header["aliases"]).tolist(),
            strict=False,
        )
    )
    gk = take(np.int64, header["groups"]).tolist()
    state.sizes = dict(zip(gk, take(np.int64, header["groups"]).tolist(), strict=False))
    state.counters = {str(k): int(v) for k, v in header["counters"].items()}
    state.meta = {str(k): str(v) for k, v in header["meta"].items()}
    if state.sizes and max(state.sizes) > state.counters.get(_IDS, 0):
        raise FormatError(
            f"{name!r}: the id counter ({state.counters.get(_IDS, 0)}) is behind the ids in use (up to "
            f"{max(state.sizes)}): the snapshot is inconsistent; restore it from a backup"
        )
    return state


def _save_at_exit(path: str, state: _State) -> None:
    if state.dirty:
        save_snapshot(path, state)


class MemoryStore(StoreBase):
    """A dict store; with ``path``, loaded from it at open and saved to it at ``flush``/``close``
    (and at interpreter exit if never closed).

    >>> MemoryStore().assign_many([["a"], ["b", "a"]])
    [1, 1]
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, url: str | None = None) -> None:
        self.path = os.fspath(path) if path is not None else None
        self.url = url or (f"file://{self.path}" if self.path else "memory://")
        self._lock = threading.RLock()
        self._closed = False
        if self.path is not None and os.path.exists(self.path):
            self._state = load_snapshot(self.path)
        else:
            self._state = _State()
            if self.path is not None:
                parent = Path(self.path).parent
                if not parent.is_dir():
                    raise StoreError(
                        f"cannot open store {self.url!r}: directory {str(parent)!r} does not exist"
                    )
        self._finalizer = (
            weakref.finalize(self, _save_at_exit, self.path, self._state) if self.path is not None else None
        )

    @classmethod
    def from_url(cls, url: StoreURL, **options: Any) -> MemoryStore:
        """``memory://`` (no file) or ``file:///path/snap``; neither reads a query parameter."""
        check_query(url, frozenset(), f"a {url.scheme}:// store")
        return cls(url.path if url.scheme == "file" else None, url=url.redacted(), **options)

    # -- plumbing ----------------------------------------------------------------------------
    def _live(self) -> _State:
        if self._closed:
            raise self._closed_error()
        return self._state

    def __repr__(self) -> str:
        return f"MemoryStore({self.url!r}, keys={len(self._state.kv)})"

    def __len__(self) -> int:
        return len(self._state.kv)

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError(
            "a memory store cannot be pickled: each copy would hand out its own ids; "
            "use a redis:// store to share ids between processes"
        )

    # -- key-value ---------------------------------------------------------------------------
    def get(self, key: Key) -> int | None:
        return self._live().kv.get(key)

    def get_many(self, keys: Sequence[Key]) -> list[int | None]:
        get = self._live().kv.get
        return [get(k) for k in keys]

    def put(self, key: Key, value: int) -> None:
        check_keys([key])
        st = self._live()
        st.kv[key] = self.check_value(value)
        st.dirty = True

    def put_many(self, items: Sequence[tuple[Key, int]]) -> None:
        items = list(items)
        check_keys([k for k, _ in items])
        for _, v in items:
            self.check_value(v)
        with self._lock:
            st = self._live()
            st.kv.update(items)
            st.dirty = True

    def delete(self, key: Key) -> None:
        st = self._live()
        if st.kv.pop(key, None) is not None:
            st.dirty = True

    def incr(self, name: str, amount: int = 1) -> int:
        with self._lock:
            st = self._live()
            value = st.counters.get(name, 0) + amount
            st.counters[name] = value
            st.dirty = True
            return value

    # -- groups ------------------------------------------------------------------------------
    def _assign_prepared(self, groups: list[list[Key]]) -> list[int]:
        """``assign_many`` for key lists already validated and de-duplicated (the nshash hot path)."""
        with self._lock:
            st = self._live()
            out, last = assign_groups(groups, st.kv, st.alias, st.sizes, st.counters.get(_IDS, 0))
            st.counters[_IDS] = last
            st.dirty = True
            return out

    def resolve(self, ids: Sequence[int]) -> list[int]:
        alias_get = self._live().alias.get
        out = []
        for i in ids:
            p = alias_get(i)
            while p is not None:
                i = p
                p = alias_get(i)
            out.append(i)
        return out

    def groups(self) -> Iterator[tuple[int, int]]:
        yield from list(self._live().sizes.items())

    def items(self) -> Iterator[tuple[Key, int]]:
        yield from list(self._live().kv.items())

    def stats(self) -> dict[str, Any]:
        st = self._live()
        return {
            "backend": "memory",
            "url": self.url,
            "keys": len(st.kv),
            "ids_assigned": st.counters.get(_IDS, 0),
            "groups": len(st.sizes),
            "aliases": len(st.alias),
            "assignments": sum(st.sizes.values()),
        }

    def get_meta(self, name: str) -> str | None:
        return self._live().meta.get(name)

    def set_meta(self, name: str, value: str) -> None:
        st = self._live()
        st.meta[name] = str(value)
        st.dirty = True

    def clear(self) -> None:
        with self._lock:
            st = self._live()
            for d in (st.kv, st.alias, st.sizes, st.counters, st.meta):
                d.clear()
            st.dirty = True

    # -- lifetime ----------------------------------------------------------------------------
    def flush(self) -> None:
        """Save the snapshot now (atomically), if this store has a path and changed since."""
        with self._lock:
            st = self._live()
            if self.path is not None and st.dirty:
                save_snapshot(self.path, st)
                st.dirty = False

    def close(self) -> None:
        if self._closed:
            return
        try:
            self.flush()
        finally:
            # a save that failed here was raised to the caller: not tried again at exit
            self._closed = True
            if self._finalizer is not None:
                self._finalizer.detach()
