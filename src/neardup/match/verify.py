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

from neardup.fingerprint.simhash import hamming
from neardup.match import kernels
from neardup.match._numba_lazy import later, njit
from neardup.match.config import MatchConfig
from neardup.match.dates import NO_DAY
from neardup.match.signature import Signatures
from neardup.match.tables import is_common
from neardup.match.text import ALIKE_SUBJECT as _ALIKE_SUBJECT
from neardup.match.text import EVIDENCE_SIZE, text_evidence
from neardup.match.text import FRAME_FILL as _FRAME_FILL
from neardup.match.text import SUBJECT_PLACES as _SUBJECT_PLACES

__all__ = ["KINDS", "MERGING", "Evidence", "evidence", "thresholds", "verify_pair"]

#: the Hamming index's hardware popcount (LLVM ctpop), for the engine's kernels
popcount: Any = later("neardup.index.kernels", "popcount64")

#: kind codes, in the order the engine uses them
KINDS: tuple[str, ...] = ("unique", "exact", "content", "near", "partial", "layout", "contained", "template")
UNIQUE, EXACT, CONTENT, NEAR, PARTIAL, LAYOUT, CONTAINED, TEMPLATE = range(8)
MERGING = frozenset({"exact", "content", "near", "contained"})
_NO_DAY = NO_DAY

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


@njit(cache=True, nogil=True)
def _contained(
    ux: int,
    tx: int,
    uy: int,
    ty: int,
    share: float,
    slack: float,
    cap: float,
    margin: float,
    contained_share: float,
    passage_min: float,
) -> bool:  # pragma: no cover
    """x is a cut, abridged or excerpted copy of y: x adds little (``share`` of it plus the slack,
    never more than ``cap`` characters), y adds far more (``margin`` times as much, plus a
    passage). A short notice that shares only a title and the site's dateline with a report (a
    third of it its own) is not a copy of it."""
    return (
        ux <= min(share * tx + slack, cap) and uy >= margin * ux + passage_min and uy <= contained_share * tx
    )


@njit(cache=True, nogil=True)
def _scattered_in(
    ux: int, tx: int, bx: int, uy: int, by: int, rule: tuple[float, ...]
) -> bool:  # pragma: no cover
    """x shares at least ``shared`` with y and adds only short runs (none longer than ``run``: a
    site's lines, a link to another article, a changed title) and little in all, and y adds a passage
    of its own and more than x by a passage: x is y with lines added, y its fuller copy (a cut copy
    that gained a site's lines; a short notice told again in a longer report is not one)."""
    share, slack, cap, passage_min, contained_share, run, shared = rule
    return (
        run > 0
        and tx - ux >= shared
        and bx <= run
        and ux <= min(share * tx + slack, cap)
        and by >= passage_min
        and uy >= ux + passage_min
        and uy <= contained_share * tx
    )


_QUOTE_FAR = 3


@njit(cache=True, nogil=True)
def _quotes(ev: np.ndarray, a_fuller: bool, th: np.ndarray) -> bool:  # pragma: no cover
    """The fuller text quotes the other as a block or two and adds a block of its own; a fuller
    text that starts with the shared one (after a headline of at most ``quote_lead`` characters)
    and only goes on does not: the other is its cut copy."""
    block, pieces, other, lead = (
        (ev[13], ev[15], ev[3], ev[11]) if a_fuller else (ev[14], ev[16], ev[2], ev[12])
    )
    if pieces == 1 and lead <= max(th[7], th[22]):
        return False
    # a block of its own several times the other's length: the other is an excerpt of a larger
    # document (a brief inside a round-up, a resolution inside the report), even in more pieces
    most = 2 * th[19] if block >= _QUOTE_FAR * other else th[19]
    return bool(pieces <= most and block >= max(th[21], th[20] * other))


