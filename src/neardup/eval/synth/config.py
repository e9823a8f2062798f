"""What a synthetic set is made of: language, profile, how many sources and copies of each kind.

>>> SynthConfig(profile="classic").html_share
0.2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from neardup.exceptions import ConfigError

__all__ = ["CASES", "Lang", "Profile", "SynthConfig"]

Lang = Literal["zh", "en"]
Profile = Literal["realistic", "classic"]
# the realistic profile's cases of text reuse beyond reposts (neardup.eval.synth.cases)
CASES: tuple[str, ...] = ("quote", "follow_up", "template", "corrected", "script", "renumbered", "excerpt")


@dataclass(frozen=True)
class SynthConfig:
    """How many articles become sources, and how often each kind of copy is made.

    ``kind_weights`` are the relative odds of exact, reformatted, near and partial copies; each source
    that gets copies gets 1..``max_copies`` of them. ``hard_negatives`` defaults to n_sources // 5.

    ``profile="realistic"`` (the default) edits copies as much as real reposts do (5-gram Jaccard with
    the source mostly .35-.75) and writes each copy's ``jaccard5`` into the truth; ``"classic"`` makes
    light edits (about ten changed characters per copy).

    ``cases`` (realistic profile only; the classic profile ignores them) adds documents beyond
    reposts, each to about ``case_rate`` of the sources: quotes and follow-ups (related, their own
    group), subject-swapped templates (a different story), corrected, traditional-script, renumbered
    and excerpt copies (the source's group); see :mod:`neardup.eval.synth.cases`. ``cases=()`` gives
    the sets made before they existed, byte for byte.
    """

    lang: Lang = "zh"
    seed: int = 0
    n_sources: int = 1000
    copy_rate: float = 0.7  # share of sources that get copies (the rest stay alone, as distractors)
    max_copies: int = 3
    kind_weights: tuple[float, float, float, float] = (0.15, 0.3, 0.4, 0.15)
    hard_negatives: int | None = None
    hn_max_overlap: float = 0.5  # a hard negative shares less than this Jaccard of 5-grams with its pair
    min_chars: int | None = None  # sources shorter than this are not used; None: 300 zh, 1200 en
    # share of reformatted/near copies given as a site's HTML page (`html` field); None: 0.2 classic,
    # 0.4 realistic
    html_rate: float | None = None
    title_field: str = "title"
    date_field: str = "date"
    profile: Profile = "realistic"
    kinds: tuple[str, ...] = field(default=("exact", "reformatted", "near", "partial"), repr=False)
    cases: tuple[str, ...] = CASES
    case_rate: float = 0.06

    def __post_init__(self) -> None:
        if self.lang not in ("zh", "en"):
            raise ConfigError(f"lang must be 'zh' or 'en', got {self.lang!r}")
        if self.n_sources < 1:
            raise ConfigError(f"n_sources must be >= 1, got {self.n_sources}")
        if not 0 <= self.copy_rate <= 1:
            raise ConfigError(f"copy_rate must be between 0 and 1, got {self.copy_rate}")
        if self.max_copies < 1:
            raise ConfigError(f"max_copies must be >= 1, got {self.max_copies}")
        if self.hard_negatives is not None and self.hard_negatives < 0:
            raise ConfigError(f"hard_negatives must be >= 0, got {self.hard_negatives}")
        if self.min_chars is not None and self.min_chars < 0:
            raise ConfigError(f"min_chars must be >= 0, got {self.min_chars}")
        if len(self.kind_weights) != 4 or min(self.kind_weights) < 0 or sum(self.kind_weights) <= 0:
            raise ConfigError(
                f"kind_weights must be 4 non-negative odds (exact, reformatted, near, partial), "
                f"got {self.kind_weights}"
            )
        if not 0 < self.hn_max_overlap < 1:
            raise ConfigError(f"hn_max_overlap must be between 0 and 1, got {self.hn_max_overlap}")
        if self.html_rate is not None and not 0 <= self.html_rate <= 1:
            raise ConfigError(f"html_rate must be between 0 and 1, got {self.html_rate}")
        bad = [c for c in self.cases if c not in CASES]
        if bad:
            raise ConfigError(f"cases must be among {', '.join(CASES)}, got {', '.join(map(repr, bad))}")
        if not 0 < self.case_rate <= 1:
            raise ConfigError(f"case_rate must be > 0 and <= 1, got {self.case_rate}")
        if self.profile not in ("realistic", "classic"):
            raise ConfigError(f"profile must be 'realistic' or 'classic', got {self.profile!r}")

    @property
    def min_length(self) -> int:
        if self.min_chars is not None:
            return self.min_chars
        return 300 if self.lang == "zh" else 1200

    @property
    def html_share(self) -> float:
        if self.html_rate is not None:
            return self.html_rate
        return 0.2 if self.profile == "classic" else 0.4

    @property
    def n_hard_negatives(self) -> int:
        return self.n_sources // 5 if self.hard_negatives is None else self.hard_negatives
