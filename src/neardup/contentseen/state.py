"""ContentSeen's state: the documents, the engine's rows, the key map and the state directory.

A state directory (:class:`~neardup.stores.statedir.StateDir`) holds the header
(``contentseen.json``: format, version 4, the signature settings), the journal (``docs.wal``: one
:class:`~neardup.contentseen.records.DocRecord` per added page, the source of truth) and a snapshot
of the SimHash index (``index.hx``) whose metadata is a high-water mark: the journal must hold at
least the documents the snapshot covers. Opening replays the journal into the match engine. A
version 3 directory (records without dates) is read, its documents' days unknown, and carries on at
version 4.

The key map (exact and content keys -> first document) is a store from ``neardup.stores``: a
``memory://`` store rebuilt from the journal, or a shared store (Redis) that other processes fill too.

>>> st = DocState(MatchConfig(), None, None)
>>> len(st.docs), st.next_id()
(0, 1)
"""

from __future__ import annotations

import struct
import time
from collections import Counter
from pathlib import Path

import numpy as np
import orjson

from neardup.contentseen.decision import JOINING
from neardup.contentseen.records import DocRecord, PageAnalysis, keys_of
from neardup.exceptions import FormatError
from neardup.index import HammingIndex
from neardup.match import EngineState, MatchConfig, Signatures
from neardup.match.dates import NO_DAY
from neardup.stores import KeyValueStore, open_store
from neardup.stores.durability import Durability, Flusher
from neardup.stores.journal import Journal
from neardup.stores.statedir import StateDir

__all__ = ["FORMAT", "VERSION", "DocState"]

FORMAT = "neardup.contentseen"
VERSION = 4  # 4: records carry the page's day; 3: match-engine signatures in the records;
# 2: framed, checksummed records (1: JSON lines)
_OLDEST = 3  # the oldest version still read (its days are unknown)
_INDEX = "index.hx"
_TOO_OLD = (
    "made before the match engine: its journal holds SimHash fingerprints, not the signatures this "
    "neardup verifies with; start a new state directory and re-add the pages"
)


