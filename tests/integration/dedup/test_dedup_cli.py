from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs

from neardup.cli._common import plural
from neardup.cli.main import cli


def write_jsonl(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def docs() -> list[dict[str, str]]:
    return make_docs(40, seed=11)


def test_dedup_writes_one_line_per_document_keep_file_and_summary(
    tmp_path: Path, docs: list[dict[str, str]]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", docs)
    out, keep = tmp_path / "out" / "clusters.jsonl", tmp_path / "kept.jsonl"
    code, _, err = run("dedup", str(src), "--out", str(out), "--keep-out", str(keep), "-j", "1")
    assert code == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [d["id"] for d in docs]
    kept = read_jsonl(keep)
    assert [k["id"] for k in kept] == [r["id"] for r in rows if r["duplicate_of"] is None]
    assert kept[0]["text"] == next(d["text"] for d in docs if d["id"] == kept[0]["id"])
    assert '"duplicate_of":null' in out.read_text()  # compact JSON: make demo greps for this
    assert "documents" in err and "clusters" in err and "duplicates" in err and "exact" in err
    assert not list(tmp_path.glob("**/.*.tmp"))


def test_interrupted_output_leaves_no_partial_file(tmp_path: Path) -> None:
    from neardup.io import write_jsonl

    target = tmp_path / "out.jsonl"

    def rows():  # type: ignore[no-untyped-def]
        yield {"id": "1"}
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_jsonl(str(target), rows())
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_index_build_info_against_and_merge(tmp_path: Path, docs: list[dict[str, str]]) -> None:
    corpus = write_jsonl(tmp_path / "corpus.jsonl", docs[:30])
    batch = write_jsonl(tmp_path / "batch.jsonl", [{"id": "copy", "text": docs[0]["text"]}, *docs[30:]])
    idx = tmp_path / "idx"
    code, _, err = run("index", "build", str(corpus), "-o", str(idx), "-j", "1")
    assert code == 0 and "30 documents" in err
    code, out, _ = run("index", "info", str(idx))
    assert code == 0 and "30 in 1 segment" in out
    code, out, _ = run("index", "info", str(idx), "--json")
    assert json.loads(out)["documents"] == 30

    out1 = tmp_path / "b1.jsonl"
    code, _, err = run("dedup", str(batch), "--against", str(idx), "--merge", "--out", str(out1), "-j", "1")
    assert code == 0 and "merged" in err
    rows = read_jsonl(out1)
    assert rows[0]["duplicate_of"] == docs[0]["id"] and rows[0]["kind"] == "exact"
    merged = sum(r["duplicate_of"] is None for r in rows)
    code, out, _ = run("index", "info", str(idx), "--json")
    assert json.loads(out)["documents"] == 30 + merged

    out2 = tmp_path / "b2.jsonl"
    code, _, err = run("dedup", str(batch), "--against", str(idx), "--out", str(out2), "-j", "1")
    again = read_jsonl(out2)
    assert all(r["duplicate_of"] is not None for r in again)
    indexed = sum(r["kind"] == "indexed" for r in again)
    assert indexed == merged
    # the documents already indexed are neither clusters nor exact duplicates in the summary
    dups = len(again) - indexed
    assert f"{plural(len(again), 'document')}, " in err and f"kept 0, duplicates {dups} (" in err
    by_kind = {k: sum(r["kind"] == k for r in again) for k in ("exact", "content", "near", "contained")}
    assert (
        f"(exact {by_kind['exact']}, content {by_kind['content']}, near {by_kind['near']}, "
        f"contained {by_kind['contained']})"
    ) in err
    assert f"{indexed} documents already in the index under the same id" in err


def test_user_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    import subprocess

    src = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])
    py = sys.executable
    res = subprocess.run(
        [py, "-m", "neardup.cli.main", "dedup", str(src), "--out", str(tmp_path / "o.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and "duplicate id 'a'" in res.stderr and "--duplicate-ids suffix" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    res = subprocess.run(
        [py, "-m", "neardup.cli.main", "dedup", str(src), "--merge", "--out", str(tmp_path / "o.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and "--merge needs --against" in res.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_parquet_and_directory_inputs_give_the_same_rows(tmp_path: Path, docs: list[dict[str, str]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "in"
    d.mkdir()
    write_jsonl(d / "a.jsonl", docs[:20])
    pq.write_table(pa.Table.from_pylist(docs[20:]), d / "b.parquet")
    whole = write_jsonl(tmp_path / "all.jsonl", docs)
    code, _, _ = run("dedup", str(d), "--out", str(tmp_path / "dir.jsonl"), "-j", "1")
    assert code == 0
    code, _, _ = run("dedup", str(whole), "--out", str(tmp_path / "one.jsonl"), "-j", "1")
    assert read_jsonl(tmp_path / "dir.jsonl") == read_jsonl(tmp_path / "one.jsonl")
