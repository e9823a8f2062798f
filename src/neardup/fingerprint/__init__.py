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
from typing import TYPE_CHECKING, Any

from neardup.fingerprint.hashing import get_hash64, hash64

if TYPE_CHECKING:
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


# SimHash's names load on first use, so that importing another module of the package (nshash)
# does not import numba and the SimHash kernels
_SIMHASH = frozenset(__all__) - {"get_hash64", "hash64"}


def __getattr__(name: str) -> Any:
    if name in _SIMHASH:
        from neardup.fingerprint import simhash

        value = getattr(simhash, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CallablePackage(types.ModuleType):
    """The package's module type: ``neardup.fingerprint(text, config)`` is ``fingerprint(text, config)``."""

    def __call__(self, text: str, config: Any = None) -> int:
        from neardup.fingerprint.simhash import fingerprint

        return fingerprint(text, config)


sys.modules[__name__].__class__ = _CallablePackage
