"""Every command that reads files and writes files refuses to write over what it reads, replaces its
outputs together once it succeeds, and a Ctrl-C is an interruption whatever a library makes of it."""

from __future__ import annotations

import contextlib
import importlib
import json
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dedup"))
from dedup_synth import make_docs
from dedup_synth import run_main as run

import neardup.cli.main as cli_main


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in make_docs(12, seed=3)))
    return path


def _commands(src: Path, tmp: Path) -> list[list[str]]:
    ids = tmp / "in.ids.txt"
    ids.write_text("a\nb\n")
    out = tmp / "out.jsonl"
    out.write_text('{"id": "a", "cluster": "a"}\n')
    return [
        ["fingerprint", str(src), "-o", str(src)],
        ["fingerprint", str(ids), "--format", "npy", "-o", str(tmp / "in.npy")],  # its ids file
        ["idf", "build", str(src), "-o", str(src)],
        ["nshash", "run", str(src), "-o", str(src)],
        ["synth", str(src), "-o", str(tmp / "s.jsonl"), "--truth", str(src)],
        ["eval", "score", "--natural", str(src), "--documents", "--write-truth", str(src)],
        ["eval", "score", "--natural", str(src), "--documents", "-o", str(src)],
        ["report", str(out), "-o", str(out)],
        ["report", str(out), "-o", str(src), "--texts", str(src)],
    ]


