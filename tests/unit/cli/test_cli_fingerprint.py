from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neardup.cli.main import cli
from neardup.fingerprint.simhash import fingerprint

ZH = "和世界交手这么多年，你是否兴致盎然、风采依旧。上海上港在新赛季的亚冠赛场上拿到三连胜。"
EN = "The Apache Hadoop software library is a framework for the distributed processing of large data."


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_in_process(*args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    """Happy paths run in-process (fast); error paths run as a real subprocess (exit code, stderr)."""
    monkeypatch.chdir(cwd)
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    try:
        err = res.stderr
    except ValueError:  # click < 8.2 mixes stderr into stdout unless asked not to
        err = ""
    return Result(res.exit_code, res.stdout, err)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert lines[0].startswith("neardup: error: ")
    for needle in needles:
        assert needle in lines[0]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "docs.jsonl"
    rows = [{"id": "a", "text": ZH}, {"id": "b", "text": EN}, {"id": "c", "text": ZH + "！"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_fingerprint_jsonl_out_has_id_and_hex(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = run_in_process("fingerprint", str(corpus), cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert all(len(r["fingerprint"]) == 16 for r in rows)
    assert int(rows[0]["fingerprint"], 16) == fingerprint(ZH)


def test_fingerprint_gz_and_plain_text_inputs_and_npy_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gz = tmp_path / "docs.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": 7, "text": ZH}, ensure_ascii=False) + "\n")
    txt = tmp_path / "lines.txt"
    txt.write_text(EN + "\n", encoding="utf-8")
    out = tmp_path / "fps.npy"
    args = f"fingerprint {gz} {txt} -o {out} --format npy --bits 32 --features shingles".split()
    proc = run_in_process(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    arr = np.load(out)
    assert arr.dtype == np.uint64 and arr.shape == (2,)
    assert (tmp_path / "fps.ids.txt").read_text().split() == ["7", "lines.txt:1"]


def test_missing_file_is_one_line_error(tmp_path: Path) -> None:
    assert_one_line_error(run("fingerprint", "nope.jsonl", cwd=tmp_path), "nope.jsonl", "no such file")


def test_non_utf8_input_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_bytes(b'{"id": 1, "text": "ok"}\n{"id": 2, "text": "\xff\xfe"}\n')
    assert_one_line_error(run("fingerprint", "bad.jsonl", cwd=tmp_path), "bad.jsonl:2", "UTF-8")
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xc3\x28 broken\n")
    assert_one_line_error(run("fingerprint", "bad.txt", cwd=tmp_path), "bad.txt:2", "UTF-8")


def test_jsonl_line_without_text_field_names_file_line_field(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text('{"id": 1, "text": "新闻"}\n{"id": 2, "body": "x"}\n', encoding="utf-8")
    assert_one_line_error(run("fingerprint", "d.jsonl", cwd=tmp_path), "d.jsonl:2", "'text'")


def test_empty_text_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "e.jsonl").write_text('{"id": 1, "text": "  "}\n', encoding="utf-8")
    assert_one_line_error(run("fingerprint", "e.jsonl", cwd=tmp_path), "e.jsonl:1", "'text'", "empty")


def test_skip_bad_counts_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text(
        '{"id": 1, "text": "新闻联播"}\n{"id": 2}\n{"id": 3, "text": ""}\n{"id": 4, "text": "天气预报"}\n',
        encoding="utf-8",
    )
    proc = run("fingerprint", "m.jsonl", "--skip-bad", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["id"] for x in proc.stdout.splitlines()] == ["1", "4"]
    assert "skipped 2 bad record(s)" in proc.stderr


def test_bad_option_value_is_an_error_without_traceback(corpus: Path, tmp_path: Path) -> None:
    proc = run(
        "fingerprint", str(corpus), "--features", "shingles", "--ngram", "4", "--step", "5", cwd=tmp_path
    )
    assert_one_line_error(proc, "step must be between 1")


def test_compare_texts_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run_in_process(
        "compare", ZH, ZH.replace("兴致盎然", "兴致勃勃"), "--json", cwd=tmp_path, monkeypatch=monkeypatch
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["kind"] == "near" and res["is_duplicate"]  # one word changed: a repost
    assert 0.5 < res["similarity"] < 1 and min(res["containment"]) > 0.7
    assert res["numbers_only_in_a"] == [] and res["number_conflicts"] == 0
    assert res["shared_passage"]
    # one figure corrected is an edit of the same report: the numbers in place conflict, the
    # texts add nothing else to each other
    proc = run_in_process(
        "compare", ZH, ZH.replace("三连胜", "两连胜"), "--json", cwd=tmp_path, monkeypatch=monkeypatch
    )
    res = json.loads(proc.stdout)
    assert res["is_duplicate"] and res["number_conflicts"] >= 1
    assert res["numbers_only_in_a"] and res["numbers_only_in_b"]
    # another season's story on the same template is another story: each names its own year
    proc = run_in_process(
        "compare",
        ZH.replace("新赛季", "2023年赛季"),
        ZH.replace("新赛季", "2024年赛季"),
        "--json",
        cwd=tmp_path,
        monkeypatch=monkeypatch,
    )
    res = json.loads(proc.stdout)
    assert not res["is_duplicate"] and res["number_conflicts"] >= 1
    # the spans that decided: the subject replaced, and where
    assert ["2023", "2024", 1] in res["substitutions"]
    # a commentary setting the whole text in quotation marks quotes it: related, and said why
    comment = "评论员文章指出：“" + ZH + "”这样的比赛让观众看到了青春的力量，也让更多人走进球场。"
    proc = run_in_process("compare", ZH, comment, "--json", cwd=tmp_path, monkeypatch=monkeypatch)
    res = json.loads(proc.stdout)
    assert not res["is_duplicate"] and res["quoted"][0] == 0 and res["quoted"][1] > 0
    proc = run_in_process("compare", ZH, comment, cwd=tmp_path, monkeypatch=monkeypatch)
    assert "B quotes the other (a reply or a commentary), not its copy" in proc.stdout
    (tmp_path / "a.txt").write_text(EN, encoding="utf-8")
    proc = run_in_process("compare", "a.txt", EN, cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert "verdict       exact (duplicate)" in proc.stdout and "distance 0" in proc.stdout


def test_idf_build_then_use_with_idf(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    idf = tmp_path / "idf.txt"
    proc = run_in_process("idf", "build", str(corpus), "-o", str(idf), cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert idf.read_text(encoding="utf-8").startswith("# neardup idf v1")
    args = f"fingerprint {corpus} --idf {idf} --levels 5 --top-n auto".split()
    proc = run_in_process(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 3
    proc = run("fingerprint", str(corpus), "--idf", "missing-idf.txt", cwd=tmp_path)
    assert_one_line_error(proc, "missing-idf.txt", "IDF table not found")


def test_help_works_for_each_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for cmd in (["fingerprint"], ["compare"], ["idf", "build"]):
        proc = run_in_process(*cmd, "--help", cwd=tmp_path, monkeypatch=monkeypatch)
        assert proc.returncode == 0 and "Usage" in proc.stdout


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("fps.npy", "npy"), ("fps.jsonl", "jsonl"), ("fps.ndjson", "jsonl"), ("fps.jsonl.gz", "jsonl.gz")],
)
def test_the_output_suffix_chooses_the_format(
    name: str, fmt: str, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / name
    proc = run_in_process("fingerprint", str(corpus), "-o", str(out), cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    if fmt == "npy":
        assert np.load(out).tolist() == [fingerprint(ZH), fingerprint(EN), fingerprint(ZH + "！")]
        assert (tmp_path / "fps.ids.txt").read_text().split() == ["a", "b", "c"]
        return
    raw = gzip.decompress(out.read_bytes()) if fmt == "jsonl.gz" else out.read_bytes()
    assert [json.loads(line)["id"] for line in raw.decode().splitlines()] == ["a", "b", "c"]


@pytest.mark.parametrize("name", ["fps.csv", "fps.parquet", "fps"])
def test_an_output_suffix_fingerprint_cannot_write_is_refused_naming_those_it_can(
    name: str, corpus: Path, tmp_path: Path
) -> None:
    proc = run("fingerprint", str(corpus), "-o", name, cwd=tmp_path)
    assert_one_line_error(proc, name, ".jsonl, .jsonl.gz or .npy", "--format jsonl, jsonl.gz or npy")
    assert not (tmp_path / name).exists()


def test_a_format_given_outranks_the_suffix_and_npy_needs_a_file(corpus: Path, tmp_path: Path) -> None:
    proc = run("fingerprint", str(corpus), "-o", "fps.csv", "--format", "jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "fps.csv").read_text().splitlines()[0])["id"] == "a"
    assert_one_line_error(
        run("fingerprint", str(corpus), "-o", "-", "--format", "npy", cwd=tmp_path),
        "--format npy needs -o FILE",
    )
    assert not (tmp_path / "-").exists()


def _article(seed: int, sentences: int) -> str:
    import random

    words = ["经济", "发展", "会议", "北京", "企业", "市场", "政策", "科技", "教育", "交通", "农业", "投资"]
    rng = random.Random(seed)
    return "".join("".join(rng.choice(words) for _ in range(14)) + "。" for _ in range(sentences))


def test_compare_json_reads_every_pair_as_a_then_b_as_the_text_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = _article(3, 12)
    cut = "。".join(full.split("。")[:4]) + "。"  # A: the first third of B, all of it in B

    def compare(a: str, b: str, *json_flag: str) -> str:
        proc = run_in_process("compare", a, b, *json_flag, cwd=tmp_path, monkeypatch=monkeypatch)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    res = json.loads(compare(cut, full, "--json"))
    a_in_b, b_in_a = res["containment"]
    assert a_in_b == 1.0 and b_in_a < 0.5
    a_adds, b_adds = res["adds"]
    assert a_adds == 0 and b_adds > 150 and not res["adds_measured"]
    assert res["b_adds"] and not res["a_adds"]
    text = compare(cut, full)
    assert f"containment   {a_in_b:.3f} of A in B, {b_in_a:.3f} of B in A" in text
    assert f"A adds        {a_adds} characters" in text and f"B adds        {b_adds} characters" in text
    swapped = json.loads(compare(full, cut, "--json"))
    assert swapped["containment"] == [b_in_a, a_in_b] and swapped["adds"] == [b_adds, a_adds]
    # texts the engine did not read: what each adds is measured here, in the same order
    short, long = _article(5, 2), _article(9, 8)
    res = json.loads(compare(short, long, "--json"))
    assert res["kind"] == "unique" and res["adds_measured"]
    assert 0 < res["adds"][0] < res["adds"][1]
    text = compare(short, long)
    assert f"A adds        {res['adds'][0]} characters" in text and "(measured here;" in text


def test_compare_takes_a_text_longer_than_a_file_name_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = _article(3, 8)  # no space, over 255 bytes: not a name the file system takes
    assert len(long.encode()) > 255 and " " not in long
    proc = run_in_process("compare", long, long + "（完）", "--json", cwd=tmp_path, monkeypatch=monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["is_duplicate"]


def test_the_command_list_says_what_compare_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run_in_process("--help", cwd=tmp_path, monkeypatch=monkeypatch)
    line = next(x for x in proc.stdout.splitlines() if x.strip().startswith("compare"))
    assert "cosine" not in line and "verdict" in line and "similarity" in line