class DocState:
    """The documents added so far, in the engine and the key map; persisted when ``path`` is set,
    with the journal synced as ``durability`` says (``neardup.stores.durability``)."""

    def __init__(
        self,
        match: MatchConfig,
        path: Path | None,
        store: str | KeyValueStore | None,
        durability: Durability = "always",
        header: dict[str, str] | None = None,
    ) -> None:
        self.match = match
        self.header = dict(header or {})  # more settings the state directory's header must hold
        self.durability = durability
        self.path = path
        self.shared = store is not None
        self.kv: KeyValueStore = open_store(store if store is not None else "memory://")
        self.docs: dict[int, DocRecord] = {}
        self.kinds: Counter[str] = Counter()
        self.rows: list[int] = []  # engine row -> document id
        self._row_of: dict[int, int] = {}
        self.last_id = 0
        self.engine = EngineState(match)
        # SimHash of every document: the snapshot file's high-water mark, and candidates when
        # match.candidate_distance is set
        radius = match.candidate_distance if match.candidate_distance is not None else 3
        self.simhash = HammingIndex(64, radius)
        self.dir: StateDir | None = None
        self.flusher: Flusher | None = None
        if path is not None:
            self._open(path)
            if durability == "everysec" and self.dir is not None and self.dir.journal is not None:
                self.flusher = Flusher(self.dir.journal)

    # -- opening -----------------------------------------------------------------------------
    def _open(self, path: Path) -> None:
        self.dir = StateDir(
            path,
            format=FORMAT,
            version=VERSION,
            journal_kind="contentseen.docs",
            label="ContentSeen state",
            header="contentseen.json",
            journal="docs.wal",
            derived=(_INDEX,),
            too_old=_TOO_OLD,
            oldest=_OLDEST,
        )
        try:
            journal = self.dir.open({"match": self.match.signature_settings(), **self.header})
            self._load(path, journal)
        except BaseException:
            self.dir.close()
            self.kv.close()
            raise

    def _load(self, path: Path, journal: Journal) -> None:
        indexed_upto = records_mark = 0
        if (path / _INDEX).exists():
            # only the snapshot's high-water mark is read: the engine is rebuilt from the journal,
            # which holds every signature
            index = HammingIndex.open(path / _INDEX)
            indexed_upto = int(index.metadata.get("contentseen_upto", 0))
            records_mark = int(index.metadata.get("contentseen_records", 0))
        self._replay(journal)
        if journal.count < records_mark or (not self.shared and self.last_id < indexed_upto):
            raise FormatError(
                f"{path / _INDEX} covers {max(records_mark, indexed_upto)} documents but "
                f"{journal.path} holds {journal.count}: the journal was truncated or replaced; restore "
                "it from a backup (opening would reuse ids the index still holds)"
            )

    def _replay(self, journal: Journal) -> None:
        pending: dict[int, int] = {}  # key -> first document, put into the key map in one batch
        for seq, payload in journal.replay():
            try:
                doc = DocRecord.from_record(payload)
                sig = Signatures.from_row_bytes(doc.sig, self.match)
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, struct.error) as exc:
                raise FormatError(
                    f"{journal.path}: record {seq} has a valid checksum but is not a document ({exc})"
                ) from None
            # unshared ids are the journal's own numbering; shared ones come from the store's counter
            if not self.shared and doc.id != seq + 1:
                raise FormatError(
                    f"{journal.path}: record {seq} holds document {doc.id}, expected {seq + 1}: "
                    "the journal's ids are not contiguous; restore it from a backup"
                )
            self.remember(doc, sig, put_keys=False)
            if not self.shared:
                for k in keys_of(doc.kind, sig):
                    pending.setdefault(k, doc.id)
        if pending:
            self._put_new(list(pending), pending)

    # -- bookkeeping -------------------------------------------------------------------------
    def remember(self, doc: DocRecord, sig: Signatures, *, put_keys: bool) -> None:
        """Take one document into the engine, the cluster lists and (``put_keys``) the key map."""
        sig.day = np.array([doc.day], np.int32)
        self.docs[doc.id] = doc
        self.last_id = max(self.last_id, doc.id)
        self.kinds[doc.kind] += 1
        root = self.docs.get(doc.root)
        if root is not None and doc.root != doc.id:
            if root.members is None:
                root.members = []
            root.members.append(doc.id)
        merged = doc.kind in JOINING and doc.root in self._row_of
        row = len(self.rows)
        self.engine.record(
            sig,
            np.array([self._row_of[doc.root] if merged else row], np.int64),
            np.array([merged and doc.kind == "supersedes"]),
        )
        self.simhash.add(row, int(sig.simhash[0]))
        self.rows.append(doc.id)
        self._row_of[doc.id] = row
        doc.sig, doc.day = b"", NO_DAY  # the engine's arrays hold them now
        if put_keys:
            keys = keys_of(doc.kind, sig)
            self._put_new(keys, dict.fromkeys(keys, doc.id))

    def _put_new(self, keys: list[int], values: dict[int, int]) -> None:
        """Put the keys the map does not hold yet (the first document keeps a key)."""
        have = self.kv.get_many(keys)
        new = [(k, values[k]) for k, v in zip(keys, have, strict=True) if v is None]
        if new:
            self.kv.put_many(new)

    def next_id(self) -> int:
        """The id of the next added document (a shared store's counter when shared)."""
        return self.kv.incr("contentseen_doc_id") if self.shared else self.last_id + 1

    def add(
        self,
        url: str,
        kind: str,
        root: int | None,
        partner: int | None,
        probe: PageAnalysis,
        sig: Signatures,
        *,
        sync: bool,
        doc_id: int | None = None,
        ts: float | None = None,
    ) -> int:
        """Journal and remember one page; its id. ``sync`` (durability ``always`` only): fsync the
        journal before returning; False leaves it to a later :meth:`sync` (group commit).
        ``doc_id`` and ``ts``: given by a shared log (a fleet), else the next id and now."""
        if doc_id is None:
            doc_id = self.next_id()
        merges = kind in JOINING and root is not None
        doc = DocRecord(
            id=doc_id,
            url=url,
            kind=kind,
            root=root if merges and root is not None else doc_id,
            partner=partner,
            sig=probe.sig,
            sents=tuple(probe.sent_keys),
            ts=round(time.time(), 3) if ts is None else ts,
            day=probe.day,
        )
        if self.dir is not None and self.dir.journal is not None:
            # a failed write is cut back off the journal before the StoreError reaches the caller
            self.dir.journal.append(doc.record(), sync=sync and self.durability == "always")
            if self.flusher is not None:
                self.flusher.notify()
        self.remember(doc, sig, put_keys=True)
        return doc_id

    def signature(self, doc_id: int) -> Signatures:
        """The signature of a document added here, as the engine holds it."""
        return self.engine.sigs.take([self._row_of[doc_id]])

    def root_of(self, doc_id: int) -> int:
        """The cluster root of a document (itself if unknown here)."""
        doc = self.docs.get(doc_id)
        return doc.root if doc is not None else doc_id

    # -- lifetime ----------------------------------------------------------------------------
    def flush(self) -> None:
        """fsync the journal, flush the key map and save the SimHash snapshot."""
        if self.dir is not None:
            self.dir.sync()
        self.kv.flush()
        if self.path is not None:
            meta = self.simhash.metadata
            meta["contentseen_upto"] = self.last_id
            # the high-water mark checked on open: the journal must hold at least this many
            journal = self.dir.journal if self.dir is not None else None
            meta["contentseen_records"] = journal.count if journal is not None else 0
            self.simhash.save(self.path / _INDEX)

    def close(self) -> None:
        """Stop the background fsync, release the journal, the lock and the key map (nothing is
        flushed)."""
        if self.flusher is not None:
            self.flusher.stop()
        if self.dir is not None:
            self.dir.close()
        self.kv.close()
