"""``neardup synth``, ``neardup eval`` and ``neardup report``: make labelled sets, score methods and
runs against them, and show a run as an HTML page.

    neardup synth news.jsonl.gz -o set.jsonl --truth truth.jsonl --lang zh --seed 1
    neardup eval sweep --truth truth.jsonl set.jsonl --k 0..8 --json > eval.json
    neardup dedup set.jsonl --out out.jsonl && neardup eval score --truth truth.jsonl out.jsonl
    neardup report out.jsonl -o report.html --texts set.jsonl --eval eval.json
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import click
import orjson

from neardup.cli._common import FINITE_FLOAT, InputFields, add_options, echo_err, input_fields, output_option
from neardup.eval.single_signal import main_text
from neardup.exceptions import ConfigError, InputError
from neardup.io import iter_json_objects, outputs_together, write_jsonl

__all__ = ["eval_group", "parse_range", "report_cmd", "synth_cmd"]


def parse_range(spec: str, what: str = "k", top: int = 64) -> list[int]:
    """``"0..8"`` -> 0 to 8; ``"1,3,5"`` -> those; ``"3"`` -> [3]; every value in 0..``top``.

    >>> parse_range("0..3"), parse_range("1,4")
    ([0, 1, 2, 3], [1, 4])
    """
    values: range | list[int] | None
    try:
        if ".." in spec:
            lo, hi = (int(x) for x in spec.split("..", 1))
            values = range(lo, hi + 1) if lo >= 0 and hi <= top else None
        else:
            values = [int(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--{what} must look like 0..8 or 1,3,5, got {spec!r}") from None
    if values is None or any(not 0 <= v <= top for v in values):
        raise ConfigError(f"--{what} values must be between 0 and {top}, got {spec!r}")
    if not values:
        raise ConfigError(f"--{what} {spec!r} holds no values: use e.g. 0..8")
    return list(values)


def _records(paths: tuple[str, ...], fields: InputFields) -> list[dict[str, Any]]:
    """Records as dicts with ``id`` and ``text`` (HTML records: their main text, ``html`` kept)."""
    out = []
    for rec in fields.records(paths):
        d = dict(rec.extra)
        d["id"] = rec.id
        if rec.text is not None:
            d["text"] = rec.text
        else:
            d["html"] = rec.html or ""
            d["text"] = main_text(rec.html or "")
        out.append(d)
    return out


def _not_empty(items: Collection[Any], sources: Iterable[str], doing: str = "score") -> None:
    if not items:
        raise InputError(f"holds no document: nothing to {doing}", source=", ".join(sources))


def _in_common(
    ids: Collection[str],
    sources: Iterable[str],
    others: Collection[str],
    other_sources: Iterable[str],
    *,
    doing: str = "score",
    doing_against: str = "score against",
) -> None:
    """Refuse what would give numbers that mean nothing: ``ids`` (of the files ``sources``) or
    ``others`` (the truth, or the texts, of ``other_sources``) empty, or the two without an id in
    common (an empty truth scored F1 1.0, an output of another set 0.0)."""
    names, other_names = ", ".join(sources), ", ".join(other_sources)
    _not_empty(ids, sources, doing)
    _not_empty(others, other_sources, doing_against)
    if not any(i in others for i in ids):
        raise InputError(
            f"no document id is also in {other_names}: nothing to {doing} (are they of one set? "
            "--id-field names the id field)",
            source=names,
        )


# --------------------------------------------------------------------------------------------- synth


@click.command("synth")
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@output_option("Where to write the labelled set (JSONL, .gz to compress).", type=click.Path(dir_okay=False))
@click.option(
    "--truth",
    "truth_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="Where to write the truth: id, group, kind, source, negative_of, edits.",
)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same set.")
@click.option("--n-sources", type=int, default=1000, show_default=True, help="Articles used as sources.")
@click.option("--hard-negatives", type=int, default=None, help="Look-alike pairs (default n-sources / 5).")
@click.option("--min-chars", type=int, default=None, help="Shortest source used (default 300 zh, 1200 en).")
@click.option(
    "--profile",
    type=click.Choice(["realistic", "classic"]),
    default="realistic",
    show_default=True,
    help="realistic: edits as strong as real reposts, jaccard5 in the truth; classic: the first sets' light edits.",
)
@click.option(
    "--html-rate",
    type=FINITE_FLOAT,
    default=None,
    help="Share of reformatted and near copies wrapped in an HTML template (default 0.4 realistic, 0.1 classic).",
)
@click.option(
    "--copy-rate", type=FINITE_FLOAT, default=0.7, show_default=True, help="Share of sources given copies."
)
@click.option(
    "--cases",
    "cases_spec",
    default="all",
    show_default=True,
    help="Realistic profile: text reuse beyond reposts, comma-separated (quote, follow_up, template, "
    "corrected, script, renumbered, excerpt), 'all' or 'none' (the sets made before they existed).",
)
@click.option(
    "--case-rate",
    type=FINITE_FLOAT,
    default=0.06,
    show_default=True,
    help="Share of the sources given each case.",
)
@input_fields
@outputs_together(inputs="inputs", outputs=("out", "truth_path"))
def synth_cmd(
    inputs: tuple[str, ...],
    out: str,
    truth_path: str,
    lang: str,
    seed: int,
    n_sources: int,
    hard_negatives: int | None,
    min_chars: int | None,
    profile: str,
    html_rate: float | None,
    copy_rate: float,
    cases_spec: str,
    case_rate: float,
    fields: InputFields,
) -> None:
    """Make labelled reposts (exact, reformatted, near, partial) and hard negatives from real articles.

    The edits are those reposting sites make: changed title, editor and source lines, site header and
    footer, HTML template, ads, a few changed characters, dropped or added sentences, swapped
    paragraphs, truncation, a passage pasted into another article. The realistic profile adds replies
    and commentaries that quote a source, follow-ups, templates with another subject, and copies with
    a corrected figure, in traditional script, with numbers written another way, or cut to their
    lead (--cases). Never publish sets made from corpora you may not redistribute.
    """
    from neardup.eval.synth import CASES, SynthConfig, synthesize

    spec = cases_spec.strip().lower()
    cases = (
        CASES
        if spec == "all"
        else ()
        if spec == "none"
        else tuple(c.strip() for c in spec.split(",") if c.strip())
    )

    cfg = SynthConfig(
        lang=lang,  # type: ignore[arg-type]
        seed=seed,
        n_sources=n_sources,
        hard_negatives=hard_negatives,
        min_chars=min_chars,
        # the classic profile wraps 10% in HTML unless told otherwise (its light edits)
        html_rate=0.1 if html_rate is None and profile == "classic" else html_rate,
        copy_rate=copy_rate,
        profile=profile,  # type: ignore[arg-type]
        cases=cases,
        case_rate=case_rate,
    )
    docs, truth = synthesize(_records(inputs, fields), cfg)
    write_jsonl(out, docs)
    write_jsonl(truth_path, truth)
    from collections import Counter

    kinds = Counter(t["kind"] for t in truth)
    echo_err(
        f"neardup synth: {len(docs)} documents, " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    )


# --------------------------------------------------------------------------------------------- eval


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def _table(rows: list[dict[str, Any]], kinds: list[str]) -> str:
    head = [
        "method",
        "param",
        "precision",
        "recall",
        "F1",
        "ARI",
        "P(hard neg)",
        *[f"R({k})" for k in kinds],
        "seconds",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [
            r["method"],
            f"{r['param']:g}",
            _fmt(r["precision"]),
            _fmt(r["recall"]),
            _fmt(r["f1"]),
            _fmt(r["ari"]),
            _fmt(r["hn_precision"]),
            *[_fmt(r["recall_by_kind"].get(k)) for k in kinds],
            f"{r['seconds']:.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


class _EvalGroup(click.Group):
    """``neardup eval`` needs its subcommand; a flag in its place gets a one-line pointer to them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            raise ConfigError(
                "neardup eval takes a subcommand: `eval score` (a dedup run's output; --documents runs "
                "the match engine on documents), `eval sweep` (single-signal methods), `eval graded` (graded copies)"
            )
        return super().parse_args(ctx, args)


