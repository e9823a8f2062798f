"""Corpus dedup: the match engine over a batch, within itself and against a corpus index (seed 001).

>>> from neardup.io import Record
>>> rows = list(dedup_records([Record(id="1", text="同一篇新闻。"), Record(id="2", text="同一篇新闻。")],
...                           DedupConfig(workers=1)))
>>> [(r["id"], r["cluster"], r["kind"]) for r in rows]
[('1', '1', 'first'), ('2', '1', 'exact')]

The Spark version of the same stages is ``neardup.integrations.spark``.
"""

from __future__ import annotations

from neardup.dedup.config import ROW_KINDS, DedupConfig
from neardup.dedup.fingerprints import Fingerprints, fingerprint_records, fingerprint_texts
from neardup.dedup.index import CorpusIndex
from neardup.dedup.local import DedupResult, dedup_fingerprints, dedup_records
from neardup.dedup.table import dedup_table

__all__ = [
    "ROW_KINDS",
    "CorpusIndex",
    "DedupConfig",
    "DedupResult",
    "Fingerprints",
    "dedup_fingerprints",
    "dedup_records",
    "dedup_table",
    "fingerprint_records",
    "fingerprint_texts",
]
