"""Candidates between a batch and a chunk of a corpus index, and SimHash candidate pairs.

Within a batch (and in a stream) candidates are looked up document by document in the engine's own
tables (``neardup.match.engine``). Against a corpus index, seed 001 turns the join around: the corpus
streams past the batch chunk by chunk, and for each chunk this module finds the corpus documents
that are candidates of a batch document, from three sources:

- **keys**: the same exact key or the same content key;
- **sketches**: at least ``min_shared`` of the values a document posts (its ``posted`` smallest
  sketch values) found in a later one's sketch; a value posted by more than ``max_posting``
  documents of the chunk and the batch is boilerplate and links nothing;
- **SimHash**, when ``candidate_distance`` is set: fingerprints within that many bits (the
  permuted-table index of Manku et al. 2007, ``neardup.index``). Off by default: on our labelled
  sets it added no true pair the sketches missed (docs/quality.md), and a big group of
  near-identical fingerprints makes its pairs quadratic.

Only the corpus documents found here are loaded ahead of the batch; the engine's pass then decides.

>>> from neardup.match.signature import signatures
>>> corpus = signatures(["今天北京天气晴朗，适合出门散步。", "完全不同的另一篇文章内容。"])
>>> batch = signatures(["今天北京天气晴朗，适合出门散步！"])
>>> a, b = cross_candidates(batch, corpus)
>>> list(zip(a.tolist(), b.tolist()))
[(0, 0)]
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import numpy.typing as npt

from neardup.index.hamming import join, self_join
from neardup.match._numba_lazy import njit
from neardup.match.config import MatchConfig
from neardup.match.signature import EMPTY32, Signatures

__all__ = ["cross_candidates", "key_pairs", "simhash_pairs", "sketch_pairs"]

_fp_c: ModuleType | None
try:
    from neardup.fingerprint import _fp_c
except ImportError:  # built without a C compiler: the numba kernel below
    _fp_c = None

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
_EMPTY = np.empty(0, np.int64)


def key_pairs(keys: U64) -> tuple[I64, I64]:
    """Each document linked to the first earlier document holding the same key."""
    if keys.shape[0] < 2:
        return _EMPTY, _EMPTY
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    same = np.concatenate(([False], sk[1:] == sk[:-1]))
    starts = np.flatnonzero(~same)
    group = np.cumsum(~same) - 1
    first = order[starts][group]
    keep = same
    return first[keep].astype(np.int64), order[keep].astype(np.int64)


@njit(cache=True, inline="always")
def _run_of(values: np.ndarray, posted: np.ndarray, i: int) -> tuple[int, int]:  # pragma: no cover
    """The end of the run of equal values starting at ``i``, and how many of its rows posted it."""
    j = i + 1
    while j < values.shape[0] and values[j] == values[i]:
        j += 1
    n_posted = 0
    for a in range(i, j):
        if posted[a]:
            n_posted += 1
    return j, n_posted


@njit(cache=True, nogil=True)
def _posting_pairs(
    values: np.ndarray, docs: np.ndarray, posted: np.ndarray, max_posting: int
) -> np.ndarray:  # pragma: no cover
    """Pairs (earlier doc << 32 | later doc) sharing a value the earlier one posted.

    ``values`` ascending, then ``docs`` ascending within a value. A value posted by more than
    ``max_posting`` documents is boilerplate and pairs nothing.
    """
    n = values.shape[0]
    total = 0
    i = 0
    while i < n:
        j, n_posted = _run_of(values, posted, i)
        if n_posted <= max_posting:
            seen = 0
            for a in range(i, j):
                total += seen
                if posted[a]:
                    seen += 1
        i = j
    out = np.empty(total, np.uint64)
    k = 0
    i = 0
    while i < n:
        j, n_posted = _run_of(values, posted, i)
        if n_posted <= max_posting:
            for b in range(i + 1, j):
                for a in range(i, b):
                    if posted[a] and docs[a] != docs[b]:
                        out[k] = (np.uint64(docs[a]) << np.uint64(32)) | np.uint64(docs[b])
                        k += 1
        i = j
    return out[:k]


def _pairs_of_postings(values: U64, docs: I64, posted: np.ndarray, max_posting: int) -> U64:
    """``_posting_pairs``, in C when the extension is built."""
    if _fp_c is None:
        return _posting_pairs(values, docs, posted, max_posting)
    values = np.ascontiguousarray(values, np.uint64)
    posted = np.ascontiguousarray(posted, np.bool_)
    out = np.empty(_fp_c.posting_pairs_count(values, posted, max_posting), np.uint64)
    k = _fp_c.posting_pairs_into(values, np.ascontiguousarray(docs, np.int64), posted, max_posting, out)
    return out[:k]


def _count_pairs(packed: U64, min_count: int) -> tuple[I64, I64]:
    if packed.shape[0] == 0:
        return _EMPTY, _EMPTY
    packed = np.sort(packed)
    new = np.concatenate(([True], packed[1:] != packed[:-1]))
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, packed.shape[0]))
    keep = packed[starts[counts >= min_count]]
    a = (keep >> np.uint64(32)).astype(np.int64)
    b = (keep & np.uint64(0xFFFFFFFF)).astype(np.int64)
    ok = a != b
    return a[ok], b[ok]


def sketch_pairs(sketch: npt.NDArray[np.uint32], config: MatchConfig) -> tuple[I64, I64]:
    """Pairs (i < j) where j's sketch holds at least ``min_shared`` of the values i posted.

    A document posts its ``posted`` smallest sketch values (what a stream keeps in its postings)
    and is looked up with all of them, so a batch and a stream see the same candidates.
    """
    n, k = sketch.shape
    if n < 2:
        return _EMPTY, _EMPTY
    flat = sketch.ravel()
    rows = np.repeat(np.arange(n, dtype=np.uint64), k)
    slots = np.tile(np.arange(k), n)
    valid = flat != EMPTY32
    keys = (flat[valid].astype(np.uint64) << np.uint64(32)) | rows[valid]
    posted_slot = slots[valid] < config.posted
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    values = keys >> np.uint64(32)
    docs = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return _count_pairs(
        _pairs_of_postings(values, docs, posted_slot[order], config.max_posting), config.min_shared
    )


def _ordered(a: I64, b: I64) -> tuple[I64, I64]:
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    return lo[keep], hi[keep]


def _unique_pairs(parts: list[tuple[I64, I64]]) -> tuple[I64, I64]:
    a = np.concatenate([p[0] for p in parts]) if parts else _EMPTY
    b = np.concatenate([p[1] for p in parts]) if parts else _EMPTY
    if a.size == 0:
        return _EMPTY, _EMPTY
    packed = np.unique((a.astype(np.uint64) << np.uint64(32)) | b.astype(np.uint64))
    return (packed >> np.uint64(32)).astype(np.int64), (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)


def simhash_pairs(sigs: Signatures, config: MatchConfig) -> tuple[I64, I64]:
    """Pairs (i < j) of SimHashes within ``candidate_distance`` bits (none when it is None)."""
    if config.candidate_distance is None or len(sigs) < 2:
        return _EMPTY, _EMPTY
    i, j, _ = self_join(sigs.simhash, config.candidate_distance)
    return _ordered(i, j)


def cross_candidates(
    batch: Signatures, corpus: Signatures, config: MatchConfig | None = None
) -> tuple[I64, I64]:
    """Candidate pairs (corpus row, batch row) between a batch and a chunk of a corpus."""
    cfg = config or MatchConfig()
    n_c = len(corpus)
    if len(batch) == 0 or n_c == 0:
        return _EMPTY, _EMPTY
    both_exact = np.concatenate([corpus.exact, batch.exact])
    both_content = np.concatenate([corpus.content, batch.content])
    parts = [key_pairs(both_exact), key_pairs(both_content)]
    parts.append(sketch_pairs(np.concatenate([corpus.sketch, batch.sketch]), cfg))  # corpus rows first
    if cfg.candidate_distance is not None:
        qi, ci, _ = join(batch.simhash, corpus.simhash, cfg.candidate_distance)
        parts.append((ci.astype(np.int64), qi.astype(np.int64) + n_c))
    a, b = _unique_pairs([_ordered(x, y) for x, y in parts])
    cross = (a < n_c) & (b >= n_c)
    return a[cross], b[cross] - n_c
