"""``neardup urls``: the URL seen-store of a crawl job from the shell.

neardup urls check --job 108 --store seen.db < urls.txt > new.txt   # prints only new URLs
neardup urls stats --job 108 --store redis://127.0.0.1:6379/0
neardup urls forget --job 108 --store seen.db https://example.com/a
neardup urls canonical < urls.txt
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import click

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

    return SeenURLs(job, store, **kwargs)


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
    "--recrawl-after", type=float, default=None, help="Seconds after a fetch when a URL is due again."
)
@click.option(
    "--ttl", type=float, default=None, help="Seconds after the job started when its whole set expires."
)
@click.option(
    "--bloom", type=float, default=None, help="Bloom mode with this false-positive rate (e.g. 0.001)."
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
) -> None:
    """Read URLs (one a line) on stdin; print those new to the job (or due for re-crawl), record them.

    Malformed lines are skipped with a count on stderr (--strict: exit 2 at the first batch with one).
    """
    if batch_size < 1:
        raise ConfigError(f"--batch-size must be >= 1, got {batch_size}")
    from neardup.exceptions import InputError

    seen = _open(
        job,
        store,
        recrawl_after=recrawl_after,
        ttl=ttl,
        bloom=bloom,
        capacity=capacity,
        drop_params=_drop_params(drop, keep, no_default_params),
        canonicalize=not no_canonicalize,
    )
    out = sys.stdout
    n_in = n_bad = 0
    first_bad = ""
    try:
        for batch in _batches(sys.stdin, batch_size):
            good: list[tuple[str, str]] = []
            for lineno, url in batch:
                n_in += 1
                try:
                    good.append((url, seen.canonical(url)))
                except InputError as exc:
                    if strict:
                        raise InputError(str(exc), source="<stdin>", line=lineno) from None
                    n_bad += 1
                    first_bad = first_bad or f"line {lineno}: {exc}"
            flags = seen.check_and_add_many([c for _, c in good])
            for (url, canon), new in zip(good, flags, strict=True):
                if new:
                    out.write((canon if print_canonical else url) + "\n")
            out.flush()
    finally:
        seen.close()
    if n_bad:
        click.echo(f"neardup: skipped {n_bad} malformed URL(s) of {n_in} (first: {first_bad})", err=True)


@urls_group.command("stats")
@_job_option
@_store_option
@click.option(
    "--bloom", type=float, default=None, help="The job's Bloom false-positive rate, if in Bloom mode."
)
@click.option("--capacity", type=int, default=None, help="The job's capacity, if in Bloom mode.")
def stats_cmd(job: str, store: str, bloom: float | None, capacity: int | None) -> None:
    """Print the job's settings and URL count as JSON."""
    with _open(job, store, bloom=bloom, capacity=capacity) as seen:
        stats = seen.stats()
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
    with _open(job, store) as seen:
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
