"""The Redis store against a real redis-server: contract, prefixes, pickling, faults, restarts."""

from __future__ import annotations

import pickle
import random
import threading
import time
from typing import Any

import pytest

from neardup.exceptions import ConfigError, StoreError
from neardup.stores import KeyValueStore, open_store
from neardup.stores.redis import RedisStore
from neardup_testing import components as _components
from neardup_testing import partition as _partition

pytestmark = pytest.mark.redis


def test_open_store_picks_redis_and_keys_carry_the_prefix(redis_url: str) -> None:
    import redis

    with open_store(f"{redis_url}?prefix=job7") as s:
        assert isinstance(s, RedisStore) and isinstance(s, KeyValueStore)
        s.assign_many([[1, 2]])
        s.set_meta("m", "v")
    keys = sorted(k.decode() for k in redis.Redis.from_url(redis_url).keys("*"))
    assert keys == ["job7:ctr", "job7:kv", "job7:meta", "job7:size"]


def test_contract_matches_the_memory_store(redis_url: str) -> None:
    rng = random.Random(7)
    groups = [[rng.randrange(60) for _ in range(rng.randint(1, 4))] for _ in range(300)]
    with open_store(f"{redis_url}?prefix=c") as r, open_store("memory://") as m:
        r.chunk = 7  # type: ignore[attr-defined]  # many Lua calls in one pipeline
        assert r.assign_many(groups) == m.assign_many(groups)  # same algorithm, same ids
        assert r.resolve(list(range(1, 40))) == m.resolve(list(range(1, 40)))
        assert dict(r.items()) == dict(m.items())
        assert sorted(r.groups()) == sorted(m.groups())
        rs, ms = r.stats(), m.stats()
        for key in ("keys", "ids_assigned", "groups", "aliases", "assignments"):
            assert rs[key] == ms[key], key
        assert _partition(r.resolve(r.assign_many(groups))) == _components(groups)


def test_get_put_counter_and_clear(redis_url: str) -> None:
    with open_store(f"{redis_url}?prefix=kv") as s:
        s.put("键", 5)
        s.put_many([(2**64 - 1, -1), (b"b", 3)])
        assert s.get_many(["键", 2**64 - 1, b"b", "x"]) == [5, -1, 3, None]
        s.delete("键")
        assert s.get("键") is None
        assert s.incr("n") == 1 and s.incr("n", 2) == 3
        s.clear()
        assert s.stats()["keys"] == 0
        with pytest.raises(ConfigError):
            s.assign_many([list(range(256))])


def test_prefixes_are_independent(redis_url: str) -> None:
    with open_store(f"{redis_url}?prefix=a") as a, open_store(f"{redis_url}?prefix=b") as b:
        assert a.assign_many([[1], [2]]) == [1, 2]
        assert b.assign_many([[2]]) == [1]
        b.clear()
        assert a.get(2) == 2


def test_pickled_store_drops_its_client_and_reconnects(redis_url: str) -> None:
    s = open_store(f"{redis_url}?prefix=p")
    s.assign_many([[1]])
    blob = pickle.dumps(s)
    assert b"ConnectionPool" not in blob
    copy: Any = pickle.loads(blob)
    assert copy._client_obj is None
    assert copy.assign_many([[1], [2]]) == [1, 2]
    assert copy.prefix == "p"
    s.close()
    copy.close()


def test_unreachable_server_names_the_url_with_password_redacted() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"redis://:hunter2@127.0.0.1:{port}/0?prefix=x"
    with pytest.raises(StoreError) as err:
        open_store(url)
    assert "hunter2" not in str(err.value)
    assert ":***@127.0.0.1" in str(err.value)


def test_closed_store_raises(redis_url: str) -> None:
    s = open_store(redis_url)
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.get(1)


def test_ids_and_merges_survive_a_server_restart(persistent_redis: Any) -> None:
    url = f"{persistent_redis.url}?prefix=r"
    with open_store(url) as s:
        assert s.assign_many([[1], [2], [1, 2]]) == [1, 2, 1]
    persistent_redis.restart(kill=True)
    with open_store(url) as s:
        assert s.assign_many([[3], [2]]) == [3, 1]


def test_server_killed_mid_batch_raises_and_the_retry_is_idempotent(persistent_redis: Any) -> None:
    import redis

    url = f"{persistent_redis.url}?prefix=f"
    # disjoint documents: each has its own two keys, so every document is either fully landed or absent
    groups = [[2 * i, 2 * i + 1] for i in range(20_000)]
    store = RedisStore(url, chunk=50)
    watcher = redis.Redis.from_url(persistent_redis.url)
    started = threading.Event()

    def kill_when_half_way() -> None:
        started.wait(10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if int(watcher.hget("f:ctr", "ids") or 0) > 1000:
                    break
            except redis.RedisError:
                break
            time.sleep(0.005)
        persistent_redis.stop(kill=True)

    killer = threading.Thread(target=kill_when_half_way)
    killer.start()
    started.set()
    with pytest.raises(StoreError, match=r"store assign_many failed on 'redis://127\.0\.0\.1"):
        store.assign_many(groups)
    killer.join()
    persistent_redis.start()

    with open_store(url) as s:
        landed = s.get_many([k for g in groups for k in g])
        pairs = list(zip(landed[0::2], landed[1::2], strict=True))
        assert all((a is None) == (b is None) for a, b in pairs), "a document was half-assigned"
        assert all(a == b for a, b in pairs)
        before = {i: a for i, (a, _) in enumerate(pairs) if a is not None}
        assert 0 < len(before) < len(groups)
        ids = s.assign_many(groups)  # the retry
        assert all(ids[i] == a for i, a in before.items())  # landed documents keep their ids
        assert len(set(ids)) == len(groups)  # and no id collides
    watcher.close()


def test_unix_socket_url(tmp_path: Any) -> None:
    import shutil
    import subprocess

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    sock = tmp_path / "r.sock"
    proc = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(sock), "--dir", str(tmp_path), "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        with open_store(f"unix://{sock}?db=2&prefix=u&socket_timeout=7") as s:
            assert s.assign_many([[1], [1, 2]]) == [1, 1]
            # redis-py's parameters reach the connection on a socket as on TCP
            assert s._client.connection_pool.connection_kwargs["socket_timeout"] == 7.0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_malformed_redis_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="malformed"):
        open_store("redis://127.0.0.1:notaport/0")
