"""The one configuration of the match engine: signatures, candidates, verification, kinds, keep rule.

Every front end (``neardup dedup`` local and on Spark, ``ContentSeen`` and ``neardup serve``, Scrapy,
``neardup compare`` and ``neardup eval``) receives a ``MatchConfig`` and never rebuilds it field by
field; its ``signature_settings()`` are written into every file that stores signatures, so signatures
made one way are never compared with signatures made another way.

>>> MatchConfig().near_similarity
0.5
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from neardup.config import config_from_dict
from neardup.exceptions import ConfigError

__all__ = ["KEEP_RULES", "MatchConfig"]

KeepRule = Literal["first", "longest", "newest"]
KEEP_RULES: tuple[str, ...] = ("first", "longest", "newest")


@dataclass(frozen=True)
class MatchConfig:
    """How two documents are found, compared and named a duplicate.

    Signatures: the text is cut into tokens (one CJK character, or one run of Latin letters and
    digits) and into overlapping windows of ``shingle`` tokens; a document keeps the ``sketch_size``
    smallest window hashes (a bottom-k sketch), the count of distinct windows, a SimHash of all of
    them, and up to ``max_numbers`` number facts (a number with the tokens around it).

    Decision (thresholds calibrated in docs/quality.md): a pair is ``near`` when its estimated
    Jaccard similarity is >= ``near_similarity`` and its aligned numbers do not conflict; it is
    ``partial`` when one side's containment in the other is >= ``partial_containment``. A document
    is checked against a candidate cluster's representative, then against up to ``member_checks``
    of its members that verified against the representative.
    """

    shingle: int = 5
    sketch_size: int = 128
    max_numbers: int = 32
    near_similarity: float = 0.5
    near_containment: float = 0.65  # a cut or trimmed copy: most of the shorter one is in the longer
    containment_min_similarity: float = 0.25
    agree_containment: float = 0.55  # ... or less of it, when many numbers agree in place
    agree_min: int = 10
    partial_containment: float = 0.3
    # members of a candidate cluster checked when its representative fails, newest first (0:
    # representatives only); a member link needs similarity >= near_similarity. Chosen on the
    # development sets of docs/quality.md (0, 1, 2, 4, 8): 1 gives the best zh F1 with the fewest
    # look-alikes merged, English gains the same with 1 as with more
    member_checks: int = 1
    max_number_conflicts: int = 0  # conflicting aligned numbers a near copy may have
    conflict_share: float = 0.0  # ... or this share of the aligned numbers, whichever is larger
    candidate_distance: int | None = None  # SimHash candidates within this many bits (None: off)
    posted: int = 32  # sketch values a document posts for candidate look-ups (its smallest)
    min_shared: int = 3  # sketch candidates: at least this many of them shared
    max_posting: int = 16  # a value posted by more documents is boilerplate: no key, no evidence
    layout_distance: int = 6  # layout signatures this close: the same template
    keep: KeepRule = "first"
    keep_field: str = "date"  # the field ``keep="newest"`` compares
    extractor: str = "resiliparse"  # main-text extraction for HTML

    def __post_init__(self) -> None:
        def rng(name: str, lo: float, hi: float) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise ConfigError(f"{name} must be between {lo} and {hi}, got {v!r}")

        rng("shingle", 1, 16)
        rng("sketch_size", 8, 1024)
        rng("max_numbers", 0, 256)
        rng("agree_min", 0, 10**6)
        rng("member_checks", 0, 10**6)
        for name in (
            "near_similarity",
            "near_containment",
            "containment_min_similarity",
            "agree_containment",
        ):
            rng(name, 0.0, 1.0)
        rng("partial_containment", 0.0, 1.0)
        rng("max_number_conflicts", 0, 1000)
        rng("conflict_share", 0.0, 1.0)
        if self.candidate_distance is not None:
            rng("candidate_distance", 0, 15)
        rng("posted", 1, self.sketch_size)
        rng("min_shared", 1, self.posted)
        rng("max_posting", 2, 10**9)
        rng("layout_distance", 0, 32)
        if self.keep not in KEEP_RULES:
            raise ConfigError(f"keep must be one of {', '.join(KEEP_RULES)}, got {self.keep!r}")
        if not isinstance(self.keep_field, str) or not self.keep_field.strip():
            raise ConfigError(f"keep_field must name a record field (e.g. date), got {self.keep_field!r}")

    def signature_settings(self) -> dict[str, Any]:
        """What decides a signature: files that store signatures must agree on it."""
        return {
            "engine": "neardup.match/1",
            "shingle": self.shingle,
            "sketch_size": self.sketch_size,
            "max_numbers": self.max_numbers,
            "extractor": self.extractor,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchConfig:
        return config_from_dict(cls, data)
