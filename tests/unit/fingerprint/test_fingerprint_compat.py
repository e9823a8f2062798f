"""``neardup.fingerprint.compat`` against the installed ``simhash`` package as the oracle, on generated inputs."""

from __future__ import annotations

import hashlib
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.exceptions import ConfigError
from neardup.fingerprint.compat import Simhash, SimhashIndex, package_md5

simhash = pytest.importorskip("simhash")

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
bits = st.sampled_from(range(8, 65, 8))
texts = st.text(alphabet=st.sampled_from("abcXYZ 01_,.!和世界交手这么多年"), max_size=80) | st.text(
    max_size=40
)
tokens = st.text(max_size=6)
small_ints = st.integers(min_value=-60, max_value=255)
finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
tiny = st.floats(min_value=-1e-300, max_value=1e-300, allow_nan=False)
np_weights = st.integers(-1000, 1000).map(np.int64) | st.floats(-1e6, 1e6, width=32).map(np.float32)
weights = small_ints | finite | tiny | np_weights | st.booleans()


def _bytes8(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=8).digest()


def _signed(data: bytes) -> int:  # a hash that returns negative ints half the time
    return int.from_bytes(hashlib.sha1(data).digest()[:8], "big", signed=True)


hashfuncs = st.sampled_from([None, package_md5, _bytes8, _signed, lambda d: hashlib.sha256(d).digest()])


def same(value: object, f: int, hashfunc: object = None) -> None:
    kw = {} if hashfunc is None else {"hashfunc": hashfunc}
    with warnings.catch_warnings():
        # float32 weights beside huge floats overflow the package's running count to inf (numpy
        # warns); the same sums are formed on our side, so both warn and must still agree
        warnings.simplefilter("ignore", RuntimeWarning)
        assert Simhash(value, f=f, **kw).value == simhash.Simhash(value, f=f, **kw).value


@FAST
@given(texts, bits, hashfuncs)
def test_text_values_equal_the_package(text: str, f: int, hashfunc: object) -> None:
    same(text, f, hashfunc)


@FAST
@given(st.lists(tokens, max_size=30), bits)
def test_token_list_values_equal_the_package(toks: list[str], f: int) -> None:
    same(toks, f)


@FAST
@given(st.lists(st.tuples(tokens, weights), max_size=30), bits, hashfuncs)
def test_weighted_pairs_equal_the_package_signed_tiny_huge_and_numpy_weights(
    pairs: list[tuple[str, object]], f: int, hashfunc: object
) -> None:
    same(pairs, f, hashfunc)


@FAST
@given(st.dictionaries(tokens, small_ints | finite, max_size=30), bits)
def test_dict_values_equal_the_package(d: dict[str, object], f: int) -> None:
    same(d, f)


@pytest.mark.parametrize("seed", range(4))
def test_long_mixed_feature_lists_fold_float_sums_in_the_package_order(seed: int) -> None:
    rng = random.Random(seed)
    pairs: list[tuple[str, object]] = []
    for i in range(rng.randrange(300, 900)):
        w = rng.choice(
            [rng.randint(-5, 50), rng.randint(51, 255), rng.uniform(-1e3, 1e3), rng.random() * 1e-9]
        )
        pairs.append((f"t{i % 97}-{rng.random():.3f}", w))
    for f in (16, 64):
        same(pairs, f)


@FAST
@given(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70), bits)
def test_signed_and_oversized_int_values_kept_and_distance_masked_like_the_package(
    a: int, b: int, f: int
) -> None:
    ours, theirs = Simhash(a, f=f), simhash.Simhash(a, f=f)
    assert ours.value == theirs.value == a
    assert ours.distance(Simhash(b, f=f)) == theirs.distance(simhash.Simhash(b, f=f))


def test_wider_than_64_bits_with_md5_digests_like_the_package() -> None:
    same("The Apache Hadoop software library", 128)
    same([("a", 2.5), ("b", 1)], 128)


def test_simhash_objects_copy_their_value() -> None:
    a = Simhash("abcdef")
    assert Simhash(a).value == a.value == simhash.Simhash(simhash.Simhash("abcdef")).value
    assert Simhash(a) == a and hash(Simhash(a)) == hash(a)


