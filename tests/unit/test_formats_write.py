"""``write_records`` writes JSON Lines a block of lines at a time: every row, in order, one line
each, whatever the count (none, a block exactly, a block and a part), gzip or not."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from neardup.formats import write_records


@pytest.mark.parametrize("count", [0, 1, 512, 1300])
@pytest.mark.parametrize("name", ["rows.jsonl", "rows.jsonl.gz"])
def test_every_row_is_one_line_in_order(tmp_path: Path, count: int, name: str) -> None:
    rows = [{"id": f"d{i}", "kind": "unique", "evidence": {"adds": [i, 2 * i]}} for i in range(count)]
    path = tmp_path / name
    assert write_records(path, iter(rows)) == count
    raw = gzip.decompress(path.read_bytes()) if name.endswith(".gz") else path.read_bytes()
    assert raw == b"".join(orjson.dumps(r) + b"\n" for r in rows)
