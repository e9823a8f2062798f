"""What the service serves: one ContentSeen and a URL seen-store per crawl job, behind one lock.

The state lives in this process (the Hamming index is in memory and is snapshotted by
``ContentSeen.flush``), so the service runs ONE server process. A document check is split:
the stateless analysis (``ContentSeen.analyse``: extraction, segmentation, SimHash, layout; most
of the CPU) runs in a pool of worker processes when ``analysis_processes`` > 0, and the short
state step runs inline on the event loop; added pages are made durable by group commit (one
fsync, in a thread, covers every request that wrote while the previous one ran). A thread pool
would add no parallelism to the CPU work (GIL), only hand-offs that multiplied the p99 latency
by ~3 in our measurements (docs/service.md). The lock still guards against callers that use a
backend from several threads.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, cast

from neardup.contentseen.budget import HtmlBudget, budget_scope
from neardup.exceptions import StoreError
from neardup.match import MatchConfig
from neardup.service.pool import AnalysisPool, GroupSync
from neardup.service.settings import ServiceSettings
from neardup.stores import with_prefix
from neardup.urls.deadline import store_deadline

__all__ = ["AsyncBackend", "Backend", "InlineBackend", "StateBackend", "as_async"]

log = logging.getLogger("neardup.service")
_FREEZE_EVERY = 50_000  # documents added between gc.freeze calls: a full collection scans at most these
_STORE_THREADS = 8  # store calls in flight at once; a stuck store holds at most these threads
_PROBE_TIMEOUT = 1.5  # seconds health waits for its probe (each store gets 0.5 s of it)
_PROBE_STEP = 0.5
_DEADLINE_GRACE = 5.0  # seconds a store call may run past its deadline before the caller is told 503


class Backend(Protocol):
    """The operations behind the endpoints, blocking (a fake one is injected in unit tests)."""

    def check_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]: ...

    def duplicates(self, doc_id: str) -> dict[str, Any] | None: ...

    def check_urls(self, job: str, urls: list[str]) -> list[bool]: ...

    def stats(self) -> dict[str, Any]: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class AsyncBackend(Protocol):
    """The operations behind the endpoints, as the app calls them from its event loop."""

    async def acheck_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]: ...

    async def acheck_urls(self, job: str, urls: list[str]) -> list[bool]: ...

    async def aduplicates(self, doc_id: str) -> dict[str, Any] | None: ...

    async def health(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class InlineBackend:
    """A blocking :class:`Backend` served inline on the event loop: for backends whose calls are
    short (in memory, fakes in tests). ``StateBackend`` is asynchronous itself.

    >>> import asyncio
    >>> class Urls:
    ...     def check_urls(self, job, urls): return [False] * len(urls)
    >>> asyncio.run(InlineBackend(Urls()).acheck_urls("j", ["https://a.example/"]))  # type: ignore[arg-type]
    [False]
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def acheck_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]:
        return self.backend.check_document(url, html, text, add, date)

    async def acheck_urls(self, job: str, urls: list[str]) -> list[bool]:
        return self.backend.check_urls(job, urls)

    async def aduplicates(self, doc_id: str) -> dict[str, Any] | None:
        return self.backend.duplicates(doc_id)

    async def health(self) -> dict[str, Any]:
        return self.backend.stats()

    def close(self) -> None:
        self.backend.close()


def as_async(backend: Backend | AsyncBackend) -> AsyncBackend:
    """``backend`` itself when it is asynchronous, else wrapped in an :class:`InlineBackend`."""
    if hasattr(backend, "acheck_document"):
        return cast(AsyncBackend, backend)
    return InlineBackend(backend)


