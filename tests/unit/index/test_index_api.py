"""HammingIndex API: validation, removal, membership, clusters, segments."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.exceptions import ConfigError, InputError
from neardup.index import Design, HammingIndex, cluster_labels, design_for_tables, join


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"bits": 48}, "bits must be 32 or 64"),
        ({"max_distance": 4, "design": "4x16"}, "expected more than 4 blocks"),
        ({"design": "16,16,16"}, "sum to bits=64"),
        ({"design": "banana"}, "expected 'auto'"),
        ({"max_distance": -1}, "max_distance"),
        ({"metadata": [1]}, "metadata must be a dict"),
        ({"buffer_size": 0}, "buffer_size"),
    ],
)
def test_index_bad_settings_raise_config_error(kwargs, needle):
    with pytest.raises(ConfigError, match=needle):
        HammingIndex(**kwargs)


def test_index_designs_have_expected_table_counts():
    assert HammingIndex(design="4x16").design.n_tables == 4
    assert HammingIndex(design="16,12,12,12,12").design.n_tables == 10
    assert design_for_tables(20).n_tables == 20
    assert Design.parse("4x8", bits=32, max_distance=3).key_bits == (8, 8, 8, 8)


def test_index_auto_design_follows_size():
    assert HammingIndex(expected_size=1000).design.n_tables == 4
    assert HammingIndex(expected_size=100_000_000).design.n_tables == 10


def test_index_query_beyond_k_is_refused():
    idx = HammingIndex(max_distance=2)
    with pytest.raises(ConfigError, match="between 0 and"):
        idx.query(0, max_distance=3)


def test_index_bad_input_raises_input_error():
    idx = HammingIndex(bits=32)
    with pytest.raises(InputError, match="< 2\\*\\*32"):
        idx.add_many([1], [2**40])
    with pytest.raises(InputError, match="same length"):
        idx.add_many([1, 2], [3])


def test_index_distance_k_is_included():
    idx = HammingIndex(max_distance=3, design="4x16")
    idx.add_many([1, 2, 3], np.array([0b111, 0b1111, 0], dtype=np.uint64))
    assert idx.query(0) == [(3, 0), (1, 3)]


def test_index_remove_contains_len_and_compact():
    rng = np.random.default_rng(1)
    fps = rng.integers(0, 2**63, 5000).astype(np.uint64)
    ids = np.arange(5000, dtype=np.int64) + 100
    idx = HammingIndex(buffer_size=100)
    idx.add_many(ids[:4000], fps[:4000])
    for i in range(4000, 4150):
        idx.add(int(ids[i]), int(fps[i]))
    idx.add_many(ids[4150:], fps[4150:])
    assert len(idx) == 5000 and 100 in idx and 99 not in idx and "x" not in idx
    assert idx.query(int(fps[10]))[0] == (110, 0)
    assert idx.remove(110) and not idx.remove(110)
    assert 110 not in idx and len(idx) == 4999
    assert all(i != 110 for i, _ in idx.query(int(fps[10])))
    assert idx.remove_many(ids[4100:4200]) == 100
    idx.compact()
    assert len(idx) == 4899 and len(idx._segments) == 1 and idx._segments[0].n_dead == 0
    assert idx.query(int(fps[4120])) == []
    idx.add(110, int(fps[10]))  # re-adding a removed id works
    assert idx.query(int(fps[10]))[0] == (110, 0)


def test_index_identical_fingerprints_are_pairs():
    idx = HammingIndex(max_distance=3)
    idx.add_many([5, 6, 7], np.array([42, 42, 42], dtype=np.uint64))
    a, b, d = idx.pairs()
    assert list(zip(a.tolist(), b.tolist(), d.tolist(), strict=False)) == [(5, 6, 0), (5, 7, 0), (6, 7, 0)]


def test_index_clusters_components_chain_star_does_not():
    # a chain 0 -> 3 bits -> 6 bits -> 9 bits: components join all, star keeps centres
    chain = [0, 0b111, 0b111111, 0b111111111]
    idx = HammingIndex(max_distance=3)
    idx.add_many([10, 11, 12, 13], np.array(chain, dtype=np.uint64))
    assert idx.clusters() == {10: 10, 11: 10, 12: 10, 13: 10}
    star = idx.clusters("star")
    assert star[10] == star[11] != star[13]
    with pytest.raises(ConfigError):
        cluster_labels([1], [], [], method="single")


def test_index_join_against_fps_and_index():
    corpus = np.array([0, 0xFF << 10, 0xFFFF], dtype=np.uint64)
    _qi, ids, d = join(np.array([1], dtype=np.uint64), corpus, 3)
    assert ids.tolist() == [0] and d.tolist() == [1]
    idx = HammingIndex()
    idx.add_many([7, 8, 9], corpus)
    assert join(np.array([1], dtype=np.uint64), idx)[1].tolist() == [7]


def test_index_int64_fingerprints_are_reinterpreted():
    idx = HammingIndex()
    idx.add(1, -1)
    assert idx.query(2**64 - 1) == [(1, 0)]
    idx.add_many([2], np.array([-2], dtype=np.int64))
    assert idx.query(2**64 - 2)[0] == (2, 0)


def test_index_pickles_in_memory_and_opened(tmp_path):
    import pickle

    rng = np.random.default_rng(4)
    fps = rng.integers(0, 2**63, 3000).astype(np.uint64)
    idx = HammingIndex(buffer_size=100)
    idx.add_many(np.arange(3000), fps)
    idx.add(5000, int(fps[7]))
    back = pickle.loads(pickle.dumps(idx))
    assert back.query(int(fps[7])) == idx.query(int(fps[7]))
    idx.save(tmp_path / "p.ndx", compress=True)
    opened = HammingIndex.open(tmp_path / "p.ndx")
    again = pickle.loads(pickle.dumps(opened))
    assert again.query(int(fps[7])) == [(7, 0), (5000, 0)]


def test_index_large_batches_match_small_batches():
    # batches of >= 4096 queries are looked up in sorted order and mapped back
    rng = np.random.default_rng(9)
    fps = rng.integers(0, 2**63, 4000).astype(np.uint64)
    idx = HammingIndex(buffer_size=500)
    idx.add_many(np.arange(3800), fps[:3800])
    idx.add_many(np.arange(3800, 4000), fps[3800:])  # in the buffer
    q = fps[rng.integers(0, 4000, 5000)] ^ (np.uint64(1) << rng.integers(0, 64, 5000).astype(np.uint64))
    big = idx.query_many(q)
    parts = [idx.query_many(q[i : i + 1000]) for i in range(0, 5000, 1000)]
    small = (
        np.concatenate([p[0] + 1000 * n for n, p in enumerate(parts)]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )
    assert all(np.array_equal(a, b) for a, b in zip(big, small, strict=True))
    assert len(big[0]) >= 5000


@pytest.mark.parametrize("bits", [64, 32])
def test_query_gives_query_many_results_in_the_same_order(bits):
    """The per-call query (its own short path) equals query_many over segments, the buffer,
    duplicate fingerprints, repeated ids and every input form, nearest first then by id."""
    rng = np.random.default_rng(5)
    top = 2**bits
    base = rng.integers(0, top, 4000, dtype=np.uint64)
    fps = np.concatenate([base, base[:40], base[:40] ^ np.uint64(3)])
    idx = HammingIndex(bits=bits, max_distance=3, buffer_size=64)
    idx.add_many(np.arange(fps.size)[::-1].copy(), fps)  # a segment; ids descend along the rows
    idx.add_many(np.arange(5000, 5010), base[:10] ^ np.uint64(1))  # stays in the buffer
    idx.add_many(np.array([7, 7]), base[:2])  # the same id twice
    idx.remove(int(fps.size - 1 - 5))
    queries = [int(x) for x in base[:60] ^ np.uint64(4)] + [int(base[0]), np.uint64(base[1]), 0]
    if bits == 64:
        queries.append(-1)
    for x in queries:
        _, ids, d = idx.query_many([x])
        assert idx.query(x) == list(zip(ids.tolist(), d.tolist(), strict=True))
        assert idx.query(x, 1) == [(i, dd) for i, dd in idx.query(x) if dd <= 1]
    assert any(len(idx.query(int(x))) > 2 for x in base[:40])
