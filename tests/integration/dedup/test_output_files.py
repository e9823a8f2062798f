"""Output paths: regular files replaced atomically and together; symlinks written through; FIFOs and
character devices streamed to; block devices, directories and inputs refused; OSErrors in one line."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "dedup"))
from dedup_synth import make_docs
from dedup_synth import run_main as run

import neardup.io as nio

CLI = [sys.executable, "-m", "neardup.cli.main"]


@pytest.fixture(scope="module")
def corpus() -> bytes:
    docs = make_docs(30, seed=5)
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode()


@pytest.fixture
def src(tmp_path: Path, corpus: bytes) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_bytes(corpus)
    return path


def test_output_that_is_an_input_is_refused_and_the_input_kept(
    tmp_path: Path, src: Path, corpus: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra in (["-o", str(src)], ["-o", str(tmp_path / "o.jsonl"), "--keep-out", str(src)]):
        code, _, err = run(["dedup", str(src), *extra, "-j", "1"], capsys)
        assert code == 2 and err.count("\n") == 1 and "the output is also an input" in err
        assert src.read_bytes() == corpus
    link = tmp_path / "alias.jsonl"
    link.symlink_to(src)
    code, _, err = run(["dedup", str(src), "-o", str(link), "-j", "1"], capsys)
    assert code == 2 and "also an input" in err and src.read_bytes() == corpus


def test_output_inside_an_input_directory_is_refused(
    tmp_path: Path, src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["dedup", str(tmp_path), "-o", str(tmp_path / "out.jsonl"), "-j", "1"], capsys)
    assert code == 2 and "inside the input directory" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_symlinked_output_is_written_through_to_its_target(
    tmp_path: Path, src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "clusters.jsonl").write_text("old\n")
    link = tmp_path / "clusters.jsonl"
    link.symlink_to(real / "clusters.jsonl")
    code, _, _ = run(["dedup", str(src), "-o", str(link), "-j", "1", "-q"], capsys)
    assert code == 0 and link.is_symlink()
    assert len((real / "clusters.jsonl").read_text().splitlines()) == len(src.read_bytes().splitlines())


def test_fifo_output_is_streamed_to_its_reader(
    tmp_path: Path, src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, _ = run(["dedup", str(src), "-o", str(fifo), "-j", "1", "-q"], capsys)
    reader.join(timeout=30)
    assert code == 0 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert len(got[0].splitlines()) == len(src.read_bytes().splitlines())


def test_character_devices_are_written_never_replaced(src: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(["dedup", str(src), "-o", "/dev/null", "-j", "1", "-q"], capsys)
    assert code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    code, _, err = run(["dedup", str(src), "-o", "/dev/full", "-j", "1", "-q"], capsys)
    assert code == 2 and err.count("\n") == 1 and "No space left on device" in err
    assert "/dev/full:" in err  # the output the user named, not "standard output"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    code, _, err = run(["dedup", str(src), "-o", "/dev/neardup-no-such-device", "-j", "1"], capsys)
    assert code == 2 and "no such device" in err and not os.path.exists("/dev/neardup-no-such-device")


def test_block_device_and_directory_outputs_are_refused(
    tmp_path: Path, src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    node = tmp_path / "blk"
    os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(7, 250))  # a loop device number, never opened
    code, _, err = run(["dedup", str(src), "-o", str(node), "-j", "1"], capsys)
    assert code == 2 and "block device" in err and stat.S_ISBLK(node.stat().st_mode)
    with pytest.raises(nio.InputError, match="is a directory"), nio.atomic_write(tmp_path):
        pass


def test_interrupt_between_the_two_outputs_replaces_neither(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, keep = tmp_path / "o.jsonl", tmp_path / "k.jsonl"
    out.write_text("old out\n")
    keep.write_text("old keep\n")

    def ctrl_c(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt  # -o is written, --keep-out not yet

    monkeypatch.setattr("neardup.cli.dedup.write_keep", ctrl_c)
    code, _, err = run(["dedup", str(src), "-o", str(out), "--keep-out", str(keep), "-j", "1"], capsys)
    assert code == 130 and "aborted" in err
    assert out.read_text() == "old out\n" and keep.read_text() == "old keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "k.jsonl", "o.jsonl"]


def test_failed_rename_of_the_second_output_rolls_back_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("old a")
    real_replace = os.replace
    calls = []

    def fail_second(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(Path(dst).name)
        if Path(dst) == b and len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(nio.os, "replace", fail_second)
    with pytest.raises(OSError, match="Input/output"), nio.atomic_outputs():
        for path in (a, b):
            with nio.atomic_write(path, "w") as fh:
                fh.write("new")
    assert a.read_text() == "old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A folder outside root's private pytest tree, so an unprivileged child can reach it."""
    d = Path(tempfile.mkdtemp(prefix="neardup-perm-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _as_nobody(args: list[str]) -> subprocess.CompletedProcess[str]:
    def drop() -> None:
        os.setgid(65534)
        os.setuid(65534)

    env = {**os.environ, "HOME": "/tmp", "NUMBA_CACHE_DIR": "/tmp/neardup-numba-nobody"}
    return subprocess.run(
        [*CLI, *args], preexec_fn=drop, capture_output=True, text=True, timeout=120, env=env, check=False
    )


def test_unreadable_folder_and_unwritable_output_folder_give_one_line_exit_2(
    world_dir: Path, corpus: bytes
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to run the CLI as another user")
    data = world_dir / "corpus"
    (data / "secret").mkdir(parents=True)
    (data / "a.jsonl").write_bytes(corpus)
    (data / "secret" / "b.jsonl").write_bytes(corpus)
    for p in (data, data / "a.jsonl"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (data / "secret").chmod(0o700)  # root's: nobody cannot list it
    ro = world_dir / "ro"
    ro.mkdir(mode=0o755)
    try:
        probe = _as_nobody(["--version"])
    except PermissionError:
        probe = None
    if probe is None or probe.returncode != 0:
        pytest.skip("this Python cannot be run by an unprivileged user here (see the injected variant)")
    res = _as_nobody(["fingerprint", str(data)])
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert f"{data / 'secret'}: cannot read this directory (Permission denied)" in res.stderr
    res = _as_nobody(["fingerprint", str(data / "a.jsonl"), "-o", str(ro / "fps.jsonl")])
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "Permission denied" in res.stderr and str(ro) in res.stderr and "Traceback" not in res.stderr


def test_stdout_on_a_full_disk_and_output_under_a_file_give_one_line_exit_2(src: Path) -> None:
    with open("/dev/full", "wb") as full:
        res = subprocess.run(
            [*CLI, "fingerprint", str(src)], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert res.returncode == 2 and res.stderr == (
        "neardup: error: standard output: No space left on device (free some space or write elsewhere)\n"
    )
    res = subprocess.run(
        [*CLI, "dedup", str(src), "-o", str(src / "x"), "-j", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_unreadable_folder_is_reported_not_skipped_injected(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    real_scandir = os.scandir

    def denied(path: str | os.PathLike[str] = ".") -> object:
        if Path(path) == secret:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", denied)
    code, _, err = run(["fingerprint", str(tmp_path)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{secret}: cannot read this directory (Permission denied)" in err


def test_unwritable_output_folder_gives_one_line_exit_2_injected(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def denied(*args: object, dir: str | None = None, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/.out.jsonl.xyz.tmp")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    code, _, err = run(["dedup", str(src), "-o", str(tmp_path / "ro" / "out.jsonl"), "-j", "1"], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"{tmp_path / 'ro' / 'out.jsonl'}: Permission denied (check the permissions" in err
