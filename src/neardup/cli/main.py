"""The ``neardup`` command. Command groups live one per module and load only when used.

Errors a user can fix (bad input, bad settings, a store that cannot be opened) print one line
and exit with code 2; they never print a traceback.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import click

from neardup._version import __version__
from neardup.cli import interrupted_at_start
from neardup.exceptions import NeardupError

# command name -> "module:attribute"; modules are imported only when their command runs
COMMANDS: dict[str, tuple[str, str]] = {
    "fingerprint": ("neardup.cli.fingerprint:fingerprint_cmd", "SimHash fingerprints of documents"),
    "compare": (
        "neardup.cli.fingerprint:compare_cmd",
        "Compare two texts: the verdict dedup gives, similarity, containment, what each adds",
    ),
    "idf": ("neardup.cli.fingerprint:idf_group", "Fit an IDF table on your corpus"),
    "nshash": ("neardup.cli.nshash:nshash_group", "nshash similar_id of documents (top-n longest sentences)"),
    "urls": ("neardup.cli.urls:urls_group", "URL seen-store per crawl job"),
    "index": ("neardup.cli.index:index_group", "Build and inspect a persistent Hamming index of a corpus"),
    "dedup": ("neardup.cli.dedup:dedup_cmd", "Deduplicate a corpus, or a new batch against an index"),
    "spark": ("neardup.cli.spark:spark_group", "The dedup plan on Apache Spark"),
    "serve": ("neardup.cli.serve:serve_cmd", "Run the HTTP service"),
    "eval": ("neardup.cli.eval:eval_group", "Score clusters and methods against labelled truth"),
    "synth": ("neardup.cli.eval:synth_cmd", "Make labelled reposts from real articles"),
    "report": ("neardup.cli.eval:report_cmd", "An HTML report of a dedup run"),
    "rethreshold": (
        "neardup.cli.rethreshold:rethreshold_cmd",
        "What each --strictness / --profile would change in a dedup output, without re-running",
    ),
    "warmup": ("neardup.warmup:warmup_cmd", "Compile the kernels once after install, so no run compiles"),
}


@contextlib.contextmanager
def _abort_on_interrupt() -> Iterator[None]:
    """A Ctrl-C as click's Abort, without the empty line click prints when it converts one itself."""
    try:
        yield
    except KeyboardInterrupt as exc:
        raise click.exceptions.Abort from exc


class LazyGroup(click.Group):
    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with _abort_on_interrupt():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _abort_on_interrupt():
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target[0].split(":")
        # a Ctrl-C that lands inside a C extension's module init (orjson's) can crash the
        # interpreter: it is held until the command's modules are loaded, then raised here
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # the command itself is not built yet
                return None
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        cmd = getattr(module, attr)
        assert isinstance(cmd, click.Command)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="neardup")
def cli() -> None:
    """neardup: find duplicate and near-duplicate texts and web pages (Chinese first)."""


# commands whose kernels are checked to give the same results interpreted (tests/unit/test_startup.py)
_INTERPRETABLE = {"dedup", "fingerprint", "compare", "nshash"}
# options that bring in index files (their codec has no interpreted form) or stores
_COMPILED_OPTIONS = {"--against", "--merge", "--index"}


def _small_run(argv: list[str]) -> bool:
    """Run kernels interpreted (no compiling) for a small run of a command known to allow it."""
    words = [a for a in argv if not a.startswith("-")]
    if not words or words[0] not in _INTERPRETABLE or any(a.split("=")[0] in _COMPILED_OPTIONS for a in argv):
        return False
    from neardup._jit import interpret_small_inputs

    return interpret_small_inputs(words[1:])


