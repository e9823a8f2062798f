"""Frozen configuration shared by the library, the CLI, the service and Spark.

Every file neardup writes carries the config that produced it in its header, so an index
built with one hash setting is never queried with another (``check_compatible``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypeVar

from neardup.exceptions import ConfigError, FormatError

__all__ = ["HASH_NAMES", "SimHashConfig", "check_compatible", "config_from_dict"]

HashName = Literal["xxh3", "md5", "farmhash", "murmur3"]
HASH_NAMES: tuple[str, ...] = ("xxh3", "md5", "farmhash", "murmur3")
FeatureKind = Literal["words", "shingles", "word_ngrams"]
Weighting = Literal["tfidf", "tf", "binary"]

T = TypeVar("T")


def _choice(name: str, value: object, allowed: tuple[object, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


@dataclass(frozen=True)
class SimHashConfig:
    """How text becomes a SimHash fingerprint.

    >>> SimHashConfig(features="shingles", ngram=4).bits
    64
    """

    bits: int = 64
    hash: HashName = "xxh3"
    features: FeatureKind = "words"
    ngram: int = 4  # characters per shingle, or words per word n-gram
    step: int = 1  # shingle stride: 1 overlapping, == ngram fixed-size chunks (seed 003)
    weighting: Weighting = "tfidf"
    idf: str | None = None  # path of an IDF table (word<space>idf lines); None: jieba's table
    levels: int = 0  # 0 keeps raw weights; 5 quantizes to 1..5 as seed 004 shows
    top_n: int | Literal["auto"] | None = None  # keep the N heaviest features; "auto": by text length
    stopwords: bool = True
    normalize: bool = True
    strip_html: bool = False
    boost: tuple[str, ...] = field(default_factory=tuple)  # topic words weighted higher (seed 004)
    boost_factor: float = 2.0

    def __post_init__(self) -> None:
        _choice("bits", self.bits, (32, 64))
        _choice("hash", self.hash, HASH_NAMES)
        _choice("features", self.features, ("words", "shingles", "word_ngrams"))
        _choice("weighting", self.weighting, ("tfidf", "tf", "binary"))
        if not 1 <= self.ngram <= 127:
            raise ConfigError(f"ngram must be between 1 and 127, got {self.ngram}")
        if not 1 <= self.step <= self.ngram:
            raise ConfigError(
                f"step must be between 1 (overlapping) and ngram ({self.ngram}, fixed-size), got {self.step}"
            )
        if self.levels not in (0,) and not 2 <= self.levels <= 16:
            raise ConfigError(f"levels must be 0 (raw weights) or between 2 and 16, got {self.levels}")
        if (
            self.top_n is not None
            and self.top_n != "auto"
            and (isinstance(self.top_n, bool) or not isinstance(self.top_n, int) or self.top_n < 1)
        ):
            raise ConfigError(f"top_n must be a positive integer, 'auto' or None, got {self.top_n!r}")
        if self.boost_factor <= 0:
            raise ConfigError(f"boost_factor must be > 0, got {self.boost_factor}")
        if not isinstance(self.boost, tuple):
            object.__setattr__(self, "boost", tuple(self.boost))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["boost"] = list(self.boost)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SimHashConfig:
        return config_from_dict(cls, data)


#: k for the recommended single-signal SimHash (docs/quality.md; k = 10 merged short templated items)
RECOMMENDED_MAX_DISTANCE = 8


def recommended_simhash() -> SimHashConfig:
    """The best single-signal SimHash for news-like text: binary character 6-gram shingles.

    Chosen by the single-signal sweep of docs/quality.md (with ``RECOMMENDED_MAX_DISTANCE``). The
    match engine (``neardup.match``) decides duplicates; this is a good ``SimHasher`` setting for
    users who want a SimHash alone.

    >>> recommended_simhash().features
    'shingles'
    """
    return SimHashConfig(features="shingles", ngram=6, weighting="binary")


def config_from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build a config dataclass from a dict, refusing keys it does not know."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - known)
    if unknown:
        raise FormatError(
            f"{cls.__name__} does not know the keys {unknown}: the file was written by a newer neardup"
        )
    kwargs = dict(data)
    if "boost" in kwargs and isinstance(kwargs["boost"], list):
        kwargs["boost"] = tuple(kwargs["boost"])
    return cls(**kwargs)


def check_compatible(expected: Any, got: Any, what: str) -> None:
    """Raise ConfigError when two configs differ, naming the fields that differ."""
    if expected == got:
        return
    a, b = asdict(expected), asdict(got)
    diff = ", ".join(f"{k}: {a[k]!r} vs {b.get(k)!r}" for k in a if a[k] != b.get(k))
    raise ConfigError(f"{what} was built with another configuration ({diff}); rebuild it or use its settings")
