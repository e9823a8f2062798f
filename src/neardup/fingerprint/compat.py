"""A drop-in for the PyPI ``simhash`` package's ``Simhash`` class (seed 004's examples).

Same constructor and methods; text is tokenized as that package does (lowercase, keep the characters
matched by ``reg``, 4-character sliding windows, counted). Differences, see docs/simhash.md: the
default hash is xxh3 (the package uses the low 64 bits of MD5); pass ``hashfunc=package_md5`` to get
the package's exact values. Weights may be any finite numbers.

>>> a = Simhash("The Apache Hadoop software library is a framework")
>>> b = Simhash("The Apache Hadoop software library is a framework!")
>>> a.distance(b)
0
>>> Simhash([("Apache", 10), ("Hadoop", 15)]).value == Simhash({"Apache": 10, "Hadoop": 15}).value
True
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from neardup.exceptions import ConfigError
from neardup.fingerprint import _kernels
from neardup.fingerprint.hashing import get_hash64
from neardup.fingerprint.simhash import WEIGHT_SCALE, hamming

__all__ = ["Simhash", "package_md5"]

_REG = r"[\w\u4e00-\u9fcc]+"


def package_md5(data: bytes) -> int:
    """The ``simhash`` package's default hash: MD5, its last 8 bytes as a big-endian int."""
    return int.from_bytes(hashlib.md5(data).digest()[-8:], "big")


class Simhash:
    """SimHash of a text, a token list, ``(feature, weight)`` pairs, a dict, an int, or a Simhash."""

    def __init__(
        self,
        value: Any,
        f: int = 64,
        reg: str | re.Pattern[str] = _REG,
        hashfunc: Callable[[bytes], int] | str = "xxh3",
    ) -> None:
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 64:
            raise ConfigError(f"f (bits) must be an integer between 1 and 64, got {f!r}")
        self.f = f
        self.reg = reg
        self.hashfunc: Callable[[bytes], int] = (
            get_hash64(hashfunc) if isinstance(hashfunc, str) else hashfunc
        )
        self.value: int = 0
        if isinstance(value, Simhash):
            self.value = value.value
        elif isinstance(value, str):
            self.build_by_text(value)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            self.value = int(value)
        elif isinstance(value, (dict, Iterable)):
            self.build_by_features(value)
        else:
            raise ConfigError(
                f"Simhash value must be a text, token list, (feature, weight) pairs, a dict, an int or a "
                f"Simhash; got {type(value).__name__}"
            )

    def __repr__(self) -> str:
        return f"Simhash({self.value:#0{self.f // 4 + 2}x}, f={self.f})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Simhash) and self.value == other.value and self.f == other.f

    def __hash__(self) -> int:
        return hash((self.value, self.f))

    def _slide(self, content: str, width: int = 4) -> list[str]:
        return [content[i : i + width] for i in range(max(len(content) - width + 1, 1))]

    def _tokenize(self, content: str) -> list[str]:
        return self._slide("".join(re.findall(self.reg, content.lower())))

    def build_by_text(self, content: str) -> None:
        """Fingerprint of a text: counted 4-character windows of its word characters."""
        self.build_by_features(dict(Counter(self._tokenize(content))))

    def build_by_features(self, features: Any) -> None:
        """Fingerprint of features: tokens (weight 1), ``(feature, weight)`` pairs or a dict."""
        items: Iterable[Any] = features.items() if isinstance(features, dict) else features
        mask = (1 << self.f) - 1
        hs: list[int] = []
        ws: list[int] = []
        for item in items:
            if isinstance(item, str):
                feat, w = item, 1.0
            else:
                try:
                    feat, w = item
                except (TypeError, ValueError):
                    raise ConfigError(
                        f"a feature must be a string or a (string, weight) pair, got {item!r}"
                    ) from None
            hs.append(int(self.hashfunc(str(feat).encode("utf-8"))) & mask)
            ws.append(round(float(w) * WEIGHT_SCALE))
        sums = _kernels.accumulate(np.array(hs, np.uint64), np.array(ws, np.int64), self.f)
        self.value = int(_kernels.sums_to_fp(sums))

    def distance(self, another: Simhash) -> int:
        """Hamming distance to another Simhash of the same width."""
        if another.f != self.f:
            raise ConfigError(f"cannot compare Simhash of f={self.f} with one of f={another.f}")
        return hamming(self.value, another.value)
