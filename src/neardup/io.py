"""Read documents from JSONL, JSONL.gz, Parquet, plain text, or a directory of them.

One reader serves every command (fingerprint, nshash, dedup, eval), so bad input is reported the
same way everywhere: a one-line error naming the file, the line and the field.

>>> from neardup.io import iter_records
>>> # for rec in iter_records(["news.jsonl.gz"]): print(rec.id, rec.text[:10])
"""

from __future__ import annotations

import errno
import functools
import gzip
import io
import os
import queue
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar, cast

import orjson

from neardup._deps import require
from neardup._stale import remove_stale
from neardup.exceptions import InputError

__all__ = [
    "OutputGroup",
    "ReadStats",
    "Record",
    "atomic_outputs",
    "atomic_write",
    "check_outputs",
    "expand_inputs",
    "iter_json_objects",
    "iter_records",
    "json_object",
    "outputs_together",
    "record_from_obj",
    "skip_reason",
    "write_jsonl",
]

F = TypeVar("F", bound=Callable[..., Any])

_SUFFIXES = (".jsonl", ".jsonl.gz", ".json.gz", ".ndjson", ".parquet", ".txt", ".txt.gz")


@dataclass(slots=True)
class Record:
    """One input document. ``text`` or ``html`` is set; ``extra`` keeps the other fields."""

    id: str
    text: str | None
    html: str | None = None
    source: str = ""
    line: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


#: why a record was skipped (``--skip-bad``), by the start of what its error says
_REASONS = (
    ("is not UTF-8", "not UTF-8"),
    ("is not valid JSON", "not JSON"),
    ("expected a JSON object", "not a JSON object"),
    ("has no field", "no text field"),
    ("must be a string", "text not a string"),
    ("duplicate id", "duplicate id"),
    ("is empty", "empty text"),
    ("has no text", "no text"),
)


def skip_reason(err: InputError) -> str:
    """A short name for why a record is bad, for the per-reason counts of ``--skip-bad``.

    >>> skip_reason(InputError("is not valid JSON", source="a.jsonl", line=3))
    'not JSON'
    """
    text = str(err)
    for marker, reason in _REASONS:
        if marker in text:
            return reason
    return "other"


@dataclass(slots=True)
class ReadStats:
    """What a read saw: records read, records skipped (by reason), files with no readable record."""

    read: int = 0
    skipped: int = 0
    first_error: str | None = None
    reasons: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # "file: why", one per file

    def skip(self, err: InputError, reason: str | None = None) -> None:
        self.skipped += 1
        reason = reason or skip_reason(err)
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if self.first_error is None:
            self.first_error = str(err)


def _walk(top: Path) -> list[Path]:
    """The input files under a directory, sorted; a folder that cannot be read is an error."""

    def fail(err: OSError) -> None:
        raise InputError(
            f"cannot read this directory ({err.strerror}); fix its permissions or leave it out",
            source=err.filename or str(top),
        )

    found: list[Path] = []
    for root, _dirs, files in os.walk(top, onerror=fail):
        for name in files:
            f = Path(root) / name
            if name.endswith(_SUFFIXES) and f.is_file():
                found.append(f)
    return sorted(found)


