"""How numba runs here: kernels cached outside the package, compiled once per install, none for small runs.

Decisions taken before numba is imported:

- **Cache folder.** Compiled kernels go to a per-user folder, never into the package's source tree
  (an install may be read-only, and numba's in-tree cache misses changes to a kernel's callees in
  other modules): ``$NUMBA_CACHE_DIR`` when set, else
  ``$XDG_CACHE_HOME/neardup/numba-<version>-<python>-<stamp>`` (``~/.cache`` without
  ``XDG_CACHE_HOME``), where ``<stamp>`` digests the names, sizes and modification times of the
  package's kernel sources (its files that use numba). An upgrade (or an edit of any kernel file)
  therefore starts a new, empty folder instead of reusing kernels compiled against other code
  (numba's own index only checks a kernel's own file, and numba's version). A constant a kernel
  reads from a module without kernels is frozen into the compiled code without being stamped. Old folders stay until ``neardup warmup --prune``. A
  ``NUMBA_CACHE_DIR`` set by the user is used as it is: numba then only checks each file's own
  stamp, so it should be emptied after an upgrade. When that
  folder cannot be written, the same name under ``$TMPDIR/neardup-numba-<uid>`` is used, and when nothing can be
  written, kernels are compiled without a cache. The folder is handed to numba as
  ``NUMBA_CACHE_DIR``, so child processes (Spark workers, ``-j`` workers) share it.
- **Compile at install.** ``neardup warmup`` (``python -m neardup.warmup``) compiles every kernel
  into that folder once, so a user's first run loads them instead of compiling them.
- **Interpreted small runs.** Compiling the kernels of one ``neardup dedup`` takes tens of seconds
  on a fresh install, while running the same kernels as plain Python on a few documents takes well
  under one. ``interpret_small_inputs`` sets numba's own switch ``NUMBA_DISABLE_JIT`` when a
  command's input files are small, so the same code runs, without compiling, with the same results.
  ``NEARDUP_JIT=always`` (or ``never``) overrides the choice.

>>> prefer_interpreter(["no-such-file.jsonl"])
False
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "INTERPRET_BELOW_BYTES",
    "cache_folder",
    "cache_root",
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


def cache_root() -> str:
    """The folder holding neardup's kernel caches: ``$XDG_CACHE_HOME/neardup`` (``~/.cache/neardup``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "neardup")


def _source_stamp() -> str:
    """A digest of the package's kernel sources (the files that use numba) and of its data tables
    (kernels bake tables built from them, such as ``match.words``): relative name, size,
    modification time. Files without kernels are left out, so editing one keeps the cache."""
    h = hashlib.sha1()
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(root, _PACKAGE)
        for name in sorted(files):
            if rel == "data":
                st = os.stat(os.path.join(root, name))
                h.update(f"{rel}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
                continue
            if not name.endswith(".py"):
                continue
            try:
                with open(os.path.join(root, name), "rb") as fh:
                    if b"numba" not in fh.read():
                        continue
                    st = os.fstat(fh.fileno())
            except OSError:
                continue
            h.update(f"{rel}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:12]


def cache_folder() -> str:
    """This install's kernel cache folder under :func:`cache_root` (see the module docstring).

    >>> os.path.basename(cache_folder()).startswith("numba-")
    True
    """
    from neardup._version import __version__

    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(cache_root(), f"numba-{__version__}-{tag}-{_source_stamp()}")


def _use(folder: str) -> str:
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:
        import numba

        numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]
    return folder


def configure_cache() -> str | None:
    """Point numba's kernel cache at a writable folder outside the package; returns it, or None
    when ``NUMBA_CACHE_DIR`` was set already (kept) or no folder can be written (no cache)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    folder = cache_folder()
    if _writable(folder):
        return _use(folder)
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    folder = os.path.join(tempfile.gettempdir(), f"neardup-numba-{uid}", os.path.basename(folder))
    if _writable(folder):
        return _use(folder)
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


class _AfterImport:
    """A meta path finder that calls ``then`` right after module ``name`` is first imported."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        import importlib.util

        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run, then = spec.loader.exec_module, self.then

        def exec_module(module: Any) -> None:
            run(module)
            then()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def on_first_compile(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` once, when numba first compiles a kernel in this process (a cold cache:
    kernels loaded from the cache compile nothing); returns a function that stops listening.

    Nothing is imported or installed when kernels run interpreted (``NUMBA_DISABLE_JIT``).
    """
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return lambda: None
    if "numba" not in sys.modules:
        # numba may never be imported (the C extensions run): listen from when it is
        stops: list[Callable[[], None]] = []
        finder = _AfterImport("numba", lambda: stops.append(on_first_compile(callback)))
        sys.meta_path.insert(0, finder)

        def stop() -> None:
            if finder in sys.meta_path:
                sys.meta_path.remove(finder)
            for s in stops:
                s()

        return stop
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
