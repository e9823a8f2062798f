"""Articles of a corpus that are copies of one another, so a labelled set never calls them different.

A news corpus holds its own near-duplicates (en-bbc: the same story filed twice, a correction, an
extended version). Used as two sources, or as a hard negative and its look-alike, they would be
labelled different groups while they are the same text. Two articles count as one when their
5-gram Jaccard (words in English, characters in Chinese) reaches ``max_jaccard`` (the bound hard
negatives must stay below) or when one holds ``max_containment`` of the other's 5-grams. The
5-grams are sampled by hash (a fixed 1 in ``SAMPLE``, the same grams in every article: Broder's
mod-m sampling), which estimates both shares without keeping every gram.

>>> a = " ".join(f"w{i}" for i in range(400))
>>> near_copies([a, a.replace("w7 ", "x7 "), a[::-1]], words=True)
{1}
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence

import numpy as np

from neardup.eval.synth.text import grams

__all__ = ["near_copies"]

SAMPLE = 4  # keep the 5-grams whose CRC-32 is 0 modulo this
MAX_POSTING = 32  # a sampled gram held by more articles is template text: it proposes no pair
MIN_SHARED = 8  # sampled grams two articles must share (about 32 5-grams) to count as copies


def _sampled(text: str, words: bool) -> np.ndarray:
    hs = (zlib.crc32(g.encode("utf-8")) for g in grams(text, 5, words))
    return np.unique(np.fromiter((h for h in hs if h % SAMPLE == 0), np.uint32))


# the last few corpora's answers: sets are made from one corpus many times
_MEMO: dict[bytes, frozenset[int]] = {}


def near_copies(
    texts: Sequence[str], *, words: bool, max_jaccard: float = 0.5, max_containment: float = 0.8
) -> set[int]:
    """Positions of the texts that copy an earlier text of ``texts`` (the earlier one is kept)."""
    digest = hashlib.blake2b(repr((words, max_jaccard, max_containment, len(texts))).encode())
    for t in texts:
        digest.update(t.encode("utf-8", "surrogatepass") + b"\0")
    key = digest.digest()
    if key not in _MEMO:
        if len(_MEMO) >= 4:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = frozenset(_near_copies(texts, words, max_jaccard, max_containment))
    return set(_MEMO[key])


def _near_copies(texts: Sequence[str], words: bool, max_jaccard: float, max_containment: float) -> set[int]:
    sets = [_sampled(t, words) for t in texts]
    doc = np.concatenate(
        [np.full(s.shape[0], i, np.int64) for i, s in enumerate(sets)] or [np.empty(0, np.int64)]
    )
    val = np.concatenate(sets or [np.empty(0, np.uint32)])
    order = np.lexsort((doc, val))
    val, doc = val[order], doc[order]
    starts = np.flatnonzero(np.r_[True, val[1:] != val[:-1]])
    sizes = np.diff(np.r_[starts, val.shape[0]])
    # every pair of articles in each posting of 2..MAX_POSTING, counted at once (key a * n + b)
    n = len(sets)
    keys = [np.empty(0, np.int64)]
    for m in range(2, MAX_POSTING + 1):
        at = starts[sizes == m]
        if at.size:
            members = doc[at[:, None] + np.arange(m)]
            i, j = np.triu_indices(m, 1)
            keys.append((members[:, i] * n + members[:, j]).ravel())
    pair, both_counts = np.unique(np.concatenate(keys), return_counts=True)
    enough = both_counts >= MIN_SHARED
    first, second = np.divmod(pair[enough], max(n, 1))
    dropped: set[int] = set()
    for a, b, both in zip(first.tolist(), second.tolist(), both_counts[enough].tolist(), strict=True):
        if a in dropped or b in dropped:
            continue
        na, nb = sets[a].shape[0], sets[b].shape[0]
        if both / max(1, na + nb - both) >= max_jaccard or both / max(1, min(na, nb)) >= max_containment:
            dropped.add(b)
    return dropped
