"""Exactness of HammingIndex against brute force, for every supported design."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.index import HammingIndex, self_join

DESIGNS_64 = ["4x16", "16,12,12,12,12", "11,11,11,11,10,10", "auto", "8x8"]
DESIGNS_32 = ["4x8", "8,6,6,6,6", "auto"]


def popcount(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(np.atleast_1d(np.asarray(x, dtype=np.uint64)))
    if hasattr(np, "bitwise_count"):  # numpy >= 2
        return np.bitwise_count(x).astype(np.int64)
    return np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1).astype(np.int64)


def brute_query(ids, fps, q, k):
    out = []
    for qi, f in enumerate(q):
        d = popcount(fps ^ np.uint64(f))
        for r in np.flatnonzero(d <= k):
            out.append((qi, int(ids[r]), int(d[r])))
    return sorted(out, key=lambda x: (x[0], x[2], x[1]))


def brute_pairs(ids, fps, k):
    out = []
    for a in range(len(fps)):
        d = popcount(fps[a + 1 :] ^ fps[a])
        for r in np.flatnonzero(d <= k):
            b = a + 1 + r
            lo, hi = sorted((int(ids[a]), int(ids[b])))
            out.append((lo, hi, int(d[r])))
    return sorted(out)


def planted(rng, n, bits, k, n_near):
    """Random fingerprints plus neighbours at every distance 0..k of some of them."""
    hi = 2**bits
    base = (
        rng.integers(0, hi, size=n, dtype=np.uint64)
        if bits == 64
        else rng.integers(0, hi, size=n).astype(np.uint64)
    )
    near = []
    for _ in range(n_near):
        f = int(base[rng.integers(0, n)])
        d = int(rng.integers(0, k + 1))
        for b in rng.choice(bits, size=d, replace=False):
            f ^= 1 << int(b)
        near.append(f)
    return np.concatenate([base, np.array(near, dtype=np.uint64)])


def planted_queries(rng, fps, bits, k, nq):
    q = []
    for _ in range(nq):
        f = int(fps[rng.integers(0, len(fps))])
        d = int(rng.integers(0, k + 2))
        for b in rng.choice(bits, size=d, replace=False):
            f ^= 1 << int(b)
        q.append(f)
    return np.array(q, dtype=np.uint64)


@pytest.mark.parametrize(("bits", "design"), [(64, d) for d in DESIGNS_64] + [(32, d) for d in DESIGNS_32])
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_index_matches_brute_force_planted(bits, design, k):
    if (design == "4x8" and k > 3) or (design == "4x16" and k > 3):
        pytest.skip("not exact")
    rng = np.random.default_rng(k * 7 + bits)
    fps = planted(rng, 300, bits, k, 200)
    ids = rng.permutation(len(fps)).astype(np.int64) * 3 + 5
    idx = HammingIndex(bits=bits, max_distance=k, design=design, buffer_size=64)
    half = len(fps) // 2
    idx.add_many(ids[:half], fps[:half])  # a segment
    for i in range(half, half + 40):  # buffer, then more segments
        idx.add(int(ids[i]), int(fps[i]))
    idx.add_many(ids[half + 40 :], fps[half + 40 :])
    q = planted_queries(rng, fps, bits, k, 150)
    qi, qids, qd = idx.query_many(q)
    assert list(zip(qi.tolist(), qids.tolist(), qd.tolist(), strict=False)) == brute_query(ids, fps, q, k)
    a, b, d = idx.pairs()
    assert list(zip(a.tolist(), b.tolist(), d.tolist(), strict=False)) == brute_pairs(ids, fps, k)
    i, j, _dd = self_join(fps, k, design if design != "auto" else "auto", bits=bits)
    assert len(i) == len(a)
    assert (i < j).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fps=st.lists(st.integers(0, 2**64 - 1), min_size=0, max_size=40),
    flips=st.lists(st.tuples(st.integers(0, 39), st.lists(st.integers(0, 63), max_size=4)), max_size=30),
    design=st.sampled_from(["4x16", "16,12,12,12,12", "11,11,11,11,10,10"]),
    k=st.integers(0, 3),
)
def test_index_property_vs_brute_force(fps, flips, design, k):
    base = list(fps)
    for src, bitlist in flips:
        if base:
            f = base[src % len(base)]
            for b in bitlist:
                f ^= 1 << b
            base.append(f)
    arr = np.array(base, dtype=np.uint64)
    ids = np.arange(len(arr), dtype=np.int64)
    idx = HammingIndex(64, k, design, buffer_size=8)
    idx.add_many(ids, arr)
    a, b, d = idx.pairs()
    assert list(zip(a.tolist(), b.tolist(), d.tolist(), strict=False)) == brute_pairs(ids, arr, k)
    if len(arr):
        qi, qids, qd = idx.query_many(arr)
        assert list(zip(qi.tolist(), qids.tolist(), qd.tolist(), strict=False)) == brute_query(
            ids, arr, arr, k
        )
