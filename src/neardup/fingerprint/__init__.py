"""Fingerprints: SimHash (``simhash``), the ``simhash`` package's API (``compat``), hash functions.

>>> from neardup.fingerprint import fingerprint, hamming
>>> hamming(fingerprint("新闻联播"), fingerprint("新闻联播")) == 0
True

This package is also callable as the function it is named after, because ``neardup.fingerprint``
names both: once any of its modules is imported, ``from neardup import fingerprint`` gives the
package, so calling it must fingerprint a text like ``neardup.fingerprint.simhash.fingerprint``.

>>> import neardup
>>> neardup.fingerprint("新闻联播") == fingerprint("新闻联播")
True
"""

from __future__ import annotations

import sys
import types
from typing import Any

from neardup.fingerprint.hashing import get_hash64, hash64
from neardup.fingerprint.simhash import (
    SimHasher,
    bit_sums,
    cosine,
    fingerprint,
    fingerprint_many,
    hamming,
    hamming_many,
    simhash_from_features,
    similarity,
)

__all__ = [
    "SimHasher",
    "bit_sums",
    "cosine",
    "fingerprint",
    "fingerprint_many",
    "get_hash64",
    "hamming",
    "hamming_many",
    "hash64",
    "simhash_from_features",
    "similarity",
]


class _CallablePackage(types.ModuleType):
    """The package's module type: ``neardup.fingerprint(text, config)`` is ``fingerprint(text, config)``."""

    def __call__(self, text: str, config: Any = None) -> int:
        return fingerprint(text, config)


sys.modules[__name__].__class__ = _CallablePackage
