"""A fleet of real ``neardup serve --fleet`` servers keeps its log bounded: once both servers cover
every entry it is trimmed to the last one; a new server is then refused in one line (exit 2), joins
from a copy of a member's state directory, and agrees with the others on every page, retries
(within the retry window) included."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fleet_pages import article_copies, interleaved
from fleet_run import check_agreement, drive
from service_proc import ServiceProcess, free_port

from neardup.stores._url import redis_client

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ARTICLES, COPIES = 6, 3
# short member time: heartbeats every second
FLEET_OPTS = [
    "--analysis-processes",
    "0",
    "--store-timeout",
    "60",
    "--fleet-keep",
    "0",
    "--fleet-member-ttl",
    "4",
]


def test_a_trimmed_fleet_refuses_a_new_server_which_joins_from_a_copy_and_agrees(
    tmp_path: Path, redis_url: str, data_dir: Path
) -> None:
    pages = interleaved(article_copies(data_dir, ARTICLES, COPIES))
    fleet = f"{redis_url}?prefix=trimjob"
    a, b = (
        ServiceProcess(tmp_path / s, tmp_path / f"{s}.log", extra=["--fleet", fleet, *FLEET_OPTS])
        for s in "ab"
    )
    client = redis_client(redis_url)
    starts = [threading.Thread(target=p.start) for p in (a, b)]  # the two warm-ups overlap
    for t in starts:
        t.start()
    for t in starts:
        t.join()
    assert a.proc is not None and b.proc is not None, (a.log()[-2000:], b.log()[-2000:])
    try:
        run = drive([a.url, b.url], pages, clients=4)
        assert sum(v["kind"] == "new" for v in run.answers.values()) == ARTICLES
        deadline = time.monotonic() + 30
        while client.xlen("trimjob:log") > 1 and time.monotonic() < deadline:
            time.sleep(0.2)  # both servers' heartbeats record what they cover, then trim
        assert client.xlen("trimjob:log") == 1 and int(client.hget("trimjob:meta", "first")) == len(pages)
        members = client.hgetall("trimjob:members")
        assert len(members) == 2 and all(v.startswith(f"{len(pages)} ".encode()) for v in members.values())
        # a new server with an empty state: refused, one line naming what to do, exit 2
        c_state = tmp_path / "c"
        refused = subprocess.run(
            [sys.executable, "-m", "neardup.cli.main", "serve", "--state", str(c_state), "--port", str(free_port()),
             "--fleet", fleet, *FLEET_OPTS],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert refused.returncode == 2, refused.stderr[-2000:]
        line = refused.stderr.strip().splitlines()[-1]
        assert f"was trimmed and starts at entry {len(pages)}: copy a live member's state directory" in line
        # the documented way: copy a member's contentseen-fleet/ (header, then journal), then start
        (c_state / "contentseen-fleet").mkdir(parents=True, exist_ok=True)
        for name in ("contentseen.json", "docs.wal"):
            shutil.copyfile(a.state / "contentseen-fleet" / name, c_state / "contentseen-fleet" / name)
        c = ServiceProcess(c_state, tmp_path / "c.log", extra=["--fleet", fleet, *FLEET_OPTS])
        with c:
            # every page known alike by all three; a resend to each is answered its first verdict
            check_agreement([a.url, b.url, c.url], pages, run)
        assert client.xlen("trimjob:log") <= 1 + len(pages)  # the resends appended nothing
        assert int(client.hget("trimjob:meta", "n")) == len(pages)
    finally:
        for p in (a, b):
            p.stop()
    client.close()
