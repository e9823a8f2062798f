"""``neardup report --eval FILE`` with JSON that is not an evaluation (an array, a string, an object
without the fields ``neardup eval score|sweep --json`` writes): one line and exit 2, never a
traceback; the library names the file it is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from neardup.cli.main import main
from neardup.eval.report import build_report
from neardup.exceptions import InputError

_ROWS = '{"id": "a", "cluster": "a", "duplicate_of": null, "kind": "unique", "distance": null}\n'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must be a JSON object as neardup eval score|sweep --json writes, got an array"),
        ('"scores"', "must be a JSON object as neardup eval score|sweep --json writes, got a string"),
        ("3", "must be a JSON object as neardup eval score|sweep --json writes, got a number"),
        ('{"rows": [1]}', "does not hold the fields neardup eval score|sweep --json writes"),
        (
            '{"clusters": {"x": 1}}',
            "does not hold the fields neardup eval score|sweep --json writes (no field",
        ),
    ],
)
def test_an_eval_file_that_is_not_an_evaluation_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(_ROWS)
    bad = tmp_path / "eval.json"
    bad.write_text(content)
    with pytest.raises(SystemExit) as info:
        main(["report", str(out), "-o", str(tmp_path / "r.html"), "--eval", str(bad)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("neardup: error: ") and message in lines[0], lines
    assert str(bad) in lines[0] or "--eval" in lines[0], lines  # the file, or the option naming it
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("data", [[1, 2], "x"])
def test_build_report_names_the_eval_file(data: Any) -> None:
    with pytest.raises(InputError) as info:
        build_report([], eval_data=data, eval_source="runs/eval.json")
    assert str(info.value).startswith("runs/eval.json: the evaluation must be a JSON object")
    assert info.value.source == "runs/eval.json"


def test_an_evaluation_still_draws_its_curves() -> None:
    row = {"method": "simhash", "param": 3, "precision": 0.9, "recall": 0.5, "f1": 0.64, "hn_precision": None}
    data = {"rows": [row]}
    assert "<svg" in build_report([], eval_data=data, eval_source="eval.json")
