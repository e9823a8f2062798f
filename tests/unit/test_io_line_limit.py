"""Input lines are bounded: a line over the limit (64 MiB by default, NEARDUP_MAX_LINE_BYTES) is one
error naming the file and line, and is never held whole, even inside a small gzip."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.exceptions import ConfigError, InputError
from neardup.io import MAX_LINE_BYTES, ReadStats, iter_json_objects, iter_records, max_line_bytes

pytestmark = pytest.mark.timeout(240)


def _write(path: Path, lines: list[bytes]) -> None:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "wb") as fh:
        for line in lines:
            fh.write(line + b"\n")


def test_default_limit_is_64_mib_and_the_variable_sets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEARDUP_MAX_LINE_BYTES", raising=False)
    assert max_line_bytes() == MAX_LINE_BYTES == 64 << 20
    monkeypatch.setenv("NEARDUP_MAX_LINE_BYTES", "2K")
    assert max_line_bytes() == 2048
    monkeypatch.setenv("NEARDUP_MAX_LINE_BYTES", "lots")
    with pytest.raises(ConfigError, match="NEARDUP_MAX_LINE_BYTES"):
        max_line_bytes()


@pytest.mark.parametrize("name", ["in.jsonl", "in.jsonl.gz", "in.txt"])
def test_a_line_over_the_limit_names_file_and_line_and_can_be_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("NEARDUP_MAX_LINE_BYTES", "100")
    path = tmp_path / name
    ok = json.dumps({"id": "a", "text": "短"}).encode()
    exact = json.dumps({"id": "b", "text": "x" * (100 - 25)}).encode()
    exact += b" " * (100 - len(exact))  # exactly at the limit: read
    long = json.dumps({"id": "c", "text": "y" * 5000}).encode()
    _write(path, [ok, exact, long, ok])
    with pytest.raises(InputError) as info:
        list(iter_records([path]))
    assert str(info.value).startswith(f"{path}:3: is longer than 100 bytes"), info.value
    stats = ReadStats()
    got = list(iter_records([path], skip_bad=True, stats=stats))
    assert len(got) == 3 and stats.skipped == 1  # the line after it is read


def test_json_objects_reader_refuses_a_long_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_MAX_LINE_BYTES", "64")
    path = tmp_path / "rows.jsonl"
    _write(path, [b'{"a": 1}', b'{"a": "' + b"z" * 100 + b'"}'])
    with pytest.raises(InputError, match=r"rows.jsonl:2: is longer than 64 bytes"):
        list(iter_json_objects(path))


_MEASURE = r"""
import resource, sys
from neardup.exceptions import InputError
from neardup.io import iter_records
try:
    for _ in iter_records([sys.argv[1]]):
        pass
except InputError as exc:
    print(exc)
# the peak of this program's memory (VmHWM starts afresh at exec; ru_maxrss may keep the parent's)
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(int(hwm[0].split()[1]) // 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def test_a_gzip_holding_one_huge_line_is_refused_without_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "bomb.jsonl.gz"
    piece = b"abcdefghij" * (1 << 17)  # 1.25 MiB
    with gzip.open(path, "wb", compresslevel=1) as fh:
        fh.write(b'{"id": "ok", "text": "fine"}\n{"id": "big", "text": "')
        for _ in range(160):  # 200 MiB in one line
            fh.write(piece)
        fh.write(b'"}\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NEARDUP_MAX_LINE_BYTES="16M")
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)], env=env, capture_output=True, text=True, timeout=200
    )
    assert out.returncode == 0, out.stderr
    message, peak_mib = out.stdout.strip().splitlines()
    assert message.startswith(f"{path}:2: is longer than 16,777,216 bytes")
    assert int(peak_mib) < 150  # the line is 200 MiB: it was never held


def test_cli_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl.gz"
    _write(path, [json.dumps({"id": "a", "text": "x" * 3000}).encode()])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), NEARDUP_MAX_LINE_BYTES="1K")
    out = subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", "dedup", str(path), "-o", str(tmp_path / "out.jsonl")],
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"neardup: error: {path}:1: is longer than 1,024 bytes (a line holds one record); set "
        "NEARDUP_MAX_LINE_BYTES to read longer lines"
    ]
