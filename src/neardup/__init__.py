"""neardup: duplicate and near-duplicate detection for texts and web pages, Chinese first.

The public API is re-exported here; ``__all__`` is tested.
"""

from __future__ import annotations

from neardup._version import __version__
from neardup.config import SimHashConfig
from neardup.exceptions import (
    ConfigError,
    FormatError,
    InputError,
    MissingDependency,
    NeardupError,
    StoreError,
)

__all__ = [
    "ConfigError",
    "FormatError",
    "InputError",
    "MissingDependency",
    "NeardupError",
    "SimHashConfig",
    "StoreError",
    "__version__",
]
