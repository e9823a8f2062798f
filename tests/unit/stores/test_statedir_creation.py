"""A new state that a crash cut short at any step of its first open still opens afterwards: the
header is the commit point, and what a cut-short creation leaves (an empty or torn journal, temp
files) is started over; a state whose journal holds records but no header stays refused."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen
from neardup.exceptions import FormatError
from neardup.stores.statedir import StateDir

pytestmark = pytest.mark.timeout(600)

SYSCALLS = ("open", "write", "replace", "rename", "fsync", "mkdir", "close", "ftruncate", "fchmod", "unlink")


def _first_open_dying_at(state: str, k: int) -> None:
    """The first open and close of a ContentSeen state, the process dying at its k-th system call."""
    n = [0]

    def wrap(real):  # type: ignore[no-untyped-def]
        def call(*a, **kw):  # type: ignore[no-untyped-def]
            n[0] += 1
            if n[0] == k:
                os._exit(77)
            return real(*a, **kw)

        return call

    for name in SYSCALLS:
        setattr(os, name, wrap(getattr(os, name)))
    ContentSeen(state).close()
    os._exit(0)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def _reopens(state: Path) -> None:
    with ContentSeen(state) as cs:
        cs.check("https://a.example/1", text="长江是中华民族的母亲河。" * 10)
    with ContentSeen(state) as cs:
        assert len(cs) == 1


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
def test_a_crash_at_every_step_of_the_first_open_leaves_a_state_that_opens(tmp_path: Path) -> None:
    finished = False
    ctx = mp.get_context("fork")
    for k in range(1, 400):
        state = tmp_path / f"s{k}" / "cs"
        child = ctx.Process(target=_first_open_dying_at, args=(str(state), k))
        child.start()
        child.join(120)
        assert child.exitcode in (0, 77)
        _reopens(state)
        if child.exitcode == 0:
            finished = True
            break
    assert finished and k > 10


_CREATE_MANY = r"""
import sys
from neardup.contentseen import ContentSeen
i = 0
while True:
    ContentSeen(f"{sys.argv[1]}/s{i}").close()
    print(i, flush=True)
    i += 1
"""


def test_kill_9_during_first_opens_leaves_states_that_open(tmp_path: Path) -> None:
    for round_ in range(4):
        root = tmp_path / f"r{round_}"
        proc = subprocess.Popen(
            [sys.executable, "-c", _CREATE_MANY, str(root)], env=_env(), stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        proc.stdout.readline()  # imports done, one state made
        time.sleep(0.05 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        for state in sorted(root.iterdir()):
            _reopens(state)


def test_what_a_cut_short_creation_leaves_is_started_over(tmp_path: Path) -> None:
    for leftover in (b"", b"neardupJ\x01\x00"):  # no journal bytes, or a torn journal header
        d = tmp_path / f"d{len(leftover)}"
        d.mkdir()
        (d / "journal.wal").write_bytes(leftover)
        (d / ".journal.wal.123.tmp").write_bytes(b"x")
        (d / ".header.json.abc.tmp").write_bytes(b"{")
        sd = StateDir(d, format="demo", version=1, journal_kind="demo.rec")
        j = sd.open({"a": 1})
        assert list(j.replay()) == [] and j.append(b"r") == 0
        sd.close()
        assert sorted(p.name for p in d.iterdir()) == [".lock", "header.json", "journal.wal"]


def test_a_journal_with_records_but_no_header_is_still_refused(tmp_path: Path) -> None:
    sd = StateDir(tmp_path, format="demo", version=1, journal_kind="demo.rec")
    j = sd.open({"a": 1})
    list(j.replay())
    j.append(b"record")
    sd.close()
    (tmp_path / "header.json").unlink()
    with pytest.raises(FormatError, match=r"header\.json is missing"):
        StateDir(tmp_path, format="demo", version=1, journal_kind="demo.rec").open({"a": 1})
