"""Clusters from near-duplicate pairs: connected components or star (centre) clustering.

Connected components are transitive: a chain a~b~c~d joins a and d even when they differ in
far more than k bits, and on a site whose pages differ by a template word at a time a single
component can swallow the whole site. Star clustering avoids chaining: the node with most
neighbours becomes a centre and takes its unassigned neighbours; every member is within k of
its centre.

>>> import numpy as np
>>> ids = np.array([1, 2, 3, 4])
>>> cluster_labels(ids, np.array([1, 2]), np.array([2, 3])).tolist()
[1, 1, 1, 4]
>>> cluster_labels(ids, np.array([1, 2]), np.array([2, 3]), method="star").tolist()
[2, 2, 2, 4]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.exceptions import ConfigError
from neardup.index.kernels import star_labels, union_find_labels

__all__ = ["cluster_labels"]

I64 = npt.NDArray[np.int64]


def cluster_labels(ids: Any, ids_a: Any, ids_b: Any, method: str = "components") -> I64:
    """Cluster label for each of ``ids`` given pairs (ids_a[i], ids_b[i]).

    ``"components"``: the smallest id of the connected component. ``"star"``: the id of the
    centre (most neighbours first, ties to the smaller id).
    """
    if method not in ("components", "star"):
        raise ConfigError(f"method must be 'components' or 'star', got {method!r}")
    ids = np.asarray(ids, dtype=np.int64)
    uniq = np.unique(ids)
    a = np.searchsorted(uniq, np.asarray(ids_a, dtype=np.int64))
    b = np.searchsorted(uniq, np.asarray(ids_b, dtype=np.int64))
    n = uniq.shape[0]
    if method == "components":
        lab = union_find_labels(n, a, b)
    else:
        deg = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
        order = np.lexsort((np.arange(n), -deg))
        lab = star_labels(n, a, b, order)
    return np.asarray(uniq[lab][np.searchsorted(uniq, ids)], dtype=np.int64)
