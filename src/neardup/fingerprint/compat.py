"""A drop-in for the PyPI ``simhash`` package: ``Simhash`` and ``SimhashIndex``, same values.

With its defaults ``Simhash`` gives the package's values bit for bit (MD5 of each feature, the
package's tokenizer, its weighting rules), so fingerprints stored by the package stay valid.
``hashfunc="xxh3"`` is the fast mode (about 2x faster per call, different values). ``SimhashIndex``
answers like the package's but searches a ``HammingIndex``. Where the package is wrong (non-finite
weights, integer weights above 255 on numpy 2, a bare token after a weighted pair) we compute the
exact result or refuse with a ``ConfigError``: see docs/simhash.md.

>>> a = Simhash("The Apache Hadoop software library is a framework")
>>> b = Simhash("The Apache Hadoop software library is a framework!")
>>> a.distance(b)
0
>>> Simhash([("Apache", 10), ("Hadoop", 15)]).value == Simhash({"Apache": 10, "Hadoop": 15}).value
True
>>> index = SimhashIndex([("1", a)], k=3)
>>> index.get_near_dups(b)
['1']
"""

from __future__ import annotations

import hashlib
import logging
import math
import numbers
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from neardup.exceptions import ConfigError
from neardup.fingerprint.hashing import get_hash64

__all__ = ["Simhash", "SimhashIndex", "package_md5"]

_REG = r"[\w\u4e00-\u9fcc]+"
HashFunc = Callable[[bytes], Any]


def _md5_digest(data: bytes) -> bytes:
    """The ``simhash`` package's default hash: the whole MD5 digest (its last ``f // 8`` bytes are used)."""
    return hashlib.md5(data).digest()


def package_md5(data: bytes) -> int:
    """The ``simhash`` package's default hash as an int: MD5, its last 8 bytes big-endian.

    >>> Simhash("abc", hashfunc=package_md5).value == Simhash("abc").value
    True
    """
    return int.from_bytes(hashlib.md5(data).digest()[-8:], "big")


