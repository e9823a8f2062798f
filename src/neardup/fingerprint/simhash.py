"""SimHash fingerprints (Charikar 2002; Manku et al. 2007) of texts, from weighted features.

Each feature's 64-bit hash votes on every bit with its weight (+w for a 1 bit, -w for a 0 bit); a bit
of the fingerprint is 1 when its sum is > 0. Similar feature sets give fingerprints a few bits apart.

>>> fp = fingerprint("和世界交手这么多年，你是否兴致盎然、风采依旧")
>>> hamming(fp, fingerprint("和世界交手这么多年，你是否兴致盎然、风采依旧！")) <= 3
True
>>> simhash_from_features([(0b110101, 5), (0b101001, 4)], bits=6) == 0b110101  # seed 000
True
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np

from neardup.config import SimHashConfig
from neardup.exceptions import ConfigError
from neardup.fingerprint import _fast, _kernels
from neardup.fingerprint.hashing import get_hash64
from neardup.text.normalize import normalize, strip_tags
from neardup.text.segment import char_shingles, cut, is_word, shingle_text, word_ngrams
from neardup.text.stopwords import stopwords
from neardup.text.weights import IDFTable, auto_top_n, load_idf

__all__ = [
    "WEIGHT_SCALE",
    "SimHasher",
    "bit_sums",
    "cosine",
    "fingerprint",
    "fingerprint_many",
    "hamming",
    "hamming_many",
    "simhash_from_features",
    "similarity",
]

#: weights are summed as integers in units of 1/WEIGHT_SCALE: exact and order independent
WEIGHT_SCALE = 1 << 16
_MAX_VOCAB = 4_000_000  # distinct features cached per SimHasher before the cache is reset
_CHUNK = 2048  # documents per kernel call
_U64_MAX = (1 << 64) - 1

FeaturesArg = Mapping[Any, float] | Iterable[Any]


def _fixed(w: float) -> int:
    if not math.isfinite(w):
        raise ConfigError(f"feature weights must be finite numbers, got {w!r}")
    return round(w * WEIGHT_SCALE)


def _check_bits(bits: int) -> None:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 64:
        raise ConfigError(
            f"bits must be an integer between 1 and 64 (32 or 64 for SimHashConfig), got {bits!r}"
        )


def _pairs(features: FeaturesArg) -> Iterable[tuple[Any, float]]:
    items: Iterable[Any] = features.items() if isinstance(features, Mapping) else features
    for f in items:
        if isinstance(f, (str, int)) and not isinstance(f, bool):
            yield f, 1.0
        else:
            try:
                key, w = f
            except (TypeError, ValueError):
                raise ConfigError(
                    f"a feature must be a string, an int hash, or a (feature, weight) pair; got {f!r}"
                ) from None
            yield key, float(w)


def _feature_arrays(features: FeaturesArg, bits: int, hash: str) -> tuple[np.ndarray, np.ndarray]:
    _check_bits(bits)
    h64 = get_hash64(hash)
    mask = (1 << bits) - 1
    hs: list[int] = []
    ws: list[int] = []
    for key, w in _pairs(features):
        if isinstance(key, int):
            if key < 0:
                raise ConfigError(f"a precomputed feature hash must be >= 0, got {key}")
            h = key & mask
        else:
            h = h64(str(key).encode("utf-8", "surrogatepass")) & mask
        hs.append(h)
        ws.append(_fixed(w))
    return np.array(hs, dtype=np.uint64), np.array(ws, dtype=np.int64)


def bit_sums(features: FeaturesArg, bits: int = 64, hash: str = "xxh3") -> list[float]:
    """The per-bit weighted sums SimHash thresholds, in the order bits are written (highest first).

    Features as for ``simhash_from_features``. Seed 000's example (世界 w5 hash 110101, 交手 w4 hash
    101001):

    >>> bit_sums([(0b110101, 5), (0b101001, 4)], bits=6)
    [9.0, 1.0, -1.0, 1.0, -9.0, 9.0]
    """
    hs, ws = _feature_arrays(features, bits, hash)
    sums = _kernels.accumulate(hs, ws, bits)
    return [float(s) / WEIGHT_SCALE for s in sums[::-1]]


def simhash_from_features(features: FeaturesArg, bits: int = 64, hash: str = "xxh3") -> int:
    """SimHash of weighted features.

    ``features``: strings (weight 1), ``(feature, weight)`` pairs, or a ``{feature: weight}`` dict. A
    feature is a string (hashed with ``hash`` over its UTF-8 bytes) or an int, taken as its
    precomputed hash (low ``bits`` bits used). ``bits`` may be 1..64 (the golden tests use 6).

    >>> simhash_from_features({"apache": 10, "hadoop": 15}) == simhash_from_features(
    ...     [("hadoop", 15), ("apache", 10)])
    True
    """
    hs, ws = _feature_arrays(features, bits, hash)
    return int(_kernels.sums_to_fp(_kernels.accumulate(hs, ws, bits)))


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two fingerprints (ints from 0 to 2**64 - 1).

    >>> hamming(0b10101, 0b00110)
    3
    """
    try:
        if 0 <= a <= _U64_MAX and 0 <= b <= _U64_MAX:
            return int(a ^ b).bit_count()
    except TypeError:  # not integers, or numpy integers of mixed signedness
        pass
    return (_fingerprint_int("a", a) ^ _fingerprint_int("b", b)).bit_count()


