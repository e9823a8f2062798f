"""Stage 4, clusters without chains: documents in order, each verified against representatives.

Documents are taken in order (corpus documents first, then a batch in input order, or a crawler's
pages as they arrive). A document joins a cluster only when it verifies as exact, content or near
against that cluster's **representative** (its first document), never through a chain of indirect
matches: A ~ B and B ~ C do not put C with A unless C ~ A. Among the clusters it verifies against it
joins the strongest match (exact, then content, then near by similarity). A document that joins
none starts its own cluster; its best partial or layout relation is still reported, and never
merges anything. The same order gives the same clusters in ``neardup dedup`` (local or Spark) and in
``ContentSeen``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup.match.config import MatchConfig
from neardup.match.signature import Signatures
from neardup.match.verify import CONTENT, EXACT, LAYOUT, NEAR, PARTIAL, UNIQUE, _popcount, decide, pair_evidence

__all__ = ["Clusters", "assign_one", "cluster", "thresholds"]

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


@njit(cache=True, nogil=True)
def _priority(kind: int, sim: float) -> float:  # pragma: no cover
    if kind == EXACT:
        return 4.0
    if kind == CONTENT:
        return 3.0
    if kind == NEAR:
        return 1.0 + sim
    return 0.0


@njit(cache=True, nogil=True)
def assign_one(
    j: int,
    cands: np.ndarray,
    rep: np.ndarray,
    checked: np.ndarray,
    exact: np.ndarray,
    content: np.ndarray,
    tokens: np.ndarray,
    simhash: np.ndarray,
    size: np.ndarray,
    sketch: np.ndarray,
    numbers: np.ndarray,
    layout: np.ndarray,
    has_layout: np.ndarray,
    k: int,
    layout_distance: int,
    th: np.ndarray,
    max_conflicts: int,
    agree_min: int,
    boiler: np.ndarray,
    out_f: np.ndarray,
    out_i: np.ndarray,
) -> int:  # pragma: no cover
    """Verify document ``j`` against the representatives (and, for partial relations, the
    documents) of its earlier candidates ``cands``; set ``rep[j]``.

    Writes similarity, containment both ways to ``out_f`` and kind, partner, conflicts, aligned,
    hamming to ``out_i``; returns how many pairs were verified. ``checked`` marks targets already
    verified for ``j`` (it holds ``j`` there): the caller gives an array of -1 of the rows' size.
    """
    best_p = 0.0
    best_part = 0.0
    verified = 0
    rep[j] = j
    out_i[0] = UNIQUE
    out_i[1] = -1
    out_i[2] = 0
    out_i[3] = 0
    out_i[4] = -1
    out_f[0] = 0.0
    out_f[1] = 0.0
    out_f[2] = 0.0
    for t in range(cands.shape[0]):
        i = cands[t]
        for target in (rep[i], i):
            if checked[target] == j:
                continue
            checked[target] = j
            verified += 1
            s, ca, cb, c, a = pair_evidence(
                sketch[j], numbers[j], size[j], sketch[target], numbers[target], size[target], k, boiler
            )
            same_layout = (
                has_layout[j] and has_layout[target] and _popcount(layout[j] ^ layout[target]) <= layout_distance
            )
            kd = decide(
                exact[j] == exact[target],
                content[j] == content[target] and tokens[j] > 0,
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
                max_conflicts,
                th[4],
                th[5],
                agree_min,
            )
            merging = kd == EXACT or kd == CONTENT or kd == NEAR
            if target != rep[target]:
                # not a representative: only a partial or layout relation may be reported
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
                rep[j] = target
            else:
                if kd == UNIQUE or best_p > 0.0:
                    continue
                p = max(ca, cb)
                if p <= best_part:
                    continue
                best_part = p
            out_i[0] = kd
            out_i[1] = target
            out_i[2] = c
            out_i[3] = c + a
            out_i[4] = _popcount(simhash[j] ^ simhash[target])
            out_f[0] = s
            out_f[1] = ca
            out_f[2] = cb
    return verified


@njit(cache=True, nogil=True)
def _cluster_kernel(
    n: int,
    n_fixed: int,
    indptr: np.ndarray,
    cand: np.ndarray,
    exact: np.ndarray,
    content: np.ndarray,
    tokens: np.ndarray,
    simhash: np.ndarray,
    size: np.ndarray,
    sketch: np.ndarray,
    numbers: np.ndarray,
    layout: np.ndarray,
    has_layout: np.ndarray,
    k: int,
    layout_distance: int,
    th: np.ndarray,
    max_conflicts: int,
    agree_min: int,
    boiler: np.ndarray,
) -> tuple[np.ndarray, ...]:  # pragma: no cover
    rep = np.arange(n).astype(np.int64)
    kind = np.zeros(n, np.int8)
    partner = np.full(n, -1, np.int64)
    sim = np.zeros(n, np.float64)
    cont = np.zeros((n, 2), np.float64)
    conf = np.zeros(n, np.int32)
    alig = np.zeros(n, np.int32)
    ham = np.full(n, -1, np.int32)
    checked = np.full(n, -1, np.int64)
    out_f = np.zeros(3, np.float64)
    out_i = np.zeros(5, np.int64)
    verified = 0
    for j in range(n_fixed, n):
        verified += assign_one(
            j,
            cand[indptr[j] : indptr[j + 1]],
            rep,
            checked,
            exact,
            content,
            tokens,
            simhash,
            size,
            sketch,
            numbers,
            layout,
            has_layout,
            k,
            layout_distance,
            th,
            max_conflicts,
            agree_min,
            boiler,
            out_f,
            out_i,
        )
        kind[j] = out_i[0]
        partner[j] = out_i[1]
        conf[j] = out_i[2]
        alig[j] = out_i[3]
        ham[j] = out_i[4]
        sim[j] = out_f[0]
        cont[j, 0] = out_f[1]
        cont[j, 1] = out_f[2]
    return rep, kind, partner, sim, cont, conf, alig, ham, verified


def thresholds(cfg: MatchConfig) -> npt.NDArray[np.float64]:
    """The decision thresholds as the kernels take them."""
    return np.array(
        [
            cfg.near_similarity,
            cfg.near_containment,
            cfg.containment_min_similarity,
            cfg.partial_containment,
            cfg.conflict_share,
            cfg.agree_containment,
        ],
        np.float64,
    )


def _csr(n: int, a: I64, b: I64) -> tuple[I64, I64]:
    """Candidates of each document as earlier documents: a CSR by the later end."""
    order = np.lexsort((a, b))
    later, earlier = b[order], a[order]
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, later + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, earlier.astype(np.int64)


def cluster(
    sigs: Signatures,
    a: I64,
    b: I64,
    config: MatchConfig | None = None,
    *,
    n_fixed: int = 0,
    boiler: npt.NDArray[np.uint32] | None = None,
) -> Clusters:
    """Cluster documents given candidate pairs (a < b); the first ``n_fixed`` rows are already
    representatives (a corpus) and are not assigned again. ``boiler``: boilerplate sketch values."""
    cfg = config or MatchConfig()
    n = len(sigs)
    indptr, cand = _csr(n, np.asarray(a, np.int64), np.asarray(b, np.int64))
    th = thresholds(cfg)
    rep, kind, partner, sim, cont, conf, alig, ham, verified = _cluster_kernel(
        n,
        n_fixed,
        indptr,
        cand,
        sigs.exact,
        sigs.content,
        sigs.tokens,
        sigs.simhash,
        sigs.size,
        sigs.sketch,
        sigs.numbers,
        sigs.layout,
        sigs.has_layout,
        cfg.sketch_size,
        cfg.layout_distance,
        th,
        cfg.max_number_conflicts,
        cfg.agree_min,
        np.empty(0, np.uint32) if boiler is None else boiler,
    )
    return Clusters(rep, kind, partner, sim, cont, conf, alig, ham, int(verified))
