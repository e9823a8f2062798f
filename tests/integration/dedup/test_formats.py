"""Data in the format it came with: Parquet in and out (same schema and column order), JSONL.gz,
``--format``, an unknown output suffix refused, and ``neardup.dedup_table`` on Arrow tables and
Hugging Face datasets."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs
from dedup_synth import run_main as run

import neardup
from neardup.formats import ROW_SCHEMA_FIELDS
from neardup.io import Record

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def docs() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, d in enumerate(make_docs(20, seed=3)):
        # the columns in an order of their own, an integer and a nested field among them
        out.append({"lang": "zh", "text": d["text"], "views": i * 10, "id": d["id"], "tags": ["a", str(i)]})
    return out


@pytest.fixture
def parquet_dir(tmp_path: Path, docs: list[dict[str, object]]) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    table = pa.Table.from_pylist(docs)
    half = len(docs) // 2
    pq.write_table(table.slice(0, half), folder / "part-0.parquet")
    pq.write_table(table.slice(half), folder / "part-1.parquet")
    return folder


def test_parquet_in_parquet_out_keeps_the_schema_and_column_order(
    tmp_path: Path, parquet_dir: Path, docs: list[dict[str, object]], capsys: pytest.CaptureFixture[str]
) -> None:
    out, kept = tmp_path / "clusters.parquet", tmp_path / "kept.parquet"
    code, _, err = run(
        ["dedup", str(parquet_dir), "-o", str(out), "--keep-out", str(kept), "-j", "1"], capsys
    )
    assert code == 0, err
    rows = pq.read_table(out).to_pylist()
    assert [r["id"] for r in rows] == [d["id"] for d in docs]
    assert pq.read_table(out).column_names == list(ROW_SCHEMA_FIELDS)
    dup = next(r for r in rows if r["duplicate_of"] is not None)
    assert dup["evidence"]["against"] and dup["kind"] in ("exact", "content", "near")
    table = pq.read_table(kept)
    assert table.schema.equals(pq.read_schema(parquet_dir / "part-0.parquet").remove_metadata())
    kept_ids = [r["id"] for r in rows if r["duplicate_of"] is None]
    assert table.column("id").to_pylist() == kept_ids
    by_id = {d["id"]: d for d in docs}
    assert table.to_pylist() == [by_id[i] for i in kept_ids]  # every field, every type, as it came
    assert len(kept_ids) < len(docs)


def test_keep_out_with_dedup_columns_and_jsonl_gz(
    tmp_path: Path, parquet_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, kept = tmp_path / "clusters.jsonl.gz", tmp_path / "kept.parquet"
    code, _, err = run(
        ["dedup", str(parquet_dir), "-o", str(out), "--keep-out", str(kept), "--dedup-columns", "-j", "1"],
        capsys,
    )
    assert code == 0, err
    rows = [json.loads(line) for line in gzip.decompress(out.read_bytes()).splitlines()]
    table = pq.read_table(kept)
    assert table.column_names == ["lang", "text", "views", "id", "tags", "cluster", "duplicate_of", "kind"]
    assert set(table.column("kind").to_pylist()) <= {"unique", "first", "partial", "layout"}
    assert table.column("cluster").to_pylist() == [r["cluster"] for r in rows if r["duplicate_of"] is None]


def test_jsonl_in_parquet_out_by_format_option(
    tmp_path: Path, docs: list[dict[str, object]], capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    out, kept = tmp_path / "clusters.data", tmp_path / "kept.data"
    code, _, err = run(
        ["dedup", str(src), "-o", str(out), "--keep-out", str(kept), "--format", "parquet", "-j", "1"], capsys
    )
    assert code == 0, err
    assert pq.read_table(out).num_rows == len(docs)
    assert {"id", "text", "views", "tags", "lang"} == set(pq.read_table(kept).column_names)


@pytest.mark.parametrize("name", ["kept.csv", "kept", "kept.parquet.bak"])
def test_unknown_output_suffix_is_one_line_and_exit_2(
    tmp_path: Path, parquet_dir: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "clusters.jsonl"
    code, _, err = run(
        ["dedup", str(parquet_dir), "-o", str(out), "--keep-out", str(tmp_path / name)], capsys
    )
    assert code == 2
    assert err.count("\n") == 1 and ".jsonl, .jsonl.gz or .parquet" in err and name in err
    assert not out.exists() and not (tmp_path / name).exists()


def test_dedup_table_on_an_arrow_table(docs: list[dict[str, object]]) -> None:
    table = pa.Table.from_pylist(docs)
    marked = neardup.dedup_table(table, neardup.DedupConfig(workers=1), batch_size=7)
    assert isinstance(marked, pa.Table)
    assert marked.column_names == [*table.column_names, "cluster", "duplicate_of", "kind"]
    assert marked.select(table.column_names).equals(table)
    rows = list(neardup.dedup_records(_records(docs), neardup.DedupConfig(workers=1)))
    assert marked.column("kind").to_pylist() == [r["kind"] for r in rows]
    kept = neardup.dedup_table(table, neardup.DedupConfig(workers=1), filter=True)
    assert kept.schema.equals(table.schema)
    assert kept.column("id").to_pylist() == [r["id"] for r in rows if r["duplicate_of"] is None]


def test_dedup_table_on_a_hugging_face_dataset_round_trip(docs: list[dict[str, object]]) -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_list(docs)
    marked = neardup.dedup_table(ds, neardup.DedupConfig(workers=1), batch_size=5)
    assert isinstance(marked, datasets.Dataset)
    assert marked.column_names == [*ds.column_names, "cluster", "duplicate_of", "kind"]
    rows = list(neardup.dedup_records(_records(docs), neardup.DedupConfig(workers=1)))
    assert marked["kind"] == [r["kind"] for r in rows]
    kept = neardup.dedup_table(ds, neardup.DedupConfig(workers=1), filter=True)
    assert isinstance(kept, datasets.Dataset) and kept.features == ds.features
    assert kept["id"] == [r["id"] for r in rows if r["duplicate_of"] is None]
    # a shuffled view is read in its own order
    view = ds.select(list(reversed(range(len(ds)))))
    assert neardup.dedup_table(view, neardup.DedupConfig(workers=1))["id"] == list(reversed(ds["id"]))


def test_dedup_table_refuses_other_types_and_missing_columns() -> None:
    with pytest.raises(neardup.ConfigError, match=r"pyarrow.Table or a datasets.Dataset, got list"):
        neardup.dedup_table([{"text": "x"}])
    with pytest.raises(neardup.ConfigError, match="no column 'body'"):
        neardup.dedup_table(pa.table({"x": ["a"]}), text_column="body", html_column=None)


def _records(docs: list[dict[str, object]]) -> list[Record]:
    return [Record(id=str(d["id"]), text=str(d["text"])) for d in docs]
