"""Pairwise precision, recall and F1, adjusted Rand index, and the truth files they are scored against.

Two documents form a *pair* when they share a cluster. A method's clusters are scored against the
labelled groups of a truth file by counting pairs (Manku et al. 2007 use the same measure):
precision is the share of predicted pairs that are true, recall the share of true pairs
found. The counts come from the contingency table of the two labelings, so a method that chains a
whole corpus into one cluster costs no more to score than a perfect one.

>>> s = score_clusters({"a": 1, "b": 1, "c": 2}, {"a": "x", "b": "x", "c": "x"})
>>> (s.tp, s.fp, s.fn, round(s.precision, 2), round(s.recall, 2))
(1, 0, 2, 1.0, 0.33)
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from neardup.exceptions import InputError

__all__ = [
    "COPY_KINDS",
    "DUPLICATE_KINDS",
    "KINDS",
    "NEGATIVE_KINDS",
    "RELATED_KINDS",
    "Evaluation",
    "Scores",
    "Truth",
    "TruthDoc",
    "adjusted_rand_index",
    "evaluate",
    "pair_counts",
    "score_clusters",
]

# what a truth line's `kind` may say: the source article, the copies made from it (by how much they
# differ, or by what they rewrite), documents that reuse it with text of their own, and different
# articles that look alike
KINDS: tuple[str, ...] = (
    "original",
    "exact",
    "reformatted",
    "near",
    "partial",
    "hard_negative",
    "corrected",
    "script",
    "renumbered",
    "excerpt",
    "quote",
    "follow_up",
    "template",
)
# copies: in their source's group, `source` names it
COPY_KINDS: tuple[str, ...] = (
    "exact",
    "reformatted",
    "near",
    "partial",
    "corrected",
    "script",
    "renumbered",
    "excerpt",
)
# the kinds a dedup run must catch; partial copies are reported apart (recall only)
DUPLICATE_KINDS: tuple[str, ...] = (
    "exact",
    "reformatted",
    "near",
    "corrected",
    "script",
    "renumbered",
    "excerpt",
)
# their own group, `source` names the text they quote or reuse: to be reported as related, never merged
RELATED_KINDS: tuple[str, ...] = ("quote", "follow_up")
# their own group, `negative_of` names the look-alike they must not be merged with
NEGATIVE_KINDS: tuple[str, ...] = ("hard_negative", "template")


def _factorize(labels: Sequence[Hashable]) -> np.ndarray:
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(x, len(index)) for x in labels), dtype=np.int64, count=len(labels))


def _comb2(counts: np.ndarray) -> int:
    c = counts.astype(np.int64)
    return int((c * (c - 1) // 2).sum())


def pair_counts(pred: Sequence[Hashable], true: Sequence[Hashable]) -> tuple[int, int, int]:
    """``(tp, predicted_pairs, true_pairs)`` of two labelings of the same documents, in order.

    >>> pair_counts([0, 0, 1, 1], [5, 5, 5, 6])
    (1, 2, 3)
    """
    if len(pred) != len(true):
        raise ValueError(f"pred and true must label the same documents: got {len(pred)} and {len(true)}")
    if not len(pred):
        return 0, 0, 0
    p, t = _factorize(pred), _factorize(true)
    joint = p * (int(t.max()) + 1) + t
    tp = _comb2(np.unique(joint, return_counts=True)[1])
    return tp, _comb2(np.bincount(p)), _comb2(np.bincount(t))


def adjusted_rand_index(pred: Sequence[Hashable], true: Sequence[Hashable]) -> float:
    """Adjusted Rand index (Hubert and Arabie 1985): 1 for identical clusterings, about 0 for chance.

    >>> adjusted_rand_index([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    n = len(pred)
    tp, a, b = pair_counts(pred, true)
    total = n * (n - 1) // 2
    if total == 0:
        return 1.0
    expected = a * b / total
    best = (a + b) / 2
    if best == expected:  # both all-singletons or both one cluster: the clusterings agree
        return 1.0
    return float((tp - expected) / (best - expected))


@dataclass(frozen=True)
class Scores:
    """Pair counts and the measures made from them."""

    tp: int
    fp: int
    fn: int
    docs: int
    ari: float

    @property
    def precision(self) -> float:
        # no predicted pair: nothing was wrongly merged
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(precision=self.precision, recall=self.recall, f1=self.f1)
        return d


def _labels_for(ids: Sequence[str], pred: Mapping[str, Hashable]) -> list[Hashable]:
    # a document the method did not label is a cluster of its own
    return [pred.get(i, ("__alone__", i)) for i in ids]


def score_clusters(
    pred: Mapping[str, Hashable], true: Mapping[str, Hashable], ids: Iterable[str] | None = None
) -> Scores:
    """Score predicted clusters (id -> cluster label) against true groups (id -> group) on ``ids``.

    ``ids`` defaults to every id of ``true``; predicted ids outside it are ignored.

    >>> score_clusters({"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 1, "c": 2}).precision
    0.3333333333333333
    """
    id_list = list(true) if ids is None else list(ids)
    p = _labels_for(id_list, pred)
    t = [true[i] for i in id_list]
    tp, npred, ntrue = pair_counts(p, t)
    return Scores(tp=tp, fp=npred - tp, fn=ntrue - tp, docs=len(id_list), ari=adjusted_rand_index(p, t))


@dataclass(frozen=True)
class TruthDoc:
    """One labelled document: its group and how it was made."""

    id: str
    group: str
    kind: str = "original"
    source: str | None = None  # the document this copy was made from
    negative_of: str | None = None  # for a hard negative: the look-alike it must not be merged with
    edits: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "group": self.group, "kind": self.kind}
        if self.source is not None:
            d["source"] = self.source
        if self.negative_of is not None:
            d["negative_of"] = self.negative_of
        if self.edits:
            d["edits"] = list(self.edits)
        return d


@dataclass
class Truth:
    """The labelled groups of an evaluation set (``id``, ``group``, optional ``kind``, ``source``,
    ``negative_of``, ``edits``): one JSON object a line.

    >>> t = Truth.from_records([{"id": "a", "group": "g"}, {"id": "b", "group": "g", "kind": "near",
    ...                          "source": "a"}])
    >>> t.groups()
    {'a': 'g', 'b': 'g'}
    """

    docs: dict[str, TruthDoc] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.docs

    def groups(self) -> dict[str, str]:
        return {d.id: d.group for d in self.docs.values()}

    def ids(self, kinds: Iterable[str] | None = None) -> list[str]:
        if kinds is None:
            return list(self.docs)
        want = set(kinds)
        return [d.id for d in self.docs.values() if d.kind in want]

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]], source: str = "<truth>") -> Truth:
        docs: dict[str, TruthDoc] = {}
        for lineno, obj in enumerate(records, 1):
            for key in ("id", "group"):
                if obj.get(key) is None:
                    raise InputError(
                        f"truth line has no {key!r} (expected id and group)",
                        source=source,
                        line=lineno,
                        field=key,
                    )
            kind = str(obj.get("kind", "original"))
            if kind not in KINDS:
                raise InputError(
                    f"kind must be one of {', '.join(KINDS)}, got {kind!r}",
                    source=source,
                    line=lineno,
                    field="kind",
                )
            doc = TruthDoc(
                id=str(obj["id"]),
                group=str(obj["group"]),
                kind=kind,
                source=None if obj.get("source") is None else str(obj["source"]),
                negative_of=None if obj.get("negative_of") is None else str(obj["negative_of"]),
                edits=tuple(map(str, obj.get("edits") or ())),
            )
            if doc.id in docs:
                raise InputError(
                    f"id {doc.id!r} appears twice in the truth file", source=source, line=lineno, field="id"
                )
            docs[doc.id] = doc
        return cls(docs)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Truth:
        """Read a truth JSONL (or .jsonl.gz) file."""
        from neardup.io import expand_inputs, iter_json_objects

        p = expand_inputs([path])[0]
        rows = (obj for _, obj in iter_json_objects(p))
        return cls.from_records(rows, source=str(p))

    def save(self, path: str | os.PathLike[str]) -> None:
        from neardup.io import atomic_write

        with atomic_write(Path(path)) as fh:
            for d in self.docs.values():
                fh.write(orjson.dumps(d.to_dict()) + b"\n")


