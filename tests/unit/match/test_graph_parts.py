"""The candidate graph's sketch pairs counted in ranges of the later document
(``components.shared_pairs``) are the pairs counted all at once: on a real sample, for any number
of ranges the memory budget gives, the edges and hot values are identical arrays."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from neardup.match.components import _sorted_rows, pair_bounds, rep_pairs, shared_pairs, sketch_edges
from neardup.match.config import MatchConfig
from neardup.match.signature import EMPTY32, Signatures, signatures


def _sample(data_dir: Path, name: str, limit: int) -> Signatures:
    with gzip.open(data_dir / name, "rt", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]
    return signatures(texts)


@pytest.fixture(scope="module")
def xwlb(data_dir: Path) -> Signatures:
    return _sample(data_dir, "zh-xwlb.jsonl.gz", 3000)


def _rows(sketch: np.ndarray, config: MatchConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, k = sketch.shape
    keys = sketch.ravel().astype(np.uint64) << np.uint64(32)
    keys |= np.repeat(np.arange(n, dtype=np.uint64), k)
    keys[np.tile(np.arange(k) >= config.posted, n)] |= np.uint64(1 << 31)
    keys = keys[sketch.ravel() != EMPTY32]
    keys.sort()
    return _sorted_rows(keys)


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("hot_posting", [10_000, 4])
def test_the_graph_in_parts_is_the_graph_in_one(xwlb: Signatures, hot_posting: int) -> None:
    cfg = MatchConfig(hot_posting=hot_posting)
    whole = sketch_edges(xwlb.sketch, cfg, parts=1)
    assert whole[0].size > 1000  # the sample's documents quote each other
    assert (whole[2].size > 0) == (hot_posting == 4)
    values, docs, posted = _rows(xwlb.sketch, cfg)
    total = pair_bounds(values, docs, posted, cfg, len(xwlb)).sum()
    assert total > 10 * whole[0].size
    for budget in (int(total // 3), int(total // 17), 5_000, None):
        got = sketch_edges(xwlb.sketch, cfg, budget=budget)
        assert _same(got, whole), budget
    for parts in (2, 7):
        got = sketch_edges(xwlb.sketch, cfg, parts=parts)
        assert _same(got, whole), parts
    # more ranges than documents: the empty ranges count nothing
    head = sketch_edges(xwlb.sketch[:300], cfg, parts=1)
    got = sketch_edges(xwlb.sketch[:300], cfg, parts=310)
    assert head[0].size > 10 and _same(got, head)


def test_the_pass_pairs_in_parts_are_the_pairs_in_one(xwlb: Signatures) -> None:
    """``rep_pairs``'s wide counting (every poster up to ``max_posting + 1``, no hot value)."""
    cfg = MatchConfig()
    wide = dataclasses.replace(cfg, hot_posting=10**9, link_posters=cfg.max_posting + 1)
    values, docs, posted = _rows(xwlb.sketch, wide)
    whole, _ = shared_pairs(values, docs, posted, wide, len(xwlb), parts=1)
    for budget in (50_000, 3_000):
        got, _ = shared_pairs(values, docs, posted, wide, len(xwlb), budget=budget)
        assert np.array_equal(got, whole)
    reps = np.ones(len(xwlb), np.bool_)
    common = (np.empty(0, np.uint32), np.empty(0, np.int64))
    ra, rb = rep_pairs(xwlb.sketch, reps, common, cfg)
    assert np.array_equal((ra.astype(np.uint64) << np.uint64(32)) | rb.astype(np.uint64), whole)


def test_pair_bounds_bound_each_later_documents_pairs(xwlb: Signatures) -> None:
    cfg = MatchConfig()
    values, docs, posted = _rows(xwlb.sketch, cfg)
    bound = pair_bounds(values, docs, posted, cfg, len(xwlb), chunk=1000)
    assert np.array_equal(bound, pair_bounds(values, docs, posted, cfg, len(xwlb)))
    p, _ = shared_pairs(values, docs, posted, dataclasses.replace(cfg, min_shared=1), len(xwlb), parts=1)
    seen = np.bincount((p & np.uint64(0xFFFFFFFF)).astype(np.int64), minlength=len(xwlb))
    assert (seen <= bound).all()


def test_an_empty_batch_has_no_edges() -> None:
    a, b, hot = sketch_edges(np.empty((0, 128), np.uint32), MatchConfig(), budget=1)
    assert a.size == b.size == hot.size == 0
    values, docs, posted = np.empty(0, np.uint32), np.empty(0, np.int64), np.empty(0, np.bool_)
    pairs, hot = shared_pairs(values, docs, posted, MatchConfig(), 0, budget=1)
    assert pairs.size == hot.size == 0


