"""Import optional dependencies with an error that names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from neardup.exceptions import MissingDependency


def require(module: str, extra: str, *, purpose: str | None = None) -> ModuleType:
    """Import ``module`` or raise MissingDependency naming ``pip install 'neardup[extra]'``.

    >>> require("json", "core").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        what = f" for {purpose}" if purpose else ""
        raise MissingDependency(
            f"the optional dependency {module!r} is needed{what} but is not installed: "
            f"run pip install 'neardup[{extra}]'"
        ) from exc
