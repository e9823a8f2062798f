"""The answer ContentSeen gives for one page: new, or which kind of duplicate of which document, and why.

The kinds follow seed 004's four kinds of duplicate pages, plus SimHash near-duplicates:

========  ====================================================================================
exact     same page: the HTML (whitespace collapsed) hashes the same as an earlier page's
content   same main text (normalized), different HTML: a mirror in another template
near      main-text SimHash within ``max_distance`` bits of an earlier page's
layout    part of the important content the same (shared longest sentences) and the same template
partial   part of the important content the same, another template (a partial repost)
new       none of the above
========  ====================================================================================

>>> Verdict(kind="near", doc_id=7, duplicate_of=3, distance=2).is_duplicate
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["DUPLICATE_KINDS", "KINDS", "Kind", "Verdict"]

Kind = Literal["new", "exact", "content", "near", "layout", "partial"]
KINDS: tuple[str, ...] = ("new", "exact", "content", "near", "layout", "partial")
DUPLICATE_KINDS: frozenset[str] = frozenset(KINDS[1:])


@dataclass(frozen=True)
class Verdict:
    """ContentSeen's answer for one page.

    ``doc_id`` is the id given to the page (None when it was only asked about, ``add=False``);
    ``duplicate_of`` is the first document seen of the group it duplicates; ``distance`` the
    Hamming distance between the two main-text SimHashes; ``similar_id`` the nshash answer (the
    earliest document sharing most of the page's longest sentences, whatever the kind);
    ``layout_distance`` the distance between the two template signatures; ``reasons`` holds
    ``shared_sentences`` (the page's longest sentences that the other document has too),
    ``shared_features`` (the heaviest SimHash features both have) and ``why`` (one line).
    """

    kind: Kind
    doc_id: int | None = None
    duplicate_of: int | None = None
    distance: int | None = None
    similar_id: int | None = None
    layout_distance: int | None = None
    url: str | None = None
    duplicate_url: str | None = None
    reasons: dict[str, Any] = field(default_factory=dict)

    @property
    def is_duplicate(self) -> bool:
        return self.kind != "new"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``is_duplicate`` included)."""
        # by hand, not dataclasses.asdict, which deep-copies every value: the service calls this once
        # per request. ``reasons`` is copied one level deep (its lists are shared with the verdict).
        return {
            "kind": self.kind,
            "doc_id": self.doc_id,
            "duplicate_of": self.duplicate_of,
            "distance": self.distance,
            "similar_id": self.similar_id,
            "layout_distance": self.layout_distance,
            "url": self.url,
            "duplicate_url": self.duplicate_url,
            "reasons": dict(self.reasons),
            "is_duplicate": self.is_duplicate,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """The inverse of :meth:`to_dict` (extra keys such as ``is_duplicate`` are ignored)."""
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)
