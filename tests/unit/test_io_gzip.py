"""A gzip input is inflated by a thread of its own ahead of the reader: the same lines as
``gzip.open`` gives, the lines before a break in the stream and then the read error, and a reader
that stops early leaves no thread behind."""

from __future__ import annotations

import gzip
import json
import random
import threading
from pathlib import Path

import pytest

from neardup.exceptions import InputError
from neardup.io import _lines, iter_records


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
    with pytest.raises(InputError, match="cannot read: Compressed file ended"):
        for _, raw in _lines(cut):
            got.append(bytes(raw))
    want: list[bytes] = []
    with gzip.open(cut, "rb") as f, pytest.raises(EOFError):
        for raw in f:
            want.append(raw)
    assert got == want and 1000 < len(got) < len(lines)


def test_a_reader_that_stops_early_leaves_no_thread(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    _write(path, 6000)
    it = _lines(path)
    next(it)
    it.close()
    assert not [t for t in threading.enumerate() if t.name == "neardup-gunzip"]
