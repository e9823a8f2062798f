"""File snapshots of the memory store: a damaged header or an inconsistent counter is refused."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from neardup.exceptions import FormatError
from neardup.stores import open_store
from neardup.stores.memory import MAGIC, load_snapshot


def _snapshot(path: Path) -> None:
    with open_store(f"file://{path}") as s:
        s.assign_many([[10, 11], [12], [11, 13]])


def _rewrite_header(path: Path, edit: dict[str, object], version: int | None = None) -> None:
    data = path.read_bytes()
    old_version, hlen = struct.unpack("<II", data[8:16])
    header = json.loads(data[16 : 16 + hlen])
    header.update(edit)
    raw = json.dumps(header, sort_keys=True).encode()
    v = old_version if version is None else version
    path.write_bytes(MAGIC + struct.pack("<II", v, len(raw)) + raw + data[16 + hlen :])


def test_snapshot_with_an_edited_id_counter_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    _snapshot(path)
    before = path.read_bytes()
    _rewrite_header(path, {"counters": {"ids": 1}})  # the next id would reuse group 2
    with pytest.raises(FormatError, match=r"header is damaged \(checksum mismatch\)"):
        open_store(f"file://{path}")
    assert path.read_bytes() != before  # refused, not replaced


def test_version_1_snapshot_is_read_but_an_inconsistent_counter_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    _snapshot(path)
    _rewrite_header(path, {"header_checksum": None}, version=1)  # what neardup 0.1 wrote
    state = load_snapshot(path)
    assert state.counters["ids"] == 2 and len(state.kv) == 4
    _rewrite_header(path, {"counters": {"ids": 1}}, version=1)
    with pytest.raises(FormatError, match=r"id counter \(1\) is behind the ids in use \(up to 2\)"):
        load_snapshot(path)


def test_snapshot_header_missing_a_field_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    _snapshot(path)
    data = path.read_bytes()
    _, hlen = struct.unpack("<II", data[8:16])
    header = json.loads(data[16 : 16 + hlen])
    del header["groups"]
    raw = json.dumps(header, sort_keys=True).encode()
    path.write_bytes(MAGIC + struct.pack("<II", 1, len(raw)) + raw + data[16 + hlen :])
    with pytest.raises(FormatError, match="KeyError"):
        load_snapshot(path)