@njit(cache=True, nogil=True)
def decide_text(kd: int, ev: np.ndarray, same_layout: bool, th: np.ndarray) -> int:  # pragma: no cover
    """The kind of a pair from its text evidence (``neardup.match.text.text_evidence``), for a pair
    the sketches call near, partial or layout (``kd``).

    - short substitutions scattered through a text (``scattered_edits`` or more: typos,
      look-alike characters) are edits: their characters are not counted as added;
    - both texts add little to each other (at most ``adds_share`` of their characters plus
      ``adds_slack``): the same document, ``near``; so is a pair where one adds at most
      ``adds_share`` of its characters (no slack) and the other no more than a cut copy may add
      (below) but not enough to be the fuller copy: an end cut or a sentence added on one side
      (checked after ``contained``);
    - and in either case at least ``shared_min`` characters of each are shared (three quarters
      of the longer text, when both are short);
    - one adds little (``contained_adds_share`` of it, at most ``adds_cap`` characters: a cut,
      abridged or excerpted copy, an intro line) and the other adds ``fuller_margin`` times more
      (up to ``contained_share`` of the first, when set): ``contained``, the fuller kept; or the
      first shares ``scattered_shared`` characters at least and adds only short runs (none longer
      than ``scattered_run``: a site's lines, links to other articles, a changed title), and the
      other adds a passage of its own and more than the first by ``passage_min``: a cut copy that
      gained a site's lines is ``contained`` too;
    - neither when one side sets most of what they share on quoted lines and the other does not
      (a reply and the message it quotes); when both do (two replies to one message), each text
      is what it writes: the shares above are of its text less what it quotes; but when one of
      them quotes a passage (``passage_min``) more than the other does and writes a passage of
      its own, it quotes the other's own words: a reply to that reply, two documents;
    - otherwise each carries content of its own: ``partial`` (``layout`` in one template) when they
      share a passage of ``passage_min`` characters, else ``unique``; but when one names another
      occasion (or their leads name two) and they fill what they share with words replaced in
      place or with runs of their own of ``FRAME_FILL`` units at most, neither quoting the other,
      what they share is a template's frame: ``template`` (the news profile);
    - not ``contained`` but related (the news profile) when the fuller text holds the other as
      at most ``quote_pieces`` blocks (twice as many beside a block three times the other's
      length: an excerpt of a larger document) beside a block of its own of ``quote_block_share``
      of the other's length (``quote_block_min`` characters at least): a reply, a commentary, a
      follow-up or a round-up that quotes a text and adds its own, where an abridged telling of
      one report shares many scattered runs and a cut copy is the fuller text's beginning (after
      a headline of at most ``quote_lead`` characters);
    - a merge whose differences replace a subject wherever it appears (``template_repeats`` terms
      or more, when the texts differ in a few places: ``SUBJECT_PLACES`` shared runs or fewer on
      one side at least; or one span replaced alike in two places that makes at least half of what the
      closer text adds or 25 units at least: a person's full name), or whose texts each hold a
      year, date or edition number the other lacks, or whose leads each name a session or a day
      of their own (the chairmen's 37th meeting on the 26th, the committee's 11th session on the
      27th), is ``template``: the same template told of another subject or occasion. It merges nothing and is reported only with
      ``report_templates``;
    - neither when one text is, in its own words, the reactions to what the other reports (a
      genre marker, 反响, that the other never holds; or, in the shorter text only, 倍受鼓舞,
      各界表示): two documents of one event, ``partial`` when they share a passage (the news
      profile).
    """
    ua, ub, ta, tb, passage = ev[0], ev[1], ev[2], ev[3], ev[4]
    repeated, occasion, qa, qb = ev[6], ev[8], ev[9], ev[10]
    # occasion 3: one text is the reactions to what the other reports (names no occasion)
    genre = occasion == 3
    if genre:
        occasion = 0
    adds_share, adds_slack, contained_share, passage_min, repeats, report = th[6:12]
    loose_share, adds_cap, margin = th[15], th[16], th[17]
    scattered = (loose_share, adds_slack, adds_cap, passage_min, contained_share, th[25], th[26])
    # a subject replaced alike in two places: most of what the closer text differs by, or a name
    # of several words replaced everywhere beside other differences
    alike = ev[17] > 0 and (2 * ev[17] >= min(ua, ub) or ev[17] >= _ALIKE_SUBJECT)
    # substitutions scattered through a text are edits (typos, look-alike characters): what is
    # substituted is not added, and a subject replaced alike must be most of what is substituted
    # (a homophone typo repeats too; a name replaced alike counts as most: text.py)
    shared_a, shared_b = ta - ua, tb - ub
    if ev[5] >= th[23]:
        ua -= ev[18]
        ub -= ev[19]
        alike = alike and 2 * ev[17] >= ev[18] + ev[19]
    # terms repeated among a few differing places name a subject; among dozens, chance repeats them
    few_places = min(ev[15], ev[16]) <= _SUBJECT_PLACES
    template = repeats > 0 and ((repeated >= repeats and few_places) or alike)
    merge = UNIQUE
    quotes_a, quotes_b = 2 * qa >= shared_a, 2 * qb >= shared_b
    reply = False
    if quotes_a and quotes_b and qa > 0 and qb > 0:
        # both quote what they share (two replies to one message): each text is what it writes;
        # unless one quotes, by a passage, more than the other does, and writes a passage of its
        # own: it quotes the other's own words, a reply to that reply
        ta -= qa
        tb -= qb
        reply = (qb - qa >= passage_min and ub >= passage_min) or (
            qa - qb >= passage_min and ua >= passage_min
        )
    if reply:
        pass  # a reply and the reply it quotes: two documents
    elif min(shared_a, shared_b) < min(th[14], 0.75 * max(ev[2], ev[3])):
        pass  # too little shared text to be one document (a slogan, a stock line)
    elif quotes_a != quotes_b:
        pass  # one side quotes what they share (a reply and its parent): two documents
    elif ua <= adds_share * ta + adds_slack and ub <= adds_share * tb + adds_slack:
        merge = NEAR
        # another year, date or edition on both sides of texts that otherwise agree: the next
        # occasion told on one template (a fuller copy's own dates say nothing of the kind)
        template = template or (occasion > 0 and th[18] > 0)
    elif (
        _contained(ua, ta, ub, tb, loose_share, adds_slack, adds_cap, margin, contained_share, passage_min)
        or _contained(ub, tb, ua, ta, loose_share, adds_slack, adds_cap, margin, contained_share, passage_min)
        or _scattered_in(ua, ta, ev[13], ub, ev[14], scattered)
        or _scattered_in(ub, tb, ev[14], ua, ev[13], scattered)
    ):
        merge = CONTAINED
        # two notices of one series (another day's title and date): each names an occasion the
        # other lacks, and one replaces the other's in place (the 61st meeting for the 59th) or the
        # fuller adds little more than the other (a paper's fuller copy dates what a broadcast
        # does not: its own dates alone say nothing)
        template = template or (
            occasion > 0 and th[18] > 0 and (occasion > 1 or max(ev[0], ev[1]) <= 3 * min(ev[0], ev[1]) + 100)
        )
        if th[18] > 0 and _quotes(ev, ev[0] >= ev[1], th):
            merge = UNIQUE
    elif (ua <= adds_share * ta and ub <= min(loose_share * tb + adds_slack, adds_cap)) or (
        ub <= adds_share * tb and ua <= min(loose_share * ta + adds_slack, adds_cap)
    ):
        # one text adds next to nothing, the other an end or a sentence (no more than a cut copy
        # may add): one document edited on one side
        merge = NEAR
        template = template or (occasion > 0 and th[18] > 0)
    if genre and th[18] > 0:
        merge = UNIQUE
    if merge != UNIQUE:
        if not template:
            return merge
        return TEMPLATE if report > 0 else UNIQUE
    if passage >= passage_min and kd != UNIQUE:
        # what they share is a frame, one text naming another occasion: filled in with words
        # replaced in place (the presidium's fifth and sixth meetings) or with short runs of their
        # own (two live-broadcast notices, whose leads name two days), neither quoting the other: a
        # template, no shared passage of content; a passage pasted into another article that tells
        # another phase of an event leaves that article's own paragraphs around it and replaces
        # nothing
        filled = max(ev[13], ev[14]) <= _FRAME_FILL
        quoting = qa > 0 or qb > 0
        if (
            th[18] > 0
            and not quoting
            and ((occasion == 2 and (ev[5] > 0 or filled)) or (occasion == 4 and filled))
        ):
            return TEMPLATE if report > 0 else UNIQUE
        return LAYOUT if same_layout else PARTIAL
    return UNIQUE


