"""Exact Hamming-distance index over SimHash fingerprints (permuted sorted tables, Manku et al.).

>>> import numpy as np
>>> from neardup.index import HammingIndex
>>> idx = HammingIndex(max_distance=3)
>>> idx.add_many(np.arange(2), np.array([0, 7], dtype=np.uint64))
>>> idx.query(1)
[(0, 1), (1, 2)]
"""

from __future__ import annotations

from neardup.index.clusters import cluster_labels
from neardup.index.design import Design, auto_design, design_for_tables
from neardup.index.hamming import HammingIndex, as_fingerprints, join, self_join

__all__ = [
    "Design",
    "HammingIndex",
    "as_fingerprints",
    "auto_design",
    "cluster_labels",
    "design_for_tables",
    "join",
    "self_join",
]
