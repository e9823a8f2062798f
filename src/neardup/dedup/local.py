"""Corpus dedup on one machine: seed 001's three steps as stages over one frozen ``DedupConfig``.

1. ``fingerprint_records``: documents -> SimHash, exact hash, nshash sentence hashes (all cores).
2. ``within_batch_edges``: exact groups, identical fingerprints, then the permuted-table self-join
   (``plan.forest_edges``) and shared sentence hashes.
3. ``against_corpus``: the batch's tables are built once and the corpus index streams past them
   (``plan.BatchTables.probe``); a batch document matched by any corpus chunk is a duplicate.
4. ``assign`` clusters (``clusters.assign``), and with ``merge`` the batch's non-duplicates are
   appended to the index.

>>> from neardup.io import Record
>>> recs = [Record(id="a", text="今天北京天气晴朗，适合出门散步。"), Record(id="b", text="今天北京天气晴朗，适合出门散步。"),
...         Record(id="c", text="完全不同的另一篇文章内容。")]
>>> [(r["id"], r["kind"], r["duplicate_of"]) for r in dedup_records(recs, DedupConfig(workers=1))]
[('a', 'first', None), ('b', 'exact', 'a'), ('c', 'unique', None)]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.dedup.clusters import KIND_NAMES, Assignment, assign
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints, fingerprint_records
from neardup.dedup.index import CorpusIndex
from neardup.dedup.plan import BatchTables, PlanStats, first_of_groups, forest_edges, min_merge
from neardup.io import Record

__all__ = [
    "CorpusMatches",
    "DedupResult",
    "against_corpus",
    "assemble",
    "dedup_fingerprints",
    "dedup_records",
    "within_batch_edges",
]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Edges = tuple[I64, I64]
_EMPTY = np.empty(0, np.int64)


@dataclass
class CorpusMatches:
    """Per batch document, the smallest matching corpus position (-1: none), by fingerprint."""

    exact: I64
    simhash: I64
    nshash: I64
    capped: bool = False


@dataclass
class DedupResult:
    """The outcome for a batch: one row per document, plus counts for the summary."""

    fps: Fingerprints
    assignment: Assignment
    prefix_ids: list[str]  # ids of the corpus documents the batch matched (node order)
    stats: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.fps)

    @property
    def keep(self) -> npt.NDArray[np.bool_]:
        """True for documents to keep: each cluster's first document, unless that is in the corpus."""
        a = self.assignment
        keep: npt.NDArray[np.bool_] = a.rep == np.arange(a.n_prefix, a.n_prefix + len(self.fps))
        return keep

    def cluster_ids(self) -> list[str]:
        a = self.assignment
        names = self.prefix_ids + self.fps.ids
        return [names[r] for r in a.rep.tolist()]

    def rows(self) -> Iterator[dict[str, Any]]:
        """The output contract: id, cluster, duplicate_of, kind, distance (None when not a duplicate)."""
        a = self.assignment
        clusters = self.cluster_ids()
        keep = self.keep.tolist()
        for doc_id, cl, k, d, kp in zip(
            self.fps.ids, clusters, a.kind.tolist(), a.distance.tolist(), keep, strict=False
        ):
            yield {
                "id": doc_id,
                "cluster": cl,
                "duplicate_of": None if kp else cl,
                "kind": KIND_NAMES[k],
                "distance": None if d < 0 else d,
            }

    def summary(self) -> dict[str, Any]:
        a = self.assignment
        kinds = a.kind_counts()
        n = len(self.fps)
        dups = n - int(self.keep.sum())
        out = {
            "documents": n,
            "clusters": int(np.unique(a.rep).size) if n else 0,
            "kept": n - dups,
            "duplicates": dups,
            **{f"kind_{k}": v for k, v in kinds.items()},
        }
        out.update(self.stats)
        return out


def _ns_groups(ns_hash: U64, ns_doc: I64) -> Edges:
    """Documents sharing a sentence hash: each linked to the first document holding it."""
    if ns_hash.size == 0:
        return _EMPTY, _EMPTY
    _, a, b = first_of_groups(ns_hash)
    da, db = ns_doc[a], ns_doc[b]
    keep = da != db
    return da[keep], db[keep]


