"""Corpus dedup of an Arrow table or a Hugging Face dataset: the same type back, with the dedup
columns added or the duplicates filtered out.

The table is read one record batch at a time (only its id, text and HTML columns), signed, and
dropped; the match engine then runs on the signatures, as ``neardup dedup`` does.

>>> import pyarrow as pa
>>> t = pa.table({"id": ["a", "b", "c"], "text": ["同一篇新闻。", "同一篇新闻。", "另一篇完全不同的文章。"]})
>>> dedup_table(t).column("kind").to_pylist()
['first', 'exact', 'unique']
>>> dedup_table(t, filter=True).column("id").to_pylist()
['a', 'c']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import numpy as np

from neardup._deps import require
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import fingerprint_records
from neardup.dedup.local import dedup_config, dedup_fingerprints
from neardup.exceptions import ConfigError, InputError
from neardup.io import Record, record_from_obj

__all__ = ["TABLE_COLUMNS", "dedup_table"]

T = TypeVar("T")
#: the columns dedup_table adds (one value per row, as in ``neardup dedup`` output rows)
TABLE_COLUMNS = ("cluster", "duplicate_of", "kind")


def _is_dataset(table: Any) -> bool:
    return type(table).__module__.startswith("datasets") and hasattr(table, "with_format")


def _arrow_batches(table: Any, batch_size: int, wanted: list[str]) -> Iterator[Any]:
    """Record batches (pyarrow) of only the ``wanted`` columns."""
    if _is_dataset(table):
        yield from table.select_columns(wanted).with_format("arrow").iter(batch_size=batch_size)
    else:
        yield from table.select(wanted).to_batches(max_chunksize=batch_size)


def _records(
    table: Any,
    batch_size: int,
    id_column: str | None,
    text_column: str,
    html_column: str | None,
    order_column: str | None = None,
) -> Iterator[Record]:
    names = list(table.column_names)
    if text_column not in names and (html_column is None or html_column not in names):
        want = repr(text_column) + (f" or {html_column!r}" if html_column else "")
        raise ConfigError(f"the table has no column {want}; its columns are {', '.join(names)}")
    wanted = [c for c in (id_column, text_column, html_column, order_column) if c is not None and c in names]
    row = 0
    for batch in _arrow_batches(table, batch_size, wanted):
        cols = {name: batch.column(name).to_pylist() for name in wanted}
        for i in range(batch.num_rows):
            obj = {name: values[i] for name, values in cols.items()}
            if id_column is None or id_column not in obj:
                obj[id_column or "id"] = str(row)
            row += 1
            yield record_from_obj(obj, "table", row, id_column or "id", text_column, html_column)


def dedup_table(
    table: T,
    config: DedupConfig | None = None,
    *,
    filter: bool = False,
    text_column: str = "text",
    id_column: str | None = "id",
    html_column: str | None = "html",
    batch_size: int = 4096,
) -> T:
    """Deduplicate the rows of a ``pyarrow.Table`` or a ``datasets.Dataset``; the same type back.

    By default the table comes back whole with the columns ``cluster`` (the id of the row kept for
    the row's cluster), ``duplicate_of`` (None for kept rows) and ``kind`` (``unique``, ``first``,
    ``exact``, ``content``, ``near``, ...) appended; with ``filter=True``, only the kept rows, with
    the table's own columns. Rows are named by ``id_column`` (their row number when the table has
    no such column); a row's text is in ``text_column`` or, as HTML, in ``html_column``.
    """
    cfg = dedup_config(config)
    if not isinstance(filter, (bool, np.bool_)):
        raise TypeError(
            f"filter must be True (keep only the kept rows) or False (add the dedup columns), got {filter!r}"
        )
    dataset = _is_dataset(table)
    if not dataset:
        pa = require("pyarrow", "parquet", purpose="deduplicating an Arrow table")
        if not isinstance(table, pa.Table):
            raise ConfigError(
                f"dedup_table takes a pyarrow.Table or a datasets.Dataset, got {type(table).__name__}"
            )
    t: Any = table
    if not filter:
        clash = [c for c in TABLE_COLUMNS if c in t.column_names]
        if clash:
            raise ConfigError(
                f"the table already has the column(s) {', '.join(clash)}; rename them or pass filter=True"
            )
    if batch_size < 1:
        raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
    try:
        order = cfg.match.keep_field if cfg.match.keep == "newest" else None
        records = _records(t, batch_size, id_column, text_column, html_column, order)
        fps = fingerprint_records(records, cfg)
    except InputError as err:
        raise InputError(str(err).replace("table:", "row", 1)) from None
    result = dedup_fingerprints(fps, cfg)
    if filter:
        keep = np.flatnonzero(result.keep)
        if dataset:
            return t.select(keep)  # type: ignore[no-any-return]
        return t.take(keep)  # type: ignore[no-any-return]
    rows = list(result.rows())
    columns = {name: [r[name] for r in rows] for name in TABLE_COLUMNS}
    for name, values in columns.items():
        if dataset:
            t = t.add_column(name, values)
        else:
            pa = require("pyarrow", "parquet", purpose="deduplicating an Arrow table")
            t = t.append_column(name, pa.array(values, pa.string()))
    return t  # type: ignore[no-any-return]
