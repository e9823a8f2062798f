"""`neardup dedup --workers 2` over HTML pages with one extraction worker `kill -9`'d mid-run: the
worker is replaced, its pages read again, and the run ends with the output of an undisturbed run
(it used to hang forever in Pool.terminate)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

# the extraction of each page slowed a little, so that the run is still going when the worker dies
SLOW = """
import sys, time
import neardup.dedup.fingerprints as f
real = f.read_page
def slow(text, html, extractor):
    time.sleep(0.01)
    return real(text, html, extractor)
f.read_page = slow
from neardup.cli.main import main
main(sys.argv[1:])
"""


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_dedup_survives_a_worker_killed_mid_run(tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    with pages.open("w") as fh:
        for i in range(600):
            body = f"第{i % 700}篇文章。" + "今天的新闻很多，市场和企业都在讨论改革。" * 3
            fh.write(json.dumps({"id": f"p{i}", "html": f"<html><body><p>{body}</p></body></html>"}) + "\n")
    args = ["dedup", str(pages), "--workers", "2"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def run(out: Path, kill: bool) -> tuple[int, str, bool]:
        proc = subprocess.Popen(
            [sys.executable, "-c", SLOW, *args, "-o", str(out)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        killed = False
        try:
            while kill and not killed and proc.poll() is None:
                kids = _children(proc.pid)
                if kids:
                    time.sleep(0.5)  # it has pages in hand
                    kids = _children(proc.pid)
                    if kids:
                        os.kill(kids[0], signal.SIGKILL)
                        killed = True
                time.sleep(0.05)
            _, err = proc.communicate(timeout=240)  # the regression was a hang: fail, do not wait
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return proc.returncode, err, killed

    code, err, killed = run(tmp_path / "killed.jsonl", kill=True)
    assert killed, "the run ended before a worker could be killed"
    assert code == 0, err
    code, err, _ = run(tmp_path / "quiet.jsonl", kill=False)
    assert code == 0, err
    assert (tmp_path / "killed.jsonl").read_bytes() == (tmp_path / "quiet.jsonl").read_bytes()
