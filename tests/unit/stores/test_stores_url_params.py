"""Each store refuses a query parameter it does not read, naming it and the ones it reads.

Nothing here connects: the Redis stores check their URL when they are made (port 1 has no server).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.exceptions import ConfigError
from neardup.stores import open_store
from neardup.stores._url import SEEN_PARAMS, check_redis_url, parse_store_url, redis_client

NOWHERE = "redis://127.0.0.1:1/0"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("memory://?prefix=x", "unknown query parameter prefix; a memory:// store reads none"),
        ("memory://?sync", "unknown query parameter sync; a memory:// store reads none"),
        ("file://{tmp}/snap?sync=1", "unknown query parameter sync; a file:// store reads none"),
        ("{tmp}/snap?job=j", "unknown query parameter job; a file:// store reads none"),
        ("leveldb://{tmp}/db?prefix=p&sync=1", "unknown query parameter prefix; a LevelDB store reads sync"),
    ],
)
def test_local_stores_refuse_a_parameter_they_do_not_read(tmp_path: Path, url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        open_store(url.format(tmp=tmp_path))
    assert list(tmp_path.iterdir()) == []  # refused before anything was made


def test_leveldb_keeps_sync(tmp_path: Path) -> None:
    with open_store(f"leveldb://{tmp_path}/db?sync=1") as s:
        assert s.assign_many([[1]]) == [1]


@pytest.mark.parametrize(
    "query", ["sync=1", "job=j", "ttl=60", "bloom=0.01", "buckets=256", "capacity=9", "job="]
)
def test_redis_key_value_store_reads_only_prefix(query: str) -> None:
    pytest.importorskip("redis")
    name = query.partition("=")[0]
    with pytest.raises(ConfigError) as err:
        open_store(f"{NOWHERE}?prefix=p&{query}")
    said = str(err.value)
    assert f"unknown query parameter {name};" in said and "a Redis key-value store" in said
    assert "reads prefix; redis-py reads" in said and "socket_timeout" in said
    assert "malformed" not in said  # the refusal itself, not wrapped in another


@pytest.mark.parametrize("query", ["sync=1", "job=j", "buckets=256", "recrawl_after=60"])
def test_fleet_log_reads_only_prefix(query: str) -> None:
    pytest.importorskip("redis")
    from neardup.stores.redislog import RedisLog

    with pytest.raises(
        ConfigError,
        match=rf"unknown query parameter {query.partition('=')[0]}; a ContentSeen fleet's log reads prefix;",
    ):
        RedisLog(f"{NOWHERE}?prefix=p&{query}")


@pytest.mark.parametrize("query", ["sync=1", "job=crawl-1", "sync", "prefix=p&job="])
def test_redis_seen_store_urls_refuse_what_no_seen_store_reads(query: str) -> None:
    pytest.importorskip("redis")
    with pytest.raises(ConfigError) as err:
        redis_client(f"{NOWHERE}?{query}")
    said = str(err.value)
    assert "a Redis URL seen-store reads bloom, buckets, capacity, prefix, recrawl_after, ttl;" in said


def test_redis_urls_keep_their_own_and_redis_pys_parameters() -> None:
    pytest.importorskip("redis")
    seen = f"{NOWHERE}?" + "&".join(f"{p}=1" for p in sorted(SEEN_PARAMS)) + "&socket_timeout=2"
    assert redis_client(seen).connection_pool.connection_kwargs["socket_timeout"] == 2.0
    kv = parse_store_url(f"{NOWHERE}?prefix=p&socket_timeout=2&db=3", ("redis",))
    check_redis_url(kv, reads=frozenset({"prefix"}), store="a test store")
    unix = "unix:///tmp/neardup-none.sock?db=2&prefix=u&socket_timeout=2"
    check_redis_url(unix, reads=frozenset({"prefix"}), store="a test store")
    with pytest.raises(ConfigError, match="unknown query parameter sync; a test store reads prefix;"):
        check_redis_url(f"{unix}&sync=1", reads=frozenset({"prefix"}), store="a test store")


def test_the_password_is_not_echoed_in_the_refusal() -> None:
    pytest.importorskip("redis")
    with pytest.raises(ConfigError) as err:
        open_store("redis://:hunter2@127.0.0.1:1/0?sync=1")
    assert "hunter2" not in str(err.value) and "***" in str(err.value)
