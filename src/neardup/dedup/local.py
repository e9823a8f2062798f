"""Corpus dedup on one machine: the match engine's stages over one frozen ``DedupConfig``.

1. ``fingerprint_records``: documents -> signatures (``neardup.match.signature``).
2. within the batch: candidates (keys, shared sketch values, SimHash within a few bits).
3. against a corpus index (seed 001): the corpus streams past the batch chunk by chunk and only
   the corpus documents that are candidates of a batch document are kept, ahead of the batch.
4. ``neardup.match.engine``: documents in order (matched corpus documents first, then the batch
   in input order), each verified against cluster representatives, never joined by a chain; the
   kept copy of each cluster follows the keep rule (first, longest, newest).

>>> from neardup.io import Record
>>> recs = [Record(id="a", text="今天北京天气晴朗，适合出门散步。"), Record(id="b", text="今天北京天气晴朗，适合出门散步。"),
...         Record(id="c", text="完全不同的另一篇文章内容。")]
>>> [(r["id"], r["kind"], r["duplicate_of"]) for r in dedup_records(recs, DedupConfig())]
[('a', 'first', None), ('b', 'exact', 'a'), ('c', 'unique', None)]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints, fingerprint_records
from neardup.exceptions import InputError
from neardup.io import Record
from neardup.match import KINDS as MATCH_KINDS
from neardup.match import MatchConfig, Signatures, cross_candidates
from neardup.match.candidates import simhash_pairs
from neardup.match.cluster import Clusters
from neardup.match.components import match_components
from neardup.match.verify import CONTAINED, CONTENT, EXACT, LAYOUT, NEAR, PARTIAL, TEMPLATE

__all__ = ["DedupResult", "corpus_candidates", "dedup_fingerprints", "dedup_records", "keepers"]

I64 = npt.NDArray[np.int64]
_EMPTY = np.empty(0, np.int64)
_MERGING = (EXACT, CONTENT, NEAR, CONTAINED)
_RELATED = (PARTIAL, LAYOUT, TEMPLATE)
_ROW_BLOCK = 1 << 16  # rows whose evidence columns are made Python values at once


@dataclass
class DedupResult:
    """The outcome for a batch: one row per document, plus counts for the summary.

    Nodes are the matched corpus documents (``prefix_ids``) followed by the batch documents.
    """

    fps: Fingerprints
    clusters: Clusters
    prefix_ids: list[str]
    kept: I64  # per node: the node kept for its cluster
    stats: dict[str, Any] = field(default_factory=dict)
    sigs: Signatures | None = None  # per node (the prefix's, then the batch's); None: fps.sigs
    config: MatchConfig = field(default_factory=MatchConfig)

    def __len__(self) -> int:
        return len(self.fps)

    @property
    def n_prefix(self) -> int:
        return len(self.prefix_ids)

    @property
    def keep(self) -> npt.NDArray[np.bool_]:
        """True for the batch documents to keep: each cluster's kept copy, unless in the corpus."""
        p = self.n_prefix
        keep: npt.NDArray[np.bool_] = self.kept[p:] == np.arange(p, p + len(self.fps))
        return keep

    def rows(self) -> Iterator[dict[str, Any]]:
        """The output contract: id, cluster (the kept copy's id), duplicate_of (null for kept and
        alone documents), kind (``KINDS``), related_to (partial and layout copies), distance and
        evidence (``neardup.match.Evidence.to_dict`` against ``evidence.against``)."""
        c = self.clusters
        p = self.n_prefix
        names = self.prefix_ids + self.fps.ids
        sigs = self.sigs if self.sigs is not None else self.fps.sigs
        kept = self.kept.tolist()
        kinds = c.kind.tolist()
        partner = c.partner.tolist()
        rep = np.asarray(c.rep)
        has_members = np.zeros(len(names), np.bool_)
        has_members[rep[rep != np.arange(len(names))]] = True
        members = has_members.tolist()
        reps = rep.tolist()
        has_layout = np.asarray(sigs.has_layout)
        layout = np.asarray(sigs.layout)
        layout_distance = self.config.layout_distance
        lo = hi = p
        for node in range(p, len(names)):
            if node >= hi:
                # the evidence columns of the next block of rows as Python values (the fields of
                # Evidence.to_dict, rounded alike), a block at a time to bound their memory
                lo, hi = node, min(node + _ROW_BLOCK, len(names))
                similarity = c.similarity[lo:hi].tolist()
                containment = c.containment[lo:hi].tolist()
                conflicts = c.conflicts[lo:hi].tolist()
                aligned = c.aligned[lo:hi].tolist()
                hamming = c.hamming[lo:hi].tolist()
                text = c.text[lo:hi, :4].tolist() if c.text is not None else None
            k = kinds[node]
            keeper = kept[node]
            row: dict[str, Any] = {"id": names[node], "cluster": names[keeper]}
            row["duplicate_of"] = None if keeper == node else names[keeper]
            if keeper == node:  # kept: a related copy, or the copy kept for a cluster, or alone
                row["kind"] = (
                    MATCH_KINDS[k]
                    if k in _RELATED
                    else "supersedes"  # a fuller copy that contains the cluster's first document
                    if k == CONTAINED and keeper != reps[node]
                    else "first"
                    if members[node] or k in _MERGING
                    else "unique"
                )
            elif k in _MERGING:
                row["kind"] = MATCH_KINDS[k]
            else:  # the cluster's first document; the keep rule kept a longer or newer copy
                row["kind"] = "superseded"
            if keeper < p and names[keeper] == names[node]:
                # the corpus already holds this very document (a batch run again after --merge)
                row["kind"] = "indexed"
            q = partner[node]
            if k in _RELATED:
                row["related_to"] = names[q]
            if q >= 0:
                b = node - lo
                row["distance"] = hamming[b]
                # Evidence.to_dict of Clusters.evidence(node), built without the dataclass
                ca, cb = containment[b]
                ev: dict[str, Any] = {
                    "against": names[q],
                    "similarity": round(similarity[b], 3),
                    "containment": [round(ca, 3), round(cb, 3)],
                    "number_conflicts": conflicts[b],
                    "numbers_aligned": aligned[b],
                    "hamming": hamming[b],
                }
                if has_layout[node] and has_layout[q]:
                    ev["same_layout"] = (int(layout[node]) ^ int(layout[q])).bit_count() <= layout_distance
                if text is not None and text[b][0] >= 0:
                    t = text[b]
                    ev["adds"] = [t[0], t[1]]
                    ev["passage"] = t[2]
                    ev["repeated"] = t[3]
                row["evidence"] = ev
            else:
                row["distance"] = None
            yield row

    def indexed(self) -> npt.NDArray[np.bool_]:
        """Per batch document: True when the corpus already holds it under the same id (kind
        ``indexed``, e.g. a batch run again after ``--merge``)."""
        p = self.n_prefix
        out = np.zeros(len(self.fps), np.bool_)
        if not p:
            return out
        kept = self.kept[p:]
        for i in np.flatnonzero(kept < p).tolist():
            out[i] = self.prefix_ids[int(kept[i])] == self.fps.ids[i]
        return out

    def summary(self) -> dict[str, Any]:
        n = len(self.fps)
        keep = self.keep
        p = self.n_prefix
        indexed = self.indexed()
        kinds = self.clusters.kind[p:][~indexed]
        n_indexed = int(indexed.sum())
        out: dict[str, Any] = {
            "documents": n,
            # the clusters of the documents not already in the index
            "clusters": int(np.unique(self.kept[p:][~indexed]).size) if n > n_indexed else 0,
            "kept": int(keep.sum()),
            "duplicates": n - int(keep.sum()) - n_indexed,
            "indexed": n_indexed,
        }
        for code, name in enumerate(MATCH_KINDS[1:], start=1):
            out[f"kind_{name}"] = int((kinds == code).sum())
        out["verified_pairs"] = self.clusters.verified
        out.update(self.stats)
        return out


