"""The answer ContentSeen gives for one page: new, or which kind of duplicate of which document, and why.

Four kinds of duplicate pages, plus near duplicates; the match engine (``neardup.match``) decides
them from evidence:

==========  ==================================================================================
exact       same page: the HTML (or text) is the same as an earlier page's, whitespace aside
content     same main text (the same words; punctuation, spacing, width aside), other HTML: a mirror
near        the same text with edits that leave the content (each adds little to the other): a repost
contained   the page adds nothing to an earlier, fuller page (a cut, abridged or excerpted copy)
supersedes  an earlier page adds nothing to this fuller one: keep this page, the earlier is superseded
layout      a passage of one inside the other, on pages of the same template (reported only)
partial     a passage of one inside the other, each adding its own text (reported only)
template    the same template told of another subject or occasion (reported with report_templates)
new         none of the above
==========  ==================================================================================

Only exact, content, near and contained are duplicates (``is_duplicate``); the others are new
articles related to an earlier one (``is_related``); layout, partial and template pages never join
its cluster.

>>> Verdict(kind="near", doc_id=7, duplicate_of=3, distance=2).is_duplicate
True
>>> Verdict(kind="partial", doc_id=8, duplicate_of=3).is_duplicate
False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["DUPLICATE_KINDS", "KINDS", "RELATED_KINDS", "Kind", "Verdict"]

Kind = Literal["new", "exact", "content", "near", "contained", "supersedes", "layout", "partial", "template"]
KINDS: tuple[str, ...] = (
    "new",
    "exact",
    "content",
    "near",
    "contained",
    "supersedes",
    "layout",
    "partial",
    "template",
)
DUPLICATE_KINDS: frozenset[str] = frozenset(("exact", "content", "near", "contained"))
RELATED_KINDS: frozenset[str] = frozenset(("layout", "partial", "template", "supersedes"))
# the fields to_dict copies as they are, in the order of the dict it returns
_PLAIN_FIELDS = (
    "kind",
    "doc_id",
    "duplicate_of",
    "distance",
    "similar_id",
    "layout_distance",
    "url",
    "duplicate_url",
    "partner",
    "partner_url",
)


@dataclass(frozen=True)
class Verdict:
    """ContentSeen's answer for one page.

    ``doc_id`` is the id given to the page (None when it was only asked about, ``add=False``);
    ``duplicate_of`` is the first document of the cluster it duplicates (layout, partial: of the
    cluster of the document it shares a passage with, ``reasons["related_to"]``); ``distance`` the
    Hamming distance between the two SimHashes; ``similar_id`` the cluster the page belongs to;
    ``layout_distance`` the distance between the two template signatures; ``reasons`` holds the
    engine's evidence (``similarity``, ``containment`` both ways, ``number_conflicts`` of
    ``numbers_aligned``, ``hamming``), ``shared_sentences`` (the page's longest sentences that the
    other document has too) and ``why`` (one line). The other document of the evidence and of
    ``why`` is ``partner`` (URL ``partner_url``): the page it was matched with, which is a member of
    ``duplicate_of``'s cluster but not always its first document (a copy of a cluster's second page
    is matched with that page).
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
    # after reasons, so that positional construction of the fields before them keeps working
    partner: int | None = None
    partner_url: str | None = None

    @property
    def is_duplicate(self) -> bool:
        """exact, content or near: the page repeats an earlier one."""
        return self.kind in DUPLICATE_KINDS

    @property
    def is_related(self) -> bool:
        """layout or partial: a new page sharing a passage with an earlier one."""
        return self.kind in RELATED_KINDS

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``is_duplicate`` included)."""
        # not dataclasses.asdict, which deep-copies every value: the service calls this once per
        # request. ``reasons`` is copied one level deep (its lists are shared with the verdict).
        out = {name: getattr(self, name) for name in _PLAIN_FIELDS}
        out["reasons"] = dict(self.reasons)
        out["is_duplicate"] = self.is_duplicate
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """The inverse of :meth:`to_dict` (extra keys such as ``is_duplicate`` are ignored)."""
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)
