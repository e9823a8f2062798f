"""A ContentSeen state on disk: damage is refused with a FormatError, never opened as half a state.

Real files; a real full disk (a tiny tmpfs in a private mount namespace) where the machine allows it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from neardup.contentseen import ContentSeen
from neardup.contentseen.records import DocRecord
from neardup.exceptions import FormatError, StoreError
from neardup.stores.journal import header_bytes

TEXTS = [f"第{i}篇：长江是中华民族的母亲河，流域第{i * 7}个城市今天发布了新的治理规划。" for i in range(40)]


def _state(path: Path, n: int = 40, flush_at: int | None = None) -> None:
    with ContentSeen(path, explain=False, durability="no") as cs:
        for i, t in enumerate(TEXTS[:n]):
            cs.check(f"https://a.example/{i}", text=t)
            if flush_at is not None and i + 1 == flush_at:
                cs.flush()


def test_contentseen_truncated_journal_behind_the_index_snapshot_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state)  # close() saves index.hx covering 40 documents
    wal = state / "docs.wal"
    data = wal.read_bytes()
    wal.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match=r"index.hx covers 40 documents but .*docs.wal holds \d+"):
        ContentSeen(state)
    wal.unlink()
    with pytest.raises(FormatError, match=r"docs\.wal is missing"):
        ContentSeen(state)
    # a refused open leaves no lock behind: the same process can open the state once it is restored
    wal.write_bytes(data)
    with ContentSeen(state) as cs:
        assert len(cs) == 40


def test_contentseen_edited_url_in_the_journal_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state, 5)
    wal = state / "docs.wal"
    data = wal.read_bytes()
    at = data.index(b"https://a.example/2")
    wal.write_bytes(data[:at] + b"https://b.example/2" + data[at + 19 :])  # the JSON stays valid
    with pytest.raises(FormatError, match=r"docs.wal: record 2 at byte \d+ is damaged \(payload checksum"):
        ContentSeen(state)


def test_contentseen_header_and_index_deleted_is_refused_not_reopened_with_new_settings(
    tmp_path: Path,
) -> None:
    state = tmp_path / "cs"
    _state(state, 5)
    (state / "contentseen.json").unlink()
    (state / "index.hx").unlink()
    with pytest.raises(FormatError, match=r"contentseen.json is missing but .* holds a state \(docs.wal\)"):
        ContentSeen(state, extractor="trafilatura")
    assert not (state / "contentseen.json").exists()


def test_contentseen_index_deleted_is_rebuilt_from_the_journal(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state, 10)
    (state / "index.hx").unlink()
    with ContentSeen(state) as cs:
        assert cs.stats()["documents"] == cs.stats()["indexed"] == 10
        assert cs.check("x", text=TEXTS[3], add=False).duplicate_of == 4


def test_contentseen_journal_ids_must_be_contiguous(tmp_path: Path) -> None:
    from neardup.stores.journal import Journal

    state = tmp_path / "cs"
    _state(state, 3)
    (state / "index.hx").unlink()
    j = Journal(state / "docs.wal", kind="contentseen.docs")
    docs = [DocRecord.from_record(p) for _, p in j.replay()]
    docs[2].id = 7
    j.append(docs[2].record())  # a well-framed record whose document id skips 4..6
    j.close()
    with pytest.raises(FormatError, match="record 3 holds document 7, expected 4"):
        ContentSeen(state)


def test_contentseen_failed_open_releases_its_lock(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state, 2)
    (state / "docs.wal").write_bytes(b"garbage that is no journal")
    with pytest.raises(FormatError, match="is not a neardup journal"):
        ContentSeen(state)
    shutil.rmtree(state)
    with ContentSeen(state) as cs:  # not "open in another process"
        assert len(cs) == 0


@pytest.mark.parametrize("version", [1, 2])
def test_contentseen_state_from_before_the_match_engine_is_refused(tmp_path: Path, version: int) -> None:
    state = tmp_path / "cs"
    _state(state, 4)
    meta = orjson.loads((state / "contentseen.json").read_bytes())
    (state / "contentseen.json").write_bytes(orjson.dumps({**meta, "version": version}))
    with pytest.raises(FormatError, match=rf"version {version}, made before the match engine.*re-add"):
        ContentSeen(state)


def test_contentseen_lock_held_by_another_process_is_reported(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state, 1)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                from neardup.contentseen import ContentSeen
                cs = ContentSeen({str(state)!r})
                print("open", flush=True)
                sys.stdin.read()
                cs.close()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"open\n"
        with pytest.raises(StoreError, match="open in another process"):
            ContentSeen(state)
    finally:
        holder.communicate(b"", timeout=30)
    with ContentSeen(state) as cs:
        assert len(cs) == 1


_FULL_DISK = """
import errno, os, sys
from neardup.contentseen import ContentSeen
from neardup.exceptions import StoreError
root = sys.argv[1]
os.makedirs(root + "/cs")
filler = root + "/filler"
cs = ContentSeen(root + "/cs", explain=False)
acked = 0
fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the disk, then leave a few KiB
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
os.truncate(filler, os.path.getsize(filler) - 6000)
refused = 0
for i in range(200):
    try:
        cs.check(f"https://a.example/{i}", text=f"第{i}篇文章：" + "长江是中华民族的母亲河。" * 20)
        acked += 1
    except StoreError as exc:
        assert "No space left" in str(exc), exc
        refused += 1
        if refused == 3:
            break
os.unlink(filler)  # space comes back; the next adds are acknowledged after the refused ones
for i in range(200, 205):
    cs.check(f"https://a.example/{i}", text=f"第{i}篇文章：" + "长江是中华民族的母亲河。" * 20)
    acked += 1
cs._closed = True; cs._state.dir.close()  # die without flush or close
again = ContentSeen(root + "/cs")
print(acked, refused, len(again), again.stats()["indexed"])
"""


def test_contentseen_full_disk_refuses_the_add_and_the_state_still_opens(tmp_path: Path) -> None:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare for a private tmpfs")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    script = tmp_path / "full.py"
    script.write_text(_FULL_DISK)
    cmd = f"mount -t tmpfs -o size=256k tmpfs {mnt} && exec {sys.executable} {script} {mnt}"
    try:
        out = subprocess.run(
            ["unshare", "-m", "sh", "-c", cmd], capture_output=True, text=True, timeout=120, check=False
        )
    except subprocess.TimeoutExpired:  # pragma: no cover
        pytest.fail("the full-disk run did not finish in 120 s")
    if out.returncode != 0 and "mount" in out.stderr and "Traceback" not in out.stderr:
        pytest.skip(f"no private tmpfs here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    acked, refused, reopened, indexed = map(int, out.stdout.split())
    assert refused == 3 and acked > 5
    assert reopened == acked == indexed  # every acknowledged page, none of the refused ones


def test_contentseen_torn_tail_after_crash_is_repaired_and_ids_continue(tmp_path: Path) -> None:
    state = tmp_path / "cs"
    _state(state, 6)
    wal = state / "docs.wal"
    size = wal.stat().st_size
    with open(wal, "ab") as fh:  # a record whose write a crash cut short
        fh.write(b"\x40\x00\x00\x00" + b"\x06" + b"\x00" * 10)
    with ContentSeen(state) as cs:
        assert len(cs) == 6 and wal.stat().st_size == size
        assert cs.check("n", text=TEXTS[20]).doc_id == 7
    assert header_bytes("contentseen.docs") < size