@click.group("eval", cls=_EvalGroup)
def eval_group() -> None:
    """Score clusters and methods against labelled truth: pairwise precision, recall, F1, ARI.

    \b
    neardup eval score --truth truth.jsonl out.jsonl              a dedup run's output
    neardup eval score --truth truth.jsonl --documents set.jsonl  the shipped engine on documents
    neardup eval sweep --truth truth.jsonl set.jsonl --k 0..8     single-signal methods
    neardup eval graded clough.jsonl --lang en                    graded copies
    """


_truth_options = [
    click.option(
        "--truth",
        "truth_path",
        type=click.Path(dir_okay=False),
        help="Truth JSONL (id, group[, kind, source, negative_of]).",
    ),
    click.option(
        "--natural",
        is_flag=True,
        help="No truth file: take the input's own duplicates as truth (same text, or Jaccard of word "
        "5-grams >= --natural-threshold).",
    ),
    click.option("--natural-threshold", type=FINITE_FLOAT, default=0.8, show_default=True),
    click.option("--write-truth", type=click.Path(dir_okay=False), help="Save the truth --natural built."),
]
_result_options = [
    click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON instead of a table."),
    click.option("-o", "--out", "out", type=click.Path(dir_okay=False), help="Also write the JSON here."),
]
_lang_option = click.option(
    "--lang",
    type=click.Choice(["zh", "en"]),
    default="zh",
    show_default=True,
    help="Picks the shingle features (zh: char 4-grams, en: word 3-grams).",
)


