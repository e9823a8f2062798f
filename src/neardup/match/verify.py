"""Stage 3, verification: what two signatures say of the two texts, and the kind that follows.

For a pair the evidence is:

- ``similarity``: the Jaccard similarity of the two sets of token windows, estimated from the
  bottom-k sketches (exact when both sets are smaller than the sketch): of the k smallest values
  of the union of the two sketches, the share found in both (Broder 1997);
- ``containment`` both ways: the share of one document's windows found in the other, from the
  similarity and the two set sizes (|A n B| = J (|A| + |B|) / (1 + J));
- ``number_conflicts`` / ``numbers_aligned``: number facts that sit in the same place in both
  texts (the same tokens around them) with different values, against those that agree. Editions
  of a templated story ("10月5日" / "10月6日", another session number) conflict; reposts do not;
- ``hamming``: the distance of the two SimHash fingerprints.

Kinds follow from evidence only (seed 004's four kinds, plus exact and content): ``exact`` (same
bytes), ``content`` (same token sequence, other format), ``near`` (similar text, numbers agree),
``partial`` (a passage of one inside the other) or ``layout`` (the same, on pages of the same
template). Only exact, content and near merge clusters.

>>> from neardup.match.signature import signatures
>>> s = signatures(["今天（10月5日）北京天气晴朗，适合出门散步。", "今天（10月6日）北京天气晴朗，适合出门散步。"])
>>> e = evidence(s, 0, s, 1)
>>> e.is_duplicate, e.number_conflicts  # another day's edition: the dates conflict
(False, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup.fingerprint.simhash import hamming
from neardup.index.kernels import popcount64
from neardup.match.config import MatchConfig
from neardup.match.signature import Signatures
from neardup.match.tables import is_common

__all__ = ["KINDS", "MERGING", "Evidence", "evidence"]

#: the Hamming index's hardware popcount (LLVM ctpop), for the engine's kernels
popcount: Any = popcount64

#: kind codes, in the order the engine uses them
KINDS: tuple[str, ...] = ("unique", "exact", "content", "near", "partial", "layout")
UNIQUE, EXACT, CONTENT, NEAR, PARTIAL, LAYOUT = range(6)
MERGING = frozenset({"exact", "content", "near"})

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@njit(cache=True, nogil=True)
def _overlap(
    a: np.ndarray, b: np.ndarray, k: int, pv: np.ndarray, pc: np.ndarray, max_posting: int
) -> tuple[int, int, int, int]:
    """Bottom-k comparison below both sketches' horizons, boilerplate values left out.

    Returns (values of the union, values in both, a's values, b's values) over the compared range.
    """  # pragma: no cover
    empty = np.uint32(0xFFFFFFFF)
    # a full sketch only speaks for values up to its largest one
    ha = a[k - 1] if a[k - 1] != empty else empty
    hb = b[k - 1] if b[k - 1] != empty else empty
    horizon = min(ha, hb)
    i = 0
    j = 0
    union = 0
    both = 0
    na = 0
    nb = 0
    while i < k or j < k:
        x = a[i] if i < k else empty
        y = b[j] if j < k else empty
        v = min(x, y)
        if v == empty or v > horizon:
            break
        if x == y:
            i += 1
            j += 1
            if not is_common(pv, pc, max_posting, v):
                union += 1
                both += 1
                na += 1
                nb += 1
        elif x < y:
            i += 1
            if not is_common(pv, pc, max_posting, v):
                union += 1
                na += 1
        else:
            j += 1
            if not is_common(pv, pc, max_posting, v):
                union += 1
                nb += 1
    return union, both, na, nb


@njit(cache=True, nogil=True)
def _numbers(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """(conflicting, agreeing) keys among the number facts both sides kept."""
    empty = np.uint64(0xFFFFFFFFFFFFFFFF)
    m = a.shape[0]
    # only keys both lists can hold: up to the smaller of their last kept keys
    la = a[m - 1] >> np.uint64(32) if a[m - 1] != empty else empty
    lb = b[m - 1] >> np.uint64(32) if b[m - 1] != empty else empty
    limit = min(la, lb)
    i = 0
    j = 0
    conflicts = 0
    agree = 0
    while i < m and j < m and a[i] != empty and b[j] != empty:
        ka = a[i] >> np.uint64(32)
        kb = b[j] >> np.uint64(32)
        if ka > limit or kb > limit:
            break
        if ka < kb:
            i += 1
        elif kb < ka:
            j += 1
        else:
            ie = i
            while ie < m and a[ie] != empty and (a[ie] >> np.uint64(32)) == ka:
                ie += 1
            je = j
            while je < m and b[je] != empty and (b[je] >> np.uint64(32)) == ka:
                je += 1
            # a conflict: each side holds a value the other lacks at this place
            only_a = False
            only_b = False
            p = i
            q = j
            while p < ie or q < je:
                if q >= je or (p < ie and a[p] < b[q]):
                    only_a = True
                    p += 1
                elif p >= ie or b[q] < a[p]:
                    only_b = True
                    q += 1
                else:
                    p += 1
                    q += 1
            if only_a and only_b:
                conflicts += 1
            else:
                agree += 1
            i = ie
            j = je
    return conflicts, agree


@njit(cache=True, nogil=True)
def pair_evidence(
    sa: np.ndarray,
    na: np.ndarray,
    size_a: int,
    sb: np.ndarray,
    nb: np.ndarray,
    size_b: int,
    k: int,
    pv: np.ndarray,
    pc: np.ndarray,
    max_posting: int,
) -> tuple[float, float, float, int, int]:  # pragma: no cover
    """(similarity, containment of a in b, of b in a, number conflicts, numbers agreeing).

    Sketch values the posting table (``pv``, ``pc``) marks as boilerplate are left out.
    """
    union, both, ca_n, cb_n = _overlap(sa, sb, k, pv, pc, max_posting)
    if union == 0:
        return 0.0, 0.0, 0.0, 0, 0
    j = both / union
    # |A n B| / |A| estimated on the same sample: values of both over values of A
    ca = both / ca_n if ca_n else 0.0
    cb = both / cb_n if cb_n else 0.0
    conflicts, agree = _numbers(na, nb)
    return j, ca, cb, conflicts, agree


@njit(cache=True, nogil=True)
def decide(
    exact_eq: bool,
    content_eq: bool,
    j: float,
    ca: float,
    cb: float,
    conflicts: int,
    agree: int,
    same_layout: bool,
    near_similarity: float,
    near_containment: float,
    containment_min_similarity: float,
    partial_containment: float,
    max_conflicts: int,
    conflict_share: float,
    agree_containment: float,
    agree_min: int,
) -> int:  # pragma: no cover
    """The kind code of a pair, from its evidence alone."""
    if exact_eq:
        return EXACT
    if content_eq:
        return CONTENT
    allowed = max(max_conflicts, int(conflict_share * (conflicts + agree)))
    numbers_ok = conflicts <= allowed
    cmax = max(ca, cb)
    if numbers_ok and (
        j >= near_similarity
        or (cmax >= near_containment and j >= containment_min_similarity)
        or (cmax >= agree_containment and agree >= agree_min and j >= containment_min_similarity)
    ):
        return NEAR
    if cmax >= partial_containment:
        return LAYOUT if same_layout else PARTIAL
    return UNIQUE


@dataclass(frozen=True)
class Evidence:
    """Why two documents are (or are not) duplicates: what a verdict reports."""

    kind: str
    similarity: float
    containment: tuple[float, float]  # first in second, second in first
    number_conflicts: int
    numbers_aligned: int
    hamming: int
    same_layout: bool | None = None

    @property
    def is_duplicate(self) -> bool:
        return self.kind in MERGING

    def to_dict(self) -> dict[str, Any]:
        """Compact form for output lines: rounded to 3 decimals."""
        d: dict[str, Any] = {
            "similarity": round(self.similarity, 3),
            "containment": [round(self.containment[0], 3), round(self.containment[1], 3)],
            "number_conflicts": self.number_conflicts,
            "numbers_aligned": self.numbers_aligned,
            "hamming": self.hamming,
        }
        if self.same_layout is not None:
            d["same_layout"] = self.same_layout
        return d


def _same_layout(a: Signatures, i: int, b: Signatures, j: int, config: MatchConfig) -> bool | None:
    if not (a.has_layout[i] and b.has_layout[j]):
        return None
    return hamming(int(a.layout[i]), int(b.layout[j])) <= config.layout_distance


_NO_VALUES = np.empty(0, np.uint32)
_NO_COUNTS = np.empty(0, np.int32)


def evidence(a: Signatures, i: int, b: Signatures, j: int, config: MatchConfig | None = None) -> Evidence:
    """The evidence and kind for document ``i`` of ``a`` against document ``j`` of ``b``, the two
    on their own (no collection to say what is boilerplate)."""
    cfg = config or MatchConfig()
    sim, ca, cb, conflicts, agree = pair_evidence(
        a.sketch[i],
        a.numbers[i],
        int(a.size[i]),
        b.sketch[j],
        b.numbers[j],
        int(b.size[j]),
        cfg.sketch_size,
        _NO_VALUES,
        _NO_COUNTS,
        cfg.max_posting,
    )
    layout = _same_layout(a, i, b, j, cfg)
    code = decide(
        bool(a.exact[i] == b.exact[j]),
        bool(a.content[i] == b.content[j]) and int(a.tokens[i]) > 0,
        sim,
        ca,
        cb,
        conflicts,
        agree,
        bool(layout),
        cfg.near_similarity,
        cfg.near_containment,
        cfg.containment_min_similarity,
        cfg.partial_containment,
        cfg.max_number_conflicts,
        cfg.conflict_share,
        cfg.agree_containment,
        cfg.agree_min,
    )
    return Evidence(
        kind=KINDS[code],
        similarity=float(sim),
        containment=(float(ca), float(cb)),
        number_conflicts=int(conflicts),
        numbers_aligned=int(conflicts + agree),
        hamming=hamming(int(a.simhash[i]), int(b.simhash[j])),
        same_layout=layout,
    )
