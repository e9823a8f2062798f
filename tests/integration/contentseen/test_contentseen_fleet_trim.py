"""A fleet's log stays bounded on a real Redis: trimmed below what every live member covers, held
back by a lagging member, released by a silent one after its time; a member older than the log is
refused and joins from a copied directory; retries keep their first verdict after trims."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen, Verdict
from neardup.contentseen.fleet import Retention
from neardup.exceptions import ConfigError
from neardup.stores._url import redis_client
from neardup.stores.redislog import RedisLog

pytestmark = pytest.mark.redis

BODY = (
    "长江是中华民族的母亲河，也是中华民族发展的重要支撑。十年来，沿江省市推进生态环境整治，"
    "一江碧水向东流的美景正在重现。"
)
# the heartbeat thread sleeps through the test: keep_log is called by hand, so each step is exact
MANUAL = Retention(keep=0, member_ttl=7200, heartbeat=3600)


def _page(i: int) -> str:
    return f"第{i}篇报道。" + BODY * 2 + f"记者{i}号从现场发回消息，当地群众纷纷表示支持。" * 2


def _same(v: Verdict) -> tuple[object, ...]:
    return (v.kind, v.doc_id, v.duplicate_of, v.duplicate_url, v.similar_id)


def _copy_state(src: Path, dst: Path) -> None:
    """The documented way to seed a member: the header, then the journal (the index is derived)."""
    dst.mkdir(parents=True)
    for name in ("contentseen.json", "docs.wal"):
        shutil.copyfile(src / name, dst / name)


def test_the_log_is_trimmed_only_below_what_every_live_member_covers(redis_url: str, tmp_path: Path) -> None:
    url = f"{redis_url}?prefix=trim1"
    r = redis_client(redis_url)
    a = ContentSeen(tmp_path / "a", fleet=url, retention=MANUAL)
    b = ContentSeen(tmp_path / "b", fleet=url, retention=MANUAL)
    try:
        first = {i: a.check(f"https://a.example/{i}", text=_page(i)) for i in range(1, 11)}
        assert a.keep_log() == {"covered": 10, "first": 1}  # b joined covering 0: nothing trimmed
        assert r.xlen("trim1:log") == 10
        assert b.keep_log() == {"covered": 10, "first": 10}  # b caught up: both cover 10
        assert r.xlen("trim1:log") == 1  # the covered entry stays (a restart checks its copy against it)
        # b lags: a's next entries stay until b covers them
        for i in range(11, 16):
            a.check(f"https://a.example/{i}", text=_page(i))
        assert a.keep_log()["first"] == 10 and r.xlen("trim1:log") == 6
        # a retry of a trimmed entry is still its first verdict, on either member, appending nothing
        for m in (a, b):
            assert _same(m.check("https://a.example/1", text=_page(1))) == _same(first[1])
        assert b.keep_log() == {"covered": 15, "first": 15}
        assert RedisLog(url).last() == 15
    finally:
        a.close()
        b.close()
        r.close()


def test_a_silent_member_holds_the_log_until_its_time_then_must_copy(redis_url: str, tmp_path: Path) -> None:
    url = f"{redis_url}?prefix=trim2"
    live = ContentSeen(tmp_path / "live", fleet=url, retention=MANUAL)
    try:
        gone = ContentSeen(tmp_path / "gone", fleet=url, retention=Retention(keep=0, member_ttl=1.0))
        live.check("https://a.example/1", text=_page(1))
        gone.catch_up()
        gone.close()  # records that it holds entry 1, for member_ttl
        for i in range(2, 6):
            live.check(f"https://a.example/{i}", text=_page(i))
        assert live.keep_log()["first"] == 1  # the stopped member still holds the log back
        time.sleep(1.2)
        assert live.keep_log()["first"] == 5  # its time passed: trimmed to what the live one covers
        # the stopped member, a new empty one and a new in-memory one are each refused, one clear line
        for state in (tmp_path / "gone", tmp_path / "new", None):
            with pytest.raises(ConfigError, match="trimmed and starts at entry 5: copy a live member") as e:
                ContentSeen(state, fleet=url, retention=MANUAL)
            assert "\n" not in str(e.value)
        # a copy of the live member's directory joins, and agrees with it
        _copy_state(tmp_path / "live", tmp_path / "copy")
        with ContentSeen(tmp_path / "copy", fleet=url, retention=MANUAL) as copy:
            assert copy.stats()["fleet"]["applied"] == 5
            v = copy.check("https://b.example/6", text=_page(6))
            w = live.check("https://a.example/6", text=_page(6))
            assert (v.doc_id, w.kind, w.duplicate_url) == (6, "exact", "https://b.example/6")
            assert copy.catch_up() == live.catch_up() == 7
            assert [copy.document(n) for n in range(1, 8)] == [live.document(n) for n in range(1, 8)]
    finally:
        live.close()


def test_the_retry_map_expires_with_the_retry_window(redis_url: str) -> None:
    url = f"{redis_url}?prefix=trim3"
    r = redis_client(redis_url)
    with ContentSeen(fleet=RedisLog(url, retry_window=1.0), retention=MANUAL) as cs:
        v = cs.check("https://a.example/1", text=_page(1))
        assert 0 < r.pttl("trim3:url:https://a.example/1") <= 1000
        assert _same(cs.check("https://a.example/1", text=_page(1))) == _same(v)  # within: a retry
        time.sleep(1.1)
        assert r.exists("trim3:url:https://a.example/1") == 0
        again = cs.check("https://a.example/1", text=_page(1))  # past it: a new check of a seen page
        assert (again.doc_id, again.kind, again.duplicate_of) == (2, "exact", 1)
    r.close()


def test_entries_younger_than_the_keep_time_are_never_trimmed(redis_url: str) -> None:
    log = RedisLog(f"{redis_url}?prefix=trim4")
    log.open("settings")
    try:
        assert log.join("m", 0, ttl=60) == 1
        for i in range(4):
            log.append(b"e%d" % i, url=f"https://a.example/{i}", raw=i, ts=time.time())
        log.cover("m", 4, ttl=60)
        assert log.trim(keep=1.0) == 1  # every entry is younger than a second
        time.sleep(1.1)
        log.append(b"e4", url="https://a.example/4", raw=4, ts=time.time())
        assert log.trim(keep=1.0) == 4  # the four older ones go (down to what m covers), not the new one
        assert [n for n, _ in log.read(0, None, 10)] == [4, 5]
        assert log.join("late", 3, ttl=60) == -4 and log.members().keys() == {"m"}
    finally:
        log.close()
