"""``neardup spark dedup``: ``neardup dedup`` as a Spark job (local[*] by default, or ``--master``).

    neardup spark dedup news.jsonl --out clusters.jsonl
    neardup spark dedup hdfs:///crawl/new/ --against hdfs:///crawl/corpus.idx --merge \\
        --out hdfs:///crawl/new-clusters --master yarn
"""

from __future__ import annotations

import time

import click

from neardup.cli._common import add_options, echo_err, input_options
from neardup.cli.dedup import build_config, engine_options, format_summary
from neardup.io import outputs_together

__all__ = ["spark_group"]


@click.group("spark")
def spark_group() -> None:
    """neardup dedup on Apache Spark (needs pip install 'neardup[spark]' and Java 17)."""


@spark_group.command("dedup")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--out",
    "-o",
    "out",
    required=True,
    help="A local .jsonl file (written atomically), or a directory/URI (one part-00000 of the same lines).",
)
@add_options(input_options)
@add_options(engine_options)
@click.option("--against", help="A corpus index directory (local path, hdfs://, s3a://).")
@click.option("--merge", is_flag=True, help="With --against: add the batch's kept documents to the index.")
@click.option(
    "--master",
    default=None,
    help="Spark master (default local[*]; keep unset under spark-submit to use its --master).",
)
@click.option("--partitions", type=int, default=None, help="Shuffle partitions (default: Spark's).")
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark settings.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr.")
@outputs_together(inputs="inputs", outputs=("out",))
def spark_dedup_cmd(
    inputs: tuple[str, ...],
    out: str,
    id_field: str,
    text_field: str,
    html_field: str,
    skip_bad: bool,
    keep: str,
    keep_field: str,
    max_distance: int | None,
    workers: int,
    duplicate_ids: str,
    against: str | None,
    merge: bool,
    master: str | None,
    partitions: int | None,
    confs: tuple[str, ...],
    quiet: bool,
) -> None:
    """Deduplicate INPUT files on Spark: the same output lines as `neardup dedup` on the same input.

    Signatures are made in the executors; the driver holds them (no text) and runs the match engine;
    with --against the executors search the corpus index for the batch's candidates. --workers is
    accepted for the same command line and unused: extraction runs in the executors.
    """
    import os

    from neardup._deps import require
    from neardup.exceptions import ConfigError
    from neardup.integrations.spark import (
        SparkCorpus,
        get_spark,
        read_documents,
        spark_dedup,
        write_output,
    )

    t0 = time.perf_counter()
    if merge and not against:
        raise ConfigError("--merge needs --against INDEX_DIR (the index to add the batch to)")
    conf: dict[str, str] = {}
    for item in confs:
        if "=" not in item:
            raise ConfigError(f"--conf takes KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        conf[k] = v
    if partitions:
        conf["spark.sql.shuffle.partitions"] = str(partitions)
    require("pyspark", "spark", purpose="neardup spark dedup")
    from pyspark.sql import SparkSession

    under_submit = "SPARK_ENV_LOADED" in os.environ or "PYSPARK_GATEWAY_PORT" in os.environ
    found = SparkSession.getActiveSession()  # a session the caller runs: used, and left running
    spark = get_spark(
        master or (None if under_submit else "local[*]"), conf=conf, input_bytes=_local_bytes(inputs)
    )
    try:
        corpus = SparkCorpus(spark, against) if against else None
        config = build_config(
            keep=keep,
            keep_field=keep_field,
            max_distance=max_distance,
            workers=workers,
            duplicate_ids=duplicate_ids,
            settings=corpus.settings if corpus is not None else None,
        )
        docs = read_documents(
            spark,
            list(inputs),
            id_field=id_field,
            text_field=text_field,
            html_field=html_field or None,
            skip_bad=skip_bad,
            keep_field=config.match.keep_field if config.match.keep == "newest" else None,
        )
        res = spark_dedup(spark, docs, config, against=corpus, merge=merge)
        write_output(spark, out, res.result.rows())
    finally:
        if found is None and (master is not None or not under_submit):
            spark.stop()
    summary = res.result.summary()
    if res.index_documents is not None:
        summary["merged"] = int(res.result.keep.sum())
        summary["index_documents"] = res.index_documents
    if not quiet:
        echo_err(format_summary(summary, time.perf_counter() - t0, what="spark dedup"))
        echo_err("  stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds.items()))


def _local_bytes(paths: tuple[str, ...] | list[str]) -> int | None:
    """Total size of local input files and folders; None when any input is remote (hdfs://, s3a://)."""
    import os

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
