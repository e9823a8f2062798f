"""neardup on Apache Spark: ``neardup dedup``'s match engine as a PySpark job (``neardup spark dedup``).

Needs the ``[spark]`` extra (pyspark, pyarrow, pandas) and Java 17. Importing this package does not
import pyspark; the functions do, and say what to install when it is missing.
"""

from __future__ import annotations

from neardup.integrations.spark.documents import DOCUMENT_SCHEMA, read_documents
from neardup.integrations.spark.job import (
    SparkCorpus,
    SparkDedupResult,
    collect_fingerprints,
    get_spark,
    signature_df,
    spark_dedup,
    write_output,
)

__all__ = [
    "DOCUMENT_SCHEMA",
    "SparkCorpus",
    "SparkDedupResult",
    "collect_fingerprints",
    "get_spark",
    "read_documents",
    "signature_df",
    "spark_dedup",
    "write_output",
]
