"""A hand-edited dedup output whose evidence holds numbers or types no dedup run writes: one line
naming the file, the row and the field, exit 2, from ``neardup rethreshold`` and ``neardup report``
alike; fields an older output lacks (or Parquet's nulls) still leave the pair as it is."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from neardup.cli.main import main
from neardup.dedup.rethreshold import rethreshold
from neardup.exceptions import InputError

#: a row as ``neardup dedup`` writes it (a partial copy of a BBC article), and a kept document
_ROW: dict[str, Any] = {
    "id": "bbc-010",
    "cluster": "bbc-010",
    "duplicate_of": None,
    "kind": "partial",
    "related_to": "bbc-291",
    "distance": 20,
    "evidence": {
        "against": "bbc-291",
        "similarity": 0.125,
        "containment": [0.442, 0.148],
        "number_conflicts": 0,
        "numbers_aligned": 10,
        "hamming": 20,
        "adds": [425, 1475],
        "passage": 175,
        "repeated": 0,
        "chars": [1130, 2180],
        "quoted": [0, 0],
        "occasion": False,
        "occasion_replaced": False,
        "reactions": False,
        "leads": [155, 165],
        "blocks": [155, 630],
        "pieces": [9, 8],
        "alike": 0,
        "substitutions": 2,
        "substituted": [20, 20],
    },
}
_KEPT = {"id": "bbc-291", "cluster": "bbc-291", "duplicate_of": None, "kind": "unique", "distance": None}

_TWO_COUNTS = "must hold two non-negative integers below 2**31"
_BAD = [
    ("adds", [10**30, 10**30], _TWO_COUNTS),
    ("adds", [-5, -(10**20)], _TWO_COUNTS),
    ("adds", [1, 2, 3], _TWO_COUNTS),
    ("chars", "ab", _TWO_COUNTS),
    ("passage", 1e308, "must hold a non-negative integer below 2**31"),
    ("repeated", 2**31, "must hold a non-negative integer below 2**31"),
    ("alike", 1.5, "must hold a non-negative integer below 2**31"),
    ("containment", "ab", "must hold two numbers between 0 and 1"),
    ("containment", [0.5, 7], "must hold two numbers between 0 and 1"),
    ("occasion", "no", "must hold true or false"),
]


def _rows(field: str | None = None, value: Any = None) -> list[dict[str, Any]]:
    row = copy.deepcopy(_ROW)
    if field is not None:
        row["evidence"][field] = value
    return [_KEPT, row]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize(("field", "value", "expected"), _BAD)
def test_a_bad_evidence_field_is_an_input_error_naming_the_row_and_the_field(
    field: str, value: Any, expected: str
) -> None:
    with pytest.raises(InputError) as info:
        rethreshold(_rows(field, value), [0.5], ["news"], source="out.jsonl")
    message = str(info.value)
    assert message.startswith(f"out.jsonl: row 'bbc-010': evidence.{field} {expected}"), message
    assert info.value.field == f"evidence.{field}" and info.value.source == "out.jsonl"


@pytest.mark.parametrize("command", ["rethreshold", "report"])
@pytest.mark.parametrize(("field", "value", "expected"), _BAD[:2] + _BAD[4:5] + _BAD[7:8])
def test_both_commands_answer_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    field: str,
    value: Any,
    expected: str,
) -> None:
    out = _write(tmp_path / "out.jsonl", _rows(field, value))
    argv = [command, str(out)] + (["-o", str(tmp_path / "r.html")] if command == "report" else [])
    code, err = _run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"neardup: error: {out}: row 'bbc-010': evidence.{field} {expected}"), lines
    assert not (tmp_path / "r.html").exists()


def test_evidence_that_is_not_an_object_is_refused_by_report_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = {**_ROW, "evidence": [1, 2]}
    out = _write(tmp_path / "out.jsonl", [_KEPT, row])
    code, err = _run(["report", str(out), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and "row 'bbc-010': 'evidence' must be an object, got list" in err, err


def test_the_edited_row_unedited_is_decided_again() -> None:
    r = rethreshold(_rows(), [0.5], ["news"])
    assert r.text_pairs == r.reproduced == 1


@pytest.mark.parametrize("field", ["chars", "leads", "substituted"])
@pytest.mark.parametrize("null", [True, False])
def test_a_missing_or_null_decision_field_leaves_the_pair_as_it_is(field: str, null: bool) -> None:
    rows = _rows(field, None)
    if not null:
        del rows[1]["evidence"][field]
    r = rethreshold(rows, [0.5], ["news"])
    assert r.incomplete == r.text_pairs == 1
