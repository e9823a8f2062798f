from __future__ import annotations

import pytest

from neardup.exceptions import ConfigError
from neardup.fingerprint.compat import Simhash, package_md5

simhash = pytest.importorskip("simhash")

STR0 = (
    "The Apache Hadoop software library is a framework that allows for the distributed processing large data"
)
STR1 = "The Apache Hadoop software library is a framework that allows for the distributed processing big data"
FEATURES = [("Apache", 10), ("Hadoop", 15), ("framework", 3), ("distributed", 10), ("data", 6)]


@pytest.mark.parametrize(
    "value",
    [
        STR0,
        "和世界交手这么多年，你是否兴致盎然、风采依旧",
        "ab",
        ["apache", "hadoop", "apache"],
        FEATURES,
        dict(FEATURES),
    ],
    ids=["en-text", "zh-text", "short", "tokens", "pairs", "dict"],
)
@pytest.mark.parametrize("f", [64, 32])
def test_package_md5_gives_the_simhash_package_values(value: object, f: int) -> None:
    assert Simhash(value, f=f, hashfunc=package_md5).value == simhash.Simhash(value, f=f).value


def test_seed_004_usage_distance_and_build_by_features() -> None:
    sh0, sh1 = Simhash(STR0), Simhash(STR1)
    assert 0 < sh0.distance(sh1) < 20
    sh0.build_by_features(FEATURES)
    sh1.build_by_features(FEATURES)
    assert sh0.distance(sh1) == 0


def test_default_hash_is_xxh3_and_differs_from_the_package() -> None:
    assert Simhash(STR0).value != simhash.Simhash(STR0).value


def test_int_and_simhash_values_and_equality() -> None:
    a = Simhash(STR0)
    assert Simhash(a) == a
    assert Simhash(a.value).value == a.value
    assert hash(Simhash(a)) == hash(a)


def test_errors_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="between 1 and 64"):
        Simhash("x", f=128)
    with pytest.raises(ConfigError, match="cannot compare Simhash of f=64 with one of f=32"):
        Simhash("x").distance(Simhash("x", f=32))
    with pytest.raises(ConfigError, match="Simhash value must be"):
        Simhash(1.5)
