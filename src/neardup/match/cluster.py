"""Stage 4, clusters with short verified links: each document verified against representatives.

Documents are taken in order (corpus documents first, then a batch's candidate components each
longest text first, or in input order: ``neardup.match.components.pass_order``; or a crawler's
pages as they arrive). A document joins a cluster when it verifies as exact, content or near
against that cluster's **representative** (its first document) or, when the representative fails,
against one of the cluster's newest ``member_checks`` members that verified against the
representative itself, with a similarity of at least ``near_similarity`` (the containment routes
of a near verdict are for representatives only: a cut copy of a member is not enough). A ~ B and
B ~ C put C with A only when B ~ A directly: no document is more
than two verified links from its representative, so chains cannot drift. Two copies edited apart
from one source share less with each other than with the source, and in a stream the first copy
seen, not the source, represents the cluster (the source joins it as a member): the member check
is what finds the second copy. Among the clusters it verifies against a document joins the
strongest match (exact, then content, then near by similarity). A document that joins none
starts its own cluster; its best partial or layout relation is still reported, and never merges
anything; a document taken before it in another cluster that it shares a passage with and that
has no relation of its own is reported related to it (``backfill``). ``neardup.match.engine``
runs this for every document, in order, for the batch and for the stream alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.fingerprint.simhash import hamming
from neardup.match._numba_lazy import njit
from neardup.match.config import MatchConfig
from neardup.match.signature import Signatures
from neardup.match.tables import Arrays
from neardup.match.text import ROW_FIELDS
from neardup.match.verify import (
    CONTAINED,
    CONTENT,
    EXACT,
    KINDS,
    LAYOUT,
    NEAR,
    PARTIAL,
    UNIQUE,
    Evidence,
    occasions_apart,
    popcount,
    thresholds,
    verify_pair,
)

__all__ = ["Clusters", "assign_one", "backfill", "link_member", "thresholds"]

I64 = npt.NDArray[np.int64]


@dataclass
class Clusters:
    """Per document: its representative, kind and the evidence against its partner (-1: none).

    ``partner`` is the representative a duplicate joined, or the document a partial copy shares a
    passage with; the evidence columns describe that pair.
    """

    rep: I64
    kind: npt.NDArray[np.int8]
    partner: I64
    similarity: npt.NDArray[np.float64]
    containment: npt.NDArray[np.float64]  # (n, 2): this document in the partner, partner in this
    conflicts: npt.NDArray[np.int32]
    aligned: npt.NDArray[np.int32]
    hamming: npt.NDArray[np.int32]
    verified: int = 0  # pairs verified
    # (n, 4 + 15): adds, partner adds, passage, repeated, then the pair's text.ROW_FIELDS; -1: none
    text: npt.NDArray[np.int32] | None = None

    @classmethod
    def from_run(cls, out: dict[str, np.ndarray], offset: int = 0) -> Clusters:
        """The result of ``EngineState.run`` (state rows shifted by ``offset`` to batch rows)."""
        partner = out["partner"].copy()
        partner[partner >= 0] -= offset
        return cls(
            rep=out["rep"] - offset,
            kind=out["kind"],
            partner=partner,
            similarity=out["similarity"],
            containment=out["containment"],
            conflicts=out["conflicts"],
            aligned=out["aligned"],
            hamming=out["hamming"],
            verified=int(out["verified"][0]),
            text=out["text"],
        )

    def evidence(self, node: int, sigs: Signatures, config: MatchConfig) -> Evidence:
        """The evidence of ``node`` against its partner (``sigs``: the signatures per node, for the
        layouts); kind "unique" when it has none."""
        p = int(self.partner[node])
        same_layout = None
        if p >= 0 and sigs.has_layout[node] and sigs.has_layout[p]:
            same_layout = hamming(int(sigs.layout[node]), int(sigs.layout[p])) <= config.layout_distance
        text: dict[str, Any] = {}
        if self.text is not None and self.text[node, 0] >= 0:
            t = self.text[node]
            text = {"adds": (int(t[0]), int(t[1])), "passage": int(t[2]), "repeated": int(t[3])}
        return Evidence(
            kind=KINDS[int(self.kind[node])],
            similarity=float(self.similarity[node]),
            containment=(float(self.containment[node, 0]), float(self.containment[node, 1])),
            number_conflicts=int(self.conflicts[node]),
            numbers_aligned=int(self.aligned[node]),
            hamming=int(self.hamming[node]),
            same_layout=same_layout,
            **text,
        )


@njit(cache=True, nogil=True)
def _priority(kind: int, sim: float) -> float:  # pragma: no cover
    if kind == EXACT:
        return 4.0
    if kind == CONTENT:
        return 3.0
    if kind in (NEAR, CONTAINED):
        return 1.0 + sim
    return 0.0


@njit(cache=True, nogil=True)
def _verify(
    j: int,
    x: int,
    sig: Arrays,
    rule: tuple[Any, ...],
    tab: Arrays,
) -> tuple[int, float, float, float, int, int, bool, np.ndarray]:  # pragma: no cover
    """The kind of document ``j`` against row ``x``, with its evidence; ``sig`` holds the signature
    columns (``Signatures.columns()``), ``rule`` the verification parameters (sketch size, layout
    distance, thresholds, number conflicts, agreeing numbers, boilerplate posting count), ``tab``
    the key and posting tables, ``day`` (the rule's last item) the records' day numbers (empty:
    none), which ``occasions_apart`` reads."""
    exact, content, _, size, tokens, sketch, numbers, layout, has_layout, pp, prof = sig
    k, layout_distance, th, max_conflicts, agree_min, max_posting, day = rule
    pv, pc = tab[4], tab[5]
    same_layout = bool(
        has_layout[j] and has_layout[x] and int(popcount(layout[j] ^ layout[x])) <= layout_distance
    )
    kd, s, ca, cb, c, a, ev = verify_pair(
        sketch[j],
        numbers[j],
        size[j],
        prof[pp[j] : pp[j + 1]],
        sketch[x],
        numbers[x],
        size[x],
        prof[pp[x] : pp[x + 1]],
        exact[j] == exact[x],
        content[j] == content[x] and tokens[j] > 0,
        same_layout,
        k,
        pv,
        pc,
        max_posting,
        th,
        max_conflicts,
        agree_min,
    )
    if day.shape[0] > 0:
        kd = occasions_apart(kd, int(day[j]), int(day[x]), th)
    return kd, s, ca, cb, c, a, same_layout, ev


@njit(cache=True, nogil=True)
def assign_one(
    j: int,
    stamp: int,
    cands: np.ndarray,
    rep: np.ndarray,
    nxt: np.ndarray,
    checked: np.ndarray,
    sup: np.ndarray,
    sig: Arrays,
    rule: tuple[Any, ...],
    tab: Arrays,
    member_checks: int,
    out_f: np.ndarray,
    out_i: np.ndarray,
) -> int:  # pragma: no cover
    """Verify document ``j`` against the representatives (and, for partial relations, the
    documents) of its earlier candidates ``cands``; set ``rep[j]``.

    A representative that is not a duplicate of ``j`` hands on to up to ``member_checks`` of its
    cluster's members (``nxt`` links a cluster's rows, newest first): two copies edited apart from
    one source share less with each other than with the source, and in a stream the first copy
    seen, not the source, is the representative. A member that verifies joins ``j`` to its cluster
    (single linkage, each link verified on its own evidence, numbers in place included). A fuller
    copy that contains the representative's text joins it once, and only through the
    representative (``sup`` marks the cluster then; the keep rule keeps the fuller copy): a later
    fuller text that also contains it is another document and only related.

    Writes similarity, containment both ways to ``out_f`` and kind, partner, conflicts, aligned,
    hamming to ``out_i``, and in ``out_i[9]`` the representative ``j`` shares a passage with
    (partial or layout, ``j``'s way round) most, other than its own partner (-1: none): a
    document taken before ``j`` that ``backfill`` may report related to it; returns how many pairs
    were verified. ``checked`` marks targets already
    verified in this call (it holds ``stamp`` there, a number the caller never reuses).
    """
    simhash, th = sig[2], rule[2]
    best_p = 0.0
    best_part = 0.0
    verified = 0
    rep[j] = j
    # representatives first: a document that joins a cluster needs no partial checks
    out_i[0] = UNIQUE
    out_i[1] = -1
    out_i[2] = 0
    out_i[3] = 0
    out_i[4] = -1
    out_f[0] = 0.0
    out_f[1] = 0.0
    out_f[2] = 0.0
    out_i[5:9] = -1
    out_i[10:] = -1
    # the two representatives j shares the most with as partial or layout copies (first round)
    bf_best, bf_second = -1, -1
    bf_best_p, bf_second_p = 0.0, 0.0
    for second in (False, True):
        if second and best_p > 0.0:
            break
        for t in range(cands.shape[0]):
            target = cands[t] if second else rep[cands[t]]
            if checked[target] == stamp:
                continue
            checked[target] = stamp
            verified += 1
            kd, s, ca, cb, c, a, same_layout, ev = _verify(j, target, sig, rule, tab)
            via = target
            if not second and kd in (PARTIAL, LAYOUT):
                p_bf = max(ca, cb)
                if p_bf > bf_best_p:
                    bf_second, bf_second_p = bf_best, bf_best_p
                    bf_best, bf_best_p = target, p_bf
                elif p_bf > bf_second_p:
                    bf_second, bf_second_p = target, p_bf
            if kd == CONTAINED and ev[0] > ev[1] and (second or sup[rep[target]] != 0):
                # j contains the cluster's copy and adds to it, but a fuller copy already holds the
                # cluster: two fuller texts (two replies to one message) are two documents
                kd = PARTIAL if ev[4] >= th[9] else UNIQUE
            if not second and kd not in (EXACT, CONTENT, NEAR, CONTAINED):
                x = nxt[target]
                left = member_checks
                while x >= 0 and left > 0:
                    left -= 1
                    if checked[x] != stamp:
                        checked[x] = stamp
                        verified += 1
                        r = _verify(j, x, sig, rule, tab)
                        if r[0] in (EXACT, CONTENT) or (
                            (r[0] == NEAR or (r[0] == CONTAINED and r[7][0] <= r[7][1]))
                            and (r[7][2] > 0 or r[1] >= th[0])
                        ):
                            kd, s, ca, cb, c, a, same_layout, ev = r
                            via = x
                            break
                    x = nxt[x]
            merging = kd in (EXACT, CONTENT, NEAR, CONTAINED)
            if target != rep[target] and kd not in (EXACT, CONTENT):
                # not a representative: only a partial or layout relation may be reported, unless
                # the texts are the same (an identical text cannot chain two stories)
                if merging:
                    kd = PARTIAL if max(ca, cb) >= th[3] else UNIQUE
                    if kd == PARTIAL and same_layout:
                        kd = LAYOUT
                merging = False
            if merging:
                p = _priority(kd, s)
                if p <= best_p:
                    continue
                best_p = p
                rep[j] = rep[target]
            else:
                if kd == UNIQUE or best_p > 0.0:
                    continue
                p = max(ca, cb)
                if p <= best_part:
                    continue
                best_part = p
            out_i[0] = kd
            out_i[1] = via
            out_i[2] = c
            out_i[3] = c + a
            out_i[4] = int(popcount(simhash[j] ^ simhash[via]))
            out_f[0] = s
            out_f[1] = ca
            out_f[2] = cb
            has_text = ev[2] > 0 or ev[3] > 0
            out_i[5] = ev[0] if has_text else -1
            out_i[6] = ev[1] if has_text else -1
            out_i[7] = ev[4] if has_text else -1
            out_i[8] = ev[6] if has_text else -1
            for q in range(ROW_FIELDS.shape[0]):
                out_i[10 + q] = ev[ROW_FIELDS[q]] if has_text else -1
    out_i[9] = bf_second if bf_best == out_i[1] else bf_best
    return verified


@njit(cache=True, nogil=True)
def backfill(
    j: int,
    x: int,
    ox: int,
    sig: Arrays,
    rule: tuple[Any, ...],
    tab: Arrays,
    res: tuple[np.ndarray, ...],
) -> int:  # pragma: no cover
    """Report ``x`` (output slot ``ox``), a document taken before ``j`` and left with no relation,
    as related to ``j`` when they share a passage read ``x``'s way round (partial or layout): a
    passage copied into a longer article taken first is still reported. Returns pairs verified."""
    kind, partner, sim, cont, conf, alig, ham, text = res
    kd, s, ca, cb, c, a, _, ev = _verify(x, j, sig, rule, tab)
    if kd not in (PARTIAL, LAYOUT):
        return 1
    kind[ox] = kd
    partner[ox] = j
    conf[ox] = c
    alig[ox] = c + a
    ham[ox] = int(popcount(sig[2][x] ^ sig[2][j]))
    sim[ox] = s
    cont[ox, 0] = ca
    cont[ox, 1] = cb
    has_text = ev[2] > 0 or ev[3] > 0
    text[ox, 0] = ev[0] if has_text else -1
    text[ox, 1] = ev[1] if has_text else -1
    text[ox, 2] = ev[4] if has_text else -1
    text[ox, 3] = ev[6] if has_text else -1
    if text.shape[1] > 4:
        for q in range(ROW_FIELDS.shape[0]):
            text[ox, 4 + q] = ev[ROW_FIELDS[q]] if has_text else -1
    return 1


@njit(cache=True, nogil=True)
def link_member(
    j: int,
    rep: np.ndarray,
    nxt: np.ndarray,
    sig: Arrays,
    rule: tuple[Any, ...],
    tab: Arrays,
) -> None:  # pragma: no cover
    """List a member ``j`` first among its cluster's members (the list starts at the
    representative's ``nxt``) when it verifies against the representative itself, so a later
    document is never more than two verified links from the representative."""
    nxt[j] = -1
    r = rep[j]
    if r == j:
        return
    kd = _verify(j, r, sig, rule, tab)[0]
    if kd in (EXACT, CONTENT, NEAR, CONTAINED):
        nxt[j] = nxt[r]
        nxt[r] = j
