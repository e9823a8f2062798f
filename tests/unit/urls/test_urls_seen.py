"""SeenURLs on the embedded backends (memory, sqlite, memory Bloom): contract, both expiries, bad input."""

from __future__ import annotations

import multiprocessing as mp
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.exceptions import ConfigError, InputError, StoreError
from neardup.urls import SeenURLs, url_hashes
from neardup.urls.bloom import BloomParams
from neardup.urls.memory import MemorySeenStore
from neardup.urls.seen import JobClock


class Clock:
    def __init__(self, t: float = 1_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return "memory://" if request.param == "memory" else f"sqlite://{tmp_path / 'seen.db'}"


def test_urls_check_and_add_new_then_seen(store: str) -> None:
    with SeenURLs(108, store) as seen:
        assert seen.check_and_add("https://example.com/a?utm_source=x") is True
        assert seen.check_and_add("https://EXAMPLE.com:443/a#top") is False
        assert seen.check_and_add_many(
            ["https://example.com/b", "https://example.com/b", "https://example.com/a"]
        ) == [True, False, False]
        assert seen.stats()["urls"] == 2


def test_urls_jobs_are_separate(store: str) -> None:
    a, b = SeenURLs(1, store), SeenURLs(2, store)
    assert a.check_and_add("https://x.com/1") and b.check_and_add("https://x.com/1")
    a.close()
    b.close()


def test_urls_forget_and_forget_job(store: str) -> None:
    with SeenURLs("j", store) as seen:
        seen.check_and_add_many([f"https://x.com/{i}" for i in range(100)])
        assert seen.forget("https://x.com/5") is True
        assert seen.forget("https://x.com/5") is False
        assert seen.check_and_add("https://x.com/5") is True
        assert seen.check_and_add("https://x.com/6") is False
        seen.forget_job()
        assert seen.stats()["urls"] == 0
        assert seen.check_and_add("https://x.com/6") is True


def test_urls_recrawl_after_per_url(store: str) -> None:
    clock = Clock()
    with SeenURLs(7, store, recrawl_after=60, clock=clock) as seen:
        assert seen.check_and_add("https://x.com/a")
        clock.t += 30
        assert seen.check_and_add("https://x.com/b")
        assert not seen.check_and_add("https://x.com/a")
        clock.t += 30  # a: 60 s since its fetch -> due; b: 30 s -> not due
        assert seen.check_and_add_many(["https://x.com/a", "https://x.com/b", "https://x.com/a"]) == [
            True,
            False,
            False,
        ]
        clock.t += 59  # a was re-fetched 59 s ago
        assert not seen.check_and_add("https://x.com/a")
        assert seen.check_and_add("https://x.com/b")  # 89 s


def test_urls_job_ttl_expires_the_whole_set(store: str) -> None:
    clock = Clock()
    with SeenURLs(9, store, ttl=3600, clock=clock) as seen:
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/2"]) == [True, True]
        clock.t += 3599
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/3"]) == [False, True]
        stats = seen.stats()
        assert stats["expires_at"] == 1000 + 3600 and stats["urls"] == 3
        clock.t += 1  # the job expires; the next check starts it afresh
        assert seen.check_and_add_many(["https://x.com/1", "https://x.com/1"]) == [True, False]
        assert seen.stats()["urls"] == 1
        assert seen.stats()["created"] == 4600


def test_urls_both_expiries_together(store: str) -> None:
    clock = Clock()
    with SeenURLs(10, store, ttl=100, recrawl_after=10, clock=clock) as seen:
        assert seen.check_and_add("https://x.com/1")
        clock.t += 10
        assert seen.check_and_add("https://x.com/1")  # recrawl window
        clock.t += 5
        assert not seen.check_and_add("https://x.com/1")
        clock.t += 85  # ttl
        assert seen.check_and_add("https://x.com/1")


def test_urls_invalid_raise_lists_bad_entries_and_records_nothing(store: str) -> None:
    with SeenURLs(1, store) as seen:
        with pytest.raises(
            InputError, match=r"2 of 4 URLs are invalid.*#1: .*no scheme.*#3: .*space"
        ) as info:
            seen.check_and_add_many(["https://a.com/1", "a.com/2", "https://a.com/3", "http://a b.com/"])
        assert [i for i, _, _ in info.value.invalid] == [1, 3]  # type: ignore[attr-defined]
        assert seen.stats()["urls"] == 0
        assert seen.check_and_add("https://a.com/1")


def test_urls_invalid_skip_gives_false_and_counts(store: str) -> None:
    with SeenURLs(1, store, on_invalid="skip") as seen:
        flags = seen.check_and_add_many(
            [
                "https://a.com/1",
                "a.com/2",
                None,
                "https://a.com/1",
                "https://xn--zz--.com/",
                "https://a.com/" + "x" * 9000,
            ]
        )  # type: ignore[list-item]
        assert flags == [True, False, False, False, False, False]
        assert seen.stats()["invalid"] == 4
        assert seen.check_and_add("mailto:x@y.z") is False


def test_urls_no_canonicalize_hashes_as_given() -> None:
    seen = SeenURLs(1, canonicalize=False)
    assert seen.check_and_add_many(["https://A.com/", "https://a.com/"]) == [True, True]
    custom = SeenURLs(1, canonicalize=str.lower)
    assert custom.check_and_add_many(["https://A.com/", "https://a.com/"]) == [True, False]


def test_urls_drop_params_per_job() -> None:
    seen = SeenURLs(1, drop_params={"page"})
    assert seen.check_and_add_many(
        ["https://a.com/l?page=1", "https://a.com/l?page=2", "https://a.com/l?utm_source=x"]
    ) == [True, False, True]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"job_id": "a:b"}, "job_id"),
        ({"job_id": ""}, "job_id"),
        ({"job_id": "108\n"}, "job_id"),  # a trailing newline is not a job id (a `$` anchor would accept it)
        ({"job_id": "a" * 201}, "job_id"),
        ({"job_id": 1.5}, "job_id"),
        ({"recrawl_after": -1}, "recrawl_after"),
        ({"ttl": 0}, "ttl"),
        ({"ttl": "soon"}, "ttl"),
        ({"store": "foo://x"}, "valid schemes"),
        ({"bloom": 2}, "bloom"),
        ({"bloom": 0.01, "recrawl_after": 5}, "exact mode"),
        ({"on_invalid": "ignore"}, "on_invalid"),
        ({"batch_size": 0}, "batch_size"),
        ({"store": "memory://?ttl=5", "ttl": 6}, "give it once"),
        ({"canonicalize": "yes"}, "canonicalize"),
        ({"drop_params": "utm_source"}, "collection"),
    ],
)
def test_urls_bad_settings_raise_config_error(kwargs: dict[str, object], match: str) -> None:
    args = {"job_id": 1, **kwargs}
    with pytest.raises(ConfigError, match=match):
        SeenURLs(**args)  # type: ignore[arg-type]