@pytest.mark.parametrize("case", range(9))
def test_no_command_writes_over_its_input(
    case: int, src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _commands(src, tmp_path)[case]
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, _, err = run(args, capsys)
    assert code == 2 and err.count("\n") == 1 and "the output is also an input" in err, err
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_two_outputs_of_one_command_must_differ(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = str(tmp_path / "s.jsonl")
    code, _, err = run(["synth", str(src), "-o", same, "--truth", same], capsys)
    assert code == 2 and "two outputs name the same file" in err


def test_nshash_run_replaces_its_output_only_when_the_run_succeeds(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ids.jsonl"
    out.write_text("old\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(src.read_text() + '{"id": "z", "text": ""}\n')
    code, _, err = run(["nshash", "run", str(bad), "--stream", "--batch-size", "1", "-o", str(out)], capsys)
    assert code == 2 and "has no text" in err
    assert out.read_text() == "old\n"  # the lines streamed before the bad record were never in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "ids.jsonl", "in.jsonl"]
    code, _, _ = run(["nshash", "run", str(src), "--stream", "-o", str(out)], capsys)
    assert code == 0 and len(out.read_text().splitlines()) == len(src.read_text().splitlines())


def test_stats_of_a_store_that_does_not_exist_are_refused_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ["urls", "stats", "--job", "j", "--store", str(tmp_path / "typo.db")],
        ["nshash", "stats", "--store", f"file://{tmp_path}/typo.snap"],
    ):
        code, _, err = run(args, capsys)
        assert code == 2 and "no such store" in err, err
    assert list(tmp_path.iterdir()) == []


def test_compare_refuses_a_missing_file_or_a_directory_rather_than_comparing_the_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["compare", str(tmp_path / "a.txt"), "some text"], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run(["compare", str(tmp_path), "some text"], capsys)
    assert code == 2 and "is a directory" in err


def test_ids_that_are_objects_or_booleans_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "ids.jsonl"
    src.write_text('{"id": {"x": 1}, "text": "今天天气很好。"}\n')
    code, _, err = run(["dedup", str(src), "-o", str(tmp_path / "o.jsonl")], capsys)
    assert code == 2 and "field 'id' must be a string or a number, got dict" in err


def test_workers_past_four_a_core_are_refused(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    code, _, err = run(["dedup", str(src), "-o", str(tmp_path / "o.jsonl"), "-j", "9"], capsys)
    assert code == 2 and "at most 8" in err
    code, _, err = run(["fingerprint", str(src), "--workers", "9"], capsys)
    assert code == 2 and "between 1 and 8" in err


def test_a_commands_modules_load_with_ctrl_c_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """A C extension's module init (orjson's) must not be entered by a KeyboardInterrupt: SIGINT is
    blocked while the command's modules load, and the mask is restored after."""
    seen: list[set[int]] = []
    real = importlib.import_module

    def spy(name: str, package: str | None = None) -> object:
        seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, set()))
        return real(name, package)

    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    monkeypatch.setattr(importlib, "import_module", spy)
    cli_main.cli.get_command(None, "compare")  # type: ignore[arg-type]
    assert seen and signal.SIGINT in seen[0]
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before


def test_an_error_raised_after_ctrl_c_is_an_interruption(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyarrow swallows the KeyboardInterrupt of a lazy import and fails with an AttributeError: a
    run that was interrupted still ends as one (exit 130, no traceback)."""

    def interrupted_then_broken(*args: object, **kwargs: object) -> None:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        with contextlib.suppress(KeyboardInterrupt):  # swallowed, as a library might
            handler(signal.SIGINT, None)
        raise AttributeError("partially initialized module 'pandas' has no attribute 'core'")

    monkeypatch.setattr(sys, "argv", ["neardup", "--version"])
    monkeypatch.setattr(cli_main, "_small_run", lambda argv: None)
    monkeypatch.setattr(cli_main.cli, "main", interrupted_then_broken)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as exit_info:
            cli_main.main()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert exit_info.value.code == 130
    assert capsys.readouterr().err == "neardup: interrupted\n"


def test_options_out_of_range_are_named_as_the_user_gave_them(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "o.jsonl")
    cases = [
        (["dedup", str(src), "-o", out, "--strictness", "nan"], "'nan' is not a finite number"),
        (["fingerprint", str(src), "--boost-factor", "inf"], "'inf' is not a finite number"),
        (["dedup", str(src), "-o", out, "--max-component", "0"], "--max-component must be"),
        (["dedup", str(src), "-o", out, "-k", "99"], "--max-distance must be"),
        (["dedup", str(src), "-o", ""], "the output name is empty"),
        (["dedup", str(src), "-o", out, "--allow-unreadable"], "--allow-unreadable goes with --skip-bad"),
        (["idf", "build", str(src), "-o", out, "--min-df", "0"], "--min-df must be >= 1"),
        (["idf", "build", str(src), "-o", out, "--min-df", "100000"], "lower --min-df"),
        (["eval", "score", "--natural", str(src), "--documents", "--natural-threshold", "5"], "(0, 1]"),
        (["eval", "score", "--natural", "--truth", str(src), str(src), "--documents"], "not both"),
        (["synth", str(src), "-o", out, "--truth", out + ".t", "--hard-negatives", "-5"], "hard_negatives"),
    ]
    for args, message in cases:
        code, _, err = run(args, capsys)
        assert code == 2 and message in err, (args, err)
    assert not Path(out).exists()


def test_a_byte_order_mark_before_the_first_record_is_read_past(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bom.jsonl"
    src.write_bytes(b'\xef\xbb\xbf{"id": "a", "text": "hello world"}\n{"id": "b", "text": "hello world"}\n')
    code, _, err = run(["dedup", str(src), "-o", str(tmp_path / "o.jsonl")], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [r["duplicate_of"] for r in rows] == [None, "a"]


def test_an_output_inside_the_index_a_batch_is_checked_against_is_refused(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    idx = tmp_path / "idx"
    code, _, err = run(["index", "build", str(src), "-o", str(idx), "-j", "1", "-q"], capsys)
    assert code == 0, err
    before = {p: p.read_bytes() for p in idx.rglob("*") if p.is_file()}
    for out in (idx / "header.json", next(idx.rglob("*.parquet"))):
        code, _, err = run(
            ["dedup", str(src), "--against", str(idx), "-o", str(out), "--format", "jsonl"], capsys
        )
        assert code == 2 and "the output is inside the corpus index" in err, err
    assert {p: p.read_bytes() for p in idx.rglob("*") if p.is_file()} == before


def test_spark_refuses_a_missing_input_and_a_bad_master_before_it_starts(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "o.jsonl")
    code, _, err = run(["spark", "dedup", str(tmp_path / "missing.jsonl"), "-o", out], capsys)
    assert code == 2 and "no such file or directory" in err
    code, _, err = run(["spark", "dedup", str(src), "-o", out, "--master", "bogus://x"], capsys)
    assert code == 2 and "is not a Spark master" in err


def test_a_sweep_range_is_bounded_before_it_is_expanded(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["eval", "sweep", "--natural", str(src), "--k", "0..10000000000"], capsys)
    assert code == 2 and "--k values must be between 0 and 64" in err


def test_graded_sets_warmup_lists_and_surrogate_escapes_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graded = tmp_path / "graded.jsonl"
    rows = [
        {"id": "s", "task": "a", "category": "orig", "text": "the source text of task a"},
        {"id": "t", "task": "a", "category": "orig", "text": "another source of task a"},
        {"id": "c", "task": "a", "category": "cut", "text": "the source text"},
    ]
    graded.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(["eval", "graded", str(graded), "--lang", "en"], capsys)
    assert code == 2 and "has two 'orig' records" in err, err
    graded.write_text(json.dumps({**rows[2], "task": ["a"]}) + "\n")
    code, _, err = run(["eval", "graded", str(graded), "--lang", "en"], capsys)
    assert code == 2 and "'task' must be a task name or number" in err, err
    code, _, err = run(["warmup", "--only", ","], capsys)
    assert code == 2 and "names no workload" in err
    escaped = tmp_path / "escaped.jsonl"
    escaped.write_text('{"id": "a", "text": "\\udcff abc"}\n')
    code, _, err = run(["dedup", str(escaped), "-o", str(tmp_path / "o.jsonl")], capsys)
    assert code == 2 and "lone UTF-16 surrogate" in err, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dedup", "--bogus"], "No such option '--bogus'"),
        (["urls", "check"], "Missing option '--job'"),
        (["eval", "sweep", "--k", "x"], "Missing argument 'INPUTS...'"),
        (["dedup", "in.jsonl", "-o", "o.jsonl", "--format", "bogus"], "'bogus' is not one of"),
        (["dedup", "in.jsonl", "-o", "o.jsonl", "-j", "x"], "'x' is not a valid integer"),
        (["serve", "--port", "x"], "Invalid value for '--port'"),
        (["fingerprint", "in.jsonl", "--top-n", "x"], "Invalid value for --top-n: expected"),
        (["fingerprint", "in.jsonl", "--format", "npy"], "--format npy needs -o FILE"),
        (["compare"], "Missing argument 'A'"),
        (["bogus"], "No such command 'bogus'"),
        (["--bogus"], "No such option '--bogus'"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(args, capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("neardup: error: "), err
    assert message in err and "--help'" in err and "Usage:" not in err


def test_a_missing_choice_lists_the_choices_on_its_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    import click

    cmd = click.Command(
        "pick", params=[click.Option(["--kind"], type=click.Choice(["a", "b"]), required=True)]
    )
    with pytest.raises(click.MissingParameter) as missing:
        cmd.main([], prog_name="neardup pick", standalone_mode=False)
    cli_main._show_click_error(missing.value)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Missing option '--kind'. Choose from: a, b" in err, err


def test_a_ctrl_c_inside_a_command_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """click turns a KeyboardInterrupt into Abort after printing an empty line of its own."""

    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("neardup.cli.urls._open", ctrl_c)
    code, _, err = run(["urls", "stats", "--job", "j", "--store", "memory://"], capsys)
    assert code == 130 and err == "neardup: aborted\n"


_CTRL_C_AT_IMPORT = """
import os, signal, sys
target = sys.argv[1]

class CtrlC:  # a Ctrl-C that arrives while `target` is imported
    def find_spec(self, name, path=None, spec=None):
        if name == target:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
sys.argv = [os.path.join(os.path.dirname(sys.executable), "neardup"), "--version"]
from neardup.cli.main import main  # what the console script does
sys.exit(main())
"""


@pytest.mark.parametrize("module", ["neardup._jit", "neardup.exceptions", "neardup.cli.main", "click"])
def test_a_ctrl_c_while_the_console_script_imports_the_cli_is_one_line(module: str) -> None:
    """The console script imports the package and the CLI (click first) before main() runs: a
    Ctrl-C there exits 130 with one line, not a KeyboardInterrupt traceback, from the package's
    own __init__ on (the interpreter's start-up comes before any of its code)."""
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT_IMPORT, module],
        capture_output=True,
        timeout=60,
        check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
    )
    assert proc.returncode == 130 and proc.stderr == b"neardup: interrupted\n", proc.stderr[-2000:]
    assert proc.stdout == b""


def test_only_the_console_script_takes_ctrl_c_at_start_up() -> None:
    """Importing the CLI in another program (here, pytest) leaves its SIGINT handler alone."""
    import neardup.cli

    assert signal.getsignal(signal.SIGINT) is not neardup.cli.interrupted_at_start


def test_the_summary_against_an_index_splits_duplicates_and_clusters_between_corpus_and_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Against a corpus the summary said "6 documents, 4 clusters, kept 2": a cluster kept in the
    corpus counted, with nothing to say so."""
    import random

    from dedup_synth import article, near_copy

    rng = random.Random(5)
    corpus = [{"id": f"c{i}", "text": article(rng)} for i in range(6)]
    fresh = article(rng)
    batch = [
        {"id": "copy-c0", "text": corpus[0]["text"]},
        {"id": "copy-c1", "text": corpus[1]["text"]},
        {"id": "edit-c1", "text": near_copy(rng, corpus[1]["text"])},
        {"id": "new", "text": fresh},
        {"id": "new-again", "text": fresh},
        {"id": "alone", "text": article(rng)},
    ]
    for name, rows in (("corpus.jsonl", corpus), ("batch.jsonl", batch)):
        (tmp_path / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    idx = tmp_path / "idx"
    code, _, err = run(["index", "build", str(tmp_path / "corpus.jsonl"), "-o", str(idx), "-q"], capsys)
    assert code == 0, err
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        ["dedup", str(tmp_path / "batch.jsonl"), "--against", str(idx), "-o", str(out)], capsys
    )
    assert code == 0, err
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [i for i, r in rows.items() if r["duplicate_of"] is None] == ["new", "alone"]
    assert {rows[i]["cluster"] for i in ("copy-c0", "copy-c1", "edit-c1")} == {"c0", "c1"}
    first, *rest = err.splitlines()
    assert "6 documents, kept 2, duplicates 4 (" in first and "clusters" not in first
    assert (
        "  duplicates 4: 3 copies of 2 corpus documents, 1 within the batch; 4 clusters: "
        "2 kept in the corpus, 2 kept from the batch"
    ) in rest, err
    # a plain run counts the clusters on its first line, as many as it keeps
    code, _, err = run(["dedup", str(tmp_path / "batch.jsonl"), "-o", str(out)], capsys)
    assert code == 0 and "6 documents, 4 clusters, kept 4, duplicates 2 (" in err, err


@pytest.mark.parametrize(
    "command",
    [["dedup", "IN", "-o", "out.jsonl"], ["fingerprint", "IN"], ["index", "build", "IN", "-o", "idx"]],
)
def test_an_id_field_given_that_no_record_has_is_refused(
    command: list[str],
    src: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every record was named file:line, silently, when --id-field named a field none of them has."""
    monkeypatch.chdir(tmp_path)
    args = [str(src) if word == "IN" else word for word in command]
    code, out, err = run([*args, "--id-field", "doc_id"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"{src}: no record has the field 'doc_id' given with --id-field" in err
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
    # the documented fallback stays for records that lack the field, when others have it
    mixed = tmp_path / "mixed.jsonl"
    docs = make_docs(4, seed=2)
    mixed.write_text(
        "".join(
            json.dumps({"doc_id": d["id"], "text": d["text"]} if i else {"text": d["text"]}) + "\n"
            for i, d in enumerate(docs)
        )
    )
    code, _, err = run(["dedup", str(mixed), "-o", "out.jsonl", "--id-field", "doc_id", "-q"], capsys)
    assert code == 0, err
    ids = [json.loads(x)["id"] for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert ids == ["mixed.jsonl:1", *(d["id"] for d in docs[1:])]
    # and for records with no id at all when --id-field is left at its default
    (tmp_path / "bare.jsonl").write_text("".join(json.dumps({"text": d["text"]}) + "\n" for d in docs))
    code, _, err = run(["dedup", "bare.jsonl", "-o", "out.jsonl", "-q"], capsys)
    assert code == 0 and err == "", err


def test_a_sqlite_url_store_that_is_a_directory_or_another_file_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    folder = tmp_path / "stores"
    folder.mkdir()
    csv = tmp_path / "data.csv"
    csv.write_text("url,seen\nhttps://example.com/,1\n")
    for store, message in (
        (
            str(folder),
            f"{folder}: is a directory; a SQLite store is one file: name it, e.g. {folder}/seen.db",
        ),
        (f"sqlite://{folder}", "is a directory"),
        (str(csv), f"{csv}: is not a neardup URL seen-store (not a SQLite database)"),
        (str(tmp_path / "nowhere" / "seen.db"), f"the folder {tmp_path / 'nowhere'} does not exist"),
    ):
        for args in (["check"], ["stats"], ["forget", "https://example.com/"]):
            if args[0] == "stats" and "nowhere" in store:
                continue  # refused before: no such store
            monkeypatch.setattr("sys.stdin", io.StringIO("https://example.com/\n"))
            code, _, err = run(["urls", args[0], "--job", "j", "--store", store, *args[1:]], capsys)
            assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    assert csv.read_text() == "url,seen\nhttps://example.com/,1\n" and list(folder.iterdir()) == []
    # an empty file is a new store, as SQLite takes it
    empty = tmp_path / "new.db"
    empty.write_text("")
    monkeypatch.setattr("sys.stdin", io.StringIO("https://example.com/\n"))
    code, out, err = run(["urls", "check", "--job", "j", "--store", str(empty)], capsys)
    assert code == 0 and out == "https://example.com/\n", err
