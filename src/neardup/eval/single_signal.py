"""Sweep methods and their parameter over a labelled set: SimHash (word and shingle features) over k,
nshash over n, SimHash confirmed by a second method, and TF-IDF cosine as the reference.

Every method turns the documents into pairs, the pairs into clusters (connected components from
:mod:`neardup.index.clusters`, as a dedup run does), and the clusters are scored with
:func:`neardup.eval.metrics.evaluate`. Pairs are found by brute force over numpy arrays: evaluation
sets are a few thousand documents, and brute force is exact, so the scores measure the features, not
the index.

>>> # rows = sweep(texts, truth_ids, truth, methods=("simhash-words",), ks=range(0, 9))
>>> # best = choose_default(rows)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup.eval.metrics import Evaluation, Truth, evaluate
from neardup.exceptions import ConfigError

__all__ = [
    "METHODS",
    "RECOMMENDED",
    "RECOMMENDED_LONG",
    "SweepRow",
    "choose_default",
    "clusters_from_pairs",
    "graded_separation",
    "hamming_pairs",
    "main_text",
    "recommended_pairs",
    "sweep",
]

# name -> what it is; "+" confirms the SimHash pairs by a second test, "|" adds the second method's pairs
METHODS: dict[str, str] = {
    "simhash-words": "SimHash of TF-IDF weighted words, pairs within k bits",
    "simhash-shingles": "SimHash of binary char 6-gram shingles (English: word 3-grams), pairs within k bits",
    "nshash": "documents sharing one of their n longest sentences (n = 1..5)",
    "simhash-words+sentence": "SimHash words within k, confirmed by one shared long sentence (top 5)",
    "simhash-words+cosine": "SimHash words within k, confirmed by TF-IDF cosine >= 0.8",
    "simhash-words|nshash": "SimHash words within k, or the same longest sentence (nshash n = 1)",
    "simhash-shingles|nshash": "SimHash shingles within k, or the same longest sentence (nshash n = 1)",
    "cosine": "TF-IDF cosine of word features above a threshold (the reference; all pairs)",
}
DEFAULT_METHODS: tuple[str, ...] = tuple(METHODS)
COSINE_THRESHOLDS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
# the best single-signal setting of the sweep (docs/quality.md, "Single-signal methods"): best F1 on
# the classic Chinese sets with precision >= 0.99 on hard negatives (cosine is the reference only),
# k lowered from 10 to 8 because at full corpus size k = 10 merges short templated items
RECOMMENDED: dict[str, Any] = {
    "method": "simhash-shingles",
    "features": "shingles",
    "ngram": 6,
    "weighting": "binary",
    "k": 8,
    "n": 1,
    "label": "SimHash of binary char 6-gram shingles, k <= 8",
}
#: the rule's own winner, for sets of long articles (>= 300 characters) of modest size
RECOMMENDED_LONG: dict[str, Any] = {
    **RECOMMENDED,
    "k": 10,
    "label": "SimHash of binary char 6-gram shingles, k <= 10",
}
#: the grades of a copy, closest first (Clough and Stevenson); ``non`` is an independent answer
_COPY_GRADES = ("cut", "light", "heavy", "non")
CONFIRM_COSINE = 0.8
UNION_N = 1


@dataclass
class SweepRow:
    """One method at one parameter value, and its scores."""

    method: str
    param: float
    evaluation: Evaluation
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        e = self.evaluation
        return {
            "method": self.method,
            "param": self.param,
            "seconds": round(self.seconds, 4),
            "precision": e.duplicates.precision,
            "recall": e.duplicates.recall,
            "f1": e.duplicates.f1,
            "ari": e.overall.ari,
            "hn_precision": e.hn_precision,
            "hn_merged": e.hard_negatives_merged,
            "recall_by_kind": e.recall_by_kind,
            "overall": e.overall.to_dict(),
            **self.extra,
        }


def main_text(html: str) -> str:
    """The article of a page as a dedup run sees it: ContentSeen's extractor, else tags stripped."""
    from neardup.text import strip_tags

    try:
        from neardup.contentseen.extract import extract_main_text
    except ImportError:
        return strip_tags(html)
    try:
        return extract_main_text(html) or strip_tags(html)
    except Exception:  # an optional extractor that is not installed: fall back, never fail the evaluation
        return strip_tags(html)


