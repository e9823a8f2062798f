"""The match engine one document at a time: what ``ContentSeen`` keeps in memory.

A ``MatchIndex`` holds the signatures of every document seen so far and the look-ups the batch
stage builds all at once: the first document of each exact and content key, the sketch values each
document posts (its ``posted`` smallest) and a Hamming index of SimHashes. ``check`` finds a new
document's candidates among earlier documents and verifies them with the very kernel the batch
clustering runs (``neardup.match.cluster.assign_one``), so a stream and ``neardup dedup`` on the
same documents in the same order give the same clusters. The one difference: a sketch value counts
as boilerplate once more than ``max_posting`` documents *so far* posted it (a batch counts them
all), so the first few dozen documents of a site may see a little boilerplate as evidence.

Memory per document: its signature (``Signatures.nbytes_per_document()``, 817 bytes with the
default 128-value sketch and 32 number facts), its posted values (8 bytes each, 256 by default) and
a SimHash index entry.

>>> idx = MatchIndex()
>>> s = signatures(["今天北京天气晴朗，适合出门散步，公园里人很多。", "今天北京天气晴朗，适合出门散步，公园里人很多！"])
>>> idx.add(s.take([0]), idx.check(s.take([0])))
0
>>> m = idx.check(s.take([1]))
>>> m.kind, m.rep, m.partner
('content', 0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup.index import HammingIndex
from neardup.match.cluster import assign_one, thresholds
from neardup.match.config import MatchConfig
from neardup.match.signature import EMPTY32, Signatures, signatures
from neardup.match.verify import KINDS, Evidence

__all__ = ["Match", "MatchIndex"]

I64 = npt.NDArray[np.int64]
_FIELDS = ("exact", "content", "simhash", "size", "tokens", "sketch", "numbers", "layout", "has_layout")


@dataclass(frozen=True)
class Match:
    """The engine's answer for one document: its kind, the cluster it joins and the evidence."""

    kind: str  # unique, exact, content, near, partial, layout
    rep: int  # the representative row it joins (its own row number-to-be when it joins none)
    partner: int  # the row the evidence is about (-1: none)
    evidence: Evidence | None
    verified: int = 0

    @property
    def merges(self) -> bool:
        return self.kind in ("exact", "content", "near")


