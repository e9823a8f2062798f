"""neardup: duplicate and near-duplicate detection for texts and web pages, Chinese first.

The public API is re-exported here. Names load on first use, so ``import neardup`` stays light
(numba kernels, jieba and the optional extras are imported only by what needs them).

>>> import neardup
>>> neardup.hamming(0b1011, 0b0001)
2
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from neardup import _jit
from neardup._version import __version__
from neardup.config import SimHashConfig
from neardup.exceptions import (
    ConfigError,
    FormatError,
    InputError,
    MissingDependency,
    NeardupError,
    StoreError,
)

_jit.configure_cache()  # a writable numba cache folder, before any kernel is declared

# public name -> module that defines it
_LAZY: dict[str, str] = {
    # text and fingerprints
    "normalize": "neardup.text",
    "split_sentences": "neardup.text",
    "tokenize_words": "neardup.text",
    "char_shingles": "neardup.text",
    "word_ngrams": "neardup.text",
    "SimHasher": "neardup.fingerprint.simhash",
    "fingerprint": "neardup.fingerprint.simhash",
    "fingerprint_many": "neardup.fingerprint.simhash",
    "hamming": "neardup.fingerprint.simhash",
    "hamming_many": "neardup.fingerprint.simhash",
    "similarity": "neardup.fingerprint.simhash",
    "simhash_from_features": "neardup.fingerprint.simhash",
    "cosine": "neardup.fingerprint.simhash",
    "Simhash": "neardup.fingerprint.compat",
    "SimhashIndex": "neardup.fingerprint.compat",
    # nshash and stores
    "NSHash": "neardup.fingerprint.nshash",
    "sentence_hashes": "neardup.fingerprint.nshash",
    "sentence_hashes_many": "neardup.fingerprint.nshash",
    "longest_sentences": "neardup.fingerprint.nshash",
    "open_store": "neardup.stores",
    "KeyValueStore": "neardup.stores",
    # Hamming index
    "HammingIndex": "neardup.index",
    "self_join": "neardup.index",
    "join": "neardup.index",
    # URLs
    "SeenURLs": "neardup.urls",
    "canonicalize_url": "neardup.urls",
    "DEFAULT_DROP_PARAMS": "neardup.urls",
    # ContentSeen
    "ContentSeen": "neardup.contentseen",
    "Verdict": "neardup.contentseen",
    "extract_main_text": "neardup.contentseen",
    # corpus dedup
    "DedupConfig": "neardup.dedup",
    "dedup_records": "neardup.dedup",
    "CorpusIndex": "neardup.dedup",
    # service client
    "Client": "neardup.client",
    "AsyncClient": "neardup.client",
    "ServiceError": "neardup.exceptions",
    # evaluation
    "Truth": "neardup.eval",
    "evaluate": "neardup.eval",
    "score_clusters": "neardup.eval",
    "adjusted_rand_index": "neardup.eval",
    "SynthConfig": "neardup.eval",
    "synthesize": "neardup.eval",
    "natural_truth": "neardup.eval",
    "sweep": "neardup.eval",
    "build_report": "neardup.eval",
    "write_report": "neardup.eval",
}

__all__ = [
    "DEFAULT_DROP_PARAMS",
    "AsyncClient",
    "Client",
    "ConfigError",
    "ContentSeen",
    "CorpusIndex",
    "DedupConfig",
    "FormatError",
    "HammingIndex",
    "InputError",
    "KeyValueStore",
    "MissingDependency",
    "NSHash",
    "NeardupError",
    "SeenURLs",
    "ServiceError",
    "SimHashConfig",
    "SimHasher",
    "Simhash",
    "SimhashIndex",
    "StoreError",
    "SynthConfig",
    "Truth",
    "Verdict",
    "__version__",
    "adjusted_rand_index",
    "build_report",
    "canonicalize_url",
    "char_shingles",
    "cosine",
    "dedup_records",
    "evaluate",
    "extract_main_text",
    "fingerprint",
    "fingerprint_many",
    "hamming",
    "hamming_many",
    "join",
    "longest_sentences",
    "natural_truth",
    "normalize",
    "open_store",
    "score_clusters",
    "self_join",
    "sentence_hashes",
    "sentence_hashes_many",
    "simhash_from_features",
    "similarity",
    "split_sentences",
    "sweep",
    "synthesize",
    "tokenize_words",
    "word_ngrams",
    "write_report",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # let type checkers and IDEs see the lazy names
    from neardup.client import AsyncClient, Client
    from neardup.contentseen import ContentSeen, Verdict, extract_main_text
    from neardup.dedup import CorpusIndex, DedupConfig, dedup_records
    from neardup.eval import (
        SynthConfig,
        Truth,
        adjusted_rand_index,
        build_report,
        evaluate,
        natural_truth,
        score_clusters,
        sweep,
        synthesize,
        write_report,
    )
    from neardup.exceptions import ServiceError
    from neardup.fingerprint.compat import Simhash, SimhashIndex
    from neardup.fingerprint.nshash import NSHash, longest_sentences, sentence_hashes, sentence_hashes_many
    from neardup.fingerprint.simhash import (
        SimHasher,
        cosine,
        fingerprint,
        fingerprint_many,
        hamming,
        hamming_many,
        simhash_from_features,
        similarity,
    )
    from neardup.index import HammingIndex, join, self_join
    from neardup.stores import KeyValueStore, open_store
    from neardup.text import char_shingles, normalize, split_sentences, tokenize_words, word_ngrams
    from neardup.urls import DEFAULT_DROP_PARAMS, SeenURLs, canonicalize_url
