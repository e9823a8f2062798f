"""Handing freed memory back to the system.

The C allocator serves arrays under its mmap threshold (up to 32 MB once larger blocks have been
freed) from its heap; freed among live blocks they stay resident, and glibc only returns the
heap's top on its own. ``release_free_memory`` returns every free page.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache
from typing import Any

__all__ = ["release_free_memory"]


@cache
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):  # musl and other C libraries without it
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``); False where the
    C library has no such call (the memory then stays with the process until it is reused).

    >>> release_free_memory() in (True, False)
    True
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
