"""The fleet's log contract on the in-process log, the entry format, and the options' checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen
from neardup.contentseen.fleet import LogEntry, MemoryLog, Retention, open_log
from neardup.exceptions import ConfigError, FormatError
from neardup.service.settings import ServiceSettings

TEXT = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。十年来，沿江省市推进生态环境整治。" * 3


def test_a_memory_log_numbers_entries_and_answers_a_retry_within_its_window() -> None:
    log = MemoryLog(retry_window=10)
    log.open("s")
    assert log.append(b"a", url="u1", raw=1, ts=0.0) == (1, True)
    assert log.append(b"b", url="u2", raw=2, ts=0.0) == (2, True)
    assert log.append(b"a", url="u1", raw=1, ts=9.0) == (1, False)  # a retry
    assert log.append(b"c", url="u1", raw=3, ts=9.0) == (3, True)  # the URL's content changed
    assert log.append(b"c", url="u1", raw=3, ts=30.0) == (4, True)  # past the window: checked again
    assert log.read(1, 3, 10) == [(2, b"b"), (3, b"c")]
    assert log.read(0, None, 2) == [(1, b"a"), (2, b"b")]
    assert log.read(4, None, 10) == []
    with pytest.raises(ConfigError, match="another match configuration"):
        log.open("other")


def test_log_entries_round_trip_and_refuse_other_bytes() -> None:
    e = LogEntry("https://a.example/", 2**64 - 1, b"\x01" * 40, (3, 4), ("甲。", "乙。"), 12.5)
    assert LogEntry.decode(e.encode()) == e
    for bad in (b"", b"\xff\xff\xff\xff", e.encode()[:-3]):
        with pytest.raises(FormatError, match="not a ContentSeen log entry"):
            LogEntry.decode(bad)


def test_a_fleet_instance_numbers_documents_by_entry_and_peeks_without_adding() -> None:
    log = MemoryLog()
    with ContentSeen(fleet=log) as a, ContentSeen(fleet=log) as b:
        assert a.check("https://a.example/1", text=TEXT).doc_id == 1
        peek = b.check("https://b.example/1", text=TEXT, add=False)
        assert (peek.kind, peek.doc_id, peek.duplicate_url) == ("exact", None, "https://a.example/1")
        assert b.check("https://b.example/2", text=TEXT + "本台记者报道。").doc_id == 2
        assert a.catch_up() == b.catch_up() == 2
        assert a.document(2) == b.document(2)
        assert a.stats()["fleet"] == {"log": "memory://", "applied": 2}


def test_fleet_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="redis://host:6379/0"):
        open_log("leveldb:///tmp/x")
    with pytest.raises(ConfigError, match="no nshash_store"):
        ContentSeen(fleet=MemoryLog(), nshash_store="memory://")
    with pytest.raises(ConfigError, match="retry_window"):
        MemoryLog(retry_window=-1)
    with pytest.raises(ConfigError, match="fleet must be a redis://"):
        ServiceSettings(fleet="http://r:6379/0")
    with ContentSeen(fleet=MemoryLog()) as cs:
        assert cs.catch_up() == 0
    with ContentSeen("memory://") as plain:
        assert plain.catch_up() == 0 and plain.stats()["fleet"] is None


def test_a_memory_log_trims_below_its_live_members_and_refuses_members_older_than_it() -> None:
    log = MemoryLog()
    log.open("s")
    for i in range(5):
        log.append(b"x%d" % i, url=f"u{i}", raw=i, ts=0.0)
    assert log.join("a", 0, ttl=60) == 1 and log.join("b", 0, ttl=60) == 1
    log.cover("a", 5, ttl=60)
    assert log.trim(keep=0) == 1  # b covers nothing yet
    log.cover("b", 3, ttl=60)
    assert log.trim(keep=3600) == 1  # every entry is younger than the keep time
    assert log.trim(keep=0) == 3
    assert log.read(0, None, 10) == [(3, b"x2"), (4, b"x3"), (5, b"x4")]
    assert log.join("c", 0, ttl=60) == -3 and log.join("d", 2, ttl=60) == -3  # older than the log
    assert log.join("e", 3, ttl=60) == 3
    log.leave("b")
    log.leave("e")
    assert log.trim(keep=0) == 5
    log.cover("a", 5, ttl=0)  # a silent member stops holding the log back once its time is over
    assert log.trim(keep=0) == 5  # nobody live: nothing is known, nothing trimmed


def test_retention_and_its_serve_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="member_ttl must be between"):
        Retention(member_ttl=0)
    with pytest.raises(ConfigError, match="heartbeat must be > 0 and below member_ttl"):
        Retention(member_ttl=10, heartbeat=10)
    with pytest.raises(ConfigError, match="keep must be >= 0"):
        ServiceSettings(fleet_keep=-1)
    with pytest.raises(ConfigError, match="retention must be a Retention"):
        ContentSeen(fleet=MemoryLog(), retention=60)  # type: ignore[arg-type]


def test_a_new_in_memory_member_of_a_trimmed_log_is_refused_in_one_line() -> None:
    log = MemoryLog()
    keep = Retention(keep=0, member_ttl=3600, heartbeat=1800)
    with ContentSeen(fleet=log, retention=keep) as a:
        a.check("https://a.example/1", text=TEXT)
        a.check("https://a.example/2", text=TEXT + "本台记者报道。")
        assert a.keep_log() == {"covered": 2, "first": 2}
        with pytest.raises(
            ConfigError, match=r"^the state in memory is empty, but the shared log memory:// was trimmed"
        ):
            ContentSeen(fleet=log, retention=keep)


def test_a_verdict_rebuilt_from_the_state_directory_keeps_the_partner_and_its_url(tmp_path: Path) -> None:
    log = MemoryLog()
    pages = [
        ("https://a.example/1", TEXT),
        ("https://b.example/1", TEXT.replace("，", ",")),  # content: the same tokens
        ("https://c.example/1", TEXT.replace("，", ",")),  # exact of the second page
    ]
    with ContentSeen(tmp_path / "m", fleet=log) as cs:
        live = [cs.check(url, text=text) for url, text in pages]
    assert (live[2].duplicate_of, live[2].partner, live[2].partner_url) == (1, 2, "https://b.example/1")
    # reopened, the member answers the retries from its documents: the engine's figures are gone
    with ContentSeen(tmp_path / "m", fleet=log) as cs:
        again = [cs.check(url, text=text) for url, text in pages[1:]]
    assert "similarity" in live[1].reasons and "similarity" not in again[0].reasons
    for old, new in zip(live[1:], again, strict=True):
        assert (new.duplicate_url, new.partner, new.partner_url) == (
            old.duplicate_url,
            old.partner,
            old.partner_url,
        )