class Simhash:
    """SimHash of a text, a token list, ``(feature, weight)`` pairs, a dict, an int, or a Simhash.

    Args:
        value: what to fingerprint; an int is kept as given (signed values too: ``distance`` masks).
        f: bits, a multiple of 8 (the hash must give at least ``f // 8`` bytes: MD5 allows 128).
        reg: what a letter is when ``value`` is a text.
        hashfunc: bytes -> bytes (last ``f // 8`` bytes used) or -> int (low ``f`` bits used);
            ``"xxh3"`` (or another name of ``neardup.fingerprint.hashing``) for the fast mode.
        log: a logger, accepted for the package's signature.

    >>> Simhash(-1).distance(Simhash(0))
    64
    """

    # the package's class constants: weights above the cutoff, and floats, are summed one by one,
    # small integer weights in batches; they decide the order float sums are added in
    large_weight_cutoff = 50
    batch_size = 200

    def __init__(
        self,
        value: Any,
        f: int = 64,
        reg: str | re.Pattern[str] = _REG,
        hashfunc: HashFunc | str = _md5_digest,
        log: logging.Logger | None = None,
    ) -> None:
        if isinstance(f, bool) or not isinstance(f, numbers.Integral) or f <= 0 or f % 8:
            raise ConfigError(f"f (bits) must be a positive multiple of 8, e.g. 64; got {f!r}")
        self.f: int = int(f)
        self.f_bytes: int = self.f // 8
        self.reg: str | re.Pattern[str] = reg
        self.hashfunc: HashFunc = get_hash64(hashfunc) if isinstance(hashfunc, str) else hashfunc
        self.hashfunc_returns_int: bool = isinstance(self.hashfunc(b"test"), numbers.Integral)
        self.log = log if log is not None else logging.getLogger("simhash")
        self.value: int = 0
        if isinstance(value, Simhash):
            self.value = value.value
        elif isinstance(value, str):
            self.build_by_text(value)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            raise ConfigError(
                "Simhash value must be a text (str), not bytes: decode it first, e.g. value.decode('utf-8')"
            )
        elif isinstance(value, Iterable):
            self.build_by_features(value)
        elif isinstance(value, numbers.Integral):
            self.value = int(value)
        else:
            raise ConfigError(
                f"Simhash value must be a text, token list, (feature, weight) pairs, a dict, an int or a "
                f"Simhash; got {type(value).__name__}"
            )

    def __repr__(self) -> str:
        return f"Simhash({self.value:#x}, f={self.f})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Simhash) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def _slide(self, content: str, width: int = 4) -> list[str]:
        return [content[i : i + width] for i in range(max(len(content) - width + 1, 1))]

    def _tokenize(self, content: str) -> list[str]:
        return self._slide("".join(re.findall(self.reg, content.lower())))

    def build_by_text(self, content: str) -> None:
        """Fingerprint of a text: counted 4-character windows of its letters."""
        counts = Counter(self._tokenize(content))
        self.value = self._integer_value(self._digests(list(counts), checked=True), list(counts.values()))

    def _digests(self, features: list[Any], checked: bool = False) -> list[bytes]:
        """The last ``f // 8`` bytes of each feature's hash (an int hash masked to ``f`` bits)."""
        for feat in () if checked else features:
            if not isinstance(feat, str):
                raise ConfigError(f"a feature must be a string, got {type(feat).__name__}: {feat!r}")
        fb = self.f_bytes
        if self.hashfunc is _md5_digest:
            md5 = hashlib.md5
            return [md5(feat.encode("utf-8")).digest()[-fb:] for feat in features]
        hashfunc = self.hashfunc
        if self.hashfunc_returns_int:
            mask = (1 << self.f) - 1
            return [(int(hashfunc(feat.encode("utf-8"))) & mask).to_bytes(fb, "big") for feat in features]
        out = [bytes(hashfunc(feat.encode("utf-8")))[-fb:] for feat in features]
        short = [len(b) for b in out if len(b) < fb]
        if short:
            raise ConfigError(
                f"hashfunc returned {short[0]} bytes, f={self.f} needs at least {fb}: "
                "use a wider hash or a smaller f"
            )
        return out

    def build_by_features(self, features: Any) -> None:
        """Fingerprint of features: tokens (weight 1), ``(feature, weight)`` pairs or a dict.

        >>> Simhash(["a", "b"]).value == Simhash([("a", 1), ("b", 1)]).value
        True
        """
        items: Iterable[Any] = features.items() if isinstance(features, dict) else features
        feats: list[Any] = []
        weights: list[Any] = []
        paired: list[bool] = []
        seen_pair = False
        all_int = True
        for item in items:
            if isinstance(item, str):
                if seen_pair:
                    raise ConfigError(
                        f"a bare token {item!r} after a (token, weight) pair: the simhash package would "
                        "silently give it the previous pair's weight; pass (token, 1) instead"
                    )
                feat, w = item, 1
            else:
                try:
                    feat, w = item
                except (TypeError, ValueError):
                    raise ConfigError(
                        f"a feature must be a string or a (string, weight) pair, got {item!r}"
                    ) from None
                seen_pair = True
                if type(w) is not int:
                    all_int = all_int and isinstance(w, int)
                    if type(w) is not float and not isinstance(w, numbers.Real):
                        raise ConfigError(f"weight of {feat!r} must be a real number, got {w!r}")
                    if not isinstance(w, numbers.Integral) and not math.isfinite(w):
                        raise ConfigError(
                            f"weight of {feat!r} must be finite, got {w!r} (the simhash package returns "
                            "a meaningless fingerprint for it)"
                        )
            feats.append(feat)
            weights.append(w)
            paired.append(seen_pair)
        digests = self._digests(feats)
        if not digests:
            self.value = 0
        elif all_int:
            self.value = self._integer_value(digests, weights)
        else:
            self.value = self._mixed_value(digests, weights, paired)

    def _bits(self, digests: list[bytes]) -> np.ndarray:
        """One row of f bits (most significant first) per digest."""
        return np.unpackbits(np.frombuffer(b"".join(digests), dtype=np.uint8)).reshape(-1, self.f)

    def _integer_value(self, digests: list[bytes], weights: list[int]) -> int:
        # The package adds a non-positive integer weight to the count only (its batch repeats the
        # hash w times), so bit b is set when 2 * sum(max(w, 0) over features with b set) > sum(w).
        count = sum(weights)
        bits = self._bits(digests)
        if min(weights) == 1 == max(weights):
            sums: Any = bits.sum(0, dtype=np.int64)
        else:
            pos = [w if w > 0 else 0 for w in weights]
            if sum(pos) < 1 << 53:  # float64 sums of integers are exact below 2**53
                sums = np.asarray(pos, dtype=np.float64) @ bits.astype(np.float64)
            else:  # exact Python integers (the package overflows numpy here)
                sums = np.asarray(pos, dtype=object) @ bits.astype(object)
                return int.from_bytes(np.packbits([2 * s > count for s in sums]).tobytes(), "big")
        return int.from_bytes(np.packbits(2 * sums > count).tobytes(), "big")

    def _mixed_value(self, digests: list[bytes], weights: list[Any], paired: list[bool]) -> int:
        # Float (or numpy) weights: the package's order of float additions decides the last bits of
        # each sum, so the same partial sums are formed in the same order: integer batches of up to
        # batch_size features, other features one array each, folded every batch_size arrays.
        parts: list[np.ndarray] = []
        batch = np.zeros(self.f, dtype=np.uint64)
        in_batch = 0
        count: Any = 0
        for d, w, pair in zip(digests, weights, paired, strict=True):
            count += w
            row = np.unpackbits(np.frombuffer(d, dtype=np.uint8))
            if pair and (w > self.large_weight_cutoff or not isinstance(w, int)):
                if isinstance(w, int) and not isinstance(w, bool) and w > 255:
                    parts.append(row.astype(np.int64 if w < 1 << 62 else object) * w)
                else:
                    parts.append(row * w)
            else:
                if w > 0:
                    batch += row.astype(np.uint64) * np.uint64(w)
                in_batch += 1
                if in_batch >= self.batch_size:
                    parts.append(batch)
                    batch = np.zeros(self.f, dtype=np.uint64)
                    in_batch = 0
            if len(parts) >= self.batch_size:
                parts = [np.sum(parts, 0)]
        if in_batch:
            parts.append(batch)
        over = np.sum(parts, 0) > count / 2
        return int.from_bytes(np.packbits(over).tobytes(), "big")

    def distance(self, another: Simhash) -> int:
        """Hamming distance over the low ``f`` bits (signed values are compared as f-bit patterns).

        >>> Simhash(0b1011).distance(Simhash(0b0001))
        2
        """
        if another.f != self.f:
            raise ConfigError(f"cannot compare Simhash of f={self.f} with one of f={another.f}")
        return ((self.value ^ another.value) & ((1 << self.f) - 1)).bit_count()