class _Postings:
    """Sketch value -> rows that posted it: sorted runs of packed ``value << 32 | row`` (a
    log-structured merge: a small buffer becomes a run, runs of similar size are merged), so adding
    is amortized O(log n) and a look-up is one binary search per run."""

    _BUFFER = 512

    def __init__(self) -> None:
        self.runs: list[npt.NDArray[np.uint64]] = []
        self.buf = np.empty(self._BUFFER, np.uint64)
        self.buf_n = 0

    def add(self, values: npt.NDArray[np.uint32], row: int) -> None:
        packed = (values.astype(np.uint64) << np.uint64(32)) | np.uint64(row)
        if self.buf_n + packed.size > self._BUFFER:
            self._flush()
        self.buf[self.buf_n : self.buf_n + packed.size] = packed
        self.buf_n += packed.size

    def _flush(self) -> None:
        if not self.buf_n:
            return
        run = np.sort(self.buf[: self.buf_n])
        self.buf_n = 0
        while self.runs and self.runs[-1].size <= 2 * run.size:
            run = np.sort(np.concatenate([self.runs.pop(), run]))
        self.runs.append(run)

    def counts(self, q: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        """How many rows posted each of the sorted values ``q``."""
        counts = np.zeros(q.size, np.int64)
        for run in self.runs:
            _count_run(run, q, counts)
        _count_run(self.buf[: self.buf_n], q, counts, False)
        return counts

    def rows(self, q: npt.NDArray[np.uint64], skip: npt.NDArray[np.bool_], total: int) -> I64:
        """The rows that posted the sorted values ``q`` (those marked ``skip`` left out)."""
        out = np.empty(total, np.int64)
        k = 0
        for run in self.runs:
            k = _gather_run(run, q, skip, out, k, True)
        k = _gather_run(self.buf[: self.buf_n], q, skip, out, k, False)
        return out[:k]

    @property
    def nbytes(self) -> int:
        return int(sum(r.nbytes for r in self.runs) + self.buf.nbytes)


@njit(cache=True, nogil=True)
def _find(q: np.ndarray, v: np.uint64) -> int:  # pragma: no cover
    i = np.searchsorted(q, v)
    return i if i < q.shape[0] and q[i] == v else -1


@njit(cache=True, nogil=True)
def _count_run(run: np.ndarray, q: np.ndarray, counts: np.ndarray, is_sorted: bool = True) -> None:  # pragma: no cover
    """Add to ``counts[i]`` the entries of ``run`` whose value (high 32 bits) is ``q[i]``."""
    if is_sorted:
        for i in range(q.shape[0]):
            lo = np.searchsorted(run, q[i] << np.uint64(32))
            hi = np.searchsorted(run, (q[i] << np.uint64(32)) | np.uint64(0xFFFFFFFF), side="right")
            counts[i] += hi - lo
    else:
        for e in range(run.shape[0]):
            i = _find(q, run[e] >> np.uint64(32))
            if i >= 0:
                counts[i] += 1


@njit(cache=True, nogil=True)
def _gather_run(
    run: np.ndarray, q: np.ndarray, skip: np.ndarray, out: np.ndarray, k: int, is_sorted: bool
) -> int:  # pragma: no cover
    if is_sorted:
        for i in range(q.shape[0]):
            if skip[i]:
                continue
            lo = np.searchsorted(run, q[i] << np.uint64(32))
            hi = np.searchsorted(run, (q[i] << np.uint64(32)) | np.uint64(0xFFFFFFFF), side="right")
            for e in range(lo, hi):
                out[k] = np.int64(run[e] & np.uint64(0xFFFFFFFF))
                k += 1
    else:
        for e in range(run.shape[0]):
            i = _find(q, run[e] >> np.uint64(32))
            if i >= 0 and not skip[i]:
                out[k] = np.int64(run[e] & np.uint64(0xFFFFFFFF))
                k += 1
    return k


@njit(cache=True, nogil=True)
def _shared_at_least(rows: np.ndarray, m: int) -> np.ndarray:  # pragma: no cover
    """The distinct rows found at least ``m`` times."""
    r = np.sort(rows)
    out = np.empty(r.shape[0], np.int64)
    k = 0
    i = 0
    while i < r.shape[0]:
        j = i + 1
        while j < r.shape[0] and r[j] == r[i]:
            j += 1
        if j - i >= m:
            out[k] = r[i]
            k += 1
        i = j
    return out[:k]


class MatchIndex:
    """Incremental engine state; rows are numbered 0, 1, ... in the order documents are added."""

    def __init__(self, config: MatchConfig | None = None, simhash_index: HammingIndex | None = None) -> None:
        self.config = cfg = config or MatchConfig()
        self._sigs = signatures([], cfg)
        self._cap = 0
        self._n = 0
        self._rep = np.empty(0, np.int64)
        self._exact: dict[int, int] = {}
        self._content: dict[int, int] = {}
        self._postings = _Postings()
        self._boiler: set[int] = set()
        self._boiler_arr = np.empty(0, np.uint32)
        self._th = thresholds(cfg)
        self.simhash_index = simhash_index or HammingIndex(64, cfg.candidate_distance)

    def __len__(self) -> int:
        return self._n

    # -- storage -----------------------------------------------------------------------------
    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap, 1024)
        grown = {}
        for name in _FIELDS:
            old = getattr(self._sigs, name)
            new = np.zeros((cap, *old.shape[1:]), old.dtype)
            new[: self._n] = old[: self._n]
            grown[name] = new
        self._sigs = Signatures(**grown)
        rep = np.arange(cap, dtype=np.int64)
        rep[: self._n] = self._rep[: self._n]
        self._rep = rep
        self._checked = np.full(cap, -1, np.int64)
        self._cap = cap

    def _put(self, row: int, sig: Signatures) -> None:
        for name in _FIELDS:
            getattr(self._sigs, name)[row] = getattr(sig, name)[0]

    # -- the check ---------------------------------------------------------------------------
    def candidates(self, sig: Signatures) -> I64:
        """Earlier rows that are candidates of a one-row signature (the batch stage's rules)."""
        cfg = self.config
        found: list[I64] = []
        for table, key in ((self._exact, int(sig.exact[0])), (self._content, int(sig.content[0]))):
            hit = table.get(key)
            if hit is not None:
                found.append(np.array([hit], np.int64))
        values = sig.sketch[0]
        q = values[values != EMPTY32].astype(np.uint64)  # ascending already
        if q.size and self._n:
            counts = self._postings.counts(q)
            common = counts > cfg.max_posting  # boilerplate values link nothing
            total = int(counts[~common].sum())
            if total >= cfg.min_shared:
                found.append(_shared_at_least(self._postings.rows(q, common, total), cfg.min_shared))
        if len(self.simhash_index):
            near = self.simhash_index.query(int(sig.simhash[0]))
            if near:
                found.append(np.fromiter((i for i, _ in near), np.int64, len(near)))
        if not found:
            return np.empty(0, np.int64)
        return np.unique(np.concatenate(found))

    def check(self, sig: Signatures) -> Match:
        """The verdict for a one-row signature against every document added so far (no change)."""
        cfg = self.config
        j = self._n
        self._grow(j + 1)
        self._put(j, sig)
        cands = self.candidates(sig)
        out_f = np.zeros(3, np.float64)
        out_i = np.zeros(5, np.int64)
        s = self._sigs
        verified = assign_one(
            j,
            cands,
            self._rep,
            self._checked,
            s.exact,
            s.content,
            s.tokens,
            s.simhash,
            s.size,
            s.sketch,
            s.numbers,
            s.layout,
            s.has_layout,
            cfg.sketch_size,
            cfg.layout_distance,
            self._th,
            cfg.max_number_conflicts,
            cfg.agree_min,
            self._boiler_arr,
            out_f,
            out_i,
        )
        self._checked[j] = -1
        rep = int(self._rep[j])
        self._rep[j] = j
        kind = KINDS[int(out_i[0])]
        partner = int(out_i[1])
        ev = None
        if partner >= 0:
            lay = bool(s.has_layout[j] and s.has_layout[partner])
            ev = Evidence(
                kind=kind,
                similarity=float(out_f[0]),
                containment=(float(out_f[1]), float(out_f[2])),
                number_conflicts=int(out_i[2]),
                numbers_aligned=int(out_i[3]),
                hamming=int(out_i[4]),
                same_layout=(kind == "layout") if lay else None,
            )
        return Match(kind=kind, rep=rep, partner=partner, evidence=ev, verified=int(verified))

    def add(self, sig: Signatures, match: Match) -> int:
        """Remember a document checked with ``check``; returns its row."""
        cfg = self.config
        j = self._n
        self._grow(j + 1)
        self._put(j, sig)
        self._rep[j] = match.rep if match.merges else j
        self._n = j + 1
        self._exact.setdefault(int(sig.exact[0]), j)
        if int(sig.tokens[0]) > 0:
            self._content.setdefault(int(sig.content[0]), j)
        posted = sig.sketch[0, : cfg.posted]
        posted = posted[posted != EMPTY32]
        if posted.size:
            self._postings.add(posted, j)
            counts = self._postings.counts(posted.astype(np.uint64))
            new_common = [int(v) for v, c in zip(posted.tolist(), counts.tolist(), strict=True) if c > cfg.max_posting]
            if any(v not in self._boiler for v in new_common):
                self._boiler.update(new_common)
                self._boiler_arr = np.array(sorted(self._boiler), np.uint32)
        self.simhash_index.add(j, int(sig.simhash[0]))
        return j

    def representative(self, row: int) -> int:
        return int(self._rep[row])

    def nbytes(self) -> dict[str, int]:
        """Bytes held, by part (arrays at their current capacity)."""
        sig = sum(getattr(self._sigs, n).nbytes for n in _FIELDS)
        return {
            "signatures": int(sig),
            "postings": self._postings.nbytes,
            "simhash_index": int(sum(self.simhash_index.nbytes().values())),
            "keys": 100 * (len(self._exact) + len(self._content)),
        }
