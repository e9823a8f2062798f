"""``neardup urls``: the URL seen-store of a crawl job from the shell.

neardup urls check --job 108 --store seen.db < urls.txt > new.txt   # prints only new URLs
neardup urls stats --job 108 --store redis://127.0.0.1:6379/0
neardup urls forget --job 108 --store seen.db https://example.com/a
neardup urls canonical < urls.txt
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import signal
import stat
import struct
import sys
import termios
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click

from neardup.cli._common import FINITE_FLOAT, echo_err, existing_store, printable
from neardup.exceptions import ConfigError

_STORE_HELP = (
    "Store URL: memory://, sqlite:///path/seen.db (or a bare path), redis://host:6379/0 "
    "(?prefix=, ?buckets=, ?bloom=0.001&capacity=N). Env: NEARDUP_URL_STORE."
)


def _store_option(func: Any) -> Any:
    return click.option("--store", envvar="NEARDUP_URL_STORE", required=True, help=_STORE_HELP)(func)


def _job_option(func: Any) -> Any:
    return click.option("--job", "job", required=True, help="Crawl job id (letters, digits, _.-).")(func)


def _open(job: str, store: str, **kwargs: Any) -> Any:
    from neardup.urls import SeenURLs

    _check_sqlite_path(store)
    return SeenURLs(job, store, **kwargs)


#: the first bytes of every SQLite database file
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_sqlite_path(store: str) -> None:
    """Refuse, before SQLite does in its own words, a SQLite store's path that is a directory, lies
    in a folder that does not exist, or is a file of something else (a CSV, a log): SQLite calls the
    first two "unable to open database file" and the last "file is not a database", which the
    store reads as a damaged store of its own."""
    from neardup.exceptions import InputError
    from neardup.stores._url import parse_store_url
    from neardup.urls import STORE_SCHEMES

    url = parse_store_url(store, STORE_SCHEMES)
    if url.scheme != "sqlite":
        return
    path = Path(url.path).expanduser()
    if path.is_dir():
        raise InputError(
            f"is a directory; a SQLite store is one file: name it, e.g. {path / 'seen.db'}", source=store
        )
    if not path.parent.is_dir():
        raise InputError(f"the folder {path.parent} does not exist; make it first", source=store)
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        return  # a new store
    except OSError:
        return  # unreadable: the store's own message says why
    if head and head != _SQLITE_MAGIC:  # an empty file is a new store, to SQLite as to neardup
        raise InputError(
            "is not a neardup URL seen-store (not a SQLite database); name the store's file, "
            "or a new file to start one",
            source=store,
        )


def _drop_params(drop: tuple[str, ...], keep: tuple[str, ...], no_default: bool) -> frozenset[str]:
    from neardup.urls import DEFAULT_DROP_PARAMS

    base = frozenset() if no_default else DEFAULT_DROP_PARAMS
    return (base | frozenset(drop)) - frozenset(keep)


def _batches(stream: TextIO, size: int) -> Iterator[list[tuple[int, str]]]:
    batch: list[tuple[int, str]] = []
    for lineno, line in enumerate(stream, 1):
        url = line.strip()
        if not url or url.startswith("#"):
            continue
        batch.append((lineno, url))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


@click.group("urls")
def urls_group() -> None:
    """URL seen-store per crawl job: check, stats, forget, canonical."""


@urls_group.command("check")
@_job_option
@_store_option
@click.option(
    "--recrawl-after", type=FINITE_FLOAT, default=None, help="Seconds after a fetch when a URL is due again."
)
@click.option(
    "--ttl", type=FINITE_FLOAT, default=None, help="Seconds after the job started when its whole set expires."
)
@click.option(
    "--bloom", type=FINITE_FLOAT, default=None, help="Bloom mode with this false-positive rate (e.g. 0.001)."
)
@click.option(
    "--capacity", type=int, default=None, help="Expected URLs of the job (Redis buckets, Bloom size)."
)
@click.option(
    "--drop-param", "drop", multiple=True, help="Also remove this query parameter (glob ok). Repeatable."
)
@click.option(
    "--keep-param", "keep", multiple=True, help="Keep this parameter of the default list. Repeatable."
)
@click.option("--no-default-params", is_flag=True, help="Start from an empty list of tracking parameters.")
@click.option("--no-canonicalize", is_flag=True, help="Hash each line exactly as given.")
@click.option("--print-canonical", is_flag=True, help="Print the canonical form instead of the input line.")
@click.option("--strict", is_flag=True, help="Stop (exit 2) at a malformed URL instead of skipping it.")
@click.option(
    "--batch-size",
    type=int,
    default=1000,
    show_default=True,
    help="URLs per round trip; 1 for line-by-line streaming (tail -f).",
)
@click.option(
    "--pending-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="NEARDUP_PENDING_DIR",
    help="Where the batch between record and print is kept, so a killed run's batch is forgotten "
    "by the next run [default: beside a SQLite store, else ~/.local/state/neardup/urls-pending].",
)
def check_cmd(
    job: str,
    store: str,
    recrawl_after: float | None,
    ttl: float | None,
    bloom: float | None,
    capacity: int | None,
    drop: tuple[str, ...],
    keep: tuple[str, ...],
    no_default_params: bool,
    no_canonicalize: bool,
    print_canonical: bool,
    strict: bool,
    batch_size: int,
    pending_dir: Path | None,
) -> None:
    """Read URLs (one a line) on stdin; print those new to the job (or due for re-crawl), record them.

    Malformed lines are skipped with a count on stderr (--strict: exit 2 at the first batch with one).
    """
    if batch_size < 1:
        raise ConfigError(f"--batch-size must be >= 1, got {batch_size}")
    seen = _open(
        _job(job),
        store,
        recrawl_after=recrawl_after,
        ttl=ttl,
        bloom=bloom,
        capacity=capacity,
        drop_params=_drop_params(drop, keep, no_default_params),
        canonicalize=not no_canonicalize,
    )
    out = _Output(sys.stdout)
    n_in = n_bad = n_new = 0
    first_bad = ""
    pending = _Pending.for_store(store, job, pending_dir)
    try:
        if pending is not None:
            pending.recover(seen)
            pending.open()
        with _signals_between_batches() as guard:
            for batch in _batches(sys.stdin, batch_size):
                n_in += len(batch)
                good, bad = _canonical(seen, batch, strict)
                n_bad += len(bad)
                first_bad = first_bad or (bad[0] if bad else "")
                # the batch is recorded and printed with signals held back: a signal lands between
                # batches, when every URL recorded so far has been written out
                with guard:
                    n_new += _record_and_print(seen, out, pending, good, print_canonical)
    except _Interrupted as stop:
        name = signal.Signals(stop.signum).name
        click.echo(
            f"neardup: stopped by {name} after {n_new} new URL(s); every URL recorded as seen was "
            "written to the output",
            err=True,
        )
        raise click.exceptions.Exit(128 + stop.signum) from None
    finally:
        if pending is not None:
            pending.close()
        seen.close()
    if n_bad:
        echo_err(f"neardup: skipped {n_bad} malformed URL(s) of {n_in} (first: {printable(first_bad)})")


def _canonical(
    seen: Any, batch: list[tuple[int, str]], strict: bool
) -> tuple[list[tuple[str, str]], list[str]]:
    """(line, canonical URL) of the well-formed lines, and a note per malformed one."""
    from neardup.exceptions import InputError

    good: list[tuple[str, str]] = []
    bad: list[str] = []
    for lineno, url in batch:
        try:
            good.append((url, seen.canonical(url)))
        except InputError as exc:
            if strict:
                raise InputError(str(exc), source="<stdin>", line=lineno) from None
            bad.append(f"line {lineno}: {exc}")
    return good, bad


def _record_and_print(
    seen: Any, out: _Output, pending: _Pending | None, good: list[tuple[str, str]], print_canonical: bool
) -> int:
    """Record a batch as seen and print its new URLs; the number printed."""
    if pending is not None:  # on disk before the commit: a kill -9 is undone next run
        pending.stage([c for _, c in good])
    flags = seen.check_and_add_many([c for _, c in good])
    lines = [
        (canon, (canon if print_canonical else url) + "\n")
        for (url, canon), new in zip(good, flags, strict=True)
        if new
    ]
    try:
        out.deliver(lines)
    except OSError as exc:
        _undo_undelivered(seen, out, pending, exc)
    if pending is not None:
        pending.clear()
    return len(lines)


_PENDING_KIND = "urls.pending"


class _Pending:
    """The batch between the store's commit and its delivery, kept in a journal file.

    Each run owns one file (``.neardup-urls-pending-<store and job hash>-<pid>``, locked while it
    runs). A batch is written and fsynced there before the store records it, and dropped once it is
    printed, or once its undelivered URLs are forgotten after a failed write; a run killed in
    between (kill -9, a power cut), or one that failed without settling the batch (the store went
    away), leaves it behind, and the next run of the same job and store forgets those URLs before it
    starts, so they are printed again (at least once: up to one batch may come out twice).
    """

    def __init__(self, directory: Path, store: str, job: str) -> None:
        import xxhash

        self.dir = directory
        key = xxhash.xxh3_64_hexdigest(store.encode() + b"\0" + job.encode())
        self.prefix = f".neardup-urls-pending-{key}-"
        self.path = directory / f"{self.prefix}{os.getpid()}"
        self.journal: Any = None
        self.lockfd: int | None = None

    @classmethod
    def for_store(cls, store: str, job: str, directory: Path | None) -> _Pending | None:
        """None for an in-memory store (nothing outlives the run)."""
        if store.startswith("memory:"):
            return None
        if directory is None:
            if store.startswith("sqlite://") or "://" not in store:
                path = store.removeprefix("sqlite://").split("?", 1)[0]
                directory = Path(path).absolute().parent
            else:
                base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
                directory = Path(base) / "neardup" / "urls-pending"
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory, store, job)

    def recover(self, seen: Any) -> None:
        """Forget the URLs of runs that died between record and print (their files are unlocked)."""
        from neardup._stale import remove_stale
        from neardup.stores.journal import Journal

        remove_stale(self.dir, ".neardup-urls-staging-")  # of runs killed while opening their file
        for f in sorted(self.dir.glob(f"{self.prefix}*")):
            try:
                fd = os.open(f, os.O_RDONLY)
            except FileNotFoundError:
                continue  # recovered by another run meanwhile
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a run that is alive, or another run recovering it
                try:
                    if os.stat(f).st_ino != os.fstat(fd).st_ino:
                        continue
                except FileNotFoundError:
                    continue  # another run recovered and removed it before we locked it
                with Journal(f, kind=_PENDING_KIND, create=False) as j:
                    urls = [
                        u
                        for _, p in j.replay()
                        for u in bytes(p).decode("utf-8", "surrogateescape").split("\n")
                        if u
                    ]
                kept = ""
                try:
                    for u in urls:
                        seen.forget(u)
                except Exception as exc:  # Bloom mode cannot forget
                    kept = f"; they stay recorded ({exc})"
                if urls:  # a kill -9, or an error whose undo failed too (the store went away)
                    click.echo(
                        f"neardup: a run of this job did not finish (killed, or failed before it could "
                        f"undo) after recording {len(urls)} URL(s) it may not have printed; forgotten "
                        f"so they come out again{kept}",
                        err=True,
                    )
                f.unlink()
            finally:
                os.close(fd)

    def open(self) -> None:
        """Create this run's file under another name, lock it, then rename it into place: a file
        with the recovered prefix is always either locked by a live run or left by a dead one."""
        from neardup.stores.journal import Journal

        staging = self.dir / f".neardup-urls-staging-{os.getpid()}"
        staging.unlink(missing_ok=True)
        Journal(staging, kind=_PENDING_KIND).close()
        self.lockfd = os.open(staging, os.O_RDONLY)
        fcntl.flock(self.lockfd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody else knows this name
        os.replace(staging, self.path)
        self.journal = Journal(self.path, kind=_PENDING_KIND, create=False)
        for _ in self.journal.replay():
            pass

    def stage(self, canon: list[str]) -> None:
        self.journal.append("\n".join(canon).encode("utf-8", "surrogateescape"), sync=True)

    def clear(self) -> None:
        # no fsync: should the truncation be lost, the next run prints the batch once more
        self.journal.reset()

    def close(self) -> None:
        """Remove the file, unless a batch is still in it (the next run forgets it)."""
        if self.journal is None:
            return
        empty = self.journal.count == 0
        self.journal.close()
        if empty:
            self.path.unlink(missing_ok=True)
        if self.lockfd is not None:
            os.close(self.lockfd)
            self.lockfd = None


_JOB_CLI = re.compile(r"[A-Za-z0-9_.-]{1,200}")


def _job(job: str) -> str:
    """The job id, refused when it is not exactly letters, digits and ``_.-`` (no stray newline)."""
    if not _JOB_CLI.fullmatch(job):
        raise ConfigError(f"job_id (--job) must be 1-200 characters of letters, digits and _.-, got {job!r}")
    return job


class _Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _SignalGuard:
    """SIGINT, SIGTERM and SIGHUP raise ``_Interrupted``, except inside ``with guard:``, where they
    are held until the block ends (the store's commit and the output's write then both happen)."""

    def __init__(self) -> None:
        self.inside = False
        self.pending: int | None = None

    def handler(self, signum: int, frame: object) -> None:
        if self.inside:
            self.pending = signum
        else:
            raise _Interrupted(signum)

    def __enter__(self) -> _SignalGuard:
        self.inside = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.inside = False
        if self.pending is not None and exc[0] is None:
            raise _Interrupted(self.pending)


@contextmanager
def _signals_between_batches() -> Iterator[_SignalGuard]:
    guard = _SignalGuard()
    names = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    try:
        old = {s: signal.signal(s, guard.handler) for s in names}
    except ValueError:  # not the main thread: signals stay as they are
        old = {}
    try:
        yield guard
    finally:
        for s, h in old.items():
            signal.signal(s, h)


class _Output:
    """Writes lines to stdout and knows which of them reached the reader.

    Bytes go straight to the file descriptor (no buffer that could hold URLs back). When stdout is a
    pipe, the bytes still in the pipe (FIONREAD) were written but never read: a reader that closes
    its end (``| head``) drops them, so they do not count as delivered.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            stream.flush()
            self.fd: int | None = stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            self.fd = None  # an in-memory stream (tests, embedding)
        self.is_pipe = self.fd is not None and stat.S_ISFIFO(os.fstat(self.fd).st_mode)
        self.written = 0  # bytes written so far
        # (end offset, canonical URL) of the lines written lately: enough to cover a full pipe
        self.recent: deque[tuple[int, str]] = deque()
        self.keep_bytes = (1 << 20) if self.is_pipe else 0
        self.pending: list[tuple[int, str]] = []  # the lines of the batch being written

    def deliver(self, lines: list[tuple[str, str]]) -> None:
        data = "".join(text for _, text in lines).encode("utf-8", "surrogateescape")
        end = self.written
        self.pending = []
        for canon, text in lines:
            end += len(text.encode("utf-8", "surrogateescape"))
            self.pending.append((end, canon))
        if self.fd is None:
            self.stream.write(data.decode("utf-8", "surrogateescape"))
            self.stream.flush()
            self.written = end
        else:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                self.written += n
                view = view[n:]
        if self.keep_bytes:
            self.recent.extend(self.pending)
            while self.recent and self.recent[0][0] <= self.written - self.keep_bytes:
                self.recent.popleft()
        self.pending = []

    def undelivered(self) -> list[str]:
        """Canonical URLs written (or about to be) but not read: after a failed write."""
        upto = self.written
        if self.is_pipe and self.fd is not None:
            try:
                buf = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0")
                upto -= struct.unpack("i", buf)[0]
            except OSError:
                upto = self.recent[0][0] if self.recent else upto  # unknown: assume none was read
        return [canon for end, canon in (*self.recent, *self.pending) if end > upto]


