"""``neardup spark dedup``: the dedup plan as a Spark job (local[*] by default, or ``--master``).

    neardup spark dedup news.jsonl --out clusters.jsonl
    neardup spark dedup hdfs:///crawl/new/ --against hdfs:///crawl/corpus.idx --merge \\
        --out hdfs:///crawl/new-clusters --master yarn
"""

from __future__ import annotations

import time

import click

from neardup.cli._common import add_options, echo_err, input_options
from neardup.cli.dedup import DEFAULTS, build_config, fingerprint_options, format_summary
from neardup.dedup.config import METHODS

__all__ = ["spark_group"]


@click.group("spark")
def spark_group() -> None:
    """The corpus dedup plan on Apache Spark (needs pip install 'neardup[spark]' and Java 17)."""


@spark_group.command("dedup")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--out",
    "-o",
    "out",
    required=True,
    help="A local .jsonl file (written atomically), or a directory/URI for Spark's JSON writer.",
)
@click.option("--method", type=click.Choice(METHODS), default="simhash", show_default=True)
@click.option("--max-distance", "-k", type=int, default=DEFAULTS.max_distance, show_default=True)
@add_options(input_options)
@add_options(fingerprint_options)
@click.option("--against", help="A corpus index directory (local path, hdfs://, s3a://).")
@click.option("--merge", is_flag=True, help="With --against: add the batch's non-duplicates to the index.")
@click.option("--bucket-cap", type=int, default=20_000, show_default=True)
@click.option(
    "--master",
    default=None,
    help="Spark master (default local[*]; keep unset under spark-submit to use its --master).",
)
@click.option("--partitions", type=int, default=None, help="Shuffle partitions (default: Spark's).")
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark settings.")
@click.option("--quiet", "-q", is_flag=True)
def spark_dedup_cmd(
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
    against: str | None,
    merge: bool,
    bucket_cap: int,
    master: str | None,
    partitions: int | None,
    confs: tuple[str, ...],
    quiet: bool,
) -> None:
    """Deduplicate INPUT files on Spark; the same output as `neardup dedup` (one line per document)."""
    import os

    from neardup.exceptions import ConfigError
    from neardup.integrations.spark.job import (
        get_spark,
        read_documents,
        read_index_header,
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
    under_submit = "SPARK_ENV_LOADED" in os.environ or "PYSPARK_GATEWAY_PORT" in os.environ
    spark = get_spark(master or (None if under_submit else "local[*]"), conf=conf)
    try:
        header = read_index_header(spark, against) if against else None
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
            settings=header["settings"] if header else None,
        )
        docs = read_documents(
            spark,
            list(inputs),
            id_field=id_field,
            text_field=text_field,
            html_field=html_field or None,
            skip_bad=skip_bad,
        )
        res = spark_dedup(spark, docs, config, against=against, merge=merge, partitions=partitions)
        write_output(spark, out, res.result.rows())
    finally:
        if master is not None or not under_submit:
            spark.stop()
    summary = res.result.summary()
    if res.index_documents is not None:
        summary["merged"] = int(res.result.keep.sum())
        summary["index_documents"] = res.index_documents
    if not quiet:
        echo_err(format_summary(summary, time.perf_counter() - t0, what="spark dedup"))
        echo_err("  stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds.items()))
