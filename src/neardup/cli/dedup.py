"""``neardup dedup``: one output line per input document; optionally against a corpus index.

neardup dedup news.jsonl.gz --out clusters.jsonl --keep-out kept.jsonl
neardup dedup new/ --against corpus.idx --merge --out new-clusters.jsonl
"""

from __future__ import annotations

import dataclasses
import functools
import time
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
import numpy as np

from neardup.cli._common import (
    FINITE_FLOAT,
    Feedback,
    Flag,
    InputFields,
    add_options,
    config_from_options,
    feedback_options,
    input_fields,
    inputs_argument,
    min_chars_option,
    output_option,
    plural,
    with_config,
)
from neardup.dedup.config import DedupConfig
from neardup.exceptions import ConfigError, InputError
from neardup.formats import FORMATS
from neardup.io import ReadStats, check_outside, outputs_together

__all__ = [
    "DEDUP_COLUMNS",
    "DEFAULTS",
    "ENGINE_EXCLUDED",
    "ENGINE_FLAGS",
    "Against",
    "against_options",
    "build_config",
    "corpus_counts",
    "dedup_cmd",
    "engine_options",
    "format_summary",
    "keep_rows",
    "keep_schema",
    "write_keep",
]

F = TypeVar("F", bound=Callable[..., Any])
DEFAULTS = DedupConfig()  # the CLI's defaults are the library's (chosen in docs/quality.md)

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

#: how each DedupConfig field shows on the command line (keyed by field path); every field is
#: here or in ENGINE_EXCLUDED, which a test checks
ENGINE_FLAGS: dict[str, Flag] = {
    "match.keep": Flag(
        ("--keep",),
        "Which copy of a cluster is kept: the fuller (the copy that adds the most text to the first seen, net; the first seen when none adds 20 characters), the first seen, the longest, or the newest by --keep-field.",
    ),
    "match.keep_field": Flag(
        ("--keep-field",),
        "The field holding each record's date: --keep newest compares it, and --occasion-days reads it.",
    ),
    "match.occasion_days": Flag(
        ("--occasion-days",),
        "News profile: records dated more than this many days apart (by --keep-field) are two "
        "occasions, never merged unless their texts are identical (a yearly notice, the next "
        "meeting of a series); 0 reads no dates.",
        type=int,
        metavar="DAYS",
    ),
    "match.candidate_distance": Flag(
        ("--max-distance", "-k"),
        "SimHash candidates: fingerprints within this many bits are verified too (an extra "
        "candidate source, off by default; not the decision).",
        type=int,
    ),
    "match.max_component": Flag(
        ("--max-component",),
        "A batch whose largest candidate component holds more documents is cut along verified "
        "pairs (with the batch's boilerplate), so one pass, or one Spark task, holds less; below "
        "it the components are the candidate graph's (docs/scaling.md).",
        type=int,
        metavar="DOCS",
    ),
    "workers": Flag(
        ("--workers", "-j"),
        "Processes that extract HTML records' main text and sign records (0: every core; 1: none, all here).",
    ),
    "record_timeout": Flag(
        ("--record-timeout",),
        "Seconds a worker may spend extracting one HTML record; past it the run stops with one "
        "line naming the record (exit 2), never a hang. Local runs with --workers other than 1.",
        type=FINITE_FLOAT,
        metavar="SECONDS",
    ),
    "duplicate_ids": Flag(("--duplicate-ids",), "An id seen twice: stop, or rename repeats id#2, id#3."),
    "match.profile": Flag(
        ("--profile",),
        "What a duplicate is: news (the same story; another subject or occasion told on one template "
        "is another story) or corpus (the same text, templates included).",
    ),
    "match.strictness": Flag(
        ("--strictness",),
        "How much two texts may add to each other and still merge: 0 loosest, 1 strictest; 0.5 is "
        "calibrated on judged real pairs (docs/quality.md). Each 0.25 step scales it by 1.4.",
        type=FINITE_FLOAT,
    ),
    "match.report_templates": Flag(
        ("--report-templates",),
        "Report documents told on another document's template of another subject or occasion (kind "
        "template, related_to), as partial copies are; never merged either way.",
        is_flag=True,
    ),
}
_CALIBRATED = "an engine setting calibrated in docs/quality.md (set it through the library's MatchConfig)"
_SIGNATURE = "decides signatures: an index's header fixes it (set it through the library's MatchConfig)"
#: DedupConfig fields with no option, and why
ENGINE_EXCLUDED: dict[str, str] = {
    "chunk_size": "a memory and speed trade-off of the library, not of a run's result",
    **dict.fromkeys(
        (
            "match.shingle",
            "match.sketch_size",
            "match.max_numbers",
            "match.extractor",
            "match.profile_tokens",
        ),
        _SIGNATURE,
    ),
    **dict.fromkeys(
        (
            "match.near_similarity",
            "match.near_containment",
            "match.containment_min_similarity",
            "match.agree_containment",
            "match.agree_min",
            "match.partial_containment",
            "match.max_number_conflicts",
            "match.conflict_share",
            "match.posted",
            "match.min_shared",
            "match.max_posting",
            "match.hot_posting",
            "match.link_posters",
            "match.layout_distance",
            "match.member_checks",
            "match.adds_share",
            "match.adds_slack",
            "match.contained_adds_share",
            "match.adds_cap",
            "match.fuller_margin",
            "match.scattered_run",
            "match.scattered_shared",
            "match.contained_share",
            "match.passage_min",
            "match.shared_min",
            "match.template_repeats",
            "match.quote_pieces",
            "match.quote_block_share",
            "match.quote_block_min",
            "match.quote_lead",
            "match.scattered_edits",
            "match.text_window_cjk",
            "match.text_window_latin",
        ),
        _CALIBRATED,
    ),
}