def _is_simhash(obj: object) -> bool:
    # duck-typed, so the simhash package's own Simhash objects are taken too
    return isinstance(getattr(obj, "f", None), int) and isinstance(getattr(obj, "value", None), int)


def _what(obj: object) -> str:
    """A value's type for a message, with the value when it is short."""
    text = repr(obj)
    return type(obj).__name__ + (f" {text}" if len(text) <= 40 else "")


def _even_blocks(bits: int, n: int) -> list[int]:
    return [bits // n + (1 if i < bits % n else 0) for i in range(n)]


class SimhashIndex:
    """The package's ``SimhashIndex``: ids of stored Simhashes within ``k`` bits, over ``HammingIndex``.

    Args:
        objs: ``(obj_id, Simhash)`` pairs to add.
        f: bits of the Simhashes (as given to ``Simhash``).
        k: the largest distance reported (included).
        log: a logger for progress, like the package's.

    >>> index = SimhashIndex([("a", Simhash("hello world"))], k=2)
    >>> index.add("b", Simhash("hello world!"))
    >>> sorted(index.get_near_dups(Simhash("hello world")))
    ['a', 'b']
    """

    def __init__(
        self, objs: Iterable[tuple[Any, Simhash]], f: int = 64, k: int = 2, log: logging.Logger | None = None
    ) -> None:
        from neardup.index import HammingIndex

        if isinstance(f, bool) or not isinstance(f, int) or not 8 <= f <= 64 or f % 8:
            raise ConfigError(f"f must be a multiple of 8 from 8 to 64 for SimhashIndex, got {f!r}")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < f:
            raise ConfigError(f"k must be an integer from 0 to f - 1 ({f - 1}), got {k!r}")
        self.f = f
        self.k = k
        self.log = log if log is not None else logging.getLogger("simhash")
        self._mask = (1 << f) - 1
        # k + 1 blocks find every match by pigeonhole; small k uses the index's own design
        design: Any = "auto" if k <= 12 else _even_blocks(64, k + 1)
        self._index = HammingIndex(bits=64, max_distance=k, design=design)
        self._rows: dict[tuple[int, str], int] = {}
        self._ids: dict[int, str] = {}
        self._next = 0
        objs = list(objs)
        count = len(objs)
        self.log.info("Initializing %s data.", count)
        for i, item in enumerate(objs):
            try:
                if isinstance(item, (str, bytes)):
                    raise TypeError
                obj_id, simhash = item
            except (TypeError, ValueError):
                raise TypeError(f"objs must be (obj_id, Simhash) pairs; item {i} is {_what(item)}") from None
            if not _is_simhash(simhash):
                raise TypeError(
                    f"objs must be (obj_id, Simhash) pairs; item {i}'s second value is {_what(simhash)}"
                )
            if i % 10000 == 0 or i == count - 1:
                self.log.info("%s/%s", i + 1, count)
            self.add(obj_id, simhash)

    def _check(self, simhash: Simhash) -> int:
        if not _is_simhash(simhash):
            raise TypeError(f"expected a Simhash, got {_what(simhash)}")
        if simhash.f != self.f:
            raise ConfigError(f"this SimhashIndex holds f={self.f} Simhashes, got one of f={simhash.f}")
        return simhash.value & self._mask

    def add(self, obj_id: Any, simhash: Simhash) -> None:
        """Store ``simhash`` under ``obj_id`` (kept as ``str(obj_id)``; re-adding a pair is a no-op)."""
        key = (self._check(simhash), str(obj_id))
        if key in self._rows:
            return
        row = self._next
        self._next += 1
        self._rows[key] = row
        self._ids[row] = key[1]
        self._index.add(row, key[0])

    def delete(self, obj_id: Any, simhash: Simhash) -> None:
        """Forget ``obj_id`` stored with this ``simhash`` (nothing happens if it is not stored)."""
        row = self._rows.pop((self._check(simhash), str(obj_id)), None)
        if row is not None:
            del self._ids[row]
            self._index.remove(row)

    def get_near_dups(self, simhash: Simhash) -> list[str]:
        """Ids (str) of every stored Simhash within ``k`` bits, each once, in no particular order."""
        value = self._check(simhash)
        return list({self._ids[row] for row, _ in self._index.query(value)})

    @property
    def offsets(self) -> list[int]:
        """Start bit of each of the package's k + 1 buckets."""
        return [self.f // (self.k + 1) * i for i in range(self.k + 1)]

    def get_keys(self, simhash: Simhash) -> Iterator[str]:
        """The package's bucket keys of ``simhash``: ``"{block value:x}:{block number:x}"``."""
        offsets = self.offsets
        for i, offset in enumerate(offsets):
            end = self.f if i == len(offsets) - 1 else offsets[i + 1]
            yield f"{simhash.value >> offset & ((1 << (end - offset)) - 1):x}:{i:x}"

    def bucket_size(self) -> int:
        """Number of distinct bucket keys the package's index would hold."""
        keys: set[str] = set()
        for value, _ in self._rows:
            keys.update(self.get_keys(Simhash(value, self.f)))
        return len(keys)
