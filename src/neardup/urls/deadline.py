"""A deadline for store calls: a call that cannot finish by it records nothing.

The service answers a URL check 503 when its store call does not finish within the store timeout,
and a crawler sends the batch again. Had the first call recorded its URLs after the 503 was sent,
the retry would find them "seen" and the pages would never be fetched. So the service runs each
call under :func:`store_deadline`, and a store that honours it (SQLite: the wait for the write lock
and the statements themselves are bounded by it, and the transaction is rolled back when it
passes) either commits before the deadline (the answer is the real one, even if a little late) or
raises StoreError having recorded nothing.

>>> import time
>>> with store_deadline(time.monotonic() + 5):
...     0 < remaining() <= 5
True
>>> remaining() is None
True
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["deadline", "remaining", "store_deadline"]

_DEADLINE: ContextVar[float | None] = ContextVar("neardup_store_deadline", default=None)


@contextmanager
def store_deadline(at: float | None) -> Iterator[None]:
    """Store calls made inside the block (this thread or task) must finish by ``at``
    (a ``time.monotonic()`` value; None: no deadline)."""
    token = _DEADLINE.set(at)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline() -> float | None:
    """The deadline in force here, as a ``time.monotonic()`` value, or None."""
    return _DEADLINE.get()


def remaining() -> float | None:
    """Seconds left before the deadline in force here (<= 0: passed), or None for no deadline."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()