def _emit(result: dict[str, Any], text: str, as_json: bool, out: str | None) -> None:
    payload = orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)
    if out:
        from neardup.io import atomic_write

        with atomic_write(out, "wb") as fh:
            fh.write(payload)
    click.echo(payload.decode() if as_json else text)


def _truth(
    inputs: tuple[str, ...],
    fields: InputFields,
    truth_path: str | None,
    natural: bool,
    natural_threshold: float,
    write_truth: str | None,
) -> tuple[Any, list[dict[str, Any]] | None]:
    """The truth (a file, or the input's own duplicates) and, when built from them, the records.
    A truth built from the input (--natural) holds every input document, so only an empty input
    leaves it empty."""
    from neardup.eval.metrics import Truth

    if natural and truth_path:
        raise ConfigError("give either --truth FILE or --natural, not both")
    if not 0 < natural_threshold <= 1:
        raise ConfigError(f"--natural-threshold must be in (0, 1], got {natural_threshold}")
    if not natural:
        return _load_truth(truth_path, False), None
    from neardup.eval.synth import natural_truth

    recs = _records(inputs, fields)
    rows = natural_truth(recs, threshold=natural_threshold)
    if write_truth:
        write_jsonl(write_truth, rows)
    return Truth.from_records(rows), recs


@eval_group.command("score")
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@add_options(_truth_options)
@click.option(
    "--documents",
    is_flag=True,
    help="INPUT holds documents, not a dedup run's output: the shipped match engine (neardup dedup's "
    "defaults) deduplicates them and its clusters are scored.",
)
@add_options(_result_options)
@input_fields
@outputs_together(inputs=("inputs", "truth_path"), outputs=("out", "write_truth"))
def score_cmd(
    inputs: tuple[str, ...],
    truth_path: str | None,
    natural: bool,
    natural_threshold: float,
    write_truth: str | None,
    documents: bool,
    as_json: bool,
    out: str | None,
    fields: InputFields,
) -> None:
    """Score the clusters of a dedup run's output (INPUT: its JSONL) against labelled truth.

    With --documents, INPUT holds the documents and the shipped match engine is run and scored.
    """
    if not documents:
        truth = _load_truth(truth_path, natural)
        ev = _evaluate(_dedup_output(inputs, fields.id_field), truth, inputs, _truth_name(truth_path))
        _emit({"clusters": ev.to_dict()}, _score_text(ev, truth), as_json, out)
        return
    from neardup.dedup import DedupConfig, dedup_fingerprints, fingerprint_records

    truth, _ = _truth(inputs, fields, truth_path, natural, natural_threshold, write_truth)
    t0 = time.perf_counter()
    config = DedupConfig()
    run = dedup_fingerprints(fingerprint_records(fields.records(inputs), config), config)
    ev = _evaluate(run.rows(), truth, inputs, _truth_name(truth_path))
    seconds = time.perf_counter() - t0
    result = {
        "engine": config.match.to_dict(),
        "clusters": ev.to_dict(),
        "seconds": round(seconds, 3),
        "truth_counts": _counts(truth),
    }
    text = (
        "the shipped match engine (neardup dedup's defaults) on "
        f"{run.keep.size:,} documents in {seconds:.1f} s\n" + _score_text(ev, truth)
    )
    _emit(result, text, as_json, out)


