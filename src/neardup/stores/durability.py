"""How often a journal reaches the disk: the durability levels, and the group-commit flusher.

Like Redis's ``appendfsync``, three levels say what an acknowledged write survives:

========== ==================================================== ================ =====================
level      when the journal is fdatasynced                      process killed   power cut / OS crash
========== ==================================================== ================ =====================
always     before every acknowledgement (one fsync per write)   nothing lost     nothing lost
everysec   by a background thread, at most once a second,       nothing lost     the writes since the
           covering every write made before it began                             last completed fsync
                                                                                 began (about 1 s)
no         when the OS writes its dirty pages back (Linux:      nothing lost     up to the OS's
           ~30 s), and on flush/close                                            writeback delay
========== ==================================================== ================ =====================

At every level a write is in the OS page cache (``write()`` returned) before it is acknowledged,
which is why a killed process loses nothing.

>>> check_durability("everysec")
'everysec'
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Literal

from neardup.exceptions import ConfigError, StoreError
from neardup.stores.journal import Journal

__all__ = ["DEFAULT_DURABILITY", "DURABILITY_LEVELS", "Durability", "Flusher", "check_durability"]

Durability = Literal["always", "everysec", "no"]
DURABILITY_LEVELS: tuple[Durability, ...] = ("always", "everysec", "no")
DEFAULT_DURABILITY: Durability = "everysec"
FLUSH_INTERVAL = 1.0  # seconds between the starts of two background fsyncs, at least

log = logging.getLogger("neardup.stores")


def check_durability(value: object, name: str = "durability") -> Durability:
    """``value`` as a durability level, or ConfigError naming the valid ones.

    >>> check_durability("sometimes")
    Traceback (most recent call last):
    ...
    neardup.exceptions.ConfigError: durability must be one of 'always', 'everysec', 'no', got 'sometimes'
    """
    if not isinstance(value, str) or value not in DURABILITY_LEVELS:
        raise ConfigError(f"{name} must be one of {', '.join(map(repr, DURABILITY_LEVELS))}, got {value!r}")
    return value


class Flusher:
    """The ``everysec`` level: a thread that fdatasyncs a journal at most once per ``interval``.

    Writers call :meth:`notify` after a write (cheap: a flag under a lock); the thread, started on
    the first notify, syncs once the interval since the previous sync began has passed, so writes
    made meanwhile share one fsync (group commit). Nothing here ever blocks a writer on the disk.
    A failed fsync is remembered by the journal, which refuses the next append with it
    (:meth:`Journal.sync <neardup.stores.journal.Journal.sync>`), so the error reaches the next
    caller instead of being lost. :meth:`stop` ends the thread (it finishes an fsync in progress).
    """

    def __init__(self, journal: Journal, interval: float = FLUSH_INTERVAL) -> None:
        if not interval > 0:
            raise ConfigError(f"the flush interval must be > 0 seconds, got {interval!r}")
        self.journal = journal
        self.interval = interval
        self.syncs = 0  # completed background fsyncs
        self._cond = threading.Condition(threading.Lock())
        self._dirty = False
        self._stopping = False
        self._thread: threading.Thread | None = None

    def notify(self) -> None:
        """Something was written: have it synced within about ``interval`` seconds."""
        with self._cond:
            if self._dirty or self._stopping:
                return
            self._dirty = True
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"neardup-flush:{self.journal.path.name}", daemon=True
                )
                self._thread.start()
            else:
                self._cond.notify()

    def _run(self) -> None:
        last = float("-inf")  # when the previous fsync began
        while True:
            with self._cond:
                while not self._dirty and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                pause = last + self.interval - time.monotonic()
                if pause > 0 and self._cond.wait_for(lambda: self._stopping, pause):
                    return  # close syncs itself
                self._dirty = False
            last = time.monotonic()
            try:
                self.journal.sync()
                self.syncs += 1
            except StoreError as exc:  # remembered by the journal: the next append raises it
                log.error("background fsync failed, adds are refused from now on: %s", exc)
                with self._cond:
                    self._stopping = True
                return
            except Exception as exc:  # pragma: no cover - a bug: never lose durability silently
                log.exception("the background fsync thread failed")
                self.journal.fail(f"the background fsync thread failed: {exc!r}")
                with self._cond:
                    self._stopping = True
                return

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """End the thread (idempotent); it finishes an fsync in progress first."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
