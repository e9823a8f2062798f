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

__all__ = ["ENGINE_VERSION", "KEEP_RULES", "PROFILES", "MatchConfig"]

#: what stored signatures were made by: files made by another version are refused
ENGINE_VERSION = "neardup.match/9"

KeepRule = Literal["fuller", "first", "longest", "newest"]
Profile = Literal["news", "corpus"]
PROFILES: tuple[str, ...] = ("news", "corpus")
KEEP_RULES: tuple[str, ...] = ("fuller", "first", "longest", "newest")


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
    # a batch is split into the connected components of its candidate graph (neardup.match.components):
    # a value more documents post is hot and links nothing, and a value's first link_posters posters
    # are linked to its holders
    hot_posting: int = 10_000
    link_posters: int = 8
    # a candidate component larger than this (documents) is cut along verified pairs, with the
    # batch's boilerplate counted over the batch, so that one pass holds less (components.py);
    # 200,000 documents of state is about 520 MB, and the cut doubles a run's time where it engages
    max_component: int = 200_000
    layout_distance: int = 6  # layout signatures this close: the same template
    # the one knob: what "duplicate" means for the job (news: the same story, so another occasion or
    # subject on one template is another story; corpus: the same text, templates included), and
    # how much two texts may add to each other and still merge (0 loosest, 1 strictest; 0.5 is
    # the calibrated setting: each step of 0.25 scales what may be added by 1.4)
    profile: Profile = "news"
    strictness: float = 0.5
    keep: KeepRule = "fuller"  # keep the copy that adds the most to the cluster's first (net)
    keep_field: str = "date"  # the record's date: ``keep="newest"`` compares it, ``occasion_days`` reads it
    extractor: str = "resiliparse"  # main-text extraction for HTML
    profile_tokens: int = 32768  # tokens of a text its profile keeps for text evidence (0: sketches only)
    # text evidence (neardup.match.text): what a text may add to the other and still be the same
    # document (adds_share of its characters plus adds_slack), what a fuller copy may add to a
    # contained one (None: anything; a share of the contained copy otherwise), the shared passage a
    # partial report needs, and the repeated substitutions that make a template of another subject
    adds_share: float = 0.1
    adds_slack: int = 10
    contained_adds_share: float = 0.25  # what a contained copy may add (an intro line, a dateline)
    adds_cap: int = 150  # ... in characters at most (what a removal may cost a reader)
    fuller_margin: float = 2.0  # the fuller copy adds this many times more than the contained one
    # ... or the contained copy shares scattered_shared characters and adds only runs this short (a
    # site's lines, links, a title; 0: off), and the fuller a passage and more than it by a passage
    scattered_run: int = 30
    scattered_shared: int = 150
    contained_share: float | None = None
    passage_min: int = 50
    shared_min: int = 50  # text both sides share, at the least, to be one document
    template_repeats: int = 2
    # a fuller text that holds the other as at most quote_pieces blocks beside a block of its own
    # (quote_block_share of the other's length, quote_block_min characters at least) quotes it
    quote_pieces: int = 2
    quote_block_share: float = 0.6
    quote_block_min: int = 150
    quote_lead: int = 50  # ... unless the fuller starts with the shared text after a headline this long
    # a text with this many short substitutions or more (look-alike or homophone characters, typos
    # scattered through a repost) has been edited, not added to: its substituted characters do not
    # count in what it adds, nor as the subject of a template (0: always counted)
    scattered_edits: int = 4
    report_templates: bool = False
    # news: two records dated more than this many days apart are two occasions (a yearly notice, a
    # template told again): a near or contained verdict between them is a template (0: dates unread)
    occasion_days: int = 14
    text_window_cjk: int = 8
    text_window_latin: int = 4

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
        rng("hot_posting", 1, 10**9)
        rng("link_posters", 1, 10**6)
        rng("max_component", 1, 2**31)
        rng("layout_distance", 0, 32)
        rng("profile_tokens", 0, 1 << 24)
        rng("adds_share", 0.0, 1.0)
        rng("adds_slack", 0, 10**9)
        rng("contained_adds_share", 0.0, 1.0)
        rng("adds_cap", 0, 10**9)
        rng("fuller_margin", 0.0, 10**6)
        rng("scattered_run", 0, 10**9)
        rng("scattered_shared", 0, 10**9)
        if self.contained_share is not None:
            rng("contained_share", 0.0, 10**6)
        rng("passage_min", 0, 10**9)
        rng("shared_min", 0, 10**9)
        rng("template_repeats", 0, 10**6)
        rng("quote_pieces", 0, 10**6)
        rng("quote_block_share", 0.0, 10**6)
        rng("quote_block_min", 0, 10**9)
        rng("quote_lead", 0, 10**9)
        rng("scattered_edits", 0, 10**6)
        rng("occasion_days", 0, 10**6)
        rng("text_window_cjk", 1, 64)
        rng("text_window_latin", 1, 64)
        if not isinstance(self.report_templates, bool):
            raise ConfigError(f"report_templates must be true or false, got {self.report_templates!r}")
        if self.profile not in PROFILES:
            raise ConfigError(f"profile must be one of {', '.join(PROFILES)}, got {self.profile!r}")
        rng("strictness", 0.0, 1.0)
        if self.keep not in KEEP_RULES:
            raise ConfigError(f"keep must be one of {', '.join(KEEP_RULES)}, got {self.keep!r}")
        if not isinstance(self.keep_field, str) or not self.keep_field.strip():
            raise ConfigError(f"keep_field must name a record field (e.g. date), got {self.keep_field!r}")

    def signature_settings(self) -> dict[str, Any]:
        """What decides a signature: files that store signatures must agree on it."""
        return {
            "engine": ENGINE_VERSION,
            "shingle": self.shingle,
            "sketch_size": self.sketch_size,
            "max_numbers": self.max_numbers,
            "extractor": self.extractor,
            "profile_tokens": self.profile_tokens,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchConfig:
        return config_from_dict(cls, data)
