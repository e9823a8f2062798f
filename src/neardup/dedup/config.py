"""One frozen configuration for every dedup stage (fingerprint, within-batch, against-corpus, merge).

The CLI, the library and the Spark job build the same ``DedupConfig``; the fingerprint half of it
(``fingerprint_settings``) is written into every index header so a batch is never compared with a
corpus fingerprinted another way.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from neardup.config import (
    HASH_NAMES,
    RECOMMENDED_MAX_DISTANCE,
    SimHashConfig,
    config_from_dict,
    recommended_simhash,
)
from neardup.exceptions import ConfigError

__all__ = ["KINDS", "METHODS", "DedupConfig"]

Method = Literal["simhash", "nshash", "both"]
IdPolicy = Literal["error", "suffix"]
METHODS: tuple[str, ...] = ("simhash", "nshash", "both")
#: the ``kind`` of an output line: a cluster's first document is "unique" (alone) or "first"
KINDS: tuple[str, ...] = ("unique", "first", "exact", "near", "nshash")


@dataclass(frozen=True)
class DedupConfig:
    """How ``neardup dedup`` (and the Spark job) decides what is a duplicate.

    >>> DedupConfig(method="both", max_distance=3).uses_simhash
    True
    """

    method: Method = "simhash"
    max_distance: int = RECOMMENDED_MAX_DISTANCE  # docs/quality.md
    simhash: SimHashConfig = field(default_factory=recommended_simhash)
    nshash_n: int = 1  # docs/quality.md: n >= 2 merges templated stories (seed 002's NSHash keeps n = 5)
    nshash_hashfunc: str = "md5"
    nshash_min_sentence_chars: int = 30
    workers: int = 0  # 0: every core
    chunk_size: int = 2000  # documents per fingerprinting task
    bucket_cap: int = 20_000  # largest group compared in full once re-splitting stops (0: no cap)
    duplicate_ids: IdPolicy = "error"
    extractor: str = "resiliparse"  # main-text extraction for HTML records

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        bits = self.simhash.bits
        if isinstance(self.max_distance, bool) or not 0 <= self.max_distance < min(bits, 16):
            raise ConfigError(
                f"max_distance must be between 0 and 15 (bits differing out of {bits}), got "
                f"{self.max_distance!r}; 3 is the usual choice for 64-bit SimHash"
            )
        if bits != 64:
            raise ConfigError(f"dedup works on 64-bit fingerprints, got simhash.bits={bits}")
        if not 1 <= self.nshash_n <= 255:
            raise ConfigError(f"nshash_n must be between 1 and 255, got {self.nshash_n}")
        if self.nshash_hashfunc not in HASH_NAMES:
            raise ConfigError(
                f"nshash_hashfunc must be one of {', '.join(HASH_NAMES)}, got {self.nshash_hashfunc!r}"
            )
        if self.nshash_min_sentence_chars < 0:
            raise ConfigError(f"nshash_min_sentence_chars must be >= 0, got {self.nshash_min_sentence_chars}")
        if self.workers < 0:
            raise ConfigError(f"workers must be >= 0 (0 uses every core), got {self.workers}")
        if self.chunk_size < 1:
            raise ConfigError(f"chunk_size must be >= 1, got {self.chunk_size}")
        if self.bucket_cap < 0:
            raise ConfigError(f"bucket_cap must be >= 0 (0: never cap), got {self.bucket_cap}")
        if self.duplicate_ids not in ("error", "suffix"):
            raise ConfigError(f"duplicate_ids must be 'error' or 'suffix', got {self.duplicate_ids!r}")

    @property
    def uses_simhash(self) -> bool:
        return self.method in ("simhash", "both")

    @property
    def uses_nshash(self) -> bool:
        return self.method in ("nshash", "both")

    @property
    def n_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    def fingerprint_settings(self) -> dict[str, Any]:
        """The settings that decide fingerprints (what an index must agree on)."""
        return {
            "simhash": self.simhash.to_dict(),
            "nshash": {
                "n": self.nshash_n,
                "hashfunc": self.nshash_hashfunc,
                "min_sentence_chars": self.nshash_min_sentence_chars,
            },
            "exact": "xxh3 of whitespace-collapsed text",
            "extractor": self.extractor,
        }

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["simhash"] = self.simhash.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DedupConfig:
        data = dict(data)
        if isinstance(data.get("simhash"), dict):
            data["simhash"] = SimHashConfig.from_dict(data["simhash"])
        return config_from_dict(cls, data)

    @classmethod
    def from_fingerprint_settings(cls, settings: dict[str, Any], **overrides: Any) -> DedupConfig:
        """The config whose fingerprints match an index header's settings."""
        ns = settings.get("nshash", {})
        return cls(
            simhash=SimHashConfig.from_dict(settings["simhash"]),
            nshash_n=int(ns.get("n", 1)),
            nshash_hashfunc=str(ns.get("hashfunc", "md5")),
            nshash_min_sentence_chars=int(ns.get("min_sentence_chars", 30)),
            extractor=str(settings.get("extractor", "resiliparse")),
            **overrides,
        )