def engine_options(func: F) -> F:
    """The DedupConfig options (and the replaced ones' errors), handed to the command as ``engine``."""
    return add_options(replaced_options)(with_config(DedupConfig, ENGINE_FLAGS, DEFAULTS, "engine")(func))


def build_config(*, settings: dict[str, Any] | None = None, **options: Any) -> DedupConfig:
    """The DedupConfig of a command line; ``settings`` (an index header's) fix the signatures.

    >>> build_config(keep="longest", max_distance=3).match.candidate_distance
    3
    """
    config = config_from_options(DedupConfig, ENGINE_FLAGS, dict(options), DEFAULTS)
    if settings is None:
        return config
    overrides = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    return DedupConfig.from_fingerprint_settings(settings, **overrides)


def keep_rows(
    inputs: tuple[str, ...],
    keep: np.ndarray,
    fields: InputFields,
    ids: list[str],
    columns: dict[str, list[Any]] | None = None,
    id_type: Any = None,
) -> Iterator[dict[str, Any]]:
    """Second pass over the inputs: the kept documents' records (with their final ids), and the
    dedup ``columns`` (per document) when given."""
    if any(str(p) == "-" for p in inputs):
        raise InputError("--keep-out reads the input twice and can not take stdin; pass a file")
    for i, rec in enumerate(fields.records(inputs)):
        if i >= keep.size:
            raise InputError("the input changed while it was being deduplicated", source=rec.source)
        if not keep[i]:
            continue
        obj: dict[str, Any] = {fields.id_field: _typed_id(ids[i], id_type, rec)}
        if rec.text is not None:
            obj[fields.text_field] = rec.text
        if rec.html is not None and fields.html_field:
            obj[fields.html_field] = rec.html
        obj.update(rec.extra)
        if columns:
            for name, values in columns.items():
                obj[name] = values[i]
        yield obj


def _typed_id(doc_id: str, id_type: Any, rec: Any) -> Any:
    """The id as the input's Parquet id column holds it (an integer column stays integer)."""
    if id_type is None or not id_type.startswith(("int", "uint")):
        return doc_id
    try:
        return int(doc_id)
    except ValueError:
        raise InputError(
            f"id {doc_id!r} does not fit the input's {id_type} id column (renamed by "
            "--duplicate-ids suffix?); write JSON Lines, or give the records string ids",
            source=rec.source,
            line=rec.line,
        ) from None


#: the dedup columns --keep-out adds with --dedup-columns (from the --out rows)
DEDUP_COLUMNS = ("cluster", "duplicate_of", "kind")


def keep_schema(inputs: tuple[str, ...], fields: InputFields, with_columns: bool) -> Any:
    """The Parquet schema of --keep-out: the input's own (same columns, same order) when every
    input is Parquet with one schema, the id column added when the input has none, then the dedup
    columns on request; None (inferred from the records) otherwise."""
    from neardup.formats import input_schema

    schema = input_schema(inputs)
    if schema is None:
        return None
    import pyarrow as pa

    if fields.id_field not in schema.names:
        schema = schema.append(pa.field(fields.id_field, pa.string()))
    if with_columns:
        for name in DEDUP_COLUMNS:
            if name in schema.names:
                raise ConfigError(
                    f"--dedup-columns would add the column {name!r}, which the input already has"
                )
            schema = schema.append(pa.field(name, pa.string()))
    return schema


