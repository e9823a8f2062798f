"""Fingerprints: SimHash (``simhash``), the ``simhash`` package's API (``compat``), hash functions.

>>> from neardup.fingerprint import fingerprint, hamming
>>> hamming(fingerprint("新闻联播"), fingerprint("新闻联播")) == 0
True
"""

from __future__ import annotations

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