def _dedup_output(inputs: tuple[str, ...], id_field: str) -> Iterator[dict[str, Any]]:
    """The lines of a dedup run's output as rows keyed ``id``."""
    from neardup.io import expand_inputs

    for p in expand_inputs(Path(i) for i in inputs):
        for lineno, obj in iter_json_objects(p):
            if id_field not in obj or "cluster" not in obj:
                raise InputError(
                    f"dedup output line needs {id_field!r} and 'cluster' (for documents, add --documents)",
                    source=str(p),
                    line=lineno,
                )
            yield {**obj, "id": str(obj[id_field])}


def _truth_name(truth_path: str | None) -> str:
    """How messages name the truth: its file, or the one --natural built."""
    return truth_path if truth_path is not None else "the truth --natural built"


def _evaluate(rows: Iterable[dict[str, Any]], truth: Any, sources: Iterable[str], truth_source: str) -> Any:
    """Score output rows (id, cluster, related_to), read from ``sources``, against the truth."""
    from neardup.eval.metrics import evaluate

    pred: dict[str, Any] = {}
    related: dict[str, str] = {}
    for row in rows:
        pred[row["id"]] = row["cluster"]
        if row.get("related_to") is not None:
            related[row["id"]] = str(row["related_to"])
    _in_common(pred.keys(), sources, truth.docs.keys(), [truth_source])
    return evaluate(pred, truth, related)


_METHODS = (
    "simhash-words",
    "simhash-shingles",
    "nshash",
    "simhash-words+sentence",
    "simhash-words+cosine",
    "simhash-words|nshash",
    "simhash-shingles|nshash",
    "cosine",
)


@eval_group.command("sweep")
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@add_options(_truth_options)
@click.option("--methods", default=",".join(_METHODS), show_default=True, help="Comma-separated methods.")
@click.option("--k", "k_spec", default="0..8", show_default=True, help="Hamming distances to sweep.")
@click.option("--n", "n_spec", default="1..5", show_default=True, help="nshash n values to sweep.")
@_lang_option
@click.option(
    "--min-hn-precision",
    type=FINITE_FLOAT,
    default=0.99,
    show_default=True,
    help="Floor on precision on hard negatives when choosing the best setting.",
)
@add_options(_result_options)
@input_fields
@outputs_together(inputs=("inputs", "truth_path"), outputs=("out", "write_truth"))
def sweep_cmd(
    inputs: tuple[str, ...],
    truth_path: str | None,
    natural: bool,
    natural_threshold: float,
    write_truth: str | None,
    methods: str,
    k_spec: str,
    n_spec: str,
    lang: str,
    min_hn_precision: float,
    as_json: bool,
    out: str | None,
    fields: InputFields,
) -> None:
    """Sweep the single-signal methods (--methods over --k, --n) on documents: the peers and
    ablations of docs/quality.md."""
    from neardup.eval.metrics import COPY_KINDS
    from neardup.eval.single_signal import choose_default, sweep

    ks, ns = parse_range(k_spec), parse_range(n_spec, "n", top=255)
    if not [m for m in methods.split(",") if m.strip()]:
        raise ConfigError(f"--methods names no method; use some of {','.join(_METHODS)}")
    if not 0 <= min_hn_precision <= 1:
        raise ConfigError(f"--min-hn-precision must be between 0 and 1, got {min_hn_precision}")
    truth, recs = _truth(inputs, fields, truth_path, natural, natural_threshold, write_truth)
    recs = recs if recs is not None else _records(inputs, fields)
    _in_common({r["id"] for r in recs}, inputs, truth.docs.keys(), [_truth_name(truth_path)])
    labelled = [r for r in recs if r["id"] in truth]
    show = sys.stderr.isatty() and not as_json
    rows = sweep(
        [r["text"] for r in labelled],
        [r["id"] for r in labelled],
        truth,
        methods=[m.strip() for m in methods.split(",") if m.strip()],
        ks=ks,
        ns=ns,
        lang=lang,
        progress=(lambda m: echo_err(f"  {m} ...")) if show else None,
    )
    best = choose_default(rows, min_hn_precision=min_hn_precision)
    table = [r.to_dict() for r in rows]
    result = {
        "rows": table,
        "default": best.to_dict() if best else None,
        "documents": len(labelled),
        "truth_counts": _counts(truth),
    }
    kinds = [k for k in COPY_KINDS if any(k in r.evaluation.recall_by_kind for r in rows)]
    text = _table(table, kinds)
    if best:
        text += (
            f"\n\nbest by F1 with precision on hard negatives >= {min_hn_precision}: {best.method} at "
            f"{best.param:g} (F1 {best.evaluation.duplicates.f1:.4f})"
        )
    _emit(result, text, as_json, out)


