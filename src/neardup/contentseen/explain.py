"""The prose of a verdict: why a page is a duplicate of, or related to, an earlier one.

``reasons`` turns the engine's evidence into the ``reasons`` dict of a
:class:`~neardup.contentseen.verdict.Verdict`: the evidence's figures, the longest sentences the
two pages share (when asked) and one ``why`` sentence a person can check against the two pages.

>>> reasons("exact", partner=4)
{'why': 'the same page (whitespace aside) as document 4'}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neardup.fingerprint.simhash import hamming
from neardup.match import Evidence, Signatures

__all__ = ["distances", "reasons", "shared_sentences"]


def shared_sentences(sents: Sequence[str], keys: Sequence[int], theirs: Sequence[int]) -> list[str]:
    """The sentences of a page (``sents``, hashed as ``keys``) whose hash is among ``theirs``.

    >>> shared_sentences(["甲。", "乙。"], [1, 2], [2, 3])
    ['乙。']
    """
    known = set(theirs)
    return [x for x, h in zip(sents, keys, strict=False) if h in known]


def _why(kind: str, partner: int | None, ev: Evidence | None) -> str | None:
    if kind == "exact":
        return f"the same page (whitespace aside) as document {partner}"
    if kind == "content":
        return f"the same main text (punctuation, spacing and width aside) as document {partner}"
    if ev is None:
        return None
    adds = f"; adds {ev.adds[0]} characters, the other {ev.adds[1]}" if ev.adds is not None else ""
    if kind == "near":
        return (
            f"similar main text to document {partner}: similarity {ev.similarity:.2f}, containment "
            f"{max(ev.containment):.2f}, {ev.number_conflicts} conflicting of {ev.numbers_aligned} "
            f"numbers in place{adds}"
        )
    if kind == "contained":
        return f"adds nothing to the fuller document {partner}{adds}"
    if kind == "supersedes":
        return f"a fuller copy of document {partner}, which adds nothing to it{adds}; keep this page"
    if kind == "template":
        return f"the same template as document {partner}, told of another subject or occasion{adds}"
    tmpl = "the same template" if kind == "layout" else "another template"
    return (
        f"a passage shared with document {partner} ({max(ev.containment):.0%} of the shorter one), "
        f"{tmpl}; reported, not a duplicate"
    )


def reasons(
    kind: str,
    partner: int | None,
    ev: Evidence | None = None,
    shared: list[str] | None = None,
) -> dict[str, Any]:
    """The ``reasons`` of a verdict of ``kind`` about ``partner`` (empty for ``new``).

    ``shared``: the sentences the two pages share (listed for every kind but exact when given).
    """
    out: dict[str, Any] = {}
    if kind == "new":
        return out
    if kind != "exact":
        if ev is not None:
            out.update(ev.to_dict())
        if shared is not None:
            out["shared_sentences"] = shared
    why = _why(kind, partner, ev)
    if why is not None:
        out["why"] = why
    if partner is not None and kind in ("partial", "layout", "template", "supersedes"):
        out["related_to"] = partner
    return out


def distances(sig: Signatures, other: Signatures | None) -> tuple[int | None, int | None]:
    """The SimHash and layout Hamming distances between two one-page signatures (None when absent)."""
    if other is None:
        return None, None
    distance = hamming(int(sig.simhash[0]), int(other.simhash[0]))
    layout = None
    if sig.has_layout[0] and other.has_layout[0]:
        layout = hamming(int(sig.layout[0]), int(other.layout[0]))
    return distance, layout