def test_fast_mode_is_xxh3_and_differs_from_the_package() -> None:
    text = "The Apache Hadoop software library is a framework"
    assert Simhash(text, hashfunc="xxh3").value != simhash.Simhash(text).value
    assert Simhash(text, hashfunc="xxh3").distance(Simhash(text + "!", hashfunc="xxh3")) == 0


def test_integer_weights_above_255_are_exact_where_the_package_overflows() -> None:
    pairs = [("a", 1000), ("b", 600), ("c", 500)]
    with pytest.raises(OverflowError):  # numpy 2: "Python integer 1000 out of bounds for uint8"
        simhash.Simhash(pairs)
    # the package's own answer with the same weights as floats (no overflow there)
    assert Simhash(pairs).value == simhash.Simhash([(k, float(w)) for k, w in pairs]).value
    assert Simhash("a" * 2000).value == simhash.Simhash({"aaaa": 1997.0}).value
    assert Simhash([("a", 2**80), ("b", 1)]).value == Simhash([("a", 1)]).value


def test_where_the_package_is_wrong_we_refuse_with_a_reason() -> None:
    with pytest.raises(ConfigError, match="must be finite"):
        Simhash([("a", float("nan"))])
    with pytest.raises(ConfigError, match="must be finite"):
        Simhash([("a", float("inf"))])
    with pytest.raises(ConfigError, match="previous pair's weight"):
        Simhash([("a", 3), "b"])  # the package gives "b" weight 3
    with pytest.raises(ConfigError, match="not bytes"):
        Simhash(b"abc")
    with pytest.raises(ConfigError, match="needs at least 8"):
        Simhash("abc", hashfunc=lambda d: b"1234")


def test_errors_are_config_errors_and_value_errors() -> None:
    with pytest.raises(ValueError, match="multiple of 8"):
        Simhash("x", f=12)
    with pytest.raises(ConfigError, match="cannot compare Simhash of f=64 with one of f=32"):
        Simhash("x").distance(Simhash("x", f=32))
    with pytest.raises(ConfigError, match="Simhash value must be"):
        Simhash(1.5)


def _near(base: int, rng: random.Random, f: int) -> int:
    v = base
    for _ in range(rng.randrange(0, 6)):
        v ^= 1 << rng.randrange(f)
    return v


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([16, 32, 64]), st.integers(0, 8))
def test_simhash_index_finds_what_the_package_finds(seed: int, f: int, k: int) -> None:
    rng = random.Random(seed)
    base = rng.getrandbits(f)
    items = [(f"id{i}", _near(base, rng, f) - (1 << f) * rng.randrange(2)) for i in range(30)]
    ours = SimhashIndex([(i, Simhash(v, f=f)) for i, v in items[:20]], f=f, k=k)
    theirs = simhash.SimhashIndex([(i, simhash.Simhash(v, f=f)) for i, v in items[:20]], f=f, k=k)
    for i, v in items[20:]:
        ours.add(i, Simhash(v, f=f))
        theirs.add(i, simhash.Simhash(v, f=f))
    for i, v in items[::3]:
        ours.delete(i, Simhash(v, f=f))
        theirs.delete(i, simhash.Simhash(v, f=f))
    for _, v in items[:10]:
        q = _near(v, rng, f)
        assert sorted(ours.get_near_dups(Simhash(q, f=f))) == sorted(
            theirs.get_near_dups(simhash.Simhash(q, f=f))
        )
    probe = Simhash(base, f=f)
    assert list(ours.get_keys(probe)) == list(theirs.get_keys(simhash.Simhash(base, f=f)))
    assert ours.offsets == theirs.offsets
    assert ours.bucket_size() <= theirs.bucket_size()  # the package also counts emptied buckets


def test_simhash_index_large_k_and_text_ids() -> None:
    rng = random.Random(7)
    vals = [rng.getrandbits(64) for _ in range(50)]
    ours = SimhashIndex([(i, Simhash(v)) for i, v in enumerate(vals)], k=20)
    theirs = simhash.SimhashIndex([(i, simhash.Simhash(v)) for i, v in enumerate(vals)], k=20)
    for v in vals[:5]:
        assert sorted(ours.get_near_dups(Simhash(v))) == sorted(theirs.get_near_dups(simhash.Simhash(v)))
    with pytest.raises(ConfigError, match="holds f=64"):
        ours.get_near_dups(Simhash(1, f=32))
