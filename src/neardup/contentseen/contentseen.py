"""ContentSeen: was this fetched page's content seen before? (seed 003; the kinds of seed 004)

Every page a crawler downloads passes ``check``; the verdict says ``new`` or which kind of
duplicate of which earlier document, and why. See docs/contentseen.md for the exact decision order.

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
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from neardup.config import SimHashConfig
from neardup.contentseen.extract import (
    check_extractor,
    decode_html,
    extract_main_text,
    layout_features,
    layout_signature,
    normalize_html,
)
from neardup.contentseen.verdict import KINDS, Verdict
from neardup.exceptions import ConfigError, FormatError, InputError, StoreError
from neardup.fingerprint.hashing import get_hash64
from neardup.fingerprint.nshash import DEFAULT_MIN_SENTENCE_CHARS, longest_sentences, sentence_hashes
from neardup.fingerprint.simhash import SimHasher, hamming
from neardup.index import HammingIndex
from neardup.stores import KeyValueStore, open_store
from neardup.stores.journal import Journal, header_bytes

__all__ = ["ContentSeen", "PageAnalysis"]

FORMAT = "neardup.contentseen"
VERSION = 2  # 2: framed, checksummed journal records (1: JSON lines)
_HEADER = "contentseen.json"
_WAL = "docs.wal"
_INDEX = "index.hx"
_LOCK = ".lock"
_JOURNAL_KIND = "contentseen.docs"
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
# exact and content keys live in the same key map as the sentence keys, XORed into their own space
_NS_RAW = 0x9E3779B97F4A7C15
_NS_TEXT = 0xC2B2AE3D27D4EB4F
_TOP_FEATURES = 10  # shared features listed in a verdict's reasons


@dataclass(slots=True)
class _Doc:
    """What is remembered of one added page (one WAL line)."""

    id: int
    url: str
    kind: str
    root: int  # first document of its group: itself when it was new
    fp: int
    layout: int | None
    raw: int
    text: int
    sents: tuple[int, ...]
    ts: float
    members: list[int] | None = None  # later documents of its group (roots only)

    def record(self) -> bytes:
        return (
            orjson.dumps(
                {
                    "i": self.id,
                    "u": self.url,
                    "k": self.kind,
                    "r": self.root,
                    "f": self.fp,
                    "l": self.layout,
                    "h": self.raw,
                    "t": self.text,
                    "s": list(self.sents),
                    "ts": self.ts,
                }
            )
            + b"\n"
        )

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> _Doc:
        return cls(
            d["i"],
            d["u"],
            d["k"],
            d["r"],
            d["f"],
            d["l"],
            d["h"],
            d["t"],
            tuple(d["s"]),
            d["ts"],
        )


@dataclass(slots=True)
class PageAnalysis:
    """What ContentSeen reads from one page, before it looks at what it has seen.

    It depends only on the page and the settings, not on the state, so it can be computed in
    another process (the service does, in a pool) and handed to :meth:`ContentSeen.check_analysed`.
    ``complete`` is False while ``check`` computes it lazily (an exact copy needs only ``raw``).
    """

    raw: int  # xxh3 of the whitespace-collapsed HTML (or of the text when there is no HTML)
    text: str = ""  # main text
    text_key: int | None = None  # xxh3 of the whitespace-collapsed main text
    fp: int | None = None  # main-text SimHash
    layout: int | None = None  # template signature (HTML only)
    sent_keys: list[int] = field(default_factory=list)  # nshash keys of the longest sentences
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
        max_distance: SimHash bits within which main texts are ``near`` duplicates (k, 0..8).
        config: how main text becomes a SimHash (``SimHashConfig()``: jieba words, TF-IDF).
        extractor: main-text extractor: resiliparse (default), trafilatura, readability, justext.
        layout_distance: template signatures within this many bits count as the same template.
        nshash_n, min_sentence_chars, nshash_hash: nshash's settings (n longest sentences).
        min_shared: longest-sentence hashes two pages must share to be ``layout``/``partial``
            duplicates (fewer when a page has fewer sentences).
        min_near_chars: main texts shorter than this are not compared by SimHash (few features
            make SimHash collide); exact and content checks still apply.
        nshash_store: a store URL (``redis://host:6379/0?prefix=cs``) holding the exact, content and
            sentence-hash maps, shared by every ContentSeen using it; default: kept with the state.
        fsync: fsync the journal after every added page (default: an acknowledged page survives
            power loss; about 0.4 ms per add here); False only writes it (survives a crash of the
            process, not of the machine).
        explain: list the heaviest shared SimHash features in a duplicate's reasons (costs one
            more feature extraction per duplicate; shared sentences are always listed).

    ``check`` is thread-safe (one lock). Every page added is written to the journal
    (``docs.wal``) before ``check`` returns, so an acknowledged page survives a crash; ``flush``
    also saves the Hamming index so the next start need not rebuild it.
    """

    def __init__(
        self,
        state: str | os.PathLike[str] | None = "memory://",
        max_distance: int = 3,
        *,
        config: SimHashConfig | None = None,
        extractor: str = "resiliparse",
        layout_distance: int = 10,
        nshash_n: int = 5,
        min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
        nshash_hash: str = "md5",
        min_shared: int = 2,
        min_near_chars: int = 50,
        nshash_store: str | KeyValueStore | None = None,
        fsync: bool = True,
        explain: bool = True,
    ) -> None:
        self.max_distance = _check_int(
            "max_distance", max_distance, 0, 8, "; 3 is usual for 64-bit SimHash of web pages"
        )
        self.layout_distance = _check_int("layout_distance", layout_distance, 0, 32)
        self.nshash_n = _check_int("nshash_n", nshash_n, 1, 255)
        self.min_sentence_chars = _check_int("min_sentence_chars", min_sentence_chars, 0, 10_000)
        self.min_shared = _check_int("min_shared", min_shared, 1, 255)
        self.min_near_chars = _check_int("min_near_chars", min_near_chars, 0, 1_000_000)
        self.config = config if config is not None else SimHashConfig()
        if not isinstance(self.config, SimHashConfig):
            raise ConfigError(f"config must be a SimHashConfig, got {type(config).__name__}")
        check_extractor(extractor)
        self.extractor = extractor
        self.nshash_hash = nshash_hash
        self._sent_hash = get_hash64(nshash_hash)
        self._h64 = get_hash64("xxh3")
        self.fsync = bool(fsync)
        self.explain = bool(explain)
        self._hasher = SimHasher(self.config)
        self._settings_key = f"{self._h64(orjson.dumps(self._settings(), option=orjson.OPT_SORT_KEYS)):016x}"
        self._lock = threading.RLock()
        self._analysis_lock = threading.Lock()
        self._closed = False
        self._docs: dict[int, _Doc] = {}
        self._last_id = 0
        self._kinds: Counter[str] = Counter()
        self._checks = 0

        self.path: Path | None = self._parse_state(state)
        self._shared = nshash_store is not None
        # the key maps: a shared store (Redis) when given, else a dict rebuilt from the journal
        self._kv: KeyValueStore | _LocalKeys = (
            open_store(nshash_store) if nshash_store is not None else _LocalKeys()
        )
        self._index = HammingIndex(
            self.config.bits, self.max_distance, metadata={"simhash": self.config.to_dict()}
        )
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
        return {
            "simhash": self.config.to_dict(),
            "extractor": self.extractor,
            "nshash": {
                "n": self.nshash_n,
                "hash": self.nshash_hash,
                "min_sentence_chars": self.min_sentence_chars,
            },
        }

    def analyser_settings(self) -> dict[str, Any]:
        """The settings that shape :meth:`analyse`: ``ContentSeen(None, **these).analyse(...)``, in
        any process, gives analyses this ContentSeen accepts (all values pickle)."""
        return {
            "config": self.config,
            "extractor": self.extractor,
            "nshash_n": self.nshash_n,
            "min_sentence_chars": self.min_sentence_chars,
            "nshash_hash": self.nshash_hash,
        }

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
                    f"{header} is version {meta['version']} (a journal without checksums); this neardup "
                    f"reads version {VERSION}: convert it once with "
                    f"`python -m neardup.contentseen.upgrade {path}`"
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
            index = HammingIndex.open(index_path)
            if index.metadata.get("simhash") != self.config.to_dict():
                raise ConfigError(f"{index_path} was built with another SimHash configuration")
            self._index = index
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
        ids: list[int] = []
        fps: list[int] = []
        pending: dict[int, int] = {}  # key -> first document, put into the key map in one batch
        for seq, payload in journal.replay():
            try:
                doc = _Doc.from_record(orjson.loads(payload))
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise FormatError(
                    f"{journal.path}: record {seq} has a valid checksum but is not a document ({exc})"
                ) from None
            # unshared ids are the journal's own numbering; shared ones come from the store's counter
            if not self._shared and doc.id != seq + 1:
                raise FormatError(
                    f"{journal.path}: record {seq} holds document {doc.id}, expected {seq + 1}: "
                    "the journal's ids are not contiguous; restore it from a backup"
                )
            self._remember(doc, put_keys=False)
            if not self._shared:
                for k in self._keys_of(doc):
                    pending.setdefault(k, doc.id)
            if doc.kind not in ("exact", "content") and doc.id > self._indexed_upto:
                ids.append(doc.id)
                fps.append(doc.fp)
        if pending:
            keys = list(pending)
            have = self._kv.get_many(keys)
            self._kv.put_many([(k, pending[k]) for k, v in zip(keys, have, strict=True) if v is None])
        if ids:
            import numpy as np

            self._index.add_many(np.array(ids, np.int64), np.array(fps, np.uint64))

    # -- bookkeeping -------------------------------------------------------------------------
    def _remember(self, doc: _Doc, *, put_keys: bool) -> None:
        self._docs[doc.id] = doc
        self._last_id = max(self._last_id, doc.id)
        self._kinds[doc.kind] += 1
        root = self._docs.get(doc.root)
        if root is not None and doc.root != doc.id:
            if root.members is None:
                root.members = []
            root.members.append(doc.id)
        if put_keys:
            keys = self._keys_of(doc)
            have = self._kv.get_many(keys)
            new = [(k, doc.id) for k, v in zip(keys, have, strict=False) if v is None]
            if new:
                self._kv.put_many(new)

    @staticmethod
    def _keys_of(doc: _Doc) -> list[int]:
        """The key-map entries of a document: its exact key, and unless it is an exact copy its
        content key and sentence keys (int keys; the namespaces differ by a XOR constant)."""
        keys = [doc.raw ^ _NS_RAW]
        if doc.kind != "exact":
            keys.append(doc.text ^ _NS_TEXT)
            keys.extend(doc.sents)
        return keys

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

    def _probe(self, html: str | None, text: str | None) -> PageAnalysis:
        if html is not None:
            probe = PageAnalysis(raw=self._h64(normalize_html(html).encode("utf-8", "surrogatepass")))
        else:
            assert text is not None
            # text only: "exact" is the same text as given, "content" the same text whitespace aside
            probe = PageAnalysis(raw=self._h64(b"text:" + text.strip().encode("utf-8", "surrogatepass")))
        return probe

    def _analyse(self, probe: PageAnalysis, html: str | None, text: str | None) -> None:
        if probe.complete:
            return
        with self._analysis_lock:
            if text is None:
                assert html is not None
                text = extract_main_text(html, self.extractor)
            probe.text = text
            # whitespace-collapsed text: cheap, and what "the same main text" means; case, width and
            # Unicode-form variants are caught as near duplicates at distance 0
            norm = " ".join(text.split())
            if norm:
                probe.text_key = self._h64(norm.encode("utf-8", "surrogatepass"))
                probe.fp = self._hasher.fingerprint(text)
                # nshash's own keys (the same as NSHash.get_nshash); the sentences themselves are
                # read again only to explain a duplicate
                probe.sent_keys = sentence_hashes(
                    text, self.nshash_n, self.nshash_hash, self.min_sentence_chars
                )

    def _layout(self, probe: PageAnalysis, html: str | None) -> int | None:
        if probe.complete or html is None:
            return probe.layout
        if probe.layout is None:
            feats = layout_features(html)
            probe.layout = layout_signature(feats, bits=64) if feats else None
        return probe.layout

    def analyse(self, html: str | bytes | None = None, text: str | None = None) -> PageAnalysis:
        """Everything ``check`` reads from a page, without touching the state (any thread or process).

        ``check(url, html)`` is ``check_analysed(url, analyse(html))``; splitting the two lets the
        costly, stateless part (main-text extraction, segmentation, SimHash, layout) run in worker
        processes while one process owns the state, as ``neardup serve`` does.

        >>> cs = ContentSeen("memory://")
        >>> a = cs.analyse(text="长江是中华民族的母亲河，也是中华民族发展的重要支撑。")
        >>> cs.check_analysed("https://a.example/1", a).kind
        'new'
        """
        page = self._page_of(html, text)
        probe = self._probe(page, text)
        self._analyse(probe, page, text)
        self._layout(probe, page)
        if probe.text:
            probe.sents = longest_sentences(probe.text, self.nshash_n, self.min_sentence_chars)
        probe.settings = self._settings_key
        probe.complete = True
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
                "this analysis was made with other settings (SimHash, extractor or nshash) than "
                "this ContentSeen's; analyse pages with a ContentSeen of the same settings"
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
        if hit is not None:
            return self._finish(url, "exact", hit, probe, page, add, sync)
        self._analyse(probe, page, text)
        if probe.text_key is not None:
            hit = self._kv.get(probe.text_key ^ _NS_TEXT)
            if hit is not None:
                return self._finish(url, "content", hit, probe, page, add, sync)
        if probe.fp is not None and len(probe.text) >= self.min_near_chars:
            found = self._index.query(probe.fp, self.max_distance)
            if found:
                best_id, _ = min(found, key=lambda x: (x[1], self._root_of(x[0]), x[0]))
                return self._finish(url, "near", best_id, probe, page, add, sync)
        similar = self._similar(probe)
        if similar is not None:
            other, shared = similar
            need = min(self.min_shared, len(probe.sent_keys))
            if shared >= need:
                mine = self._layout(probe, page)
                doc = self._docs.get(other)
                same_template = (
                    mine is not None
                    and doc is not None
                    and doc.layout is not None
                    and hamming(mine, doc.layout) <= self.layout_distance
                )
                kind = "layout" if same_template else "partial"
                return self._finish(url, kind, other, probe, page, add, sync)
        return self._finish(url, "new", None, probe, page, add, sync)

    def sync(self) -> None:
        """fsync the journal: every page added with ``sync=False`` so far becomes durable.

        Safe to call from another thread while checks go on (it does not hold the lock while the
        disk works), so one fsync can cover the pages of many concurrent requests.
        """
        with self._lock:
            wal = self._wal
        if wal is not None:
            wal.sync()

    def _similar(self, probe: PageAnalysis) -> tuple[int, int] | None:
        """The earliest document sharing most of the page's longest-sentence hashes, and how many."""
        if not probe.sent_keys:
            return None
        hits = self._kv.get_many(probe.sent_keys)
        counts = Counter(self._root_of(h) for h in hits if h is not None)
        if not counts:
            return None
        other, shared = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return other, shared

    def _finish(
        self,
        url: str,
        kind: str,
        other: int | None,
        probe: PageAnalysis,
        page: str | None,
        add: bool,
        sync: bool,
    ) -> Verdict:
        odoc = self._docs.get(other) if other is not None else None
        root = self._root_of(other) if other is not None else None
        rdoc = self._docs.get(root) if root is not None else None
        reasons: dict[str, Any] = {}
        distance = layout_distance = similar_id = None
        if kind == "exact":
            if odoc is not None:
                probe.fp, probe.text_key, probe.layout = odoc.fp, odoc.text, odoc.layout
                probe.sent_keys = list(odoc.sents)
                distance = 0
                layout_distance = 0 if odoc.layout is not None else None
            similar_id = root
            reasons["why"] = f"the same page (HTML equal after collapsing whitespace) as document {root}"
        else:
            sim = self._similar(probe)
            similar_id = sim[0] if sim is not None else None
            if odoc is not None and probe.fp is not None:
                distance = hamming(probe.fp, odoc.fp)
                mine = self._layout(probe, page) if kind in ("layout", "partial", "content", "near") else None
                if mine is not None and odoc.layout is not None:
                    layout_distance = hamming(mine, odoc.layout)
            if kind != "new":
                reasons.update(self._reasons(kind, probe, odoc, other, distance, layout_distance))
        doc_id: int | None = None
        if add:
            doc_id = self._add(url, kind, root, probe, page, sync)
            if similar_id is None and probe.sent_keys:
                similar_id = doc_id
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
        self,
        kind: str,
        probe: PageAnalysis,
        odoc: _Doc | None,
        other: int | None,
        distance: int | None,
        layout_distance: int | None,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if probe.text and not probe.sents:
            probe.sents = longest_sentences(probe.text, self.nshash_n, self.min_sentence_chars)
        if odoc is not None:
            theirs = set(odoc.sents)
            out["shared_sentences"] = [
                s for s in probe.sents if self._sent_hash(s.encode("utf-8", "surrogatepass")) in theirs
            ]
            if self.explain and probe.text:
                # near/content: the texts are (almost) the same, so the heaviest features of the
                # page's longest sentences are shared; layout/partial: those of the shared sentences
                basis = "\n".join(probe.sents if kind in ("content", "near") else out["shared_sentences"])
                if basis:
                    out["shared_features"] = [
                        [f, round(w, 3)] for f, w in self._hasher.features(basis)[:_TOP_FEATURES]
                    ]
        if kind == "content":
            out["why"] = f"the same main text (whitespace aside) as document {other}, in other HTML"
        elif kind == "near":
            out["why"] = (
                f"main-text SimHash {distance} bits from document {other} (max_distance {self.max_distance})"
            )
        else:
            n = len(out.get("shared_sentences", []))
            tmpl = "the same template" if kind == "layout" else "another template"
            lay = f" (layout {layout_distance} bits apart)" if layout_distance is not None else ""
            out["why"] = (
                f"{n} of the page's {len(probe.sent_keys)} longest sentences are in document "
                f"{other}, {tmpl}{lay}"
            )
        return out

    def _add(
        self, url: str, kind: str, root: int | None, probe: PageAnalysis, page: str | None, sync: bool
    ) -> int:
        doc_id = self._kv.incr("contentseen_doc_id") if self._shared else self._last_id + 1
        if kind not in ("exact", "content"):
            self._layout(probe, page)
        doc = _Doc(
            id=doc_id,
            url=url,
            kind=kind,
            root=root if root is not None else doc_id,
            fp=probe.fp or 0,
            layout=probe.layout,
            raw=probe.raw,
            text=probe.text_key or 0,
            sents=tuple(probe.sent_keys),
            ts=round(time.time(), 3),
        )
        if self._wal is not None:
            # a failed write is cut back off the journal before the StoreError reaches the caller
            self._wal.append(doc.record(), sync=self.fsync and sync)
        self._remember(doc, put_keys=True)
        if kind not in ("exact", "content") and probe.fp is not None:
            self._index.add(doc_id, probe.fp)
        return doc_id

    # -- inspection --------------------------------------------------------------------------
    def document(self, doc_id: int | str) -> dict[str, Any] | None:
        """What is remembered of one document (None if unknown)."""
        with self._lock:
            doc = self._docs.get(self._as_id(doc_id))
            if doc is None:
                return None
            return {
                "doc_id": doc.id,
                "url": doc.url,
                "kind": doc.kind,
                "duplicate_of": None if doc.root == doc.id else doc.root,
                "cluster": doc.root,
                "fingerprint": f"{doc.fp:016x}",
                "layout": None if doc.layout is None else f"{doc.layout:016x}",
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
                "indexed": len(self._index),
                "state": str(self.path) if self.path else "memory://",
                "shared_store": self._kv.url if self._shared else None,
            }

    def __len__(self) -> int:
        return len(self._docs)

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory://"
        return f"ContentSeen({where!r}, max_distance={self.max_distance}, documents={len(self._docs)})"

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
                self._index.metadata["contentseen_upto"] = self._last_id
                # the high-water mark checked on open: the journal must hold at least this many
                self._index.metadata["contentseen_records"] = self._wal.count if self._wal else 0
                self._index.save(self.path / _INDEX)
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

    # bench/test hook: pre-fill the index with fingerprints of documents not kept here
    def _add_fingerprints(self, ids: Sequence[int] | Any, fps: Sequence[int] | Any) -> None:
        with self._lock:
            self._index.add_many(ids, fps)
