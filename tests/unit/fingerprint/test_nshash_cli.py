"""``neardup nshash FILE --store URL`` and ``neardup nshash stats``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neardup.cli.main import cli, main

A = "这是第一篇文章里非常长的一句话，长度超过了三十个字符的最低要求，用来做指纹。第二句。"
B = "完全不同的第二篇文章，同样有一句非常长的话，长度也超过了三十个字符的最低要求。"
BRIDGE = A + B


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    rows = [
        {"id": "a", "text": A},
        {"id": "b", "text": B},
        {"id": "a2", "text": "【转载】\n" + A},
        {"id": "ab", "text": BRIDGE},
    ]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _rows(output: str) -> dict[str, int]:
    return {r["id"]: r["similar_id"] for r in map(json.loads, output.splitlines())}


def test_file_mode_writes_final_merged_ids(corpus: Path) -> None:
    res = CliRunner().invoke(cli, ["nshash", str(corpus)])
    assert res.exit_code == 0, res.output
    assert _rows(res.stdout) == {"a": 1, "b": 1, "a2": 1, "ab": 1}  # b merged into a's group by the bridge
    assert "4 documents" in res.stderr and "1 group," in res.stderr


def test_stream_mode_writes_ids_as_assigned(corpus: Path) -> None:
    res = CliRunner().invoke(cli, ["nshash", str(corpus), "--stream", "--batch-size", "1"])
    assert res.exit_code == 0, res.output
    assert _rows(res.stdout) == {"a": 1, "b": 2, "a2": 1, "ab": 1}


def test_explicit_run_subcommand_and_output_file(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "ids.jsonl"
    res = CliRunner().invoke(cli, ["nshash", "run", str(corpus), "-o", str(out), "-n", "1"])
    assert res.exit_code == 0, res.output
    assert set(_rows(out.read_text())) == {"a", "b", "a2", "ab"}


def test_store_persists_and_stats_reports_groups(corpus: Path, tmp_path: Path) -> None:
    url = f"file://{tmp_path}/snap"
    runner = CliRunner()
    assert runner.invoke(cli, ["nshash", str(corpus), "--store", url]).exit_code == 0
    res = runner.invoke(cli, ["nshash", "stats", "--store", url])
    assert res.exit_code == 0, res.output
    assert "groups         1" in res.stdout and "1: 4" in res.stdout
    res = runner.invoke(cli, ["nshash", "stats", "--store", url, "--json", "--top", "1"])
    info = json.loads(res.stdout)
    assert info["assignments"] == 4 and info["largest"] == [{"similar_id": 1, "size": 4}]
    assert info["group_sizes"]["3-5"] == 1


def test_user_errors_exit_2_with_one_line(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["nshash", str(corpus), "--store", "mysql://x"],
        ["nshash", str(tmp_path / "missing.jsonl")],
        ["nshash", "stats", "--store", f"file://{tmp_path}/no/dir/snap"],
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("neardup: error:") and err.count("\n") == 1


def test_empty_text_is_skipped_with_skip_bad(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "text": A}) + "\n" + json.dumps({"id": "y", "text": ""}) + "\n")
    res = CliRunner().invoke(cli, ["nshash", str(path), "--skip-bad"])
    assert res.exit_code == 0, res.output
    assert _rows(res.stdout) == {"x": 1}
    assert "skipped 1" in res.stderr
