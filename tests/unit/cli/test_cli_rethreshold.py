"""``neardup rethreshold OUTPUT``: a table of what each setting would change, from a dedup output
in any of its formats; a file that is not one is one line and exit 2."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neardup.cli.main import main


def _corpus(path: Path) -> Path:
    rng = random.Random(7)
    lines = []
    for i in range(12):
        body = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(360))
        extra = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(12 * (i + 1)))
        lines += [{"id": f"a{i}", "text": body}, {"id": f"a{i}-copy", "text": body + "。" + extra}]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    got = capsys.readouterr()
    return int(info.value.code or 0), got.out, got.err


def test_rethreshold_prints_a_table_from_jsonl_and_parquet_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _corpus(tmp_path / "in.jsonl")
    tables = []
    for name in ("out.jsonl", "out.jsonl.gz", "out.parquet"):
        code, _, err = _run(["dedup", str(src), "-o", str(tmp_path / name), "--workers", "1", "-q"], capsys)
        assert code == 0, err
        code, out, err = _run(["rethreshold", str(tmp_path / name), "--strictness", "0.2,0.5,0.8"], capsys)
        assert code == 0, err
        assert "news     0.5 (run)" in out and "corpus   0.8" in out and "merged->kept" in out
        tables.append(out.split("\n", 1)[1])  # the same counts whatever the format
    assert tables[0] == tables[1] == tables[2]
    code, out, _ = _run(["rethreshold", str(tmp_path / "out.jsonl"), "--profile", "news", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and {o["profile"] for o in data["outcomes"]} == {"news"}
    assert data["reproduced"] == data["text_pairs"] > 0
    assert [o["strictness"] for o in data["outcomes"]] == [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json\n", "in.jsonl:1: "),
        ('{"id": "a", "text": "an input, not an output"}\n', "in.jsonl:1: not a neardup dedup output row"),
        ('{"id": "a", "kind": "near", "evidence": [1]}\n', "in.jsonl:1: 'evidence' must be an object"),
    ],
)
def test_a_file_that_is_not_a_dedup_output_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    bad = tmp_path / "in.jsonl"
    bad.write_text(content)
    code, out, err = _run(["rethreshold", str(bad)], capsys)
    assert code == 2 and not out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strictness", "0.2,x"], "--strictness takes numbers between 0 and 1"),
        (["--strictness", "1.5"], "strictness must be between 0 and 1, got 1.5"),
        (["--profile", "blog"], "profile must be one of news, corpus, got 'blog'"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    ok = tmp_path / "out.jsonl"
    ok.write_text('{"id": "a", "cluster": "a", "duplicate_of": null, "kind": "unique", "distance": null}\n')
    code, _, err = _run(["rethreshold", str(ok), *args], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], lines


def test_missing_or_damaged_files_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "out.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    for path, message in (
        (tmp_path / "none.jsonl", "none.jsonl: no such file"),
        (broken, "not a readable Parquet file"),
    ):
        code, _, err = _run(["rethreshold", str(path)], capsys)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and message in lines[0], lines
