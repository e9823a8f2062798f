"""64-bit hash functions over text features: xxh3 (default), md5, farmhash, murmur3.

All are pure and stable across processes and machines (Python's ``hash()`` is salted per process
and is never used).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache

import xxhash

from neardup._deps import require
from neardup.config import HASH_NAMES
from neardup.exceptions import ConfigError

__all__ = ["HASH_NAMES", "get_hash64", "hash64"]

Hash64 = Callable[[bytes], int]


def _md5(data: bytes) -> int:
    return int.from_bytes(hashlib.md5(data).digest()[:8], "big")


def _farmhash() -> Hash64:
    farmhash = require("farmhash", "hashes", purpose="the farmhash hash function")
    fingerprint = farmhash.fingerprint64 if hasattr(farmhash, "fingerprint64") else farmhash.hash64
    return lambda data: int(fingerprint(data.decode("utf-8", "surrogatepass"))) & 0xFFFFFFFFFFFFFFFF


def _murmur3() -> Hash64:
    mmh3 = require("mmh3", "hashes", purpose="the murmur3 hash function")
    return lambda data: int(mmh3.hash64(data, signed=False)[0])


@cache
def get_hash64(name: str = "xxh3") -> Hash64:
    """The 64-bit hash function called ``name``, taking bytes, returning an int in [0, 2**64).

    >>> get_hash64("xxh3")(b"abc") == get_hash64("xxh3")(b"abc")
    True
    """
    if name == "xxh3":
        return xxhash.xxh3_64_intdigest
    if name == "md5":
        return _md5
    if name == "farmhash":
        return _farmhash()
    if name == "murmur3":
        return _murmur3()
    raise ConfigError(f"hash must be one of {', '.join(HASH_NAMES)}, got {name!r}")


def hash64(data: str | bytes, name: str = "xxh3") -> int:
    """Hash text or bytes to an unsigned 64-bit int. Text is encoded as UTF-8.

    >>> hash64("世界") == hash64("世界".encode())
    True
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return get_hash64(name)(data)
