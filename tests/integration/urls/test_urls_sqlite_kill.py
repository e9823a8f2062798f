"""A process killed (SIGKILL) in the middle of SQLite URL batches leaves whole batches only."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from neardup.urls import SeenURLs

BATCH = 2000
_WRITER = """
import sys
from neardup.urls import SeenURLs
seen = SeenURLs("k", sys.argv[1])
for b in range(10_000):
    seen.check_and_add_many([f"https://k.example/{b}/{i}" for i in range({batch})])
    print(b, flush=True)
"""


def test_sqlite_store_killed_mid_batch_keeps_whole_batches_and_every_acknowledged_one(tmp_path: Path) -> None:
    db = tmp_path / "seen.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_WRITER).replace("{batch}", str(BATCH)), str(db)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acked = -1
    deadline = time.monotonic() + 60
    while acked < 3 and time.monotonic() < deadline:  # a few batches in, then in the middle of one
        acked = int(proc.stdout.readline())
    time.sleep(0.013)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    acked = max([acked, *(int(x) for x in proc.stdout.read().split())])
    proc.stdout.close()
    seen = SeenURLs("k", str(db))
    try:
        urls = seen.stats()["urls"]
        assert urls % BATCH == 0, urls  # never part of a batch
        assert urls >= (acked + 1) * BATCH  # every acknowledged batch
        assert urls <= (acked + 2) * BATCH  # at most the one in flight, whole
    finally:
        seen.close()
