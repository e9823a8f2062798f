"""``neardup fingerprint``, ``neardup compare`` and ``neardup idf build``.

neardup fingerprint news.jsonl.gz > fps.jsonl
neardup fingerprint news.jsonl.gz --format npy -o fps.npy      # + fps.ids.txt
neardup compare "第一篇文章" "第二篇文章"
neardup idf build corpus.jsonl.gz -o idf.txt && neardup fingerprint corpus.jsonl.gz --idf idf.txt
"""

from __future__ import annotations

import errno
import gzip
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import IO, Any, cast

import click
import orjson

from neardup._workers import max_workers
from neardup.cli._common import (
    Flag,
    InputFields,
    add_options,
    config_from_options,
    config_options,
    echo_err,
    input_fields,
    output_option,
)
from neardup.config import SimHashConfig
from neardup.exceptions import ConfigError, InputError
from neardup.formats import FORMATS, output_format
from neardup.io import ReadStats, Record, atomic_write, outputs_together

__all__ = [
    "FINGERPRINT_FORMATS",
    "SIMHASH_EXCLUDED",
    "SIMHASH_FLAGS",
    "compare_cmd",
    "fingerprint_cmd",
    "fingerprint_format",
    "idf_group",
    "simhash_config",
]

_BATCH = 4096


def _top_n(value: str | None) -> int | str | None:
    if value is None or value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise click.BadParameter(
            f"expected a positive integer or 'auto', got {value!r}", param_hint="--top-n"
        ) from None


def _negate(value: bool) -> bool:
    return not value


#: how each SimHashConfig field shows on the command line; every field is here or in
#: SIMHASH_EXCLUDED, which a test checks
SIMHASH_FLAGS: dict[str, Flag] = {
    "features": Flag(
        ("--features",),
        "words: jieba-compatible words; shingles: character n-grams; word_ngrams: runs of words.",
    ),
    "ngram": Flag(("--ngram",), "Characters per shingle, or words per word n-gram."),
    "step": Flag(("--step",), "Shingle stride: 1 overlapping, equal to --ngram for fixed-size chunks."),
    "hash": Flag(("--hash",), "64-bit hash of each feature."),
    "bits": Flag(
        ("--bits",), "Fingerprint width.", type=click.Choice(["64", "32"]), default="64", to_field=int
    ),
    "weighting": Flag(("--weighting",)),
    "idf": Flag(
        ("--idf",),
        "IDF table (from 'neardup idf build'); default: jieba's table.",
        type=click.Path(dir_okay=False),
    ),
    "levels": Flag(("--levels",), "Quantize weights to 1..LEVELS (5 is usual); 0 keeps raw weights."),
    "top_n": Flag(
        ("--top-n",),
        "Keep the N heaviest features, or 'auto' (by length).",
        type=str,
        to_field=_top_n,
        show_default=False,
    ),
    "stopwords": Flag(("--no-stopwords",), "Keep stop words.", is_flag=True, default=False, to_field=_negate),
    "strip_html": Flag(("--strip-html",), "Drop HTML tags from the text first.", is_flag=True),
    "boost": Flag(
        ("--boost",), "Topic word weighted higher (repeatable).", type=str, multiple=True, to_field=tuple
    ),
    "boost_factor": Flag(("--boost-factor",)),
}
#: SimHashConfig fields with no option, and why
SIMHASH_EXCLUDED: dict[str, str] = {
    "normalize": "fingerprints of unnormalized text do not match the library's; always on",
}

simhash_options = [
    *config_options(SimHashConfig, SIMHASH_FLAGS, SimHashConfig()),
    click.option(
        "--boost-file",
        type=click.Path(exists=True, dir_okay=False),
        default=None,
        help="File of topic words, one a line.",
    ),
]


def simhash_config(opts: dict[str, Any]) -> SimHashConfig:
    """The SimHashConfig the config options describe (pops them from ``opts``)."""
    boost_file = opts.pop("boost_file", None)
    if boost_file:
        try:
            words = Path(boost_file).read_text("utf-8").splitlines()
        except UnicodeDecodeError:
            raise InputError("boost file is not UTF-8", source=boost_file) from None
        opts["boost"] = (*opts.get("boost", ()), *(w.strip() for w in words if w.strip()))
    idf = opts.get("idf")
    if idf is not None and not Path(idf).is_file():
        raise InputError(
            "IDF table not found (build one with: neardup idf build CORPUS -o idf.txt)", source=idf
        )
    return config_from_options(SimHashConfig, SIMHASH_FLAGS, opts, SimHashConfig())


