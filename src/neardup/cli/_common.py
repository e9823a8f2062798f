"""Pieces every command uses: options for input fields, progress on stderr, summaries."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import click

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

input_options = [
    click.option("--id-field", default="id", show_default=True, help="JSON field holding the document id."),
    click.option("--text-field", default="text", show_default=True, help="JSON field holding the text."),
    click.option(
        "--html-field",
        default="html",
        show_default=True,
        help="JSON field holding HTML (main text is extracted).",
    ),
    click.option("--skip-bad", is_flag=True, help="Count and skip bad records instead of stopping."),
]


def add_options(options: list[Any]) -> Callable[[F], F]:
    """Apply a list of click options to a command function, in order."""

    def wrap(func: F) -> F:
        for opt in reversed(options):
            func = opt(func)
        return func

    return wrap


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


def echo_err(message: str) -> None:
    click.echo(message, err=True)


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
