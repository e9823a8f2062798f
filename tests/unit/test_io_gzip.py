"""A gzip input is inflated by the system's gzip in a process of its own (or, without one, by a
thread ahead of the reader): the same lines as ``gzip.open`` gives, the lines before a break in the
stream and then the read error, and a reader that stops early leaves no process or thread behind."""

from __future__ import annotations

import gzip
import json
import os
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import neardup.io as nio
from neardup.exceptions import InputError
from neardup.io import _lines, iter_records


@pytest.fixture(params=["process", "thread"], autouse=True)
def inflater(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test with the system's gzip and with the thread used where there is none."""
    if request.param == "process" and nio._gzip_program() is None:
        pytest.skip("no gzip program on this machine")
    if request.param == "thread":
        monkeypatch.setattr(nio, "_gzip_program", lambda: None)
    yield request.param


def _write(path: Path, n: int) -> list[bytes]:
    rng = random.Random(3)
    han = [chr(c) for c in range(0x4E00, 0x9FA5)]
    lines = [
        json.dumps({"id": str(i), "text": "".join(rng.choices(han, k=400))}, ensure_ascii=False).encode()
        + b"\n"
        for i in range(n)
    ]
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.writelines(lines)
    return lines


def test_lines_are_gzip_opens_over_many_pieces(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    lines = _write(path, 6000)  # about 7 MB inflated: pieces of 1 MB, several queued
    assert [raw for _, raw in _lines(path)] == lines
    assert [r.id for r in iter_records([path])] == [str(i) for i in range(6000)]


def test_a_broken_stream_gives_the_lines_before_it_then_the_error(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    lines = _write(path, 6000)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    got: list[bytes] = []
    with pytest.raises(InputError, match=r"cannot read: (Compressed file ended|the gzip stream is broken)"):
        for _, raw in _lines(cut):
            got.append(bytes(raw))
    want: list[bytes] = []
    with gzip.open(cut, "rb") as f, pytest.raises(EOFError):
        for raw in f:
            want.append(raw)
    assert got == want and 1000 < len(got) < len(lines)


def test_a_reader_that_stops_early_leaves_no_thread_or_process(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    _write(path, 6000)
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    before = children.read_text().split() if children.exists() else []
    it = _lines(path)
    next(it)
    it.close()
    assert not [t for t in threading.enumerate() if t.name == "neardup-gunzip"]
    if children.exists():  # Linux: the gzip child was killed and reaped (no zombie left)
        assert children.read_text().split() == before


def test_a_file_that_is_not_gzip_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "plain.jsonl.gz"
    path.write_bytes(b'{"id": "1", "text": "not compressed"}\n')
    with pytest.raises(InputError, match=r"plain\.jsonl\.gz: cannot read"):
        list(iter_records([path]))


def test_a_missing_file_fails_before_any_process_starts(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(iter_records([tmp_path / "missing.jsonl.gz"]))
