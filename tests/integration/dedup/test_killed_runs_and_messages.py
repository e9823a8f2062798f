"""What killed runs leave is cleaned up by the next run; a full disk names the output the user
gave; control characters in file names never reach the terminal raw."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs

from neardup._stale import owner_alive, remove_stale

pytestmark = pytest.mark.timeout(300)
CLI = [sys.executable, "-m", "neardup.cli.main"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in make_docs(30, seed=5)))
    return path


def test_temp_folders_of_killed_builds_and_merges_are_removed_by_the_next_run(
    tmp_path: Path, corpus: Path
) -> None:
    dead, alive = _dead_pid(), os.getpid()
    for name in (f".idx.tmp-{dead}", f".idx.tmp-{alive}", f".other.tmp-{dead}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "part-00000.parquet").write_bytes(b"half")
    idx = tmp_path / "idx"
    out = subprocess.run(
        [*CLI, "index", "build", str(corpus), "-o", str(idx), "-q"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert left == [f".idx.tmp-{alive}", f".other.tmp-{dead}"]  # a live owner's and another index's stay
    # a merge killed while writing its segment
    (idx / f".seg-00001.tmp-{dead}").mkdir()
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        json.dumps({"id": "new", "text": "一篇全新的文章，讲的是别的事情。" * 5}, ensure_ascii=False) + "\n"
    )
    out = subprocess.run(
        [*CLI, "dedup", str(batch), "--against", str(idx), "--merge", "-o", str(tmp_path / "o.jsonl")],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    assert not [p for p in idx.iterdir() if ".tmp-" in p.name]


def test_an_old_index_moved_aside_by_a_killed_rebuild_is_put_back(tmp_path: Path, corpus: Path) -> None:
    idx = tmp_path / "idx"
    out = subprocess.run(
        [*CLI, "index", "build", str(corpus), "-o", str(idx), "-q"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    dead = _dead_pid()
    os.replace(idx, tmp_path / f".idx.old-{dead}")  # killed between its two renames
    out = subprocess.run(
        [*CLI, "index", "build", str(corpus), "-o", str(idx), "--force", "-q"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx", "in.jsonl"]


def test_a_pid_reused_by_a_younger_process_does_not_keep_a_temp(tmp_path: Path) -> None:
    (tmp_path / ".x.tmp-1").mkdir()
    os.utime(tmp_path / ".x.tmp-1", (1.0, 1.0))  # written long before pid 1 (or anything) started
    assert not owner_alive(1, 1.0) or not Path("/proc/1/stat").exists()
    assert [p.name for p in remove_stale(tmp_path, ".x.tmp-")] == [".x.tmp-1"]


def test_index_build_on_a_full_disk_names_the_output(tmp_path: Path, corpus: Path) -> None:
    out = subprocess.run(
        [*CLI, "index", "build", str(corpus), "-o", "/dev/full"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "neardup: error: /dev/full: an index is a directory of files; name a new directory (not a file or a device)"
    ]
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("a real full disk needs root and unshare for a private tmpfs")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    big = tmp_path / "big.jsonl"
    big.write_text(
        "".join(
            json.dumps({"id": i, "text": f"第{i}篇：" + "长江是中华民族的母亲河。" * 30}, ensure_ascii=False)
            + "\n"
            for i in range(3000)
        )
    )
    cmd = f"mount -t tmpfs -o size=64k tmpfs {mnt} && exec {sys.executable} -m neardup.cli.main index build {big} -o {mnt}/idx"
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", cmd], env=_env(), capture_output=True, text=True, timeout=240
    )
    if "mount" in out.stderr and "neardup" not in out.stderr:
        pytest.skip(f"no private tmpfs here: {out.stderr.strip()}")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"neardup: error: {mnt}/idx: "), out.stderr
    assert "No space left on device" in lines[0] and "standard output" not in lines[0]


NASTY = "evil\x1b[2J\x1b]0;owned\x07\u202efdp.jsonl"


def test_control_characters_in_file_names_are_escaped(tmp_path: Path) -> None:
    bad = tmp_path / NASTY
    bad.write_text('{"id": 1}\n')  # no text: a one-line error naming the file
    for args in (
        ["dedup", str(bad), "-o", str(tmp_path / "o.jsonl")],
        ["dedup", str(tmp_path / ("gone" + NASTY)), "-o", str(tmp_path / "o.jsonl")],
        ["index", "info", str(tmp_path / NASTY)],
        ["index", "build", str(bad), "-o", str(tmp_path / "idx\x1b[31m")],
        ["nshash", "--no-such-option\x1b[2J"],
    ):
        out = subprocess.run([*CLI, *args], env=_env(), capture_output=True, text=True, timeout=240)
        assert out.returncode == 2, (args, out.stderr)
        text = out.stderr + out.stdout
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, text
        assert "\\x1b" in text, text


_KILLED_WRITER = """
import os, signal, sys
from neardup.io import atomic_write
with atomic_write(sys.argv[1], "w") as fh:
    fh.write("half of an output")
    fh.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # killed before the rename
"""


def test_temp_files_of_a_killed_write_carry_its_pid_and_are_removed_by_the_next_write(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    killed = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(out)], env=_env())
    assert killed.wait(timeout=120) == -9
    left = [p.name for p in tmp_path.iterdir() if p.name != "out.jsonl"]
    assert len(left) == 1 and left[0].startswith(".out.jsonl.") and left[0].endswith(f".tmp-{killed.pid}"), (
        left
    )
    assert out.read_text() == "old\n"  # the old output stays whole
    # a backup a run killed while renaming left, a live owner's temp, another output's temp
    dead = _dead_pid()
    (tmp_path / f".out.jsonl.bak-{dead}").write_text("old\n")
    (tmp_path / f".out.jsonl.live.tmp-{os.getpid()}").write_text("in progress")
    (tmp_path / f".other.jsonl.x.tmp-{dead}").write_text("another output's")
    from neardup.io import atomic_write

    with atomic_write(out, "w") as fh:
        fh.write("new\n")
    assert out.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".other.jsonl.x.tmp-" + str(dead), f".out.jsonl.live.tmp-{os.getpid()}", "out.jsonl"]
    )
