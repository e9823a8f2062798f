"""numba kernels declared without importing numba: compiled (and numba imported) on first call.

The match engine's numba kernels are the fallback of its C extension (``neardup.match.kernels``):
with the extension built they never run, so importing the modules that declare them must not
import numba (over a second of a command's start). ``njit`` here records the function and its
options; the first call of any recorded kernel imports numba, turns every recorded function into
a numba dispatcher and puts the dispatchers in place of the stand-ins in the globals of every
loaded ``neardup`` module, so numba, compiling one kernel, finds the others it calls as numba
kernels. Names a kernel reads from another module, resolved then too, are declared with ``later``.

>>> @njit(cache=False)
... def twice(x):
...     return 2 * x
>>> twice(21)
42
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar, overload

__all__ = ["later", "njit"]

_lock = threading.RLock()
_kernels: list[_Kernel] = []
_laters: list[_Later] = []
_ready = False


class _Kernel:
    """A function to compile with numba's ``njit(**options)`` when a kernel is first called."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = func
        self.options = options
        self.dispatcher: Any = None
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__
        self.__wrapped__ = func

    def __call__(self, *args: Any) -> Any:
        if self.dispatcher is None:
            _materialize()
        return self.dispatcher(*args)

    def __getattr__(self, name: str) -> Any:
        # numba's dispatcher attributes (signatures, overloads, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        if self.dispatcher is None:
            _materialize()
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        return f"<numba kernel {self.__module__}.{self.__qualname__} (not compiled yet)>"


class _Later:
    """A name of another module (a numba intrinsic, say) a kernel reads, resolved with the kernels."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self.value: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.value is None:
            _materialize()
        return self.value(*args)


def _njit(*args: Any, **options: Any) -> Any:
    """``numba.njit``, applied when a kernel is first called (at once once numba is in use)."""

    def wrap(func: Callable[..., Any]) -> Any:
        with _lock:
            if _ready:
                import numba

                return numba.njit(**options)(func)
            k = _Kernel(func, options)
            _kernels.append(k)
            return k

    if args and callable(args[0]) and not options:
        return wrap(args[0])
    return wrap


F = TypeVar("F", bound=Callable[..., Any])


@overload
def njit(func: F, /) -> F: ...
@overload
def njit(**options: Any) -> Callable[[F], F]: ...
def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit``, applied when a kernel is first called; a kernel keeps its Python signature."""
    return _njit(*args, **options)


def later(module: str, name: str) -> Any:
    """``module.name``, imported when the kernels are compiled (an intrinsic kernels call)."""
    with _lock:
        if _ready:
            return getattr(importlib.import_module(module), name)
        ref = _Later(module, name)
        _laters.append(ref)
        return ref


def _materialize() -> None:
    """Import numba, make every recorded kernel a dispatcher and put it where its stand-in was."""
    global _ready
    with _lock:
        if _ready:
            return
        import numba

        for ref in _laters:
            ref.value = getattr(importlib.import_module(ref.module), ref.name)
        for k in _kernels:
            k.dispatcher = numba.njit(**k.options)(k.py_func)
        real: dict[int, Any] = {id(k): k.dispatcher for k in _kernels}
        real.update({id(r): r.value for r in _laters})
        for mod_name, mod in list(sys.modules.items()):
            if not mod_name.startswith("neardup.") or mod is None:
                continue
            space = vars(mod)
            for name, value in list(space.items()):
                if isinstance(value, (_Kernel, _Later)):
                    space[name] = real[id(value)]
        _ready = True