def _undo_undelivered(seen: Any, out: _Output, pending: _Pending | None, exc: OSError) -> None:
    """Forget the URLs recorded as seen that never reached the reader, say so, and exit."""
    lost = out.undelivered()
    undone = 0
    why = ""
    try:
        for canon in lost:
            seen.forget(canon)
            undone += 1
    except Exception as err:  # Bloom mode cannot forget; a store that went away
        why = f"; {len(lost) - undone} of them stay recorded ({err})"
    if pending is not None and not why:
        # every URL of the batch reached the reader or is forgotten: nothing is left for the next
        # run to redo. After a failed undo the pending file stays, and the next run tries again.
        pending.clear()
    if isinstance(exc, BrokenPipeError):
        what, code = "the output was closed (broken pipe)", 141
    else:
        what, code = f"cannot write the output ({exc.strerror or exc})", 2
    click.echo(
        f"neardup: {what}: {len(lost)} URL(s) not delivered were forgotten so they stay new{why}",
        err=True,
    )
    raise click.exceptions.Exit(code)


@urls_group.command("stats")
@_job_option
@_store_option
@click.option(
    "--bloom", type=FINITE_FLOAT, default=None, help="The job's Bloom false-positive rate, if in Bloom mode."
)
@click.option("--capacity", type=int, default=None, help="The job's capacity, if in Bloom mode.")
def stats_cmd(job: str, store: str, bloom: float | None, capacity: int | None) -> None:
    """Print the job's settings and URL count as JSON (exit 2 for a job the store does not hold)."""
    from neardup.exceptions import InputError

    with _open(_job(job), existing_store(store, "seen"), bloom=bloom, capacity=capacity) as seen:
        stats = seen.stats()
        memory = seen.store_url.scheme == "memory"
    # no job of that name is refused, as a mistyped store path is (a memory store starts empty)
    if memory or stats.get("created") is None:
        why = (
            "a memory:// store keeps nothing between runs"
            if memory
            else "it was never checked, or was forgotten (--all), or is past its ttl; check --job"
        )
        raise InputError(f"no job {job!r} in this store: {why}", source=stats["store"])
    for key in ("checked", "new", "seen", "invalid"):  # this process's counters: always 0 here
        stats.pop(key, None)
    click.echo(json.dumps(stats, indent=2, sort_keys=True, default=str))


