"""``neardup spark dedup``: ``neardup dedup`` as a Spark job (local[*] by default, or ``--master``).

    neardup spark dedup news.jsonl --out clusters.jsonl
    neardup spark dedup hdfs:///crawl/new/ --against hdfs:///crawl/corpus.idx --merge \\
        --out hdfs:///crawl/new-clusters --master yarn
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

import click

from neardup.cli._common import (
    InputFields,
    echo_err,
    input_fields,
    inputs_argument,
    output_option,
    parse_conf,
)
from neardup.cli.dedup import Against, against_options, build_config, engine_options, format_summary
from neardup.exceptions import ConfigError, InputError
from neardup.io import check_outside, outputs_together
from neardup.match.dates import reads_dates

__all__ = ["spark_group"]


@click.group("spark")
def spark_group() -> None:
    """neardup dedup on Apache Spark (needs pip install 'neardup[spark]' and Java 17)."""


@spark_group.command("dedup")
@inputs_argument
@output_option(
    "A directory of parts written by the executors (local path, hdfs://, s3a://): part-00000.jsonl... "
    "read in order, the lines neardup dedup writes. The suffix picks the format: .jsonl, .jsonl.gz, "
    ".parquet (or --format)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "jsonl.gz", "parquet"]),
    default=None,
    help="Output format (default: from the --out suffix).",
)
@input_fields
@engine_options
@against_options("A corpus index directory (local path, hdfs://, s3a://).")
@click.option(
    "--master",
    default=None,
    help="Spark master (default local[*]; keep unset under spark-submit to use its --master).",
)
@click.option(
    "--partitions",
    type=int,
    default=None,
    help="Tasks that read, parse and sign the input (splits of size/N; gzip files are not split). "
    "Default: Spark's file splitting (128 MB splits).",
)
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark settings.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr.")
@outputs_together(inputs="inputs", outputs=("out",))
def spark_dedup_cmd(
    inputs: tuple[str, ...],
    out: str,
    fmt: str | None,
    fields: InputFields,
    engine: dict[str, Any],
    against: Against | None,
    master: str | None,
    partitions: int | None,
    confs: tuple[str, ...],
    quiet: bool,
) -> None:
    """Deduplicate INPUT files or directories (JSONL, JSONL.gz, .txt, Parquet) on Spark: the same
    output lines as `neardup dedup` on the same input.

    The executors read, parse and sign the documents, find and verify the candidate pairs, form
    the clusters, run the match engine and write the output; the driver sees counts only. With
    --against the executors join the batch's candidate keys with the corpus index; with
    --max-distance the driver collects the signatures and runs the engine itself. --workers is
    accepted for the same command line and unused.
    """
    from neardup.integrations.spark import (
        SparkCorpus,
        output_format,
        read_documents,
        spark_dedup,
        split_conf,
        write_output,
    )

    t0 = time.perf_counter()
    if partitions is not None and partitions < 1:
        raise ConfigError(f"--partitions must be at least 1, got {partitions}")
    kind = output_format(out, fmt)  # an unknown suffix stops here, before Spark starts
    conf = parse_conf(confs)
    reading = dataclasses.asdict(fields)
    reading.pop("min_chars", None)  # not an option of this command
    # the executors read the records, out of reach of the local check of a --id-field no record has
    reading.pop("id_field_given", None)
    for name, flag in (("allow_unreadable", "--allow-unreadable"),):
        if reading.pop(name, False):
            raise ConfigError(
                f"{flag} is not supported by neardup spark yet; run neardup dedup, or filter the input first"
            )
    if against:
        check_outside(against.path, [out], "the corpus index")
    for given in inputs:  # a local input that is missing stops here, before Spark starts
        if "://" not in given and not os.path.exists(given):
            raise InputError("no such file or directory", source=given)
    spark, stop = _session(master, conf, inputs)
    try:
        corpus = SparkCorpus(spark, against.path) if against else None
        config = build_config(settings=corpus.settings if corpus is not None else None, **engine)
        dated = config.match.keep == "newest" or reads_dates(config.match)
        keep_field = config.match.keep_field if dated else None
        docs = read_documents(spark, list(inputs), **reading, keep_field=keep_field)
        res = spark_dedup(
            spark,
            docs,
            config,
            against=corpus,
            merge=against is not None and against.merge,
            read_conf=split_conf(partitions, _local_bytes(inputs)),
            out=out,
            fmt=kind,
        )
        if res.result is not None:  # the driver path (--max-distance): the driver holds the rows
            from neardup.dedup.rethreshold import decision_rows

            write_output(spark, out, decision_rows(res.result), kind)  # the rows neardup dedup writes
    finally:
        if stop:
            spark.stop()
    summary = res.summary
    if res.read.skipped:
        summary["skipped"] = res.read.skipped
        summary["first_error"] = res.read.first_error
    if res.index_documents is not None:
        if res.result is not None:  # the distributed plan counted it in its summary
            summary["merged"] = int(res.result.keep.sum())
        summary["index_documents"] = res.index_documents
    if not quiet:
        echo_err(format_summary(summary, time.perf_counter() - t0, what="spark dedup"))
        rounds = summary.get("components_rounds")
        echo_err(
            "  stages: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds.items())
            + (f"; components in {rounds} rounds" if rounds else "")
        )


#: what Spark takes as a master besides ``yarn`` (SparkSubmit refuses anything else)
_MASTERS = ("local", "spark://", "k8s://", "mesos://")


def _session(master: str | None, conf: dict[str, str], inputs: tuple[str, ...]) -> tuple[Any, bool]:
    """The Spark session to run in, and whether this command must stop it when done.

    A session the caller already runs is used and left running; under spark-submit its --master
    is used unless --master is given. A session started here logs only Spark's fatal errors
    (failures come back as one line; NEARDUP_DEBUG=1 keeps Spark's own logging).
    """
    from neardup._deps import require

    if master is not None and master != "yarn" and not master.startswith(_MASTERS):
        raise ConfigError(
            f"--master {master!r} is not a Spark master: use local, local[N], local[*], spark://HOST:PORT, "
            "yarn or k8s://HOST:PORT"
        )

    require("pyspark", "spark", purpose="neardup spark dedup")
    from pyspark.sql import SparkSession

    from neardup.integrations.spark import get_spark

    under_submit = "SPARK_ENV_LOADED" in os.environ or "PYSPARK_GATEWAY_PORT" in os.environ
    found = SparkSession.getActiveSession()
    try:
        spark = get_spark(
            master or (None if under_submit else "local[*]"), conf=conf, input_bytes=_local_bytes(inputs)
        )
    except Exception as exc:
        if "JAVA_GATEWAY_EXITED" not in str(exc):
            raise
        raise ConfigError(
            "Spark did not start (its JVM exited): check --master and --conf, and that Java is "
            "installed; NEARDUP_DEBUG=1 shows Spark's own messages"
        ) from None
    stop = found is None and (master is not None or not under_submit)
    if stop and not os.environ.get("NEARDUP_DEBUG"):
        spark.sparkContext.setLogLevel("FATAL")
    return spark, stop


def _local_bytes(paths: tuple[str, ...] | list[str]) -> int | None:
    """Total size of local input files and folders; None when any input is remote (hdfs://, s3a://)."""
    total = 0
    for p in paths:
        if "://" in p and not p.startswith("file://"):
            return None
        p = p.removeprefix("file://")
        if os.path.isdir(p):
            total += sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)
        elif os.path.exists(p):
            total += os.path.getsize(p)
    return total