def keepers(rep: I64, fps: Fingerprints, n_prefix: int, rule: str, clusters: Clusters | None = None) -> I64:
    """Per node, the node kept for its cluster: the fuller (``fuller_copies``), the first (the
    representative), the longest, or the newest by ``keep_field``; ties go to the earlier
    document, and a corpus document is always kept (it is already in the corpus)."""
    n = rep.shape[0]
    if rule == "first" or n == 0:
        return np.array(rep, np.int64)
    length = np.concatenate(
        [np.full(n_prefix, np.iinfo(np.int32).max, np.int64), fps.sigs.tokens.astype(np.int64)]
    )
    if rule == "fuller":
        return fuller_copies(rep, length, n_prefix, clusters)
    if rule == "longest":
        return best_in_cluster(rep, length)
    values = [None] * n_prefix + list(fps.order or [None] * len(fps))
    ranks = {v: i for i, v in enumerate(sorted({str(v) for v in values if v is not None}))}
    score = np.array([ranks[str(v)] if v is not None else -1 for v in values], np.int64)
    score[:n_prefix] = np.iinfo(np.int64).max
    return best_in_cluster(rep, score)


def best_in_cluster(rep: I64, score: I64) -> I64:
    """Per node, the node of its cluster (``rep``) with the highest score, then the smallest."""
    n = rep.shape[0]
    order = np.lexsort((np.arange(n), -score, rep))
    first = np.concatenate(([True], rep[order][1:] != rep[order][:-1]))
    best_of = np.empty(n, np.int64)
    best_of[rep[order][first]] = order[first]
    kept: I64 = best_of[rep]
    return kept


