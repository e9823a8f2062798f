"""``neardup spark dedup`` reads what ``neardup dedup`` reads (files and directories of JSONL and
Parquet, split across tasks without a shuffle) and writes JSONL, JSONL.gz or Parquet from the
executors; bad input and a dead Python worker are one line and exit 2."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from neardup.cli.main import cli, main
from neardup.exceptions import ConfigError, InputError

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

NEWS = Path(__file__).resolve().parents[3] / "examples" / "news.jsonl"


def parts(out: Path, suffix: str = ".jsonl") -> list[Path]:
    assert out.is_dir(), out
    return sorted(out.glob(f"part-*{suffix}"))


def parts_text(out: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in parts(out))


def run(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stderr


def fails(*args: str) -> BaseException:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code != 0 and res.exception is not None
    return res.exception


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory as a data team has it: a JSONL file (some records without an id, blank lines),
    a Spark-style Parquet directory of three parts (and ``_SUCCESS``) and a ``.txt`` file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from neardup.eval.synth import SynthConfig, synthesize

    originals = [json.loads(line) for line in NEWS.read_text(encoding="utf-8").splitlines()]
    originals = [r for r in originals if re.fullmatch(r"(zh|en)-\d+", r["id"])]
    docs: list[dict[str, Any]] = []
    for lang in ("zh", "en"):
        recs = [r for r in originals if r["id"].startswith(lang)]
        got, _ = synthesize(recs, SynthConfig(lang=lang, n_sources=10, seed=5, min_chars=100, copy_rate=0.9))
        docs += got
    root = tmp_path_factory.mktemp("corpus")
    half = len(docs) // 2
    lines = []
    for i, d in enumerate(docs[:half]):
        rec = {k: v for k, v in d.items() if k != "id" or i % 4}  # every 4th: the file:line id
        lines.append(json.dumps(rec, ensure_ascii=False) + ("\n\n" if i % 5 == 0 else "\n"))
    (root / "a.jsonl").write_text("".join(lines), encoding="utf-8")
    # a plain-text file whose name Spark would take for a glob: one document a line
    texts = [" ".join(d.get("text", "").split()) for d in docs[:6]]
    (root / "notes [x].txt").write_text("\n".join(t for t in texts if t) + "\n", encoding="utf-8")
    table = pa.Table.from_pylist(
        [{"id": d["id"], "text": d.get("text"), "html": d.get("html"), "n": i} for i, d in enumerate(docs)][
            half:
        ]
    )
    pdir = root / "b.parquet"
    pdir.mkdir()
    third = table.num_rows // 3
    for i, piece in enumerate((table.slice(0, third), table.slice(third, third), table.slice(2 * third))):
        pq.write_table(piece, pdir / f"part-{i:05d}-x.snappy.parquet", row_group_size=7)
    (pdir / "_SUCCESS").write_bytes(b"")
    return root


@pytest.fixture(scope="module")
def local_out(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("local") / "local.jsonl"
    run("dedup", str(corpus), "--out", str(out), "-j", "1")
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("partitions", [1, 2, 3])
def test_a_directory_of_jsonl_and_parquet_gives_the_lines_of_neardup_dedup_at_any_partition_count(
    spark: Any, corpus: Path, local_out: str, tmp_path: Path, partitions: int
) -> None:
    from neardup.integrations.spark import read_documents, split_conf
    from neardup.integrations.spark.job import session_conf

    out = tmp_path / "clusters.jsonl"
    run("spark", "dedup", str(corpus), "--out", str(out), "--partitions", str(partitions))
    assert parts_text(out) == local_out
    assert len(parts(out)) >= 1 and not list(tmp_path.glob(".clusters.jsonl.*"))  # no temp left
    rows = [json.loads(line) for line in local_out.splitlines()]
    assert any(re.fullmatch(r"a\.jsonl:\d+", r["id"]) for r in rows)  # ids made from the line
    assert any(r["id"] == "notes [x].txt:1" for r in rows)
    assert {"first", "exact", "near"} <= {r["kind"] for r in rows}
    # the JSONL file is read in several splits: line numbers cross tasks, nothing is shuffled
    docs = read_documents(spark, [str(corpus)])
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    with session_conf(spark, split_conf(partitions, size)):
        assert docs.lines.rdd.getNumPartitions() >= partitions
        assert "Exchange" not in docs.lines._jdf.queryExecution().executedPlan().toString()
    assert [f.source for f in docs.files] == [
        f"{corpus}/a.jsonl",
        *(f"{corpus}/b.parquet/part-{i:05d}-x.snappy.parquet" for i in range(3)),
        f"{corpus}/notes [x].txt",
    ]


def test_parquet_and_gzip_outputs_hold_the_rows_of_neardup_dedup(
    spark: Any, corpus: Path, local_out: str, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    want = [json.loads(line) for line in local_out.splitlines()]
    out = tmp_path / "clusters.parquet"
    run("spark", "dedup", str(corpus), "--out", str(out), "--partitions", "2")
    files = parts(out, ".parquet")
    got = [row for f in files for row in pq.read_table(f).to_pylist()]

    def clean(value: Any) -> Any:  # Parquet has every column and field; JSONL leaves some out
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v is not None}
        return value

    assert [clean(r) for r in got] == [clean(r) for r in want]
    schema = pq.read_schema(files[0])
    assert schema.names[:6] == ["id", "cluster", "duplicate_of", "kind", "related_to", "distance"]
    assert str(schema.field("distance").type) == "int32"

    gz = tmp_path / "clusters.jsonl.gz"
    run("spark", "dedup", str(corpus), "--out", str(gz), "--partitions", "2")
    text = "".join(gzip.decompress(p.read_bytes()).decode("utf-8") for p in parts(gz, ".jsonl.gz"))
    assert text == local_out
    # --format wins over the suffix; a second run replaces the output
    run("spark", "dedup", str(corpus), "--out", str(gz), "--format", "jsonl")
    assert parts_text(gz) == local_out and not parts(gz, ".jsonl.gz")


def test_an_unknown_output_suffix_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in.jsonl").write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["spark", "dedup", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out.csv")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"neardup: error: {tmp_path / 'out.csv'}: unknown output suffix '.csv'; name it .jsonl, "
        ".jsonl.gz or .parquet (or pass --format jsonl, jsonl.gz, parquet)"
    ]
    assert not (tmp_path / "out.csv").exists()


def test_bad_parquet_inputs_name_the_file_in_one_line_with_exit_2(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "text": ["one text", "another"]}), good)
    data = good.read_bytes()
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a.parquet").write_bytes(data)
    (folder / "b.parquet").write_bytes(data[: len(data) // 2])  # truncated
    pq.write_table(pa.table({"id": ["a"], "body": ["x"]}), tmp_path / "notext.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"not parquet at all " * 50)
    cases = {
        str(folder): f"{folder}/b.parquet: is not a readable Parquet file (",
        str(tmp_path / "notext.parquet"): f"{tmp_path}/notext.parquet:1: has no field 'text' or 'html'",
        str(tmp_path / "junk.parquet"): f"{tmp_path}/junk.parquet: is not a readable Parquet file (",
    }
    for given, start in cases.items():
        with pytest.raises(SystemExit) as exit_:
            main(["spark", "dedup", given, "--out", str(tmp_path / "o.jsonl")])
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"neardup: error: {start}"), err
        assert "Traceback" not in err[0] and "\\x" not in err[0] and len(err[0]) < 500
    assert not (tmp_path / "o.jsonl").exists()


def test_bad_jsonl_lines_are_named_by_their_line_across_splits_or_skipped_and_counted(
    spark: Any, tmp_path: Path
) -> None:
    lines = [json.dumps({"id": f"d{i}", "text": f"document number {i} " * 20}) for i in range(60)]
    lines[47] = "{not json"
    src = tmp_path / "bad.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    local = fails("dedup", str(src), "--out", str(tmp_path / "l.jsonl"))
    err = fails("spark", "dedup", str(src), "--out", str(tmp_path / "s.jsonl"), "--partitions", "3")
    assert isinstance(err, InputError) and str(err) == str(local) == f"{src}:48: is not valid JSON"
    stderr = run("spark", "dedup", str(src), "--out", str(tmp_path / "s.jsonl"), "--skip-bad")
    assert "skipped 1 record" in stderr and f"first: {src}:48: is not valid JSON)" in stderr
    assert len(parts_text(tmp_path / "s.jsonl").splitlines()) == 59

    truncated = tmp_path / "t.jsonl.gz"
    truncated.write_bytes(gzip.compress("\n".join(lines[:40]).encode())[:200])
    err = fails("spark", "dedup", str(truncated), "--out", str(tmp_path / "s2.jsonl"))
    assert isinstance(err, InputError) and str(err).startswith(f"{truncated}: cannot read: ")
    assert isinstance(fails("spark", "dedup", str(tmp_path / "nope"), "--out", "o.jsonl"), InputError)
    (tmp_path / "empty").mkdir()
    err = fails("spark", "dedup", str(tmp_path / "empty"), "--out", str(tmp_path / "o.jsonl"))
    assert "directory has no input files" in str(err)


def test_a_python_worker_that_dies_is_one_clear_error_not_a_hang(spark: Any) -> None:
    from neardup.integrations.spark import SparkJobError, spark_errors

    def die(batches: Any) -> Any:
        import os

        os._exit(9)  # what the OOM killer leaves of a worker
        yield from batches

    died = r"a Spark Python worker died .*Spark says: "
    with pytest.raises(SparkJobError, match=died) as err, spark_errors():
        spark.range(4).mapInArrow(die, "id long").collect()
    assert "\n" not in str(err.value) and len(str(err.value)) < 600
    assert spark.range(3).count() == 3  # the session goes on


def test_output_formats_and_read_splits_without_spark() -> None:
    from neardup.integrations.spark import output_format, split_conf
    from neardup.integrations.spark.documents import file_key

    assert output_format("hdfs:///x/out.jsonl.gz/") == "jsonl.gz"
    assert output_format("s3a://b/clusters.parquet") == "parquet"
    assert output_format("out.ndjson") == "jsonl"
    assert output_format("whatever", "parquet") == "parquet"
    with pytest.raises(ConfigError, match="an output name without a suffix"):
        output_format("out")
    with pytest.raises(ConfigError, match="unknown output format 'csv'"):
        output_format("out.jsonl", "csv")
    assert split_conf(None, 100) == {}
    assert split_conf(4, None) == {"spark.sql.files.minPartitionNum": "4"}
    assert split_conf(4, 1000)["spark.sql.files.maxPartitionBytes"] == "250"
    assert file_key("file:/a/b%20c.jsonl") == file_key("file:///a/b c.jsonl") == "file:/a/b c.jsonl"


def test_partitions_help_and_docs_say_what_the_option_does() -> None:
    from neardup.cli.spark import spark_dedup_cmd

    option = next(p for p in spark_dedup_cmd.params if p.name == "partitions")
    assert isinstance(option, click.Option) and option.help is not None
    assert (
        option.help.startswith("Tasks that read, parse and sign the input") and "shuffle" not in option.help
    )
    docs = (Path(__file__).resolve().parents[3] / "docs" / "spark.md").read_text(encoding="utf-8")
    assert "`--partitions` (read tasks, above)" in docs and "Read tasks (`--partitions N`)" in docs
    assert "shuffle partitions)" not in docs


def test_a_record_whose_main_text_hangs_is_a_bad_record_at_the_deadline_not_a_hang(
    spark: Any, tmp_path: Path
) -> None:
    from neardup.dedup.config import DedupConfig
    from neardup.integrations.spark.documents import read_documents
    from neardup.integrations.spark.job import signature_df

    def stall_on_poison(item: Any, extractor: str) -> Any:
        import time

        from neardup.match.pages import read_page

        if item[1] and "STALL" in item[1]:
            time.sleep(3600)  # a worker alive but stuck (a loop in C, a lock never released)
        return read_page(item[0], item[1], extractor)

    pages = tmp_path / "pages.jsonl"
    lines = [
        {"id": f"p{i}", "html": f"<html><body><p>第{i}页的正文内容。</p></body></html>"} for i in range(12)
    ]
    lines[7]["html"] = "<html><body><p>STALL</p></body></html>"
    pages.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    docs = read_documents(spark, [str(pages)])
    import time

    t0 = time.monotonic()
    rows = signature_df(docs, DedupConfig(record_timeout=3.0), read_item=stall_on_poison).collect()
    assert time.monotonic() - t0 < 120
    errors = {r["row"]: r["error"] for r in rows if r["error"] is not None}
    assert list(errors) == [7], errors
    assert errors[7].startswith(
        "record 'p7': extracting its main text took over 3 s (the per-record deadline"
    )
    assert sorted(r["id"] for r in rows if r["error"] is None) == sorted(f"p{i}" for i in range(12) if i != 7)
    assert all(r["tokens"] > 0 for r in rows if r["error"] is None)  # the others were read and signed