def test_urls_settings_from_the_store_url(tmp_path: Path) -> None:
    seen = SeenURLs(1, f"sqlite://{tmp_path / 's.db'}?recrawl_after=60&ttl=3600")
    assert (seen.recrawl_after, seen.ttl) == (60.0, 3600.0)
    bare = SeenURLs(1, str(tmp_path / "bare.db"))  # a bare path is sqlite
    assert bare.stats()["backend"] == "sqlite"


def test_urls_closed_store_raises_store_error() -> None:
    seen = SeenURLs(1)
    seen.close()
    seen.close()
    with pytest.raises(StoreError, match="closed"):
        seen.check_and_add("https://a.com/")


def test_urls_sqlite_persists_across_reopen(tmp_path: Path) -> None:
    path = f"sqlite://{tmp_path / 'p.db'}"
    with SeenURLs(5, path) as seen:
        seen.check_and_add_many([f"https://a.com/{i}" for i in range(1000)])
    with SeenURLs(5, path) as seen:
        assert not any(seen.check_and_add_many([f"https://a.com/{i}" for i in range(1000)]))
        assert seen.stats()["urls"] == 1000


def test_urls_sqlite_file_made_with_4k_pages_keeps_them_and_its_urls(tmp_path: Path) -> None:
    """Files written before 1 KiB pages (SQLite's default 4 KiB) reopen as they are."""
    import sqlite3

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA page_size=4096")
        conn.execute("VACUUM")
    with SeenURLs(5, str(path)) as seen:
        seen.check_and_add_many([f"https://a.com/{i}" for i in range(500)])
    with SeenURLs(5, str(path)) as seen:
        assert not any(seen.check_and_add_many([f"https://a.com/{i}" for i in range(500)]))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    new = tmp_path / "new.db"
    SeenURLs(5, str(new)).close()
    with sqlite3.connect(new) as conn:
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 1024


