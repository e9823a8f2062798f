"""The decision on one page, read from the match engine's answer: a pure function of its output.

The engine (``neardup.match.EngineState.run``) answers with the kind of the best match among the
documents recorded so far, the row of that partner and of its cluster's representative, and the
evidence. ``decide`` maps rows to document ids and picks the cluster the page joins: a duplicate
(exact, content, near) joins its partner's cluster; a related page (partial, layout) starts its
own and names the partner's cluster root.

>>> out = {"kind": [0]}  # the engine's "unique"
>>> decide(out, [], lambda d: d)
Decision(kind='new', root=None, partner=None, evidence=None)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.match import KINDS as ENGINE_KINDS
from neardup.match import MERGING, Evidence

__all__ = ["JOINING", "Decision", "decide", "verdict_kind"]

#: verdict kinds whose page joins its partner's cluster: the duplicates, and a fuller copy that
#: supersedes an earlier one (the engine merged the two; the crawler keeps the fuller page)
JOINING = MERGING | {"supersedes"}


@dataclass(frozen=True, slots=True)
class Decision:
    """A page's kind, the cluster root it joins or relates to, the partner and the evidence."""

    kind: str
    root: int | None
    partner: int | None
    evidence: Evidence | None


def verdict_kind(engine_kind: str) -> str:
    """The verdict's name for an engine kind (the engine's ``unique`` is a verdict's ``new``).

    >>> verdict_kind("unique"), verdict_kind("near")
    ('new', 'near')
    """
    return "new" if engine_kind == "unique" else engine_kind


def decide(out: dict[str, Any], rows: Sequence[int], root_of: Callable[[int], int]) -> Decision:
    """The decision for the first page of an engine answer ``out``.

    ``rows`` maps engine rows to document ids; ``root_of`` gives a document's cluster root.
    """
    kind = verdict_kind(ENGINE_KINDS[int(out["kind"][0])])
    if kind == "new":
        return Decision("new", None, None, None)
    partner = rows[int(out["partner"][0])]
    root = rows[int(out["rep"][0])] if kind in MERGING else root_of(partner)
    text = out["text"][0] if "text" in out else None
    has_text = text is not None and int(text[0]) >= 0
    ev = Evidence(
        kind=kind,
        similarity=float(out["similarity"][0]),
        containment=(float(out["containment"][0, 0]), float(out["containment"][0, 1])),
        number_conflicts=int(out["conflicts"][0]),
        numbers_aligned=int(out["aligned"][0]),
        hamming=int(out["hamming"][0]),
        adds=(int(text[0]), int(text[1])) if has_text and text is not None else None,
        passage=int(text[2]) if has_text and text is not None else None,
        repeated=int(text[3]) if has_text and text is not None else None,
    )
    if kind == "contained" and has_text and text is not None and int(text[0]) > int(text[1]):
        # the earlier page is the contained one: this fuller page is kept, the earlier superseded
        kind = "supersedes"
    return Decision(kind, root, partner, ev)