def _fingerprint_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"fingerprints are ints from 0 to 2**64 - 1; {name} is {type(value).__name__}")
    if not 0 <= value <= _U64_MAX:
        hint = f" (a signed 64-bit fingerprint? pass {name} & (2**64 - 1))" if -(1 << 63) <= value < 0 else ""
        raise ValueError(f"fingerprints are ints from 0 to 2**64 - 1; {name} is {value}{hint}")
    return int(value)


def hamming_many(a: Any, b: Any) -> np.ndarray:
    """Element-wise Hamming distances of uint64 arrays (broadcasting; a scalar is fine).

    >>> hamming_many(np.array([0, 7], np.uint64), np.uint64(3)).tolist()
    [2, 1]
    """
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return np.bitwise_count(x).astype(np.int64)


def similarity(a: int, b: int, bits: int = 64) -> float:
    """1 - hamming(a, b) / bits (seed 003's likeness).

    >>> similarity(0, 0b111, bits=32)
    0.90625
    """
    _check_bits(bits)
    return 1.0 - hamming(a, b) / bits


class _Vocab:
    """Distinct feature -> id, with per-id hash and unit weight (fixed point): each distinct feature
    is hashed and weighed once per SimHasher."""

    def __init__(self, hasher: SimHasher) -> None:
        self._hasher = hasher
        self.ids: dict[str, int] = {}
        self.vh = np.empty(1024, np.uint64)
        self.vw = np.empty(1024, np.int64)
        self.n = 0

    def reset_if_big(self) -> None:
        if self.n > _MAX_VOCAB:
            self.ids.clear()
            self.n = 0

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of ``tokens``, adding the ones not seen before."""
        ids = self.ids
        out = np.fromiter(map(ids.get, tokens, repeat(-1)), dtype=np.int64, count=len(tokens))
        missing = np.flatnonzero(out < 0)
        if missing.shape[0] * 8 > len(tokens):  # a cold cache: set operations beat a Python loop
            self._add(list(set(tokens).difference(ids)))
            return np.fromiter(map(ids.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        if missing.shape[0]:
            new = list(dict.fromkeys(tokens[i] for i in missing.tolist()))
            self._add(new)
            out[missing] = [ids[tokens[i]] for i in missing.tolist()]
        return out

    def _add(self, tokens: list[str]) -> None:
        start = self.n
        need = start + len(tokens)
        if need > self.vh.shape[0]:
            cap = max(need, 2 * self.vh.shape[0])
            self.vh = np.resize(self.vh, cap)
            self.vw = np.resize(self.vw, cap)
        h64 = self._hasher._h64
        self.vh[start:need] = np.fromiter(
            (h64(t.encode("utf-8", "surrogatepass")) for t in tokens), np.uint64, len(tokens)
        )
        self.vw[start:need] = self._hasher._unit_weights(tokens)
        self.ids.update(zip(tokens, range(start, need), strict=True))
        self.n = need


class SimHasher:
    """Turns texts into SimHash fingerprints under one ``SimHashConfig``.

    >>> h = SimHasher(SimHashConfig(features="shingles", ngram=4))
    >>> h.fingerprint("the cat sat on the mat") == h.fingerprint("The cat sat on the mat!")
    True
    >>> [f for f, w in SimHasher().features("分布式数据采集框架的去重")][:2]
    ['分布式', '采集']
    """

    def __init__(self, config: SimHashConfig | None = None, *, engine: str = "auto") -> None:
        self.config = config if config is not None else SimHashConfig()
        if not isinstance(self.config, SimHashConfig):
            raise ConfigError(f"config must be a SimHashConfig, got {type(config).__name__}")
        self.engine = engine
        cut("", engine)  # validates the engine name
        self._h64 = get_hash64(self.config.hash)
        cfg = self.config
        self._idf: IDFTable | None = None
        if cfg.weighting == "tfidf" and (cfg.features == "words" or cfg.idf is not None):
            self._idf = load_idf(cfg.idf)
        self._stop = stopwords("all") if cfg.stopwords else frozenset()
        self._boost = frozenset(normalize(w) for w in cfg.boost) if cfg.normalize else frozenset(cfg.boost)
        self._vocab = _Vocab(self)
        self._lock = threading.Lock()
        self._mask = (1 << cfg.bits) - 1
        # character shingles weighted 1 each, hashed with xxh3: the numba path applies
        self._shingle_fast = (
            cfg.features == "shingles"
            and cfg.hash == "xxh3"
            and self._idf is None
            and cfg.levels == 0
            and cfg.top_n is None
            and not cfg.boost
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its config in another process (the feature cache is not shipped)
        return (_rebuild, (self.config.to_dict(), self.engine))

    # -- features -------------------------------------------------------------------------------
    def _prepare(self, text: str) -> str:
        cfg = self.config
        if cfg.normalize:
            return normalize(text, cfg.strip_html)
        if cfg.strip_html:
            return strip_tags(text)
        return text

    def _tokens(self, text: str) -> list[str]:
        """The feature occurrences of ``text`` (words mode: raw pieces; weight 0 drops the rest)."""
        return self._tokens_of_prepared(self._prepare(text))

    def _tokens_of_prepared(self, text: str) -> list[str]:
        cfg = self.config
        if cfg.features == "words":
            return cut(text, self.engine)
        if cfg.features == "shingles":
            return char_shingles(shingle_text(text), cfg.ngram, cfg.step)
        words = [t for t in cut(text, self.engine) if is_word(t) and t not in self._stop]
        return word_ngrams(words, cfg.ngram)

    def _prepare_many(self, texts: Sequence[str]) -> list[str]:
        cfg = self.config
        if cfg.strip_html:
            texts = [strip_tags(t) for t in texts]
        if cfg.normalize:
            return _fast.normalize_batch(texts)  # type: ignore[no-any-return]
        return list(texts)

    def _unit_weight(self, feature: str) -> int:
        """Fixed-point weight of one occurrence of ``feature``; 0 drops it."""
        cfg = self.config
        if cfg.features == "words" and (not is_word(feature) or feature in self._stop):
            return 0
        w = self._idf.get(feature) if self._idf is not None else 1.0
        if feature in self._boost:
            w *= cfg.boost_factor
        return max(1, _fixed(w)) if w > 0 else 0

    def _unit_weights(self, features: list[str]) -> np.ndarray:
        """``_unit_weight`` of many features at once (the common case without boost, vectorized)."""
        if self._boost:
            return np.fromiter(map(self._unit_weight, features), np.int64, len(features))
        if self._idf is not None:
            get, default = self._idf.table.get, self._idf.default
            w = np.fromiter((get(f, default) for f in features), np.float64, len(features))
        else:
            w = np.ones(len(features), np.float64)
        fixed = np.where(w > 0, np.maximum(1, np.rint(w * WEIGHT_SCALE)), 0).astype(np.int64)
        if self.config.features == "words":
            stop = self._stop
            keep = np.fromiter((is_word(f) and f not in stop for f in features), np.bool_, len(features))
            fixed[~keep] = 0
        return fixed

    def _top_n(self, text_chars: int) -> int:
        top = self.config.top_n
        if top is None:
            return 0
        if top == "auto":
            return auto_top_n(text_chars)
        return int(top)

    def features(self, text: str) -> list[tuple[str, float]]:
        """Weighted features of ``text``, heaviest first (ties: smaller hash first).

        Exactly those the fingerprint is made of: ``simhash_from_features(h.features(t), bits, hash)
        == h.fingerprint(t)``.
        """
        _check_text(text)
        cfg = self.config
        counts = Counter(self._tokens(text))
        rows: list[tuple[int, int, str]] = []
        for tok, tf in counts.items():
            unit = self._unit_weight(tok)
            if unit <= 0:
                continue
            w = unit * (1 if cfg.weighting == "binary" else tf)
            rows.append((-w, self._h64(tok.encode("utf-8", "surrogatepass")) & self._mask, tok))
        rows.sort()
        top = self._top_n(len(text))
        if top and len(rows) > top:
            rows = rows[:top]
        if cfg.levels and rows:
            heaviest = -rows[0][0]
            return [
                (tok, float(max(1, (cfg.levels * -nw + heaviest - 1) // heaviest))) for nw, _, tok in rows
            ]
        return [(tok, -nw / WEIGHT_SCALE) for nw, _, tok in rows]

    # -- fingerprints ---------------------------------------------------------------------------
    def fingerprint(self, text: str) -> int:
        """The fingerprint of one text as an int in [0, 2**bits)."""
        _check_text(text)
        return int(self._batch([text])[0])

    def _batch(self, texts: Sequence[str]) -> np.ndarray:
        if self._shingle_fast:
            return self._batch_shingles(texts)
        return self._batch_tokens(self._prepare_many(texts), [len(t) for t in texts])

    def _batch_tokens(self, prepared: Sequence[str], lengths: Sequence[int]) -> np.ndarray:
        cfg = self.config
        token_lists = [self._tokens_of_prepared(t) for t in prepared]
        offsets = np.zeros(len(prepared) + 1, np.int64)
        np.cumsum([len(x) for x in token_lists], out=offsets[1:])
        flat: list[str] = list(chain.from_iterable(token_lists))
        top = np.array([self._top_n(n) for n in lengths], np.int64)
        with self._lock:  # the feature cache is shared by threads (a web service's thread pool)
            self._vocab.reset_if_big()
            ids = self._vocab.lookup(flat)
            return _kernels.batch_fingerprints(
                ids,
                offsets,
                self._vocab.vh,
                self._vocab.vw,
                cfg.bits,
                cfg.weighting == "binary",
                top,
                cfg.levels,
            )

    def _batch_shingles(self, texts: Sequence[str]) -> np.ndarray:
        """Shingles in numba from code points (exactly the reference result, see ``_fast``)."""
        cfg = self.config
        src = [strip_tags(t) for t in texts] if cfg.strip_html else texts
        if cfg.normalize:
            cps, offsets = _fast.normalize_batch(src, as_codepoints=True)
        else:
            cps, offsets = _fast.to_codepoints(src)
        fps, ok = _fast.shingle_fingerprints(
            cps, offsets, cfg.ngram, cfg.step, cfg.bits, cfg.weighting == "binary"
        )
        if not ok.all():
            bad = np.flatnonzero(~ok)
            redo = [texts[i] for i in bad.tolist()]
            fps[bad] = self._batch_tokens([self._prepare(t) for t in redo], [len(t) for t in redo])
        return fps

    def fingerprint_many(self, texts: Iterable[str], workers: int = 1) -> np.ndarray:
        """Fingerprints of many texts as a uint64 array, in order. ``workers > 1`` uses processes."""
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ConfigError(f"workers must be an integer >= 1, got {workers!r}")
        docs = _fast.text_list(texts)
        if workers > 1 and len(docs) >= 2 * _CHUNK:
            return _parallel(self, docs, workers)
        out = np.empty(len(docs), np.uint64)
        for start in range(0, len(docs), _CHUNK):
            out[start : start + _CHUNK] = self._batch(docs[start : start + _CHUNK])
        return out


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")


def _rebuild(config: dict[str, Any], engine: str) -> SimHasher:
    return SimHasher(SimHashConfig.from_dict(config), engine=engine)


_WORKER: SimHasher | None = None


def _init_worker(hasher: SimHasher) -> None:
    global _WORKER
    _WORKER = hasher


def _work(texts: list[str]) -> np.ndarray:
    assert _WORKER is not None
    return _WORKER.fingerprint_many(texts)


def _parallel(hasher: SimHasher, docs: list[str], workers: int) -> np.ndarray:
    import multiprocessing as mp

    workers = min(workers, os.cpu_count() or 1, max(1, len(docs) // _CHUNK))
    # fork shares the loaded IDF table and dictionaries; elsewhere the hasher is rebuilt from its config
    methods = mp.get_all_start_methods()
    ctx = mp.get_context(
        "fork"
        if "fork" in methods and sys.version_info < (3, 12)
        else "forkserver"
        if "forkserver" in methods
        else "spawn"
    )
    from neardup._workers import WorkerDied, WorkerPool

    # supervised workers: one that dies is replaced and its chunk hashed again, never waited on
    with WorkerPool(workers, _work, context=ctx, initializer=_init_worker, initargs=(hasher,)) as pool:
        tasks = [pool.submit([docs[i : i + _CHUNK]]) for i in range(0, len(docs), _CHUNK)]
        try:
            parts = [pool.result(t)[0] for t in tasks]
        except WorkerDied as exc:
            lo = exc.task * _CHUNK
            what = f"texts {lo}-{min(lo + _CHUNK, len(docs)) - 1}"
            raise WorkerDied(exc.task, exc.item, exc.exitcode, what=what) from None
    return np.concatenate(parts) if parts else np.empty(0, np.uint64)


_DEFAULT: dict[SimHashConfig, SimHasher] = {}


def _hasher(config: SimHashConfig | None) -> SimHasher:
    cfg = config if config is not None else SimHashConfig()
    h = _DEFAULT.get(cfg)
    if h is None:
        if len(_DEFAULT) > 16:
            _DEFAULT.clear()
        h = _DEFAULT[cfg] = SimHasher(cfg)
    return h


def fingerprint(text: str, config: SimHashConfig | None = None) -> int:
    """The SimHash fingerprint of ``text`` (default config: jieba words, TF-IDF, xxh3, 64 bits)."""
    return _hasher(config).fingerprint(text)


def fingerprint_many(
    texts: Iterable[str], config: SimHashConfig | None = None, workers: int = 1
) -> np.ndarray:
    """Fingerprints of many texts as a numpy uint64 array.

    >>> fingerprint_many(["a b c", "a b c"]).dtype
    dtype('uint64')
    """
    return _hasher(config).fingerprint_many(texts, workers=workers)


def cosine(text_a: str, text_b: str, config: SimHashConfig | None = None) -> float:
    """Cosine similarity of the two texts' weighted feature vectors (TF-IDF by default), in [0, 1].

    >>> round(cosine("上港主场战胜西悉尼流浪者", "上港主场战胜西悉尼流浪者"), 6)
    1.0
    """
    h = _hasher(config)
    va = dict(h.features(text_a))
    vb = dict(h.features(text_b))
    if not va or not vb:
        return 0.0
    dot = sum(w * vb[f] for f, w in va.items() if f in vb)
    na = math.sqrt(sum(w * w for w in va.values()))
    nb = math.sqrt(sum(w * w for w in vb.values()))
    return min(1.0, dot / (na * nb))