def expand_inputs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named, and the input files found (sorted) in directories named.

    Inside :func:`atomic_outputs` every file is noted as an input, so no output may replace it.
    """
    out = _expand_inputs(paths)
    group = _GROUP.get()
    if group is not None:
        group.inputs.extend(p for p in out if str(p) != "-")
    return out


def _expand_inputs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if str(p) == "-":
            out.append(p)
        elif p.is_dir():
            found = _walk(p)
            if not found:
                raise InputError(
                    f"directory has no input files (expected {', '.join(_SUFFIXES)})", source=str(p)
                )
            out.extend(found)
        elif not p.exists():
            raise InputError("no such file", source=str(p))
        else:
            out.append(p)
    return out


class _GzipAhead(io.RawIOBase):
    """A gzip file decompressed by a thread of its own, a few pieces ahead of the reader: zlib
    releases the GIL while it inflates, so decompression runs on another core while the reader
    parses. A read error reaches the reader where the stream breaks, as ``gzip.open``'s would.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.gz"
    >>> _ = p.write_bytes(gzip.compress(b"one\\ntwo\\n"))
    >>> with io.BufferedReader(_GzipAhead(p)) as fh:
    ...     fh.readline(), fh.read()
    (b'one\\n', b'two\\n')
    """

    PIECE = 1 << 20
    AHEAD = 4

    def __init__(self, path: Path) -> None:
        super().__init__()
        # a missing or unreadable file fails here, in the caller; closed by close()
        self._file = gzip.open(path, "rb")  # noqa: SIM115
        self._pieces: queue.Queue[bytes | BaseException] = queue.Queue(self.AHEAD)
        self._stop = threading.Event()
        self._left = memoryview(b"")
        self._done = False
        self._thread = threading.Thread(target=self._inflate, name="neardup-gunzip", daemon=True)
        self._thread.start()

    def _inflate(self) -> None:
        try:
            while not self._stop.is_set():
                piece = self._file.read1(self.PIECE)  # what one inflate gives: all of it before a break
                self._put(piece)
                if not piece:
                    return
        except BaseException as exc:  # handed to the reader, which raises it
            self._put(exc)

    def _put(self, item: bytes | BaseException) -> None:
        while not self._stop.is_set():
            try:
                self._pieces.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        while not self._left and not self._done:
            item = self._pieces.get()
            if isinstance(item, BaseException):
                self._done = True
                raise item
            if not item:
                self._done = True
            self._left = memoryview(item)
        n = min(len(buf), len(self._left))
        buf[:n] = self._left[:n]
        self._left = self._left[n:]
        return n

    def close(self) -> None:
        if not self.closed:
            self._stop.set()
            # at interpreter exit the thread may be frozen inside a read of the file: leave both
            if not sys.is_finalizing():
                while True:  # room for a piece the thread is handing over, so it sees the stop at once
                    try:
                        self._pieces.get_nowait()
                    except queue.Empty:
                        break
                self._thread.join()
                self._file.close()
        super().close()


class _GzipProcess(io.RawIOBase):
    """A gzip file inflated by the system's ``gzip -dc`` in a process of its own: decompression on
    another core with no lock shared with the reader (a thread inflating in this process waits for
    the interpreter's lock each time it hands a piece over, and the reader waits for the thread:
    zh-xwlb ten times over reads in 2.8 s this way, 5-10 s through a thread). A broken stream raises
    where the inflated data ends, as ``gzip.open``'s would, with gzip's own words.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.gz"
    >>> _ = p.write_bytes(gzip.compress(b"one\\ntwo\\n"))
    >>> with io.BufferedReader(_GzipProcess(p, _gzip_program() or "gzip")) as fh:
    ...     fh.readline(), fh.read()
    (b'one\\n', b'two\\n')
    """

    def __init__(self, path: Path, program: str) -> None:
        super().__init__()
        # a missing or unreadable file fails here, in the caller, as open() would
        self._file = open(path, "rb")  # noqa: SIM115  (closed by close())
        try:
            self._proc = subprocess.Popen(
                [program, "-dc"],
                stdin=self._file,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env={**os.environ, "LC_ALL": "C"},
            )
        except BaseException:
            self._file.close()
            raise
        self._out = cast(io.RawIOBase, self._proc.stdout)

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        n = self._out.readinto(buf) or 0
        if n == 0 and self._proc.wait() != 0:
            said = (self._proc.stderr.read() if self._proc.stderr else b"").decode("utf-8", "replace")
            said = (
                " ".join(said.replace("gzip: stdin:", "").split())
                or f"gzip exited with {self._proc.returncode}"
            )
            raise OSError(f"the gzip stream is broken ({said})")
        return n

    def close(self) -> None:
        if not self.closed:
            if self._proc.poll() is None:  # a reader that stops early: the rest is not inflated
                self._proc.kill()
            self._proc.wait()
            for f in (self._proc.stdout, self._proc.stderr, self._file):
                if f is not None:
                    f.close()
        super().close()


@functools.cache
def _gzip_program() -> str | None:
    return shutil.which("gzip")


def _open_text(path: Path) -> IO[bytes]:
    if str(path) == "-":
        return sys.stdin.buffer
    if path.name.endswith(".gz"):
        program = _gzip_program()
        raw: io.RawIOBase = _GzipProcess(path, program) if program else _GzipAhead(path)
        return cast(IO[bytes], io.BufferedReader(raw, buffer_size=_GzipAhead.PIECE))
    return open(path, "rb")


def _decode(raw: bytes, source: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"is not UTF-8 (bad byte at offset {exc.start}); convert it with iconv", source=source, line=line
        ) from None


def json_object(raw: bytes | str, src: str, lineno: int) -> dict[str, Any]:
    """One JSONL line as an object; InputError naming the line when it is not UTF-8, not JSON, or
    not an object."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if raw[:3] == b"\xef\xbb\xbf" or raw[:1] == "\ufeff":  # a byte-order mark (Windows editors)
            return json_object(raw[3:] if isinstance(raw, bytes) else raw[1:], src, lineno)
        if isinstance(raw, bytes):
            _decode(raw, src, lineno)  # report encoding problems as such
        if "surrogate" in str(exc):
            raise InputError(
                "holds a \\ud800-\\udfff escape without its pair (a lone UTF-16 surrogate), which is not "
                "valid Unicode; fix the text or write the file as UTF-8",
                source=src,
                line=lineno,
            ) from None
        raise InputError("is not valid JSON", source=src, line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source=src, line=lineno)
    return obj


