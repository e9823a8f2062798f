"""ContentSeen: was this fetched page's content seen before? (seed 003; the kinds of seed 004)

Every page a crawler downloads passes ``check``; the verdict says ``new`` or which kind of
duplicate of which earlier document, and why. The decision is the match engine's
(``neardup.match``), one page at a time: the same verdict ``neardup dedup`` gives the same pages in
the same order, and ``neardup compare`` gives a pair. See docs/contentseen.md.

>>> cs = ContentSeen("memory://")
>>> html = "<html><body><article><p>" + "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 3 + "</p></article></body></html>"
>>> cs.check("https://a.example/1", html=html).kind
'new'
>>> v = cs.check("https://mirror.example/1", html=html)
>>> v.kind, v.duplicate_of
('exact', 1)
"""

from __future__ import annotations

import copy
import fcntl
import os
import struct
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from neardup.contentseen.extract import check_extractor, decode_html, extract_main_text, layout_signature
from neardup.contentseen.verdict import Verdict
from neardup.exceptions import ConfigError, FormatError, InputError, StoreError
from neardup.fingerprint.hashing import get_hash64
from neardup.fingerprint.nshash import DEFAULT_MIN_SENTENCE_CHARS, longest_sentences
from neardup.fingerprint.simhash import hamming
from neardup.index import HammingIndex
from neardup.match import KINDS as ENGINE_KINDS
from neardup.match import EngineState, Evidence, MatchConfig, Signatures, exact_key, signatures
from neardup.stores import KeyValueStore, open_store
from neardup.stores.journal import Journal, header_bytes

__all__ = ["ContentSeen", "PageAnalysis"]

FORMAT = "neardup.contentseen"
VERSION = 3  # 3: match-engine signatures in the records; 2: framed, checksummed records (1: JSON lines)
_HEADER = "contentseen.json"
_WAL = "docs.wal"
_INDEX = "index.hx"
_LOCK = ".lock"
_JOURNAL_KIND = "contentseen.docs"
# exact and content keys share one key map, XORed into their own spaces
_NS_RAW = 0x9E3779B97F4A7C15
_NS_TEXT = 0xC2B2AE3D27D4EB4F
_SENTENCES = 5  # longest sentences kept per page to show the passage two pages share
_SIG_LEN = struct.Struct("<I")
_ENGINE_KINDS = {"unique": "new"}


@dataclass(slots=True)
class _Doc:
    """What is remembered of one added page (one journal record)."""

    id: int
    url: str
    kind: str
    root: int  # first document of its cluster: itself when it started one
    partner: int | None  # the document its evidence is about (a duplicate's or a partial copy's)
    sig: bytes  # the page's signature (``Signatures.row_bytes``), the journal payload; emptied once
    # the engine holds it (``ContentSeen._signature`` reads it back from there)
    sents: tuple[int, ...]  # hashes of its longest sentences (to show shared passages)
    ts: float
    members: list[int] | None = None  # later documents of its cluster (roots only)

    def record(self) -> bytes:
        meta = orjson.dumps(
            {
                "i": self.id,
                "u": self.url,
                "k": self.kind,
                "r": self.root,
                "p": self.partner,
                "s": list(self.sents),
                "ts": self.ts,
            }
        )
        return _SIG_LEN.pack(len(self.sig)) + self.sig + meta

    @classmethod
    def from_record(cls, payload: bytes | memoryview) -> _Doc:
        data = bytes(payload)
        (n,) = _SIG_LEN.unpack_from(data)
        sig = data[4 : 4 + n]
        d = orjson.loads(data[4 + n :])
        return cls(d["i"], d["u"], d["k"], d["r"], d["p"], sig, tuple(d["s"]), d["ts"])


@dataclass(slots=True)
class PageAnalysis:
    """What ContentSeen reads from one page, before it looks at what it has seen.

    It depends only on the page and the settings, not on the state, so it can be computed in
    another process (the service does, in a pool) and handed to :meth:`ContentSeen.check_analysed`.
    ``complete`` is False while ``check`` computes it lazily (an exact copy needs only ``raw``).
    """

    raw: int  # the exact key: xxh3 of the page (or the text) with whitespace runs collapsed
    text: str = ""  # main text
    sig: bytes = b""  # the match engine's signature of the page (``Signatures.row_bytes``)
    sent_keys: list[int] = field(default_factory=list)  # hashes of the longest sentences
    sents: list[str] = field(default_factory=list)  # those sentences, read only to explain
    settings: str = ""  # which settings made it (see ContentSeen.check_analysed)
    complete: bool = False