def _record_text(rec: Record, text_field: str = "text") -> str:
    """The text a SimHash is made of; an empty one is an error here (a fingerprint of no text says
    nothing), while ``neardup dedup`` takes empty texts as documents."""
    if rec.text is not None and rec.text.strip():
        return rec.text
    if not rec.html:
        raise InputError(
            f"field {text_field!r} is empty: a fingerprint of no text says nothing (--skip-bad skips it)",
            source=rec.source,
            line=rec.line,
            field=text_field,
        )
    html = rec.html
    try:
        from neardup.contentseen.extract import extract_main_text

        text = extract_main_text(html)
    except Exception:  # the html extra may be missing: fall back to dropping tags
        from neardup.text.normalize import strip_tags

        text = strip_tags(html)
    if not text.strip():
        raise InputError("HTML has no text", source=rec.source, line=rec.line, field="html")
    return text


def _batches(records: Iterator[Record], size: int) -> Iterator[list[Record]]:
    while True:
        chunk = list(islice(records, size))
        if not chunk:
            return
        yield chunk


def _finish(stats: ReadStats, skip_bad: bool) -> None:
    if skip_bad and stats.skipped:
        echo_err(f"neardup: skipped {stats.skipped} bad record(s); first: {stats.first_error}")


#: what ``neardup fingerprint`` writes, and the suffixes of -o that choose each
FINGERPRINT_FORMATS: dict[str, tuple[str, ...]] = {
    "jsonl": FORMATS["jsonl"],
    "jsonl.gz": FORMATS["jsonl.gz"],
    "npy": (".npy",),
}


def fingerprint_format(output: str | None, fmt: str | None) -> str:
    """The format of ``neardup fingerprint``'s output: ``fmt`` when given, else the suffix of
    ``output`` (JSON Lines for stdout or a stream); a suffix it cannot write is a ConfigError
    naming those it can, so an output named ``fps.npy`` or ``fps.csv`` never holds JSON Lines.

    >>> fingerprint_format("fps.npy", None), fingerprint_format(None, None), fingerprint_format("f.x", "jsonl")
    ('npy', 'jsonl', 'jsonl')
    >>> fingerprint_format("fps.parquet", None)
    Traceback (most recent call last):
    ...
    neardup.exceptions.ConfigError: fps.parquet: neardup fingerprint cannot write '.parquet'; name the output .jsonl, .jsonl.gz or .npy (or pass --format jsonl, jsonl.gz or npy)
    """
    if fmt is not None:
        return fmt
    if output is None:
        return "jsonl"
    lower = Path(output).name.lower()
    for name in ("jsonl.gz", "npy", "jsonl"):  # .jsonl.gz before .jsonl
        if lower.endswith(FINGERPRINT_FORMATS[name]):
            return name
    try:
        if output_format(output) == "jsonl":  # a stream: -, /dev/stdout, a FIFO
            return "jsonl"
    except ConfigError:
        pass
    suffix = "".join(Path(lower).suffixes[-2:]) if lower.endswith(".gz") else Path(lower).suffix
    what = f"cannot write {suffix!r}" if suffix else "needs a suffix on its output name"
    names = list(FINGERPRINT_FORMATS)
    raise ConfigError(
        f"{output}: neardup fingerprint {what}; name the output .jsonl, .jsonl.gz or .npy "
        f"(or pass --format {', '.join(names[:-1])} or {names[-1]})"
    )


