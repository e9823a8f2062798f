"""``neardup dedup``: one output line per input document; optionally against a corpus index.

neardup dedup news.jsonl.gz --out clusters.jsonl --keep-out kept.jsonl
neardup dedup new/ --against corpus.idx --merge --out new-clusters.jsonl
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import numpy as np
import orjson

from neardup.cli._common import add_options, echo_err, input_options, progress
from neardup.config import SimHashConfig
from neardup.dedup.config import METHODS, DedupConfig
from neardup.exceptions import ConfigError, InputError
from neardup.io import ReadStats, Record, atomic_write, iter_records, outputs_together

__all__ = [
    "DEFAULTS",
    "build_config",
    "dedup_cmd",
    "format_summary",
    "read_records",
    "write_keep",
    "write_rows",
]

DEFAULTS = DedupConfig()  # the CLI's defaults are the library's (chosen in docs/quality.md)

fingerprint_options = [
    click.option(
        "--features",
        type=click.Choice(["words", "shingles", "word_ngrams"]),
        default=DEFAULTS.simhash.features,
        show_default=True,
        help="SimHash features (with --against: the index's).",
    ),
    click.option(
        "--ngram",
        type=int,
        default=DEFAULTS.simhash.ngram,
        show_default=True,
        help="Characters per shingle / words per n-gram.",
    ),
    click.option(
        "--weighting",
        type=click.Choice(["tfidf", "tf", "binary"]),
        default=DEFAULTS.simhash.weighting,
        show_default=True,
        help="Feature weights: TF-IDF, term frequency, or each feature once.",
    ),
    click.option(
        "--nshash-n",
        type=int,
        default=DEFAULTS.nshash_n,
        show_default=True,
        help="nshash: how many longest sentences are hashed.",
    ),
    click.option(
        "--workers",
        "-j",
        type=int,
        default=0,
        show_default=True,
        help="Processes for fingerprinting (0: every core).",
    ),
    click.option(
        "--duplicate-ids",
        type=click.Choice(["error", "suffix"]),
        default="error",
        show_default=True,
        help="An id seen twice: stop, or rename repeats id#2, id#3.",
    ),
]


def build_config(
    *,
    method: str = DEFAULTS.method,
    max_distance: int = DEFAULTS.max_distance,
    features: str = DEFAULTS.simhash.features,
    ngram: int = DEFAULTS.simhash.ngram,
    weighting: str = DEFAULTS.simhash.weighting,
    nshash_n: int = DEFAULTS.nshash_n,
    workers: int = 0,
    duplicate_ids: str = "error",
    bucket_cap: int = 20_000,
    settings: dict[str, Any] | None = None,
) -> DedupConfig:
    """The DedupConfig of a command line; ``settings`` (an index header's) fix the fingerprints."""
    common: dict[str, Any] = {
        "method": method,
        "max_distance": max_distance,
        "workers": workers,
        "duplicate_ids": duplicate_ids,
        "bucket_cap": bucket_cap,
    }
    if settings is not None:
        return DedupConfig.from_fingerprint_settings(settings, **common)
    return DedupConfig(
        simhash=SimHashConfig(features=features, ngram=ngram, weighting=weighting),  # type: ignore[arg-type]
        nshash_n=nshash_n,
        **common,
    )


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


def format_summary(s: dict[str, Any], seconds: float, what: str = "dedup") -> str:
    kinds = ", ".join(f"{k} {s.get('kind_' + k, 0):,}" for k in ("exact", "near", "nshash"))
    lines = [
        f"neardup {what}: {s['documents']:,} documents, {s['clusters']:,} clusters, kept {s['kept']:,}, "
        f"duplicates {s['duplicates']:,} ({kinds}) in {seconds:.1f} s"
    ]
    if "corpus_matched" in s:
        lines.append(
            f"  against the corpus: {s.get('corpus_documents', 0):,} corpus documents, "
            f"{s['corpus_matched']:,} of them matched by the batch"
        )
    if s.get("merged") is not None:
        lines.append(
            f"  merged {s['merged']:,} documents into the index ({s.get('index_documents', 0):,} now)"
        )
    if s.get("capped_groups") or s.get("capped_corpus_buckets"):
        lines.append(
            f"  warning: {s.get('capped_groups', 0)} huge group(s) of near-identical fingerprints "
            f"({s.get('capped_documents', 0):,} documents) were capped at --bucket-cap; a few "
            "duplicates among them may be missed"
        )
    if s.get("skipped"):
        lines.append(f"  skipped {s['skipped']:,} bad records (first: {s.get('first_error')})")
    return "\n".join(lines)


@click.command("dedup")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "-o", "out", required=True, help="Output JSONL: one line per input document.")
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="simhash",
    show_default=True,
    help="simhash (near duplicates), nshash (shared longest sentences), or both.",
)
@click.option(
    "--max-distance",
    "-k",
    type=int,
    default=DEFAULTS.max_distance,
    show_default=True,
    help="SimHash: at most this many differing bits of 64 is a near duplicate.",
)
@add_options(input_options)
@add_options(fingerprint_options)
@click.option("--keep-out", help="Also write the documents to keep (first of each cluster) as JSONL.")
@click.option(
    "--against",
    "against",
    type=click.Path(file_okay=False),
    help="A corpus index (neardup index build): dedup the batch against it too.",
)
@click.option("--merge", is_flag=True, help="With --against: add the batch's non-duplicates to the index.")
@click.option(
    "--bucket-cap",
    type=int,
    default=20_000,
    show_default=True,
    help="Cap on a group of near-identical fingerprints once re-splitting stops (0: none).",
)
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr.")
@outputs_together(inputs="inputs", outputs=("out", "keep_out"))
def dedup_cmd(
    inputs: tuple[str, ...],
    out: str,
    method: str,
    max_distance: int,
    id_field: str,
    text_field: str,
    html_field: str,
    skip_bad: bool,
    features: str,
    ngram: int,
    weighting: str,
    nshash_n: int,
    workers: int,
    duplicate_ids: str,
    keep_out: str | None,
    against: str | None,
    merge: bool,
    bucket_cap: int,
    quiet: bool,
) -> None:
    """Deduplicate documents: INPUT files (JSONL, JSONL.gz, Parquet) or directories of them.

    Writes one line per document: id, cluster (id of the cluster's first document), duplicate_of
    (null for a cluster's first document), kind (unique, first, exact, near, nshash) and distance.
    """
    from neardup.dedup.fingerprints import fingerprint_records
    from neardup.dedup.index import CorpusIndex
    from neardup.dedup.local import dedup_fingerprints

    t0 = time.perf_counter()
    if merge and not against:
        raise ConfigError("--merge needs --against INDEX_DIR (the index to add the batch to)")
    index = CorpusIndex.open(against) if against else None
    config = build_config(
        method=method,
        max_distance=max_distance,
        features=features,
        ngram=ngram,
        weighting=weighting,
        nshash_n=nshash_n,
        workers=workers,
        duplicate_ids=duplicate_ids,
        bucket_cap=bucket_cap,
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
    fps = fingerprint_records(
        records, config, simhash=True if merge else None, nshash=True if merge else None
    )
    result = dedup_fingerprints(fps, config, index)
    write_rows(out, result.rows())
    keep = result.keep
    if keep_out:
        write_keep(
            keep_out,
            inputs,
            keep,
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
        index.append(fps.take(np.flatnonzero(keep)))
        summary["merged"] = int(keep.sum())
        summary["index_documents"] = len(index)
    summary["skipped"] = stats.skipped
    summary["first_error"] = stats.first_error
    if not quiet:
        echo_err(format_summary(summary, time.perf_counter() - t0))