def write_keep(
    path: str,
    inputs: tuple[str, ...],
    keep: np.ndarray,
    fields: InputFields,
    ids: list[str],
    *,
    fmt: str | None = None,
    columns: dict[str, list[Any]] | None = None,
) -> int:
    """Write the kept documents' records in the format of ``path`` (or ``fmt``): for Parquet, with
    the input's schema and column order when the input is Parquet."""
    from neardup.formats import output_format, write_records

    schema = None
    id_type = None
    if output_format(path, fmt) == "parquet":
        schema = keep_schema(inputs, fields, bool(columns))
        if schema is not None:
            id_type = str(schema.field(fields.id_field).type)
    rows = keep_rows(inputs, keep, fields, ids, columns, id_type)
    return write_records(path, rows, fmt, schema=schema)


def _collect(rows: Iterator[dict[str, Any]], columns: dict[str, list[Any]]) -> Iterator[dict[str, Any]]:
    """The rows, unchanged, appending each one's value of every column in ``columns`` on the way."""
    for row in rows:
        for name, values in columns.items():
            values.append(row[name])
        yield row


def corpus_counts(result: Any) -> dict[str, int]:
    """Of a run against a corpus index (a ``DedupResult``): the batch's duplicates whose kept copy
    is a corpus document, and how many corpus documents those are (documents already indexed
    under their own id left out, as the summary leaves them out)."""
    p = result.n_prefix
    kept = np.asarray(result.kept[p:])
    of_corpus = kept[(kept < p) & ~result.indexed()]
    return {"corpus_duplicates": int(of_corpus.size), "corpus_clusters": int(np.unique(of_corpus).size)}


def format_summary(s: dict[str, Any], seconds: float, what: str = "dedup") -> str:
    kinds = ", ".join(f"{k} {s.get('kind_' + k, 0):,}" for k in ("exact", "content", "near", "contained"))
    related = s.get("kind_partial", 0) + s.get("kind_layout", 0)
    # against a corpus, a cluster may be kept in the corpus: clusters then count more than the
    # documents kept, and the line says what each number counts
    against = "corpus_matched" in s
    clusters = "" if against else f"{plural(s['clusters'], 'cluster')}, "
    lines = [
        f"neardup {what}: {plural(s['documents'], 'document')}, {clusters}"
        f"kept {s['kept']:,}, duplicates {s['duplicates']:,} ({kinds}); "
        f"{plural(related, 'partial or layout copy', 'partial or layout copies')} reported, not removed; "
        f"{seconds:.1f} s"
    ]
    if s.get("indexed"):
        lines.append(
            f"  {plural(s['indexed'], 'document')} already in the index under the same id (kind indexed), "
            "not counted as duplicates"
        )
    if against:
        lines.append(
            f"  against the corpus: {s.get('corpus_documents', 0):,} corpus documents, "
            f"{s['corpus_matched']:,} of them candidates of the batch"
        )
        if "corpus_duplicates" in s:
            of_corpus, corpus_clusters = s["corpus_duplicates"], s["corpus_clusters"]
            lines.append(
                f"  duplicates {s['duplicates']:,}: {plural(of_corpus, 'copy', 'copies')} of "
                f"{plural(corpus_clusters, 'corpus document')}, {s['duplicates'] - of_corpus:,} within "
                f"the batch; {plural(s['clusters'], 'cluster')}: {corpus_clusters:,} kept in the corpus, "
                f"{s['clusters'] - corpus_clusters:,} kept from the batch"
            )
        else:
            lines.append(f"  {plural(s['clusters'], 'cluster')}, those kept in the corpus included")
    if s.get("merged") is not None:
        lines.append(
            f"  merged {s['merged']:,} documents into the index ({s.get('index_documents', 0):,} now)"
        )
    if s.get("skipped"):
        reasons = ", ".join(f"{why} {n:,}" for why, n in sorted((s.get("skip_reasons") or {}).items()))
        by = f"{reasons}; " if reasons else ""
        lines.append(f"  skipped {plural(s['skipped'], 'record')} ({by}first: {s.get('first_error')})")
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Against:
    """The corpus index a batch is deduplicated against, and whether its kept documents join it."""

    path: str
    merge: bool = False


