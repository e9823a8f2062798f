"""Union-find over pair arrays, and the cluster/kind/distance of every batch document.

Nodes are numbered so that a smaller node number means "earlier": the corpus documents a batch
matched come first (by corpus position), then the batch documents in input order. Each component's
representative is its smallest node, so a cluster is named after its first document, and a batch
document that matches the corpus joins the corpus document's cluster.

>>> components(4, np.array([3, 1]), np.array([1, 2]))
array([0, 1, 1, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup.dedup.plan import hamming_u64
from neardup.index.kernels import union_find_labels

__all__ = ["KIND_NAMES", "Assignment", "assign", "components"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

KIND_NAMES = ("unique", "first", "exact", "near", "nshash")
UNIQUE, FIRST, EXACT, NEAR, NSHASH = range(5)


def components(n: int, a: I64, b: I64) -> I64:
    """The smallest node of each node's connected component, for edges ``a[i] -- b[i]``."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    if a.size != b.size:
        raise ValueError(f"edge arrays differ in length: {a.size} vs {b.size}")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"edge endpoints must be in [0, {n})")
    return union_find_labels(n, a, b)  # type: ignore[no-any-return]


@dataclass
class Assignment:
    """Per batch document: its cluster representative node, kind code and distance (-1: none)."""

    rep: I64
    kind: npt.NDArray[np.int8]
    distance: I64
    n_prefix: int  # nodes before the batch (matched corpus documents)

    def kind_counts(self) -> dict[str, int]:
        counts = np.bincount(self.kind, minlength=len(KIND_NAMES))
        return {name: int(c) for name, c in zip(KIND_NAMES, counts, strict=False)}


def assign(
    n_prefix: int,
    n_batch: int,
    sim_edges: tuple[I64, I64],
    ns_edges: tuple[I64, I64],
    exact: U64,
    fps: U64 | None,
) -> Assignment:
    """Clusters, kinds and distances of the batch nodes ``n_prefix .. n_prefix + n_batch - 1``.

    ``sim_edges`` are exact-content and SimHash edges, ``ns_edges`` the nshash ones; ``exact`` and
    ``fps`` hold every node's exact hash and SimHash (``fps`` None without SimHash). A duplicate's
    kind is "exact" if its text equals its representative's, "near" if SimHash (or exact) edges
    alone join them, else "nshash".
    """
    n = n_prefix + n_batch
    all_a = np.concatenate([sim_edges[0], ns_edges[0]])
    all_b = np.concatenate([sim_edges[1], ns_edges[1]])
    root = components(n, all_a, all_b)
    root_sim = components(n, sim_edges[0], sim_edges[1]) if ns_edges[0].size else root
    size = np.bincount(root, minlength=n)
    nodes = np.arange(n_prefix, n, dtype=np.int64)
    rep = root[nodes]
    is_rep = rep == nodes
    kind = np.full(n_batch, NSHASH, np.int8)
    kind[root_sim[nodes] == root_sim[rep]] = NEAR
    kind[exact[nodes] == exact[rep]] = EXACT
    kind[is_rep] = np.where(size[nodes[is_rep]] > 1, FIRST, UNIQUE)
    if fps is not None and fps.size:
        distance = hamming_u64(fps[nodes], fps[rep])
        distance[is_rep] = -1
    else:
        distance = np.where(kind == EXACT, 0, -1).astype(np.int64)
    return Assignment(rep=rep, kind=kind, distance=distance, n_prefix=n_prefix)