@urls_group.command("forget")
@_job_option
@_store_option
@click.option("--all", "all_", is_flag=True, help="Forget the whole job.")
@click.argument("urls", nargs=-1)
def forget_cmd(job: str, store: str, all_: bool, urls: tuple[str, ...]) -> None:
    """Forget URLs (arguments, or stdin when none) so they count as new again; --all: the whole job."""
    with _open(_job(job), store) as seen:
        if all_:
            if urls:
                raise ConfigError("give either --all or URLs, not both")
            seen.forget_job()
            click.echo(f"forgot job {job}", err=True)
            return
        items = list(urls) or [line.strip() for line in sys.stdin if line.strip()]
        removed = sum(seen.forget(u) for u in items)
    click.echo(f"forgot {removed} of {len(items)} URL(s)", err=True)


@urls_group.command("canonical")
@click.option("--drop-param", "drop", multiple=True, help="Also remove this query parameter (glob ok).")
@click.option("--keep-param", "keep", multiple=True, help="Keep this parameter of the default list.")
@click.option("--no-default-params", is_flag=True, help="Start from an empty list of tracking parameters.")
@click.option("--strict", is_flag=True, help="Stop (exit 2) at a malformed URL instead of skipping it.")
def canonical_cmd(
    drop: tuple[str, ...], keep: tuple[str, ...], no_default_params: bool, strict: bool
) -> None:
    """Print the canonical form of each URL on stdin (malformed lines: skipped, counted on stderr)."""
    from neardup.exceptions import InputError
    from neardup.urls import canonicalize_url

    params = _drop_params(drop, keep, no_default_params)
    bad = 0
    for lineno, line in enumerate(sys.stdin, 1):
        url = line.strip()
        if not url:
            continue
        try:
            click.echo(canonicalize_url(url, drop_params=params))
        except InputError as exc:
            if strict:
                raise InputError(str(exc), source="<stdin>", line=lineno) from None
            bad += 1
    if bad:
        click.echo(f"neardup: skipped {bad} malformed URL(s)", err=True)
