"""``neardup nshash FILE... --store URL`` (similar_id of each document) and ``neardup nshash stats``.

neardup nshash news.jsonl.gz --store leveldb:///data/nshash.db > ids.jsonl
neardup nshash stats --store leveldb:///data/nshash.db
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import IO, Any

import click

from neardup.cli._common import (
    Feedback,
    InputFields,
    compact_json,
    echo_err,
    existing_store,
    input_fields,
    plural,
)
from neardup.exceptions import InputError
from neardup.io import outputs_together

__all__ = ["nshash_group"]

_HASHES = ("md5", "farmhash", "xxh3", "murmur3")


class _FileOrCommandGroup(click.Group):
    """A group whose first argument is a subcommand (``stats``, ``run``) or else the input files of ``run``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_FileOrCommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
def nshash_group() -> None:
    """nshash: group documents by the hashes of their n longest sentences.

    \b
    neardup nshash FILE... --store URL     write {"id", "similar_id"} per document (JSONL)
    neardup nshash stats --store URL       groups and their sizes in a store

    Store URLs: memory:// (default), file:///path/snap, leveldb:///path/db,
    redis://host:6379/0?prefix=job.
    """


@nshash_group.command("run")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option(
    "--store",
    "store_url",
    default="memory://",
    show_default=True,
    help="Where sentence hashes and ids live (memory://, file://, leveldb://, redis://).",
)
@click.option("--hashfunc", type=click.Choice(_HASHES), default="md5", show_default=True)
@click.option(
    "-n",
    "n",
    type=click.IntRange(1, 255),
    default=5,
    show_default=True,
    help="Longest sentences hashed per document (1: the longest only).",
)
@click.option(
    "--min-sentence-chars",
    type=click.IntRange(0),
    default=30,
    show_default=True,
    help="Shorter sentences are ignored; a text with none this long is hashed whole.",
)
@click.option("--batch-size", type=click.IntRange(1), default=2000, show_default=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    help="Output JSONL (default stdout), replaced once the run succeeds.",
)
@click.option(
    "--stream",
    is_flag=True,
    help="Write ids as they are assigned (constant memory). Default: buffer and write the merged "
    "(final) id of every document at the end.",
)
@input_fields
@outputs_together(inputs="files", outputs=("output",))
def run_cmd(
    files: tuple[str, ...],
    store_url: str,
    hashfunc: str,
    n: int,
    min_sentence_chars: int,
    batch_size: int,
    output: str,
    stream: bool,
    fields: InputFields,
) -> None:
    """Write each document's similar_id: documents sharing one of their n longest sentences share it."""
    from neardup.fingerprint.nshash import NSHash
    from neardup.io import ReadStats

    stats = ReadStats()
    t0 = time.perf_counter()
    ndocs = 0
    ids: list[str] = []
    sids: list[int] = []
    with (
        _output(output) as out,
        Feedback(progress=False).run("nshash", files),  # the compile notice where numba must compile
        NSHash(
            hashfunc=hashfunc,
            hashdb=store_url,
            n=n,
            min_sentence_chars=min_sentence_chars,
            batch_size=batch_size,
        ) as nsh,
    ):
        records = fields.records(files, stats=stats, description="nshash")
        batch_ids: list[str] = []
        batch_texts: list[str] = []

        def assign() -> None:
            got = nsh.get_similar_many(batch_texts)
            if stream:
                _write(out, batch_ids, got)
            else:
                ids.extend(batch_ids)
                sids.extend(got)
            batch_ids.clear()
            batch_texts.clear()

        for rec in records:
            text = rec.text if rec.text is not None else _main_text(rec.html or "", rec.source, rec.line)
            if not text.strip():
                err = InputError("has no text", source=rec.source, line=rec.line, field=fields.text_field)
                if not fields.skip_bad:
                    raise err
                stats.skip(err)
                continue
            batch_ids.append(rec.id)
            batch_texts.append(text)
            ndocs += 1
            if len(batch_texts) >= batch_size:
                assign()
        if batch_texts:
            assign()
        if not stream:
            unique = sorted(set(sids))
            final = dict(zip(unique, nsh.resolve(unique), strict=False))
            sids = [final[s] for s in sids]
            _write(out, ids, sids)
        groups = len(set(sids)) if not stream else None
        nsh.flush()  # the store saved before the ids it assigned are published
    secs = time.perf_counter() - t0
    line = f"nshash: {plural(ndocs, 'document')} in {secs:.2f} s"
    if groups is not None:
        line += f", {plural(groups, 'group')}, {plural(ndocs - groups, 'near-duplicate')}"
    if stats.skipped:
        line += f"; skipped {plural(stats.skipped, 'bad record')} (first: {stats.first_error})"
    echo_err(line)


@contextlib.contextmanager
def _output(path: str) -> Iterator[IO[str]]:
    """Standard output for ``-``; else a file written atomically, in place once the run succeeds."""
    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    from neardup.io import atomic_write

    with atomic_write(path, "wb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        try:
            yield text
        finally:
            text.detach()  # flushed into the file atomic_write syncs and renames


def _main_text(html: str, source: str, line: int) -> str:
    try:
        from neardup.contentseen.extract import extract_main_text
    except ImportError:
        raise InputError(
            "has HTML but no text, and HTML extraction (neardup.contentseen) is unavailable",
            source=source,
            line=line,
        ) from None
    return str(extract_main_text(html))


def _write(output: IO[str], ids: list[str], sids: list[int]) -> None:
    output.writelines(
        compact_json({"id": i, "similar_id": s}) + "\n" for i, s in zip(ids, sids, strict=False)
    )


@nshash_group.command("stats")
@click.option("--store", "store_url", required=True, help="The store to inspect.")
@click.option("--top", type=click.IntRange(0), default=10, show_default=True, help="Largest groups to list.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats_cmd(store_url: str, top: int, as_json: bool) -> None:
    """Groups in a store and their sizes (documents assigned to each)."""
    from neardup.stores import open_store

    with open_store(existing_store(store_url, "kv")) as store:
        info: dict[str, Any] = store.stats()
        settings = store.get_meta("nshash")
        sizes = Counter(size for _, size in store.groups())
        largest = sorted(store.groups(), key=lambda g: (-g[1], g[0]))[:top]
    buckets = [(1, 1), (2, 2), (3, 5), (6, 10), (11, 100), (101, None)]
    hist = {}
    for lo, hi in buckets:
        label = str(lo) if lo == hi else (f"{lo}-{hi}" if hi else f">{lo - 1}")
        hist[label] = sum(c for s, c in sizes.items() if s >= lo and (hi is None or s <= hi))
    info["settings"] = json.loads(settings) if settings else None
    info["group_sizes"] = hist
    info["largest"] = [{"similar_id": g, "size": s} for g, s in largest]
    if as_json:
        click.echo(compact_json(info))
        return
    out = sys.stdout
    for key in ("backend", "url", "prefix", "keys", "ids_assigned", "groups", "aliases", "assignments"):
        if key in info:
            out.write(f"{key:14s} {info[key]}\n")
    if info["settings"]:
        out.write("settings       " + ", ".join(f"{k}={v}" for k, v in info["settings"].items()) + "\n")
    out.write("group size     groups\n")
    for label, count in hist.items():
        out.write(f"  {label:12s} {count}\n")
    if largest:
        out.write("largest groups (similar_id: documents)\n")
        for g, s in largest:
            out.write(f"  {g}: {s}\n")
