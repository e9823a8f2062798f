"""The exceptions neardup raises.

    NeardupError
     ├── ConfigError          a setting is out of range or two settings disagree
     ├── InputError           a user's input (file, line, field, URL, text) is unusable
     ├── FormatError          a stored file is of another version or damaged
     ├── StoreError           a key-value or seen store failed (connection lost, store closed)
     └── MissingDependency    an optional extra is not installed (also an ImportError)

Every message says what was expected, what was got, and how to fix it where there is a fix.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "FormatError",
    "InputError",
    "MissingDependency",
    "NeardupError",
    "StoreError",
]


class NeardupError(Exception):
    """Base class of every error neardup raises on purpose."""


class ConfigError(NeardupError, ValueError):
    """A setting is invalid: `max_distance must be < number of blocks (5), got 6`."""


class InputError(NeardupError, ValueError):
    """User input is unusable. Carries the place (file, line, field) when there is one."""

    def __init__(
        self, message: str, *, source: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = ""
        if source is not None:
            where = source if line is None else f"{source}:{line}"
            where += ": "
        super().__init__(f"{where}{message}")


class FormatError(NeardupError):
    """A file on disk is of an unknown version, another configuration, or damaged."""


class StoreError(NeardupError):
    """A store failed: it could not be opened, it went away, or it was closed."""


class MissingDependency(NeardupError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""