class StateBackend:
    """The real backend: ``neardup.contentseen.ContentSeen`` and ``neardup.urls.SeenURLs``.

    >>> b = StateBackend(ServiceSettings())  # doctest: +SKIP
    >>> b.check_document("https://example.com/a", None, "正文……", add=True)["kind"]  # doctest: +SKIP
    'new'
    """

    def __init__(
        self,
        settings: ServiceSettings,
        *,
        on_jobs_changed: Callable[[int], None] | None = None,
    ) -> None:
        from neardup.contentseen import ContentSeen
        from neardup.contentseen.fleet import Retention

        self.settings = settings
        self.budget = HtmlBudget(max_depth=settings.max_html_depth)
        self._lock = threading.Lock()
        self._jobs_lock = threading.Lock()
        self._jobs: OrderedDict[str, Any] = OrderedDict()
        self._on_jobs_changed = on_jobs_changed
        state: str | Path
        if settings.fleet is not None and settings.state is not None:
            # a local copy of the fleet's log (a restart replays only the entries after it)
            settings.state.mkdir(parents=True, exist_ok=True)
            state = settings.state / "contentseen-fleet"
        elif settings.fleet is not None:
            state = "memory://"  # rebuilt from the fleet's shared log
        elif settings.state is not None:
            settings.state.mkdir(parents=True, exist_ok=True)
            state = settings.state / "contentseen"
        else:
            state = "memory://"
        kwargs: dict[str, Any] = {
            "max_distance": settings.max_distance,
            "durability": settings.durability,
            "match": MatchConfig(profile=settings.profile, strictness=settings.strictness),  # type: ignore[arg-type]
        }
        if settings.fleet is not None:
            kwargs["fleet"] = settings.fleet
            kwargs["store_timeout"] = settings.store_timeout
            kwargs["retention"] = Retention(keep=settings.fleet_keep, member_ttl=settings.fleet_member_ttl)
        elif settings.redis is not None:
            kwargs["nshash_store"] = with_prefix(settings.redis, "cs", None)
        self.contentseen = ContentSeen(state=state, **kwargs)
        self._closed = False
        self._warm_up()
        self._group = GroupSync(self.contentseen.sync)
        # store calls (SQLite, Redis) run here, never on the event loop: a locked database or a
        # stalled Redis then costs a thread and a 503 after ``store_timeout``, not every endpoint
        self._stores = ThreadPoolExecutor(_STORE_THREADS, thread_name_prefix="neardup-store")
        self._probe: asyncio.Future[dict[str, Any]] | None = None
        self.pool: AnalysisPool | None = None
        if settings.analysis_processes > 0:
            try:
                self.pool = AnalysisPool(
                    self.contentseen.analyser_settings(),
                    settings.analysis_processes,
                    deadline=settings.analysis_timeout,
                    budget=self.budget,
                )
            except BaseException:
                self.contentseen.close()
                raise
        self._frozen_at = 0
        self._freeze()

    def _freeze(self) -> None:
        """Move what is alive now out of the cycle collector's sight (``gc.freeze``).

        The state is millions of small objects that live as long as the process; a full collection
        walks all of them (0.43 s for 1M documents here), a pause every request in flight would
        wait for. Frozen objects are never scanned; they are still freed by reference counting.
        """
        gc.collect(1)
        gc.freeze()
        self._frozen_at = len(self.contentseen)

    def _warm_up(self) -> None:
        """Load the segmenter's dictionary and compile the kernels now, not on the first request."""
        page = "<html><body><article><p>" + "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 4
        self.contentseen.check(
            "https://warm-up.invalid/", html=page + "</p></article></body></html>", add=False
        )
        # and the URL seen-stores' kernels (canonical hashing, the hash table), which a first URL
        # check would otherwise compile or load inside its store deadline
        from neardup.urls import SeenURLs

        with SeenURLs("warm-up", store="memory://") as seen:
            seen.check_and_add_many(
                ["https://warm-up.invalid/a?utm_source=x&b=1", "https://warm-up.invalid/a"]
            )

    # -- documents ---------------------------------------------------------------------------
    def check_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]:
        with self._lock, budget_scope(self.budget):
            verdict = self.contentseen.check(url, html=html, text=text, add=add, date=date)
        out: dict[str, Any] = verdict.to_dict()
        return out

    async def acheck_document(
        self, url: str, html: str | None, text: str | None, add: bool, date: Any = None
    ) -> dict[str, Any]:
        """``check_document`` for the event loop: analysis in the worker pool (when there is one),
        the state step inline, and an added page acknowledged only once an fsync covers it."""
        cs = self.contentseen
        fleet = self.settings.fleet is not None
        analysis = await self.pool.analyse(html, text) if self.pool is not None else None

        def state_step() -> Any:
            if fleet:
                # ContentSeen orders a fleet's checks itself (its lock is not held while the log
                # is appended to, so this server's requests append concurrently)
                if analysis is not None:
                    return cs.check_analysed(url, analysis, add, date=date)
                with budget_scope(self.budget):
                    return cs.check(url, html=html, text=text, add=add, date=date)
            with self._lock:
                if analysis is not None:
                    return cs.check_analysed(url, analysis, add, sync=False, date=date)
                with budget_scope(self.budget):  # no pool, or its workers are restarting: here
                    return cs.check(url, html=html, text=text, add=add, sync=False, date=date)

        if fleet:
            verdict = await self._in_store_thread(state_step, "the fleet's shared log (Redis)")
        elif self.settings.redis is not None:
            # the key maps are in Redis: the state step waits on the network, so off the loop
            verdict = await self._in_store_thread(state_step, "the shared ContentSeen store (Redis)")
        else:
            verdict = state_step()  # memory only: shorter than a hand-off to a thread
        if verdict.doc_id is not None:
            if len(cs) - self._frozen_at >= _FREEZE_EVERY:
                self._freeze()
            # a fleet's page is acknowledged once it is in the shared log: its local copy is a cache
            if not fleet and cs.path is not None and cs.durability == "always":
                await self._group.wait()
        out: dict[str, Any] = verdict.to_dict()
        return out

    def duplicates(self, doc_id: str) -> dict[str, Any] | None:
        """The document, its cluster and the cluster's other members; None if no such document.
        In a fleet, what the other servers added so far is applied first."""
        if self.settings.fleet is not None:
            self.contentseen.catch_up()
        with self._lock:
            if self.contentseen.document(doc_id) is None:
                return None
            out: dict[str, Any] = self.contentseen.duplicates(doc_id)
        return out

    # -- URLs --------------------------------------------------------------------------------
    def _url_store(self) -> str:
        if self.settings.redis is not None:
            return with_prefix(self.settings.redis, "u:", "neardup:u:")
        if self.settings.state is None:
            return "memory://"
        # one embedded database holds every job (its rows are keyed by job id)
        return f"sqlite://{self.settings.state / 'urls.sqlite'}"

    def _seen(self, job: str) -> Any:
        from neardup.urls import SeenURLs

        with self._jobs_lock:
            seen = self._jobs.get(job)
            if seen is not None:
                self._jobs.move_to_end(job)
                return seen
            seen = SeenURLs(
                job,
                store=self._url_store(),
                recrawl_after=self.settings.recrawl_after,
                ttl=self.settings.url_ttl,
            )
            self._jobs[job] = seen
            while len(self._jobs) > self.settings.max_jobs:
                _, old = self._jobs.popitem(last=False)
                old.close()
            if self._on_jobs_changed is not None:
                self._on_jobs_changed(len(self._jobs))
            return seen

    async def _in_store_thread(
        self,
        call: Callable[[], Any],
        what: str,
        on_late: Callable[[Any], None] | None = None,
        *,
        honours_deadline: bool = False,
    ) -> Any:
        """``call()`` in a store thread under a deadline of ``store_timeout`` from now.

        A store that honours the deadline (SQLite) ends the call by then, committed or rolled
        back, and the answer is what it did: its result (even when a little late) or a 503 having
        recorded nothing. A store that does not (Redis) is given ``store_timeout`` plus a grace;
        past that the caller gets a 503, and ``on_late(result)`` runs in the store thread should
        the call complete later (the URLs it added are forgotten again). ``honours_deadline``:
        the store ends the call by the deadline itself (SQLite); else the grace is 0.
        """
        loop = asyncio.get_running_loop()
        timeout = self.settings.store_timeout
        at = time.monotonic() + timeout

        def bounded() -> Any:
            with store_deadline(at):
                return call()

        cf: Future[Any] = self._stores.submit(bounded)
        try:
            return await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(cf, loop=loop)),
                timeout + (_DEADLINE_GRACE if honours_deadline else 0.0),
            )
        except asyncio.TimeoutError:
            if on_late is not None:

                def undo(done: Future[Any]) -> None:
                    if not done.cancelled() and done.exception() is None:
                        try:
                            on_late(done.result())
                        except Exception:
                            log.exception("undoing a late store call failed")

                cf.add_done_callback(undo)
            raise StoreError(
                f"{what} did not answer within {timeout:g} s (locked by another process, or "
                "unreachable); send the request again"
            ) from None

    async def acheck_urls(self, job: str, urls: list[str]) -> list[bool]:
        """``check_urls`` in a store thread under the store deadline. A batch answered 503 has
        recorded nothing (SQLite: rolled back by the deadline; Redis: forgotten again should it
        complete later), so a retry is answered as the first try should have been."""

        def forget_new(flags: list[bool]) -> None:
            seen = self._seen(job)
            for url, was_seen in zip(urls, flags, strict=True):
                if not was_seen:
                    seen.forget(url)

        out: list[bool] = await self._in_store_thread(
            lambda: self.check_urls(job, urls),
            f"the URL store of job {job}",
            forget_new,
            honours_deadline=self.settings.redis is None,  # SQLite (or memory)
        )
        return out

    async def health(self) -> dict[str, Any]:
        """Store reachability and worker load, within about a second whatever the stores do."""
        loop = asyncio.get_running_loop()
        if self._probe is None or self._probe.done():
            self._probe = asyncio.wrap_future(self._stores.submit(self._probe_stores), loop=loop)
        try:
            probe = await asyncio.wait_for(asyncio.shield(self._probe), _PROBE_TIMEOUT)
        except asyncio.TimeoutError:
            timeouts = {"urls": "timeout", "contentseen": "timeout"}
            if self.settings.fleet is not None:
                timeouts["fleet"] = "timeout"
            probe = {"stores": timeouts, "stats": {}}
        stores: dict[str, str] = probe["stores"]
        pool = self.pool
        alive = pool.alive() if pool else 0
        workers = {
            "processes": self.settings.analysis_processes,
            "alive": alive,
            "busy": pool.busy() if pool else 0,
            "pages_in_flight": pool.busy() + pool.queued() if pool else 0,
            "pages_queued": pool.queued() if pool else 0,
            "recycled_after_deadline": pool.recycled if pool else 0,
        }
        ok = all(v == "ok" for v in stores.values())
        # fewer workers than configured (dead ones restarting, or failing to start): pages wait
        # longer or are analysed in the server process
        ok = ok and alive >= (self.settings.analysis_processes if pool else 0)
        return {**probe["stats"], "stores": stores, "analysis": workers, "degraded": not ok}

    def _probe_stores(self) -> dict[str, Any]:
        """In a store thread: can each store be reached, and the counts (when the state is free)."""
        out: dict[str, str] = {}
        try:
            if self.settings.redis is not None:
                from neardup.stores._url import redis_client

                # neardup's own parameters (?prefix=) are not redis-py's: left out
                client = redis_client(
                    self.settings.redis, socket_timeout=_PROBE_STEP, socket_connect_timeout=_PROBE_STEP
                )
                try:
                    client.ping()
                finally:
                    client.close()
            elif self.settings.state is not None and (self.settings.state / "urls.sqlite").exists():
                # a write lock held elsewhere is what stalls URL checks: try to take one, briefly
                con = sqlite3.connect(self.settings.state / "urls.sqlite", timeout=0.2)
                try:
                    con.execute("BEGIN IMMEDIATE")
                    con.execute("ROLLBACK")
                finally:
                    con.close()
            out["urls"] = "ok"
        except Exception as exc:
            out["urls"] = f"error: {type(exc).__name__}: {exc}"
        if self.settings.fleet is not None:
            from neardup.stores.redislog import RedisLog

            probe_log = RedisLog(self.settings.fleet, socket_timeout=_PROBE_STEP)
            try:
                probe_log.ping()
                out["fleet"] = "ok"
            except Exception as exc:
                out["fleet"] = f"error: {type(exc).__name__}: {exc}"
            finally:
                probe_log.close()
        # the ContentSeen lock is held only for a state step: a long wait means a stuck store call
        stats: dict[str, Any] = {}
        if self._lock.acquire(timeout=_PROBE_STEP):
            try:
                stats = self.stats()  # ContentSeen's counts take its lock: only when it is free
            finally:
                self._lock.release()
            out["contentseen"] = "ok"
        else:
            out["contentseen"] = "busy: a state step has held the lock for over 0.5 s"
        return {"stores": out, "stats": stats}

    async def aduplicates(self, doc_id: str) -> dict[str, Any] | None:
        """``duplicates`` in a store thread: it waits for the state lock, which a stalled store
        call may hold."""
        out: dict[str, Any] | None = await self._in_store_thread(
            lambda: self.duplicates(doc_id), "the ContentSeen state (busy with a stalled store call)"
        )
        return out

    def check_urls(self, job: str, urls: list[str]) -> list[bool]:
        """For each URL, True when the job had seen it (and it is not due for re-crawl)."""
        # SeenURLs is thread-safe on its own: URL checks need not wait for document checks
        fresh = self._seen(job).check_and_add_many(urls)
        if len(fresh) != len(urls):
            raise StoreError(f"the URL store answered {len(fresh)} flags for {len(urls)} URLs")
        return [not f for f in fresh]

    # -- lifecycle ---------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "url_jobs_open": len(self._jobs),
            "analysis_processes": self.pool.alive() if self.pool else 0,
            "analysis_restarts": self.pool.restarts if self.pool else 0,
        }
        stats = getattr(self.contentseen, "stats", None)
        if callable(stats):
            try:
                out["contentseen"] = stats()
            except Exception:  # health must answer even if stats cannot
                log.exception("ContentSeen.stats failed")
        return out

    def flush(self) -> None:
        with self._lock:
            self.contentseen.flush()

    def close(self) -> None:
        """Close the URL stores, the analysis workers and ContentSeen (which saves its snapshot).
        Everything is released even when a save fails (a full disk); the failure is then raised
        as one StoreError saying what was not saved and what the journal still holds."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                with self._jobs_lock:
                    for seen in self._jobs.values():
                        try:
                            seen.close()
                        except Exception:
                            log.exception("closing a URL seen-store failed")
                    self._jobs.clear()
                if self.pool is not None:
                    self.pool.close()
                self._stores.shutdown(wait=False, cancel_futures=True)
            finally:
                self._close_contentseen()

    def _close_contentseen(self) -> None:
        cs = self.contentseen
        journal_error: BaseException | None = None
        try:
            cs.sync()  # the journal first: a failure of the close below is then the snapshot's alone
        except (OSError, StoreError) as exc:
            journal_error = exc
        save_error: BaseException | None = None
        try:
            cs.close()  # saves the index snapshot, then releases the journal and the directory's lock
        except (OSError, StoreError) as exc:
            save_error = exc
        if journal_error is not None:
            lost = (
                "every acknowledged page was synced before it was answered"
                if cs.durability == "always"
                else "the pages acknowledged since its last completed sync may not be on disk"
            )
            raise StoreError(
                f"could not sync ContentSeen's journal in {cs.path} ({journal_error}); {lost}; the next "
                "start replays what the journal holds"
            ) from journal_error
        if save_error is not None:
            raise StoreError(
                f"could not save ContentSeen's index snapshot ({save_error}); nothing is lost: the "
                f"journal in {cs.path} holds every acknowledged page, synced to disk, and the next start "
                "rebuilds the index from it"
            ) from save_error
