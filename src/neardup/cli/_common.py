"""Pieces every command uses: input fields, options made from config dataclasses, progress, summaries.

A command's settings come from one frozen config dataclass (``DedupConfig``, ``SimHashConfig``,
``ServiceSettings``). Each command module keeps a table keyed by field path (``"match.keep"``) of
how a field shows on the command line (``Flag``); ``config_options`` turns the table into click
options whose defaults are the dataclass's own, and ``config_from_options`` turns the parsed values
back into the dataclass by ``dataclasses.replace``, so a field added to the table appears in every
command that uses the config, with the library's default.

>>> from neardup.dedup.config import DedupConfig
>>> flags = {"workers": Flag(("--workers", "-j"), "Processes.")}
>>> config_from_options(DedupConfig, flags, {"workers": 2}, DedupConfig()).workers
2
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from neardup.exceptions import ConfigError, InputError
from neardup.io import ReadStats, Record, iter_records

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C")

# --------------------------------------------------------------------------------- input fields

#: the INPUTS... argument of commands that read documents (files, directories, ``-`` for stdin)
inputs_argument = click.argument("inputs", nargs=-1, required=True)


def output_option(
    help: str, *, name: str = "out", type: Any = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The required ``-o/--out`` (or ``-o/--output``) option of a command that writes one result."""
    return click.option(f"--{name}", "-o", name, required=True, type=type, help=help)


input_options = [
    click.option("--id-field", default="id", show_default=True, help="JSON field holding the document id."),
    click.option("--text-field", default="text", show_default=True, help="JSON field holding the text."),
    click.option(
        "--html-field",
        default="html",
        show_default=True,
        help="JSON field holding HTML (main text is extracted).",
    ),
    click.option(
        "--skip-bad", is_flag=True, help="Count and skip bad records (by reason) instead of stopping."
    ),
    click.option(
        "--allow-unreadable",
        is_flag=True,
        help="With --skip-bad: go on when a whole input file has no readable record "
        "(default: exit 2 naming it, after reading the others).",
    ),
]


@dataclasses.dataclass(frozen=True)
class InputFields:
    """Where a record's id, text and HTML are, and whether bad records are skipped.

    >>> InputFields(html_field="").html_field is None
    True
    """

    id_field: str = "id"
    text_field: str = "text"
    html_field: str | None = "html"
    skip_bad: bool = False
    min_chars: int = 0
    allow_unreadable: bool = False
    #: --id-field was given on the command line (not its default): a read in which no record
    #: holds that field is then refused, see ``records``
    id_field_given: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "html_field", self.html_field or None)
        if self.allow_unreadable and not self.skip_bad:
            raise ConfigError("--allow-unreadable goes with --skip-bad (it lets a run skip whole files)")

    def records(
        self, inputs: Iterable[str], *, stats: ReadStats | None = None, description: str | None = None
    ) -> Iterator[Record]:
        """The records of ``inputs``; with ``description``, behind a progress bar on a terminal."""
        records = iter_records(
            tuple(inputs),
            id_field=self.id_field,
            text_field=self.text_field,
            html_field=self.html_field,
            skip_bad=self.skip_bad,
            stats=stats,
            min_chars=self.min_chars,
            allow_unreadable=self.allow_unreadable,
        )
        if self.id_field_given:
            records = _ids_named(records, self.id_field)
        return records if description is None else progress(records, description=description)


def _ids_named(records: Iterator[Record], id_field: str) -> Iterator[Record]:
    """The records; at the end, an InputError when JSON or Parquet records were read and none of
    them held ``id_field``. A record without the field is named ``file:line`` (the documented
    fallback), so a mistyped --id-field would otherwise name every document so, silently."""
    named = unnamed = 0
    first = ""
    for rec in records:
        if not rec.source.endswith((".txt", ".txt.gz")):  # a text line has no fields to name it
            # the reader's fallback id: an id that reads so is taken for one (they cannot be told apart)
            if rec.id == f"{Path(rec.source).name}:{rec.line}":
                unnamed += 1
                first = first or rec.source
            else:
                named += 1
        yield rec
    if unnamed and not named:
        raise InputError(
            f"no record has the field {id_field!r} given with --id-field (each would be named "
            "file:line); check the field's name, or leave --id-field out",
            source=first,
        )


