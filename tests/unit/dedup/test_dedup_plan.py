from __future__ import annotations

import numpy as np
import pytest

from neardup.dedup import plan
from neardup.dedup.clusters import components
from neardup.dedup.plan import BatchTables, PlanStats, first_of_groups, forest_edges, grouped_forest_edges


def brute_roots(fps: np.ndarray, k: int) -> np.ndarray:
    n = fps.size
    a, b = [], []
    for i in range(n):
        d = np.bitwise_count(fps[i] ^ fps[i + 1 :])
        for j in np.flatnonzero(d <= k):
            a.append(i)
            b.append(i + 1 + int(j))
    return components(n, np.array(a, np.int64), np.array(b, np.int64))


def mixture(rng: np.random.Generator, n_base: int = 150, n_near: int = 350, max_flips: int = 6) -> np.ndarray:
    base = rng.integers(0, 2**63, n_base, dtype=np.uint64)
    out = list(base)
    for _ in range(n_near):
        x = int(base[rng.integers(0, n_base)])
        for _ in range(int(rng.integers(0, max_flips))):
            x ^= 1 << int(rng.integers(0, 64))
        out.append(x)
    fps = np.unique(np.array(out, dtype=np.uint64))
    rng.shuffle(fps)
    return fps


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_forest_edges_give_the_exact_components(k: int) -> None:
    fps = mixture(np.random.default_rng(k))
    a, b = forest_edges(fps, k)
    assert np.array_equal(components(fps.size, a, b), brute_roots(fps, k))


def test_forest_edges_with_k_plus_2_blocks_design_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    fps = mixture(np.random.default_rng(11))
    original = plan.table_design
    monkeypatch.setattr(plan, "table_design", lambda bits, k, n: original(bits, k, 10**9))
    assert len(plan.table_design(list(range(64)), 3, 10)) == 10
    a, b = forest_edges(fps, 3)
    assert np.array_equal(components(fps.size, a, b), brute_roots(fps, 3))


def test_table_design_switches_to_pairs_of_blocks_for_big_inputs() -> None:
    assert len(plan.table_design(list(range(64)), 3, 1000)) == 4
    assert len(plan.table_design(list(range(64)), 3, 10_000_000)) == 10


def test_agrees_with_the_index_self_join() -> None:
    index = pytest.importorskip("neardup.index")
    fps = mixture(np.random.default_rng(5))
    i, j, _ = index.self_join(fps, 3)
    a, b = forest_edges(fps, 3)
    assert np.array_equal(
        components(fps.size, a, b), components(fps.size, np.asarray(i, np.int64), np.asarray(j, np.int64))
    )


def test_a_huge_group_of_near_identical_fingerprints_is_resplit_not_crawled() -> None:
    rng = np.random.default_rng(3)
    centre = int(rng.integers(0, 2**63))
    near = [centre]
    for _ in range(12_000):
        x = centre
        for _ in range(int(rng.integers(1, 3))):
            x ^= 1 << int(rng.integers(0, 64))
        near.append(x)
    fps = np.unique(np.array(near, np.uint64))
    st = PlanStats()
    a, b = forest_edges(fps, 3, stats=st)
    roots = components(fps.size, a, b)
    assert np.unique(roots).size == 1  # all within 2 bits of the centre: one cluster
    assert a.size < 20 * fps.size  # a forest, not all pairs
    assert st.capped == 0


def test_group_of_far_apart_fingerprints_sharing_48_bits_is_exact() -> None:
    rng = np.random.default_rng(4)
    high = np.uint64(int(rng.integers(0, 2**47)) << 16)
    fps = np.unique(high | rng.integers(0, 2**16, 9000).astype(np.uint64))
    st = PlanStats()
    forest_edges(fps, 3, stats=st)
    assert st.capped == 0 and st.largest_group <= plan.LEAF_MAX  # blocks are cut from the 16 varying bits
    sub = fps[:1500]
    sa, sb = forest_edges(sub, 3)
    assert np.array_equal(components(sub.size, sa, sb), brute_roots(sub, 3))


def test_cap_applies_only_past_the_resplit_depth_and_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "MAX_DEPTH", 0)
    monkeypatch.setattr(plan, "LEAF_MAX", 10)
    rng = np.random.default_rng(9)
    fps = np.unique(np.uint64(0) | rng.integers(0, 2**10, 800).astype(np.uint64))
    st = PlanStats()
    forest_edges(fps, 3, cap=15, stats=st)
    assert st.capped > 0 and st.capped_docs > 0


def test_grouped_forest_matches_forest_within_each_group() -> None:
    fps = mixture(np.random.default_rng(8), 50, 100)
    group = np.zeros(fps.size, np.int64)
    a, b = grouped_forest_edges(group, fps, np.arange(fps.size), 3)
    assert np.array_equal(components(fps.size, a, b), brute_roots(fps, 3))


@pytest.mark.parametrize("k", [0, 2, 3, 6])
def test_batch_tables_probe_finds_the_smallest_corpus_position(k: int) -> None:
    rng = np.random.default_rng(k + 20)
    batch = rng.integers(0, 2**64 - 1, 400, dtype=np.uint64)
    corpus = np.concatenate(
        [
            batch[:150] ^ np.uint64(0b101),
            rng.integers(0, 2**64 - 1, 800, dtype=np.uint64),
            batch[100:250] ^ np.uint64((1 << 60) | (1 << 3)),
        ]
    )
    got = BatchTables(batch, k).probe(corpus, np.arange(corpus.size) + 1000)
    want = []
    for x in batch:
        hit = np.flatnonzero(np.bitwise_count(corpus ^ x) <= k)
        want.append(int(hit[0]) + 1000 if hit.size else -1)
    assert got.tolist() == want


def test_batch_tables_pickle_for_broadcast() -> None:
    import pickle

    t = BatchTables(np.array([1, 2, 3], np.uint64), 3)
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.probe(np.array([1], np.uint64), np.array([0])).tolist() == [0, 0, 0]


def test_first_of_groups_links_repeats_to_their_first() -> None:
    firsts, a, b = first_of_groups(np.array([5, 9, 5, 5, 9, 1], np.uint64))
    assert firsts.tolist() == [0, 1, 5]
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 2), (0, 3), (1, 4)]
    firsts, a, b = first_of_groups(np.array([3, 2, 1], np.uint64))
    assert firsts.tolist() == [0, 1, 2] and a.size == 0


def test_bad_radius_is_refused() -> None:
    from neardup.exceptions import ConfigError

    with pytest.raises(ConfigError, match="max_distance"):
        forest_edges(np.zeros(2, np.uint64), 64)
