"""The Spark plan's connected components: one task's union-find for a small forest, the
large-star / small-star rounds for a large one, and both the labels of one process's union-find."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyspark")


def _edges(rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """A random sparse graph: chains and stars of several sizes, plus isolated documents."""
    a = rng.integers(0, n, m)
    b = np.minimum(n - 1, a + rng.integers(1, 40, m))
    return a.astype(np.int64), b.astype(np.int64)


def _want(n: int, a: np.ndarray, b: np.ndarray) -> dict[int, int]:
    from neardup.match.components import union_find

    root = union_find(n, a, b)
    # the label each document on an edge gets: the smallest document of its component
    smallest = {}
    for d in range(n):
        r = int(root[d])
        smallest[r] = min(smallest.get(r, d), d)
    on_edge = set(a.tolist()) | set(b.tolist())
    return {d: smallest[int(root[d])] for d in on_edge if smallest[int(root[d])] != d}


@pytest.mark.parametrize("one_task_edges", [0, 10**9], ids=["rounds", "one-task"])
def test_components_are_one_process_union_find_either_way(spark: Any, one_task_edges: int) -> None:
    from neardup.integrations.spark.plan import connected_components

    rng = np.random.default_rng(5)
    n = 3_000
    a, b = _edges(rng, n, 1_200)
    edges = spark.createDataFrame(
        list(zip(a.tolist(), b.tolist(), strict=True)), "a long, b long"
    ).repartition(3)
    labels, rounds = connected_components(edges, one_task_edges=one_task_edges)
    got = {int(r["doc"]): int(r["comp"]) for r in labels.collect()}
    assert got == _want(n, a, b)
    assert (rounds == 0) == (one_task_edges > 0)
