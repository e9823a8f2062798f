"""A corpus as it comes: empty texts are documents, --min-chars skips short ones, --skip-bad counts
by reason and stops (exit 2) on a whole unreadable file unless --allow-unreadable, and --keep
newest without its field is an error naming it."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs
from dedup_synth import run_main as run


def write(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def docs() -> list[dict[str, str]]:
    return make_docs(8, seed=2)


def test_empty_texts_are_exact_duplicates_of_each_other(
    tmp_path: Path, docs: list[dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    empties = [{"id": "e1", "text": ""}, {"id": "e2", "text": "   "}, {"id": "e3", "text": ""}]
    src = write(tmp_path / "in.jsonl", [docs[0], empties[0], *docs[1:], empties[1], empties[2]])
    out = tmp_path / "out.jsonl"
    code, _, err = run(["dedup", str(src), "-o", str(out), "-j", "1"], capsys)
    assert code == 0, err
    by_id = {r["id"]: r for r in rows(out)}
    assert len(by_id) == len(docs) + 3
    assert by_id["e1"]["duplicate_of"] is None and by_id["e1"]["kind"] == "first"
    assert [(by_id[i]["duplicate_of"], by_id[i]["kind"]) for i in ("e2", "e3")] == [("e1", "exact")] * 2

    code, _, err = run(["dedup", str(src), "-o", str(out), "-j", "1", "--min-chars", "1"], capsys)
    assert code == 0, err
    assert {r["id"] for r in rows(out)} == {d["id"] for d in docs}
    assert "skipped 3 records (short 3;" in err


def test_skip_bad_counts_by_reason_and_stops_on_a_whole_unreadable_file(
    tmp_path: Path, docs: list[dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    good = write(folder / "a.jsonl", docs)
    with good.open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")
        fh.write('{"id": "n1", "text": 7}\n')
    (folder / "b.jsonl").write_bytes(
        json.dumps({"id": "g1", "text": "新闻"}, ensure_ascii=False).encode("gbk") + b"\n"
    )
    (folder / "c.jsonl.gz").write_bytes(
        gzip.compress(b"".join(b'{"id": "z%d", "text": "x"}\n' % i for i in range(50)))[:60]
    )  # cut short
    out = tmp_path / "out.jsonl"

    code, _, err = run(["dedup", str(folder), "-o", str(out), "-j", "1"], capsys)
    assert code == 2 and "a.jsonl:" in err and "is not valid JSON" in err  # without --skip-bad: the first

    code, _, err = run(["dedup", str(folder), "-o", str(out), "-j", "1", "--skip-bad"], capsys)
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1
    assert "2 input files had no readable record" in err and "b.jsonl" in err and "--allow-unreadable" in err

    code, _, err = run(
        ["dedup", str(folder), "-o", str(out), "-j", "1", "--skip-bad", "--allow-unreadable"], capsys
    )
    assert code == 0, err
    assert len(rows(out)) == len(docs)
    assert "skipped 4 records (not JSON 1, not UTF-8 1, text not a string 1, unreadable file 1;" in err


def test_keep_newest_without_the_field_is_an_error_naming_it(
    tmp_path: Path, docs: list[dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path / "in.jsonl", docs)
    code, _, err = run(
        ["dedup", str(src), "-o", str(tmp_path / "o.jsonl"), "-j", "1", "--keep", "newest"], capsys
    )
    assert code == 2 and err.count("\n") == 1
    assert "'date'" in err and "--keep-field" in err
    dated = [{**d, "published": f"2026-01-{i + 1:02d}"} for i, d in enumerate(docs)]
    src = write(tmp_path / "dated.jsonl", dated)
    args = ["dedup", str(src), "-o", str(tmp_path / "o.jsonl"), "-j", "1", "--keep", "newest"]
    code, _, err = run([*args, "--keep-field", "published"], capsys)
    assert code == 0, err


def test_spark_refuses_the_reading_options_it_does_not_honour(
    tmp_path: Path, docs: list[dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path / "in.jsonl", docs)
    out = str(tmp_path / "o.jsonl")
    code, _, err = run(["spark", "dedup", str(src), "--out", out, "--skip-bad", "--allow-unreadable"], capsys)
    assert code == 2 and "--allow-unreadable is not supported by neardup spark yet" in err
    code, _, err = run(["spark", "dedup", str(src), "--out", out, "--min-chars", "5"], capsys)
    assert code == 2 and "No such option '--min-chars'" in err
