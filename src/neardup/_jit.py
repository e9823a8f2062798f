"""How numba runs here: a writable kernel cache for every user, and no compiling for small runs.

Two decisions taken before numba is imported:

- **Cache folder.** numba caches compiled kernels next to their source (``__pycache__``) or in the
  user's cache folder, and refuses to import a ``cache=True`` kernel when it can write to neither (a
  root-owned install used by another user with no writable home). Then the cache goes to
  ``$TMPDIR/neardup-numba-<uid>``, and if even that fails, kernels are compiled without a cache.
- **Interpreted small runs.** Compiling the kernels of one ``neardup dedup`` takes tens of seconds on
  a fresh install, while running the same kernels as plain Python on a few documents takes well
  under one. ``interpret_small_inputs`` sets numba's own switch ``NUMBA_DISABLE_JIT`` when a
  command's input files are small, so the same code runs, without compiling, with the same results.
  ``NEARDUP_JIT=always`` (or ``never``) overrides the choice.

>>> prefer_interpreter(["no-such-file.jsonl"])
False
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "INTERPRET_BELOW_BYTES",
    "configure_cache",
    "interpret_small_inputs",
    "on_first_compile",
    "prefer_interpreter",
]

#: total input size under which a command runs its kernels interpreted (about 100 news articles)
INTERPRET_BELOW_BYTES = 256 * 1024

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _writable(folder: str) -> bool:
    """Whether files can be created in ``folder`` (made if missing), tested the way numba tests it."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def _user_cache() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numba")


def configure_cache() -> str | None:
    """Make sure numba has a writable cache folder; returns the folder chosen here, or None.

    Nothing changes when ``NUMBA_CACHE_DIR`` is set or numba can use its own folders.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    if _writable(os.path.join(_PACKAGE, "fingerprint", "__pycache__")) or _writable(_user_cache()):
        return None
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    folder = os.path.join(tempfile.gettempdir(), f"neardup-numba-{uid}")
    if _writable(folder):
        os.environ["NUMBA_CACHE_DIR"] = folder
        if "numba" in sys.modules:
            import numba

            numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]
        return folder
    _compile_without_cache()
    return None


def _compile_without_cache() -> None:
    """Kernels declared with ``cache=True`` compile without a cache (no folder can hold one)."""
    from numba.core.dispatcher import Dispatcher

    Dispatcher.enable_caching = lambda self: None  # type: ignore[method-assign]


def prefer_interpreter(paths: Iterable[str], limit: int = INTERPRET_BELOW_BYTES) -> bool:
    """Whether files (or folders) ``paths`` exist and hold fewer than ``limit`` bytes in total.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
    ...     prefer_interpreter([f.name])
    True
    """
    total, found = 0, False
    for path in paths:
        if os.path.isfile(path):
            total += os.path.getsize(path)
            found = True
        elif os.path.isdir(path):
            for root, _, files in os.walk(path):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
            found = True
        if total >= limit:
            return False
    return found


def interpret_small_inputs(paths: Iterable[str]) -> bool:
    """Run numba kernels as Python in this process when the inputs are small; True if it did.

    Must run before numba is imported; ``NEARDUP_JIT`` (``auto``, ``always``, ``never``) and an
    explicit ``NUMBA_DISABLE_JIT`` take precedence.
    """
    mode = os.environ.get("NEARDUP_JIT", "auto").strip().lower()
    if mode == "always" or "NUMBA_DISABLE_JIT" in os.environ or "numba" in sys.modules:
        return False
    if mode != "never" and not prefer_interpreter(paths):
        return False
    os.environ["NUMBA_DISABLE_JIT"] = "1"
    # kernels rely on uint64 arithmetic wrapping around, which numpy scalars do with a warning
    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
    return True


def on_first_compile(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` once, when numba first compiles a kernel in this process (a cold cache:
    kernels loaded from the cache compile nothing); returns a function that stops listening.

    Nothing is imported or installed when kernels run interpreted (``NUMBA_DISABLE_JIT``).
    """
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return lambda: None
    from numba.core import event

    fired = False

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            nonlocal fired
            if not fired:
                fired = True
                callback()

        def on_end(self, ev: Any) -> None:
            pass

    listener = _Listener()
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    return lambda: event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]
