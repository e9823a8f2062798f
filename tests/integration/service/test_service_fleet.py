"""A fleet of real ``neardup serve --fleet`` servers on one Redis agrees: one ``new`` per article
across the fleet, the same verdict and ``duplicate_url`` from every server, and nothing acknowledged
lost when a server is SIGKILLed mid-run (bench/bench_fleet.py runs the full size)."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

import httpx
import pytest
from fleet_pages import article_copies, interleaved
from fleet_run import check_agreement, drive
from service_proc import ServiceProcess

from neardup.stores._url import redis_client

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ARTICLES, COPIES = 30, 5


def _fleet(tmp_path: Path, redis_url: str, n: int, prefix: str) -> list[ServiceProcess]:
    fleet = f"{redis_url}?prefix={prefix}"
    return [
        ServiceProcess(
            tmp_path / f"s{i}",
            tmp_path / f"s{i}.log",
            redis=redis_url,
            extra=["--fleet", fleet, "--analysis-processes", "0", "--store-timeout", "60"],
        )
        for i in range(n)
    ]


def test_two_servers_agree_and_lose_nothing_acknowledged_when_one_is_killed(
    tmp_path: Path, redis_url: str, data_dir: Path
) -> None:
    groups = article_copies(data_dir, ARTICLES, COPIES)  # one ContentSeen: exactly ARTICLES new
    pages = interleaved(groups)
    a, b = _fleet(tmp_path, redis_url, 2, "job1")
    with a, b:

        def kill_b() -> str:
            b.stop(sig=signal.SIGKILL)
            return b.url

        run = drive([a.url, b.url], pages, clients=16, kill_at=len(pages) // 2, kill=kill_b)
        assert len(run.answers) == len(pages)  # every page answered 200, by one server or the other
        assert run.unavailable == 0  # resent only when the killed server dropped the connection
        kinds = Counter(v["kind"] for v in run.answers.values())
        assert kinds["new"] == ARTICLES, kinds
        # one new per article, and every copy in its article's cluster
        article = {p.url: p.article for p in pages}
        roots = {v["similar_id"] for v in run.answers.values()}
        assert len(roots) <= len(run.answers)
        by_root: dict[int, set[int]] = {}
        for v in run.answers.values():
            if v["kind"] in ("new", "exact", "content", "near", "contained", "supersedes"):
                by_root.setdefault(v["similar_id"], set()).add(article[v["url"]])
        assert all(len(arts) == 1 for arts in by_root.values()), by_root
        # the log holds each page once (resends after the kill were answered from their entry)
        client = redis_client(redis_url)
        try:
            assert client.xlen("job1:log") == len(pages)
        finally:
            client.close()
        # nothing acknowledged lost: the survivor knows every answered page, as it was answered
        check_agreement([a.url], pages, run, resend=False)
        # the killed server comes back, replays the log, and agrees with the survivor on every page
        b.start()
        check_agreement([a.url, b.url], pages, run)
        health = httpx.get(f"{b.url}/v1/health", timeout=30).json()
        assert health["stores"]["fleet"] == "ok" and health["status"] == "ok", health


def test_a_fleet_server_answers_503_with_a_reason_when_redis_is_gone(
    tmp_path: Path, persistent_redis: object
) -> None:
    redis = persistent_redis
    (s,) = _fleet(tmp_path, redis.url, 1, "job2")  # type: ignore[attr-defined]
    s.extra[s.extra.index("--store-timeout") + 1] = "2"
    with s:
        page = {
            "url": "https://a.example/1",
            "text": "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 3,
        }
        assert httpx.post(f"{s.url}/v1/documents/check", json=page, timeout=60).json()["kind"] == "new"
        redis.stop()  # type: ignore[attr-defined]
        r = httpx.post(f"{s.url}/v1/documents/check", json={**page, "url": "https://b.example/1"}, timeout=60)
        assert r.status_code == 503 and r.json()["error"] == "store_unavailable", r.text
        redis.start()  # type: ignore[attr-defined]  # AOF: the log is back as it was
        r = httpx.post(f"{s.url}/v1/documents/check", json={**page, "url": "https://b.example/1"}, timeout=60)
        assert r.status_code == 200 and r.json()["kind"] == "exact", r.text
