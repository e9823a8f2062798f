"""The ``neardup`` command line (``neardup.cli.main``: the entry point; one module per command group).

The console script imports ``neardup.cli.main`` before it calls ``main()``: click and the rest of
the CLI load first, and a Ctrl-C raised as KeyboardInterrupt inside one of those imports would
print a traceback. So the first code of this package, in the console script only, takes SIGINT
as one line and exit code 130; ``main()`` puts its own handling in place when it starts. The
imports of ``neardup`` itself (its ``__init__``) and the interpreter's start-up run before this
code and are not covered.
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


def _console_script() -> bool:
    """This process is the ``neardup`` command (not a program or a test importing the CLI)."""
    argv: list[str] = getattr(sys, "argv", None) or [""]  # an embedded interpreter may have none
    return os.path.basename(argv[0]).removesuffix(".exe") == "neardup"


if _console_script() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    # imported from another thread than the main one: signals stay as they are
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, interrupted_at_start)
