"""Supervised worker processes: a task never waits on a worker that has died.

``multiprocessing.Pool`` hangs when one of its workers dies (the OOM killer, a C extension that
aborts): the task is lost, and ``terminate()`` blocks on the dead worker's pipe. Here each worker
has its own pipe and is watched through its process sentinel, and it writes the index of the item
it is working on into a shared array before each one, so the parent knows, when a worker dies,
which task and which item it held. That task is run again once on a fresh worker; a second death
raises :class:`WorkerDied` naming the item. With a ``deadline``, each worker also writes when it
started its item; a worker still on one item after ``deadline`` seconds (alive, but stuck: a loop
in C, a lock never released) is killed and replaced, and its task fails with :class:`WorkerStuck`
naming the item, so a run waits at most the deadline on any item. Nothing is shared between tasks
but the workers.

>>> with WorkerPool(2, abs) as pool:
...     pool.result(pool.submit([-1, -2])), pool.result(pool.submit([3]))
([1, 2], [3])
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from neardup.exceptions import NeardupError

__all__ = ["WorkerDied", "WorkerPool", "WorkerStuck", "default_context", "describe_exit", "max_workers"]


class WorkerDied(NeardupError):
    """A worker process died twice on one task: ``task`` and ``item`` say which item it held."""

    def __init__(self, task: int, item: int, exitcode: int | None, *, what: str | None = None) -> None:
        self.task = task
        self.item = item
        self.exitcode = exitcode
        what = what or f"item {item} of task {task}"
        super().__init__(f"a worker process died twice on {what} ({describe_exit(exitcode)})")


class WorkerStuck(NeardupError):
    """A worker process spent more than ``seconds`` on one item: ``task`` and ``item`` say which."""

    def __init__(self, task: int, item: int, seconds: float) -> None:
        self.task = task
        self.item = item
        self.seconds = seconds
        super().__init__(f"a worker process spent over {seconds:g} s on item {item} of task {task}")


def describe_exit(exitcode: int | None) -> str:
    """How a process ended, for people.

    >>> describe_exit(-9), describe_exit(3)
    ('killed by SIGKILL: out of memory, or killed', 'exited with code 3')
    """
    if exitcode is None:
        return "ended without an exit code"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        why = ": out of memory, or killed" if -exitcode == signal.SIGKILL else ""
        return f"killed by {name}{why}"
    return f"exited with code {exitcode}"


def max_workers() -> int:
    """The most worker processes a run may ask for: 4 per core (signing and HTML extraction are
    CPU-bound; past that, processes only take memory and turns on the cores)."""
    return 4 * (os.cpu_count() or 1)


def default_context() -> Any:
    """fork where there is one (shares loaded tables), else the platform's default."""
    return mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()


def _serve(
    conn: Any,
    slots: Any,
    starts: Any,
    slot: int,
    fn: Callable[[Any], Any],
    initializer: Callable[..., Any] | None,
    initargs: tuple[Any, ...],
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    if hasattr(signal, "pthread_sigmask"):  # born with it blocked (_start): ignored now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the parent went away
            return
        if msg is None:
            return
        tid, items = msg
        out: list[Any] = []
        try:
            for i, item in enumerate(items):
                # when the item started, then which: the parent reads the index when it finds a
                # start too old, so it never blames the next item for the last one's time
                starts[slot] = time.monotonic()
                slots[slot] = i
                out.append(fn(item))
            reply: tuple[int, bool, Any] = (tid, True, out)
        except Exception as exc:  # handed to the parent, raised where the result is asked for
            reply = (tid, False, exc)
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError):
            return
        except Exception as exc:  # a result or an exception that does not pickle
            conn.send((tid, False, RuntimeError(f"{type(exc).__name__}: {exc}")))


@dataclass
class _Worker:
    proc: Any
    conn: Any
    task: int | None = None


@dataclass
class _Task:
    items: Sequence[Any]
    deaths: int = 0
    error: BaseException | None = None
    result: list[Any] | None = field(default=None)