@click.command("fingerprint")
@click.argument("files", nargs=-1, required=True)
@input_fields
@add_options(simhash_options)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FINGERPRINT_FORMATS)),
    default=None,
    help="jsonl: one {id, fingerprint} line per document (jsonl.gz: gzipped); npy: a uint64 array "
    "(-o required) plus OUT.ids.txt with the ids in the same order. Default: by the suffix of -o "
    "(.jsonl, .jsonl.gz, .npy), JSON Lines on stdout.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Output file (default stdout): .jsonl, .jsonl.gz or .npy.",
)
@click.option("--workers", type=int, default=1, show_default=True, help="Processes for fingerprinting.")
@outputs_together(inputs="files", outputs=("output",))
def fingerprint_cmd(
    files: tuple[str, ...], fields: InputFields, fmt: str, output: str | None, workers: int, **opts: Any
) -> None:
    """SimHash fingerprints of the documents in FILE... (JSONL, JSONL.gz, Parquet, text, directories).

    Prints one JSON line per document: {"id": ..., "fingerprint": "<hex>"}.
    """
    cfg = simhash_config(opts)
    fmt = fingerprint_format(output, fmt)  # an unknown suffix stops here, before any work
    if fmt == "npy" and output in (None, "-"):  # the array and the ids file beside it
        raise click.UsageError("--format npy needs -o FILE")
    if not 1 <= workers <= max_workers():
        raise ConfigError(f"--workers must be between 1 and {max_workers()} (4 per core), got {workers}")
    stats = ReadStats()
    batches = _fingerprinted(fields, files, cfg, workers, stats)
    if fmt == "npy":
        assert output is not None
        _write_npy(output, batches)
    elif output is None:
        _write_jsonl(sys.stdout.buffer, batches, cfg.bits // 4)
        sys.stdout.buffer.flush()
    elif fmt == "jsonl.gz":
        with atomic_write(output, "wb") as out, gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
            _write_jsonl(cast(IO[bytes], gz), batches, cfg.bits // 4)
    else:
        with atomic_write(output, "wb") as out:
            _write_jsonl(out, batches, cfg.bits // 4)
    _finish(stats, fields.skip_bad)


def _fingerprinted(
    fields: InputFields, files: tuple[str, ...], cfg: SimHashConfig, workers: int, stats: ReadStats
) -> Iterator[tuple[list[Record], Any]]:
    """(records, their fingerprints) per batch; records without text are skipped with --skip-bad."""
    from neardup.fingerprint.simhash import SimHasher

    records = fields.records(files, stats=stats, description="fingerprinting")
    hasher: SimHasher | None = None  # built after the first batch is read: input errors come first
    for chunk in _batches(records, _BATCH * max(1, workers)):
        if hasher is None:
            hasher = SimHasher(cfg)
        texts: list[str] = []
        kept: list[Record] = []
        for rec in chunk:
            try:
                texts.append(_record_text(rec, fields.text_field))
                kept.append(rec)
            except InputError as err:
                if not fields.skip_bad:
                    raise
                stats.skip(err)
        yield kept, hasher.fingerprint_many(texts, workers=workers)


def _write_jsonl(out: IO[bytes], batches: Iterator[tuple[list[Record], Any]], width: int) -> None:
    for kept, fps in batches:
        out.write(
            b"".join(
                orjson.dumps({"id": r.id, "fingerprint": f"{int(fp):0{width}x}"}) + b"\n"
                for r, fp in zip(kept, fps, strict=True)
            )
        )


def _write_npy(output: str, batches: Iterator[tuple[list[Record], Any]]) -> None:
    import numpy as np

    ids: list[str] = []
    parts: list[Any] = []
    for kept, fps in batches:
        ids.extend(r.id for r in kept)
        parts.append(fps)
    arr = np.concatenate(parts) if parts else np.empty(0, np.uint64)
    with atomic_write(output, "wb") as fh:
        np.save(fh, arr)
    ids_path = Path(output).with_suffix(".ids.txt")
    with atomic_write(ids_path, "w") as fh:
        fh.write("".join(f"{i}\n" for i in ids))
    echo_err(f"neardup: wrote {len(arr)} fingerprints to {output} and ids to {ids_path}")


_FILE_SUFFIXES = (".txt", ".html", ".htm", ".md", ".json", ".jsonl", ".xml", ".gz")


def _read_arg(value: str) -> tuple[str, str]:
    """A file's text when ``value`` names one, else ``value`` itself; a directory, or a missing
    file's name (one word ending like a file), is refused rather than compared as text."""
    path = Path(value)
    try:
        is_dir, exists, is_file = path.is_dir(), path.exists(), path.is_file()
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        return value, "text"  # longer than a file name may be (85 CJK characters fill 255 bytes)
    one_word = len(value) < 4096 and not any(c.isspace() for c in value)
    if one_word and is_dir:
        raise InputError("is a directory; give a file or a text", source=value)
    if one_word and value.lower().endswith(_FILE_SUFFIXES) and not exists:
        raise InputError("no such file (to compare this name as a text, add a space to it)", source=value)
    if len(value) < 4096 and "\n" not in value and is_file:
        try:
            return path.read_text("utf-8"), value
        except UnicodeDecodeError as exc:
            raise InputError(
                f"is not UTF-8 (bad byte at offset {exc.start}); convert it with iconv", source=value
            ) from None
    return value, "text"


def _looks_like_html(text: str) -> bool:
    head = text.lstrip()[:512].lower()
    return head.startswith(("<!doctype html", "<html")) or ("<body" in head and "</" in text)


@click.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--html/--text", "as_html", default=None, help="Read both as HTML pages (default: guessed).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--dates",
    nargs=2,
    default=None,
    metavar="DATE_A DATE_B",
    help="The two records' dates (2024-03-05, 20240305, ...): records further apart than 14 days "
    "are two occasions, as neardup dedup reads them.",
)
def compare_cmd(a: str, b: str, as_html: bool | None, as_json: bool, dates: tuple[str, str] | None) -> None:
    """Compare two texts or files with the match engine: the verdict ``neardup dedup`` and
    ContentSeen give B against A, and why (similarity, containment both ways, conflicting numbers,
    shared passage, what each text adds to the other with its longest added passages, the short
    spans replaced and in how many places: a template's subject, a corrected figure, typos; SimHash
    distance)."""
    from dataclasses import replace

    from neardup.match import MatchConfig, compare_signatures, page_signatures
    from neardup.match.dates import NO_DAY, day_number, days_of
    from neardup.match.explain import added_spans, differing_numbers, shared_passage, substitutions
    from neardup.match.kernels import text_evidence
    from neardup.match.verify import text_fields

    cfg = MatchConfig()
    for value in dates or ():
        if day_number(value) == NO_DAY:
            raise ConfigError(
                f"--dates: {value!r} is not a date; expected a date such as 2024-03-05, 20240305, "
                "2024年3月5日 or Unix seconds"
            )
    text_a, src_a = _read_arg(a)
    text_b, src_b = _read_arg(b)
    for text, src in ((text_a, src_a), (text_b, src_b)):
        if not text.strip():
            raise InputError("text is empty", source=src)
    html_a = text_a if (as_html if as_html is not None else _looks_like_html(text_a)) else None
    html_b = text_b if (as_html if as_html is not None else _looks_like_html(text_b)) else None
    # signed once; the verdicts below read the same signatures, undated first, then with the dates
    sigs, main = page_signatures(
        [(None if html_a else text_a, html_a), (None if html_b else text_b, html_b)], cfg
    )
    undated = ev = compare_signatures(sigs, cfg)
    if dates is not None:
        sigs.day = days_of(list(dates), 2)
        ev = compare_signatures(sigs, cfg)
    only_a, only_b = differing_numbers(main[0], main[1])
    text_ev = text_evidence(sigs.profile(0), sigs.profile(1), cfg.text_window_cjk, cfg.text_window_latin)
    # the engine's Evidence reads its pairs (the document checked, the one it is checked against),
    # B then A here, as dedup's rows hold them; this command's output reads every pair (A, B), in
    # the order of its arguments
    containment = (ev.containment[1], ev.containment[0])
    adds: tuple[int, int] | None = None
    passage = ev.passage
    measured = False
    if ev.adds is not None:
        adds = (ev.adds[1], ev.adds[0])
        if adds == (0, 0) and not passage:  # the sketches share too little for the engine to read them
            fields = text_fields(text_ev)  # text_ev is (A, B) already
            adds, passage, measured = fields["adds"], fields["passage"], True
    result = {
        "kind": ev.kind,
        "is_duplicate": ev.is_duplicate,
        **ev.to_dict(),
        "containment": [round(containment[0], 3), round(containment[1], 3)],
        "shared_passage": shared_passage(main[1], main[0]),
        "a_adds": added_spans(
            main[0], main[1], window_cjk=cfg.text_window_cjk, window_latin=cfg.text_window_latin
        ),
        "b_adds": added_spans(
            main[1], main[0], window_cjk=cfg.text_window_cjk, window_latin=cfg.text_window_latin
        ),
        "substitutions": [list(x) for x in substitutions(main[0], main[1])],
        # shared text each sets on quoted lines or inside long quotation marks
        "quoted": [int(text_ev[9]), int(text_ev[10])],
        "numbers_only_in_a": only_a,
        "numbers_only_in_b": only_b,
        "simhash_a": f"{int(sigs.simhash[0]):016x}",
        "simhash_b": f"{int(sigs.simhash[1]):016x}",
    }
    if adds is not None:
        result.update(adds=list(adds), passage=passage, adds_measured=measured)
    if dates is not None:
        result["days_apart"] = abs(day_number(dates[0]) - day_number(dates[1]))
    if as_json:
        click.echo(orjson.dumps(result).decode())
        return
    verdict = "duplicate" if ev.is_duplicate else "not a duplicate"
    if ev.kind == "unique" and not cfg.report_templates:
        asked = compare_signatures(sigs, replace(cfg, report_templates=True))
        if undated.kind != ev.kind:
            verdict += (
                f": {undated.kind} by the texts, but the records are {result['days_apart']} days apart, "
                f"two occasions (over {cfg.occasion_days} days)"
            )
        elif asked.kind == "template":
            verdict += ": the same template told of another subject or occasion (--report-templates)"
    click.echo(f"verdict       {ev.kind} ({verdict})")
    click.echo(f"similarity    {ev.similarity:.3f}   (Jaccard of token 5-grams, estimated from the sketches)")
    click.echo(f"containment   {containment[0]:.3f} of A in B, {containment[1]:.3f} of B in A")
    click.echo(f"numbers       {ev.number_conflicts} conflicting of {ev.numbers_aligned} in the same place")
    if only_a or only_b:
        click.echo(
            f"              only in A: {', '.join(only_a) or '-'};  only in B: {', '.join(only_b) or '-'}"
        )
    click.echo(f"simhash       {result['simhash_a']}  {result['simhash_b']}  distance {ev.hamming}")
    click.echo(f"shared        {result['shared_passage'] or 'no whole sentence'}")
    if adds is not None:
        note = " (measured here; the engine did not read the texts: their sketches share too little)"
        click.echo(f"passage       {passage} characters shared in one run{note if measured else ''}")
        for name, n, spans in (
            ("A adds", adds[0], result["a_adds"]),
            ("B adds", adds[1], result["b_adds"]),
        ):
            shown = "  ".join(f"«{s}»" for s in spans[:3]) if spans else "nothing"
            click.echo(f"{name:<14}{n} characters: {shown}")
    qa, qb = result["quoted"]
    if qa or qb:
        shared_a, shared_b = int(text_ev[2] - text_ev[0]), int(text_ev[3] - text_ev[1])
        why = ""
        if (2 * qa >= shared_a) != (2 * qb >= shared_b):
            who = "A" if 2 * qa >= shared_a else "B"
            why = f": {who} quotes the other (a reply or a commentary), not its copy"
        click.echo(
            f"quoted        A {qa}, B {qb} of the characters they share (quoted lines, quotation marks){why}"
        )
    if result["substitutions"]:
        shown = "  ".join(
            f"«{x}» -> «{y}»" + (f" ({n} places)" if n > 1 else "") for x, y, n in result["substitutions"]
        )
        click.echo(f"replaced      {shown}")


@click.group("idf")
def idf_group() -> None:
    """IDF tables fitted on your corpus (use them with --idf)."""


@idf_group.command("build")
@click.argument("files", nargs=-1, required=True)
@input_fields
@output_option("IDF table to write.", name="output", type=click.Path(dir_okay=False))
@click.option(
    "--features", type=click.Choice(["words", "shingles", "word_ngrams"]), default="words", show_default=True
)
@click.option("--ngram", type=int, default=4, show_default=True)
@click.option("--step", type=int, default=1, show_default=True)
@click.option(
    "--min-df", type=int, default=1, show_default=True, help="Drop features seen in fewer documents."
)
@outputs_together(inputs="files", outputs=("output",))
def idf_build_cmd(
    files: tuple[str, ...],
    fields: InputFields,
    output: str,
    features: str,
    ngram: int,
    step: int,
    min_df: int,
) -> None:
    """Fit an IDF table on the documents in FILE... and write it as 'word idf' lines."""
    from neardup.fingerprint.simhash import SimHasher
    from neardup.text.segment import is_word
    from neardup.text.weights import fit_idf

    cfg = SimHashConfig(features=cast(Any, features), ngram=ngram, step=step, stopwords=False, weighting="tf")
    hasher = SimHasher(cfg)
    stats = ReadStats()

    def docs() -> Iterator[list[str]]:
        for rec in fields.records(files, stats=stats, description="fitting IDF"):
            toks = hasher._tokens(_record_text(rec, fields.text_field))
            yield [t for t in toks if is_word(t)] if features == "words" else toks

    if min_df < 1:
        raise ConfigError(f"--min-df must be >= 1, got {min_df}")
    table, n = fit_idf(docs())
    if min_df > 1:
        import math

        cut_idf = math.log((1 + n) / (1 + min_df)) + 1.0 + 1e-12
        table.table = {w: v for w, v in table.table.items() if v <= cut_idf}
    if n and not table.table:
        raise InputError(f"no feature is in {min_df} of the {n} documents; lower --min-df", source=files[0])
    table.save(output, docs=n)
    echo_err(f"neardup: fitted IDF on {n} documents, {len(table)} features, wrote {output}")
    _finish(stats, fields.skip_bad)
