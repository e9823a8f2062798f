"""Stages 2-4 as one pass over documents in order: candidates, verification, clusters.

Documents are taken in order (a corpus's matched documents first, then a batch's candidate
components in ``neardup.match.components.pass_order``, or a crawler's pages as they come). For
each document the pass looks up its candidates among the documents before it, verifies them
(``neardup.match.verify``) and assigns it to a cluster (``neardup.match.cluster.assign_one``);
then it records the document for the ones after it. The batch (``neardup dedup``, Spark's
executors) and the stream (``ContentSeen``) run this same kernel, so the same documents in the
same order get the same clusters, kinds and evidence.

What a document leaves behind for later ones:

- its **exact** and **content** keys, in two open-addressing hash tables (first document wins);
- if it starts a cluster (a representative), its ``posted`` smallest sketch values in a posting
  table: value -> how many representatives posted it and which. Copies that joined a cluster post
  nothing, so an article reposted a thousand times is still one poster of its values, and a value
  posted by more than ``max_posting`` representatives is **boilerplate**: a lead line, a footer, a
  stock phrase. It links nothing and is left out of every comparison made after that.

A later document is a candidate of the representatives sharing at least ``min_shared`` of its sketch
values (not boilerplate), plus the documents holding its exact or content key. Verification is
against a representative, then against the members of its cluster that verified against it
(``neardup.match.cluster``), and for partial relations also against the document that was the
candidate.

Memory per document: its signature (``Signatures.nbytes_per_document()``) and, for a
representative, about ``posted`` posting slots (16 bytes each, tables kept at most 80 % full).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._memory import release_free_memory
from neardup.match import kernels
from neardup.match._numba_lazy import njit
from neardup.match.cluster import assign_one, backfill, link_member, thresholds
from neardup.match.config import MatchConfig
from neardup.match.signature import FIELDS as _FIELDS
from neardup.match.signature import Signatures, signatures
from neardup.match.tables import (
    CKEYS,
    ENTRIES,
    SLOTS,
    XKEYS,
    Arrays,
    key_get,
    key_put,
    posting_slot,
    record_document,
)
from neardup.match.text import ROW_FIELDS
from neardup.match.verify import CONTAINED, UNIQUE, popcount

__all__ = ["EngineState", "run_components"]

I64 = npt.NDArray[np.int64]
_EMPTY32 = np.uint32(0xFFFFFFFF)
# per-row arrays of the state's signatures: the signature columns and the records' days
_ROWS = (*_FIELDS, "day")
#: a result's text columns: adds both ways, the longest passage, repeated terms, then the evidence
#: fields dedup's rows carry (``text.ROW_FIELDS``), kept from the pass instead of read again
TEXT_COLS = 4 + ROW_FIELDS.shape[0]
# assign_one's integer outputs: kind, partner, conflicts, aligned, hamming, the four text fields,
# the document to backfill, then the ROW_FIELDS
_OUT_I = 10 + ROW_FIELDS.shape[0]


@njit(cache=True, nogil=True)
def _candidates(
    j: int, sig: Arrays, tab: Arrays, max_posting: int, min_shared: int, extra: np.ndarray, buf: np.ndarray
) -> np.ndarray:  # pragma: no cover
    exact, content, tokens, sketch = sig[0], sig[1], sig[4], sig[5]
    xk, xr, ck, cr, pv, pc, pf, ph, er, en = tab
    n = 0
    r = key_get(xk, xr, exact[j])
    if r >= 0:
        buf[n] = r
        n += 1
    if tokens[j] > 0:
        r = key_get(ck, cr, content[j])
        if r >= 0:
            buf[n] = r
            n += 1
    keys_n = n
    k = sketch.shape[1]
    for t in range(k):
        v = sketch[j, t]
        if v == _EMPTY32:
            break
        i = posting_slot(pv, v)
        if pv[i] != v or pc[i] > max_posting:
            continue
        if n + max_posting + 2 > buf.shape[0]:
            break
        buf[n] = pf[i]
        n += 1
        e = ph[i]
        while e >= 0:
            buf[n] = er[e]
            n += 1
            e = en[e]
    # rows posting at least min_shared of the values
    shared = np.sort(buf[keys_n:n])
    out = np.empty(keys_n + shared.shape[0] + extra.shape[0], np.int64)
    m = 0
    for t in range(keys_n):
        out[m] = buf[t]
        m += 1
    i = 0
    while i < shared.shape[0]:
        q = i + 1
        while q < shared.shape[0] and shared[q] == shared[i]:
            q += 1
        if q - i >= min_shared:
            out[m] = shared[i]
            m += 1
        i = q
    for t in range(extra.shape[0]):
        out[m] = extra[t]
        m += 1
    return out[:m]


@njit(cache=True, nogil=True)
def _document(
    j: int,
    o: int,
    is_fixed: bool,
    free: int,
    add: bool,
    rep: np.ndarray,
    nxt: np.ndarray,
    checked: np.ndarray,
    sup: np.ndarray,
    sig: Arrays,
    tab: Arrays,
    meta: np.ndarray,
    extra: np.ndarray,
    rule: tuple[Any, ...],
    posted: int,
    min_shared: int,
    member_checks: int,
    buf: np.ndarray,
    out_f: np.ndarray,
    out_i: np.ndarray,
    res: tuple[np.ndarray, ...],
) -> int:  # pragma: no cover
    """Check document ``j`` (output slot ``o``) against what the tables hold, then (``add``)
    record it; a fixed document is a representative without a check. With ``add``, a document
    taken before ``j`` (row ``free`` or later, output slot in range, in another cluster) that
    shares a passage with it and has no relation of its own is reported related to it
    (``cluster.backfill``). Returns pairs verified."""
    exact, content, simhash, tokens = sig[0], sig[1], sig[2], sig[4]
    xk, xr, ck, cr = tab[0], tab[1], tab[2], tab[3]
    kind, partner, sim, cont, conf, alig, ham, text = res
    max_posting = rule[5]
    verified = 0
    if is_fixed:
        rep[j] = j
        kind[o] = 0
        partner[o] = -1
    else:
        cands = _candidates(j, sig, tab, max_posting, min_shared, extra, buf)
        verified += assign_one(
            j, j + 1 + meta[4], cands, rep, nxt, checked, sup, sig, rule, tab, member_checks, out_f, out_i
        )
        # the same page (or the same text) as an earlier document of the cluster it joined:
        # named for that document, as a stream's key look-up names it
        if rep[j] != j and out_i[0] != 1:
            for keys, rows, code, usable in ((xk, xr, 1, True), (ck, cr, 2, tokens[j] > 0)):
                if not usable or out_i[0] == code:
                    continue
                r = key_get(keys, rows, exact[j] if code == 1 else content[j])
                if r >= 0 and rep[r] == rep[j]:
                    out_i[0] = code
                    out_i[1] = r
                    out_i[2] = 0
                    out_i[4] = int(popcount(simhash[j] ^ simhash[r]))
                    out_i[5:9] = -1
                    out_i[10:] = -1
                    out_f[0] = 1.0
                    out_f[1] = 1.0
                    out_f[2] = 1.0
                    break
        x = out_i[9]
        kind[o] = out_i[0]
        partner[o] = out_i[1]
        conf[o] = out_i[2]
        alig[o] = out_i[3]
        ham[o] = out_i[4]
        text[o, 0] = out_i[5]
        text[o, 1] = out_i[6]
        text[o, 2] = out_i[7]
        text[o, 3] = out_i[8]
        if text.shape[1] > 4:
            text[o, 4:] = out_i[10 : 10 + text.shape[1] - 4]
        sim[o] = out_f[0]
        cont[o, 0] = out_f[1]
        cont[o, 1] = out_f[2]
        ox = x - (j - o)
        if (
            add
            and x >= free
            and 0 <= ox < kind.shape[0]
            and rep[x] != rep[j]
            and kind[ox] == UNIQUE
            and partner[ox] < 0
        ):
            verified += backfill(j, x, ox, sig, rule, tab, res)
    if add:
        if not is_fixed and kind[o] == CONTAINED and text[o, 0] > text[o, 1]:
            sup[rep[j]] = 1  # j is the fuller copy of its cluster
        link_member(j, rep, nxt, sig, rule, tab)
        record_document(j, rep[j] != j, sig, tab, posted, max_posting, meta)
    else:
        meta[4] += 1  # a check that adds nothing still needs its own stamp
    return verified


@njit(cache=True, nogil=True)
def _run(
    j0: int,
    j1: int,
    fixed: int,
    add: bool,
    rep: np.ndarray,
    nxt: np.ndarray,
    checked: np.ndarray,
    sup: np.ndarray,
    sig: Arrays,
    day: np.ndarray,
    tab: Arrays,
    meta: np.ndarray,
    extra_ptr: np.ndarray,
    extra: np.ndarray,
    k: int,
    posted: int,
    min_shared: int,
    max_posting: int,
    layout_distance: int,
    th: np.ndarray,
    max_conflicts: int,
    agree_min: int,
    member_checks: int,
    res: tuple[np.ndarray, ...],
) -> int:  # pragma: no cover
    """Documents j0..j1-1 in order: the first ``fixed`` of them are representatives already (a
    corpus); the others are checked, and with ``add`` recorded. Outputs are indexed j - j0.
    ``sig``: the signature columns (``Signatures.columns()``); ``day``: the records' day numbers
    (``Signatures.day``; empty: no dates); ``tab``: ``EngineState.tables()``;
    ``res``: kind, partner, similarity, containment, conflicts, aligned, hamming, text."""
    rule = (k, layout_distance, th, max_conflicts, agree_min, max_posting, day)
    out_f = np.zeros(3, np.float64)
    out_i = np.zeros(_OUT_I, np.int64)
    buf = np.empty(k * (max_posting + 2) + 2, np.int64)
    verified = 0
    for j in range(j0, j1):
        o = j - j0
        verified += _document(
            j,
            o,
            o < fixed,
            j0 + fixed,
            add,
            rep,
            nxt,
            checked,
            sup,
            sig,
            tab,
            meta,
            extra[extra_ptr[o] : extra_ptr[o + 1]],
            rule,
            posted,
            min_shared,
            member_checks,
            buf,
            out_f,
            out_i,
            res,
        )
    return verified


@njit(cache=True, nogil=True)
def _run_components(
    ptr: np.ndarray,
    rows: np.ndarray,
    fixed: int,
    rep: np.ndarray,
    nxt: np.ndarray,
    checked: np.ndarray,
    sup: np.ndarray,
    sig: Arrays,
    day: np.ndarray,
    extra_ptr: np.ndarray,
    extra: np.ndarray,
    k: int,
    posted: int,
    min_shared: int,
    max_posting: int,
    layout_distance: int,
    th: np.ndarray,
    max_conflicts: int,
    agree_min: int,
    member_checks: int,
    res: tuple[np.ndarray, ...],
    common: np.ndarray,
    common_from: np.ndarray,
    order: np.ndarray,
) -> int:  # pragma: no cover
    """The pass once per component: component c is ``rows[ptr[c]:ptr[c + 1]]`` (ascending), run
    with tables of its own, sized to it. ``common`` (sorted: the batch's boilerplate values) is
    boilerplate in them after row ``common_from[i]``, as over the batch (rows counted by their
    place in the batch, ``order``; empty: the rows themselves). Rows below ``fixed`` are
    representatives already (a corpus). Outputs are indexed by row."""
    rule = (k, layout_distance, th, max_conflicts, agree_min, max_posting, day)
    out_f = np.zeros(3, np.float64)
    out_i = np.zeros(_OUT_I, np.int64)
    buf = np.empty(k * (max_posting + 2) + 2, np.int64)
    verified = 0
    for c in range(ptr.shape[0] - 1):
        a, b = ptr[c], ptr[c + 1]
        m = b - a
        seed = np.empty(m * k if common.shape[0] else 0, np.uint64)
        seeds = 0
        if common.shape[0]:
            for t in range(a, b):
                for q in range(k):
                    v = sig[5][rows[t], q]
                    if v == _EMPTY32:
                        break
                    s = np.searchsorted(common, v)
                    if s < common.shape[0] and common[s] == v:
                        seed[seeds] = (np.uint64(common_from[s] + 1) << np.uint64(32)) | np.uint64(v)
                        seeds += 1
        seed = np.sort(seed[:seeds])
        slots = max(64, int((m * posted + seeds) / 0.8) + 1)
        keys = max(16, int(m / 0.8) + 1)
        pv = np.full(slots, _EMPTY32, np.uint32)
        pc = np.zeros(slots, np.int32)
        pf = np.zeros(slots, np.int32)
        ph = np.full(slots, -1, np.int32)
        er = np.zeros(max(1, m * posted), np.int32)
        en = np.zeros(max(1, m * posted), np.int32)
        xk = np.zeros(keys, np.uint64)
        xr = np.full(keys, -1, np.int64)
        ck = np.zeros(keys, np.uint64)
        cr = np.full(keys, -1, np.int64)
        tab = (xk, xr, ck, cr, pv, pc, pf, ph, er, en)
        meta = np.zeros(5, np.int64)
        nxt_seed = 0
        for t in range(a, b):
            j = rows[t]
            # the values boilerplate over the batch before row j: common from now on
            place = order[j] if order.shape[0] else j
            while nxt_seed < seeds and np.int64(seed[nxt_seed] >> np.uint64(32)) <= place:
                v = np.uint32(seed[nxt_seed] & np.uint64(0xFFFFFFFF))
                nxt_seed += 1
                i = posting_slot(pv, v)
                if pv[i] != v:
                    pv[i] = v
                    pf[i] = j
                    ph[i] = -1
                    pc[i] = 0
                    meta[SLOTS] += 1
                if pc[i] <= max_posting:
                    pc[i] = max_posting + 1
            verified += _document(
                j,
                j,
                j < fixed,
                fixed,
                True,
                rep,
                nxt,
                checked,
                sup,
                sig,
                tab,
                meta,
                extra[extra_ptr[j] : extra_ptr[j + 1]],
                rule,
                posted,
                min_shared,
                member_checks,
                buf,
                out_f,
                out_i,
                res,
            )
    return verified


def _results(out: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    return tuple(
        out[name]
        for name in (
            "kind",
            "partner",
            "similarity",
            "containment",
            "conflicts",
            "aligned",
            "hamming",
            "text",
        )
    )


def _outputs(m: int) -> dict[str, np.ndarray]:
    """The per-document result arrays of a pass over ``m`` documents, before any check."""
    return {
        "kind": np.zeros(m, np.int8),
        "partner": np.full(m, -1, np.int64),
        "similarity": np.zeros(m, np.float64),
        "containment": np.zeros((m, 2), np.float64),
        "conflicts": np.zeros(m, np.int32),
        "aligned": np.zeros(m, np.int32),
        "hamming": np.full(m, -1, np.int32),
        "text": np.full((m, TEXT_COLS), -1, np.int32),
    }


def run_components(
    sigs: Signatures,
    config: MatchConfig,
    ptr: I64,
    rows: I64,
    *,
    fixed: int = 0,
    extra: tuple[I64, I64] | None = None,
    common: tuple[npt.NDArray[np.uint32], I64] | None = None,
    order: I64 | None = None,
) -> dict[str, np.ndarray]:
    """The engine's pass once per component (``rows[ptr[c]:ptr[c + 1]]``, ascending rows of
    ``sigs``), each with tables of its own: its boilerplate rule counts the component's
    representatives, and ``common`` (the batch's boilerplate: sorted values and, per value, the
    row after which it is boilerplate over the batch; ``neardup.match.components.batch_boilerplate``)
    is boilerplate after its row (rows counted by ``order``, their places in the batch, when given). Rows in no component are left ``unique`` with no partner, which is what the
    pass answers for a document without candidates. Rows below ``fixed`` are representatives
    already. Returns what ``EngineState.run`` returns, indexed by row."""
    cfg = config
    n = len(sigs)
    # the candidate graph just freed its arrays: hand their heap back before the pass's long run
    release_free_memory()
    out = _outputs(n)
    rep = np.arange(n, dtype=np.int64)
    nxt = np.full(n, -1, np.int64)
    checked = np.full(n, -1, np.int64)
    sup = np.zeros(n, np.int8)
    eptr, erows = extra if extra is not None else (np.zeros(n + 1, np.int64), np.empty(0, np.int64))
    with np.errstate(over="ignore"):
        verified = kernels.run_components(
            np.ascontiguousarray(ptr, np.int64),
            np.ascontiguousarray(rows, np.int64),
            fixed,
            rep,
            nxt,
            checked,
            sup,
            sigs.columns(),
            np.ascontiguousarray(sigs.day, np.int32),
            np.ascontiguousarray(eptr, np.int64),
            np.ascontiguousarray(erows, np.int64),
            cfg.sketch_size,
            cfg.posted,
            cfg.min_shared,
            cfg.max_posting,
            cfg.layout_distance,
            thresholds(cfg),
            cfg.max_number_conflicts,
            cfg.agree_min,
            cfg.member_checks,
            _results(out),
            *_common(common),
            np.ascontiguousarray(np.empty(0, np.int64) if order is None else order, np.int64),
        )
    out["rep"] = rep
    out["verified"] = np.array([verified])
    return out


def _common(common: tuple[npt.NDArray[np.uint32], I64] | None) -> tuple[np.ndarray, np.ndarray]:
    if common is None:
        return np.empty(0, np.uint32), np.empty(0, np.int64)
    values, rows = (np.asarray(common[0], np.uint32), np.asarray(common[1], np.int64))
    order = np.argsort(values, kind="stable")
    return np.ascontiguousarray(values[order]), np.ascontiguousarray(rows[order])


def _capacity(used: int) -> int:
    """Slots for ``used`` entries at 80 % full (at least 1,024)."""
    return max(1024, int(used / 0.8) + 1)


class EngineState:
    """The documents seen so far and the tables the engine's pass leaves for later documents.

    Rows are numbered in the order documents are recorded. ``run`` processes new rows; the batch
    runs it once over everything, the stream once per document.
    """

    def __init__(self, config: MatchConfig | None = None) -> None:
        self.config = cfg = config or MatchConfig()
        self.sigs = signatures([], cfg)
        self.n = 0  # rows recorded
        self.cap = 0
        self.rep = np.empty(0, np.int64)
        self.nxt = np.empty(0, np.int64)  # a cluster's members, linked from its representative
        self.checked = np.empty(0, np.int64)
        self.sup = np.zeros(0, np.int8)  # per representative: a fuller copy joined its cluster
        self.meta = np.zeros(5, np.int64)  # slots, entries, exact keys, content keys, check stamps
        self.pv = np.full(1024, 0xFFFFFFFF, np.uint32)
        self.pc = np.zeros(1024, np.int32)
        self.pf = np.zeros(1024, np.int32)
        self.ph = np.full(1024, -1, np.int32)
        self.er = np.zeros(1024, np.int32)
        self.en = np.zeros(1024, np.int32)
        self.xk = np.zeros(1024, np.uint64)
        self.xr = np.full(1024, -1, np.int64)
        self.ck = np.zeros(1024, np.uint64)
        self.cr = np.full(1024, -1, np.int64)
        self.th = thresholds(cfg)

    # -- capacity ----------------------------------------------------------------------------
    def _rows(self, need: int) -> None:
        if need <= self.cap:
            return
        cap = max(need, 2 * self.cap, 1024)
        grown = {}
        for name in _ROWS:
            old = getattr(self.sigs, name)
            new = np.zeros((cap, *old.shape[1:]), old.dtype)
            new[: self.n] = old[: self.n]
            grown[name] = new
        ptr = np.zeros(cap + 1, np.int64)
        ptr[: self.n + 1] = self.sigs.prof_ptr[: self.n + 1]
        self.sigs = Signatures(**grown, prof_ptr=ptr, prof=self.sigs.prof)
        rep = np.arange(cap, dtype=np.int64)
        rep[: self.n] = self.rep[: self.n]
        self.rep = rep
        nxt = np.full(cap, -1, np.int64)
        nxt[: self.n] = self.nxt[: self.n]
        self.nxt = nxt
        checked = np.full(cap, -1, np.int64)
        checked[: self.n] = self.checked[: self.n]
        self.checked = checked
        sup = np.zeros(cap, np.int8)
        sup[: self.n] = self.sup[: self.n]
        self.sup = sup
        self.cap = cap

    def _put_profiles(self, sigs: Signatures, j0: int) -> None:
        """Store the text profiles of ``sigs`` as rows ``j0``... (their values after row j0 - 1's)."""
        lo, hi = int(sigs.prof_ptr[0]), int(sigs.prof_ptr[-1])
        used = int(self.sigs.prof_ptr[j0])
        need = used + hi - lo
        if need > self.sigs.prof.shape[0]:
            grown = np.empty(max(need, 2 * self.sigs.prof.shape[0], 4096), np.uint32)
            grown[:used] = self.sigs.prof[:used]
            self.sigs.prof = grown
        self.sigs.prof[used:need] = sigs.prof[lo:hi]
        self.sigs.prof_ptr[j0 + 1 : j0 + len(sigs) + 1] = used + (sigs.prof_ptr[1:] - lo)

    def _tables(self, new_docs: int) -> None:
        cfg = self.config
        need_slots = int(self.meta[SLOTS]) + new_docs * cfg.posted
        if need_slots > 0.8 * self.pv.shape[0]:
            # grow by at least a quarter, so a stream of single documents rehashes rarely
            self._rehash_postings(max(_capacity(need_slots), self.pv.shape[0] * 5 // 4))
        need_entries = int(self.meta[ENTRIES]) + new_docs * cfg.posted
        if need_entries > self.er.shape[0]:
            size = max(need_entries, 2 * self.er.shape[0])
            self.er = np.concatenate([self.er, np.zeros(size - self.er.shape[0], np.int32)])
            self.en = np.concatenate([self.en, np.zeros(size - self.en.shape[0], np.int32)])
        for keys, rows, used in (("xk", "xr", XKEYS), ("ck", "cr", CKEYS)):
            need = int(self.meta[used]) + new_docs
            if need > 0.8 * getattr(self, keys).shape[0]:
                size = max(_capacity(need), getattr(self, keys).shape[0] * 5 // 4)
                k2, r2 = _rehash_keys(getattr(self, keys), getattr(self, rows), size)
                setattr(self, keys, k2)
                setattr(self, rows, r2)

    def _rehash_postings(self, size: int) -> None:
        pv = np.full(size, 0xFFFFFFFF, np.uint32)
        pc = np.zeros(size, np.int32)
        pf = np.zeros(size, np.int32)
        ph = np.full(size, -1, np.int32)
        kernels.rehash_postings(self.pv, self.pc, self.pf, self.ph, pv, pc, pf, ph)
        self.pv, self.pc, self.pf, self.ph = pv, pc, pf, ph

    # -- the pass ----------------------------------------------------------------------------
    def run(
        self,
        sigs: Signatures,
        *,
        add: bool = True,
        fixed: int = 0,
        extra: tuple[I64, I64] | None = None,
    ) -> dict[str, np.ndarray]:
        """Check the documents of ``sigs`` in order against everything before them (and, with
        ``add``, record each one before the next is checked). The first ``fixed`` are recorded as
        representatives without a check (a corpus). ``extra``: more candidate rows per document (a
        CSR: pointers, rows), e.g. SimHash neighbours. Returns per document: rep, kind, partner,
        similarity, containment, conflicts, aligned, hamming (rows are state rows)."""
        m = len(sigs)
        j0 = self.n
        if j0 == 0 and self.cap == 0 and add and m > 1:
            # a batch into an empty state: use its arrays as they are, no copy
            self.sigs = Signatures(
                **{name: np.ascontiguousarray(getattr(sigs, name)) for name in _ROWS},
                prof_ptr=sigs.prof_ptr - sigs.prof_ptr[0],
                prof=sigs.prof[sigs.prof_ptr[0] : sigs.prof_ptr[-1]],
            )
            self.rep = np.arange(m, dtype=np.int64)
            self.nxt = np.full(m, -1, np.int64)
            self.checked = np.full(m, -1, np.int64)
            self.sup = np.zeros(m, np.int8)
            self.cap = m
        self._rows(j0 + m)
        self._tables(m if add else 0)
        if self.sigs.exact is not sigs.exact:
            for name in _ROWS:
                getattr(self.sigs, name)[j0 : j0 + m] = getattr(sigs, name)
            self._put_profiles(sigs, j0)
        ptr, rows = extra if extra is not None else (np.zeros(m + 1, np.int64), np.empty(0, np.int64))
        out = _outputs(m)
        s = self.sigs
        with np.errstate(over="ignore"):  # hash arithmetic wraps around on purpose (interpreted runs)
            verified = self._call_run(j0, m, fixed, add, s, ptr, rows, out)
        out["rep"] = self.rep[j0 : j0 + m].copy()
        out["verified"] = np.array([verified])
        if add:
            self.n = j0 + m
        else:
            self.rep[j0 : j0 + m] = np.arange(j0, j0 + m)
        return out

    def _call_run(
        self,
        j0: int,
        m: int,
        fixed: int,
        add: bool,
        s: Signatures,
        ptr: I64,
        rows: I64,
        out: dict[str, np.ndarray],
    ) -> int:
        cfg = self.config
        return int(
            kernels.run(
                j0,
                j0 + m,
                fixed,
                add,
                self.rep,
                self.nxt,
                self.checked,
                self.sup,
                s.columns(),
                s.day,
                self.tables(),
                self.meta,
                np.ascontiguousarray(ptr, np.int64),
                np.ascontiguousarray(rows, np.int64),
                cfg.sketch_size,
                cfg.posted,
                cfg.min_shared,
                cfg.max_posting,
                cfg.layout_distance,
                self.th,
                cfg.max_number_conflicts,
                cfg.agree_min,
                cfg.member_checks,
                _results(out),
            )
        )

    def record(self, sigs: Signatures, reps: I64, fuller: npt.NDArray[np.bool_] | None = None) -> None:
        """Record documents whose clusters are already known (a journal being replayed): ``reps``
        are their representatives' rows (their own row for a representative); ``fuller`` marks the
        documents that joined as the fuller copy of their cluster's text (``contained``)."""
        m = len(sigs)
        j0 = self.n
        self._rows(j0 + m)
        self._tables(m)
        for name in _ROWS:
            getattr(self.sigs, name)[j0 : j0 + m] = getattr(sigs, name)
        self._put_profiles(sigs, j0)
        self.rep[j0 : j0 + m] = reps
        if fuller is not None:
            self.sup[np.asarray(reps)[np.asarray(fuller, np.bool_)]] = 1
        cfg = self.config
        with np.errstate(over="ignore"):  # hash arithmetic wraps around on purpose (interpreted runs)
            kernels.record(
                j0,
                j0 + m,
                self.rep,
                self.nxt,
                self.sigs.columns(),
                self.sigs.day,
                self.tables(),
                self.meta,
                cfg.sketch_size,
                cfg.posted,
                cfg.max_posting,
                cfg.layout_distance,
                self.th,
                cfg.max_number_conflicts,
                cfg.agree_min,
            )
        self.n = j0 + m

    def tables(self) -> Arrays:
        """The key and posting tables as the kernels take them (one tuple): exact keys and rows,
        content keys and rows, posting values, counts, first rows, heads, entry rows, entry links."""
        return (self.xk, self.xr, self.ck, self.cr, self.pv, self.pc, self.pf, self.ph, self.er, self.en)

    def nbytes(self) -> dict[str, int]:
        """Bytes held, by part (arrays at their current capacity)."""
        return {
            "signatures": int(sum(getattr(self.sigs, n).nbytes for n in _FIELDS)),
            "profiles": int(self.sigs.prof.nbytes + self.sigs.prof_ptr.nbytes),
            "postings": int(sum(a.nbytes for a in self.tables()[4:])),
            "keys": int(sum(a.nbytes for a in self.tables()[:4])),
            "clusters": int(self.rep.nbytes + self.nxt.nbytes + self.checked.nbytes),
        }


@njit(cache=True, nogil=True)
def _rehash_posting_kernel(
    pv: np.ndarray,
    pc: np.ndarray,
    pf: np.ndarray,
    ph: np.ndarray,
    pv2: np.ndarray,
    pc2: np.ndarray,
    pf2: np.ndarray,
    ph2: np.ndarray,
) -> None:  # pragma: no cover
    for i in range(pv.shape[0]):
        if pv[i] == _EMPTY32:
            continue
        s = posting_slot(pv2, pv[i])
        pv2[s] = pv[i]
        pc2[s] = pc[i]
        pf2[s] = pf[i]
        ph2[s] = ph[i]


@njit(cache=True, nogil=True)
def _rehash_keys_kernel(
    keys: np.ndarray, rows: np.ndarray, k2: np.ndarray, r2: np.ndarray
) -> None:  # pragma: no cover
    for i in range(keys.shape[0]):
        if rows[i] >= 0:
            key_put(k2, r2, keys[i], rows[i])


def _rehash_keys(keys: npt.NDArray[np.uint64], rows: I64, size: int) -> tuple[npt.NDArray[np.uint64], I64]:
    k2 = np.zeros(size, np.uint64)
    r2 = np.full(size, -1, np.int64)
    kernels.rehash_keys(keys, rows, k2, r2)
    return k2, r2