def test_ranges_counted_two_at_a_time_are_the_ranges_one_at_a_time(
    xwlb: Signatures, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two threads the ranges run side by side, each under half the budget: the same pairs."""
    from neardup.match import components, kernels

    cfg = MatchConfig()
    whole = sketch_edges(xwlb.sketch, cfg, parts=1)
    monkeypatch.setattr(components, "MIN_PART_PAIRS", 1_000)  # a sample this small gets ranges too
    pools: list[int] = []

    class Counted(components.ThreadPoolExecutor):
        def __init__(self, workers: int, **kw: object) -> None:
            pools.append(workers)
            super().__init__(workers, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(components, "ThreadPoolExecutor", Counted)
    was = kernels.threads()
    try:
        kernels.set_threads(2)
        for budget in (20_000, 3_000):
            assert _same(sketch_edges(xwlb.sketch, cfg, budget=budget), whole), budget
        assert pools == [2, 2]
        kernels.set_threads(1)
        assert _same(sketch_edges(xwlb.sketch, cfg, budget=3_000), whole)
        assert pools == [2, 2]  # one thread: the ranges one after another
    finally:
        kernels.set_threads(was)


@pytest.mark.parametrize("variant", ["default", "hot", "wide"])
def test_the_pairs_read_through_the_index_are_the_pairs_of_the_scans(
    xwlb: Signatures, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """With the C kernels a range reads only its documents' rows, through ``value_groups``' index;
    without them each range scans every row (``value_pairs``): the same pairs, hot values and bounds."""
    from neardup.match import kernels

    if kernels._c is None:
        pytest.skip("the C kernels are not built")
    cfg = MatchConfig()
    cfg = {
        "default": cfg,
        "hot": MatchConfig(hot_posting=4),
        "wide": dataclasses.replace(cfg, hot_posting=10**9, link_posters=cfg.max_posting + 1),
    }[variant]
    n = len(xwlb)
    values, docs, posted = _rows(xwlb.sketch, cfg)
    index = kernels.value_groups(values, docs, posted, cfg.hot_posting, cfg.link_posters, n)
    assert index is not None
    assert np.array_equal(index[2], pair_bounds(values, docs, posted, cfg, n))
    got = {parts: shared_pairs(values, docs, posted, cfg, n, parts=parts) for parts in (1, 7)}
    monkeypatch.setattr(kernels, "value_groups", lambda *args: None)
    for parts, pairs in got.items():
        assert _same(pairs, shared_pairs(values, docs, posted, cfg, n, parts=parts)), parts
    assert got[1][0].size > 1000 and (got[1][1].size > 0) == (variant == "hot")


def test_value_rows_from_the_c_keys_are_the_rows_numpy_builds(
    xwlb: Signatures, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``value_rows`` builds its keys in one C pass (``kernels.value_keys``) where it can: the same
    rows as the numpy blocks (the path ``common`` takes), with and without ``reps``."""
    from neardup.match import components, kernels

    if kernels._c is None:
        pytest.skip("the C kernels are not built")
    sketch = xwlb.sketch.copy()
    sketch[5, 100:] = EMPTY32  # a short row
    reps = np.random.default_rng(3).random(sketch.shape[0]) < 0.7
    got = {i: components.value_rows(sketch, 32, r) for i, r in enumerate((None, reps))}
    monkeypatch.setattr(kernels, "value_keys", lambda *args: None)
    for i, r in enumerate((None, reps)):
        want = components.value_rows(sketch, 32, r)
        assert _same(got[i], want), i
    for got_rows in got.values():
        assert got_rows[1].dtype == np.int32 and got_rows[0].size == int(np.count_nonzero(sketch != EMPTY32))


@pytest.mark.parametrize("kind", ["random", "repeats", "equal"])
def test_the_sort_on_two_threads_is_the_sort(kind: str) -> None:
    from neardup.match import kernels

    rng = np.random.default_rng(5)
    n = (1 << 20) + 12_345
    a = {
        "random": rng.integers(0, 1 << 63, n, dtype=np.uint64),
        "repeats": rng.integers(0, 50, n).astype(np.uint64) << np.uint64(40),
        "equal": np.full(n, 7, np.uint64),
    }[kind]
    want = np.sort(a)
    kernels.sort_u64(a)
    assert np.array_equal(a, want)