#: InputFields fields that are not options of @input_fields
_NOT_OPTIONS = ("min_chars", "id_field_given")


def input_fields(func: F) -> F:
    """Add the input-field options to a command and hand them to it as one ``fields: InputFields``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        names = [f.name for f in dataclasses.fields(InputFields) if f.name not in _NOT_OPTIONS]
        ctx = click.get_current_context(silent=True)
        source = ctx.get_parameter_source("id_field") if ctx is not None else None
        given = source not in (None, click.core.ParameterSource.DEFAULT)
        fields = InputFields(**{name: kwargs.pop(name) for name in names}, id_field_given=given)
        return func(*args, fields=fields, **kwargs)

    return add_options(input_options)(typing.cast(F, wrapper))


def min_chars_option(func: F) -> F:
    """``--min-chars N`` for commands that deduplicate; put it under ``@input_fields`` (it sets
    ``fields.min_chars``)."""

    @functools.wraps(func)
    def wrapper(*args: Any, min_chars: int, fields: InputFields, **kwargs: Any) -> Any:
        return func(*args, fields=dataclasses.replace(fields, min_chars=min_chars), **kwargs)

    option = click.option(
        "--min-chars",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Skip texts shorter than this many characters (counted as short). With 0, an empty text "
        "is a document like any other (empty texts are exact duplicates of each other).",
    )
    return typing.cast(F, option(wrapper))


def add_options(options: list[Any]) -> Callable[[F], F]:
    """Apply a list of click options to a command function, in order."""

    def wrap(func: F) -> F:
        for opt in reversed(options):
            func = opt(func)
        return func

    return wrap


# --------------------------------------------------------------------------- options from configs

_UNSET: Any = object()


@dataclasses.dataclass(frozen=True)
class Flag:
    """How one config field shows on the command line.

    ``flags``: the option names, the first long one naming the parameter; ``type``: a click type
    (default: from the field's annotation, a ``Literal`` becoming a choice); ``default``: overrides
    the config's default (e.g. ``None`` for a value computed at run time); ``to_field``: turns the
    option's value into the field's.
    """

    flags: tuple[str, ...]
    help: str | None = None
    type: Any = None
    default: Any = _UNSET
    to_field: Callable[[Any], Any] | None = None
    is_flag: bool = False
    multiple: bool = False
    show_default: bool = True
    required: bool = False
    metavar: str | None = None

    @property
    def dest(self) -> str:
        long = next(f for f in self.flags if f.startswith("--"))
        return long[2:].replace("-", "_")


def config_fields(cls: type[Any], prefix: str = "") -> dict[str, Any]:
    """Every field of a config dataclass by path, nested config dataclasses flattened.

    >>> from neardup.dedup.config import DedupConfig
    >>> paths = config_fields(DedupConfig)
    >>> paths["workers"], paths["match.keep"]
    (<class 'int'>, typing.Literal['fuller', 'first', 'longest', 'newest'])
    """
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            out.update(config_fields(typing.cast(type, hint), prefix + f.name + "."))
        else:
            out[prefix + f.name] = hint
    return out


def _click_type(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return click.Choice([str(a) for a in typing.get_args(hint)])
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return _click_type(args[0])
    if hint is float:
        return FINITE_FLOAT
    if hint in (int, str):
        return hint
    raise TypeError(f"give the Flag of a field typed {hint!r} an explicit click type")


class FiniteFloat(click.ParamType):  # type: ignore[type-arg]  # generic only in recent click
    """A float option that refuses ``nan`` and ``inf`` (click's FLOAT takes both, and a NaN passes
    every range check a setting makes, as each comparison with it is false)."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return float(number)


FINITE_FLOAT = FiniteFloat()


def _lookup(config: Any, path: str) -> Any:
    for part in path.split("."):
        config = getattr(config, part)
    return config


def config_options(cls: type[Any], flags: Mapping[str, Flag], base: Any) -> list[Any]:
    """Click options for the fields in ``flags`` (table order), defaults read from ``base``."""
    hints = config_fields(cls)
    options = []
    for path, spec in flags.items():
        default = _lookup(base, path) if spec.default is _UNSET else spec.default
        extra: dict[str, Any] = {"is_flag": True} if spec.is_flag else {"multiple": spec.multiple}
        if not spec.is_flag:
            extra["type"] = spec.type if spec.type is not None else _click_type(hints[path])
        if default is not None:  # click counts an explicit None as a given default (no "required")
            extra["default"] = default
        options.append(
            click.option(
                *spec.flags,
                spec.dest,
                show_default=spec.show_default and not spec.is_flag,
                help=spec.help,
                required=spec.required,
                metavar=spec.metavar,
                **extra,
            )
        )
    return options


def config_from_options(cls: type[C], flags: Mapping[str, Flag], opts: dict[str, Any], base: C) -> C:
    """``base`` with the fields of ``flags`` set from parsed options (popped from ``opts``)."""
    values: dict[str, Any] = {}
    for path, spec in flags.items():
        if spec.dest in opts:
            value = opts.pop(spec.dest)
            values[path] = spec.to_field(value) if spec.to_field is not None else value
    try:
        return typing.cast(C, _replace(base, values))
    except ConfigError as exc:
        raise ConfigError(_as_flags(str(exc), flags)) from None


def _as_flags(message: str, flags: Mapping[str, Flag]) -> str:
    """A config's message about a field, naming the option the user gave instead.

    >>> _as_flags("max_component must be >= 1, got 0", {"match.max_component": Flag(("--max-component",))})
    '--max-component must be >= 1, got 0'
    """
    for path, spec in flags.items():
        field = path.rsplit(".", 1)[-1]
        if message.startswith(field + " "):
            return spec.flags[0] + message[len(field) :]
    return message


def _replace(config: Any, values: Mapping[str, Any]) -> Any:
    direct = {path: v for path, v in values.items() if "." not in path}
    nested: dict[str, dict[str, Any]] = {}
    for path, v in values.items():
        if "." in path:
            head, rest = path.split(".", 1)
            nested.setdefault(head, {})[rest] = v
    for head, sub in nested.items():
        direct[head] = _replace(getattr(config, head), sub)
    return dataclasses.replace(config, **direct)


def with_config(cls: type[C], flags: Mapping[str, Flag], base: C, name: str = "options") -> Callable[[F], F]:
    """Add a config's options to a command and hand their values to it as one dict ``name``."""

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {spec.dest: kwargs.pop(spec.dest) for spec in flags.values()}
            return func(*args, **{name: values}, **kwargs)

        return add_options(config_options(cls, flags, base))(typing.cast(F, wrapper))

    return wrap


# -------------------------------------------------------------------------------------- output


def progress(
    items: Iterable[T], *, description: str, total: int | None = None, enabled: bool | None = None
) -> Iterator[T]:
    """Wrap an iterable with a progress bar on stderr; off when stderr is not a terminal."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield from items
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)


#: seconds a run goes on before its progress line appears (unless --progress asks at once)
PROGRESS_DELAY = 2.0
#: seconds between two progress lines when stderr is not a terminal (--progress into a log)
PROGRESS_LOG_EVERY = 10.0
COMPILING = "neardup: compiling kernels for this machine, first run only (later runs start at once)"


@dataclasses.dataclass(frozen=True)
class Feedback:
    """What a long command tells the user on stderr: a progress line, the compile notice, the summary.

    ``quiet``: none of them. ``progress``: True forces the progress line (also into a log), False
    turns it off, None shows it on a terminal for runs longer than ``PROGRESS_DELAY`` seconds.
    """

    quiet: bool = False
    progress: bool | None = None

    def run(self, command: str, inputs: Iterable[str] = ()) -> RunProgress:
        enabled = False if self.quiet else (sys.stderr.isatty() if self.progress is None else self.progress)
        return RunProgress(
            command,
            tuple(inputs),
            enabled=enabled,
            delay=0.0 if self.progress else PROGRESS_DELAY,
            # NEARDUP_COMPILE_NOTICE=0 silences the first run's notice (test suites reading stderr)
            announce_compiling=not self.quiet and os.environ.get("NEARDUP_COMPILE_NOTICE", "1") != "0",
        )

    def summary(self, message: str) -> None:
        if not self.quiet:
            echo_err(message)


class RunProgress:
    """The progress of one run: documents read, signed and matched, rate and ETA, on one line.

    On a terminal the line is redrawn in place (rich) and removed at the end; into a log (stderr
    not a terminal, ``--progress``) a plain line is written every ``PROGRESS_LOG_EVERY`` seconds
    and once at the end. The ETA is the share of the input bytes read (files done, and how far
    into the file being read).
    """

    def __init__(
        self,
        command: str,
        inputs: tuple[str, ...],
        *,
        enabled: bool,
        delay: float = PROGRESS_DELAY,
        announce_compiling: bool = True,
    ) -> None:
        import time

        self.command = command
        self.enabled = enabled
        self.delay = delay
        self.announce_compiling = announce_compiling
        self.counts = {"read": 0, "signed": 0, "matched": 0}
        self.t0 = time.monotonic()
        self._clock = time.monotonic
        self._last = -1e9
        self._live: Any = None
        self._console: Any = None
        self._tty = sys.stderr.isatty()
        self._sizes = _input_sizes(inputs) if enabled else {}
        self._total = sum(self._sizes.values())
        self._done_bytes = 0
        self._current: str | None = None
        self._uninstall: Callable[[], None] | None = None
        self._printed = ""

    def __enter__(self) -> RunProgress:
        if self.announce_compiling:
            from neardup._jit import on_first_compile

            self._uninstall = on_first_compile(lambda: self.note(COMPILING))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._uninstall is not None:
            self._uninstall()
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self.enabled and not self._tty and exc[0] is None and self._printed != self.line():
            echo_err(self.line())

    # -- what the stages report
    def reading(self, records: Iterable[T]) -> Iterator[T]:
        """Count records as they are read (and the bytes of each finished file for the ETA)."""
        if not self.enabled:
            yield from records
            return
        source = None
        for rec in records:
            src = getattr(rec, "source", None)
            if src != source:
                if source is not None:
                    self._done_bytes += self._sizes.get(source, 0)
                source = self._current = src
            self.counts["read"] += 1
            self._tick()
            yield rec
        if source is not None:
            self._done_bytes += self._sizes.get(source, 0)
        self._current = None

    def _read_bytes(self) -> int:
        from neardup.io import read_offset

        current = self._current
        into = read_offset(current) if current is not None else None
        return self._done_bytes + (min(into, self._sizes.get(current, 0)) if into and current else 0)

    def signed(self, n: int) -> None:
        self.counts["signed"] += n
        self._tick()

    def matched(self, n: int) -> None:
        self.counts["matched"] += n
        self._tick(force=True)

    def note(self, message: str) -> None:
        """A line above the progress line (the compile notice)."""
        if self._live is not None:
            self._live.console.print(message, markup=False, highlight=False)
        else:
            echo_err(message)

    # -- drawing
    def line(self) -> str:
        elapsed = max(self._clock() - self.t0, 1e-9)
        c = self.counts
        rate = c["read"] / elapsed
        parts = [
            f"neardup {self.command}: read {c['read']:,}, signed {c['signed']:,}, matched {c['matched']:,}"
        ]
        parts.append(f"{rate:,.0f} docs/s")
        if c["matched"]:
            parts.append("done")
        elif self._total and 0 < (done := self._read_bytes()) < self._total:
            eta = elapsed * (self._total - done) / done
            parts.append(f"ETA {_duration(eta)}")
        elif self._total and self._done_bytes >= self._total:
            parts.append("matching")
        else:
            parts.append("ETA unknown until the first file is read")
        return ", ".join(parts)

    def _tick(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self._clock()
        if now - self.t0 < self.delay:
            return
        if self._tty:
            if not force and now - self._last < 0.2:
                return
            self._last = now
            if self._live is None:
                from rich.console import Console
                from rich.live import Live

                self._live = Live(console=Console(stderr=True), transient=True, auto_refresh=False)
                self._live.start()
            from rich.text import Text

            self._live.update(Text(self.line()), refresh=True)
        elif force or now - self._last >= PROGRESS_LOG_EVERY:
            self._last = now
            self._printed = self.line()
            echo_err(self._printed)


def _input_sizes(inputs: Iterable[str]) -> dict[str, int]:
    """The byte size of every input file (directories expanded), keyed as records name their source."""
    import os

    from neardup.io import _expand_inputs

    try:
        files = _expand_inputs(inputs)
    except Exception:  # the reader reports a bad input itself
        return {}
    sizes = {}
    for f in files:
        with contextlib.suppress(OSError):
            sizes[str(f)] = os.path.getsize(f)
    return sizes


def _duration(seconds: float) -> str:
    """
    >>> _duration(42.3), _duration(125), _duration(7300)
    ('42 s', '2 min 5 s', '2 h 1 min')
    """
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


feedback_option_list = [
    click.option(
        "--quiet", "-q", is_flag=True, help="Nothing on stderr but errors (no progress, no summary)."
    ),
    click.option(
        "--progress/--no-progress",
        default=None,
        help="Show the progress line even when stderr is not a terminal (default: on a terminal, "
        "for runs over a few seconds).",
    ),
]


def feedback_options(func: F) -> F:
    """Add ``-q/--quiet`` and ``--progress`` to a command and hand them to it as ``feedback: Feedback``."""

    @functools.wraps(func)
    def wrapper(*args: Any, quiet: bool, progress: bool | None, **kwargs: Any) -> Any:
        return func(*args, feedback=Feedback(quiet=quiet, progress=progress), **kwargs)

    return add_options(feedback_option_list)(typing.cast(F, wrapper))


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    r"""``text`` with control characters (escape sequences, bidi overrides, a file name's non-UTF-8
    bytes) shown as ``\x1b``-style escapes, so a file name cannot drive the terminal; newlines
    too unless ``lines``. Every message the CLI prints that may hold a path or an input goes
    through it.

    >>> printable("bad\x1b[2Jname\u202e.txt\n")
    'bad\\x1b[2Jname\\u202e.txt\\x0a'
    >>> printable("a\nb", lines=True)
    'a\nb'
    """
    out = _CONTROL.sub(_escape, text)
    return out if lines else out.replace("\n", "\\x0a")


def echo_err(message: str) -> None:
    click.echo(printable(message, lines=True), err=True)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word, singular for exactly one.

    >>> plural(1, "cluster"), plural(3, "group"), plural(2, "copy", "copies")
    ('1 cluster', '3 groups', '2 copies')
    """
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def compact_json(obj: Any) -> str:
    """One line of JSON without spaces, non-ASCII kept (the style of every command's output).

    >>> compact_json({"id": "新闻", "n": 1})
    '{"id":"新闻","n":1}'
    """
    import json

    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def parse_conf(items: Iterable[str], option: str = "--conf") -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict; anything else is a one-line error naming the option.

    >>> parse_conf(["spark.a=1", "b=x=y"])
    {'spark.a': '1', 'b': 'x=y'}
    """
    conf: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"{option} takes KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        conf[key] = value
    return conf


def existing_store(url: str, kind: Literal["kv", "seen"]) -> str:
    """``url``, checked to name a store that exists when it is file-backed: a command that only
    reads a store (``stats``) refuses a mistyped path instead of creating an empty store there.

    >>> existing_store("memory://", "kv")
    'memory://'
    """
    from neardup.stores import schemes
    from neardup.stores._url import parse_store_url

    parsed = parse_store_url(url, schemes(kind))
    if parsed.scheme in ("file", "leveldb", "sqlite") and not os.path.exists(os.path.expanduser(parsed.path)):
        raise InputError(
            "no such store; check the path (this command reads a store, it makes none)", source=url
        )
    return url
