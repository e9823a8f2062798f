from __future__ import annotations

import os

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.config import SimHashConfig
from neardup.fingerprint import _fast
from neardup.fingerprint._xxh3 import secret, xxh3_64
from neardup.fingerprint.simhash import SimHasher
from neardup.text.normalize import normalize

TRICKY = [
    "Ａ\u0301b",  # full-width letter + combining accent: composes after mapping
    "ΑΣ  Β",  # final sigma
    "\u3000\u0301x",
    "ℌello Ⅱ ℃ … ①",
    "e\u0301",
    "İstanbul",
    "😀 Hi 𝐀",  # beyond the BMP
    "\u00a0 a \u2028b\x1c",
    "",
    "   ",
    "ﬁ ǅ ｶﾀｶﾅ",
    "新闻联播，　ＣＣＴＶ：２０２４年",
]


def test_xxh3_numba_equals_xxhash_for_every_length_up_to_240() -> None:
    s = secret()
    for length in range(0, 241):
        data = os.urandom(length + 3)
        h, ok = xxh3_64(np.frombuffer(data, np.uint8).copy(), 3, length, s)
        assert ok and int(h) == xxhash.xxh3_64_intdigest(data[3:]), length
    assert not xxh3_64(np.zeros(300, np.uint8), 0, 241, s)[1]


def test_normalize_batch_equals_normalize_on_tricky_text() -> None:
    assert _fast.normalize_batch(TRICKY) == [normalize(t) for t in TRICKY]
    cps, off = _fast.normalize_batch(TRICKY, as_codepoints=True)
    joined = cps.tobytes().decode("utf-32-le")
    assert [joined[off[i] : off[i + 1]] for i in range(len(TRICKY))] == [normalize(t) for t in TRICKY]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6))
def test_normalize_batch_equals_normalize_on_any_text(texts: list[str]) -> None:
    assert _fast.normalize_batch(texts) == [normalize(t) for t in texts]


def _reference(cfg: SimHashConfig) -> SimHasher:
    h = SimHasher(cfg)
    h._shingle_fast = False  # force the token path
    return h


@pytest.mark.parametrize(
    "cfg",
    [
        SimHashConfig(features="shingles"),
        SimHashConfig(features="shingles", ngram=5, step=5, bits=32),
        SimHashConfig(features="shingles", ngram=3, step=2, weighting="binary"),
        SimHashConfig(features="shingles", ngram=100),  # windows over 240 bytes: reference fallback
        SimHashConfig(features="shingles", normalize=False, strip_html=True),
    ],
    ids=lambda c: f"n{c.ngram}-s{c.step}-{c.bits}-{c.weighting}-{c.normalize}",
)
def test_numba_shingles_equal_reference_path(cfg: SimHashConfig) -> None:
    fast = SimHasher(cfg)
    assert fast._shingle_fast
    texts = [*TRICKY, "<p>the cat sat on the mat</p>" * 3, "上海上港在新赛季的亚冠赛场上拿到三连胜。" * 20]
    assert fast.fingerprint_many(texts).tolist() == [_reference(cfg).fingerprint(t) for t in texts]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=5))
def test_numba_shingles_equal_reference_on_any_text(texts: list[str]) -> None:
    cfg = SimHashConfig(features="shingles")
    assert SimHasher(cfg).fingerprint_many(texts).tolist() == [_reference(cfg).fingerprint(t) for t in texts]
