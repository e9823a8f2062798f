"""neardup urls: a filter that prints only new URLs, stats, forget, canonical; one-line errors exit 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from neardup.cli.main import main


def run(
    args: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


URLS = "https://a.com/1?utm_source=x\nhttps://A.com/1\nnot a url\n\nhttps://a.com/2\nhttps://a.com/2#x\n"


def test_urls_cli_check_prints_only_new_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "seen.db")
    code, out, err = run(["urls", "check", "--job", "108", "--store", store], URLS, monkeypatch, capsys)
    assert code == 0
    assert out.splitlines() == ["https://a.com/1?utm_source=x", "https://a.com/2"]
    assert "skipped 1 malformed URL(s) of 5" in err and "line 3" in err
    code, out, _ = run(
        ["urls", "check", "--job", "108", "--store", store, "--print-canonical"],
        "https://a.com/2\nhttps://a.com/3?spm=1&b=2&a=1\n",
        monkeypatch,
        capsys,
    )
    assert out.splitlines() == ["https://a.com/3?a=1&b=2"]
    code, out, _ = run(["urls", "stats", "--job", "108", "--store", store], "", monkeypatch, capsys)
    stats = json.loads(out)
    assert code == 0 and stats["urls"] == 3 and stats["backend"] == "sqlite"


def test_urls_cli_check_batch_size_one_and_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(
        [
            "urls",
            "check",
            "--job",
            "1",
            "--store",
            "memory://",
            "--batch-size",
            "1",
            "--keep-param",
            "from",
            "--drop-param",
            "page",
        ],
        "https://a.com/?from=1\nhttps://a.com/?from=2\nhttps://a.com/?from=2&page=3\n",
        monkeypatch,
        capsys,
    )
    assert out.splitlines() == ["https://a.com/?from=1", "https://a.com/?from=2"]


def test_urls_cli_strict_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        ["urls", "check", "--job", "1", "--store", "memory://", "--strict"],
        "https://a.com/\nexample.com/x\n",
        monkeypatch,
        capsys,
    )
    assert code == 2
    assert err.strip().count("\n") == 0 and "<stdin>:2" in err and "no scheme" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["urls", "stats", "--job", "a:b", "--store", "memory://"], "job_id"),
        (["urls", "stats", "--job", "1", "--store", "ftp://x"], "valid schemes"),
        (["urls", "check", "--job", "1", "--store", "memory://", "--batch-size", "0"], "batch-size"),
        (["urls", "check", "--job", "1", "--store", "memory://", "--ttl", "-5"], "ttl"),
    ],
)
def test_urls_cli_bad_settings_exit_2(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(args, "", monkeypatch, capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_urls_cli_forget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "f.db")
    run(
        ["urls", "check", "--job", "9", "--store", store],
        "https://a.com/1\nhttps://a.com/2\n",
        monkeypatch,
        capsys,
    )
    code, _, err = run(
        ["urls", "forget", "--job", "9", "--store", store, "https://a.com/1"], "", monkeypatch, capsys
    )
    assert code == 0 and "forgot 1 of 1" in err
    _, out, _ = run(
        ["urls", "check", "--job", "9", "--store", store],
        "https://a.com/1\nhttps://a.com/2\n",
        monkeypatch,
        capsys,
    )
    assert out.splitlines() == ["https://a.com/1"]
    code, _, _ = run(["urls", "forget", "--job", "9", "--store", store, "--all"], "", monkeypatch, capsys)
    code, out, err = run(["urls", "stats", "--job", "9", "--store", store], "", monkeypatch, capsys)
    assert code == 2 and out == "" and "no job '9' in this store" in err


def test_urls_cli_store_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEARDUP_URL_STORE", str(tmp_path / "env.db"))
    code, out, _ = run(["urls", "check", "--job", "e"], "https://a.com/\n", monkeypatch, capsys)
    assert code == 0 and out == "https://a.com/\n"
    assert (tmp_path / "env.db").exists()


def test_urls_cli_canonical(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        ["urls", "canonical"], "HTTP://Ex.com:80/a/../b?z=1&a=2&utm_id=3#f\nbad\n", monkeypatch, capsys
    )
    assert code == 0 and out == "http://ex.com/b?a=2&z=1\n" and "skipped 1" in err


def test_urls_cli_stats_of_a_job_the_store_does_not_hold_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped job is refused as a mistyped store path is, not reported as a job of 0 URLs."""
    store = str(tmp_path / "seen.db")
    run(["urls", "check", "--job", "108", "--store", store], "https://a.com/1\n", monkeypatch, capsys)
    code, out, _ = run(["urls", "stats", "--job", "108", "--store", store], "", monkeypatch, capsys)
    assert code == 0 and json.loads(out)["urls"] == 1
    for job, message in [
        ("109", f"sqlite://{store}: no job '109' in this store: it was never checked"),
        ("1080", "check --job"),
    ]:
        code, out, err = run(["urls", "stats", "--job", job, "--store", store], "", monkeypatch, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    code, out, err = run(["urls", "stats", "--job", "108", "--store", "memory://"], "", monkeypatch, capsys)
    assert code == 2 and out == "" and "a memory:// store keeps nothing between runs" in err, err


def test_urls_cli_a_failed_run_whose_undo_failed_is_not_called_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """stdout on a full disk and a store that cannot forget: the batch stays in the pending file, and
    the next run redoes it, saying the run did not finish rather than that it was killed."""
    from neardup.exceptions import StoreError
    from neardup.urls import SeenURLs

    store = str(tmp_path / "seen.db")
    urls = "https://a.com/1\nhttps://a.com/2\n"

    def store_gone(self: SeenURLs, url: str) -> bool:
        raise StoreError("the store went away")

    with open("/dev/full", "w") as full, monkeypatch.context() as patch:
        patch.setattr("sys.stdout", full)
        patch.setattr(SeenURLs, "forget", store_gone)
        code, _, err = run(["urls", "check", "--job", "1", "--store", store], urls, monkeypatch, capsys)
    assert code == 2 and "2 of them stay recorded (the store went away)" in err, err
    assert len(list(tmp_path.glob(".neardup-urls-pending-*"))) == 1
    code, out, err = run(["urls", "check", "--job", "1", "--store", store], urls, monkeypatch, capsys)
    assert code == 0 and out == urls
    assert "did not finish (killed, or failed before it could undo) after recording 2 URL(s)" in err, err
    assert not list(tmp_path.glob(".neardup-urls-pending-*"))
