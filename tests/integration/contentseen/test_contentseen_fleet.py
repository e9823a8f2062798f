"""A ContentSeen fleet on a real Redis: members agree, a new member replays, a retry after a kill is
answered the same verdict."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from neardup.contentseen import ContentSeen, Verdict
from neardup.contentseen.fleet import LogEntry, MemoryLog
from neardup.eval.synth.classic import Editor
from neardup.eval.synth.config import SynthConfig
from neardup.eval.synth.text import paragraphs
from neardup.exceptions import ConfigError, StoreError
from neardup.stores.redislog import RedisLog

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[3]


def _texts(data_dir: Path, articles: int, copies: int) -> list[tuple[str, str]]:
    """(url, text) of ``copies`` lightly edited copies of each of ``articles`` zh-xwlb items, shuffled."""
    items = []
    with gzip.open(data_dir / "zh-xwlb.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if len(rec["text"]) >= 400:
                items.append(rec)
            if len(items) == articles:
                break
    pages = []
    for a, item in enumerate(items):
        for k in range(copies):
            ed = Editor("zh", random.Random(a * 101 + k), [item], SynthConfig(lang="zh", profile="classic"))
            paras = paragraphs(item["text"])
            if k:
                paras = ed.content(paras, [])
            pages.append((f"https://s{k}.example/{a}.html", "\n".join(paras)))
    random.Random(7).shuffle(pages)
    return pages


def _fleet_url(redis_url: str, prefix: str) -> str:
    return f"{redis_url}?prefix={prefix}"


def _same(v: Verdict) -> tuple[object, ...]:
    return (
        *(v.kind, v.doc_id, v.duplicate_of, v.duplicate_url, v.distance, v.similar_id, v.reasons),
        *(v.partner, v.partner_url),
    )


def test_two_members_give_the_verdicts_one_contentseen_gives_in_log_order(
    redis_url: str, data_dir: Path
) -> None:
    pages = _texts(data_dir, 12, 4)
    url = _fleet_url(redis_url, "t1")
    a, b = ContentSeen(fleet=url), ContentSeen(fleet=url)
    try:
        got = {}
        for i, (u, text) in enumerate(pages):
            member = a if i % 3 else b
            v = member.check(u, text=text)
            got[v.doc_id] = v
            if i % 5 == 0:  # a peek between adds changes nothing
                (b if member is a else a).check(u + "?peek", text=text, add=False)
        assert sorted(got) == list(range(1, len(pages) + 1))
        # the same pages, in the log's order, through one ContentSeen: the same verdicts
        order = [pages[[p[0] for p in pages].index(got[n].url)] for n in sorted(got)]
        with ContentSeen("memory://") as one:
            alone = [one.check(u, text=t) for u, t in order]
        assert [_same(v) for v in alone] == [_same(got[n]) for n in sorted(got)]
        assert sum(v.kind == "new" for v in alone) >= 12  # the edits stay near: mostly one new an article
        # each member answers a resend of a page the other added with the first verdict
        for v in got.values():
            text = dict(pages)[v.url]
            assert _same(a.check(v.url, text=text)) == _same(v)
            assert _same(b.check(v.url, text=text)) == _same(v)
        assert a.catch_up() == b.catch_up() == len(pages)
        assert [a.document(n) for n in got] == [b.document(n) for n in got]
    finally:
        a.close()
        b.close()


def test_a_new_member_replays_the_log_to_the_same_state(redis_url: str, data_dir: Path) -> None:
    pages = _texts(data_dir, 8, 3)
    url = _fleet_url(redis_url, "t2")
    with ContentSeen(fleet=url) as a:
        first = [a.check(u, text=t) for u, t in pages]
    with ContentSeen(fleet=url) as fresh:
        assert fresh.stats()["fleet"]["applied"] == len(pages)
        assert [_same(fresh.check(v.url or "", text=t)) for v, (_, t) in zip(first, pages, strict=True)] == [
            _same(v) for v in first
        ]
        peek = fresh.check("https://other.example/x", text=pages[0][1], add=False)
        assert peek.doc_id is None and peek.kind != "new"
        assert fresh.catch_up() == len(pages)  # the retries appended nothing


_KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from neardup.contentseen import ContentSeen
    from neardup.stores.redislog import RedisLog

    class DiesAfterAppending(RedisLog):
        def append(self, payload, **kw):
            out = super().append(payload, **kw)
            if kw["url"] == sys.argv[2]:
                os.kill(os.getpid(), signal.SIGKILL)  # in the log, never answered
            return out

    pages = [line.rstrip("\\n").split("\\t") for line in sys.stdin]
    with ContentSeen(fleet=DiesAfterAppending(sys.argv[1])) as cs:
        for u, t in pages:
            v = cs.check(u, text=t.replace("\\\\n", "\\n"))
            print(u, v.kind, v.doc_id, flush=True)
    """
)


