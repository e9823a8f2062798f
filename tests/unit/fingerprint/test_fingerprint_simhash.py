from __future__ import annotations

import doctest
import importlib
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.config import SimHashConfig
from neardup.exceptions import ConfigError
from neardup.fingerprint import _kernels
from neardup.fingerprint import simhash as simhash_mod
from neardup.fingerprint.simhash import (
    SimHasher,
    bit_sums,
    cosine,
    fingerprint,
    fingerprint_many,
    hamming,
    hamming_many,
    simhash_from_features,
    similarity,
)

# -- golden examples from the seeds, computed through the real code -----------------------------

SEED_000 = [(0b110101, 5), (0b101001, 4)]  # 世界 w5 hash 110101, 交手 w4 hash 101001
SEED_004 = [  # word, weight, 6-bit hash as printed on the slides
    ("附加赛", 3, 0b101001),
    ("小组赛", 4, 0b101110),
    ("首轮", 1, 0b110001),
    ("绝杀", 3, 0b101000),
    ("上海上港", 5, 0b101011),
    ("赛季", 5, 0b101100),
    ("亚冠", 5, 0b111000),
]


def test_seed_000_golden_two_words_sum_and_fingerprint() -> None:
    assert bit_sums(SEED_000, bits=6) == [9, 1, -1, 1, -9, 9]
    assert simhash_from_features(SEED_000, bits=6) == 0b110101


def test_seed_004_golden_seven_words_column_sums_and_fingerprint() -> None:
    feats = [(h, w) for _, w, h in SEED_004]
    # the slide prints -24 for the second column: an addition slip, the sum is -14
    assert bit_sums(feats, bits=6) == [26, -14, 24, -8, -8, -8]
    assert simhash_from_features(feats, bits=6) == 0b101000


def test_seed_golden_examples_through_the_batch_kernel() -> None:
    vh = np.array([h for _, _, h in SEED_004] + [0b110101, 0b101001], np.uint64)
    vw = np.array([w for _, w, _ in SEED_004] + [5, 4], np.int64)
    ids = np.arange(9, dtype=np.int64)
    offsets = np.array([0, 7, 9], np.int64)
    for top in (np.zeros(2, np.int64), np.array([100, 100], np.int64)):  # per-occurrence and sorted paths
        out = _kernels.batch_fingerprints(ids, offsets, vh, vw, 6, False, top, 0)
        assert out.tolist() == [0b101000, 0b110101]


def test_zero_sum_bit_is_zero() -> None:
    assert simhash_from_features([(0b1, 2), (0b0, 2)], bits=1) == 0


# -- API behaviour -------------------------------------------------------------------------------


def test_simhash_doctests_pass() -> None:
    for name in ("neardup.fingerprint.simhash", "neardup.fingerprint.compat", "neardup.fingerprint"):
        assert doctest.testmod(importlib.import_module(name)).failed == 0


CONFIGS = [
    SimHashConfig(),
    SimHashConfig(bits=32),
    SimHashConfig(hash="md5"),
    SimHashConfig(hash="murmur3", weighting="tf"),
    SimHashConfig(hash="farmhash", weighting="binary"),
    SimHashConfig(features="shingles", ngram=4),
    SimHashConfig(features="shingles", ngram=5, step=5),
    SimHashConfig(features="word_ngrams", ngram=2),
    SimHashConfig(levels=5, top_n=8),
    SimHashConfig(top_n="auto", boost=("上港",)),
    SimHashConfig(stopwords=False, normalize=False),
]

TEXTS = [
    "从附加赛以3-0力擒素可泰，到小组赛以1-0绝杀首尔FC，再到此役5-1大比分战胜西悉尼流浪者，"
    "上海上港在新赛季的亚冠赛场上拿到三连胜。",
    "The Apache Hadoop software library is a framework that allows for the distributed processing of "
    "large data sets across clusters of computers.",
    "短",
    "。。。",
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.features}-{c.bits}-{c.hash}-{c.weighting}")
def test_fingerprint_equals_simhash_of_its_features(cfg: SimHashConfig) -> None:
    h = SimHasher(cfg)
    for text in TEXTS:
        fp = h.fingerprint(text)
        assert 0 <= fp < 2**cfg.bits
        assert fp == simhash_from_features(h.features(text), bits=cfg.bits, hash=cfg.hash)
    assert h.fingerprint_many(TEXTS).tolist() == [h.fingerprint(t) for t in TEXTS]


def test_features_are_heaviest_first_and_drop_stopwords_and_punctuation() -> None:
    feats = SimHasher().features("上港的球队，上港在亚冠赛场上拿到三连胜")
    words = [f for f, _ in feats]
    assert words[0] == "上港"  # twice, and rare
    assert "的" not in words and "，" not in words
    weights = [w for _, w in feats]
    assert weights == sorted(weights, reverse=True)


def test_boost_raises_topic_word_weight() -> None:
    text = "上港在亚冠赛场上拿到三连胜"
    plain = dict(SimHasher().features(text))
    boosted = dict(SimHasher(SimHashConfig(boost=("三连胜",), boost_factor=3.0)).features(text))
    assert boosted["三连胜"] == pytest.approx(3 * plain["三连胜"], rel=1e-4)
    assert boosted["上港"] == plain["上港"]


