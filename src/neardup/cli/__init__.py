"""The ``neardup`` command line (``neardup.cli.main``: the entry point; one module per command group).

A Ctrl-C while the console script imports the CLI is one line and exit code 130
(``neardup._interrupt``, the package's first code); ``main()`` puts its own handling in place when
it starts.
"""

from __future__ import annotations

from neardup._interrupt import interrupted_at_start

__all__ = ["interrupted_at_start"]
