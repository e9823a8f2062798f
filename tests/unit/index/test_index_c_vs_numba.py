"""The C kernels (``_index_c``) give what the numba kernels give, on random inputs.

Each kernel is called through both implementations with the same arguments; outputs must be
equal bit for bit (the query kernels' matches as sets: the order in which a kernel reports them is
not part of the contract, the index sorts them). Then whole indexes (build, query, pairs, clusters,
compressed files) are compared with the numba kernels forced.
"""

from __future__ import annotations

import numpy as np
import pytest

from neardup.index import HammingIndex, kernels
from neardup.index.design import Design
from neardup.index.segments import Kernels, choose_pbits, known_bits, low_bits

_c = pytest.importorskip("neardup.index._index_c")

from neardup.index import _codec_nb, _kernels_nb, build, residual  # noqa: E402

DESIGNS = [
    ("4x16", 64, 3),
    ("16,12,12,12,12", 64, 3),
    ("11,11,11,11,10,10", 64, 3),
    ("4x8", 32, 3),
    ("8,6,6,6,6", 32, 3),
]


def _fps(rng: np.random.Generator, n: int, bits: int, near: int, k: int) -> np.ndarray:
    hi = 2**bits
    base = (
        rng.integers(0, hi, size=n, dtype=np.uint64)
        if bits == 64
        else rng.integers(0, hi, size=n).astype(np.uint64)
    )
    out = [base]
    if n and near:
        picks = base[rng.integers(0, n, size=near)].copy()
        for i in range(near):
            for b in rng.choice(bits, size=int(rng.integers(0, k + 2)), replace=False):
                picks[i] ^= np.uint64(1) << np.uint64(b)
        out.append(picks)
        out.append(base[rng.integers(0, n, size=near // 4 + 1)])  # exact duplicates
    return np.concatenate(out)


def _outs(cap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.empty(cap, dtype=np.int64) for _ in range(3))  # type: ignore[return-value]


def _both(fn_c, fn_nb, args, cap):
    oc, on = _outs(cap), _outs(cap)
    nc = fn_c(*args, oc)
    nn = fn_nb(*args, on)
    assert nc == nn
    assert nc <= cap
    return tuple(o[:nc] for o in oc), tuple(o[:nn] for o in on)


def _triples(o):
    return sorted(zip(*(a.tolist() for a in o), strict=True))


@pytest.fixture(params=range(3))
def seed(request) -> int:
    return int(request.param)


@pytest.mark.parametrize(("spec", "bits", "k"), DESIGNS)
def test_build_tables_equal(spec, bits, k, seed):
    rng = np.random.default_rng(seed)
    kern = Kernels(Design.parse(spec, bits=bits, max_distance=k))
    d = kern.design
    for n in (0, 1, 17, 3000):
        fps = _fps(rng, n, bits, n // 5, k)
        n = fps.shape[0]
        ids = rng.permutation(n).astype(np.int64) * 7 - 3
        for pbits in {choose_pbits(n, d), min(*d.key_bits, 17), 1}:  # narrow and wide builds
            lobits = low_bits(bits, pbits)
            ts = np.arange(d.n_tables, dtype=np.int64)
            for id_dtype, off_dtype, lo_dtype in (
                (np.int32, np.int32, np.uint16),
                (np.int64, np.int64, np.uint32),
            ):
                res = []
                for fn in (_c.build_tables, build.build_tables):
                    hi = np.zeros((d.n_tables, n), dtype=np.uint32)
                    lo = np.zeros(n if lobits else 0, dtype=lo_dtype if lobits <= 16 else np.uint32)
                    off = np.zeros((d.n_tables, (1 << pbits) + 1), dtype=off_dtype)
                    ids0 = np.zeros(n, dtype=id_dtype)
                    fn(
                        fps,
                        ids,
                        kern.perm,
                        ts,
                        (bits, pbits, lobits),
                        hi,
                        lo,
                        ids0,
                        off,
                        np.empty(n, np.uint64),
                    )
                    res.append((hi, lo, off, ids0))
                for a, b in zip(*res, strict=True):
                    np.testing.assert_array_equal(a, b)


def test_build_tables_wide_directory():
    """A directory wider than the radix pass (pbits > 16) takes the full-width sorts."""
    rng = np.random.default_rng(5)
    kern = Kernels(Design.parse("16,12,12,12,12", bits=64, max_distance=3))
    d = kern.design
    fps = _fps(rng, 5000, 64, 1000, 3)
    fps[:300] = fps[:300] & np.uint64(0xFFFF_FFFF_0000_0000) | np.uint64(7)  # runs equal above the low bits
    n = fps.shape[0]
    ids = rng.permutation(n).astype(np.int64)
    pbits = 17
    lobits = low_bits(64, pbits)
    res = []
    for fn in (_c.build_tables, build.build_tables):
        hi = np.zeros((d.n_tables, n), dtype=np.uint32)
        lo = np.zeros(n, dtype=np.uint32)
        off = np.zeros((d.n_tables, (1 << pbits) + 1), dtype=np.int64)
        ids0 = np.zeros(n, dtype=np.int64)
        fn(
            fps,
            ids,
            kern.perm,
            np.arange(d.n_tables),
            (64, pbits, lobits),
            hi,
            lo,
            ids0,
            off,
            np.empty(n, np.uint64),
        )
        res.append((hi, lo, off, ids0))
    for a, b in zip(*res, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sbits", [1, 8, 16])
def test_sorts_equal(sbits, seed):
    rng = np.random.default_rng(seed)
    kern = Kernels(Design.parse("4x16", bits=64, max_distance=3))
    fps = _fps(rng, 4000, 64, 800, 3)
    fps[:500] = (fps[:500] & np.uint64(0xFFFF_FF00_0000_0000)) | rng.integers(0, 50, 500).astype(np.uint64)
    ids = rng.permutation(fps.shape[0]).astype(np.int64)
    for t in range(4):
        a = np.empty_like(fps)
        b = np.empty_like(fps)
        _c.permute_sorted(fps, kern.perm, t, sbits, 64, a)
        _kernels_nb.permute_sorted(fps, kern.perm, t, sbits, 64, b)
        np.testing.assert_array_equal(a, b)
    out = [np.empty_like(fps), np.empty_like(fps)]
    oid = [np.empty(fps.shape[0], np.int64), np.empty(fps.shape[0], np.int64)]
    _c.sorted_with_ids(fps, ids, sbits, 64, out[0], oid[0])
    _kernels_nb.sorted_with_ids(fps, ids, sbits, 64, out[1], oid[1])
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_array_equal(oid[0], oid[1])
    np.testing.assert_array_equal(out[0], np.sort(fps))


@pytest.mark.parametrize(("spec", "bits", "k"), DESIGNS)
def test_query_and_self_join_equal(spec, bits, k, seed):
    rng = np.random.default_rng(100 + seed)
    kern = Kernels(Design.parse(spec, bits=bits, max_distance=k))
    d = kern.design
    fps = _fps(rng, 2500, bits, 1500, k)
    n = fps.shape[0]
    ids = np.arange(n, dtype=np.int64)
    pbits = choose_pbits(n, d)
    lobits = low_bits(bits, pbits)
    hi = np.zeros((d.n_tables, n), dtype=np.uint32)
    lo = np.zeros(n if lobits else 0, dtype=np.uint16 if lobits <= 16 else np.uint32)
    off = np.zeros((d.n_tables, (1 << pbits) + 1), dtype=np.int32)
    ids0 = np.zeros(n, dtype=np.int32)
    build.build_tables(
        fps,
        ids,
        kern.perm,
        np.arange(d.n_tables),
        (bits, pbits, lobits),
        hi,
        lo,
        ids0,
        off,
        np.empty(n, np.uint64),
    )
    q = np.concatenate([_fps(rng, 300, bits, 0, k), fps[rng.integers(0, n, 300)] ^ np.uint64(5)])
    dead = (rng.random(n) < 0.1).astype(np.uint8)
    for kq in range(k + 1):
        for dd in (np.zeros(0, np.uint8), dead):
            for qq in (q, q[:3]):  # a batch (directory sweep) and a few queries
                args = (
                    qq,
                    kq,
                    (hi, lo, off),
                    kern.keybits,
                    (bits, pbits, lobits),
                    known_bits(kern, pbits),
                    kern.perm,
                    kern.blocks,
                    dd,
                )
                rc, rn = _both(_c.query_residual, residual.query_residual, args, 20 * qq.shape[0] + 64)
                assert _triples(rc) == _triples(rn)
                assert len(rc[0]) > 0 or qq.shape[0] < 10 or kq < 2
            # the self-join over full-width tables: same algorithm, same order
            sfps = np.sort(fps)
            tabs = np.empty((d.n_tables, n), dtype=np.uint64)
            for t in range(d.n_tables):
                _kernels_nb.permute_sorted(sfps, kern.perm, t, min(pbits, 16), bits, tabs[t])
            off0 = _kernels_nb.prefix_offsets(tabs[0], bits - pbits, 1 << pbits)[None, :]
            off0c = np.empty(off0.shape[1], np.int64)
            _c.prefix_offsets(tabs[0], bits - pbits, 1 << pbits, off0c)
            np.testing.assert_array_equal(off0c, off0[0])
            args = (kq, tabs, kern.keybits, bits, pbits, off0, kern.perm, kern.blocks, dd)
            rc, rn = _both(_c.self_join_tables, _kernels_nb.self_join_tables, args, 40 * n)
            for a, b in zip(rc, rn, strict=True):
                np.testing.assert_array_equal(a, b)
        # the brute-force buffer scan
        args = (q, kq, fps[:200])
        rc, rn = _both(_c.query_brute, _kernels_nb.query_brute, args, 40 * q.shape[0])
        for a, b in zip(rc, rn, strict=True):
            np.testing.assert_array_equal(a, b)
    # join_table0 and split_table
    np.testing.assert_array_equal(
        kernels.join_table0(hi, lo, off, lobits, bits - pbits),
        residual.join_table0(hi, lo, off, lobits, bits - pbits),
    )
    sv = np.sort(fps)
    got = []
    for fn in (_c.split_table, residual.split_table):
        h = np.zeros(n, np.uint32)
        lw = np.zeros(n if lobits else 0, np.uint32)
        of = np.zeros((1 << pbits) + 1, np.int64)
        fn(sv, lobits, bits - pbits, h, lw, of)
        got.append((h, lw, of))
    for a, b in zip(*got, strict=True):
        np.testing.assert_array_equal(a, b)


def test_grow_call_capacity_too_small_gives_the_count():
    """A kernel given too little room returns the full count and writes what fits."""
    rng = np.random.default_rng(3)
    fps = rng.integers(0, 2**63, 50, dtype=np.int64).astype(np.uint64)
    q = np.repeat(fps[:3], 4)
    rc, rn = _outs(4), _outs(4)
    assert _c.query_brute(q, 64, fps, rc) == _kernels_nb.query_brute(q, 64, fps, rn) == 600
    for a, b in zip(rc, rn, strict=True):
        np.testing.assert_array_equal(a, b)


def test_order_union_find_star_equal(seed):
    rng = np.random.default_rng(200 + seed)
    for m, nq in ((0, 1), (50, 3), (5000, 40), (3000, 2)):  # groups short and long (> 32)
        qa = rng.integers(0, nq, m).astype(np.int64)
        da = rng.integers(0, 4, m).astype(np.int64)
        ia = rng.integers(0, 30, m).astype(np.int64)
        out = np.empty(m, np.int64)
        _c.order_matches(qa, da, ia, nq, out)
        np.testing.assert_array_equal(out, _kernels_nb.order_matches(qa, da, ia, nq))
    for n, e in ((1, 0), (10, 5), (2000, 1500), (2000, 6000)):
        a = rng.integers(0, n, e).astype(np.int64)
        b = rng.integers(0, n, e).astype(np.int64)
        out = np.empty(n, np.int64)
        _c.union_find_labels(n, a, b, out)
        np.testing.assert_array_equal(out, _kernels_nb.union_find_labels(n, a, b))
        deg = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
        order = np.lexsort((np.arange(n), -deg))
        _c.star_labels(n, a, b, order, out)
        np.testing.assert_array_equal(out, _kernels_nb.star_labels(n, a, b, order))


def test_union_find_rejects_nodes_out_of_range():
    with pytest.raises(IndexError):
        kernels.union_find_labels(3, np.array([0, 3]), np.array([1, 2]))


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("block", [2, 64, 128])
def test_codec_equal(mode, block, seed):
    from neardup.index.codec import canonical_codes, decode_lut, huffman_lengths

    rng = np.random.default_rng(300 + seed)
    kern = Kernels(Design.parse("4x16", bits=64, max_distance=3))
    fps = np.sort(_fps(rng, 3000, 64, 600, 3))
    c1 = np.empty(65, np.int64)
    raw_c = _c.symbols(fps, block, mode, c1)
    c2, raw_n = _codec_nb._symbols(fps, block, mode)
    np.testing.assert_array_equal(c1, c2)
    assert raw_c == raw_n
    lengths = huffman_lengths(c1)
    codes = canonical_codes(lengths)
    nb = (fps.shape[0] + block - 1) // block
    total = raw_c + int((c1 * lengths).sum())
    enc = []
    for fn in (_c.encode, _codec_nb._encode):
        w = np.zeros(total // 64 + 3, np.uint64)
        f = np.zeros(nb, np.uint64)
        s = np.zeros(nb, np.uint64)
        end = fn(fps, block, codes, lengths.astype(np.int64), w, 0, f, s, mode)
        enc.append((end, w, f, s))
    assert enc[0][0] == enc[1][0] == total
    for a, b in zip(enc[0][1:], enc[1][1:], strict=True):
        np.testing.assert_array_equal(a, b)
    _, w, f, s = enc[0]
    lut = decode_lut(lengths)[None, :]
    out = np.empty(fps.shape[0], np.uint64)
    _c.decode_all(w, f[None, :], s[None, :].view(np.int64), lut, 0, 12, block, fps.shape[0], mode, out)
    np.testing.assert_array_equal(out, fps)
    # query over compressed tables: through whole segments
    from neardup.index.codec import CompressedSegment
    from neardup.index.segments import Segment

    ids = np.arange(fps.shape[0], dtype=np.int64)
    seg = CompressedSegment.from_segment(
        Segment.build(kern, ids, fps), block_size=block, codec=("xor", "gap")[mode]
    )
    q = np.concatenate(
        [fps[:200] ^ np.uint64(3), rng.integers(0, 2**63, 100, dtype=np.int64).astype(np.uint64)]
    )
    d = kern.design
    seg.kill(np.arange(0, fps.shape[0], 11))
    args = (
        q,
        3,
        seg.words,
        seg.firsts,
        seg.starts,
        seg.lut,
        12,
        block,
        seg.n,
        seg.mode,
        kern.keybits,
        d.bits,
        kern.perm,
        kern.blocks,
        seg.dead,
    )
    rc, rn = _both(_c.query_compressed, _codec_nb.query_compressed, args, 40 * q.shape[0])
    assert _triples(rc) == _triples(rn)
    assert len(rc[0]) > 200


def _index_run(fps, ids, q, spec, k, bits):
    idx = HammingIndex(bits=bits, max_distance=k, design=spec, buffer_size=256)
    half = fps.shape[0] // 2
    idx.add_many(ids[:half], fps[:half])
    for i in range(half, half + 100):
        idx.add(int(ids[i]), int(fps[i]))
    idx.add_many(ids[half + 100 :], fps[half + 100 :])
    idx.remove_many(ids[::13])
    res = [idx.query_many(q)]
    res.append(idx.pairs())
    cl = idx.clusters()
    st = idx.clusters(method="star")
    res.append((np.array(sorted(cl.items())), np.array(sorted(st.items()))))
    return res


@pytest.mark.parametrize(("spec", "bits", "k"), DESIGNS)
def test_whole_index_equal(spec, bits, k, monkeypatch):
    rng = np.random.default_rng(7)
    fps = _fps(rng, 3000, bits, 2000, k)
    ids = rng.permutation(fps.shape[0]).astype(np.int64) * 5
    q = np.concatenate([_fps(rng, 200, bits, 0, k), fps[:300] ^ np.uint64(9)])
    with_c = _index_run(fps, ids, q, spec, k, bits)
    monkeypatch.setattr(kernels, "_c", None)
    with_nb = _index_run(fps, ids, q, spec, k, bits)
    for a, b in zip(with_c, with_nb, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_backend_is_c_and_numba_not_imported_by_a_query():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from neardup.index import HammingIndex\n"
        "idx = HammingIndex(bits=64, max_distance=3)\n"
        "f = np.arange(5000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)\n"
        "idx.add_many(np.arange(5000), f)\n"
        "assert idx.query(int(f[3]) ^ 1) == [(3, 1)]\n"
        "idx.pairs(); idx.clusters()\n"
        "from neardup.index import kernels\n"
        "print(kernels.BACKEND, 'numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["c", "False"]
