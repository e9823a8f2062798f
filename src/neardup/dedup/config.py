"""One frozen configuration for every dedup stage: the match engine's config plus how work is run.

The CLI, the library and the Spark job build the same ``DedupConfig``; the signature half of it
(``fingerprint_settings``) is written into every corpus index header, so a batch is never compared
with a corpus whose signatures were made another way.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from neardup._workers import max_workers
from neardup.config import config_from_dict
from neardup.exceptions import ConfigError
from neardup.match.config import ENGINE_VERSION, MatchConfig

__all__ = ["ROW_KINDS", "DedupConfig"]

IdPolicy = Literal["error", "suffix"]
#: the ``kind`` of an output line: a cluster's kept document is "unique" (alone) or "first"; the
#: others are what the engine found (exact, content, near, contained) against the cluster's first
#: document, and that first document is "superseded" when the keep rule (fuller, longest, newest)
#: keeps another copy, and the kept fuller copy that contains it "supersedes"; partial, layout and
#: template copies stay alone; "indexed": the corpus index already holds this document
#: under the same id
ROW_KINDS: tuple[str, ...] = (
    "unique",
    "first",
    "exact",
    "content",
    "near",
    "contained",
    "supersedes",
    "superseded",
    "partial",
    "layout",
    "template",
    "indexed",
)


@dataclass(frozen=True)
class DedupConfig:
    """How ``neardup dedup`` (and the Spark job) runs the match engine.

    >>> DedupConfig(match=MatchConfig(keep="longest")).match.keep
    'longest'
    """

    match: MatchConfig = field(default_factory=MatchConfig)
    workers: int = 0  # processes that extract HTML pages and sign records (0: every core; 1: none)
    # seconds a worker process may spend on one HTML record before the run stops naming it (a page
    # past the HTML budget is refused in well under a second; this bounds what the budget misses)
    record_timeout: float = 120.0
    chunk_size: int = 4000  # documents per signature batch
    duplicate_ids: IdPolicy = "error"

    def __post_init__(self) -> None:
        if not isinstance(self.match, MatchConfig):
            raise ConfigError(f"match must be a MatchConfig, got {type(self.match).__name__}")
        if self.workers < 0:
            raise ConfigError(f"workers must be >= 0 (0 uses every core), got {self.workers}")
        if self.workers > max_workers():
            raise ConfigError(
                f"workers must be at most {max_workers()} (4 per core of this machine; more processes "
                f"only compete for the cores), got {self.workers}"
            )
        if isinstance(self.record_timeout, bool) or not (
            isinstance(self.record_timeout, (int, float)) and self.record_timeout > 0
        ):
            raise ConfigError(f"record_timeout must be > 0 seconds, got {self.record_timeout!r}")
        if self.chunk_size < 1:
            raise ConfigError(f"chunk_size must be >= 1, got {self.chunk_size}")
        if self.duplicate_ids not in ("error", "suffix"):
            raise ConfigError(f"duplicate_ids must be 'error' or 'suffix', got {self.duplicate_ids!r}")

    @property
    def n_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    def fingerprint_settings(self) -> dict[str, Any]:
        """The settings that decide signatures (what a corpus index must agree on)."""
        return self.match.signature_settings()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["match"] = self.match.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DedupConfig:
        data = dict(data)
        if isinstance(data.get("match"), dict):
            data["match"] = MatchConfig.from_dict(data["match"])
        return config_from_dict(cls, data)

    @classmethod
    def from_fingerprint_settings(cls, settings: dict[str, Any], **overrides: Any) -> DedupConfig:
        """The config whose signatures match an index header's settings (other fields: overrides)."""
        match = overrides.pop("match", None) or MatchConfig()
        if settings.get("engine") != ENGINE_VERSION:
            built = settings.get("engine") or "an engine before neardup.match/1 (SimHash only)"
            raise ConfigError(
                f"the corpus index was signed by {built}; this neardup signs as {ENGINE_VERSION}, "
                "which reads text otherwise: rebuild it with `neardup index build`"
            )
        fixed = {
            k: settings[k]
            for k in ("shingle", "sketch_size", "max_numbers", "extractor", "profile_tokens")
            if k in settings
        }
        match = MatchConfig(**{**match.to_dict(), **fixed})
        return cls(match=match, **overrides)
