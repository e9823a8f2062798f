"""Stage 1: documents in, fingerprints out. Texts are dropped as soon as they are fingerprinted.

Each document gets three fingerprints: a 64-bit SimHash (helper A's ``SimHasher``), an exact-content
hash (xxh3 of the whitespace-collapsed text) and the nshash sentence hashes (helper C's
``sentence_hashes``: the n longest sentences). HTML records go through main-text extraction first.

Records stream in chunks to a pool of worker processes (fork; the parent loads the dictionaries
once, before forking), with a bounded number of chunks in flight, so memory is bounded by the
fingerprints and a few chunks of text.

>>> from neardup.io import Record
>>> fp = fingerprint_records([Record(id="a", text="今天天气很好。")], DedupConfig(workers=1))
>>> fp.ids, len(fp), fp.simhash.dtype.name
(['a'], 1, 'uint64')
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash

from neardup.dedup.config import DedupConfig
from neardup.exceptions import InputError
from neardup.io import Record

__all__ = ["Fingerprints", "exact_hash", "fingerprint_records", "fingerprint_texts"]

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def exact_hash(text: str) -> int:
    """The exact-duplicate key: xxh3-64 of the text with whitespace runs collapsed.

    >>> exact_hash("a  b\\n") == exact_hash(" a b")
    True
    """
    return int(xxhash.xxh3_64_intdigest(" ".join(text.split()).encode("utf-8", "surrogatepass")))


@dataclass
class Fingerprints:
    """The fingerprints of a batch, in input order: what every later stage works on."""

    ids: list[str] = field(default_factory=list)
    simhash: U64 = field(default_factory=lambda: np.empty(0, np.uint64))
    exact: U64 = field(default_factory=lambda: np.empty(0, np.uint64))
    ns_hash: U64 = field(default_factory=lambda: np.empty(0, np.uint64))  # flat sentence hashes
    ns_doc: I64 = field(default_factory=lambda: np.empty(0, np.int64))  # document of each hash

    def __len__(self) -> int:
        return len(self.ids)

    def ns_lists(self) -> list[list[int]]:
        """Sentence hashes per document (for writing)."""
        out: list[list[int]] = [[] for _ in range(len(self))]
        for d, h in zip(self.ns_doc.tolist(), self.ns_hash.tolist(), strict=False):
            out[d].append(h)
        return out

    def take(self, positions: I64) -> Fingerprints:
        """The sub-batch at ``positions`` (ascending), renumbered from 0."""
        positions = np.asarray(positions, np.int64)
        remap = np.full(len(self), -1, np.int64)
        remap[positions] = np.arange(positions.size)
        keep = remap[self.ns_doc] >= 0 if self.ns_doc.size else np.zeros(0, bool)
        return Fingerprints(
            ids=[self.ids[i] for i in positions.tolist()],
            simhash=self.simhash[positions] if self.simhash.size else self.simhash,
            exact=self.exact[positions],
            ns_hash=self.ns_hash[keep],
            ns_doc=remap[self.ns_doc[keep]],
        )


# -------------------------------------------------------------------------------- worker side
_STATE: dict[str, Any] = {}


def _setup(config: DedupConfig, simhash: bool, nshash: bool) -> None:
    """Load what fingerprinting needs (dictionaries, IDF table) once per process."""
    key = (config.fingerprint_settings().__repr__(), simhash, nshash)
    if _STATE.get("key") == key:
        return
    _STATE.clear()
    _STATE.update(key=key, config=config, simhash=simhash, nshash=nshash)
    if simhash:
        from neardup.fingerprint.simhash import SimHasher

        hasher = SimHasher(config.simhash)
        hasher.fingerprint("预热 warm-up")
        _STATE["hasher"] = hasher
    if nshash:
        from neardup.fingerprint.nshash import sentence_hashes

        _STATE["sentence_hashes"] = sentence_hashes


def _text_of(text: str | None, html: str | None, extractor: str) -> str:
    if text:
        return text
    if html:
        from neardup.contentseen.extract import extract_main_text

        return extract_main_text(html, extractor)
    return ""


ChunkOut = tuple[U64 | None, U64, U64, I64]


def _work(items: Sequence[tuple[str | None, str | None]]) -> ChunkOut:
    cfg: DedupConfig = _STATE["config"]
    texts = [_text_of(t, h, cfg.extractor) for t, h in items]
    sim = _STATE["hasher"].fingerprint_many(texts) if _STATE["simhash"] else None
    exact = np.fromiter((exact_hash(t) for t in texts), np.uint64, len(texts))
    ns_counts = np.zeros(len(texts), np.int64)
    ns_flat: list[int] = []
    if _STATE["nshash"]:
        sh: Callable[..., list[int]] = _STATE["sentence_hashes"]
        for i, t in enumerate(texts):
            hs = sh(t, cfg.nshash_n, cfg.nshash_hashfunc, cfg.nshash_min_sentence_chars) if t else []
            ns_counts[i] = len(hs)
            ns_flat.extend(hs)
    return sim, exact, np.asarray(ns_flat, np.uint64), ns_counts


def _pool_init(config: DedupConfig, simhash: bool, nshash: bool) -> None:
    _setup(config, simhash, nshash)


# -------------------------------------------------------------------------------- parent side
def _chunks(
    records: Iterable[Record],
    size: int,
    ids: list[str],
    policy: str,
) -> Iterator[list[tuple[str | None, str | None]]]:
    seen: dict[str, int] = {}
    chunk: list[tuple[str | None, str | None]] = []
    for rec in records:
        doc_id = rec.id
        if doc_id in seen:
            if policy == "error":
                raise InputError(
                    f"duplicate id {doc_id!r}: ids must be unique, or pass --duplicate-ids suffix to "
                    "rename repeats id#2, id#3, ...",
                    source=rec.source or None,
                    line=rec.line or None,
                )
            n = seen[doc_id]
            while f"{doc_id}#{n}" in seen or n < 2:  # a suffixed id may collide with a real one
                n += 1
            seen[doc_id] = n
            doc_id = f"{doc_id}#{n}"
        seen[doc_id] = 1
        ids.append(doc_id)
        chunk.append((rec.text, rec.html))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def fingerprint_records(
    records: Iterable[Record],
    config: DedupConfig,
    *,
    simhash: bool | None = None,
    nshash: bool | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> Fingerprints:
    """Fingerprint a stream of records with ``config.n_workers`` processes.

    ``simhash``/``nshash`` default to what ``config.method`` needs (an index build wants both).
    ``on_chunk(n)`` is called after each chunk of ``n`` documents (progress).
    """
    use_sim = config.uses_simhash if simhash is None else simhash
    use_ns = config.uses_nshash if nshash is None else nshash
    ids: list[str] = []
    parts: list[ChunkOut] = []
    chunks = _chunks(records, config.chunk_size, ids, config.duplicate_ids)
    workers = config.n_workers
    _setup(config, use_sim, use_ns)  # load once here; forked workers inherit it
    if workers <= 1:
        for chunk in chunks:
            parts.append(_work(chunk))
            if on_chunk:
                on_chunk(len(chunk))
    else:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        with ctx.Pool(workers, initializer=_pool_init, initargs=(config, use_sim, use_ns)) as pool:
            pending: deque[Any] = deque()
            for chunk in chunks:
                pending.append((len(chunk), pool.apply_async(_work, (chunk,))))
                while len(pending) > 2 * workers:  # bounded: a few chunks of text in flight
                    n, res = pending.popleft()
                    parts.append(res.get())
                    if on_chunk:
                        on_chunk(n)
            while pending:
                n, res = pending.popleft()
                parts.append(res.get())
                if on_chunk:
                    on_chunk(n)
    return _assemble(ids, parts, use_sim)


def _assemble(ids: list[str], parts: list[ChunkOut], use_sim: bool) -> Fingerprints:
    if not parts:
        return Fingerprints(ids=ids)
    counts = np.concatenate([p[3] for p in parts])
    return Fingerprints(
        ids=ids,
        simhash=np.concatenate([p[0] for p in parts if p[0] is not None])
        if use_sim
        else np.empty(0, np.uint64),
        exact=np.concatenate([p[1] for p in parts]),
        ns_hash=np.concatenate([p[2] for p in parts]).astype(np.uint64),
        ns_doc=np.repeat(np.arange(counts.size, dtype=np.int64), counts),
    )


def fingerprint_texts(
    texts: Sequence[str], config: DedupConfig | None = None, *, ids: Sequence[str] | None = None
) -> Fingerprints:
    """Fingerprint in-memory texts (ids default to "0", "1", ...).

    >>> len(fingerprint_texts(["一", "二"], DedupConfig(workers=1)))
    2
    """
    cfg = config or DedupConfig()
    names = list(ids) if ids is not None else [str(i) for i in range(len(texts))]
    recs = (Record(id=i, text=t) for i, t in zip(names, texts, strict=False))
    return fingerprint_records(recs, cfg)


def default_workers() -> int:
    return os.cpu_count() or 1