def test_urls_sqlite_other_version_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "v.db"
    SeenURLs(1, str(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE neardup_urls_meta SET value='99' WHERE key='version'")
    from neardup.exceptions import FormatError

    with pytest.raises(FormatError, match="version 99"):
        SeenURLs(1, str(path))


def test_urls_sqlite_ttl_mismatch_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "t.db")
    with SeenURLs(1, path, ttl=60) as seen:
        seen.check_and_add("https://a.com/")
    with SeenURLs(1, path, ttl=120) as seen, pytest.raises(ConfigError, match="ttl=60"):
        seen.check_and_add("https://a.com/")


def test_urls_sqlite_missing_directory_is_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        SeenURLs(1, str(tmp_path / "nope" / "s.db"))


def _worker(path: str, start: int, q: mp.Queue) -> None:  # type: ignore[type-arg]
    with SeenURLs("shared", path) as seen:
        flags = []
        for i in range(0, 2000, 100):
            flags += seen.check_and_add_many([f"https://a.com/{j}" for j in range(i, i + 100)])
    q.put(sum(flags))


def test_urls_sqlite_is_atomic_across_processes(tmp_path: Path) -> None:
    """Two processes add the same 2,000 URLs: each URL is new for exactly one of them."""
    path = str(tmp_path / "mp.db")
    SeenURLs("shared", path).close()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(path, k, q)) for k in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert sum(q.get(timeout=5) for _ in procs) == 2000


def test_urls_pickle_round_trip(tmp_path: Path) -> None:
    for store in ("memory://", f"sqlite://{tmp_path / 'k.db'}"):
        seen = SeenURLs(3, store, recrawl_after=60)
        seen.check_and_add("https://a.com/1")
        clone = pickle.loads(pickle.dumps(seen))
        assert clone.check_and_add("https://a.com/1") is False
        assert clone.check_and_add("https://a.com/2") is True


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 300), max_size=60), max_size=8),
    st.lists(st.integers(0, 300), max_size=20),
)
def test_urls_memory_table_matches_a_python_set(batches: list[list[int]], forgets: list[int]) -> None:
    store = MemorySeenStore(JobClock(), initial_capacity=16)  # tiny: forces growth
    model: set[int] = set()
    for k, batch in enumerate(batches):
        hashes = (
            np.array(batch, dtype=np.uint64) * np.uint64(0x9E3779B1) % np.uint64(64)
        )  # many probe collisions
        flags = store.check_and_add(hashes, 0.0).tolist()
        expect = []
        for h in hashes.tolist():
            expect.append(h not in model)
            model.add(h)
        assert flags == expect
        if k < len(forgets):
            h = forgets[k] * 0x9E3779B1 % 64
            assert store.forget(np.array([h], dtype=np.uint64), 0.0) == (h in model)
            model.discard(h)
    assert store.info(0.0).urls == len(model)
    probe = np.arange(64, dtype=np.uint64)
    assert store.contains(probe, 0.0).tolist() == [h in model for h in range(64)]


def test_urls_hash_zero_is_a_normal_key() -> None:
    store = MemorySeenStore(JobClock())
    assert store.check_and_add(np.array([0, 0], dtype=np.uint64), 0.0).tolist() == [True, False]


def test_urls_memory_many_urls_all_found() -> None:
    seen = SeenURLs(1, canonicalize=False)
    urls = [f"https://s{i % 97}.com/p/{i}" for i in range(50_000)]
    assert all(seen.check_and_add_many(urls))
    assert not any(seen.check_and_add_many(urls))
    assert seen.stats()["urls"] == 50_000


def test_urls_url_hashes_are_stable_xxh3() -> None:
    import xxhash

    assert int(url_hashes(["https://example.com/"])[0]) == xxhash.xxh3_64_intdigest(b"https://example.com/")
    a = url_hashes(["https://example.com/", "https://例子.测试/"])
    b = url_hashes(["https://example.com/", "https://例子.测试/"])
    assert a.dtype == np.uint64 and (a == b).all() and a[0] != a[1]


def test_urls_bloom_memory_mode() -> None:
    seen = SeenURLs(1, "memory://?bloom=0.01&capacity=40000", canonicalize=False)
    urls = [f"https://a.com/{i}" for i in range(20_000)]
    assert sum(seen.check_and_add_many(urls)) >= 20_000 * 0.98  # false positives allowed, ~1%
    assert not any(seen.check_and_add_many(urls))  # never a false negative
    others = [f"https://b.com/{i}" for i in range(20_000)]
    fp = 1 - sum(seen.check_and_add_many(others)) / 20_000
    assert fp < 0.015  # ~1% at capacity
    stats = seen.stats()
    assert stats["mode"] == "bloom" and stats["bloom_k"] == 7
    with pytest.raises(ConfigError, match="Bloom"):
        seen.forget("https://a.com/1")


