"""open_store: schemes, errors that name the store, and the memory snapshot file format."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from neardup.exceptions import ConfigError, FormatError, StoreError
from neardup.stores import SCHEMES, open_store
from neardup.stores.leveldb import LevelDBStore
from neardup.stores.memory import MAGIC, MemoryStore, load_snapshot


def test_unknown_scheme_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        open_store("mysql://host/db")
    for scheme in ("memory://", "file://", "leveldb://", "redis://"):
        assert scheme in str(err.value)


@pytest.mark.parametrize("bad", ["", "   ", 42])
def test_empty_or_non_string_url_is_a_config_error(bad: object) -> None:
    with pytest.raises(ConfigError):
        open_store(bad)  # type: ignore[arg-type]


def test_scheme_picks_the_backend(tmp_path: Path) -> None:
    assert isinstance(open_store("memory://"), MemoryStore)
    assert isinstance(open_store(f"file://{tmp_path}/s"), MemoryStore)
    with open_store(f"leveldb://{tmp_path}/db") as s:
        assert isinstance(s, LevelDBStore)
    assert "redis" in SCHEMES


def test_bare_path_means_a_snapshot_file(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "bare")) as s:
        s.put("a", 1)
    assert (tmp_path / "bare").exists()


def test_a_store_object_passes_through() -> None:
    s = open_store("memory://")
    assert open_store(s) is s


def test_snapshot_in_missing_directory_names_the_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_store(f"file://{tmp_path}/no/such/dir/snap")


def test_leveldb_that_cannot_be_opened_names_it(tmp_path: Path) -> None:
    url = f"leveldb://{tmp_path}/db"
    first = open_store(url)
    try:
        with pytest.raises(StoreError, match=r"cannot open store 'leveldb://.*db'.*one process"):
            open_store(url)  # LevelDB's LOCK: one process (and one handle) at a time
    finally:
        first.close()
    (tmp_path / "afile").write_text("x")
    with pytest.raises(StoreError, match="afile"):
        open_store(f"leveldb://{tmp_path}/afile")


def test_leveldb_store_refuses_pickling(tmp_path: Path) -> None:
    import pickle

    with open_store(f"leveldb://{tmp_path}/db") as s, pytest.raises(TypeError, match="redis"):
        pickle.dumps(s)


def test_snapshot_roundtrip_keeps_every_kind_of_key(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    with open_store(f"file://{path}") as s:
        s.assign_many([[1, "a"], [b"b"], ["a", b"b"]])
        s.put(2**64 - 1, -3)
        s.incr("other", 4)
        s.set_meta("k", "v")
        before = (dict(s.items()), dict(s.groups()), s.stats())
    with open_store(f"file://{path}") as s:
        assert (dict(s.items()), dict(s.groups()), s.stats()) == before
        assert s.incr("other") == 5
        assert s.get_meta("k") == "v"


def test_snapshot_write_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    s = open_store(f"file://{path}")
    s.put("a", 1)
    s.flush()
    first = path.read_bytes()
    s.put("b", 2)
    s.flush()
    assert path.read_bytes() != first
    assert sorted(os.listdir(tmp_path)) == ["snap"]
    assert path.read_bytes().startswith(MAGIC)
    s.close()


def test_unchanged_store_does_not_rewrite_its_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    with open_store(f"file://{path}") as s:
        s.put("a", 1)
    mtime = path.stat().st_mtime_ns
    with open_store(f"file://{path}") as s:
        s.get("a")
    assert path.stat().st_mtime_ns == mtime


def test_truncated_snapshot_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    with open_store(f"file://{path}") as s:
        s.assign_many([[i] for i in range(100)])
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    with pytest.raises(FormatError, match="damaged"):
        open_store(f"file://{path}")
    assert path.read_bytes() == data[:-10]


def test_flipped_byte_is_caught_by_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    with open_store(f"file://{path}") as s:
        s.assign_many([[i] for i in range(10)])
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="checksum"):
        load_snapshot(path)


def test_newer_snapshot_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    with open_store(f"file://{path}") as s:
        s.put("a", 1)
    data = bytearray(path.read_bytes())
    data[8:12] = struct.pack("<I", 99)
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="version 99"):
        open_store(f"file://{path}")


def test_not_a_snapshot_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap"
    path.write_bytes(b"\x80\x04 a pickle, say")
    with pytest.raises(FormatError, match="not a neardup store snapshot"):
        open_store(f"file://{path}")


def test_unclosed_snapshot_store_is_saved_when_collected(tmp_path: Path) -> None:
    import gc

    path = tmp_path / "snap"
    s = open_store(f"file://{path}")
    s.put("a", 1)
    del s
    gc.collect()
    with open_store(f"file://{path}") as s2:
        assert s2.get("a") == 1


def test_leveldb_newer_version_is_refused(tmp_path: Path) -> None:
    import plyvel

    db = plyvel.DB(str(tmp_path / "db"), create_if_missing=True)
    db.put(b"\x00version", b"9")
    db.close()
    with pytest.raises(FormatError, match="version 9"):
        open_store(f"leveldb://{tmp_path}/db")
