"""``neardup dedup --keep-out --dedup-columns`` streams its rows to --out and keeps only the three
columns it adds: the same --out bytes as a run without it, and each kept record's columns are its
--out row's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dedup_synth import make_docs
from dedup_synth import run_main as run

from neardup.cli.dedup import DEDUP_COLUMNS, _collect


def test_collect_passes_the_rows_through_and_keeps_their_columns() -> None:
    rows = [
        {"id": str(i), "cluster": "0", "duplicate_of": None if i == 0 else "0", "kind": "x", "n": i}
        for i in range(5)
    ]
    columns: dict[str, list[object]] = {name: [] for name in DEDUP_COLUMNS}
    assert list(_collect(iter(rows), columns)) == rows
    assert columns == {name: [r[name] for r in rows] for name in DEDUP_COLUMNS}


@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_dedup_columns_match_the_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in make_docs(30, seed=5)), "utf-8")
    plain, out = tmp_path / "plain.jsonl", tmp_path / "out.jsonl"
    kept = tmp_path / f"kept.{suffix}"
    assert run(["dedup", str(src), "-o", str(plain), "-j", "1", "-q"], capsys)[0] == 0
    code, _, err = run(
        ["dedup", str(src), "-o", str(out), "--keep-out", str(kept), "--dedup-columns", "-j", "1", "-q"],
        capsys,
    )
    assert code == 0, err
    assert out.read_bytes() == plain.read_bytes()
    rows = {r["id"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}
    if suffix == "parquet":
        import pyarrow.parquet as pq

        records = pq.read_table(kept).to_pylist()
    else:
        records = [json.loads(line) for line in kept.read_text("utf-8").splitlines()]
    assert [r["id"] for r in records] == [i for i, r in rows.items() if r["duplicate_of"] is None]
    for rec in records:
        assert {name: rec[name] for name in DEDUP_COLUMNS} == {
            name: rows[rec["id"]][name] for name in DEDUP_COLUMNS
        }