@eval_group.command("graded")
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@_lang_option
@add_options(_result_options)
@input_fields
@outputs_together(inputs="inputs", outputs=("out",))
def graded_cmd(
    inputs: tuple[str, ...], lang: str, as_json: bool, out: str | None, fields: InputFields
) -> None:
    """Graded copies (task, category: orig/cut/light/heavy/non, as en-clough): how each score
    separates the grades from their source."""
    from neardup.eval.single_signal import graded_separation

    records = _records(inputs, fields)
    _not_empty(records, inputs)
    try:
        graded = graded_separation(records, lang=lang)
    except ConfigError as exc:  # about the records: name the files they came from
        raise InputError(str(exc), source=", ".join(inputs)) from None
    result = {"graded": graded}
    _emit(result, _graded_table(result["graded"]), as_json, out)


def _score_text(ev: Any, truth: Any) -> str:
    from neardup.eval.metrics import COPY_KINDS

    kinds = [k for k in COPY_KINDS if k in ev.recall_by_kind]
    d = ev.duplicates
    return (
        f"documents {len(truth)} (unlabelled in output: {ev.unlabelled})\n"
        f"duplicate pairs: precision {d.precision:.4f} recall {d.recall:.4f} F1 {d.f1:.4f} "
        f"(tp {d.tp}, fp {d.fp}, fn {d.fn})\n"
        f"all pairs (partial copies included): precision {ev.overall.precision:.4f} recall "
        f"{ev.overall.recall:.4f} F1 {ev.overall.f1:.4f} ARI {ev.overall.ari:.4f}\n"
        f"precision on hard negatives: {ev.hn_precision:.4f}"
        + (
            f" (merged {ev.hard_negatives_merged:.2%} of look-alikes)"
            if ev.hard_negatives_merged is not None
            else ""
        )
        + (
            "\nrecall by kind (partial: reported as related, not merged): "
            + ", ".join(f"{k} {ev.recall_by_kind[k]:.4f} (n={ev.count_by_kind[k]})" for k in kinds)
            if kinds
            else ""
        )
        + (
            "\nkept apart (merged with their source or look-alike; quotes and follow-ups: reported as related): "
            + ", ".join(
                f"{k} merged {ev.merged_by_kind[k]:.2%}"
                + (f", related {ev.related_by_kind[k]:.2%}" if k in ev.related_by_kind else "")
                + f" (n={ev.count_by_kind[k]})"
                for k in ev.merged_by_kind
            )
            if ev.merged_by_kind
            else ""
        )
    )


def _counts(truth: Any) -> dict[str, int]:
    from collections import Counter

    return dict(Counter(d.kind for d in truth.docs.values()))


