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