@njit(cache=True, nogil=True)
def occasions_apart(kd: int, day_a: int, day_b: int, th: np.ndarray) -> int:  # pragma: no cover
    """The kind of a pair once the records' dates are read: a near, contained, partial or layout
    pair of records dated more than ``occasion_days`` (``th[24]``) apart is a ``template``, text
    told again on another occasion (a yearly notice, the next meeting of a series, a stock passage
    of a programme), reported only with ``report_templates``. Identical texts (exact, content)
    stay duplicates; an unknown date (``NO_DAY``) decides nothing."""
    dated = day_a != _NO_DAY and day_b != _NO_DAY
    related = kd in (NEAR, CONTAINED, PARTIAL, LAYOUT)
    if related and th[24] > 0 and dated and abs(day_a - day_b) > th[24]:
        return TEMPLATE if th[11] > 0 else UNIQUE
    return kd


_NO_TEXT = np.zeros(EVIDENCE_SIZE, np.int64)


@njit(cache=True, nogil=True)
def verify_pair(
    sa: np.ndarray,
    na: np.ndarray,
    size_a: int,
    pa: np.ndarray,
    sb: np.ndarray,
    nb: np.ndarray,
    size_b: int,
    pb: np.ndarray,
    exact_eq: bool,
    content_eq: bool,
    same_layout: bool,
    k: int,
    pv: np.ndarray,
    pc: np.ndarray,
    max_posting: int,
    th: np.ndarray,
    max_conflicts: int,
    agree_min: int,
) -> tuple[int, float, float, float, int, int, np.ndarray]:  # pragma: no cover
    """The kind of a pair and its evidence: (kind, similarity, containment of a in b, of b in a,
    number conflicts, numbers agreeing, text evidence). With both text profiles (``pa``, ``pb``) the
    sketches find the pairs worth reading and the texts decide (``decide_text``), number conflicts
    included (a template's other date is a repeated substitution, a corrected figure is one edit);
    without them the sketches and numbers decide (``decide``)."""
    s, ca, cb, c, a = pair_evidence(sa, na, size_a, sb, nb, size_b, k, pv, pc, max_posting)
    texts = pa.shape[0] > 0 and pb.shape[0] > 0
    kd = decide(
        exact_eq,
        content_eq,
        s,
        ca,
        cb,
        c,
        a,
        same_layout,
        th[0],
        th[1],
        th[2],
        th[3],
        1 << 30 if texts else max_conflicts,
        th[4],
        th[5],
        agree_min,
    )
    if not texts or kd in (EXACT, CONTENT, UNIQUE):
        return kd, s, ca, cb, c, a, _NO_TEXT
    ev = text_evidence(pa, pb, int(th[12]), int(th[13]))
    return decide_text(kd, ev, same_layout, th), s, ca, cb, c, a, ev