def within_batch_edges(
    fps: Fingerprints,
    config: DedupConfig,
    stats: PlanStats | None = None,
) -> tuple[Edges, Edges]:
    """(exact + SimHash edges, nshash edges) among the batch's documents (positions)."""
    st = stats if stats is not None else PlanStats()
    _, ea, eb = first_of_groups(fps.exact)
    sim_a, sim_b = [ea], [eb]
    if config.uses_simhash and len(fps):
        firsts, fa, fb = first_of_groups(fps.simhash)  # identical fingerprints: distance 0
        sim_a.append(fa)
        sim_b.append(fb)
        a, b = forest_edges(
            fps.simhash[firsts], config.max_distance, cap=config.bucket_cap, stats=st, positions=firsts
        )
        sim_a.append(a)
        sim_b.append(b)
    ns = _ns_groups(fps.ns_hash, fps.ns_doc) if config.uses_nshash else (_EMPTY, _EMPTY)
    return (np.concatenate(sim_a), np.concatenate(sim_b)), ns


def _first_match(batch_values: U64, corpus_values: U64, corpus_pos: I64) -> I64:
    """For each batch value, the smallest corpus position holding the same value, else -1."""
    out = np.full(batch_values.size, -1, np.int64)
    if batch_values.size == 0 or corpus_values.size == 0:
        return out
    order = np.lexsort((corpus_pos, corpus_values))  # by value, then position
    sv = corpus_values[order]
    lo = np.searchsorted(sv, batch_values, side="left")
    hit = (lo < sv.size) & (sv[np.minimum(lo, sv.size - 1)] == batch_values)
    out[hit] = corpus_pos[order[lo[hit]]]
    return out


def _first_match_ns(batch_hash: U64, batch_doc: I64, n_batch: int, corpus_hash: U64, corpus_pos: I64) -> I64:
    """Per batch document, the smallest corpus position sharing one of its sentence hashes."""
    per_hash = _first_match(batch_hash, corpus_hash, corpus_pos)
    big = np.iinfo(np.int64).max
    best = np.full(n_batch, big, np.int64)
    hit = per_hash >= 0
    np.minimum.at(best, batch_doc[hit], per_hash[hit])
    return np.where(best == big, -1, best).astype(np.int64)


def against_corpus(
    fps: Fingerprints, config: DedupConfig, corpus: CorpusIndex, on_chunk: Callable[[int], None] | None = None
) -> CorpusMatches:
    """Stream the corpus past the batch's tables; smallest matching corpus position per document."""
    n = len(fps)
    best_exact = np.full(n, -1, np.int64)
    best_sim = np.full(n, -1, np.int64)
    best_ns = np.full(n, -1, np.int64)
    tables = None
    sim_inverse: I64 = _EMPTY
    best_uniq: I64 = _EMPTY
    if config.uses_simhash and n:
        uniq, sim_inverse = _unique_sorted(fps.simhash)
        tables = BatchTables(uniq, config.max_distance, cap=config.bucket_cap)
        best_uniq = np.full(uniq.size, -1, np.int64)
    for chunk in corpus.iter_chunks(ns=config.uses_nshash):
        best_exact = min_merge(np.stack([best_exact, _first_match(fps.exact, chunk.exact, chunk.pos)]))
        if tables is not None:
            best_uniq = min_merge(np.stack([best_uniq, tables.probe(chunk.fp, chunk.pos)]))
        if config.uses_nshash and fps.ns_hash.size:
            best_ns = min_merge(
                np.stack([best_ns, _first_match_ns(fps.ns_hash, fps.ns_doc, n, chunk.ns_hash, chunk.ns_pos)])
            )
        if on_chunk:
            on_chunk(int(chunk.pos.size))
    if tables is not None:
        best_sim = best_uniq[sim_inverse]
    return CorpusMatches(
        exact=best_exact, simhash=best_sim, nshash=best_ns, capped=bool(tables is not None and tables.capped)
    )


