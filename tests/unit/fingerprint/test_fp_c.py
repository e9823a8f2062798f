"""The C kernels (``_fp_c``, built at install) give the numba kernels' results bit for bit:
normalization, shingle SimHash, weighted SimHash (all paths: per occurrence, top-n, levels, binary)
and XXH3, on random texts over the characters the kernels treat apart and on the corpora."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
import xxhash

from neardup.fingerprint import _fast, _fast_numba, _kernels_numba
from neardup.fingerprint._xxh3 import secret
from neardup_testing import corpus_texts

_fp_c = pytest.importorskip("neardup.fingerprint._fp_c", reason="the C extension is not built here")

# ASCII upper and lower case, digits, every kind of space, full-width forms (compat_map), letters
# with case beyond ASCII, combining marks, Hangul jamo, CJK, characters beyond the BMP, a surrogate
_ALPHABET = list(
    "aZ09 .,!?\t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2000\u200a\u2028\u202f\u205f\u3000"
    "ＡＢａ０１，。！？一中国人民龘ㄅ가\u1161\u11a8éÉßΣσ€\u0301\u0308ﬁ㎏①½😀𠀀\ud800"
)


def _random_texts(k: int, seed: int, longest: int = 200) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(_ALPHABET, k=rng.randint(0, longest))) for _ in range(k)]


TEXTS = _random_texts(2_000, seed=25) + corpus_texts(500)


def test_xxh3_equals_the_xxhash_package_up_to_240_bytes() -> None:
    rng = random.Random(3)
    for n in range(0, 262):
        data = bytes(rng.randrange(256) for _ in range(n))
        want = xxhash.xxh3_64_intdigest(data) if n <= 240 else None
        assert _fp_c.xxh3_small(data) == want, n


def test_normalize_kernel_equals_numba() -> None:
    cps, offsets = _fast.to_codepoints(TEXTS)
    got = _fast._normalize_kernel(cps, offsets)
    want = _fast_numba._normalize_kernel(cps, offsets, _fast.char_table(), *_fast.map_table())
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert np.array_equal(g, w)


@pytest.mark.parametrize(
    ("n", "step", "bits", "binary"),
    [(4, 1, 64, False), (5, 5, 64, True), (3, 2, 32, True), (1, 1, 7, False), (90, 90, 64, False)],
)
def test_shingle_kernel_equals_numba(n: int, step: int, bits: int, binary: bool) -> None:
    cps, offsets = _fast.normalize_batch(TEXTS, as_codepoints=True)
    got = _fast.shingle_fingerprints(cps, offsets, n, step, bits, binary)
    want = _fast_numba._shingle_kernel(cps, offsets, _fast.char_table(), n, step, bits, binary, secret())
    assert np.array_equal(got[1], want[1])
    assert np.array_equal(got[0], want[0])
    assert not got[1].all() and got[1].any()  # both the kernel's and the reference path's documents


def _random_features(seed: int, nd: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    nv = 300
    vh = rng.integers(0, 2**64, nv, dtype=np.uint64, endpoint=False)
    vh[:20] = vh[20:40]  # hash collisions between distinct features: ties broken the same way
    vw = rng.integers(-3, 5, nv).astype(np.int64) * (1 << 16) + rng.integers(0, 3, nv)
    vw[rng.random(nv) < 0.3] = 1 << 16  # many equal weights: ties at the top-n cut
    lens = rng.integers(0, 60, nd)
    offsets = np.zeros(nd + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    ids = rng.integers(0, nv, int(offsets[-1])).astype(np.int64)
    top = rng.integers(0, 12, nd).astype(np.int64)
    return ids, offsets, vh, vw, top


@pytest.mark.parametrize("bits", [64, 32, 6])
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("levels", [0, 3])
@pytest.mark.parametrize("with_top", [False, True])
def test_batch_fingerprints_equal_numba(bits: int, binary: bool, levels: int, with_top: bool) -> None:
    ids, offsets, vh, vw, top = _random_features(bits + 7 * binary + levels, 400)
    if not with_top:
        top[:] = 0
    got = np.empty(offsets.shape[0] - 1, np.uint64)
    _fp_c.batch_fingerprints_into(ids, offsets, vh, vw, bits, binary, top, levels, got)
    want = _kernels_numba.batch_fingerprints(ids, offsets, vh, vw, bits, binary, top, levels)
    assert np.array_equal(got, want)


def test_accumulate_and_sums_to_fp_equal_numba() -> None:
    from neardup.fingerprint import _kernels

    rng = np.random.default_rng(5)
    for bits in (1, 6, 32, 64):
        hs = rng.integers(0, 2**64, 500, dtype=np.uint64, endpoint=False)
        ws = rng.integers(-(2**40), 2**40, 500).astype(np.int64)
        sums = _kernels.accumulate(hs, ws, bits)
        assert np.array_equal(sums, _kernels_numba.accumulate(hs, ws, bits))
        assert int(_kernels.sums_to_fp(sums)) == int(_kernels_numba.sums_to_fp(sums))


def test_majority_bits_equals_numba() -> None:
    rng = np.random.default_rng(9)
    for total in (0, 1, 2, 254, 255, 256, 511, 1000):
        hs = rng.integers(0, 2**64, total, dtype=np.uint64, endpoint=False)
        hs[: total // 3] |= np.uint64(0xF0F0)  # bits near the majority line
        for bits in (64, 33):
            assert _fp_c.majority_bits(hs, bits) == int(_fast_numba.majority_bits(hs, bits))


def test_bad_buffers_raise_instead_of_overrunning() -> None:
    cps, offsets = _fast.to_codepoints(["abc", "de"])
    with pytest.raises(TypeError):  # int32 offsets
        _fp_c.shingle_into(
            cps,
            offsets.astype(np.int32),
            _fast.char_table(),
            2,
            1,
            64,
            False,
            np.empty(2, np.uint64),
            np.empty(2, np.bool_),
        )
    with pytest.raises(ValueError):  # an output too short
        _fp_c.shingle_into(
            cps, offsets, _fast.char_table(), 2, 1, 64, False, np.empty(1, np.uint64), np.empty(2, np.bool_)
        )
    with pytest.raises(ValueError):  # offsets past the code points
        _fp_c.shingle_into(
            cps,
            offsets + 1,
            _fast.char_table(),
            2,
            1,
            64,
            False,
            np.empty(2, np.uint64),
            np.empty(2, np.bool_),
        )
    with pytest.raises(BufferError):  # a read-only output
        _fp_c.accumulate_into(np.zeros(1, np.uint64), np.zeros(1, np.int64), 64, b"\0" * 512)
    ids = np.array([0, 5], np.int64)
    with pytest.raises(ValueError):  # a feature id past the vocabulary
        _fp_c.batch_fingerprints_into(
            ids,
            np.array([0, 2], np.int64),
            np.zeros(3, np.uint64),
            np.ones(3, np.int64),
            64,
            False,
            np.zeros(1, np.int64),
            0,
            np.empty(1, np.uint64),
        )


def test_fingerprints_run_without_importing_numba() -> None:
    """With the extension built, SimHash (words and shingles) neither compiles nor imports numba."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from neardup.config import SimHashConfig\n"
        "from neardup.fingerprint.simhash import SimHasher, simhash_from_features\n"
        "texts = ['长江是中华民族的母亲河。', 'The cat sat on the mat.'] * 3\n"
        "SimHasher().fingerprint_many(texts)\n"
        "SimHasher(SimHashConfig(features='shingles')).fingerprint_many(texts)\n"
        "SimHasher(SimHashConfig(top_n=3, levels=2)).fingerprint_many(texts)\n"
        "simhash_from_features({'a': 1.0, 'b': 2.0})\n"
        "print('numba' in sys.modules)\n"
    )
    env = {**os.environ, "NEARDUP_JIT": "always"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"