def _load_truth(truth_path: str | None, natural: bool) -> Any:
    from neardup.eval.metrics import Truth

    if truth_path is None:
        hint = " (--natural builds truth only from documents, not from dedup output)" if natural else ""
        raise ConfigError(f"--truth TRUTH.jsonl is needed to score clusters{hint}")
    truth = Truth.load(truth_path)
    _not_empty(truth.docs, [truth_path], "score against")  # before a --documents run, not after
    return truth


def _graded_table(g: dict[str, Any]) -> str:
    grades = g["grades"]
    head = ["measure", *[f"{x} median [min, max]" for x in grades], "AUC copied vs non"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, m in g["measures"].items():
        cells = (
            [name]
            + [
                f"{m['by_grade'][x]['median']:.3g} [{m['by_grade'][x]['min']:.3g}, "
                f"{m['by_grade'][x]['max']:.3g}]"
                for x in grades
            ]
            + [_fmt(m["auc_copied_vs_non"])]
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- report


@click.command("report")
@click.argument("output", type=click.Path(exists=True, dir_okay=False))
@output_option("HTML file to write.", type=click.Path(dir_okay=False))
@click.option(
    "--texts",
    "texts",
    multiple=True,
    type=click.Path(),
    help="The dedup run's input (for the side-by-side view); repeatable.",
)
@click.option(
    "--eval",
    "eval_path",
    type=click.Path(exists=True, dir_okay=False),
    help="JSON from `neardup eval score|sweep --json` (curves, scores).",
)
@click.option("--max-pairs", type=int, default=500, show_default=True, help="Pairs listed with their texts.")
@click.option("--title", default="neardup report", show_default=True)
@click.option(
    "--strictness",
    default="0,0.25,0.5,0.75,1",
    show_default=True,
    help="Strictness values at which the report shows what would change (as neardup rethreshold).",
)
@click.option(
    "--run-strictness", type=FINITE_FLOAT, default=0.5, show_default=True, help="The run's --strictness."
)
@click.option(
    "--run-profile",
    type=click.Choice(["news", "corpus"]),
    default="news",
    show_default=True,
    help="The run's --profile.",
)
@input_fields
@outputs_together(inputs=("output", "texts", "eval_path"), outputs=("out",))
def report_cmd(
    output: str,
    out: str,
    texts: tuple[str, ...],
    eval_path: str | None,
    max_pairs: int,
    title: str,
    strictness: str,
    run_strictness: float,
    run_profile: str,
    fields: InputFields,
) -> None:
    """Write a self-contained HTML page about a dedup run (OUTPUT: its JSONL)."""
    from neardup.eval.report import write_report

    if max_pairs < 0:
        raise ConfigError(f"--max-pairs must be >= 0, got {max_pairs}")
    recs = []
    for lineno, obj in iter_json_objects(Path(output)):
        if "id" not in obj or "cluster" not in obj:
            raise InputError("dedup output line needs 'id' and 'cluster'", source=output, line=lineno)
        recs.append(obj)
    _not_empty(recs, [output], "report")
    text_map = None
    if texts:
        text_map = {r["id"]: r["text"] for r in _records(texts, fields)}
        ids = {str(r["id"]) for r in recs}
        _in_common(ids, [output], text_map.keys(), texts, doing="show side by side", doing_against="show")
    eval_data = None
    if eval_path:
        try:
            eval_data = orjson.loads(Path(eval_path).read_bytes())
        except orjson.JSONDecodeError:
            raise InputError(
                "is not valid JSON (expected the output of neardup eval score|sweep --json)", source=eval_path
            ) from None
    from neardup.dedup.rethreshold import parse_strictness, rethreshold

    changes = rethreshold(
        recs,
        parse_strictness(strictness),
        run_profile=run_profile,
        run_strictness=run_strictness,
        source=output,
    )
    write_report(
        out,
        recs,
        text_map,
        eval_data,
        title=title,
        max_pairs=max_pairs,
        settings_changes=changes,
        eval_source=eval_path,
    )
    echo_err(f"neardup report: wrote {out} ({len(recs)} documents)")
