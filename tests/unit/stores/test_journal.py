"""The framed journal: every record verified on replay, torn tails cut, failed appends undone."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from neardup.exceptions import FormatError, StoreError
from neardup.stores import journal as journal_mod
from neardup.stores.journal import Journal, header_bytes


def _write(path: Path, payloads: list[bytes]) -> None:
    with Journal(path, kind="test") as j:
        for p in payloads:
            j.append(p, sync=False)


def _read(path: Path) -> list[bytes]:
    with Journal(path, kind="test", create=False) as j:
        return [bytes(p) for _, p in j.replay()]


def test_journal_round_trip_and_sequence_numbers(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"a", b"", b"x" * 70_000])
    with Journal(path, kind="test") as j:
        assert j.count == 3
        assert j.append_many([b"d", b"e"]) == 4
    assert _read(path) == [b"a", b"", b"x" * 70_000, b"d", b"e"]


def test_journal_torn_tail_is_cut_off_at_every_length(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"one", b"two", b"three-is-longer"])
    full = path.read_bytes()
    good = len(full) - (24 + len(b"three-is-longer"))
    for cut in range(good + 1, len(full)):  # every prefix of the last record
        path.write_bytes(full[:cut])
        assert _read(path) == [b"one", b"two"], cut
        assert path.stat().st_size == good  # repaired on disk
    with Journal(path, kind="test") as j:
        j.append(b"after")
    assert _read(path) == [b"one", b"two", b"after"]


@pytest.mark.parametrize("where", ["frame", "payload"])
def test_journal_flipped_byte_in_a_middle_record_is_refused(tmp_path: Path, where: str) -> None:
    path = tmp_path / "j"
    _write(path, [b"alpha", b"https://a.example/1", b"omega"])
    data = bytearray(path.read_bytes())
    second = header_bytes("test") + 24 + 5  # start of record 1
    data[second + (2 if where == "frame" else 24 + 9)] ^= 0x20  # one letter of the URL
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=rf"j: record 1 at byte {second} is damaged \({where}"):
        _read(path)
    assert path.read_bytes() == bytes(data)  # damage is reported, never "repaired"


def test_journal_damaged_length_of_a_middle_record_is_not_taken_for_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"a" * 10, b"b" * 10, b"c" * 10])
    data = bytearray(path.read_bytes())
    data[header_bytes("test") + 34 + 2] = 0x7F  # record 1's length now reaches past the end
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"record 1 .*frame checksum"):
        _read(path)


def test_journal_missing_or_repeated_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"r0", b"r1", b"r2"])
    data = path.read_bytes()
    h, size = header_bytes("test"), 24 + 2
    path.write_bytes(data[: h + size] + data[h + 2 * size :])  # record 1 cut out
    with pytest.raises(FormatError, match=r"record 1 .* numbered 2"):
        _read(path)
    path.write_bytes(data + data[h : h + size])  # record 0 appended again
    with pytest.raises(FormatError, match=r"record 3 .* numbered 0"):
        _read(path)


def test_journal_header_of_other_kind_version_or_damage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"x"])
    with pytest.raises(FormatError, match="'test' records, expected 'other'"), Journal(path, kind="other"):
        pass
    path.write_bytes(b'{"i": 1, "u": "https://a.example/"}\n')
    with pytest.raises(FormatError, match="is not a neardup journal"):
        _read(path)
    with pytest.raises(FormatError, match="missing"):
        Journal(tmp_path / "nope", kind="test", create=False)


def test_journal_failed_append_is_truncated_back_before_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j"
    _write(path, [b"kept"])
    j = Journal(path, kind="test")
    for _ in j.replay():
        pass
    before = path.stat().st_size
    real_write = os.write

    def half_then_enospc(fd: int, data: bytes) -> int:
        if fd == j._fd:
            real_write(fd, bytes(data[: len(data) // 2]))  # the disk fills part-way
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journal_mod.os, "write", half_then_enospc)
    with pytest.raises(StoreError, match="No space left"):
        j.append(b"refused" * 100)
    assert path.stat().st_size == before  # the partial record is gone
    monkeypatch.undo()
    assert j.append(b"acknowledged") == 1
    j.close()
    assert _read(path) == [b"kept", b"acknowledged"]


def test_journal_create_leaves_no_headless_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "fsync", no_space)
    with pytest.raises(OSError):
        Journal(tmp_path / "j", kind="test")
    assert not (tmp_path / "j").exists()


@pytest.mark.parametrize("lost", [1, 2])
def test_journal_tail_of_zeros_left_by_a_power_cut_is_cut_off(tmp_path: Path, lost: int) -> None:
    """The file's size reached the disk but the last records' blocks did not: zeros to the end."""
    path = tmp_path / "j"
    _write(path, [b"kept" * 200, b"a" * 300, b"b" * 3000])
    full = path.read_bytes()
    tail = 24 + 3000 if lost == 1 else 24 * 2 + 3300
    cut = len(full) - tail + 10  # a few bytes of the first lost record were written
    block = -(-cut // 512) * 512
    path.write_bytes(full[:block] + b"\0" * (len(full) - block))
    assert _read(path) == [b"kept" * 200, b"a" * 300][: 3 - lost]
    assert path.stat().st_size == len(full) - tail


def test_journal_zeros_followed_by_data_are_damage_not_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "j"
    _write(path, [b"kept" * 200, b"a" * 3000, b"b" * 300])
    full = bytearray(path.read_bytes())
    start = header_bytes("test") + 24 + 800
    full[start : start + 1024] = b"\0" * 1024  # a lost block in the middle, a written one after it
    path.write_bytes(bytes(full))
    with pytest.raises(FormatError, match="record 1 at byte"):
        _read(path)
