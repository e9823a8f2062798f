"""SeenURLs on a real redis-server: contract, both expiries, layout and encoding, many workers, restart."""

from __future__ import annotations

import pickle
import threading
import time
from typing import Any

import numpy as np
import pytest

from neardup.exceptions import ConfigError, StoreError
from neardup.urls import SeenURLs

pytestmark = pytest.mark.redis


class Clock:
    def __init__(self, t: float = 1_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _redis(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)


def test_urls_redis_check_and_add(redis_url: str) -> None:
    with SeenURLs(108, redis_url) as seen:
        assert seen.check_and_add("https://example.com/a?utm_source=x")
        assert seen.check_and_add_many(
            [
                "https://EXAMPLE.com/a",
                "https://example.com/b",
                "https://example.com/b",
                "https://example.com/c",
                "https://example.com/b",
            ]
        ) == [False, True, False, True, False]
        assert seen.forget("https://example.com/b") is True
        assert seen.forget("https://example.com/b") is False
        assert seen.check_and_add("https://example.com/b")
        assert seen.stats()["urls"] == 3
        other = SeenURLs(109, redis_url)
        assert other.check_and_add("https://example.com/a")  # jobs are separate
        seen.forget_job()
        assert seen.stats()["urls"] == 0
        assert seen.check_and_add("https://example.com/a")
        assert not other.check_and_add("https://example.com/a")  # forget_job left job 109 alone


def test_urls_redis_buckets_are_strings_of_fixed_size_records(redis_url: str) -> None:
    r = _redis(redis_url)
    clock = Clock(1_700_000_000.0)
    with SeenURLs("lay", redis_url + "?prefix=t:&buckets=256", canonicalize=False, clock=clock) as seen:
        seen.check_and_add_many([f"https://a.com/{i}" for i in range(5000)])
    keys = list(r.scan_iter(match="t:lay:0:*"))
    assert 250 <= len(keys) <= 256
    assert r.type(keys[0]) == b"string"
    total = sum(r.strlen(k) for k in keys)
    assert total == 5000 * 11  # 7 bytes of hash + 4 bytes of fetch time per URL
    blob = r.get(keys[0])
    assert int.from_bytes(blob[7:11], "big") == 1_700_000_000
    meta = r.hgetall("t:lay:meta")
    assert meta[b"bits"] == b"8" and meta[b"n"] == b"5000" and meta[b"mode"] == b"exact"


def test_urls_redis_forget_many_in_one_bucket(redis_url: str) -> None:
    with SeenURLs("fg", redis_url + "?buckets=256", canonicalize=False) as seen:
        urls = [f"https://a.com/{i}" for i in range(3000)]
        seen.check_and_add_many(urls)
        assert sum(seen.forget(u) for u in urls[:1000:7]) == len(urls[:1000:7])
        flags = seen.check_and_add_many(urls)
        assert [i for i, f in enumerate(flags) if f] == list(range(0, 1000, 7))
        assert seen.stats()["urls"] == 3000


def test_urls_redis_bucket_count_fixed_at_creation(redis_url: str) -> None:
    SeenURLs("fix", redis_url + "?buckets=1024").check_and_add("https://a.com/")
    with pytest.raises(ConfigError, match="buckets=1024"):
        SeenURLs("fix", redis_url + "?buckets=2048")
    assert SeenURLs("fix", redis_url).stats()["buckets"] == 1024  # adopted
    with pytest.raises(ConfigError, match="power of two"):
        SeenURLs("x", redis_url + "?buckets=1000")


def test_urls_redis_recrawl_after(redis_url: str) -> None:
    clock = Clock()
    with SeenURLs(7, redis_url, recrawl_after=60, clock=clock) as seen:
        assert seen.check_and_add("https://x.com/a")
        clock.t += 30
        assert seen.check_and_add("https://x.com/b")
        assert not seen.check_and_add("https://x.com/a")
        clock.t += 30
        assert seen.check_and_add_many(["https://x.com/a", "https://x.com/b", "https://x.com/a"]) == [
            True,
            False,
            False,
        ]
        assert seen.stats()["recrawled"] == 1
        # a worker without recrawl_after shares the job and never re-fetches
        plain = SeenURLs(7, redis_url, clock=clock)
        clock.t += 1000
        assert not plain.check_and_add("https://x.com/a")
        assert seen.check_and_add("https://x.com/a")


def test_urls_redis_recrawl_applies_to_urls_added_by_workers_without_it(redis_url: str) -> None:
    clock = Clock()
    SeenURLs(8, redis_url, clock=clock).check_and_add("https://x.com/a")  # the fetch time is kept anyway
    later = SeenURLs(8, redis_url, recrawl_after=100, clock=clock)
    clock.t += 50
    assert not later.check_and_add("https://x.com/a")
    clock.t += 50
    assert later.check_and_add("https://x.com/a")


def test_urls_redis_job_ttl_by_clock(redis_url: str) -> None:
    clock = Clock()
    with SeenURLs(9, redis_url, ttl=3600, clock=clock) as seen:
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/2"]) == [True, True]
        clock.t += 3599
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/3"]) == [False, True]
        assert seen.stats()["expires_at"] == 4600
        clock.t += 1
        assert seen.stats()["urls"] == 0
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/1"]) == [True, False]
        assert seen.stats()["created"] == 4600


def test_urls_redis_job_ttl_expires_keys_in_redis(redis_url: str) -> None:
    """The seed's scheme: the job's keys carry the expiry, so Redis frees them by itself."""
    r = _redis(redis_url)
    with SeenURLs("exp", redis_url, ttl=1.0) as seen:
        seen.check_and_add_many([f"https://x.com/{i}" for i in range(200)])
        keys = list(r.scan_iter(match="neardup:u:exp:*"))
        assert keys and all(
            0 < r.pttl(k) <= 1000 for k in keys if not k.endswith(b":meta") and b":ack:" not in k
        )
        time.sleep(1.2)
        assert [k for k in r.scan_iter(match="neardup:u:exp:*") if b":ack:" not in k] == []
        assert seen.check_and_add("https://x.com/1")


def test_urls_redis_ttl_mismatch_refused(redis_url: str) -> None:
    SeenURLs("tm", redis_url, ttl=60).check_and_add("https://a.com/")
    with pytest.raises(ConfigError, match="ttl=60"):
        SeenURLs("tm", redis_url, ttl=120)
    assert SeenURLs("tm", redis_url).stats()["ttl"] == 60  # adopted


def test_urls_redis_bloom_mode(redis_url: str) -> None:
    store = redis_url + "?bloom=0.01&capacity=40000"
    seen = SeenURLs("bl", store, canonicalize=False)
    urls = [f"https://a.com/{i}" for i in range(20_000)]
    assert sum(seen.check_and_add_many(urls)) >= 20_000 * 0.98
    assert not any(SeenURLs("bl", store, canonicalize=False).check_and_add_many(urls))
    fp = 1 - sum(seen.check_and_add_many([f"https://b.com/{i}" for i in range(20_000)])) / 20_000
    assert fp < 0.015
    stats = seen.stats()
    assert stats["mode"] == "bloom" and stats["backend"] == "redis-bloom"
    with pytest.raises(ConfigError, match="bloom capacity"):
        SeenURLs("bl", redis_url + "?bloom=0.001&capacity=40000")
    with pytest.raises(ConfigError, match="mode"):
        SeenURLs("bl", redis_url)
    seen.forget_job()
    assert seen.check_and_add("https://a.com/1")


def test_urls_redis_bloom_ttl(redis_url: str) -> None:
    clock = Clock()
    seen = SeenURLs("bt", redis_url, bloom=0.01, capacity=1000, ttl=10, clock=clock)
    assert seen.check_and_add("https://a.com/1")
    assert not seen.check_and_add("https://a.com/1")
    clock.t += 10
    assert seen.check_and_add("https://a.com/1")


def test_urls_redis_many_workers_each_url_new_once(redis_url: str) -> None:
    """4 threads with their own clients add overlapping batches: every URL is True exactly once."""
    urls = [f"https://news{i % 50}.example.cn/a/{i}.html" for i in range(8000)]
    totals: list[int] = []
    lock = threading.Lock()

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(urls))
        seen = SeenURLs("many", redis_url, batch_size=500)
        n = sum(
            sum(seen.check_and_add_many([urls[i] for i in order[k : k + 700]])) for k in range(0, 8000, 700)
        )
        with lock:
            totals.append(n)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sum(totals) == 8000
    assert SeenURLs("many", redis_url).stats()["urls"] == 8000


