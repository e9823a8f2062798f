"""The SQLite URL store under many first-opens at once, and with a flipped byte.

Many `urls check` processes started at once on one fresh store all succeed and lose nothing. A
flipped byte is refused: a log row's data by its xxh3 checksum (checked as the job's rows are
replayed), the file's structure by `PRAGMA quick_check` on open; one line, exit 2."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from neardup.exceptions import FormatError
from neardup.urls import SeenURLs

pytestmark = pytest.mark.timeout(300)
CLI = [sys.executable, "-m", "neardup.cli.main"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def test_many_urls_check_processes_on_one_fresh_store_all_succeed(tmp_path: Path) -> None:
    store = f"sqlite://{tmp_path}/seen.db"
    n = 24
    procs = []
    for i in range(n):
        p = subprocess.Popen(
            [*CLI, "urls", "check", "--job", "j", "--store", store],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(),
            text=True,
        )
        procs.append((p, f"https://example.com/own/{i}\nhttps://example.com/shared\n"))
    printed: list[str] = []
    for p, urls in procs:
        out, err = p.communicate(urls, timeout=240)
        assert p.returncode == 0, err
        assert err == ""
        printed += out.split()
    assert sorted(printed) == sorted(
        [f"https://example.com/own/{i}" for i in range(n)] + ["https://example.com/shared"]
    )
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".neardup-urls-")]  # no pending file left
    seen = SeenURLs("j", store)
    assert not any(seen.check_and_add_many(printed))  # every one recorded
    seen.close()


def _store(tmp_path: Path) -> tuple[Path, list[str]]:
    db = tmp_path / "seen.db"
    urls = [f"https://a.example/{i}" for i in range(300)]
    seen = SeenURLs("j", f"sqlite://{db}")
    for start in range(0, 300, 100):
        seen.check_and_add_many(urls[start : start + 100])
    seen.close()
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    return db, urls


def test_a_flipped_byte_in_a_log_row_is_refused(tmp_path: Path) -> None:
    db, urls = _store(tmp_path)
    conn = sqlite3.connect(db)
    blob = conn.execute("SELECT hashes FROM log ORDER BY id LIMIT 1 OFFSET 1").fetchone()[0]
    conn.close()
    raw = bytearray(db.read_bytes())
    at = raw.find(blob[80:120])
    assert at > 0
    raw[at + 3] ^= 0x10
    db.write_bytes(bytes(raw))
    seen = SeenURLs("j", f"sqlite://{db}")
    with pytest.raises(
        FormatError, match=r"seen\.db is damaged \(log row 2 of job 'j' does not match its checksum\)"
    ):
        seen.check_and_add_many(urls[:1])
    seen.close()
    out = subprocess.run(
        [*CLI, "urls", "check", "--job", "j", "--store", f"sqlite://{db}"],
        input="https://a.example/new\n",
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "is damaged" in lines[0], out.stderr


def test_a_flipped_byte_in_the_file_structure_is_refused_on_open(tmp_path: Path) -> None:
    db, _ = _store(tmp_path)
    raw = bytearray(db.read_bytes())
    page = 1024
    # the first byte of each B-tree page is its type (2, 5, 10 or 13): damage the first table leaf
    leaf = next(i for i in range(1, len(raw) // page) if raw[i * page] == 13)
    raw[leaf * page + 3] ^= 0xFF  # its cell count
    db.write_bytes(bytes(raw))
    with pytest.raises(FormatError, match="is damaged"):
        SeenURLs("j", f"sqlite://{db}").check_and_add_many(["https://a.example/x"])


def test_rows_of_files_made_before_the_checksum_are_read(tmp_path: Path) -> None:
    db, urls = _store(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE log SET sum = NULL")
    conn.commit()
    conn.close()
    seen = SeenURLs("j", f"sqlite://{db}")
    assert not np.asarray(seen.check_and_add_many(urls)).any()
    seen.close()


def test_a_pending_file_left_half_made_by_a_killed_run_is_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f".neardup-urls-staging-{dead.pid}").write_bytes(b"neardupJ")
    out = subprocess.run(
        [*CLI, "urls", "check", "--job", "j", "--store", f"sqlite://{tmp_path}/seen.db"],
        input="https://a.example/1\n",
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout == "https://a.example/1\n", out.stderr
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".neardup-urls-")]
