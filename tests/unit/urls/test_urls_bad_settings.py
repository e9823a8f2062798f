"""Bad store URLs and bad arguments of SeenURLs give errors naming what is wrong and what is expected."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from neardup.exceptions import ConfigError, InputError
from neardup.urls import SeenURLs


@pytest.mark.parametrize(
    ("store", "match"),
    [
        ("memory://?bloom=abc", r"bloom .* must be a number in \(0, 1\)"),
        ("memory://?capacity=abc&bloom=0.01", "capacity must be a number of URLs >= 1"),
        ("memory://?foo=1", "unknown query parameter foo; memory stores read bloom, capacity"),
        ("memory://?buckets=1024", "unknown query parameter buckets"),
        ("memory://?sync=", "unknown query parameter sync"),  # given with no value: still refused
    ],
)
def test_memory_store_url_with_bad_or_unknown_parameter_is_a_config_error(store: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        SeenURLs("j", store)


@pytest.mark.parametrize(
    ("query", "match"),
    [
        ("bloom=abc", "bloom"),
        ("foo=1", "unknown query parameter foo"),
        ("job=", "unknown query parameter job"),
    ],
)
def test_sqlite_store_url_with_bad_or_unknown_parameter_is_a_config_error(
    tmp_path: Any, query: str, match: str
) -> None:
    with pytest.raises(ConfigError, match=match):
        SeenURLs("j", f"{tmp_path / 'seen.db'}?{query}")


@pytest.mark.parametrize(
    ("query", "match"),
    [("buckets=abc", "buckets must be a power of two"), ("foo=1", "unknown query parameter foo")],
)
def test_redis_store_url_with_bad_parameter_fails_before_connecting(query: str, match: str) -> None:
    pytest.importorskip("redis")
    with pytest.raises(ConfigError, match=match):
        SeenURLs("j", f"redis://127.0.0.1:1/0?{query}")


def test_redis_url_keeps_redis_py_parameters() -> None:
    pytest.importorskip("redis")
    from neardup.stores._url import redis_client

    client = redis_client("redis://127.0.0.1:1/0?socket_timeout=1&max_connections=3&client_name=x&prefix=p")
    assert client.connection_pool.connection_kwargs["socket_timeout"] == 1.0
    with pytest.raises(ConfigError, match=r"unknown query parameter foo.*socket_timeout"):
        redis_client("redis://127.0.0.1:1/0?foo=1")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bloom": "abc"}, "bloom"),
        ({"bloom": [1]}, "bloom"),
        ({"bloom": True}, "bloom"),
        ({"capacity": "abc"}, "capacity"),
        ({"capacity": float("inf")}, "capacity"),
        ({"bloom": 0.01, "capacity": 10**15}, "would take 1,198,132,326,977,040 bytes"),
        ({"max_url_length": "x"}, "max_url_length must be an int >= 1"),
        ({"max_url_length": 0}, "max_url_length must be an int >= 1"),
        ({"max_url_length": -1}, "max_url_length must be an int >= 1"),
        ({"drop_params": None}, "drop_params must be a collection"),
        ({"drop_params": [1]}, "drop_params must hold parameter names"),
        ({"clock": "x"}, "clock must be a function"),
    ],
)
def test_bad_argument_is_a_config_error_naming_it(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        SeenURLs("j", **kwargs)


def test_canonicalize_returning_no_str_is_named() -> None:
    seen = SeenURLs("j", canonicalize=lambda u: 5)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match=r"canonicalize .* must return a str, got int"):
        seen.check_and_add("http://a.com/")
    with pytest.raises(TypeError, match="must return a str"):
        seen.check_and_add_many(["http://a.com/"])


def test_url_that_is_not_a_str_is_named() -> None:
    seen = SeenURLs("j")
    with pytest.raises(InputError, match="URL must be a str, got list"):
        seen.check_and_add(["http://a.com"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="URL must be a str, got list; pass one URL at a time"):
        seen.forget(["http://a.com/1", 5])  # type: ignore[arg-type]
    custom = SeenURLs("k", canonicalize=str.lower)
    with pytest.raises(InputError, match="URL must be a str, got int"):
        custom.check_and_add_many(["http://a.com/", 5])  # type: ignore[list-item]


def test_batch_must_be_an_iterable_of_urls_not_a_str() -> None:
    seen = SeenURLs("j")
    with pytest.raises(TypeError, match="got NoneType"):
        seen.check_and_add_many(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="wrap one URL in a list"):
        seen.check_and_add_many("http://a.com/1")
    assert seen.check_and_add_many(("http://a.com/1",)) == [True]


def test_hashes_must_be_unsigned_64_bit_ints() -> None:
    seen = SeenURLs("j")
    for bad in (["x"], [-1], np.array([1.5]), np.array([-1])):
        with pytest.raises(TypeError, match="hashes must be a 1-D array of unsigned 64-bit ints"):
            seen.check_and_add_hashes(bad)  # type: ignore[arg-type]
    assert seen.check_and_add_hashes([1, 2**64 - 1]).tolist() == [True, True]  # type: ignore[arg-type]
    assert seen.check_and_add_hashes(np.array([1], dtype=np.uint64)).tolist() == [False]


def test_another_programs_sqlite_database_is_not_taken_as_a_seen_store(tmp_path: Any) -> None:
    """Neither neardup's tables nor its WAL journal are written into a database of something else."""
    import sqlite3

    from neardup.exceptions import FormatError

    path = tmp_path / "app.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)")
    before = path.read_bytes()
    with pytest.raises(FormatError, match=r"app\.db is a SQLite database of something else \(tables users\)"):
        SeenURLs("j", str(path))
    assert path.read_bytes() == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["users"]