def test_urls_redis_pickles_and_reconnects(redis_url: str) -> None:
    seen = SeenURLs("pk", redis_url)
    seen.check_and_add("https://a.com/1")
    clone = pickle.loads(pickle.dumps(seen))
    assert not clone.check_and_add("https://a.com/1")
    assert clone.check_and_add("https://a.com/2")


def test_urls_redis_unreachable_is_store_error() -> None:
    from tests.conftest import free_port

    with pytest.raises(StoreError, match="unreachable"):
        SeenURLs(1, f"redis://127.0.0.1:{free_port()}/0", retry_seconds=0.3)


def test_urls_redis_retry_with_the_same_token_returns_the_same_flags(redis_url: str) -> None:
    """A batch whose reply was lost is answered from its token, not re-run (URLs would look seen)."""
    seen = SeenURLs("tok", redis_url, canonicalize=False)
    store = seen._store
    hashes = np.arange(1, 101, dtype=np.uint64) << np.uint64(40)
    real = store._call
    replies: list[bytes] = []

    def twice(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        replies.append(real(what, fn, *args, **kwargs))  # the first reply is "lost"
        return real(what, fn, *args, **kwargs)

    store._call = twice  # type: ignore[method-assign]
    flags = store.check_and_add(hashes, time.time())
    assert flags.all() and replies[0] == b"1" * 100


@pytest.mark.slow
def test_urls_redis_restart_loses_nothing_acknowledged(persistent_redis: Any) -> None:
    """Redis (AOF, fsync always) is killed and restarted while a crawl checks batches."""
    url = persistent_redis.url
    urls = [f"https://site{i % 300}.example.com/p/{i}?utm_source=feed" for i in range(30_000)]
    acked: list[str] = []
    first_flags: list[bool] = []
    stop = threading.Event()

    def crawl() -> None:
        seen = SeenURLs("restart", url, recrawl_after=86400, batch_size=500, retry_seconds=20)
        for k in range(0, len(urls), 500):
            batch = urls[k : k + 500]
            flags = seen.check_and_add_many(batch)  # retried inside across the restart
            acked.extend(batch)
            first_flags.extend(flags)
            if stop.is_set():
                break

    t = threading.Thread(target=crawl)
    t.start()
    while len(acked) < 5_000 and t.is_alive():
        time.sleep(0.01)
    at_restart = len(acked)
    persistent_redis.restart(kill=True)  # SIGKILL mid-run
    assert at_restart < len(urls), "the crawl finished before the restart: make it longer"
    t.join(120)
    assert not t.is_alive()
    assert len(acked) == len(urls)
    assert all(first_flags)  # every URL was new exactly when first checked, even across the restart
    check = SeenURLs("restart", url)
    assert not any(check.check_and_add_many(acked))
    assert check.stats()["urls"] == len(urls)