def test_urls_bloom_sqlite_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="memory:// and redis://"):
        SeenURLs(1, str(tmp_path / "b.db"), bloom=0.01)


def test_urls_bloom_params_follow_the_formula() -> None:
    p = BloomParams(1_000_000, 0.001)
    assert p.k == 10 and abs(p.m / 1e6 - 14.38) < 0.01
    assert abs(p.fp_rate(1_000_000) - 0.001) < 0.0002
    big = BloomParams(3_000_000_000, 0.001)
    assert big.shards > 1 and big.shard_bits <= 2**31


def _v1_file(path: Path, job: str, urls: list[str], stamp: int = 1_000) -> None:
    """A seen-store as version 1 wrote it: one (job, h, ts) row per URL."""
    import sqlite3

    from neardup.urls.canonical import canonical_hashes
    from neardup.urls.sqlite import _META, _SCHEMA_V1

    with sqlite3.connect(path) as conn:
        conn.executescript(_META + "INSERT INTO neardup_urls_meta VALUES ('version', '1');" + _SCHEMA_V1)
        conn.execute("INSERT INTO jobs(id, name, created, ttl) VALUES (1, ?, 0, NULL)", (job,))
        hashes = canonical_hashes(urls)[0].view(np.int64).tolist()
        conn.executemany("INSERT INTO seen VALUES (1, ?, ?)", [(h, stamp) for h in hashes])


def test_urls_sqlite_version_1_files_stay_readable_and_migrate(tmp_path: Path) -> None:
    from neardup.urls.sqlite import migrate_v1

    path = tmp_path / "v1.db"
    old = [f"https://a.com/{i}" for i in range(300)]
    _v1_file(path, "j", old)
    with SeenURLs("j", str(path)) as seen:
        assert seen.stats()["format_version"] == 1
        assert not any(seen.check_and_add_many(old))
        assert seen.check_and_add_many(["https://a.com/new", "https://a.com/1"]) == [True, False]
        assert seen.forget("https://a.com/2")
    assert migrate_v1(path) == 300  # 300 old - 1 forgotten + 1 new
    assert migrate_v1(path) == 0  # already version 2
    with SeenURLs("j", str(path), recrawl_after=60, clock=lambda: 1_030.0) as seen:
        assert seen.stats()["format_version"] == 2
        assert seen.stats()["urls"] == 300
        assert seen.check_and_add_many(["https://a.com/2", "https://a.com/3", "https://a.com/new"]) == [
            True,
            False,
            False,
        ]
    with SeenURLs("j", str(path), recrawl_after=60, clock=lambda: 1_061.0) as seen:
        assert seen.check_and_add("https://a.com/3")  # its migrated fetch second (1,000) is kept


def test_urls_sqlite_v2_appends_one_row_per_batch_and_none_when_all_seen(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "log.db"
    urls = [f"https://a.com/{i}" for i in range(5000)]
    with SeenURLs("j", str(path), batch_size=1000) as seen:
        seen.check_and_add_many(urls)
        seen.check_and_add_many(urls)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*), SUM(length(hashes)) FROM log").fetchone() == (5, 5000 * 8)


def test_urls_sqlite_two_handles_see_each_others_adds_forgets_and_restarts(tmp_path: Path) -> None:
    path = str(tmp_path / "two.db")
    now = [0.0]
    a = SeenURLs("j", path, ttl=100, clock=lambda: now[0])
    b = SeenURLs("j", path, ttl=100, clock=lambda: now[0])
    assert a.check_and_add_many(["https://a.com/1", "https://a.com/2"]) == [True, True]
    assert b.check_and_add_many(["https://a.com/2", "https://a.com/3"]) == [False, True]
    assert b.forget("https://a.com/1")
    assert a.check_and_add("https://a.com/1") is True
    assert a.stats()["urls"] == b.stats()["urls"] == 3
    now[0] = 150.0  # past the job's ttl: the first to check starts the job afresh, for both
    assert b.check_and_add("https://a.com/3") is True
    assert a.check_and_add_many(["https://a.com/3", "https://a.com/2"]) == [False, True]
    b.forget_job()
    assert a.check_and_add("https://a.com/3") is True
    a.close()
    b.close()


def test_redis_refusing_the_connection_fails_at_once_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("redis")
    from tests.conftest import free_port

    import neardup.urls.redis as redis_store

    slept: list[float] = []
    monkeypatch.setattr(redis_store.time, "sleep", slept.append)
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with pytest.raises(StoreError, match=r"Redis at redis://127\.0\.0\.1:\d+/0 is unreachable .*running"):
        SeenURLs("job", url)
    assert slept == []  # no retry loop before the first answer