def test_a_retry_after_the_writer_died_is_answered_the_same_verdict(
    redis_url: str, data_dir: Path, tmp_path: Path
) -> None:
    pages = _texts(data_dir, 6, 3)
    url = _fleet_url(redis_url, "t3")
    victim = pages[10][0]
    script = tmp_path / "writer.py"
    script.write_text(_KILLED_WRITER)
    stdin = "".join(f"{u}\t{t.replace(chr(10), chr(92) + 'n')}\n" for u, t in pages)
    proc = subprocess.run(
        [sys.executable, str(script), url, victim],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
        env={"PYTHONPATH": str(ROOT / "src"), "NEARDUP_COMPILE_NOTICE": "0", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == -9, proc.stderr[-2000:]
    acked = [line.split() for line in proc.stdout.splitlines()]
    assert len(acked) == 10  # every page before the victim was answered
    with ContentSeen(fleet=url) as survivor:
        assert survivor.catch_up() == 11  # the victim is in the log: acknowledged or not, it counts
        for u, kind, doc_id in acked:  # nothing acknowledged lost
            doc = survivor.document(int(doc_id))
            assert doc is not None and doc["url"] == u and doc["kind"] == kind
        expected = survivor.check(victim, text=dict(pages)[victim])  # the crawler's retry
        assert expected.doc_id == 11 and expected.url == victim
        assert survivor.catch_up() == 11  # answered from its entry, not appended again
        # after the retry window, the same page again is a new check: an exact copy of entry 11
    short = RedisLog(url, retry_window=0.0)
    with ContentSeen(fleet=short) as later:
        again = later.check(victim, text=dict(pages)[victim])
        assert (again.kind, again.doc_id, again.duplicate_of) == ("exact", 12, expected.similar_id)


def test_members_with_other_settings_or_a_lost_log_are_refused(redis_url: str, redis_server: object) -> None:
    url = _fleet_url(redis_url, "t4")
    with ContentSeen(fleet=url) as a:
        with pytest.raises(ConfigError, match="another match configuration"):
            ContentSeen(fleet=url, max_distance=3)
        a.check("https://a.example/1", text="长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 3)
        redis_server.flushall()  # type: ignore[attr-defined]  # Redis lost the log
        with pytest.raises(StoreError, match="was reset"):
            a.check("https://a.example/2", text="黄河是中华民族的母亲河，也是中华文明的摇篮。" * 3)
        with pytest.raises(StoreError, match="was reset"):
            a.check("https://a.example/3", text="黄河是中华民族的母亲河。" * 3, add=False)
    with pytest.raises(ConfigError, match="no nshash_store"):
        ContentSeen(fleet=url, nshash_store="memory://")


def test_an_unreachable_log_is_a_store_error_and_applies_nothing(free_tcp_port: int) -> None:
    with pytest.raises(StoreError, match="unreachable"):
        ContentSeen(fleet=f"redis://127.0.0.1:{free_tcp_port}/0?prefix=x", store_timeout=1.0)


def test_memory_log_members_agree_and_entries_round_trip() -> None:
    log = MemoryLog()
    a, b = ContentSeen(fleet=log), ContentSeen(fleet=log)
    text = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。十年来，沿江省市推进生态环境整治。" * 3
    va = a.check("https://a.example/1", text=text)
    vb = b.check("https://b.example/1", text=text + "记者报道。")
    assert (va.kind, vb.kind, vb.duplicate_url) == ("new", "near", "https://a.example/1")
    assert _same(a.check("https://b.example/1", text=text + "记者报道。")) == _same(vb)
    e = LogEntry("u", 1 << 63, b"\x00\x01", (1, 2), ("甲。",), 1.5)
    assert LogEntry.decode(e.encode()) == e


def test_a_member_restarts_from_its_state_directory_and_reads_only_the_new_entries(
    redis_url: str, redis_server: object, data_dir: Path, tmp_path: Path
) -> None:
    pages = _texts(data_dir, 8, 3)
    url = _fleet_url(redis_url, "t5")
    with ContentSeen(tmp_path / "a", fleet=url) as a:
        first = [a.check(u, text=t) for u, t in pages[:12]]
    with ContentSeen(fleet=url) as other:  # the fleet goes on while a is down
        later = [other.check(u, text=t) for u, t in pages[12:]]
    short = RedisLog(url)

    class Counting(RedisLog):
        read_entries = 0

        def read(self, after: int, upto: int | None, count: int) -> list[tuple[int, bytes]]:
            out = super().read(after, upto, count)
            Counting.read_entries += len(out)
            return out

    with ContentSeen(tmp_path / "a", fleet=Counting(url)) as a, ContentSeen(fleet=short) as fresh:
        assert Counting.read_entries == 1 + len(pages) - 12  # its last entry (checked), then the new ones
        assert a.stats()["fleet"]["applied"] == len(pages)
        assert [a.document(n) for n in range(1, len(pages) + 1)] == [
            fresh.document(n) for n in range(1, len(pages) + 1)
        ]
        for v in first + later:  # a resend: the first verdict's kind, cluster and duplicate_url
            again = a.check(v.url or "", text=dict(pages)[v.url or ""])
            assert _same(again)[:6] == _same(v)[:6]
    redis_server.flushall()  # type: ignore[attr-defined]  # Redis lost the log: the directory is of another
    with pytest.raises(ConfigError, match="fleet_epoch"):
        ContentSeen(tmp_path / "a", fleet=url)
