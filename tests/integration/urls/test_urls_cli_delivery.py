"""``neardup urls check`` hands URLs on at least once: nothing is left recorded that was not delivered.

Real processes, real pipes, a real SQLite store.
"""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.urls import SeenURLs

CLI = [sys.executable, "-m", "neardup.cli.main"]
URLS = [f"https://site{i}.example.com/article/{i}?x={i}" for i in range(5000)]


def _recorded(store: Path, urls: list[str]) -> list[str]:
    """The URLs of ``urls`` the store holds (checked without recording: a throw-away copy)."""
    copy = store.with_name("copy.db")
    with sqlite3.connect(store) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    seen = SeenURLs("1", str(copy))
    try:
        return [u for u, new in zip(urls, seen.check_and_add_many(urls), strict=True) if not new]
    finally:
        seen.close()
        copy.unlink()


def test_urls_check_reader_closing_early_leaves_only_read_urls_recorded(tmp_path: Path) -> None:
    store = tmp_path / "seen.db"
    (tmp_path / "in.txt").write_text("\n".join(URLS) + "\n")
    reader = "import os, sys; d = os.read(0, 10000); sys.stdout.buffer.write(d)"
    with open(tmp_path / "in.txt", "rb") as stdin:
        writer = subprocess.Popen(
            [*CLI, "urls", "check", "--job", "1", "--store", str(store)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert writer.stdout is not None
        got = subprocess.run(
            [sys.executable, "-c", reader], stdin=writer.stdout, capture_output=True, timeout=60, check=True
        ).stdout
        writer.stdout.close()
        _, err = writer.communicate(timeout=60)
    read = got.decode().split("\n")[:-1]  # complete lines only; the last one is cut
    assert writer.returncode == 141
    assert err.decode().count("\n") == 1 and "broken pipe" in err.decode()
    assert _recorded(store, URLS) == read  # exactly the lines the reader got whole
    assert not list(tmp_path.glob(".neardup-urls-pending-*"))  # nothing left to redo


def test_urls_check_full_disk_on_stdout_records_nothing(tmp_path: Path) -> None:
    store = tmp_path / "seen.db"
    with open("/dev/full", "wb") as full:
        out = subprocess.run(
            [*CLI, "urls", "check", "--job", "1", "--store", str(store)],
            input="\n".join(URLS[:50]).encode(),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    err = out.stderr.decode()
    assert out.returncode == 2 and err.count("\n") == 1, err
    assert "No space left on device" in err and "50 URL(s) not delivered were forgotten" in err
    assert _recorded(store, URLS[:50]) == []
    # the run undid its batch and said so: no pending file is left for the next run to call "killed"
    assert not list(tmp_path.glob(".neardup-urls-pending-*"))
    again = subprocess.run(
        [*CLI, "urls", "check", "--job", "1", "--store", str(store)],
        input="\n".join(URLS[:50]).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 0 and again.stderr == b"", again.stderr
    assert again.stdout.decode().splitlines() == URLS[:50]


def test_urls_check_sigterm_while_waiting_for_input_exits_143_with_everything_delivered(
    tmp_path: Path,
) -> None:
    store = tmp_path / "seen.db"
    proc = subprocess.Popen(
        [*CLI, "urls", "check", "--job", "1", "--store", str(store), "--batch-size", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    printed = []
    for url in URLS[:5]:
        proc.stdin.write(url.encode() + b"\n")
        proc.stdin.flush()
        printed.append(proc.stdout.readline().decode().strip())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert "stopped by SIGTERM after 5 new URL(s)" in err.decode()
    assert printed == URLS[:5] == _recorded(store, URLS[:10])


def test_urls_check_sigint_during_the_commit_is_held_until_the_batch_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "seen.db"
    real = SeenURLs.check_and_add_many

    def commit_then_ctrl_c(self: SeenURLs, urls: list[str]) -> list[bool]:
        flags = real(self, urls)
        os.kill(os.getpid(), signal.SIGINT)  # arrives after the store committed, before the print
        time.sleep(0.05)
        return flags

    monkeypatch.setattr(SeenURLs, "check_and_add_many", commit_then_ctrl_c)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(URLS[:30]) + "\n"))
    with pytest.raises(SystemExit) as exit_info:
        main(["urls", "check", "--job", "1", "--store", str(store), "--batch-size", "10"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 130
    assert out.splitlines() == URLS[:10]  # the first batch, printed whole; no second batch
    assert "stopped by SIGINT after 10 new URL(s)" in err
    monkeypatch.undo()
    assert _recorded(store, URLS[:30]) == URLS[:10]


@pytest.mark.parametrize("job", ["108\n", "108 ", ""])
def test_urls_cli_job_with_trailing_newline_or_space_is_refused(
    job: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("https://a.example/\n"))
    with pytest.raises(SystemExit) as exit_info:
        main(["urls", "check", "--job", job, "--store", "memory://"])
    assert exit_info.value.code == 2
    assert "job_id (--job) must be 1-200 characters" in capsys.readouterr().err


def test_urls_check_kill_9_between_record_and_print_is_undone_by_the_next_run(tmp_path: Path) -> None:
    import fcntl
    import struct
    import termios

    store = tmp_path / "seen.db"
    (tmp_path / "in.txt").write_text("\n".join(URLS) + "\n")
    r, w = os.pipe()
    with open(tmp_path / "in.txt", "rb") as stdin:  # nobody reads the output: the pipe fills up
        writer = subprocess.Popen(
            [*CLI, "urls", "check", "--job", "1", "--store", str(store)],
            stdin=stdin,
            stdout=w,
            stderr=subprocess.DEVNULL,
        )
    os.close(w)

    def unread() -> int:
        return int(struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\0\0\0\0"))[0])

    last, still_since = -1, time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # blocked in a write: the pipe stays full
        n = unread()
        if n != last:
            last, still_since = n, time.monotonic()
        elif n > 0 and time.monotonic() - still_since > 0.5:
            break
        time.sleep(0.05)
    writer.kill()  # kill -9 with a recorded batch half printed
    writer.wait(timeout=30)
    got = b""
    os.set_blocking(r, False)
    while True:
        try:
            chunk = os.read(r, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        got += chunk
    os.close(r)
    delivered = set(got.decode().split("\n")[:-1])
    before = set(_recorded(store, URLS))
    assert before - delivered  # the gap: recorded, never printed
    again = subprocess.run(
        [*CLI, "urls", "check", "--job", "1", "--store", str(store)],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 0 and b"did not finish (killed" in again.stderr, again.stderr
    assert set(_recorded(store, URLS)) <= delivered  # nothing recorded that was not delivered
    assert not list(tmp_path.glob(".neardup-urls-pending-*"))
