"""``neardup dedup``: one output line per input document; optionally against a corpus index.

neardup dedup news.jsonl.gz --out clusters.jsonl --keep-out kept.jsonl
neardup dedup new/ --against corpus.idx --merge --out new-clusters.jsonl
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import numpy as np
import orjson

from neardup.cli._common import add_options, echo_err, input_options, progress
from neardup.dedup.config import DedupConfig
from neardup.exceptions import ConfigError, InputError
from neardup.io import ReadStats, Record, atomic_write, iter_records, outputs_together
from neardup.match.config import KEEP_RULES

__all__ = [
    "DEFAULTS",
    "build_config",
    "dedup_cmd",
    "engine_options",
    "format_summary",
    "read_records",
    "write_keep",
    "write_rows",
]

DEFAULTS = DedupConfig()  # the CLI's defaults are the library's (chosen in docs/quality.md)
MATCH = DEFAULTS.match

#: options of the SimHash-only engine and what replaced them (one line, exit 2)
_REPLACED = {
    "--method": "the match engine finds candidates by shared keys and sketch values (and SimHash with -k)",
    "--features": "signatures use token 5-grams (CJK characters, Latin words); see docs/quality.md",
    "--ngram": "signatures use token 5-grams (CJK characters, Latin words); see docs/quality.md",
    "--weighting": "signatures use token 5-grams (CJK characters, Latin words); see docs/quality.md",
    "--nshash-n": "shared passages are found by the sketches; nshash itself is `neardup nshash`",
    "--bucket-cap": "candidate look-ups skip boilerplate values (MatchConfig.max_posting) instead",
}


def _replaced(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value is not None:
        name = param.opts[0]
        raise ConfigError(f"{name} was replaced by the match engine: {_REPLACED[name]}")
    return value


replaced_options = [
    click.option(name, hidden=True, default=None, expose_value=False, callback=_replaced)
    for name in _REPLACED
]

engine_options = [
    click.option(
        "--keep",
        type=click.Choice(KEEP_RULES),
        default=MATCH.keep,
        show_default=True,
        help="Which copy of a cluster is kept: the first seen, the longest, or the newest by --keep-field.",
    ),
    click.option(
        "--keep-field", default=MATCH.keep_field, show_default=True, help="The field --keep newest compares."
    ),
    click.option(
        "--max-distance",
        "-k",
        type=int,
        default=MATCH.candidate_distance,
        show_default=True,
        help="SimHash candidates: fingerprints within this many bits are verified too (an extra "
        "candidate source, off by default; not the decision).",
    ),
    click.option(
        "--workers",
        "-j",
        type=int,
        default=0,
        show_default=True,
        help="Processes for main-text extraction of HTML records (0: every core).",
    ),
    click.option(
        "--duplicate-ids",
        type=click.Choice(["error", "suffix"]),
        default="error",
        show_default=True,
        help="An id seen twice: stop, or rename repeats id#2, id#3.",
    ),
    *replaced_options,
]


def build_config(
    *,
    keep: str = MATCH.keep,
    keep_field: str = MATCH.keep_field,
    max_distance: int | None = MATCH.candidate_distance,
    workers: int = 0,
    duplicate_ids: str = "error",
    settings: dict[str, Any] | None = None,
) -> DedupConfig:
    """The DedupConfig of a command line; ``settings`` (an index header's) fix the signatures."""
    match = replace(MATCH, keep=keep, keep_field=keep_field, candidate_distance=max_distance)  # type: ignore[arg-type]
    common: dict[str, Any] = {"workers": workers, "duplicate_ids": duplicate_ids}
    if settings is not None:
        return DedupConfig.from_fingerprint_settings(settings, match=match, **common)
    return DedupConfig(match=match, **common)


def read_records(
    inputs: tuple[str, ...],
    *,
    id_field: str,
    text_field: str,
    html_field: str,
    skip_bad: bool,
    stats: ReadStats,
    description: str,
) -> Iterator[Record]:
    records = iter_records(
        inputs,
        id_field=id_field,
        text_field=text_field,
        html_field=html_field or None,
        skip_bad=skip_bad,
        stats=stats,
    )
    return progress(records, description=description)


def write_rows(path: str, rows: Iterator[dict[str, Any]]) -> int:
    """Write JSONL atomically (temp file + rename: an interrupted run leaves no partial file)."""
    n = 0
    with atomic_write(path, "wb") as fh:
        for row in rows:
            fh.write(orjson.dumps(row))
            fh.write(b"\n")
            n += 1
    return n


def write_keep(
    path: str,
    inputs: tuple[str, ...],
    keep: np.ndarray,
    *,
    id_field: str,
    text_field: str,
    html_field: str,
    skip_bad: bool,
    ids: list[str],
) -> int:
    """Second pass over the inputs writing the kept documents' records (with their final ids)."""
    if any(str(p) == "-" for p in inputs):
        raise InputError("--keep-out reads the input twice and can not take stdin; pass a file")
    n = 0
    with atomic_write(path, "wb") as fh:
        records = iter_records(
            inputs, id_field=id_field, text_field=text_field, html_field=html_field or None, skip_bad=skip_bad
        )
        for i, rec in enumerate(records):
            if i >= keep.size:
                raise InputError("the input changed while it was being deduplicated", source=rec.source)
            if not keep[i]:
                continue
            obj: dict[str, Any] = {id_field: ids[i]}
            if rec.text is not None:
                obj[text_field] = rec.text
            if rec.html is not None and html_field:
                obj[html_field] = rec.html
            obj.update(rec.extra)
            fh.write(orjson.dumps(obj))
            fh.write(b"\n")
            n += 1
    return n


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def format_summary(s: dict[str, Any], seconds: float, what: str = "dedup") -> str:
    kinds = ", ".join(f"{k} {s.get('kind_' + k, 0):,}" for k in ("exact", "content", "near"))
    related = s.get("kind_partial", 0) + s.get("kind_layout", 0)
    lines = [
        f"neardup {what}: {_plural(s['documents'], 'document')}, {_plural(s['clusters'], 'cluster')}, "
        f"kept {s['kept']:,}, duplicates {s['duplicates']:,} ({kinds}); "
        f"{_plural(related, 'partial or layout copy', 'partial or layout copies')} reported, not removed; "
        f"{seconds:.1f} s"
    ]
    if "corpus_matched" in s:
        lines.append(
            f"  against the corpus: {s.get('corpus_documents', 0):,} corpus documents, "
            f"{s['corpus_matched']:,} of them candidates of the batch"
        )
    if s.get("merged") is not None:
        lines.append(
            f"  merged {s['merged']:,} documents into the index ({s.get('index_documents', 0):,} now)"
        )
    if s.get("skipped"):
        lines.append(f"  skipped {s['skipped']:,} bad records (first: {s.get('first_error')})")
    return "\n".join(lines)


@click.command("dedup")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "-o", "out", required=True, help="Output JSONL: one line per input document.")
@add_options(input_options)
@add_options(engine_options)
@click.option("--keep-out", help="Also write the documents to keep (the kept copy of each cluster) as JSONL.")
@click.option(
    "--against",
    "against",
    type=click.Path(file_okay=False),
    help="A corpus index (neardup index build): dedup the batch against it too.",
)
@click.option("--merge", is_flag=True, help="With --against: add the batch's kept documents to the index.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr.")
@outputs_together(inputs="inputs", outputs=("out", "keep_out"))
def dedup_cmd(
    inputs: tuple[str, ...],
    out: str,
    id_field: str,
    text_field: str,
    html_field: str,
    skip_bad: bool,
    keep: str,
    keep_field: str,
    max_distance: int,
    workers: int,
    duplicate_ids: str,
    keep_out: str | None,
    against: str | None,
    merge: bool,
    quiet: bool,
) -> None:
    """Deduplicate documents: INPUT files (JSONL, JSONL.gz, Parquet) or directories of them.

    Writes one line per document: id, cluster (the id of the copy kept for it), duplicate_of (null
    for kept documents), kind (unique, first, exact, content, near; partial and layout copies are
    reported with related_to and never removed), distance and evidence (similarity, containment
    both ways, conflicting numbers) against the document it was verified with.
    """
    from neardup.dedup.fingerprints import fingerprint_records
    from neardup.dedup.index import CorpusIndex
    from neardup.dedup.local import dedup_fingerprints

    t0 = time.perf_counter()
    if merge and not against:
        raise ConfigError("--merge needs --against INDEX_DIR (the index to add the batch to)")
    index = CorpusIndex.open(against) if against else None
    config = build_config(
        keep=keep,
        keep_field=keep_field,
        max_distance=max_distance,
        workers=workers,
        duplicate_ids=duplicate_ids,
        settings=index.settings if index else None,
    )
    if Path(out).is_dir():
        raise ConfigError(f"--out must be a file, got the directory {out}")
    stats = ReadStats()
    records = read_records(
        inputs,
        id_field=id_field,
        text_field=text_field,
        html_field=html_field,
        skip_bad=skip_bad,
        stats=stats,
        description="fingerprinting",
    )
    fps = fingerprint_records(records, config)
    result = dedup_fingerprints(fps, config, index)
    write_rows(out, result.rows())
    kept = result.keep
    if keep_out:
        write_keep(
            keep_out,
            inputs,
            kept,
            id_field=id_field,
            text_field=text_field,
            html_field=html_field,
            skip_bad=skip_bad,
            ids=fps.ids,
        )
    summary = result.summary()
    if index is not None:
        summary["corpus_documents"] = len(index)
    if merge and index is not None:
        index.append(fps.take(np.flatnonzero(kept)))
        summary["merged"] = int(kept.sum())
        summary["index_documents"] = len(index)
    summary["skipped"] = stats.skipped
    summary["first_error"] = stats.first_error
    if not quiet:
        echo_err(format_summary(summary, time.perf_counter() - t0))
