from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_eval_synth import _corpus  # type: ignore[import-not-found]

from neardup.cli.main import cli
from neardup.eval.metrics import Truth


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def labelled(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus.jsonl"
    _write(corpus, _corpus(40))
    out, truth = tmp_path / "set.jsonl", tmp_path / "truth.jsonl"
    res = CliRunner().invoke(
        cli, ["synth", str(corpus), "-o", str(out), "--truth", str(truth), "--n-sources", "20", "--seed", "5"]
    )
    assert res.exit_code == 0, res.output
    return out, truth


def test_synth_writes_set_and_truth(labelled: tuple[Path, Path]) -> None:
    out, truth = labelled
    docs = [json.loads(line) for line in out.read_text().splitlines()]
    t = Truth.load(truth)
    assert len(docs) == len(t) and all(d["id"] in t for d in docs)


def test_eval_scores_a_dedup_output(labelled: tuple[Path, Path], tmp_path: Path) -> None:
    _, truth = labelled
    t = Truth.load(truth)
    perfect = [{"id": d.id, "cluster": d.group, "duplicate_of": None, "kind": "new"} for d in t.docs.values()]
    run = tmp_path / "out.jsonl"
    _write(run, perfect)
    res = CliRunner().invoke(cli, ["eval", "score", "--truth", str(truth), str(run), "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["clusters"]["overall"]["f1"] == 1.0
    assert got["clusters"]["hn_precision"] == 1.0


def test_eval_runs_the_shipped_engine_on_documents(labelled: tuple[Path, Path]) -> None:
    out, truth = labelled
    res = CliRunner().invoke(cli, ["eval", "score", "--truth", str(truth), "--documents", str(out), "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    from neardup.match import MatchConfig

    assert got["engine"] == MatchConfig().to_dict()  # neardup dedup's defaults, not a sweep's
    assert got["clusters"]["duplicates"]["f1"] > 0.5
    assert got["clusters"]["recall_by_kind"]["exact"] == 1.0


def test_eval_sweeps_methods_on_documents(labelled: tuple[Path, Path]) -> None:
    pytest.importorskip("neardup.fingerprint.simhash")
    pytest.importorskip("neardup.fingerprint.nshash")
    out, truth = labelled
    res = CliRunner().invoke(
        cli,
        [
            "eval",
            "sweep",
            "--truth",
            str(truth),
            str(out),
            "--methods",
            "simhash-words,nshash,simhash-words|nshash",
            "--k",
            "0..4",
            "--n",
            "1,3",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    methods = {(r["method"], r["param"]) for r in got["rows"]}
    assert ("simhash-words", 3) in methods and ("nshash", 3) in methods
    exact = next(r for r in got["rows"] if r["method"] == "simhash-words" and r["param"] == 0)
    assert exact["recall_by_kind"].get("exact", 1.0) == 1.0  # identical texts always collide
    recall = [r["recall"] for r in got["rows"] if r["method"] == "simhash-words"]
    assert recall == sorted(recall)  # a larger k never loses a pair


def test_eval_errors_are_one_line(labelled: tuple[Path, Path], tmp_path: Path) -> None:
    out, _truth = labelled
    res = CliRunner().invoke(cli, ["eval", "sweep", str(out), "--k", "x..y"])
    assert res.exit_code != 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n')
    from neardup.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["eval", "sweep", "--truth", str(bad), str(out), "--methods", "nshash"])
    assert exc.value.code == 2


def test_report_command_writes_a_page(labelled: tuple[Path, Path], tmp_path: Path) -> None:
    out, truth = labelled
    t = Truth.load(truth)
    rows = [
        {"id": d.id, "cluster": d.group, "duplicate_of": d.source, "kind": d.kind, "distance": 1}
        for d in t.docs.values()
    ]
    run = tmp_path / "run.jsonl"
    _write(run, rows)
    page = tmp_path / "report.html"
    res = CliRunner().invoke(cli, ["report", str(run), "-o", str(page), "--texts", str(out)])
    assert res.exit_code == 0, res.output
    html = page.read_text(encoding="utf-8")
    assert "pair-0" in html and "Largest clusters" in html


@pytest.mark.parametrize("grade", ["none", "Non", "copied"])
def test_graded_refuses_a_grade_it_does_not_know(
    grade: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt 'non' was counted as a copied answer, and the AUC came out quietly wrong."""
    from neardup.cli.main import main

    graded = tmp_path / "graded.jsonl"
    _write(
        graded,
        [
            {"id": "s", "task": "a", "category": "orig", "text": "the source text of task a"},
            {"id": "c", "task": "a", "category": "cut", "text": "the source text"},
            {"id": "n", "task": "a", "category": grade, "text": "an answer of its own"},
        ],
    )
    with pytest.raises(SystemExit) as exc:
        main(["eval", "graded", str(graded), "--lang", "en"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert f"'category' is {grade!r}, not a known grade; the grades are orig, cut, light, heavy, non" in err


def _one_line_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    from neardup.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("documents", [False, True])
def test_scoring_refuses_an_empty_truth_an_empty_output_and_files_with_no_id_in_common(
    documents: bool, labelled: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each was scored with exit 0: an empty truth F1 1.0, an empty output or another set's 0.0."""
    docs, truth = labelled
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    if documents:
        scored, flag = docs, ["--documents"]
        other = tmp_path / "other-docs.jsonl"
        _write(other, [{"id": "zz", "text": "今天北京天气晴朗，适合出门散步。"}])
    else:
        scored, flag = tmp_path / "out.jsonl", []
        _write(scored, [{"id": d.id, "cluster": d.group} for d in Truth.load(truth).docs.values()])
        other = tmp_path / "other-out.jsonl"
        _write(other, [{"id": "zz", "cluster": "zz"}])
    score = ["eval", "score", *flag, "--truth"]
    err = _one_line_error([*score, str(empty), str(scored)], capsys)
    assert f"{empty}: holds no document: nothing to score against" in err
    err = _one_line_error([*score, str(truth), str(empty)], capsys)
    assert f"{empty}: holds no document: nothing to score" in err
    err = _one_line_error([*score, str(truth), str(other)], capsys)
    assert f"{other}: no document id is also in {truth}" in err


def test_sweep_graded_and_report_refuse_what_they_cannot_score_or_show(
    labelled: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, truth = labelled
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    other = tmp_path / "other.jsonl"
    _write(other, [{"id": "zz", "text": "今天北京天气晴朗，适合出门散步。"}])
    sweep = ["eval", "sweep", "--methods", "nshash", "--n", "3"]
    assert "nothing to score against" in _one_line_error([*sweep, "--truth", str(empty), str(docs)], capsys)
    assert f"{empty}: holds no document" in _one_line_error(
        [*sweep, "--truth", str(truth), str(empty)], capsys
    )
    assert f"{empty}: holds no document" in _one_line_error([*sweep, "--natural", str(empty)], capsys)
    err = _one_line_error([*sweep, "--truth", str(truth), str(other)], capsys)
    assert f"{other}: no document id is also in {truth}" in err
    assert f"{empty}: holds no document" in _one_line_error(["eval", "graded", str(empty)], capsys)
    # graded records' own errors name the file they came from
    assert f"{docs}: record 0: 'task'" in _one_line_error(["eval", "graded", str(docs)], capsys)
    page = str(tmp_path / "r.html")
    assert f"{empty}: holds no document: nothing to report" in _one_line_error(
        ["report", str(empty), "-o", page], capsys
    )
    run = tmp_path / "run.jsonl"
    _write(run, [{"id": "a", "cluster": "a", "duplicate_of": None, "kind": "unique", "distance": None}])
    err = _one_line_error(["report", str(run), "-o", page, "--texts", str(other)], capsys)
    assert f"{run}: no document id is also in {other}" in err
    # an evaluation of no document (a truth that was empty) is not shown as this run's quality
    scored_nothing = tmp_path / "eval.json"
    overall = {"tp": 0, "fp": 0, "fn": 0, "docs": 0, "ari": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}
    scored_nothing.write_text(json.dumps({"clusters": {"overall": overall, "duplicates": overall}}))
    err = _one_line_error(["report", str(run), "-o", page, "--eval", str(scored_nothing)], capsys)
    assert f"{scored_nothing}: the evaluation scored no document" in err
    assert not Path(page).exists()