class _LocalKeys:
    """The key maps of an unshared ContentSeen: a dict (the journal is what persists them)."""

    url = "local://"

    def __init__(self) -> None:
        self._d: dict[int, int] = {}

    def get(self, key: int) -> int | None:
        return self._d.get(key)

    def get_many(self, keys: Sequence[int]) -> list[int | None]:
        get = self._d.get
        return [get(k) for k in keys]

    def put_many(self, items: Sequence[tuple[int, int]]) -> None:
        self._d.update(items)

    def incr(self, name: str, amount: int = 1) -> int:  # pragma: no cover - shared stores only
        raise NotImplementedError

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def _check_int(name: str, value: object, lo: int, hi: int, hint: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{name} must be an integer between {lo} and {hi}, got {value!r}{hint}")
    return value


class ContentSeen:
    """Decide whether a page's content was seen before, and remember it.

    Args:
        state: a directory (created if missing) holding the state, or ``"memory://"`` / None for
            a throw-away in-memory instance. ``file:///dir`` is the same as ``/dir``.
        match: the match engine's configuration (``MatchConfig()``: the defaults ``neardup dedup``
            uses, chosen in docs/quality.md).
        max_distance: SimHash candidate radius (bits); None: ``match.candidate_distance``. A
            candidate source, not the decision.
        extractor: main-text extractor: resiliparse (default), trafilatura, readability, justext.
        nshash_store: a store URL (``redis://host:6379/0?prefix=cs``) holding the exact and content
            key maps, shared by every ContentSeen using it (a page another service saw is caught as
            exact or content); near, partial and layout checks use this process's documents.
        fsync: fsync the journal after every added page (default: an acknowledged page survives
            power loss); False only writes it (survives a crash of the process, not of the machine).
        explain: list the longest sentences a duplicate shares with its partner in its reasons.

    ``check`` is thread-safe (one lock). Every page added is written to the journal
    (``docs.wal``) before ``check`` returns, so an acknowledged page survives a crash.
    """

    def __init__(
        self,
        state: str | os.PathLike[str] | None = "memory://",
        max_distance: int | None = None,
        *,
        match: MatchConfig | None = None,
        extractor: str | None = None,
        nshash_store: str | KeyValueStore | None = None,
        fsync: bool = True,
        explain: bool = True,
        **replaced: Any,
    ) -> None:
        if replaced:
            raise ConfigError(
                f"ContentSeen does not take {', '.join(sorted(replaced))} any more: the match engine "
                "decides (pass match=MatchConfig(...); see docs/contentseen.md)"
            )
        cfg = match if match is not None else MatchConfig()
        if not isinstance(cfg, MatchConfig):
            raise ConfigError(f"match must be a MatchConfig, got {type(match).__name__}")
        if max_distance is not None:
            if (
                isinstance(max_distance, bool)
                or not isinstance(max_distance, int)
                or not 0 <= max_distance <= 15
            ):
                raise ConfigError(f"max_distance must be an integer between 0 and 15, got {max_distance!r}")
            cfg = MatchConfig(**{**cfg.to_dict(), "candidate_distance": max_distance})
        if extractor is not None:
            cfg = MatchConfig(**{**cfg.to_dict(), "extractor": extractor})
        check_extractor(cfg.extractor)
        self.match = cfg
        self.max_distance = cfg.candidate_distance
        self.extractor = cfg.extractor
        self.fsync = bool(fsync)
        self.explain = bool(explain)
        self._sent_hash = get_hash64("md5")
        self._h64 = get_hash64("xxh3")
        self._settings_key = f"{self._h64(orjson.dumps(self._settings(), option=orjson.OPT_SORT_KEYS)):016x}"
        self._lock = threading.RLock()
        self._closed = False
        self._docs: dict[int, _Doc] = {}
        self._rows: list[int] = []  # engine row -> document id
        self._row_of: dict[int, int] = {}
        self._last_id = 0
        self._kinds: Counter[str] = Counter()
        self._checks = 0

        self.path: Path | None = self._parse_state(state)
        self._shared = nshash_store is not None
        # the key maps: a shared store (Redis) when given, else a dict rebuilt from the journal
        self._kv: KeyValueStore | _LocalKeys = (
            open_store(nshash_store) if nshash_store is not None else _LocalKeys()
        )
        self._engine = EngineState(cfg)
        # SimHash of every document: the snapshot file's high-water mark, and candidates when
        # match.candidate_distance is set
        self._simhash = HammingIndex(64, cfg.candidate_distance if cfg.candidate_distance is not None else 3)
        self._indexed_upto = 0
        self._wal: Journal | None = None
        self._lockfd: int | None = None
        if self.path is not None:
            self._open_dir(self.path)

    # -- opening -----------------------------------------------------------------------------
    @staticmethod
    def _parse_state(state: str | os.PathLike[str] | None) -> Path | None:
        if state is None:
            return None
        s = os.fspath(state)
        if s == "memory://" or s == "memory":
            return None
        if s.startswith("file://"):
            s = s[len("file://") :]
        elif "://" in s:
            raise ConfigError(
                f"state must be a directory path, file:///dir or memory://, got {s!r}; to share the "
                "exact/content/sentence maps through Redis pass nshash_store='redis://...'"
            )
        if not s:
            raise ConfigError("state must name a directory, got an empty path")
        return Path(s)

    def _settings(self) -> dict[str, Any]:
        return {"match": self.match.signature_settings()}

    def analyser_settings(self) -> dict[str, Any]:
        """The settings that shape :meth:`analyse`: ``ContentSeen(None, **these).analyse(...)``, in
        any process, gives analyses this ContentSeen accepts (all values pickle)."""
        return {"match": self.match}

    def _open_dir(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self._lockfd = os.open(path / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lockfd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lockfd)
            self._lockfd = None
            raise StoreError(f"ContentSeen state {path} is open in another process; close it first") from None
        try:
            self._load_dir(path)
        except BaseException:
            # a state that does not open must not stay locked for the life of this process
            if self._wal is not None:
                self._wal.close()
                self._wal = None
            os.close(self._lockfd)
            self._lockfd = None
            self._kv.close()
            raise

    def _load_dir(self, path: Path) -> None:
        header = path / _HEADER
        wal = path / _WAL
        index_path = path / _INDEX
        settings = self._settings()
        if header.exists():
            try:
                meta = orjson.loads(header.read_bytes())
            except orjson.JSONDecodeError as exc:
                raise FormatError(f"{header} is damaged ({exc}); restore it or start a new state") from None
            if (
                not isinstance(meta, dict)
                or meta.get("format") != FORMAT
                or not isinstance(meta.get("version"), int)
            ):
                raise FormatError(f"{header} is not a ContentSeen state header")
            if meta["version"] > VERSION:
                raise FormatError(
                    f"{header} is version {meta['version']}; this neardup reads version {VERSION}: "
                    "upgrade neardup"
                )
            if meta["version"] < VERSION:
                raise FormatError(
                    f"{header} is version {meta['version']}, made before the match engine: its journal "
                    "holds SimHash fingerprints, not the signatures this neardup verifies with; start a "
                    "new state directory and re-add the pages"
                )
            for key, want in settings.items():
                if meta.get(key) != want:
                    raise ConfigError(
                        f"the state in {path} was built with {key}={meta.get(key)!r}, not {want!r}; "
                        "open it with the same settings or use another state directory"
                    )
            if not wal.exists():
                raise FormatError(
                    f"{wal} is missing: the journal of every page added to the state in {path} is "
                    "lost; restore it from a backup, or remove the directory to start a new state"
                )
            self._wal = Journal(wal, kind=_JOURNAL_KIND, create=False)
        else:
            # without its header a state's settings are unknown: never reopen it under the caller's
            left = [
                f.name
                for f in (index_path, wal)
                if f.exists() and (f == index_path or f.stat().st_size > header_bytes(_JOURNAL_KIND))
            ]
            if left:
                raise FormatError(
                    f"{header} is missing but {path} holds a state ({', '.join(left)}): the settings it "
                    "was built with are unknown; restore the header from a backup, or remove the "
                    "directory to start a new state"
                )
            # the journal first, then the header: a header always has its journal beside it
            self._wal = Journal(wal, kind=_JOURNAL_KIND)
            from neardup.io import atomic_write

            with atomic_write(header, join=False) as fh:
                fh.write(
                    orjson.dumps(
                        {"format": FORMAT, "version": VERSION, **settings}, option=orjson.OPT_INDENT_2
                    )
                )
        records_mark = 0
        if index_path.exists():
            # the snapshot of the SimHash index: only its high-water mark is read (the engine's
            # state is rebuilt from the journal, which holds every signature)
            index = HammingIndex.open(index_path)
            self._indexed_upto = int(index.metadata.get("contentseen_upto", 0))
            records_mark = int(index.metadata.get("contentseen_records", 0))
        self._replay(self._wal)
        # the snapshot's high-water mark: the journal must hold at least what the index covers
        if self._wal.count < records_mark or (not self._shared and self._last_id < self._indexed_upto):
            raise FormatError(
                f"{index_path} covers {max(records_mark, self._indexed_upto)} documents but {wal} "
                f"holds {self._wal.count}: the journal was truncated or replaced; restore it from a "
                "backup (opening would reuse ids the index still holds)"
            )

    def _replay(self, journal: Journal) -> None:
        pending: dict[int, int] = {}  # key -> first document, put into the key map in one batch
        for seq, payload in journal.replay():
            try:
                doc = _Doc.from_record(payload)
                sig = Signatures.from_row_bytes(doc.sig, self.match)
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, struct.error) as exc:
                raise FormatError(
                    f"{journal.path}: record {seq} has a valid checksum but is not a document ({exc})"
                ) from None
            # unshared ids are the journal's own numbering; shared ones come from the store's counter
            if not self._shared and doc.id != seq + 1:
                raise FormatError(
                    f"{journal.path}: record {seq} holds document {doc.id}, expected {seq + 1}: "
                    "the journal's ids are not contiguous; restore it from a backup"
                )
            self._remember(doc, sig, put_keys=False)
            if not self._shared:
                for k in self._keys_of(doc, sig):
                    pending.setdefault(k, doc.id)
        if pending:
            keys = list(pending)
            have = self._kv.get_many(keys)
            self._kv.put_many([(k, pending[k]) for k, v in zip(keys, have, strict=True) if v is None])

    # -- bookkeeping -------------------------------------------------------------------------
    def _remember(self, doc: _Doc, sig: Signatures, *, put_keys: bool) -> None:
        self._docs[doc.id] = doc
        self._last_id = max(self._last_id, doc.id)
        self._kinds[doc.kind] += 1
        root = self._docs.get(doc.root)
        if root is not None and doc.root != doc.id:
            if root.members is None:
                root.members = []
            root.members.append(doc.id)
        merged = doc.kind in ("exact", "content", "near") and doc.root in self._row_of
        row = len(self._rows)
        self._engine.record(sig, np.array([self._row_of[doc.root] if merged else row], np.int64))
        self._simhash.add(row, int(sig.simhash[0]))
        self._rows.append(doc.id)
        self._row_of[doc.id] = row
        doc.sig = b""  # the engine's arrays hold it now
        if put_keys:
            keys = self._keys_of(doc, sig)
            have = self._kv.get_many(keys)
            new = [(k, doc.id) for k, v in zip(keys, have, strict=False) if v is None]
            if new:
                self._kv.put_many(new)

    @staticmethod
    def _keys_of(doc: _Doc, sig: Signatures) -> list[int]:
        """The key-map entries of a document: its exact key and, unless it is an exact copy, its
        content key (int keys; the namespaces differ by a XOR constant)."""
        keys = [int(sig.exact[0]) ^ _NS_RAW]
        if doc.kind != "exact" and int(sig.tokens[0]) > 0:
            keys.append(int(sig.content[0]) ^ _NS_TEXT)
        return keys

    def _signature(self, doc_id: int) -> Signatures:
        """The signature of a document added here, as the engine holds it."""
        return self._engine.sigs.take([self._row_of[doc_id]])

    def _root_of(self, doc_id: int) -> int:
        doc = self._docs.get(doc_id)
        return doc.root if doc is not None else doc_id

    # -- the check ---------------------------------------------------------------------------
    @staticmethod
    def _page_of(html: str | bytes | None, text: str | None) -> str | None:
        """Validate what a caller gave and decode the HTML."""
        if html is None and text is None:
            raise InputError("give the page's html or its text (or both), got neither")
        if html is not None and not isinstance(html, (str, bytes)):
            raise InputError(f"html must be str or bytes, got {type(html).__name__}")
        if text is not None and not isinstance(text, str):
            raise InputError(f"text must be a string, got {type(text).__name__}")
        return decode_html(html) if html is not None else None

    @staticmethod
    def _probe(html: str | None, text: str | None) -> PageAnalysis:
        page = html if html is not None else text
        assert page is not None
        return PageAnalysis(raw=exact_key(page))

    def _analyse(self, probe: PageAnalysis, html: str | None, text: str | None) -> None:
        if probe.complete:
            return
        if text is None:
            assert html is not None
            text = extract_main_text(html, self.extractor)
        probe.text = text
        layout = (layout_signature(html) or None) if html is not None else None
        sig = signatures([text], self.match, raw=[html if html is not None else text], layouts=[layout])
        probe.sig = sig.row_bytes(0)
        probe.sents = longest_sentences(text, _SENTENCES, DEFAULT_MIN_SENTENCE_CHARS) if text else []
        probe.sent_keys = [self._sent_hash(x.encode("utf-8", "surrogatepass")) for x in probe.sents]
        probe.settings = self._settings_key
        probe.complete = True

    def analyse(self, html: str | bytes | None = None, text: str | None = None) -> PageAnalysis:
        """Everything ``check`` reads from a page, without touching the state (any thread or process).

        ``check(url, html)`` is ``check_analysed(url, analyse(html))``; splitting the two lets the
        costly, stateless part (main-text extraction, signature, layout) run in worker processes
        while one process owns the state, as ``neardup serve`` does.

        >>> cs = ContentSeen("memory://")
        >>> a = cs.analyse(text="长江是中华民族的母亲河，也是中华民族发展的重要支撑。")
        >>> cs.check_analysed("https://a.example/1", a).kind
        'new'
        """
        page = self._page_of(html, text)
        probe = self._probe(page, text)
        self._analyse(probe, page, text)
        return probe

    def check(
        self,
        url: str,
        html: str | bytes | None = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
    ) -> Verdict:
        """The verdict on one fetched page; with ``add`` (default) the page is remembered.

        Give ``html`` (the page as fetched; bytes are decoded by their declared or detected
        encoding), or ``text`` (main text you extracted), or both (``text`` is then used as the
        main text and ``html`` for the exact and layout checks). With ``sync=False`` an added page
        is written to the journal but not fsynced: call :meth:`sync` before you acknowledge it
        (one fsync for many pages: group commit).
        """
        if not isinstance(url, str):
            raise InputError(f"url must be a string, got {type(url).__name__}")
        page = self._page_of(html, text)
        probe = self._probe(page, text)
        with self._lock:
            return self._decide(url, probe, page, text, add, sync)

    def check_analysed(
        self, url: str, analysis: PageAnalysis, add: bool = True, *, sync: bool = True
    ) -> Verdict:
        """The verdict on a page analysed by :meth:`analyse` (of a ContentSeen with these settings)."""
        if not isinstance(url, str):
            raise InputError(f"url must be a string, got {type(url).__name__}")
        if not isinstance(analysis, PageAnalysis) or not analysis.complete:
            raise InputError("analysis must be a PageAnalysis made by ContentSeen.analyse")
        if analysis.settings != self._settings_key:
            raise ConfigError(
                "this analysis was made with other signature settings (shingle, sketch, numbers, "
                "extractor) than this ContentSeen's; analyse pages with a ContentSeen of the same settings"
            )
        probe = copy.copy(analysis)
        with self._lock:
            return self._decide(url, probe, None, None, add, sync)

    def _decide(
        self, url: str, probe: PageAnalysis, page: str | None, text: str | None, add: bool, sync: bool
    ) -> Verdict:
        self._live()
        self._checks += 1
        hit = self._kv.get(probe.raw ^ _NS_RAW)
        if hit is not None and hit in self._docs:
            # the same page: its signature is the earlier page's, no extraction needed
            same = self._signature(hit)
            probe.sig, probe.sent_keys = same.row_bytes(0), list(self._docs[hit].sents)
            rep = self._root_of(hit)
            return self._finish(url, "exact", rep, hit, None, probe, add, sync, sig=same)
        self._analyse(probe, page, text)
        sig = Signatures.from_row_bytes(probe.sig, self.match)
        if hit is not None:  # known to a shared store only: another service saw this page
            return self._finish(url, "exact", hit, hit, None, probe, add, sync, sig=sig)
        if self._shared and int(sig.tokens[0]) > 0:
            other_id = self._kv.get(int(sig.content[0]) ^ _NS_TEXT)
            if other_id is not None and other_id not in self._docs:
                return self._finish(url, "content", other_id, other_id, None, probe, add, sync, sig=sig)
        extra = None
        if self.match.candidate_distance is not None and len(self._simhash):
            near = [i for i, _ in self._simhash.query(int(sig.simhash[0]))]
            extra = (np.array([0, len(near)], np.int64), np.array(near, np.int64))
        out = self._engine.run(sig, add=False, extra=extra)
        engine_kind = ENGINE_KINDS[int(out["kind"][0])]
        kind = _ENGINE_KINDS.get(engine_kind, engine_kind)
        if kind == "new":
            return self._finish(url, "new", None, None, None, probe, add, sync, sig=sig)
        partner = self._rows[int(out["partner"][0])]
        merges = kind in ("exact", "content", "near")
        root = self._rows[int(out["rep"][0])] if merges else self._root_of(partner)
        ev = Evidence(
            kind=kind,
            similarity=float(out["similarity"][0]),
            containment=(float(out["containment"][0, 0]), float(out["containment"][0, 1])),
            number_conflicts=int(out["conflicts"][0]),
            numbers_aligned=int(out["aligned"][0]),
            hamming=int(out["hamming"][0]),
        )
        return self._finish(url, kind, root, partner, ev, probe, add, sync, sig=sig)

    def sync(self) -> None:
        """fsync the journal: every page added with ``sync=False`` so far becomes durable.

        Safe to call from another thread while checks go on (it does not hold the lock while the
        disk works), so one fsync can cover the pages of many concurrent requests.
        """
        with self._lock:
            wal = self._wal
        if wal is not None:
            wal.sync()

    def _finish(
        self,
        url: str,
        kind: str,
        root: int | None,
        partner: int | None,
        ev: Evidence | None,
        probe: PageAnalysis,
        add: bool,
        sync: bool,
        *,
        sig: Signatures | None = None,
    ) -> Verdict:
        if sig is None:
            sig = Signatures.from_row_bytes(probe.sig, self.match)
        rdoc = self._docs.get(root) if root is not None else None
        pdoc = self._docs.get(partner) if partner is not None else None
        reasons: dict[str, Any] = {}
        distance = layout_distance = None
        if pdoc is not None:
            other = self._signature(pdoc.id)
            distance = hamming(int(sig.simhash[0]), int(other.simhash[0]))
            if sig.has_layout[0] and other.has_layout[0]:
                layout_distance = hamming(int(sig.layout[0]), int(other.layout[0]))
        if kind == "exact":
            distance = 0 if pdoc is not None else None
            reasons["why"] = f"the same page (whitespace aside) as document {partner}"
        elif kind != "new":
            reasons.update(self._reasons(kind, probe, pdoc, partner, ev))
        doc_id: int | None = None
        if add:
            doc_id = self._add(url, kind, root, partner, probe, sig, sync)
        similar_id = root if root is not None else doc_id
        if partner is not None and kind in ("partial", "layout"):
            reasons["related_to"] = partner
        return Verdict(
            kind=kind,  # type: ignore[arg-type]
            doc_id=doc_id,
            duplicate_of=root,
            distance=distance,
            similar_id=similar_id,
            layout_distance=layout_distance,
            url=url,
            duplicate_url=rdoc.url if rdoc is not None else None,
            reasons=reasons,
        )

    def _reasons(
        self, kind: str, probe: PageAnalysis, pdoc: _Doc | None, partner: int | None, ev: Evidence | None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if ev is not None:
            out.update(ev.to_dict())
        if self.explain and pdoc is not None:
            theirs = set(pdoc.sents)
            out["shared_sentences"] = [
                x for x, h in zip(probe.sents, probe.sent_keys, strict=False) if h in theirs
            ]
        if kind == "content":
            out["why"] = f"the same main text (punctuation, spacing and width aside) as document {partner}"
        elif kind == "near" and ev is not None:
            out["why"] = (
                f"similar main text to document {partner}: similarity {ev.similarity:.2f}, containment "
                f"{max(ev.containment):.2f}, {ev.number_conflicts} conflicting of {ev.numbers_aligned} "
                "numbers in place"
            )
        elif ev is not None:
            tmpl = "the same template" if kind == "layout" else "another template"
            out["why"] = (
                f"a passage shared with document {partner} ({max(ev.containment):.0%} of the shorter "
                f"one), {tmpl}; "
                "reported, not a duplicate"
            )
        return out

    def _add(
        self,
        url: str,
        kind: str,
        root: int | None,
        partner: int | None,
        probe: PageAnalysis,
        sig: Signatures,
        sync: bool,
    ) -> int:
        doc_id = self._kv.incr("contentseen_doc_id") if self._shared else self._last_id + 1
        merges = kind in ("exact", "content", "near") and root is not None
        doc = _Doc(
            id=doc_id,
            url=url,
            kind=kind,
            root=root if merges and root is not None else doc_id,
            partner=partner,
            sig=probe.sig,
            sents=tuple(probe.sent_keys),
            ts=round(time.time(), 3),
        )
        if self._wal is not None:
            # a failed write is cut back off the journal before the StoreError reaches the caller
            self._wal.append(doc.record(), sync=self.fsync and sync)
        self._remember(doc, sig, put_keys=True)
        return doc_id

    # -- inspection --------------------------------------------------------------------------
    def document(self, doc_id: int | str) -> dict[str, Any] | None:
        """What is remembered of one document (None if unknown)."""
        with self._lock:
            doc = self._docs.get(self._as_id(doc_id))
            if doc is None:
                return None
            sig = self._signature(doc.id)
            return {
                "doc_id": doc.id,
                "url": doc.url,
                "kind": doc.kind,
                "duplicate_of": None if doc.root == doc.id else doc.root,
                "related_to": doc.partner if doc.kind in ("partial", "layout") else None,
                "cluster": doc.root,
                "fingerprint": f"{int(sig.simhash[0]):016x}",
                "layout": f"{int(sig.layout[0]):016x}" if sig.has_layout[0] else None,
                "added": doc.ts,
            }

    def duplicates(self, doc_id: int | str) -> dict[str, Any]:
        """A document, its group (``cluster``: the first document seen) and the group's members.

        Raises InputError for an unknown id.
        """
        with self._lock:
            did = self._as_id(doc_id)
            doc = self._docs.get(did)
            if doc is None:
                raise InputError(f"no document with id {doc_id!r} was added")
            root = self._docs.get(doc.root, doc)
            members = [root.id, *(root.members or ())]
            return {
                **(self.document(did) or {}),
                "duplicates": [self.document(m) for m in members if m != did],
            }

    @staticmethod
    def _as_id(doc_id: int | str) -> int:
        try:
            return int(doc_id)
        except (TypeError, ValueError):
            raise InputError(f"document ids are integers, got {doc_id!r}") from None

    def stats(self) -> dict[str, Any]:
        """Counts: checks, documents added by kind, fingerprints indexed."""
        with self._lock:
            return {
                "checks": self._checks,
                "documents": len(self._docs),
                "kinds": dict(self._kinds),
                "indexed": self._engine.n,
                "state": str(self.path) if self.path else "memory://",
                "shared_store": self._kv.url if self._shared else None,
            }

    def __len__(self) -> int:
        return len(self._docs)

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory://"
        return f"ContentSeen({where!r}, documents={len(self._docs)})"

    # -- lifecycle ---------------------------------------------------------------------------
    def _live(self) -> None:
        if self._closed:
            raise StoreError("this ContentSeen is closed; open a new one on the same state")

    def flush(self) -> None:
        """Make every added page durable (fsync the journal) and save the Hamming index."""
        with self._lock:
            self._live()
            if self._wal is not None:
                self._wal.sync()
            self._kv.flush()
            if self.path is not None:
                index = self._simhash
                index.metadata["contentseen_upto"] = self._last_id
                # the high-water mark checked on open: the journal must hold at least this many
                index.metadata["contentseen_records"] = self._wal.count if self._wal else 0
                index.save(self.path / _INDEX)
                self._indexed_upto = self._last_id

    def close(self) -> None:
        """Flush and release the state (idempotent)."""
        with self._lock:
            if self._closed:
                return
            try:
                self.flush()
            finally:
                self._closed = True
                if self._wal is not None:
                    self._wal.close()
                    self._wal = None
                self._kv.close()
                if self._lockfd is not None:
                    os.close(self._lockfd)
                    self._lockfd = None

    def __enter__(self) -> ContentSeen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
