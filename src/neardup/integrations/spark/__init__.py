"""neardup on Apache Spark: the corpus dedup plan of seed 001 as a PySpark job (``neardup spark dedup``).

Needs the ``[spark]`` extra (pyspark, pyarrow, pandas) and Java 17. Importing this package does not
import pyspark; the functions do, and say what to install when it is missing.
"""

from __future__ import annotations

from neardup.integrations.spark.job import (
    SparkDedupResult,
    fingerprint_df,
    get_spark,
    read_documents,
    spark_dedup,
    write_output,
)

__all__ = ["SparkDedupResult", "fingerprint_df", "get_spark", "read_documents", "spark_dedup", "write_output"]