def thresholds(cfg: MatchConfig) -> npt.NDArray[np.float64]:
    """The decision thresholds as the kernels take them, with ``profile`` and ``strictness``
    applied: what texts may add scales by 2 ** (1 - 2 * strictness); the corpus profile merges
    templates of another subject or occasion (the same text is a duplicate there)."""
    f = 2.0 ** (1.0 - 2.0 * cfg.strictness)
    news = cfg.profile == "news"
    return np.array(
        [
            cfg.near_similarity,
            cfg.near_containment,
            cfg.containment_min_similarity,
            cfg.partial_containment,
            cfg.conflict_share,
            cfg.agree_containment,
            min(1.0, cfg.adds_share * f),
            cfg.adds_slack * f,
            1e18 if cfg.contained_share is None else cfg.contained_share,
            cfg.passage_min,
            cfg.template_repeats if news else 0,
            1.0 if cfg.report_templates else 0.0,
            cfg.text_window_cjk,
            cfg.text_window_latin,
            cfg.shared_min,
            min(1.0, cfg.contained_adds_share * f),
            cfg.adds_cap * f,
            cfg.fuller_margin,
            1.0 if news else 0.0,
            cfg.quote_pieces,
            cfg.quote_block_share,
            cfg.quote_block_min,
            cfg.quote_lead,
            cfg.scattered_edits if cfg.scattered_edits > 0 else 1 << 30,
            cfg.occasion_days if news else 0,
            cfg.scattered_run * f,
            cfg.scattered_shared,
        ],
        np.float64,
    )


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
    adds: tuple[int, int] | None = None  # characters the first text adds to the second, and back
    passage: int | None = None  # the longest shared passage, in characters
    repeated: int | None = None  # terms replaced wherever they appear (a template's subject)

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
        if self.adds is not None:
            d["adds"] = [self.adds[0], self.adds[1]]
            d["passage"] = self.passage
            d["repeated"] = self.repeated
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
    th = thresholds(cfg)
    layout = _same_layout(a, i, b, j, cfg)
    code, sim, ca, cb, conflicts, agree, ev = kernels.verify_pair(
        a.sketch[i],
        a.numbers[i],
        int(a.size[i]),
        a.profile(i),
        b.sketch[j],
        b.numbers[j],
        int(b.size[j]),
        b.profile(j),
        bool(a.exact[i] == b.exact[j]),
        bool(a.content[i] == b.content[j]) and int(a.tokens[i]) > 0,
        bool(layout),
        cfg.sketch_size,
        _NO_VALUES,
        _NO_COUNTS,
        cfg.max_posting,
        th,
        cfg.max_number_conflicts,
        cfg.agree_min,
    )
    code = kernels.occasions_apart(code, int(a.day[i]), int(b.day[j]), th)
    texts = a.profile(i).size > 0 and b.profile(j).size > 0
    return Evidence(
        kind=KINDS[code],
        similarity=float(sim),
        containment=(float(ca), float(cb)),
        number_conflicts=int(conflicts),
        numbers_aligned=int(conflicts + agree),
        hamming=hamming(int(a.simhash[i]), int(b.simhash[j])),
        same_layout=layout,
        **(text_fields(ev) if texts else {}),
    )


def text_fields(ev: npt.NDArray[np.int64]) -> dict[str, Any]:
    """The ``Evidence`` fields of a text evidence array (``text_evidence``'s layout)."""
    return {"adds": (int(ev[0]), int(ev[1])), "passage": int(ev[4]), "repeated": int(ev[6])}