def _parse_json_line(
    raw: bytes, src: str, lineno: int, id_field: str, text_field: str, html_field: str | None
) -> Record:
    return record_from_obj(json_object(raw, src, lineno), src, lineno, id_field, text_field, html_field)


def iter_json_objects(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSONL or JSONL.gz file of any fields.

    A bad line raises InputError naming the file and line.
    """
    src = str(path)
    for lineno, raw in _lines(Path(path)):
        if isinstance(raw, InputError):
            raise raw
        if raw.strip():
            yield lineno, json_object(raw, src, lineno)


#: the longest input line read (bytes, after decompression); ``NEARDUP_MAX_LINE_BYTES`` overrides it
MAX_LINE_BYTES = 64 << 20


def max_line_bytes() -> int:
    """The line limit in force: ``NEARDUP_MAX_LINE_BYTES`` (bytes, or with a K/M/G suffix), else
    :data:`MAX_LINE_BYTES` (64 MiB).

    >>> max_line_bytes() == MAX_LINE_BYTES or "NEARDUP_MAX_LINE_BYTES" in os.environ
    True
    """
    raw = os.environ.get("NEARDUP_MAX_LINE_BYTES", "").strip()
    if not raw:
        return MAX_LINE_BYTES
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(raw[-1:].upper(), 1)
    digits = raw[:-1] if scale > 1 else raw
    if not digits.isdigit() or int(digits) < 1:
        from neardup.exceptions import ConfigError

        raise ConfigError(f"NEARDUP_MAX_LINE_BYTES must be a positive number of bytes (64M, 1G), got {raw!r}")
    return int(digits) * scale


@contextmanager
def _reading(source: str, fh: IO[bytes]) -> Iterator[None]:
    fd = _descriptor(fh) if source != "-" else None  # stdin: no size, no place
    if fd is not None:
        _READING[source] = fd
    try:
        yield
    finally:
        if fd is not None and _READING.get(source) == fd:
            del _READING[source]


#: source -> the descriptor of the file being read for it (the compressed file of a .gz input, which
#: the gzip process reads through the same descriptor): how far a reader has got, for an ETA
_READING: dict[str, int] = {}


def read_offset(source: str) -> int | None:
    """How many bytes of the input file ``source`` (as records name it) have been read so far, or
    None when it is not being read (or its position cannot be known: stdin, Parquet).

    >>> read_offset("not-being-read.jsonl") is None
    True
    """
    fd = _READING.get(source)
    if fd is None:
        return None
    try:
        return os.lseek(fd, 0, os.SEEK_CUR)
    except OSError:
        return None


def _descriptor(fh: IO[bytes]) -> int | None:
    raw = getattr(fh, "raw", fh)
    inner = getattr(raw, "_file", None)  # a .gz input: the compressed file under the gzip process
    try:
        if isinstance(inner, io.IOBase):
            return inner.fileno()
        return fh.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _lines(path: Path) -> Iterator[tuple[int, bytes | InputError]]:
    """(line number, raw line) of a file, gzip or plain; a read error is an InputError.

    A line longer than :func:`max_line_bytes` is never held whole: its place gets an InputError
    naming the file and line (the rest of the line is read past in bounded pieces, so a caller
    that skips bad records goes on with the next line).
    """
    limit = max_line_bytes()
    try:
        with _open_text(path) as fh, _reading(str(path), fh):
            lineno = 0
            while True:
                raw = fh.readline(limit + 1)
                if not raw:
                    return
                lineno += 1
                if len(raw) <= limit or (len(raw) == limit + 1 and raw.endswith(b"\n")):
                    yield lineno, raw
                    continue
                yield (
                    lineno,
                    InputError(
                        f"is longer than {limit:,} bytes (a line holds one record); set "
                        "NEARDUP_MAX_LINE_BYTES to read longer lines",
                        source=str(path),
                        line=lineno,
                    ),
                )
                while raw and not raw.endswith(b"\n"):  # skip the rest of it, a piece at a time
                    raw = fh.readline(1 << 20)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read: {exc}", source=str(path)) from None


def _iter_jsonl(
    path: Path, id_field: str, text_field: str, html_field: str | None
) -> Iterator[Record | InputError]:
    src = str(path)
    for lineno, raw in _lines(path):
        if isinstance(raw, InputError):
            yield raw
            continue
        if not raw.strip():
            continue
        try:
            yield _parse_json_line(raw, src, lineno, id_field, text_field, html_field)
        except InputError as err:
            yield err  # a bad line is handed on, so the caller may skip it and go on


def record_from_obj(
    obj: dict[str, Any], src: str, lineno: int, id_field: str, text_field: str, html_field: str | None
) -> Record:
    """A JSON object as a Record (the id defaults to ``file:line``); InputError names the line and
    the field when the object holds no usable text or HTML."""
    text = obj.get(text_field)
    html = obj.get(html_field) if html_field else None
    if text is None and html is None:
        want = f"{text_field!r}" + (f" or {html_field!r}" if html_field else "")
        raise InputError(f"has no field {want}", source=src, line=lineno, field=text_field)
    for name, value in ((text_field, text), (html_field, html)):
        if value is not None and not isinstance(value, str):
            raise InputError(
                f"field {name!r} must be a string, got {type(value).__name__}",
                source=src,
                line=lineno,
                field=name,
            )
    doc_id = obj.get(id_field)
    if isinstance(doc_id, (bool, dict, list)):
        raise InputError(
            f"field {id_field!r} must be a string or a number, got {type(doc_id).__name__}",
            source=src,
            line=lineno,
            field=id_field,
        )
    doc_id = f"{Path(src).name}:{lineno}" if doc_id is None else str(doc_id)
    extra = {k: v for k, v in obj.items() if k not in (id_field, text_field, html_field)}
    return Record(id=doc_id, text=text, html=html, source=src, line=lineno, extra=extra)


def _iter_text_lines(path: Path) -> Iterator[Record | InputError]:
    src = str(path)
    for lineno, raw in _lines(path):
        if isinstance(raw, InputError):
            yield raw
            continue
        try:
            text = _decode(raw, src, lineno).strip()
        except InputError as err:
            yield err
            continue
        if text:
            yield Record(id=f"{path.name}:{lineno}", text=text, source=src, line=lineno)


def _iter_parquet(
    path: Path, id_field: str, text_field: str, html_field: str | None
) -> Iterator[Record | InputError]:
    pq = require("pyarrow.parquet", "parquet", purpose="reading Parquet input")
    src = str(path)
    try:
        pfile = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(f"is not a readable Parquet file: {exc}", source=src) from None
    lineno = 0
    batches = pfile.iter_batches(batch_size=4096)
    while True:
        try:
            batch = next(batches, None)
        except Exception as exc:  # a damaged row group: pyarrow's own error types
            raise InputError(f"is not a readable Parquet file: {exc}", source=src) from None
        if batch is None:
            break
        for obj in batch.to_pylist():
            lineno += 1
            try:
                yield record_from_obj(obj, src, lineno, id_field, text_field, html_field)
            except InputError as err:
                yield err


def iter_records(
    paths: Iterable[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    html_field: str | None = "html",
    skip_bad: bool = False,
    stats: ReadStats | None = None,
    min_chars: int = 0,
    allow_unreadable: bool = False,
) -> Iterator[Record]:
    """Yield the documents of the given files and directories, in order.

    Bad records raise InputError naming file, line and field; with ``skip_bad`` they are counted
    in ``stats`` (by reason) and skipped. A file with no readable record at all (not UTF-8, not
    JSON, unreadable) still stops the read after the last file unless ``allow_unreadable``. An
    empty text is a document; texts shorter than ``min_chars`` characters are skipped (counted as
    ``short``).
    """
    stats = stats if stats is not None else ReadStats()
    for path in expand_inputs(paths):
        name = path.name
        if name.endswith(".parquet"):
            it: Iterator[Record | InputError] = _iter_parquet(path, id_field, text_field, html_field)
        elif name.endswith((".txt", ".txt.gz")):
            it = _iter_text_lines(path)
        else:
            it = _iter_jsonl(path, id_field, text_field, html_field)
        good = bad = 0
        first: InputError | None = None
        try:
            for rec in it:
                if isinstance(rec, InputError):
                    if not skip_bad:
                        raise rec
                    stats.skip(rec)
                    bad += 1
                    first = first or rec
                    continue
                if min_chars and rec.text is not None and len(rec.text.strip()) < min_chars:
                    short = InputError(
                        f"shorter than --min-chars {min_chars}", source=str(path), line=rec.line
                    )
                    stats.skip(short, "short")
                    continue
                stats.read += 1
                good += 1
                yield rec
        except InputError as err:  # the file itself: it cannot be opened or read on
            if not skip_bad or err.line is not None:
                raise
            stats.unreadable.append(str(err))
            stats.skip(err, "unreadable file")
            continue
        if bad and not good:
            stats.unreadable.append(f"{first} (and every other record of the file)")
    if stats.unreadable and not allow_unreadable:
        n = len(stats.unreadable)
        raise InputError(
            f"{n} input file{'s' if n > 1 else ''} had no readable record ({stats.unreadable[0]}); "
            "fix or leave them out, or pass --allow-unreadable to go on without them"
        )


class OutputGroup:
    """The outputs of one run, replaced together when the run succeeds and not at all otherwise.

    Made by :func:`atomic_outputs`. While it is active, :func:`atomic_write` writes each output to
    a temp file beside its target and fsyncs it, but renames nothing; :func:`expand_inputs` notes
    every input file, so an output that is one of them is refused before it is written.
    """

    def __init__(self) -> None:
        self.staged: list[tuple[Path, Path]] = []  # (temp file, target)
        self.inputs: list[Path] = []

    def is_input(self, target: Path) -> Path | None:
        for p in self.inputs:
            if _same_file(p, target):
                return p
        return None

    def commit(self) -> None:
        """Rename every staged temp file over its target, rolling back the renames done if one fails.

        SIGINT and SIGTERM are held for the few renames, so Ctrl-C never leaves half a set.
        """
        held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, held)
        done: list[tuple[Path, Path | None]] = []  # (target, backup of the old file or None)
        try:
            for tmp, target in self.staged:
                backup: Path | None = None
                if target.exists():
                    backup = target.with_name(f".{target.name}.bak-{os.getpid()}")
                    backup.unlink(missing_ok=True)
                    os.link(target, backup)
                os.replace(tmp, target)
                done.append((target, backup))
        except BaseException:
            for target, backup in reversed(done):
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink(missing_ok=True)
            self.abort()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        for _, backup in done:
            if backup is not None:
                backup.unlink(missing_ok=True)
        for parent in {t.parent for t, _ in done}:
            _fsync_dir(parent)
        self.staged = []

    def abort(self) -> None:
        for tmp, _ in self.staged:
            tmp.unlink(missing_ok=True)
        self.staged = []


_GROUP: ContextVar[OutputGroup | None] = ContextVar("neardup_output_group", default=None)


@contextmanager
def atomic_outputs(inputs: Iterable[str | os.PathLike[str]] = ()) -> Iterator[OutputGroup]:
    """Replace every output written inside the block together, once the block succeeds.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with atomic_outputs():
    ...     with atomic_write(d + "/a.jsonl") as fh:
    ...         _ = fh.write(b"a")
    ...     os.path.exists(d + "/a.jsonl")  # staged, not yet in place
    False
    >>> os.path.exists(d + "/a.jsonl")
    True
    """
    group = OutputGroup()
    group.inputs.extend(Path(p) for p in inputs if str(p) != "-")
    token = _GROUP.set(group)
    try:
        yield group
    except BaseException:
        group.abort()
        raise
    else:
        group.commit()
    finally:
        _GROUP.reset(token)


def outputs_together(inputs: str | tuple[str, ...], outputs: tuple[str, ...]) -> Callable[[F], F]:
    """Decorate a command: its outputs (the named parameters) are checked against its inputs (the
    named parameters: a path or a tuple of paths each) first, and written through
    :func:`atomic_outputs`, so they are replaced together or not at all."""
    names = (inputs,) if isinstance(inputs, str) else inputs

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            ins: list[str] = []
            for name in names:
                given = kwargs.get(name)
                if isinstance(given, (str, os.PathLike)):
                    ins.append(os.fspath(given))
                elif given:
                    ins.extend(os.fspath(p) for p in given)
            outs = [kwargs[o] for o in outputs if kwargs.get(o)]
            check_outputs(outs, ins)
            with atomic_outputs(ins):
                return func(*args, **kwargs)

        return cast(F, run)

    return wrap


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(
    outputs: Iterable[str | os.PathLike[str]], inputs: Iterable[str | os.PathLike[str]]
) -> None:
    """Refuse an output that is one of the inputs, lies where a directory input would read it, or
    is named twice.

    >>> check_outputs(["out.jsonl"], ["in.jsonl"])
    >>> check_outputs(["in.jsonl"], ["in.jsonl"])
    Traceback (most recent call last):
    ...
    neardup.exceptions.InputError: in.jsonl: the output is also an input; write it to another path
    """
    ins = [Path(p) for p in inputs if str(p) != "-"]
    seen: list[Path] = []
    for out in map(Path, outputs):
        if str(out) == "-" or _is_stream_path(out):
            continue
        for i in ins:
            if _same_file(i, out):
                raise InputError("the output is also an input; write it to another path", source=str(out))
            if i.is_dir() and out.name.endswith(_SUFFIXES):
                real_dir, real_out = os.path.realpath(i), os.path.realpath(out)
                if real_out.startswith(real_dir.rstrip("/") + "/"):
                    raise InputError(
                        f"the output is inside the input directory {i}, where it would be read as "
                        "input; write it elsewhere",
                        source=str(out),
                    )
        for other in seen:
            if _same_file(other, out):
                raise InputError("two outputs name the same file; give each its own path", source=str(out))
        seen.append(out)


def check_outside(
    directory: str | os.PathLike[str], outputs: Iterable[str | os.PathLike[str] | None], what: str
) -> None:
    """Refuse an output that is ``directory`` or lies inside it (``what`` names it: "the corpus
    index"), whatever its name: a file written there would replace one of its parts.

    >>> check_outside("idx", ["out.jsonl"], "the corpus index")
    >>> check_outside("idx", ["idx/header.json"], "the corpus index")
    Traceback (most recent call last):
    ...
    neardup.exceptions.InputError: idx/header.json: the output is inside the corpus index idx; write it elsewhere
    """
    root = os.path.realpath(directory).rstrip("/") + "/"
    for out in outputs:
        if out is None or str(out) == "-" or _is_stream_path(Path(out)):
            continue
        if (os.path.realpath(out).rstrip("/") + "/").startswith(root):
            raise InputError(
                f"the output is inside {what} {os.fspath(directory)}; write it elsewhere", source=str(out)
            )


def _is_stream_path(p: Path) -> bool:
    """Paths written in place, never replaced: under /dev or /proc (e.g. /dev/stdout, /dev/null)."""
    s = os.path.abspath(p)
    return s.startswith(("/dev/", "/proc/"))


def _fsync_dir(path: Path) -> None:
    dir_fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb", *, join: bool = True) -> Iterator[IO[Any]]:
    """Write a file atomically: a temp file beside it, fsync, rename. A crash leaves the old file.

    What the path names decides how:

    * a regular file or a new path: replaced atomically;
    * a symlink: the file it points to is replaced (the link stays);
    * a FIFO, a character device, or anything under /dev or /proc (``/dev/stdout``,
      ``/dev/null``): written in place, as a stream (no atomicity);
    * a block device, a socket or a directory: refused (InputError).

    Inside :func:`atomic_outputs` (and ``join``), the rename waits for the group's commit. An
    output that is one of the group's inputs is refused before anything is written.

    >>> with atomic_write("/tmp/neardup-doctest.txt", "w") as fh:
    ...     _ = fh.write("ok")
    """
    given = Path(path)
    try:
        st: os.stat_result | None = os.stat(given)  # follows symlinks
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise InputError(
            "a parent of the output path is a file, not a directory", source=str(given)
        ) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError("the output is a directory; name a file", source=str(given))
    if _is_stream_path(given) or (st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode))):
        if st is None:  # never create files under /dev or /proc
            raise InputError("no such device or stream; write to a file", source=str(given))
        if stat.S_ISBLK(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            raise InputError("the output is a block device or a socket; write to a file", source=str(given))
        try:
            with open(given, mode) as fh:
                yield fh
        except OSError as exc:
            raise _named(exc, given) from None
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(
            "the output is a block device or a socket; write to a file, a FIFO or /dev/stdout",
            source=str(given),
        )
    # a symlink is written through: its target is what gets replaced
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    group = _GROUP.get() if join else None
    if group is not None:
        clash = group.is_input(target)
        if clash is not None:
            raise InputError(
                f"the output is also an input ({clash}); write it to another path", source=str(given)
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    # the temp file carries this process's pid; those of a killed run (and the backup of a run
    # killed while renaming) are removed here once their owner is gone
    remove_stale(target.parent, f".{target.name}.", ".tmp-")
    remove_stale(target.parent, f".{target.name}.", ".bak-")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp-{os.getpid()}", dir=target.parent)
    except OSError as exc:  # name the file the user asked for, not the temp file
        raise OSError(exc.errno, exc.strerror, str(given)) from None
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; a normal file honours the umask
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if group is not None:
            group.staged.append((Path(tmp), target))
            return
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _named(exc, given) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _named(exc: OSError, path: Path) -> OSError:
    """``exc`` naming the output the user gave when the write itself failed (a full disk)."""
    if exc.filename is not None:
        return exc
    if exc.errno is None:  # raised by a library (numpy's save) without the system's error
        return OSError(errno.EIO, f"could not write ({exc or 'the disk may be full'})", str(path))
    return OSError(exc.errno, exc.strerror, str(path))


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write one JSON line per row atomically (an interrupted run leaves no partial file), gzipped
    for a ``.gz`` name; returns the number of rows. The writer of every ``neardup dedup`` output
    (local, ``--against``, Spark) and of the CLI's other JSONL outputs.

    >>> import tempfile
    >>> write_jsonl(tempfile.mkdtemp() + "/rows.jsonl", [{"id": "a"}, {"id": "b"}])
    2
    """
    n = 0
    with atomic_write(path, "wb") as fh:
        out: Any = gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) if os.fspath(path).endswith(".gz") else fh
        for row in rows:
            out.write(orjson.dumps(row) + b"\n")
            n += 1
        if out is not fh:
            out.close()
    return n