def test_levels_quantize_to_one_through_five_and_top_n_limits() -> None:
    feats = SimHasher(SimHashConfig(levels=5, top_n=4)).features(TEXTS[0])
    assert len(feats) == 4
    assert {w for _, w in feats} <= {1.0, 2.0, 3.0, 4.0, 5.0}
    assert feats[0][1] == 5.0


def test_hash_choice_changes_fingerprint_and_all_are_deterministic() -> None:
    fps = {
        name: fingerprint(TEXTS[0], SimHashConfig(hash=name))
        for name in ("xxh3", "md5", "farmhash", "murmur3")
    }
    assert len(set(fps.values())) == 4
    assert fps == {name: fingerprint(TEXTS[0], SimHashConfig(hash=name)) for name in fps}


def test_fingerprint_is_reproducible_across_processes() -> None:
    code = (
        "from neardup.fingerprint.simhash import fingerprint;from neardup.config import SimHashConfig;"
        f"print(fingerprint({TEXTS[0]!r}), fingerprint({TEXTS[1]!r}, SimHashConfig(features='shingles')))"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == [
        str(fingerprint(TEXTS[0])),
        str(fingerprint(TEXTS[1], SimHashConfig(features="shingles"))),
    ]


def test_fingerprint_many_returns_uint64_array_in_order() -> None:
    out = fingerprint_many(TEXTS * 3)
    assert out.dtype == np.uint64 and out.shape == (12,)
    assert out.tolist() == [fingerprint(t) for t in TEXTS] * 3
    assert fingerprint_many([]).shape == (0,)


def test_fingerprint_many_with_workers_matches_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simhash_mod, "_CHUNK", 4)
    texts = [f"{TEXTS[0]} 第{i}篇 {i * 7}" for i in range(24)]
    one = SimHasher().fingerprint_many(texts)
    two = SimHasher().fingerprint_many(texts, workers=2)
    assert one.tolist() == two.tolist()


def test_fingerprint_many_rejects_bad_workers() -> None:
    with pytest.raises(ConfigError, match="workers must be an integer >= 1, got 0"):
        fingerprint_many(["a"], workers=0)


def test_simhash_from_features_accepts_tokens_pairs_and_dicts() -> None:
    a = simhash_from_features(["apache", "hadoop"])
    assert (
        a
        == simhash_from_features([("hadoop", 1), ("apache", 1)])
        == simhash_from_features({"apache": 1, "hadoop": 1})
    )
    with pytest.raises(ConfigError, match="bits must be an integer between 1 and 64"):
        simhash_from_features(["a"], bits=65)
    with pytest.raises(
        ConfigError, match=r"a feature must be a string, an int hash, or a \(feature, weight\) pair"
    ):
        simhash_from_features([1.5])  # type: ignore[list-item]


def test_similarity_and_cosine() -> None:
    assert similarity(0, 0) == 1.0
    assert similarity(0, 0xFF, bits=32) == pytest.approx(0.75)
    assert cosine(TEXTS[0], TEXTS[0]) == pytest.approx(1.0)
    assert cosine(TEXTS[0], TEXTS[1]) == pytest.approx(0.0)
    edited = TEXTS[0].replace("三连胜", "两连胜")
    assert 0.8 < cosine(TEXTS[0], edited) < 1.0


def test_hamming_many_broadcasts() -> None:
    a = np.array([0, 1, 2**64 - 1], np.uint64)
    assert hamming_many(a, a).tolist() == [0, 0, 0]
    assert hamming_many(a, np.uint64(0)).tolist() == [0, 1, 64]


# -- properties ----------------------------------------------------------------------------------

fps64 = st.integers(min_value=0, max_value=2**64 - 1)


@settings(max_examples=200, deadline=None)
@given(fps64, fps64, fps64)
def test_hamming_is_a_metric(a: int, b: int, c: int) -> None:
    assert hamming(a, a) == 0
    assert (hamming(a, b) == 0) == (a == b)
    assert hamming(a, b) == hamming(b, a)
    assert hamming(a, c) <= hamming(a, b) + hamming(b, c)
    assert int(hamming_many(np.uint64(a), np.uint64(b))) == hamming(a, b)


feature_lists = st.lists(
    st.tuples(st.text(min_size=1, max_size=6), st.floats(min_value=0.01, max_value=100)),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(feature_lists, st.randoms(use_true_random=False))
def test_identical_features_in_any_order_give_distance_zero(
    feats: list[tuple[str, float]], rnd: random.Random
) -> None:
    shuffled = list(feats)
    rnd.shuffle(shuffled)
    assert hamming(simhash_from_features(feats), simhash_from_features(shuffled)) == 0


_VOCAB = [f"w{i}" for i in range(3000)]


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["words", "shingles"]))
def test_small_edit_of_long_text_moves_few_bits(rnd: random.Random, features: str) -> None:
    words = rnd.sample(_VOCAB, 600)  # distinct words: a long text, not one word repeated
    edited = list(words)
    edited[rnd.randrange(len(words))] = "changed"
    cfg = SimHashConfig(features=features, weighting="tf")  # type: ignore[arg-type]
    assert (
        hamming(fingerprint(" ".join(words), cfg), fingerprint(" ".join(edited), cfg)) <= 10
    )  # unrelated texts: ~32


def test_one_hasher_shared_by_threads_gives_the_same_fingerprints() -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"{TEXTS[0]} 第{i}篇 编号{i * 13} 词{i % 7}" for i in range(200)]
    expected = SimHasher().fingerprint_many(texts).tolist()
    shared = SimHasher()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(shared.fingerprint, texts))
    assert got == expected
