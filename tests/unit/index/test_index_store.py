"""save/open: round trips (plain and compressed), damaged and foreign files are refused."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.exceptions import ConfigError, FormatError
from neardup.index import HammingIndex
from neardup.index.codec import decode_table, encode_table, huffman_lengths
from neardup.index.store import FORMAT_VERSION, read_header


def _index(n=3000, seed=0, design="auto", bits=64):
    rng = np.random.default_rng(seed)
    hi = 2**bits
    fps = rng.integers(0, hi, n, dtype=np.uint64) if bits == 64 else rng.integers(0, hi, n).astype(np.uint64)
    fps[10:20] = fps[3]  # duplicates
    fps[20:30] = fps[4] ^ np.uint64(0b111)  # at distance 3
    idx = HammingIndex(bits=bits, design=design, metadata={"simhash": {"bits": bits, "hash": "xxh3"}})
    idx.add_many(np.arange(n, dtype=np.int64) * 2, fps)
    return idx, fps


def _queries(fps, bits=64, seed=1):
    rng = np.random.default_rng(seed)
    q = fps[rng.integers(0, len(fps), 500)].copy()
    for _ in range(2):
        q ^= np.uint64(1) << rng.integers(0, bits, 500).astype(np.uint64)
    return q


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("compress", "codec"), [(False, "gap"), (True, "gap"), (True, "xor")])
@pytest.mark.parametrize(("design", "bits"), [("4x16", 64), ("16,12,12,12,12", 64), ("4x8", 32)])
def test_index_save_open_round_trip(tmp_path, compress, codec, design, bits):
    idx, fps = _index(design=design, bits=bits)
    idx.remove(0)
    q = _queries(fps, bits)
    want_q, want_p = idx.query_many(q), idx.pairs()
    path = tmp_path / "a.ndx"
    idx.save(path, compress=compress, block_size=32, codec=codec)
    got = HammingIndex.open(path)
    assert len(got) == len(idx) and got.metadata == idx.metadata and got.design == idx.design
    assert _same(got.query_many(q), want_q)
    assert _same(got.pairs(), want_p)
    assert 0 not in got and 2 in got
    # writes after opening: buffer, tombstones, save again
    got.add(10**9, int(fps[5]))
    got.remove(2)
    assert got.query(int(fps[5]))[0] == (10**9, 0) or got.query(int(fps[5]))[0][1] == 0
    got.save(tmp_path / "b.ndx", compress=compress)
    again = HammingIndex.open(tmp_path / "b.ndx")
    assert 10**9 in again and 2 not in again and len(again) == len(idx)


def test_index_header_is_documented_and_versioned(tmp_path):
    idx, _ = _index(100)
    idx.save(tmp_path / "x.ndx")
    h = read_header(tmp_path / "x.ndx")
    assert h["version"] == FORMAT_VERSION and h["bits"] == 64 and h["max_distance"] == 3
    assert h["blocks"] == [16, 16, 16, 16] and h["metadata"]["simhash"]["hash"] == "xxh3"
    assert set(h["arrays"]) == {"hi", "lo", "offsets", "ids"} and h["layout"] == "residual"


def _write_v1(path, idx):
    """A version-1 file: full 64-bit sorted tables and int64 ids (layout "tables")."""
    import json

    import xxhash

    from neardup.index.segments import wide_table
    from neardup.index.store import MAGIC

    seg = idx._segments[0]
    fps = seg.fps()
    tables = np.stack([wide_table(seg.kern, fps, t) for t in range(idx.design.n_tables)])
    arrays = {"tables": tables, "offsets": np.zeros((idx.design.n_tables, 3), dtype=np.int64), "ids": seg.ids}
    arrays["ids"] = np.asarray(arrays["ids"], dtype=np.int64)
    specs, pos = {}, 8192
    for name, a in arrays.items():
        specs[name] = {
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "nbytes": int(a.nbytes),
            "offset": pos,
            "xxh3": xxhash.xxh3_64_hexdigest(np.ascontiguousarray(a).data),
        }
        pos = (pos + a.nbytes + 4095) // 4096 * 4096
    d = idx.design
    header = {
        "format": "neardup-hamming-index",
        "version": 1,
        "bits": d.bits,
        "max_distance": d.max_distance,
        "blocks": list(d.blocks),
        "count": len(idx),
        "layout": "tables",
        "layout_params": {"pbits": 1},
        "metadata": idx.metadata,
        "arrays": specs,
    }
    blob = json.dumps(header).encode()
    data = bytearray(pos)
    data[:24] = struct.pack("<8sIIQ", MAGIC, 1, len(blob), xxhash.xxh3_64_intdigest(blob))
    data[24 : 24 + len(blob)] = blob
    for name, a in arrays.items():
        data[specs[name]["offset"] : specs[name]["offset"] + a.nbytes] = a.tobytes()
    path.write_bytes(bytes(data))


def test_index_version_1_file_opens_and_answers_the_same(tmp_path):
    idx, fps = _index(3000)
    idx.compact()
    _write_v1(tmp_path / "v1.ndx", idx)
    old = HammingIndex.open(tmp_path / "v1.ndx")
    q = _queries(fps)
    assert _same(old.query_many(q), idx.query_many(q)) and _same(old.pairs(), idx.pairs())
    old.save(tmp_path / "v2.ndx")
    assert read_header(tmp_path / "v2.ndx")["version"] == FORMAT_VERSION


def test_index_empty_round_trip(tmp_path):
    HammingIndex().save(tmp_path / "e.ndx")
    e = HammingIndex.open(tmp_path / "e.ndx")
    assert len(e) == 0 and e.query(5) == []


def _corrupt(path, offset, value=b"\xff"):
    data = bytearray(path.read_bytes())
    data[offset] ^= value[0]
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("compress", [False, True])
def test_index_damaged_array_is_refused(tmp_path, compress):
    idx, _ = _index(2000)
    p = tmp_path / "d.ndx"
    idx.save(p, compress=compress)
    spec = next(iter(read_header(p)["arrays"].values()))
    _corrupt(p, spec["offset"] + 100)
    with pytest.raises(FormatError, match="damaged"):
        HammingIndex.open(p)


def test_index_damaged_header_foreign_version_truncated_are_refused(tmp_path):
    idx, _ = _index(500)
    p = tmp_path / "h.ndx"
    idx.save(p)
    good = p.read_bytes()
    _corrupt(p, 40)
    with pytest.raises(FormatError, match="header is damaged"):
        HammingIndex.open(p)
    p.write_bytes(good[:8] + struct.pack("<I", FORMAT_VERSION + 1) + good[12:])
    with pytest.raises(FormatError, match=r"version .*rebuild the index"):
        HammingIndex.open(p)
    p.write_bytes(b"NOTANIDX" + good[8:])
    with pytest.raises(FormatError, match="not a neardup Hamming index"):
        HammingIndex.open(p)
    p.write_bytes(good[: len(good) // 2])
    with pytest.raises(FormatError, match="truncated"):
        HammingIndex.open(p)
    p.write_bytes(b"")
    with pytest.raises(FormatError, match="too short"):
        HammingIndex.open(p)
    with pytest.raises(FormatError):
        HammingIndex.open(tmp_path / "missing.ndx")


def test_index_save_is_atomic_leaves_no_temp_files(tmp_path):
    idx, _ = _index(100)
    idx.save(tmp_path / "a.ndx")
    idx.save(tmp_path / "a.ndx")
    assert [f.name for f in tmp_path.iterdir()] == ["a.ndx"]


def test_index_bad_block_size_and_codec():
    with pytest.raises(ConfigError, match="block_size"):
        HammingIndex().save("/tmp/never.ndx", block_size=1)
    with pytest.raises(ConfigError, match="codec"):
        HammingIndex().save("/tmp/never.ndx", codec="zip")


def test_index_compression_is_smaller_than_raw():
    rng = np.random.default_rng(3)
    v = np.sort(rng.integers(0, 2**64, 100_000, dtype=np.uint64))
    enc = encode_table(v, block_size=128)
    assert np.array_equal(decode_table(enc), v)
    assert enc.nbytes / len(v) < 6.5  # ~64 - 17 + 2 bits
    gap = encode_table(v, block_size=128, codec="gap")
    assert np.array_equal(decode_table(gap), v)
    assert gap.nbytes < enc.nbytes


def test_index_huffman_lengths_are_prefix_free_and_limited():
    counts = np.array([2**i for i in range(40)] + [0] * 25, dtype=np.int64)
    lens = huffman_lengths(counts, max_bits=12)
    used = lens[lens > 0].astype(float)
    assert lens.max() <= 12 and abs((2.0**-used).sum() - 1.0) < 1e-9


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    vals=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=300),
    dup=st.integers(0, 20),
    block=st.sampled_from([2, 3, 16, 64]),
    codec=st.sampled_from(["xor", "gap"]),
)
def test_index_codec_round_trips(vals, dup, block, codec):
    v = np.sort(np.array(vals + vals[:dup], dtype=np.uint64))
    assert np.array_equal(decode_table(encode_table(v, block_size=block, codec=codec)), v)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fps=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
    flips=st.lists(st.tuples(st.integers(0, 39), st.lists(st.integers(0, 63), max_size=4)), max_size=30),
    design=st.sampled_from(["4x16", "16,12,12,12,12", "11,11,11,11,10,10"]),
    codec=st.sampled_from(["xor", "gap"]),
)
def test_index_compressed_queries_match_plain(tmp_path_factory, fps, flips, design, codec):
    base = list(fps)
    for src, bitlist in flips:
        f = base[src % len(base)]
        for b in bitlist:
            f ^= 1 << b
        base.append(f)
    arr = np.array(base, dtype=np.uint64)
    idx = HammingIndex(64, 3, design)
    idx.add_many(np.arange(len(arr)), arr)
    p = tmp_path_factory.mktemp("c") / "c.ndx"
    idx.save(p, compress=True, block_size=4, codec=codec)
    c = HammingIndex.open(p)
    assert _same(c.query_many(arr), idx.query_many(arr))


@pytest.mark.parametrize("base", [0, 2**40, -(2**35)])
def test_index_ids_beyond_int32_keep_their_values(tmp_path, base):
    rng = np.random.default_rng(9)
    fps = rng.integers(0, 2**64, 5000, dtype=np.uint64)
    fps[1] = fps[0] ^ np.uint64(6)
    ids = base + np.arange(5000, dtype=np.int64) * 3
    idx = HammingIndex(design="4x16")
    idx.add_many(ids, fps)
    seg = idx._segments[0]
    assert seg.ids.dtype == (np.int32 if base == 0 else np.int64)
    assert idx.query(int(fps[0]))[:2] == [(int(ids[0]), 0), (int(ids[1]), 2)]
    a, b, _ = idx.pairs()
    assert (int(ids[0]), int(ids[1])) in set(zip(a.tolist(), b.tolist(), strict=True))
    idx.save(tmp_path / "i.ndx")
    back = HammingIndex.open(tmp_path / "i.ndx")
    assert np.array_equal(np.sort(back.ids()), np.sort(ids)) and back.ids().dtype == np.int64
