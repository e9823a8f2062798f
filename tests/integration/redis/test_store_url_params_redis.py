"""Redis store URLs against a real redis-server: a parameter the store does not read is refused
before anything is written; the ones it reads (and redis-py's) still work."""

from __future__ import annotations

import pytest

from neardup.exceptions import ConfigError
from neardup.stores import open_store
from neardup.stores.redislog import RedisLog
from neardup.urls import SeenURLs

pytestmark = pytest.mark.redis


def _keys(redis_url: str) -> list[bytes]:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        return sorted(client.keys("*"))
    finally:
        client.close()


@pytest.mark.parametrize("query", ["sync=1", "job=crawl-1", "sync=", "job"])
def test_seen_store_refuses_a_parameter_no_seen_store_reads(redis_url: str, query: str) -> None:
    with pytest.raises(ConfigError) as err:
        seen = SeenURLs("crawl-1", f"{redis_url}?prefix=t:&{query}")
        seen.check_and_add("https://a.example/1")
    said = str(err.value)
    assert f"unknown query parameter {query.partition('=')[0]};" in said
    assert "reads bloom, buckets, capacity, prefix, recrawl_after, ttl;" in said
    assert _keys(redis_url) == []


def test_seen_store_keeps_the_parameters_it_reads(redis_url: str) -> None:
    url = f"{redis_url}?prefix=t:&buckets=256&ttl=3600&socket_timeout=5"
    with SeenURLs("crawl-1", url, canonicalize=False) as seen:
        assert seen.check_and_add("https://a.example/1") is True
        assert seen.check_and_add("https://a.example/1") is False
    assert all(k.startswith(b"t:crawl-1:") for k in _keys(redis_url))


@pytest.mark.parametrize("query", ["sync=1", "job=crawl-1", "buckets=256", "bloom=0.01"])
def test_key_value_store_and_fleet_log_refuse_what_they_do_not_read(redis_url: str, query: str) -> None:
    with pytest.raises(ConfigError, match=r"a Redis key-value store .* reads prefix;"):
        open_store(f"{redis_url}?prefix=kv&{query}")
    with pytest.raises(ConfigError, match="a ContentSeen fleet's log reads prefix;"):
        RedisLog(f"{redis_url}?prefix=log&{query}")
    assert _keys(redis_url) == []


def test_key_value_store_and_fleet_log_keep_prefix_and_redis_py_parameters(redis_url: str) -> None:
    with open_store(f"{redis_url}?prefix=kv&socket_timeout=5&health_check_interval=10") as s:
        assert s.assign_many([[1], [1, 2]]) == [1, 1]
    log = RedisLog(f"{redis_url}?prefix=log&socket_timeout=5")
    try:
        log.ping()
    finally:
        log.close()
    assert {k.split(b":")[0] for k in _keys(redis_url)} == {b"kv"}