@dataclass(frozen=True)
class Evaluation:
    """Scores of one clustering against a truth file.

    - ``overall``: every document, every pair.
    - ``duplicates``: partial copies left out, so the pairs are those of exact, reformatted and near
      copies (and their sources); the F1 neardup's targets speak of.
    - ``hard_negatives``: only the groups holding a hard negative and its look-alike; its precision is
      the "precision on hard negatives" (1.0 when none of the look-alikes is merged).
    - ``recall_by_kind``: for each copy kind, the share of copies put in their source's cluster.
    - ``hard_negatives_merged``: the share of hard negatives and templates (:data:`NEGATIVE_KINDS`)
      put in their look-alike's cluster.
    - ``merged_by_kind``: for each kind that must stay apart (:data:`RELATED_KINDS`,
      :data:`NEGATIVE_KINDS`), the share put in its source's (look-alike's) cluster.
    - ``related_by_kind``: for quotes and follow-ups, the share reported as related to their source's
      group and not merged with it.
    """

    overall: Scores
    duplicates: Scores
    hard_negatives: Scores | None
    recall_by_kind: dict[str, float]
    count_by_kind: dict[str, int]
    hard_negatives_merged: float | None
    unlabelled: int = 0
    merged_by_kind: dict[str, float] = field(default_factory=dict)
    related_by_kind: dict[str, float] = field(default_factory=dict)

    @property
    def hn_precision(self) -> float:
        return self.hard_negatives.precision if self.hard_negatives is not None else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "duplicates": self.duplicates.to_dict(),
            "hard_negatives": None if self.hard_negatives is None else self.hard_negatives.to_dict(),
            "hn_precision": self.hn_precision,
            "recall_by_kind": self.recall_by_kind,
            "count_by_kind": self.count_by_kind,
            "hard_negatives_merged": self.hard_negatives_merged,
            "unlabelled": self.unlabelled,
            "merged_by_kind": self.merged_by_kind,
            "related_by_kind": self.related_by_kind,
        }


