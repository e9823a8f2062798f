"""Truth for a corpus's own duplicates, when it has no labels: exact and high-overlap pairs.

>>> natural_truth([{"id": "a", "text": "x y z w v u"}, {"id": "b", "text": "x y z w v u"}])[1]["kind"]
'exact'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from neardup.eval.synth.text import grams

__all__ = ["natural_truth"]


def natural_truth(
    records: Iterable[Mapping[str, Any]], *, threshold: float = 0.8, n: int = 5
) -> list[dict[str, Any]]:
    """Truth for a corpus's own duplicates: same text (whitespace ignored), or Jaccard of word
    ``n``-grams >= ``threshold``; groups are the connected components of those pairs.

    >>> natural_truth([{"id": "a", "text": "x y z w v u"}, {"id": "b", "text": "x y z w v u"},
    ...                {"id": "c", "text": "other words here entirely now"}])[1]["group"]
    'a'
    """
    from scipy import sparse

    from neardup.index import cluster_labels

    recs = list(records)
    ids = [str(r["id"]) for r in recs]
    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for row, r in enumerate(recs):
        for g in grams(str(r["text"]), n, True):
            rows.append(row)
            cols.append(vocab.setdefault(g, len(vocab)))
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(recs), len(vocab)))
    sizes = np.asarray(x.sum(axis=1)).ravel()
    inter = (x @ x.T).tocoo()
    a, b, v = inter.row, inter.col, inter.data
    keep = a < b
    a, b, v = a[keep], b[keep], v[keep]
    jac = v / (sizes[a] + sizes[b] - v)
    exact: dict[str, int] = {}
    ea, eb = [], []
    for i, r in enumerate(recs):
        key = re.sub(r"\s+", "", str(r["text"]))
        if key in exact:
            ea.append(exact[key])
            eb.append(i)
        else:
            exact[key] = i
    sel = jac >= threshold
    ga = np.concatenate([a[sel], np.array(ea, dtype=np.int64)])
    gb = np.concatenate([b[sel], np.array(eb, dtype=np.int64)])
    labels = cluster_labels(np.arange(len(recs)), ga, gb)  # a component's label: its first document
    first: dict[int, str] = {}
    for i, lab in enumerate(labels.tolist()):
        first.setdefault(lab, ids[i])
    size = np.bincount(labels)
    out = []
    exact_set = set(eb) | set(ea)
    for i, lab in enumerate(labels.tolist()):
        kind = "original"
        if size[lab] > 1 and first[lab] != ids[i]:
            kind = "exact" if i in exact_set else "near"
        t: dict[str, Any] = {"id": ids[i], "group": first[lab], "kind": kind}
        if kind != "original":
            t["source"] = first[lab]
        out.append(t)
    return out
