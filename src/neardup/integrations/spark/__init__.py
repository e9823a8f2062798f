"""neardup on Apache Spark: ``neardup dedup``'s match engine as a PySpark job (``neardup spark dedup``).

Needs the ``[spark]`` extra (pyspark, pyarrow, pandas) and Java 17. Importing this package does not
import pyspark; the functions do, and say what to install when it is missing.
"""

from __future__ import annotations

from neardup.integrations.spark.documents import InputFile, SparkDocuments, list_inputs, read_documents
from neardup.integrations.spark.errors import SparkJobError, spark_errors
from neardup.integrations.spark.job import (
    SIGNATURE_SCHEMA,
    SparkCorpus,
    SparkDedupResult,
    collect_fingerprints,
    get_spark,
    signature_df,
    spark_dedup,
    split_conf,
)
from neardup.integrations.spark.output import OUTPUT_FORMATS, output_format, rows_table, write_output

__all__ = [
    "OUTPUT_FORMATS",
    "SIGNATURE_SCHEMA",
    "InputFile",
    "SparkCorpus",
    "SparkDedupResult",
    "SparkDocuments",
    "SparkJobError",
    "collect_fingerprints",
    "get_spark",
    "list_inputs",
    "output_format",
    "read_documents",
    "rows_table",
    "signature_df",
    "spark_dedup",
    "spark_errors",
    "split_conf",
    "write_output",
]
