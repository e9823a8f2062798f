"""Page analysis in worker processes, and group commit of the journal, for ``neardup serve``.

The service's state (Hamming index, key maps, journal) lives in one process. A page check is
mostly stateless CPU work (HTML parsing, main-text extraction, word segmentation, SimHash,
layout signature: ``ContentSeen.analyse``), so the server hands that to a pool of worker
processes and keeps only the short state step (``ContentSeen.check_analysed``) for itself.
Python threads would not help: the work holds the GIL.

Workers are spawned, not forked: the server has threads (and the state directory's lock) that a
forked child must not inherit. They are driven over two pipes each straight from the event loop,
not through ``concurrent.futures.ProcessPoolExecutor``, whose feeder and manager threads cost the
server 0.49 ms of CPU per page against 0.10 ms here (a 13 KB page and its analysis, measured).

>>> pool = AnalysisPool(ContentSeen().analyser_settings(), processes=2)  # doctest: +SKIP
>>> analysis = await pool.analyse("<html>...</html>", None)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import signal
import struct
import threading
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from neardup import exceptions
from neardup.contentseen.budget import DEFAULT_BUDGET, HtmlBudget, budget_scope
from neardup.contentseen.contentseen import ContentSeen, PageAnalysis
from neardup.exceptions import AnalysisTimeout, StoreError

__all__ = ["AnalysisPool", "GroupSync"]

log = logging.getLogger("neardup.service")

_WARM_PAGE = (
    "<html><body><article><p>"
    + "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 4
    + "</p></article></body></html>"
)
_HEADER = struct.Struct("!Q")  # frame: 8-byte big-endian length, then a pickle


# -- the worker process -----------------------------------------------------------------------------
def _read_exact(fd: int, n: int) -> bytes | None:
    parts: list[bytes] = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _frame(obj: object) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def _worker_main(
    requests: Connection, results: Connection, settings: dict[str, Any], budget: HtmlBudget = DEFAULT_BUDGET
) -> None:
    """Analyse pages until the server closes its end of the request pipe (or dies)."""
    # Ctrl-C reaches the whole process group; the server stops its workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rfd, wfd = requests.fileno(), results.fileno()
    try:
        cs = ContentSeen(None, **settings)
        cs.analyse(html=_WARM_PAGE)  # load the dictionary and the compiled kernels now
    except Exception as exc:
        _write_all(wfd, _frame(("failed", type(exc).__name__, str(exc))))
        return
    _write_all(wfd, _frame(("ready", os.getpid())))
    while True:
        header = _read_exact(rfd, _HEADER.size)
        if header is None:
            return
        body = _read_exact(rfd, _HEADER.unpack(header)[0])
        if body is None:
            return
        html, text = pickle.loads(body)
        try:
            with budget_scope(budget):  # a page over it is refused before the costly step
                reply: tuple[Any, ...] = ("ok", cs.analyse(html=html, text=text))
        except Exception as exc:
            reply = ("error", type(exc).__name__, str(exc))
        _write_all(wfd, _frame(reply))


def _error_from(name: str, message: str) -> Exception:
    """A worker's exception rebuilt here: neardup's own by class, anything else as a bug."""
    cls = getattr(exceptions, name, None)
    if isinstance(cls, type) and issubclass(cls, exceptions.NeardupError):
        return cls(message)
    return RuntimeError(f"page analysis failed in a worker process: {name}: {message}")


# -- the server side ----------------------------------------------------------------------------------
class _Job:
    """A page waiting for, or in, analysis; its deadline timer runs while a worker holds it."""

    __slots__ = ("future", "html", "text", "timer")

    def __init__(
        self, future: asyncio.Future[PageAnalysis | None], html: str | None, text: str | None
    ) -> None:
        self.future = future
        self.html = html
        self.text = text
        self.timer: asyncio.TimerHandle | None = None

    def finish(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class _Worker:
    """One worker process and the two pipes to it, driven by the event loop (no threads).

    It holds one page at a time (``current``), so a page that is slow or kills its worker costs no
    other page its answer: the others wait in the pool's queue. The request is written without
    blocking (what the pipe cannot take yet waits in ``_out``).
    """

    def __init__(
        self, settings: dict[str, Any], name: str, timeout: float, budget: HtmlBudget = DEFAULT_BUDGET
    ) -> None:
        ctx = multiprocessing.get_context("spawn")
        req_r, req_w = ctx.Pipe(duplex=False)
        res_r, res_w = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_worker_main, args=(req_r, res_w, settings, budget), name=name, daemon=True
        )
        self.proc.start()
        req_r.close()  # the worker's ends: only it holds them now, so each side sees the other's EOF
        res_w.close()
        self._req, self._res = req_w, res_r
        self.alive = False
        try:
            if not res_r.poll(timeout):
                raise StoreError(f"the page-analysis worker {name} did not start within {timeout:.0f} s")
            header = _read_exact(res_r.fileno(), _HEADER.size)
            body = _read_exact(res_r.fileno(), _HEADER.unpack(header)[0]) if header else None
            if body is None:
                raise StoreError(f"the page-analysis worker {name} exited while starting")
            hello = pickle.loads(body)
            if hello[0] != "ready":
                raise _error_from(hello[1], f"the page-analysis worker could not start: {hello[2]}")
        except BaseException:
            self.kill()
            raise
        self.pid: int = hello[1]
        self.alive = True
        self.wfd, self.rfd = req_w.fileno(), res_r.fileno()
        os.set_blocking(self.wfd, False)
        os.set_blocking(self.rfd, False)
        self.current: _Job | None = None
        self._in = bytearray()
        self._out = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_death: Callable[[_Worker], None] | None = None
        self.on_idle: Callable[[_Worker], None] | None = None
        self.on_unsent: Callable[[_Job], None] | None = None

    @property
    def pending(self) -> list[asyncio.Future[Any]]:
        """The page in hand (a list: none or one)."""
        return [self.current.future] if self.current is not None else []

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self.rfd)
            self._loop.remove_writer(self.wfd)
        self._loop = loop
        loop.add_reader(self.rfd, self._on_readable)
        if self._out:
            loop.add_writer(self.wfd, self._on_writable)

    def submit(self, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        self._attach(loop)
        self.current = job
        self._out += _frame((job.html, job.text))
        self._on_writable()

    def _on_writable(self) -> None:
        try:
            while self._out:
                n = os.write(self.wfd, self._out)
                del self._out[:n]
        except BlockingIOError:
            assert self._loop is not None
            self._loop.add_writer(self.wfd, self._on_writable)
            return
        except OSError:  # EPIPE: the worker is gone
            self._die()
            return
        if self._loop is not None:
            self._loop.remove_writer(self.wfd)

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self.rfd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._die()
            return
        self._in += chunk
        while len(self._in) >= _HEADER.size:
            (n,) = _HEADER.unpack_from(self._in)
            if len(self._in) < _HEADER.size + n:
                break
            reply = pickle.loads(memoryview(self._in)[_HEADER.size : _HEADER.size + n])
            del self._in[: _HEADER.size + n]
            job, self.current = self.current, None
            if job is not None:
                job.finish()
                if not job.future.done():  # else the request was cancelled (client went away)
                    if reply[0] == "ok":
                        job.future.set_result(reply[1])
                    else:
                        job.future.set_exception(_error_from(reply[1], reply[2]))
            if self.on_idle is not None:
                self.on_idle(self)

    def _die(self) -> None:
        if not self.alive:
            return
        self.alive = False
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self.rfd)
            self._loop.remove_writer(self.wfd)
        job, self.current = self.current, None
        if job is not None:
            job.finish()
            if job.future.done():
                pass
            elif self._out and self.on_unsent is not None:
                self.on_unsent(job)  # not (fully) written: the worker never saw it, another may
            else:  # the worker had it: it may be the page that killed it
                job.future.set_exception(
                    StoreError(
                        "the page-analysis worker process died while this page was analysed; "
                        "a new one is starting: send the page again"
                    )
                )
        self._out.clear()
        self.kill()
        if self.on_death is not None:
            self.on_death(self)

    def kill(self) -> None:
        for conn in (self._req, self._res):
            conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def stop(self, timeout: float = 10.0) -> None:
        """Let the worker finish and exit (it sees EOF on its request pipe)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self.rfd)
            self._loop.remove_writer(self.wfd)
        self.alive = False
        self._req.close()
        self.proc.join(timeout)
        self._res.close()
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)