class WorkerPool:
    """``n`` worker processes applying ``fn`` to each item of the tasks submitted.

    ``submit(items)`` queues a task and returns its id; ``result(id)`` waits for its list of
    ``fn(item)`` (re-raising the task's exception). A worker that dies is replaced; its task is run
    again once (``retries``), and a second death raises :class:`WorkerDied`. With ``deadline``
    (seconds), a worker still on one item after that long is killed and replaced, and its task's
    ``result`` raises :class:`WorkerStuck` (other tasks go on). ``close()`` stops the workers: idle
    ones are asked to leave, busy ones (work nobody will collect) are killed.
    """

    def __init__(
        self,
        n: int,
        fn: Callable[[Any], Any],
        *,
        context: Any = None,
        initializer: Callable[..., Any] | None = None,
        initargs: tuple[Any, ...] = (),
        retries: int = 1,
        deadline: float | None = None,
    ) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        if deadline is not None and not deadline > 0:
            raise ValueError(f"deadline must be > 0 seconds (or None: no deadline), got {deadline}")
        self.deadline = deadline
        self._ctx = context if context is not None else default_context()
        self._fn = fn
        self._init = initializer
        self._initargs = initargs
        self.retries = retries
        self._slots = self._ctx.Array("q", n, lock=False)
        self._starts = self._ctx.Array("d", n, lock=False)  # time.monotonic() an item was started
        self._workers: list[_Worker | None] = [None] * n
        self._queue: deque[int] = deque()
        self._tasks: dict[int, _Task] = {}
        self._next = 0
        self.restarts = 0  # workers replaced after dying

    # -- workers ----------------------------------------------------------------------------
    def _start(self, k: int) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(
            target=_serve,
            args=(child, self._slots, self._starts, k, self._fn, self._init, self._initargs),
            daemon=True,
            name=f"neardup-worker-{k}",
        )
        # a Ctrl-C while the worker is being forked would reach it before it ignores SIGINT (a
        # KeyboardInterrupt in the child's at-fork handlers, its traceback on the run's stderr):
        # the worker is born with SIGINT blocked and unblocks it once ignored (_serve); this
        # process takes a Ctrl-C that came meanwhile when its mask is restored
        masked = hasattr(signal, "pthread_sigmask")
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masked else None
        try:
            proc.start()
        finally:
            if before is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)
        child.close()  # only the worker holds its end: its death closes the pipe
        w = self._workers[k] = _Worker(proc, parent)
        return w

    def _dispatch(self) -> None:
        for k in range(len(self._workers)):
            if not self._queue:
                return
            w = self._workers[k]
            if w is not None and w.task is not None:
                continue
            if w is None:
                w = self._start(k)
            tid = self._queue.popleft()
            self._slots[k] = 0
            self._starts[k] = time.monotonic()  # until the worker starts the first item
            try:
                w.conn.send((tid, self._tasks[tid].items))
            except OSError:  # died while idle: not the task's fault
                self._queue.appendleft(tid)
                self._died(k, w)
                continue
            w.task = tid

    def _died(self, k: int, w: _Worker) -> None:
        w.proc.join(1.0)
        exitcode = w.proc.exitcode
        if exitcode is None:  # the pipe broke but the process lingers: it is no use
            w.proc.kill()
            w.proc.join(1.0)
        w.conn.close()
        self._workers[k] = None
        self.restarts += 1
        tid = w.task
        if tid is None:
            return
        task = self._tasks[tid]
        task.deaths += 1
        if task.deaths > self.retries:
            raise WorkerDied(tid, int(self._slots[k]), exitcode)
        self._queue.appendleft(tid)  # first in line for the fresh worker

    def _pump(self) -> None:
        """Wait until some busy worker answers or dies, and take what it gives."""
        self._dispatch()
        busy = [(k, w) for k, w in enumerate(self._workers) if w is not None and w.task is not None]
        if not busy:
            return
        waitables: list[Any] = [w.conn for _, w in busy] + [w.proc.sentinel for _, w in busy]
        timeout = None
        if self.deadline is not None:
            oldest = min(self._starts[k] for k, _ in busy)
            timeout = max(0.01, oldest + self.deadline - time.monotonic())
        ready = set(mpc.wait(waitables, timeout))
        for k, w in busy:
            if w.conn in ready:
                try:
                    tid, ok, payload = w.conn.recv()
                except (EOFError, OSError):
                    self._died(k, w)
                    continue
                w.task = None
                task = self._tasks[tid]
                if ok:
                    task.result = payload
                else:
                    task.error = payload
            elif w.proc.sentinel in ready:
                self._died(k, w)
            elif self.deadline is not None and time.monotonic() - self._starts[k] > self.deadline:
                self._stuck(k, w)

    def _stuck(self, k: int, w: _Worker) -> None:
        """Kill a worker that has held one item past the deadline; its task fails naming the item."""
        item = int(self._slots[k])
        if time.monotonic() - self._starts[k] <= (self.deadline or 0):
            return  # it moved on to the next item just now
        w.proc.kill()
        w.proc.join(5.0)
        w.conn.close()
        self._workers[k] = None
        self.restarts += 1
        assert w.task is not None
        self._tasks[w.task].error = WorkerStuck(w.task, item, float(self.deadline or 0))

    # -- the interface ----------------------------------------------------------------------
    def submit(self, items: Sequence[Any]) -> int:
        tid = self._next
        self._next += 1
        self._tasks[tid] = _Task(list(items))
        self._queue.append(tid)
        self._dispatch()
        return tid

    def result(self, tid: int) -> list[Any]:
        task = self._tasks[tid]
        while task.result is None and task.error is None:
            self._pump()
        del self._tasks[tid]
        if task.error is not None:
            raise task.error
        assert task.result is not None
        return task.result

    def items(self, tid: int) -> Sequence[Any]:
        return self._tasks[tid].items

    def close(self) -> None:
        for w in self._workers:
            if w is None:
                continue
            if w.task is not None:
                w.proc.kill()
            else:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
        for k, w in enumerate(self._workers):
            if w is None:
                continue
            w.proc.join(5.0)
            if w.proc.exitcode is None:
                w.proc.kill()
                w.proc.join(5.0)
            w.conn.close()
            self._workers[k] = None
        self._queue.clear()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