#: what a copy must add to its cluster's first document, net, to be kept instead (characters):
#: a word changed or a typo fixed is not a fuller copy
FULLER_MIN_GAIN = 20


def fuller_copies(rep: I64, length: I64, n_prefix: int, clusters: Clusters | None) -> I64:
    """Per node, its cluster's fuller copy: the member that adds the most to the cluster's first
    document, net of what the first adds to it (at least ``FULLER_MIN_GAIN`` characters), or the
    first when none does.

    What a copy adds is the pair's text evidence (characters of one text no n-gram of the other
    covers), so a later FAQ version, a corrected repost or a copy that holds the whole story is
    kept over an earlier, shorter one even when it is only a little longer. A copy with no text
    evidence against the first (joined through another member, or signed without text) is weighed
    by its extra tokens, at four characters a token; an exact or content copy ties with the copy
    it repeats, and ties go to the earlier document.
    """
    node = np.arange(rep.shape[0])
    member = (rep != node) & (rep >= n_prefix)
    gain = np.where(member, 4 * (length - length[rep]), 0)
    if clusters is not None and clusters.text is not None:
        text, partner = clusters.text, clusters.partner
        direct = member & (partner == rep) & (text[:, 0] >= 0)
        gain[direct] = text[direct, 0].astype(np.int64) - text[direct, 1]
        repeats = member & np.isin(clusters.kind, (EXACT, CONTENT)) & (partner != rep) & (partner >= 0)
        source = np.where(repeats, partner, node)
        while True:  # a copy of a copy: follow the partners to the first text that is not one
            further = source[source]
            if np.array_equal(further, source):
                break
            source = further
        gain = gain[source]
    best = best_in_cluster(rep, gain)
    kept: I64 = np.where(gain[best] >= FULLER_MIN_GAIN, best, rep).astype(np.int64)
    return kept


def corpus_candidates(
    fps: Fingerprints, config: DedupConfig, corpus: Any, on_chunk: Callable[[int], None] | None = None
) -> tuple[I64, I64]:
    """Stream the corpus past the batch: (corpus position, batch row) candidate pairs.

    A corpus that finds these pairs itself offers ``candidates(sigs, match_config) -> (corpus
    positions, batch rows)``, running ``cross_candidates`` on the same chunks ``iter_signatures``
    would give (the Spark job does it in its executors); its ``lookup`` then returns the matched rows.
    """
    own = getattr(corpus, "candidates", None)
    if own is not None:
        cpos, brow = own(fps.sigs, config.match)
        return np.asarray(cpos, np.int64), np.asarray(brow, np.int64)
    cp: list[I64] = []
    br: list[I64] = []
    for pos, chunk in corpus.iter_signatures():
        a, b = cross_candidates(fps.sigs, chunk, config.match)
        cp.append(pos[a])
        br.append(b)
        if on_chunk:
            on_chunk(int(pos.size))
    if not cp:
        return _EMPTY, _EMPTY
    return np.concatenate(cp), np.concatenate(br)


def dedup_fingerprints(
    fps: Fingerprints,
    config: DedupConfig,
    corpus: Any | None = None,
    *,
    on_corpus_chunk: Callable[[int], None] | None = None,
) -> DedupResult:
    """Stages 2-4 on signatures already computed (the Spark job composes the same stages)."""
    t0 = time.perf_counter()
    cfg = config.match
    prefix_ids: list[str] = []
    sigs: Signatures = fps.sigs
    n_prefix = 0
    stats: dict[str, Any] = {}
    if corpus is not None and len(fps):
        cpos, _ = corpus_candidates(fps, config, corpus, on_corpus_chunk)
        matched = np.unique(cpos)
        n_prefix = int(matched.size)
        stats["corpus_matched"] = n_prefix
        if n_prefix:
            prefix_ids, prefix_sigs = corpus.lookup(matched)
            sigs = Signatures.concat([prefix_sigs, fps.sigs], cfg)
    extra = simhash_pairs(sigs, cfg) if cfg.candidate_distance is not None else None
    clusters = match_components(sigs, cfg, fixed=n_prefix, extra=extra)
    kept = keepers(clusters.rep, fps, n_prefix, cfg.keep, clusters)
    stats["cluster_seconds"] = round(time.perf_counter() - t0, 3)
    return DedupResult(
        fps=fps, clusters=clusters, prefix_ids=prefix_ids, kept=kept, stats=stats, sigs=sigs, config=cfg
    )


