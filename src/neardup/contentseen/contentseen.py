"""ContentSeen: was this fetched page's content seen before?

Every page a crawler downloads passes ``check``; the verdict says ``new`` or which kind of
duplicate of which earlier document, and why. The decision is the match engine's
(``neardup.match``), one page at a time: the same verdict ``neardup dedup`` gives the same pages in
the same order, and ``neardup compare`` gives a pair. See docs/contentseen.md.

The class composes three parts: the state (:mod:`~neardup.contentseen.state`: documents, journal,
key map), the decision (:mod:`~neardup.contentseen.decision`) and the prose of its reasons
(:mod:`~neardup.contentseen.explain`).

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
import datetime as _dt
import logging
import os
import socket
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from neardup.contentseen.checker import Html, page_html, page_input
from neardup.contentseen.decision import JOINING, Decision, decide
from neardup.contentseen.explain import distances, reasons, shared_sentences
from neardup.contentseen.extract import check_extractor
from neardup.contentseen.fleet import LogEntry, Retention, SharedLog, open_log, trimmed_error
from neardup.contentseen.records import NS_RAW, NS_TEXT, PageAnalysis
from neardup.contentseen.state import FORMAT, VERSION, DocState
from neardup.contentseen.verdict import Verdict
from neardup.exceptions import ConfigError, FormatError, InputError, StoreError
from neardup.fingerprint.hashing import get_hash64
from neardup.fingerprint.nshash import DEFAULT_MIN_SENTENCE_CHARS, longest_sentences
from neardup.match import MatchConfig, Signatures, exact_key, page_signatures
from neardup.match.dates import day_date, day_number, reads_dates
from neardup.stores import KeyValueStore
from neardup.stores.base import Closeable
from neardup.stores.durability import DEFAULT_DURABILITY, Durability, check_durability
from neardup.stores.statedir import parse_state_path

__all__ = ["FORMAT", "VERSION", "ContentSeen", "PageAnalysis"]

_SENTENCES = 5  # longest sentences kept per page to show the passage two pages share
_LOG_BATCH = 512  # log entries read per call while catching up with a fleet
_VERDICTS = 65_536  # verdicts of the latest log entries kept (a retry is answered from them)
log = logging.getLogger("neardup.contentseen")
_STATE_HINT = "; to share the exact/content/sentence maps through Redis pass nshash_store='redis://...'"


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{name} must be an integer between {lo} and {hi}, got {value!r}")
    return value


def _check_state_dir(path: Path) -> None:
    """ConfigError unless ``path`` is a directory or can be made one."""
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "exists and is not one" if p == path else f"is under {str(p)!r}, which is not one"
                raise ConfigError(f"state must be a directory: {str(path)!r} {what}")
            return


def _check_date(date: object) -> None:
    # what the service's model admits, plus the date objects day_number reads
    if date is None or isinstance(date, (str, _dt.date, np.datetime64)):
        return
    if isinstance(date, (int, float, np.integer, np.floating)) and not isinstance(date, bool):
        return
    raise InputError(
        "date must be a str (an ISO date such as 2024-03-01), a datetime or date, Unix seconds or "
        f"milliseconds (int or float), or None; got {type(date).__name__}",
        field="date",
    )


def _configure(match: MatchConfig | None, max_distance: int | None, extractor: str | None) -> MatchConfig:
    """The engine configuration: ``match`` (or the defaults) with the two shortcuts applied."""
    cfg = match if match is not None else MatchConfig()
    if not isinstance(cfg, MatchConfig):
        raise ConfigError(f"match must be a MatchConfig, got {type(match).__name__}")
    if max_distance is not None:
        _check_int("max_distance", max_distance, 0, 15)
        cfg = MatchConfig(**{**cfg.to_dict(), "candidate_distance": max_distance})
    if extractor is not None:
        cfg = MatchConfig(**{**cfg.to_dict(), "extractor": extractor})
    check_extractor(cfg.extractor)
    return cfg


class ContentSeen(Closeable):
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
        durability: when the journal reaches the disk, as Redis's ``appendfsync``: ``"always"``
            (fsync before ``check`` returns: an acknowledged page survives a power cut),
            ``"everysec"`` (default: a background thread fsyncs at most once a second, shared by
            every page added meanwhile; a power cut loses at most the pages of about the last
            second), ``"no"`` (the OS writes the pages back when it likes; ``flush``/``close``
            fsync). At every level a page is written to the journal before ``check`` returns, so a
            crash of the process loses nothing acknowledged. See docs/reliability.md.
        explain: list the longest sentences a duplicate shares with its partner in its reasons.
        fleet: a shared log (``redis://host:6379/0?prefix=job`` or a
            :class:`~neardup.contentseen.fleet.SharedLog`) that makes every ContentSeen on it agree:
            each added page is appended to the log and the verdicts are computed in the log's order,
            so every member gives the same kind, cluster and ``duplicate_url`` (see
            :mod:`neardup.contentseen.fleet`). Documents are numbered by their log entry. The state
            is rebuilt from the log on open; with a ``state`` directory, from the directory (a local
            copy of the entries applied, tagged with the log's epoch), then the entries after them.
            Not with ``nshash_store``.
        store_timeout: seconds one call to the fleet's log may take (StoreError past it).
        retention: how the fleet's log is kept bounded (:class:`~neardup.contentseen.fleet.Retention`:
            a background thread records what this member's state covers durably and trims the log
            below what every live member covers). A member whose state is older than the log's
            first entry is refused (ConfigError): start it from a copy of a live member's directory.

    ``check`` is thread-safe (one lock). A failed background fsync is raised (``StoreError``) by
    the next ``check`` that adds, and by ``sync``/``flush``/``close``: adds are refused until the
    state is reopened.
    """

    def __init__(
        self,
        state: str | os.PathLike[str] | None = "memory://",
        max_distance: int | None = None,
        *,
        match: MatchConfig | None = None,
        extractor: str | None = None,
        nshash_store: str | KeyValueStore | None = None,
        durability: Durability = DEFAULT_DURABILITY,
        explain: bool = True,
        fleet: str | SharedLog | None = None,
        store_timeout: float = 10.0,
        retention: Retention | None = None,
        **replaced: Any,
    ) -> None:
        if "fsync" in replaced:
            raise ConfigError(
                "ContentSeen takes durability='always' | 'everysec' | 'no' instead of fsync "
                "(fsync=True was 'always', fsync=False was 'no'; see docs/contentseen.md)"
            )
        if replaced:
            raise ConfigError(
                f"ContentSeen does not take {', '.join(sorted(replaced))}: the match engine "
                "decides (pass match=MatchConfig(...); see docs/contentseen.md)"
            )
        self.match = _configure(match, max_distance, extractor)
        self.max_distance = self.match.candidate_distance
        self.extractor = self.match.extractor
        self.durability = check_durability(durability)
        self.explain = bool(explain)
        self._sent_hash = get_hash64("md5")
        settings = orjson.dumps(self._settings(), option=orjson.OPT_SORT_KEYS)
        self._settings_key = f"{get_hash64('xxh3')(settings):016x}"
        self._lock = threading.RLock()
        self._closed = False
        self._checks = 0
        self.path: Path | None = parse_state_path(state, hint=_STATE_HINT)
        if self.path is not None:
            _check_state_dir(self.path)
        self._shared = nshash_store is not None
        self._log: SharedLog | None = None
        if fleet is None:
            self._state = DocState(self.match, self.path, nshash_store, self.durability)
            return
        if nshash_store is not None:
            raise ConfigError(
                "a fleet ContentSeen keeps its own key maps, rebuilt from the shared log: pass no "
                "nshash_store with fleet="
            )
        if retention is not None and not isinstance(retention, Retention):
            raise ConfigError(f"retention must be a Retention, got {type(retention).__name__}")
        self._open_fleet(fleet, store_timeout, retention or Retention())

    def _open_fleet(self, fleet: str | SharedLog, store_timeout: float, retention: Retention) -> None:
        self._log = log = open_log(fleet, socket_timeout=store_timeout)
        self.retention = retention
        # a state directory is one member wherever it restarts from; a memory state is one process
        where = os.path.realpath(self.path) if self.path is not None else f"memory:{os.getpid()}:{id(self)}"
        self.member = f"{socket.gethostname()}:{where}"
        self._keeper: threading.Thread | None = None
        self._keeper_stop = threading.Event()
        self._verdicts: OrderedDict[int, Verdict] = OrderedDict()
        # every member must decide alike: the whole engine configuration, the reasons' settings
        # and, when the engine compares dates, that the members read the entries' days
        agreed: dict[str, Any] = {"match": self.match.to_dict(), "explain": self.explain}
        if reads_dates(self.match):
            agreed["entry_days"] = True
        whole = orjson.dumps(agreed, option=orjson.OPT_SORT_KEYS)
        try:
            log.open(f"{get_hash64('xxh3')(whole):016x}")
            # a state directory is a local copy of the log's first entries: its documents are
            # numbered 1, 2, 3, ... as the entries, and its header names the log's epoch
            self._state = DocState(
                self.match, self.path, None, self.durability, header={"fleet_epoch": str(log.epoch)}
            )
        except BaseException:
            log.close()
            raise
        try:
            self._applied = self._state.last_id  # the last log entry applied to the state
            # registered (covering what the state holds) only if the log still holds what it needs
            first = log.join(self.member, self._applied, retention.member_ttl)
            if first < 0:
                raise trimmed_error(log.url, str(self.path or "in memory"), self._applied, -first)
            if self._applied:
                self._check_copy()
            self._catch_up(None)
        except BaseException:
            log.close()
            self._state.close()
            raise
        self._keeper = threading.Thread(target=self._keep, name="neardup-fleet-keeper", daemon=True)
        self._keeper.start()

    def _keep(self) -> None:
        """Every ``retention.interval`` seconds: :meth:`keep_log` (errors are logged: the next tick
        tries again; a member that cannot record for ``member_ttl`` stops holding the log back)."""
        assert self._log is not None
        while not self._keeper_stop.wait(self.retention.interval):
            try:
                self.keep_log()
            except Exception as exc:
                log.warning(
                    "the fleet's log %s: recording this member's coverage failed: %s", self._log.url, exc
                )

    def keep_log(self) -> dict[str, int]:
        """Apply what the others appended, make the state durable up to it, record that in the log
        (a heartbeat), then trim the log below what every live member covers. The background
        thread calls this; ``{"covered": entries this member holds durably, "first": the log's
        first entry}``."""
        assert self._log is not None
        with self._lock:
            self._live()
            self._catch_up(None)
            journal = self._state.dir.journal if self._state.dir is not None else None
            covered = journal.count if journal is not None else self._applied
        if journal is not None:
            journal.sync()  # covers at least the records written before it began
        self._log.cover(self.member, covered, self.retention.member_ttl)
        first = self._log.trim(self.retention.keep)
        return {"covered": covered, "first": first}

    def _check_copy(self) -> None:
        """The state directory's last document is the log's entry of that number (else the log
        lost entries the directory holds)."""
        assert self._log is not None
        got = self._log.read(self._applied - 1, self._applied, 1)
        mine = self._state.docs[self._applied].url
        if not got or LogEntry.decode(got[0][1]).url != mine:
            raise StoreError(
                f"the state in {self.path} holds {self._applied} entries of the shared log "
                f"{self._log.url}, which no longer has entry {self._applied} as it was (Redis lost "
                "entries); remove the directory to rebuild it from the log"
            )

    def _settings(self) -> dict[str, Any]:
        return {"match": self.match.signature_settings()}

    def analyser_settings(self) -> dict[str, Any]:
        """The settings that shape :meth:`analyse`: ``ContentSeen(None, **these).analyse(...)``, in
        any process, gives analyses this ContentSeen accepts (all values pickle)."""
        return {"match": self.match}

    # -- the check ---------------------------------------------------------------------------
    @staticmethod
    def _probe(html: str | None, text: str | None) -> PageAnalysis:
        # the exact key page_signatures will record: the page's, or the text's when the HTML is empty
        return PageAnalysis(raw=exact_key(html if html else (text or "")))

    def _analyse(self, probe: PageAnalysis, html: str | None, text: str | None) -> None:
        if probe.complete:
            return
        sig, (text,) = page_signatures([(text, html)], self.match)
        probe.text = text
        probe.sig = sig.row_bytes(0)
        probe.sents = longest_sentences(text, _SENTENCES, DEFAULT_MIN_SENTENCE_CHARS) if text else []
        probe.sent_keys = [self._sent_hash(x.encode("utf-8", "surrogatepass")) for x in probe.sents]
        probe.settings = self._settings_key
        probe.complete = True

    def analyse(self, html: Html = None, text: str | None = None) -> PageAnalysis:
        """Everything ``check`` reads from a page, without touching the state (any thread or process).

        ``check(url, html)`` is ``check_analysed(url, analyse(html))``; splitting the two lets the
        costly, stateless part (main-text extraction, signature, layout) run in worker processes
        while one process owns the state, as ``neardup serve`` does.

        >>> cs = ContentSeen("memory://")
        >>> a = cs.analyse(text="长江是中华民族的母亲河，也是中华民族发展的重要支撑。")
        >>> cs.check_analysed("https://a.example/1", a).kind
        'new'
        """
        page = page_html(html, text)
        probe = self._probe(page, text)
        self._analyse(probe, page, text)
        return probe

    def check(
        self,
        url: str,
        html: Html = None,
        text: str | None = None,
        add: bool = True,
        *,
        sync: bool = True,
        date: Any = None,
    ) -> Verdict:
        """The verdict on one fetched page; with ``add`` (default) the page is remembered.

        Give ``html`` (the page as fetched; bytes are decoded by their declared or detected
        encoding), or ``text`` (main text you extracted), or both (``text`` is then used as the
        main text and ``html`` for the exact and layout checks). ``sync=False`` matters with
        ``durability="always"``: the added page is written to the journal but not fsynced; call
        :meth:`sync` before you acknowledge it (one fsync for many pages: group commit).
        ``date``: the page's date (what ``neardup.match.dates.day_number`` reads: an ISO date or
        date-time, a ``datetime``, Unix seconds or milliseconds; a string or number it cannot read
        is unknown, another type an InputError, as the service answers 422), kept with the page:
        under the news profile a near copy dated more than ``occasion_days`` from its partner is
        another occasion (a ``template``), as in ``neardup dedup``.
        """
        page = page_input(url, html, text)
        _check_date(date)
        probe = self._probe(page, text)
        probe.day = day_number(date)
        if self._log is not None:
            with self._lock:
                self._analyse(probe, page, text)
            return self._fleet_check(url, probe, add)
        with self._lock:
            self._live()
            self._checks += 1
            return self._decide(url, probe, page, text, add, sync)

    def check_analysed(
        self, url: str, analysis: PageAnalysis, add: bool = True, *, sync: bool = True, date: Any = None
    ) -> Verdict:
        """The verdict on a page analysed by :meth:`analyse` (of a ContentSeen with these settings);
        ``date`` as in :meth:`check`."""
        if not isinstance(url, str):
            raise InputError(f"url must be a string, got {type(url).__name__}")
        if not isinstance(analysis, PageAnalysis) or not analysis.complete:
            raise InputError("analysis must be a PageAnalysis made by ContentSeen.analyse")
        if analysis.settings != self._settings_key:
            raise ConfigError(
                "this analysis was made with other signature settings (shingle, sketch, numbers, "
                "extractor) than this ContentSeen's; analyse pages with a ContentSeen of the same settings"
            )
        _check_date(date)
        probe = copy.copy(analysis)
        probe.day = day_number(date)
        if self._log is not None:
            return self._fleet_check(url, probe, add)
        with self._lock:
            self._live()
            self._checks += 1
            return self._decide(url, probe, None, None, add, sync)

    # -- a fleet: verdicts in the shared log's order -----------------------------------------
    def _fleet_check(self, url: str, probe: PageAnalysis, add: bool) -> Verdict:
        """Append the page to the log (``add``), apply the log up to its entry (or to the end), and
        answer its entry's verdict (or decide without adding)."""
        assert self._log is not None
        if not add:
            with self._lock:
                self._live()
                self._checks += 1
                self._catch_up(None)
                return self._decide(url, probe, None, None, False, False)
        self._live()
        entry = LogEntry(
            url,
            probe.raw,
            probe.sig,
            tuple(probe.sent_keys),
            tuple(probe.sents),
            round(time.time(), 3),
            day=probe.day,
        )
        # the network call holds no lock: other checks of this process append meanwhile
        n, fresh = self._log.append(entry.encode(), url=url, raw=probe.raw, ts=entry.ts)
        with self._lock:
            self._live()
            self._checks += 1
            mine = self._state.docs.get(n)
            if fresh and mine is not None and (mine.url, mine.ts) != (url, entry.ts):
                # entry n was applied (by another thread's catch-up, or before) as another page
                raise StoreError(
                    f"the shared log {self._log.url} numbered a new entry {n}, but this server applied "
                    f"another page as entry {n}: Redis lost entries (a failover to a replica behind it?); "
                    "restart every server of the fleet to rebuild from the log Redis holds"
                )
            self._catch_up(n)
            v = self._verdicts.get(n)
            return v if v is not None else self._rebuilt_verdict(n)

    def catch_up(self) -> int:
        """Apply the entries other members appended to the fleet's log; the last entry applied
        (0 without a fleet). Checks do this themselves; call it before reading documents."""
        with self._lock:
            self._live()
            if self._log is None:
                return 0
            self._catch_up(None)
            return self._applied

    def _catch_up(self, upto: int | None) -> None:
        """Apply log entries after the last applied one, in order, up to ``upto`` (None: the end)."""
        assert self._log is not None
        while upto is None or self._applied < upto:
            batch = self._log.read(self._applied, upto, _LOG_BATCH)
            if not batch:
                if upto is None:
                    return
                raise StoreError(
                    f"the shared log {self._log.url} ends before entry {upto}, which it numbered: "
                    "Redis lost entries (restarted without persistence?); restart this server"
                )
            for n, payload in batch:
                if n != self._applied + 1:
                    raise StoreError(
                        f"the shared log {self._log.url} skips from entry {self._applied} to {n}: "
                        "entries were trimmed or lost; restart this server to rebuild from the log"
                    )
                try:
                    entry = LogEntry.decode(payload)
                except FormatError as exc:
                    raise StoreError(f"the shared log {self._log.url}: entry {n}: {exc}") from None
                self._apply(n, entry)

    def _apply(self, n: int, entry: LogEntry) -> None:
        """Add log entry ``n`` as if it were checked here: the same decision every member makes."""
        probe = PageAnalysis(
            raw=entry.raw,
            sig=entry.sig,
            sent_keys=list(entry.sent_keys),
            sents=list(entry.sents),
            settings=self._settings_key,
            complete=True,
            day=entry.day,
        )
        v = self._decide(entry.url, probe, None, None, True, False, doc_id=n, ts=entry.ts)
        self._applied = n
        self._verdicts[n] = v
        if len(self._verdicts) > _VERDICTS:
            self._verdicts.popitem(last=False)

    def _rebuilt_verdict(self, n: int) -> Verdict:
        """The verdict of an entry applied long ago, from what its document keeps (the reasons
        lose the engine's figures: only ``why`` for exact and content, and ``related_to``)."""
        st = self._state
        doc = st.docs[n]
        if doc.kind == "new":
            root = None
        elif doc.kind in JOINING:
            root = doc.root
        else:
            root = st.root_of(doc.partner) if doc.partner is not None else None
        pdoc = st.docs.get(doc.partner) if doc.partner is not None else None
        distance, layout = distances(st.signature(n), st.signature(pdoc.id) if pdoc is not None else None)
        if doc.kind == "exact":
            distance = 0 if pdoc is not None else None
        rdoc = st.docs.get(root) if root is not None else None
        return Verdict(
            kind=doc.kind,  # type: ignore[arg-type]
            doc_id=n,
            duplicate_of=root,
            distance=distance,
            similar_id=root if root is not None else n,
            layout_distance=layout,
            url=doc.url,
            duplicate_url=rdoc.url if rdoc is not None else None,
            reasons=reasons(doc.kind, doc.partner),
            partner=doc.partner,
            partner_url=pdoc.url if pdoc is not None else None,
        )

    # -- the decision ------------------------------------------------------------------------
    def _decide(
        self,
        url: str,
        probe: PageAnalysis,
        page: str | None,
        text: str | None,
        add: bool,
        sync: bool,
        *,
        doc_id: int | None = None,
        ts: float | None = None,
    ) -> Verdict:
        st = self._state
        hit = st.kv.get(probe.raw ^ NS_RAW)
        if hit is not None and hit in st.docs:
            # the same page: its signature is the earlier page's, no extraction needed
            same = st.signature(hit)
            same.day = np.array([probe.day], np.int32)  # the page's own date, not the earlier one's
            probe.sig, probe.sent_keys = same.row_bytes(0), list(st.docs[hit].sents)
            d = Decision("exact", st.root_of(hit), hit, None)
            return self._finish(url, d, probe, same, add, sync, doc_id=doc_id, ts=ts)
        self._analyse(probe, page, text)
        sig = Signatures.from_row_bytes(probe.sig, self.match)
        sig.day = np.array([probe.day], np.int32)
        if hit is not None:  # known to a shared store only: another service saw this page
            return self._finish(url, Decision("exact", hit, hit, None), probe, sig, add, sync)
        if self._shared and int(sig.tokens[0]) > 0:
            other = st.kv.get(int(sig.content[0]) ^ NS_TEXT)
            if other is not None and other not in st.docs:
                return self._finish(url, Decision("content", other, other, None), probe, sig, add, sync)
        extra = None
        if self.match.candidate_distance is not None and len(st.simhash):
            near = [i for i, _ in st.simhash.query(int(sig.simhash[0]))]
            extra = (np.array([0, len(near)], np.int64), np.array(near, np.int64))
        out = st.engine.run(sig, add=False, extra=extra)
        d = decide(out, st.rows, st.root_of)
        return self._finish(url, d, probe, sig, add, sync, doc_id=doc_id, ts=ts)

    def sync(self) -> None:
        """fsync the journal: every page added with ``sync=False`` so far becomes durable.

        Safe to call from another thread while checks go on (it does not hold the lock while the
        disk works), so one fsync can cover the pages of many concurrent requests.
        """
        with self._lock:
            journal = self._state.dir.journal if self._state.dir is not None else None
        if journal is not None:
            journal.sync()

    def _finish(
        self,
        url: str,
        d: Decision,
        probe: PageAnalysis,
        sig: Signatures,
        add: bool,
        sync: bool,
        *,
        doc_id: int | None = None,
        ts: float | None = None,
    ) -> Verdict:
        st = self._state
        rdoc = st.docs.get(d.root) if d.root is not None else None
        pdoc = st.docs.get(d.partner) if d.partner is not None else None
        distance, layout_distance = distances(sig, st.signature(pdoc.id) if pdoc is not None else None)
        shared = None
        if d.kind == "exact":
            distance = 0 if pdoc is not None else None
        elif self.explain and pdoc is not None:
            shared = shared_sentences(probe.sents, probe.sent_keys, pdoc.sents)
        why = reasons(d.kind, d.partner, d.evidence, shared)
        if add:
            doc_id = st.add(url, d.kind, d.root, d.partner, probe, sig, sync=sync, doc_id=doc_id, ts=ts)
        return Verdict(
            kind=d.kind,  # type: ignore[arg-type]
            doc_id=doc_id,
            duplicate_of=d.root,
            distance=distance,
            similar_id=d.root if d.root is not None else doc_id,
            layout_distance=layout_distance,
            url=url,
            duplicate_url=rdoc.url if rdoc is not None else None,
            reasons=why,
            partner=d.partner,
            partner_url=pdoc.url if pdoc is not None else None,
        )

    # -- inspection --------------------------------------------------------------------------
    def document(self, doc_id: int | str) -> dict[str, Any] | None:
        """What is remembered of one document (None if unknown)."""
        with self._lock:
            doc = self._state.docs.get(self._as_id(doc_id))
            if doc is None:
                return None
            sig = self._state.signature(doc.id)
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
                "date": day_date(int(sig.day[0])) if sig.day.shape[0] else None,
            }

    def duplicates(self, doc_id: int | str) -> dict[str, Any]:
        """A document, its group (``cluster``: the first document seen) and the group's members.

        Raises InputError for an unknown id.
        """
        with self._lock:
            did = self._as_id(doc_id)
            doc = self._state.docs.get(did)
            if doc is None:
                raise InputError(f"no document with id {doc_id!r} was added")
            root = self._state.docs.get(doc.root, doc)
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
        """Counts: checks, documents added by kind, fingerprints indexed; the durability level and,
        with a state directory, the journal's bytes and how many of them an fsync covered."""
        with self._lock:
            journal = self._state.dir.journal if self._state.dir is not None else None
            return {
                "checks": self._checks,
                "documents": len(self._state.docs),
                "kinds": dict(self._state.kinds),
                "indexed": self._state.engine.n,
                "state": str(self.path) if self.path else "memory://",
                "shared_store": self._state.kv.url if self._shared else None,
                "fleet": {"log": self._log.url, "applied": self._applied} if self._log is not None else None,
                "durability": self.durability,
                "journal_bytes": journal.size if journal is not None else None,
                "journal_synced_bytes": journal.synced_size if journal is not None else None,
            }

    def __len__(self) -> int:
        return len(self._state.docs)

    def __repr__(self) -> str:
        where = str(self.path) if self.path else "memory://"
        return f"ContentSeen({where!r}, documents={len(self._state.docs)})"

    # -- lifecycle ---------------------------------------------------------------------------
    def _live(self) -> None:
        if self._closed:
            raise StoreError("this ContentSeen is closed; open a new one on the same state")

    def flush(self) -> None:
        """Make every added page durable (fsync the journal) and save the Hamming index."""
        with self._lock:
            self._live()
            self._state.flush()

    def close(self) -> None:
        """Flush and release the state (idempotent)."""
        if self._log is not None and self._keeper is not None:
            self._keeper_stop.set()
            if self._keeper is not threading.current_thread():
                self._keeper.join()
        with self._lock:
            if self._closed:
                return
            try:
                self.flush()
                if self._log is not None:
                    self._leave()
            finally:
                self._closed = True
                self._state.close()
                if self._log is not None:
                    self._log.close()

    def _leave(self) -> None:
        """A member with a directory records what it holds (all of it: just flushed), so that a
        restart within ``member_ttl`` resumes from it; one in memory stops holding the log back."""
        assert self._log is not None
        try:
            if self.path is not None:
                self._log.cover(self.member, self._applied, self.retention.member_ttl)
            else:
                self._log.leave(self.member)
        except StoreError as exc:
            log.warning("the fleet's log %s: recording this member's exit failed: %s", self._log.url, exc)