def hamming_pairs(
    fps: np.ndarray, max_distance: int, block: int = 512
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``i < j`` of fingerprints within ``max_distance`` bits, by brute force: ``(i, j, d)``.

    Brute force takes any distance (the index's block designs stop below half the bits) and a block
    of ``block`` rows against all keeps the distance matrix small.

    >>> i, j, d = hamming_pairs(np.array([0, 1, 3, 255], dtype=np.uint64), 2)
    >>> list(zip(i.tolist(), j.tolist(), d.tolist()))
    [(0, 1, 1), (0, 2, 2), (1, 2, 1)]
    """
    from neardup.fingerprint.simhash import hamming_many

    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    out_i, out_j, out_d = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], [np.zeros(0, np.int8)]
    for start in range(0, len(fps), block):
        d = hamming_many(fps[start : start + block, None], fps[None, :]).astype(np.int8)
        rows, cols = np.nonzero(d <= max_distance)
        keep = cols > rows + start
        rows, cols = rows[keep], cols[keep]
        out_i.append(rows + start)
        out_j.append(cols)
        out_d.append(d[rows, cols])
    return (
        np.concatenate(out_i).astype(np.int64),
        np.concatenate(out_j).astype(np.int64),
        np.concatenate(out_d),
    )


def clusters_from_pairs(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Connected components of ``n`` documents joined by the pairs ``(i, j)``: a label per document,
    the smallest document of its component.

    >>> clusters_from_pairs(4, np.array([0]), np.array([2])).tolist()
    [0, 1, 0, 3]
    """
    from neardup.index import cluster_labels

    return cluster_labels(np.arange(n, dtype=np.int64), np.asarray(i), np.asarray(j))


def _sentence_pairs(hashes: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of documents sharing a hash, as a star to the first document holding it."""
    first: dict[int, int] = {}
    ii: list[int] = []
    jj: list[int] = []
    for doc, hs in enumerate(hashes):
        for h in set(hs):
            k = first.setdefault(int(h), doc)
            if k != doc:
                ii.append(k)
                jj.append(doc)
    return np.asarray(ii, dtype=np.int64), np.asarray(jj, dtype=np.int64)


def _share_any(hashes: Sequence[Sequence[int]], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    sets = [set(h) for h in hashes]
    return np.fromiter(
        (not sets[a].isdisjoint(sets[b]) for a, b in zip(i.tolist(), j.tolist(), strict=False)),
        dtype=bool,
        count=len(i),
    )


class _Tfidf:
    """Unit-normalized TF-IDF rows built from SimHasher.features(), for cosine over many pairs."""

    def __init__(self, features: Sequence[Sequence[tuple[str, float]]]):
        from scipy import sparse

        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        for r, feats in enumerate(features):
            for f, w in feats:
                rows.append(r)
                cols.append(vocab.setdefault(f, len(vocab)))
                vals.append(float(w))
        x = sparse.csr_matrix(
            (np.asarray(vals, dtype=np.float64), (rows, cols)), shape=(len(features), max(1, len(vocab)))
        )
        x.sum_duplicates()
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        self.x = sparse.diags(1.0 / norms) @ x

    def pair_cosine(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        if not len(i):
            return np.zeros(0)
        return np.asarray(self.x[i].multiply(self.x[j]).sum(axis=1)).ravel()

    def pairs_above(self, threshold: float, block: int = 1000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.x.shape[0]
        out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        xt = self.x.T.tocsc()
        for start in range(0, n, block):
            sims = (self.x[start : start + block] @ xt).tocoo()
            r, c, v = sims.row + start, sims.col, sims.data
            keep = (c > r) & (v >= threshold)
            out.append((r[keep], c[keep], v[keep]))
        return (
            np.concatenate([o[0] for o in out]).astype(np.int64),
            np.concatenate([o[1] for o in out]).astype(np.int64),
            np.concatenate([o[2] for o in out]),
        )


def _default_configs(lang: str) -> dict[str, Any]:
    from neardup.config import SimHashConfig

    # zh: the recommended shingles (docs/quality.md); en: word 3-grams
    shingles = (
        SimHashConfig(
            features="shingles", ngram=int(RECOMMENDED["ngram"]), weighting=RECOMMENDED["weighting"]
        )
        if lang == "zh"
        else SimHashConfig(features="word_ngrams", ngram=3)
    )
    return {"words": SimHashConfig(), "shingles": shingles}


def sweep(
    texts: Sequence[str],
    ids: Sequence[str],
    truth: Truth,
    *,
    methods: Iterable[str] = DEFAULT_METHODS,
    ks: Iterable[int] = range(0, 9),
    ns: Iterable[int] = range(1, 6),
    cosine_thresholds: Iterable[float] = COSINE_THRESHOLDS,
    lang: str = "zh",
    configs: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[SweepRow]:
    """Score every method at every parameter value on ``texts`` (labelled by ``ids`` in ``truth``)."""
    methods = list(methods)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ConfigError(f"unknown method(s) {unknown}: expected some of {', '.join(METHODS)}")
    ks, ns = sorted(set(ks)), sorted(set(ns))
    if not ks or min(ks) < 0 or max(ks) > 32:
        raise ConfigError(f"k values must be between 0 and 32, got {ks}")
    if not ns or min(ns) < 1:
        raise ConfigError(f"n values must be >= 1, got {ns}")
    cfgs = dict(_default_configs(lang))
    if configs:
        cfgs.update(configs)
    run = _Sweep(texts, ids, truth, cfgs, ks)
    note = progress or (lambda _msg: None)
    for m in methods:
        note(m)
        if m in ("simhash-words", "simhash-shingles"):
            run.simhash(m)
        elif m == "nshash":
            run.nshash(ns)
        elif m == "cosine":
            run.cosine(sorted(set(cosine_thresholds)))
        else:
            run.confirmed(m)
    return run.rows


class _Sweep:
    """One sweep's documents, its cache of fingerprints, pairs and hashes (each made once, its time
    counted in every row that uses it), and the rows scored so far."""

    def __init__(
        self, texts: Sequence[str], ids: Sequence[str], truth: Truth, cfgs: Mapping[str, Any], ks: list[int]
    ) -> None:
        self.texts, self.ids, self.truth, self.cfgs, self.ks = list(texts), ids, truth, cfgs, ks
        self.n = len(texts)
        self.rows: list[SweepRow] = []
        self._cache: dict[str, tuple[Any, float]] = {}

    def score(self, method: str, param: float, labels: np.ndarray, seconds: float) -> None:
        pred = dict(zip(self.ids, labels.tolist(), strict=False))
        self.rows.append(SweepRow(method, param, evaluate(pred, self.truth), seconds))

    def timed(self, key: str, fn: Callable[[], Any]) -> tuple[Any, float]:
        if key not in self._cache:
            t0 = time.perf_counter()
            self._cache[key] = (fn(), time.perf_counter() - t0)
        return self._cache[key]

    def fps(self, kind: str) -> tuple[np.ndarray, float]:
        from neardup.fingerprint.simhash import SimHasher

        return self.timed(f"fp-{kind}", lambda: SimHasher(self.cfgs[kind]).fingerprint_many(self.texts))

    def pairs(self, kind: str) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], float]:
        """SimHash pairs within the largest k, and the time of fingerprints and pairs together."""
        pairs, t_pairs = self.timed(f"pairs-{kind}", lambda: hamming_pairs(self.fps(kind)[0], max(self.ks)))
        return pairs, self.fps(kind)[1] + t_pairs

    def shashes(self, nn: int) -> tuple[list[list[int]], float]:
        from neardup.fingerprint.nshash import sentence_hashes

        return self.timed(f"ns-{nn}", lambda: [sentence_hashes(t, n=nn) for t in self.texts])

    def tfidf(self) -> tuple[_Tfidf, float]:
        from neardup.fingerprint.simhash import SimHasher

        hasher = SimHasher(self.cfgs["words"])
        return self.timed("tfidf", lambda: _Tfidf([hasher.features(t) for t in self.texts]))

    def simhash(self, m: str) -> None:
        (i, j, d), base = self.pairs(m.split("-")[1])
        for k in self.ks:
            sel = d <= k
            t0 = time.perf_counter()
            labels = clusters_from_pairs(self.n, i[sel], j[sel])
            self.score(m, k, labels, base + time.perf_counter() - t0)

    def nshash(self, ns: list[int]) -> None:
        for nn in ns:
            hs, t_h = self.shashes(nn)
            t0 = time.perf_counter()
            a, b = _sentence_pairs(hs)
            self.score("nshash", nn, clusters_from_pairs(self.n, a, b), t_h + time.perf_counter() - t0)

    def confirmed(self, m: str) -> None:
        """SimHash pairs confirmed by a second test (``+``) or joined with nshash's pairs (``|``)."""
        (i, j, d), base = self.pairs("shingles" if m.startswith("simhash-shingles") else "words")
        ok = np.ones(len(i), dtype=bool)
        ua = ub = np.zeros(0, dtype=np.int64)
        if m == "simhash-words+sentence":
            hs, t_h = self.shashes(5)
            ok, base = _share_any(hs, i, j), base + t_h
        elif m == "simhash-words+cosine":
            tf, t_tf = self.tfidf()
            ok, base = tf.pair_cosine(i, j) >= CONFIRM_COSINE, base + t_tf
        else:
            hs, t_h = self.shashes(UNION_N)
            (ua, ub), base = _sentence_pairs(hs), base + t_h
        for k in self.ks:
            t0 = time.perf_counter()
            sel = (d <= k) & ok
            labels = clusters_from_pairs(self.n, np.concatenate([i[sel], ua]), np.concatenate([j[sel], ub]))
            self.score(m, k, labels, base + time.perf_counter() - t0)

    def cosine(self, thresholds: list[float]) -> None:
        tf, t_tf = self.tfidf()
        t0 = time.perf_counter()
        a, b, v = tf.pairs_above(min(thresholds))
        t_all = t_tf + time.perf_counter() - t0
        for th in thresholds:
            sel = v >= th
            self.score("cosine", th, clusters_from_pairs(self.n, a[sel], b[sel]), t_all)


def recommended_pairs(
    texts: Sequence[str], setting: Mapping[str, Any] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs the recommended setting (:data:`RECOMMENDED`) finds among ``texts``: ``(i, j)``."""
    from neardup.config import SimHashConfig
    from neardup.fingerprint.nshash import sentence_hashes
    from neardup.fingerprint.simhash import SimHasher

    s = dict(RECOMMENDED if setting is None else setting)
    cfg = SimHashConfig(features=s["features"], ngram=int(s["ngram"]), weighting=s.get("weighting", "tfidf"))
    i, j, _ = hamming_pairs(SimHasher(cfg).fingerprint_many(list(texts)), int(s["k"]))
    if str(s["method"]).endswith("|nshash"):
        a, b = _sentence_pairs([sentence_hashes(t, n=int(s["n"])) for t in texts])
        i, j = np.concatenate([i, a]), np.concatenate([j, b])
    return i, j


def choose_default(
    rows: Iterable[SweepRow], *, min_hn_precision: float = 0.99, methods: Iterable[str] | None = None
) -> SweepRow | None:
    """The row with the best duplicate-pair F1 among those with hard-negative precision >= the floor.

    ``methods`` defaults to every method but ``cosine``: all-pairs cosine is the reference, not a
    method that scales. Ties go to the cheaper setting (smaller k or n), then to the method listed first.
    """
    allowed = {m for m in METHODS if m != "cosine"} if methods is None else set(methods)
    ok = [
        r
        for r in rows
        if r.evaluation.hn_precision >= min_hn_precision and (allowed is None or r.method in allowed)
    ]
    if not ok:
        return None
    return max(ok, key=lambda r: (round(r.evaluation.duplicates.f1, 6), -r.param))


def graded_separation(
    records: Sequence[Mapping[str, Any]],
    *,
    lang: str = "en",
    task_field: str = "task",
    grade_field: str = "category",
    source_grade: str = "orig",
) -> dict[str, Any]:
    """How each similarity separates graded copies (e.g. Clough and Stevenson's cut / light / heavy /
    non) from their source: per grade, the median and range of SimHash distance (words, shingles),
    TF-IDF cosine, nshash shared sentences (of the 5 longest) and word 5-gram Jaccard; and for each
    measure the ROC AUC of telling copied answers (any grade but ``non``) from ``non``. A grade
    other than ``source_grade``, cut, light, heavy and non is refused (ConfigError).
    """
    from neardup.eval.synth import ngram_jaccard
    from neardup.fingerprint.nshash import sentence_hashes
    from neardup.fingerprint.simhash import SimHasher, cosine, hamming

    cfgs = _default_configs(lang)
    sources: dict[str, str] = {}
    for i, r in enumerate(records):
        task, grade = r.get(task_field), r.get(grade_field)
        if isinstance(task, bool) or not isinstance(task, str | int):
            raise ConfigError(f"record {i}: {task_field!r} must be a task name or number, got {task!r}")
        if not isinstance(grade, str):
            raise ConfigError(
                f"record {i}: {grade_field!r} must be a grade name such as 'cut', got {grade!r}"
            )
        if grade != source_grade and grade not in _COPY_GRADES:  # a misspelt 'non' would count as a copy
            raise ConfigError(
                f"record {i}: {grade_field!r} is {grade!r}, not a known grade; the grades are "
                f"{', '.join((source_grade, *_COPY_GRADES))}"
            )
        if grade == source_grade:
            if str(task) in sources:
                raise ConfigError(
                    f"task {task!r} has two {source_grade!r} records; give each task one source"
                )
            sources[str(task)] = str(r["text"])
    answers = [r for r in records if r.get(grade_field) != source_grade and str(r.get(task_field)) in sources]
    if not answers:
        raise ConfigError(
            f"no graded answers: expected records with {task_field!r} and {grade_field!r}, and "
            f"one {source_grade!r} record per task"
        )
    hw, hs = SimHasher(cfgs["words"]), SimHasher(cfgs["shingles"])
    measures: dict[str, list[float]] = {
        "simhash_words_distance": [],
        "simhash_shingles_distance": [],
        "cosine": [],
        "shared_sentences": [],
        "word5_jaccard": [],
    }
    grades: list[str] = []
    for r in answers:
        a, s = str(r["text"]), sources[str(r[task_field])]
        grades.append(str(r[grade_field]))
        measures["simhash_words_distance"].append(float(hamming(hw.fingerprint(a), hw.fingerprint(s))))
        measures["simhash_shingles_distance"].append(float(hamming(hs.fingerprint(a), hs.fingerprint(s))))
        measures["cosine"].append(float(cosine(a, s, cfgs["words"])))
        measures["shared_sentences"].append(
            float(len(set(sentence_hashes(a, n=5)) & set(sentence_hashes(s, n=5))))
        )
        measures["word5_jaccard"].append(ngram_jaccard(a, s, 5, words=True))
    order = [g for g in _COPY_GRADES if g in grades]
    table: dict[str, dict[str, Any]] = {}
    for name, vals in measures.items():
        v = np.asarray(vals)
        per = {}
        for g in order:
            x = v[[gg == g for gg in grades]]
            per[g] = {
                "n": len(x),
                "median": float(np.median(x)),
                "min": float(x.min()),
                "max": float(x.max()),
            }
        copied = np.asarray([g != "non" for g in grades])
        higher_is_copy = not name.endswith("distance")
        table[name] = {"by_grade": per, "auc_copied_vs_non": _auc(v if higher_is_copy else -v, copied)}
    return {"grades": order, "measures": table, "answers": len(answers)}


def _auc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    pos, neg = scores[positive], scores[~positive]
    if not len(pos) or not len(neg):
        return None
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))
