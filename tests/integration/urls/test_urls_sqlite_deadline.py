"""A SQLite seen-store call under a store deadline, with another process holding the write lock:
it gives up by the deadline having recorded nothing, so a retry finds the URLs new."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from neardup.exceptions import StoreError
from neardup.urls import SeenURLs
from neardup.urls.deadline import store_deadline

_HOLD_LOCK = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
con.execute("ROLLBACK")
"""


def _hold(path: Path) -> subprocess.Popen[bytes]:
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_HOLD_LOCK), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
    return holder


def test_a_call_past_its_deadline_is_rolled_back_and_a_retry_finds_the_urls_new(tmp_path: Path) -> None:
    db = tmp_path / "urls.sqlite"
    urls = [f"https://a.example/{i}" for i in range(20)]
    with SeenURLs("job", store=f"sqlite://{db}") as seen:
        assert seen.check_and_add_many(urls[:5]) == [True] * 5
        holder = _hold(db)
        try:
            with (
                store_deadline(time.monotonic() + 0.5),
                pytest.raises(StoreError, match="nothing was recorded"),
            ):
                seen.check_and_add_many(urls)
            # a deadline already past: the store is not even asked
            with (
                store_deadline(time.monotonic() - 1),
                pytest.raises(StoreError, match="nothing was recorded"),
            ):
                seen.check_and_add_many(urls)
        finally:
            holder.communicate(b"", timeout=30)
        with store_deadline(time.monotonic() + 60):
            assert seen.check_and_add_many(urls) == [False] * 5 + [True] * 15
        assert seen.check_and_add_many(urls) == [False] * 20  # no deadline: as before
    with SeenURLs("job", store=f"sqlite://{db}") as again:  # and on disk
        assert again.check_and_add_many(urls) == [False] * 20