class AnalysisPool:
    """``processes`` worker processes running ``ContentSeen(None, **settings).analyse``.

    Pages wait in one queue and go to the first idle worker, one page per worker at a time; a page
    gets ``deadline`` seconds of analysis from the moment a worker takes it. A page past its
    deadline costs only its own worker (killed: the only way to stop C code that is parsing) and
    gets AnalysisTimeout; a worker that dies fails only the page it held (a StoreError: the service
    answers 503 and the client sends again). Dead workers are replaced in the background; while no
    worker is up, :meth:`analyse` answers ``None`` (queued pages too) and the caller analyses in
    its own process.
    """

    def __init__(
        self,
        settings: dict[str, Any],
        processes: int,
        *,
        start_timeout: float = 180.0,
        deadline: float | None = None,
        budget: HtmlBudget = DEFAULT_BUDGET,
    ) -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self.settings = settings
        self.processes = processes
        self.start_timeout = start_timeout
        self.deadline = deadline
        self.budget = budget
        self.recycled = 0  # workers killed for running past the deadline
        self.restarts = 0
        self._closed = False
        self._lock = threading.Lock()
        self._queue: deque[_Job] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.workers: list[_Worker] = []
        try:
            for i in range(processes):
                self.workers.append(self._spawn(i))
        except BaseException:
            self.close()
            raise

    def _spawn(self, index: int) -> _Worker:
        worker = _Worker(self.settings, f"neardup-analysis-{index}", self.start_timeout, self.budget)
        worker.on_death = self._replace
        worker.on_idle = lambda _w: self._dispatch()
        worker.on_unsent = self._queue.appendleft
        return worker

    def alive(self) -> int:
        """Workers up now (fewer than ``processes`` while dead ones are being replaced)."""
        return sum(1 for w in self.workers if w.alive)

    def _replace(self, dead: _Worker) -> None:
        if self._closed:
            return
        log.error("page-analysis worker %s (pid %s) died; starting a new one", dead.proc.name, dead.pid)
        index = self.workers.index(dead)
        loop = self._loop
        self._dispatch()  # no worker left: the queued pages are analysed by the caller

        def start() -> None:
            try:
                worker = self._spawn(index)
            except Exception:
                log.exception("could not start a new page-analysis worker")
                return
            with self._lock:
                if self._closed:
                    worker.stop()
                    return
                self.workers[index] = worker
                self.restarts += 1
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._dispatch)

        threading.Thread(target=start, name="neardup-analysis-restart", daemon=True).start()

    def _dispatch(self) -> None:
        """Hand queued pages to idle workers (on the event loop)."""
        queue = self._queue
        while queue and queue[0].future.done():  # cancelled: the client went away
            queue.popleft()
        if not queue:
            return
        live = [w for w in self.workers if w.alive]
        if not live:
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_result(None)
            return
        for worker in live:
            if not worker.alive or worker.current is not None:
                continue
            while queue and queue[0].future.done():
                queue.popleft()
            if not queue:
                return
            job = queue.popleft()
            worker.submit(job)
            if self.deadline is not None and worker.current is job:
                loop = asyncio.get_running_loop()
                job.timer = loop.call_later(self.deadline, self._overdue, worker, job)

    def _overdue(self, worker: _Worker, job: _Job) -> None:
        if worker.current is not job or job.future.done():
            return
        self.recycled += 1
        log.error(
            "page analysis ran past %.1f s in worker %s (pid %s); restarting it",
            self.deadline,
            worker.proc.name,
            worker.pid,
        )
        job.future.set_exception(
            AnalysisTimeout(
                f"the page's analysis took over {self.deadline:g} s and was stopped (its worker process "
                "was restarted); send its main text as 'text', or a smaller page"
            )
        )
        worker._die()

    async def analyse(self, html: str | None, text: str | None) -> PageAnalysis | None:
        """The page's analysis from a worker process; None when no worker is up.

        The page waits for an idle worker, then has ``deadline`` seconds: past them its worker is
        killed and restarted, and this page (only this one) fails with AnalysisTimeout.
        """
        if not any(w.alive for w in self.workers):
            return None
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
        future: asyncio.Future[PageAnalysis | None] = loop.create_future()
        self._queue.append(_Job(future, html, text))
        self._dispatch()
        return await future

    def busy(self) -> int:
        """Workers analysing a page now."""
        return sum(1 for w in self.workers if w.alive and w.current is not None)

    def queued(self) -> int:
        """Pages waiting for a worker."""
        return sum(1 for job in self._queue if not job.future.done())

    def close(self) -> None:
        """Stop the workers: idle ones see EOF and exit, one still holding a page is killed (by now
        the server has stopped waiting for its answer: shutdown stays bounded)."""
        with self._lock:
            self._closed = True
            workers, self.workers = self.workers, []
        for worker in workers:
            if worker.current is not None:
                worker.alive = False
                worker.kill()
            else:
                worker.stop()


class GroupSync:
    """Group commit: requests that wrote to the journal wait here for an fsync covering them.

    One fsync runs at a time, in a thread (the event loop goes on); requests that wrote while it
    ran share the next one. A request is answered only after an fsync that began after its write
    returned, so every acknowledged page is on disk.
    """

    def __init__(self, fsync: Callable[[], None]) -> None:
        self._fsync = fsync
        self._waiting: list[asyncio.Future[None]] = []
        self._running = False
        self._task: asyncio.Task[None] | None = None  # kept: the loop holds tasks only weakly
        self.syncs = 0

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._waiting.append(done)
        if not self._running:
            self._running = True
            self._task = loop.create_task(self._run())
        await done

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                try:
                    await loop.run_in_executor(None, self._fsync)
                    self.syncs += 1
                except BaseException as exc:
                    for f in batch:
                        if not f.done():
                            f.set_exception(exc)
                    continue
                for f in batch:
                    if not f.done():
                        f.set_result(None)
        finally:
            self._running = False