def against_options(help: str, type: Any = None) -> Callable[[F], F]:
    """``--against INDEX`` and ``--merge``, handed to the command as one ``against: Against | None``."""

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, against: str | None, merge: bool, **kwargs: Any) -> Any:
            if merge and not against:
                raise ConfigError("--merge needs --against INDEX_DIR (the index to add the batch to)")
            return func(*args, against=Against(against, merge) if against else None, **kwargs)

        merge_help = "With --against: add the batch's kept documents to the index."
        options = [
            click.option("--against", type=type, help=help),
            click.option("--merge", is_flag=True, help=merge_help),
        ]
        return add_options(options)(typing.cast(F, wrapper))

    return wrap


format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default=None,
    help="Format of --out and --keep-out (default: by each file's suffix: .jsonl, .jsonl.gz, .parquet).",
)


@click.command("dedup")
@inputs_argument
@output_option("Output: one record per input document (JSONL, JSONL.gz or Parquet, by suffix or --format).")
@input_fields
@min_chars_option
@engine_options
@click.option(
    "--keep-out",
    help="Also write the documents to keep (the kept copy of each cluster), with the input's fields "
    "(Parquet: the input's schema and column order).",
)
@click.option(
    "--dedup-columns",
    is_flag=True,
    help="Add cluster, duplicate_of and kind to the --keep-out records.",
)
@format_option
@against_options(
    "A corpus index (neardup index build): dedup the batch against it too.", click.Path(file_okay=False)
)
@feedback_options
@outputs_together(inputs="inputs", outputs=("out", "keep_out"))
def dedup_cmd(
    inputs: tuple[str, ...],
    out: str,
    fields: InputFields,
    engine: dict[str, Any],
    keep_out: str | None,
    dedup_columns: bool,
    fmt: str | None,
    against: Against | None,
    feedback: Feedback,
) -> None:
    """Deduplicate documents: INPUT files (JSONL, JSONL.gz, Parquet) or directories of them.

    Writes one record per document: id, cluster (the id of the copy kept for it), duplicate_of
    (null for kept documents), kind (unique, first, exact, content, near; partial and layout copies
    are reported with related_to and never removed), distance and evidence (similarity,
    containment both ways, conflicting numbers) against the document it was verified with.
    """
    from neardup.dedup.fingerprints import fingerprint_records
    from neardup.dedup.index import CorpusIndex
    from neardup.dedup.local import dedup_fingerprints
    from neardup.dedup.rethreshold import decision_rows
    from neardup.formats import output_format, row_schema, write_records

    t0 = time.perf_counter()
    out_format = output_format(out, fmt)  # an unknown suffix stops here, before any work
    if keep_out:
        output_format(keep_out, fmt)
    elif dedup_columns:
        raise ConfigError("--dedup-columns adds columns to the --keep-out records; pass --keep-out FILE")
    if against:
        check_outside(against.path, [out, keep_out], "the corpus index")
    index = CorpusIndex.open(against.path) if against else None
    config = build_config(settings=index.settings if index else None, **engine)
    if Path(out).is_dir():
        raise ConfigError(f"--out must be a file, got the directory {out}")
    stats = ReadStats()
    with feedback.run("dedup", inputs) as progress:
        records = progress.reading(fields.records(inputs, stats=stats))
        fps = fingerprint_records(records, config, on_chunk=progress.signed)
        result = dedup_fingerprints(fps, config, index)
        progress.matched(len(fps))
    # the rows carry every number the text rule read, so `neardup rethreshold` can decide them again;
    # they stream to the file, and only the columns --dedup-columns adds are kept on the way
    columns: dict[str, list[Any]] | None = {name: [] for name in DEDUP_COLUMNS} if dedup_columns else None
    rows = decision_rows(result)
    schema = row_schema() if out_format == "parquet" else None
    write_records(out, _collect(rows, columns) if columns else rows, out_format, schema=schema)
    if keep_out:
        write_keep(keep_out, inputs, result.keep, fields, fps.ids, fmt=fmt, columns=columns)
    summary = result.summary()
    if index is not None:
        summary["corpus_documents"] = len(index)
        summary.update(corpus_counts(result))
    if against is not None and against.merge and index is not None:
        index.append(fps.take(np.flatnonzero(result.keep)))
        summary["merged"] = int(result.keep.sum())
        summary["index_documents"] = len(index)
    summary["skipped"] = stats.skipped
    summary["first_error"] = stats.first_error
    summary["skip_reasons"] = stats.reasons
    feedback.summary(format_summary(summary, time.perf_counter() - t0))