def _without_huge_pages() -> None:
    """Ask numpy not to request transparent huge pages for its large arrays (``madvise``): where the
    kernel compacts memory to serve such a fault (THP ``defrag`` set to ``madvise``, Debian's
    default), a run pays for it in system time and gains nothing (the 10x benchmark set: 1.1 s of
    system time and 0.8 s of its 18.9 s wall time, docs/benchmarks.md). The worker processes the
    run starts inherit the setting; a ``NUMPY_MADVISE_HUGEPAGE`` the user set is left as it is."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"  # read when numpy is imported: here, or in a worker
    if "numpy" not in sys.modules:
        return
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1.x
        try:
            setter = importlib.import_module(module)._set_madvise_hugepage
        except (ImportError, AttributeError):
            continue
        setter(False)
        return


def main(argv: list[str] | None = None) -> Any:
    """Entry point of the console script; returns the exit code through SystemExit."""
    debug = bool(os.environ.get("NEARDUP_DEBUG"))
    interrupted: list[int] = []
    try:
        # the start-up handler (neardup.cli) exits at once; from here a Ctrl-C unwinds, so a
        # command can clean up its outputs
        handler = signal.getsignal(signal.SIGINT)
        if argv is None:  # the console script: this process is the user's run (not a caller's library use)
            if handler in (signal.default_int_handler, interrupted_at_start):  # not ignored by the parent
                signal.signal(signal.SIGINT, functools.partial(_on_interrupt, interrupted))
            _without_huge_pages()
            _small_run(sys.argv[1:])
        elif handler is interrupted_at_start:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        rv = cli.main(args=argv, prog_name="neardup", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("neardup: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        _show_click_error(exc)
        sys.exit(2)
    except NeardupError as exc:
        if debug:
            raise
        _error(str(exc))
        sys.exit(2)
    except BrokenPipeError:
        _detach_stdout()
        sys.stderr.close()  # the reader went away (| head): not an error
        sys.exit(0)
    except KeyboardInterrupt:
        click.echo("neardup: interrupted", err=True)
        sys.exit(130)
    except OSError as exc:
        if debug:
            raise
        _error(describe_os_error(exc))
        _detach_stdout()
        sys.exit(2)
    except Exception:
        # a library that swallows the KeyboardInterrupt of a Ctrl-C and fails otherwise (pyarrow's
        # lazy pandas import): still an interruption, not a crash
        if not interrupted or debug:
            raise
        click.echo("neardup: interrupted", err=True)
        sys.exit(130)
    try:
        sys.stdout.flush()  # a full disk under `> out.jsonl` shows here, not at exit
    except BrokenPipeError:
        _detach_stdout()
        sys.exit(0)
    except OSError as exc:
        _error(describe_os_error(exc))
        _detach_stdout()
        sys.exit(2)
    sys.exit(rv if isinstance(rv, int) else 0)


def _on_interrupt(interrupted: list[int], signum: int, frame: Any) -> None:
    """SIGINT as Python's own handler takes it (KeyboardInterrupt), remembered."""
    interrupted.append(signum)
    raise KeyboardInterrupt


def _error(message: str) -> None:
    """The one line of an error, control characters escaped (a file name cannot drive the terminal)."""
    from neardup.cli._common import printable

    click.echo(f"neardup: error: {printable(message)}", err=True)


def _show_click_error(exc: click.ClickException) -> None:
    """A usage error (unknown option, missing argument, bad value) on one line, as every other
    error: click's message and where the command's help is (click itself prints three lines)."""
    no_args_is_help = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2
    if isinstance(exc, no_args_is_help):  # a bare group (`neardup urls`): its help is the answer
        import io

        from neardup.cli._common import printable

        buf = io.StringIO()
        exc.show(file=buf)
        click.echo(printable(buf.getvalue(), lines=True), err=True, nl=False)
        return
    message = exc.format_message().replace("\n\t", " ")  # click's list of choices, one a line
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message = f"{message.removesuffix('.')} (see '{ctx.command_path} --help')"
    _error(message)


_STREAM_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE}


def describe_os_error(exc: OSError) -> str:
    """One line for an operating-system error: the path, what went wrong, and a fix when there is one.

    >>> describe_os_error(PermissionError(13, "Permission denied", "/out/x.jsonl"))
    '/out/x.jsonl: Permission denied (check the permissions of the file and its folder)'
    """
    what = exc.strerror or str(exc)
    where = exc.filename
    if where is None and exc.errno in _STREAM_ERRNOS:
        where = "standard output"
    hint = {
        errno.EACCES: " (check the permissions of the file and its folder)",
        errno.EPERM: " (check the permissions of the file and its folder)",
        errno.ENOSPC: " (free some space or write elsewhere)",
        errno.EDQUOT: " (free some space or write elsewhere)",
        errno.ENOTDIR: " (a part of the path is a file, not a folder)",
        errno.EROFS: " (write to another file system)",
    }.get(exc.errno or 0, "")
    target = f" -> {exc.filename2}" if exc.filename2 else ""
    return f"{where}{target}: {what}{hint}" if where is not None else f"{what}{hint}"


def _detach_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    main()
