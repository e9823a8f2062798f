"""Ctrl-C while the worker processes sign: the run stops with ``neardup: aborted`` (exit 130), no
traceback, no output file, and no worker process left behind (a terminal's Ctrl-C reaches the whole
process group; the workers ignore it and are stopped by the run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            kids.append(int(entry.name))
    return kids


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_while_the_workers_sign_stops_the_run_and_its_workers(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "clusters.jsonl"
    cmd = [sys.executable, "-c", "from neardup.cli.main import main; main()"]
    proc = subprocess.Popen(
        [*cmd, "dedup", str(data_dir / "zh-xwlb.jsonl.gz"), "-o", str(out), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        # the signing workers are forks of the run: children with its command line
        workers: list[int] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [c for c in _children(proc.pid) if _cmdline(c) == _cmdline(proc.pid)]
            if workers:
                break
            time.sleep(0.01)
        assert workers, "the run started no worker process"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()[-2000:]
    assert err.decode().strip().endswith("neardup: aborted"), err.decode()[-2000:]
    assert b"Traceback" not in err
    assert not out.exists()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers)
