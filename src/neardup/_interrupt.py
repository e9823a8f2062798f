"""Ctrl-C while the ``neardup`` command starts: one line and exit code 130, not a traceback.

The console script imports ``neardup.cli.main`` (and so this package, click and the rest of the
CLI) before it calls ``main()``; a KeyboardInterrupt raised inside one of those imports would print
a traceback. This module is the first code of the package to run, so in the console script only it
takes SIGINT as one line until ``main()`` puts its own handling in place. The interpreter's own
start-up runs before it and is not covered.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys


def interrupted_at_start(signum: int, frame: object) -> None:
    """SIGINT before ``main()`` runs: nothing has been written yet, so there is nothing to undo."""
    os.write(2, b"neardup: interrupted\n")
    os._exit(130)


def console_script() -> bool:
    """This process is the ``neardup`` command (not a program or a test importing the package)."""
    argv: list[str] = getattr(sys, "argv", None) or [""]  # an embedded interpreter may have none
    return os.path.basename(argv[0]).removesuffix(".exe") == "neardup"


if console_script() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    # imported from another thread than the main one: signals stay as they are
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, interrupted_at_start)