def _unique_sorted(values: U64) -> tuple[U64, I64]:
    order = np.argsort(values, kind="stable")
    sv = values[order]
    new = np.concatenate(([True], sv[1:] != sv[:-1]))
    uniq = sv[new]
    inverse = np.empty(values.size, np.int64)
    inverse[order] = np.cumsum(new) - 1
    return uniq, inverse


def dedup_fingerprints(
    fps: Fingerprints,
    config: DedupConfig,
    corpus: CorpusIndex | None = None,
    *,
    on_corpus_chunk: Callable[[int], None] | None = None,
) -> DedupResult:
    """Steps 2-4 on fingerprints already computed (the Spark job computes the same edges)."""
    t0 = time.perf_counter()
    st = PlanStats()
    (sa, sb), (na, nb) = within_batch_edges(fps, config, st)
    n = len(fps)
    matches = None
    if corpus is not None and n:
        matches = against_corpus(fps, config, corpus, on_corpus_chunk)
    result = assemble(fps, config, (sa, sb), (na, nb), matches, corpus.lookup if corpus else None)
    st_d = st.to_dict()
    result.stats.update(
        {
            "largest_group": st_d["largest_group"],
            "resplit_groups": st_d["resplits"],
            "capped_groups": st_d["capped"],
            "capped_documents": st_d["capped_docs"],
            "cluster_seconds": round(time.perf_counter() - t0, 3),
        }
    )
    if matches is not None and matches.capped:
        result.stats["capped_corpus_buckets"] = 1
    return result


def assemble(
    fps: Fingerprints,
    config: DedupConfig,
    sim_edges: Edges,
    ns_edges: Edges,
    matches: CorpusMatches | None,
    lookup: Callable[[I64], tuple[list[str], U64, U64]] | None,
) -> DedupResult:
    """Number the nodes (matched corpus documents first), cluster, and name clusters by id."""
    n = len(fps)
    sa, sb = sim_edges
    na, nb = ns_edges
    prefix_ids: list[str] = []
    prefix_fp = np.empty(0, np.uint64)
    prefix_exact = np.empty(0, np.uint64)
    n_prefix = 0
    if matches is not None and lookup is not None:
        cols = [
            matches.exact,
            matches.simhash if config.uses_simhash else None,
            matches.nshash if config.uses_nshash else None,
        ]
        used = [c for c in cols if c is not None]
        matched = np.unique(np.concatenate([c[c >= 0] for c in used])) if used else _EMPTY
        n_prefix = int(matched.size)
        if n_prefix:
            prefix_ids, prefix_fp, prefix_exact = lookup(matched)
            docs = np.arange(n, dtype=np.int64) + n_prefix

            def link(col: I64) -> Edges:
                hit = col >= 0
                return np.searchsorted(matched, col[hit]).astype(np.int64), docs[hit]

            ca, cb = link(matches.exact)
            sims = [sa + n_prefix, ca]
            simb = [sb + n_prefix, cb]
            if config.uses_simhash:
                xa, xb = link(matches.simhash)
                sims.append(xa)
                simb.append(xb)
            sa, sb = np.concatenate(sims), np.concatenate(simb)
            na, nb = na + n_prefix, nb + n_prefix
            if config.uses_nshash:
                ya, yb = link(matches.nshash)
                na, nb = np.concatenate([na, ya]), np.concatenate([nb, yb])
    exact = np.concatenate([prefix_exact, fps.exact])
    node_fps = np.concatenate([prefix_fp, fps.simhash]) if config.uses_simhash else None
    a = assign(n_prefix, n, (sa, sb), (na, nb), exact, node_fps)
    return DedupResult(
        fps=fps,
        assignment=a,
        prefix_ids=prefix_ids,
        stats={"corpus_matched": n_prefix} if matches is not None else {},
    )


def dedup_records(
    records: Iterable[Record], config: DedupConfig | None = None, *, against: CorpusIndex | None = None
) -> Iterator[dict[str, Any]]:
    """Deduplicate documents: one dict per document {id, cluster, duplicate_of, kind, distance}.

    Clusters are known only after the last document, so the rows come after the input is read.
    """
    cfg = config or DedupConfig()
    fps = fingerprint_records(records, cfg)
    if against is not None:
        against.check_settings(cfg)
    yield from dedup_fingerprints(fps, cfg, against).rows()