def evaluate(
    pred: Mapping[str, Hashable], truth: Truth, related: Mapping[str, str] | None = None
) -> Evaluation:
    """Score predicted clusters (id -> cluster label) against ``truth`` (see :class:`Evaluation`).

    ``related`` (id -> id) are the partial and layout relations a run reported without merging: a
    partial copy also counts as found when it is related to a document of its source's group (either
    way round).

    >>> t = Truth.from_records([{"id": "a", "group": "a"}, {"id": "b", "group": "a", "kind": "near",
    ...     "source": "a"}, {"id": "c", "group": "c", "kind": "hard_negative", "negative_of": "a"}])
    >>> e = evaluate({"a": 0, "b": 0, "c": 1}, t)
    >>> (e.duplicates.f1, e.hn_precision, e.recall_by_kind["near"])
    (1.0, 1.0, 1.0)
    """
    groups = truth.groups()
    labels = {i: pred.get(i, ("__alone__", i)) for i in groups}
    overall = score_clusters(labels, groups)
    dup_ids = [d.id for d in truth.docs.values() if d.kind != "partial"]
    duplicates = score_clusters(labels, groups, dup_ids)

    hn_docs = [d for d in truth.docs.values() if d.kind in NEGATIVE_KINDS and d.negative_of in truth.docs]
    hard: Scores | None = None
    merged: float | None = None
    if hn_docs:
        hn_groups = {d.group for d in hn_docs} | {
            truth.docs[d.negative_of].group for d in hn_docs if d.negative_of is not None
        }
        hn_ids = [d.id for d in truth.docs.values() if d.group in hn_groups and d.kind != "partial"]
        hard = score_clusters(labels, groups, hn_ids)
        merged = sum(labels[d.id] == labels[str(d.negative_of)] for d in hn_docs) / len(hn_docs)

    linked: set[tuple[str, str]] = set()  # (document, group) pairs a relation connects
    for x, y in (related or {}).items():
        if x in groups and y in groups:
            linked.add((x, groups[y]))
            linked.add((y, groups[x]))
    caught: dict[str, int] = {}
    count: dict[str, int] = {}
    for d in truth.docs.values():
        if d.kind in COPY_KINDS and d.source in labels:
            count[d.kind] = count.get(d.kind, 0) + 1
            hit = labels[d.id] == labels[d.source]
            if not hit and d.kind == "partial":
                hit = (d.id, groups[d.source]) in linked
            caught[d.kind] = caught.get(d.kind, 0) + hit
    recall = {k: caught[k] / count[k] for k in COPY_KINDS if count.get(k)}
    apart: dict[str, list[tuple[bool, bool]]] = {}  # kind -> (merged, reported) per document
    for d in truth.docs.values():
        other = d.source if d.kind in RELATED_KINDS else d.negative_of if d.kind in NEGATIVE_KINDS else None
        if other is None or other not in labels:
            continue
        together = labels[d.id] == labels[other]
        apart.setdefault(d.kind, []).append((together, not together and (d.id, groups[other]) in linked))
    unlabelled = sum(1 for i in pred if i not in groups)
    return Evaluation(
        overall=overall,
        duplicates=duplicates,
        hard_negatives=hard,
        recall_by_kind=recall,
        count_by_kind={k: count[k] for k in COPY_KINDS if count.get(k)}
        | {k: len(v) for k, v in apart.items()},
        hard_negatives_merged=merged,
        unlabelled=unlabelled,
        merged_by_kind={k: sum(m for m, _ in v) / len(v) for k, v in apart.items()},
        related_by_kind={k: sum(r for _, r in v) / len(v) for k, v in apart.items() if k in RELATED_KINDS},
    )