def dedup_config(config: object) -> DedupConfig:
    """``config``, or the default ``DedupConfig`` for None; TypeError for anything else."""
    if config is None:
        return DedupConfig()
    if not isinstance(config, DedupConfig):
        hint = ": wrap it as DedupConfig(match=...)" if isinstance(config, MatchConfig) else ""
        raise TypeError(f"config must be a DedupConfig or None, got {type(config).__name__}{hint}")
    return config


def dedup_records(
    records: Iterable[Record | Mapping[str, Any]],
    config: DedupConfig | None = None,
    *,
    against: Any | None = None,
) -> Iterator[dict[str, Any]]:
    """Deduplicate documents, ``Record``s or dicts: one dict per document (see ``DedupResult.rows``).

    A dict's ``id``, ``text``, ``html``, ``source`` and ``line`` are the Record's fields (``id``
    defaults to the document's position, from 0); its other keys are the Record's ``extra`` (where
    ``keep="newest"`` finds a ``date``). Clusters are known only after the last document, so the
    rows come after the input is read.

    >>> docs = [{"id": "a", "text": "同一篇新闻。"}, {"id": "b", "text": "同一篇新闻。"}]
    >>> [(r["id"], r["kind"], r["duplicate_of"]) for r in dedup_records(docs)]
    [('a', 'first', None), ('b', 'exact', 'a')]
    """
    cfg = dedup_config(config)
    if against is not None and not callable(getattr(against, "check_settings", None)):
        raise TypeError(f"against must be a CorpusIndex or None, got {type(against).__name__}")
    if isinstance(records, (str, bytes, Mapping, Record)):
        raise TypeError(
            f"records must be an iterable of Records or dicts, got a {type(records).__name__}: "
            "wrap one record in a list"
        )
    try:
        items = iter(records)
    except TypeError:
        raise TypeError(
            f"records must be an iterable of Records or dicts, got {type(records).__name__}"
        ) from None
    return _dedup_rows(_as_records(items), cfg, against)


def _dedup_rows(records: Iterable[Record], cfg: DedupConfig, against: Any | None) -> Iterator[dict[str, Any]]:
    fps = fingerprint_records(records, cfg)
    if against is not None:
        against.check_settings(cfg)
    yield from dedup_fingerprints(fps, cfg, against).rows()


_RECORD_FIELDS = frozenset(f.name for f in fields(Record))


def _as_records(items: Iterable[Any]) -> Iterator[Record]:
    """The items as Records (a Mapping converted), each with a text or an HTML string."""
    for i, item in enumerate(items):
        if isinstance(item, Record):
            rec = item
        elif isinstance(item, Mapping):
            extra = {k: v for k, v in item.items() if k not in _RECORD_FIELDS}
            given = item.get("extra")
            if given is not None:
                if not isinstance(given, Mapping):
                    raise TypeError(f"record {i}: extra must be a dict, got {type(given).__name__}")
                extra = {**given, **extra}
            doc_id = item.get("id")
            if doc_id is not None and (
                isinstance(doc_id, bool) or not isinstance(doc_id, (str, int, float, np.integer))
            ):
                raise TypeError(f"record {i}: id must be a str or a number, got {type(doc_id).__name__}")
            rec = Record(
                id=str(i) if doc_id is None else str(doc_id),
                text=item.get("text"),
                html=item.get("html"),
                source=item.get("source", ""),
                line=item.get("line", 0),
                extra=extra,
            )
        else:
            raise TypeError(f"records must be Records or dicts; item {i} is {type(item).__name__}")
        for name, value in (("text", rec.text), ("html", rec.html)):
            if value is not None and not isinstance(value, str):
                raise TypeError(
                    f"record {i} ({rec.id!r}): {name} must be a str or None, got {type(value).__name__}"
                )
        if rec.text is None and rec.html is None:
            raise InputError(f"record {i} ({rec.id!r}) has no text: give it a text or an html")
        yield rec
