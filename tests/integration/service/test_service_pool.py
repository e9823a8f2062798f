"""The service's page-analysis worker pool (real spawned processes) and its group commit."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from service_pages import page, page_url, read_items

from neardup.exceptions import AnalysisTimeout, InputError, StoreError
from neardup.service.backend import StateBackend
from neardup.service.pool import GroupSync
from neardup.service.settings import ServiceSettings

pytestmark = pytest.mark.timeout(300)


def test_group_sync_answers_each_writer_after_a_sync_that_covers_it() -> None:
    written = 0  # appends so far
    synced = 0  # appends covered by the last completed fsync
    calls = 0

    def fsync() -> None:
        nonlocal synced, calls
        upto = written  # an fsync covers what was written before it began
        time.sleep(0.005)
        synced = upto
        calls += 1

    async def main() -> None:
        group = GroupSync(fsync)

        async def writer(i: int) -> None:
            nonlocal written
            await asyncio.sleep(i % 7 * 0.001)
            written += 1
            mine = written
            await group.wait()
            assert synced >= mine, (mine, synced)

        await asyncio.gather(*(writer(i) for i in range(200)))

    asyncio.run(main())
    assert 1 <= calls < 200  # writers shared fsyncs


def test_group_sync_passes_an_fsync_failure_to_its_waiters() -> None:
    def fsync() -> None:
        raise StoreError("disk full")

    async def main() -> None:
        group = GroupSync(fsync)
        results = await asyncio.gather(group.wait(), group.wait(), return_exceptions=True)
        assert all(isinstance(r, StoreError) for r in results)

    asyncio.run(main())


def test_pool_analyses_pages_and_survives_a_killed_worker(tmp_path: Path, data_dir: Path) -> None:
    items = read_items(data_dir, 4)
    be = StateBackend(ServiceSettings(state=tmp_path / "state", analysis_processes=1))
    try:
        pool = be.pool
        assert pool is not None

        async def check(i: int, site: int) -> dict[str, object]:
            return await be.acheck_document(page_url(items[i], site), page(items[i], site), None, True)

        async def scenario() -> None:
            assert (await check(0, 0))["kind"] == "new"
            assert (await check(0, 1))["kind"] == "content"
            # kill the worker (idle): the pool notices, and while a new worker starts, pages are
            # analysed in the server process
            os.kill(pool.workers[0].pid, signal.SIGKILL)
            for _ in range(600):
                if not pool.workers[0].alive:
                    break
                await asyncio.sleep(0.05)
            assert pool.alive() == 0 and (await be.health())["degraded"] is True
            assert (await check(1, 0))["kind"] == "new"
            for _ in range(600):
                if pool.restarts == 1:
                    break
                await asyncio.sleep(0.1)
            assert pool.restarts == 1 and pool.workers[0].alive
            assert (await check(2, 0))["kind"] == "new"
            assert (await check(2, 2))["kind"] == "content"
            # a worker killed while it holds a page: that page fails (503, nothing added)
            task = asyncio.create_task(pool.analyse(None, "长江" * 2_000_000))
            for _ in range(600):
                if pool.busy() == 1 and not pool.workers[0]._out:  # all of it in the worker's hands
                    break
                await asyncio.sleep(0.01)
            os.kill(pool.workers[0].pid, signal.SIGKILL)
            with pytest.raises(StoreError, match="worker process died"):
                await task
            for _ in range(1200):
                if pool.restarts == 2:
                    break
                await asyncio.sleep(0.1)
            assert pool.restarts == 2
            # the worker's own errors come back as what they are
            with pytest.raises(InputError, match="html or its text"):
                await pool.analyse(None, None)

        asyncio.run(scenario())
        # a new event loop (as in a second test client) is picked up
        assert asyncio.run(check(3, 0))["kind"] == "new"
        workers = [w.proc for w in pool.workers]
        assert len(be.contentseen) == 6
    finally:
        be.close()
    assert workers and not any(p.is_alive() for p in workers)


def test_a_page_past_its_deadline_costs_no_other_page_its_answer_and_health_says_degraded(
    tmp_path: Path, data_dir: Path
) -> None:
    items = read_items(data_dir, 3)
    # within the budget (no depth limit) but minutes of extraction: the worker's deadline stops it
    slow = "<html><body>" + "<div>" * 90_000 + "<p>" + items[0]["text"] + "</body></html>"
    settings = ServiceSettings(
        state=tmp_path / "state", analysis_processes=1, analysis_timeout=1.0, max_html_depth=0
    )
    be = StateBackend(settings)
    try:
        pool = be.pool
        assert pool is not None

        async def scenario() -> None:
            assert (await be.health())["degraded"] is False
            stuck = asyncio.create_task(be.acheck_document("https://evil.example/slow", slow, None, False))
            await asyncio.sleep(0)  # the slow page takes the only worker
            innocent = [
                asyncio.create_task(be.acheck_document(page_url(items[i], 0), page(items[i], 0), None, True))
                for i in (1, 2)
            ]
            await asyncio.sleep(0)
            assert pool.busy() == 1 and pool.queued() == 2  # they wait for the worker, not in its pipe
            with pytest.raises(AnalysisTimeout):
                await stuck
            # its worker was killed; a new one is starting: fewer workers alive than configured
            health = await be.health()
            assert health["degraded"] is True and health["analysis"]["alive"] == 0, health
            # the pages queued behind it get their answers all the same
            assert [(await t)["kind"] for t in innocent] == ["new", "new"]
            for _ in range(1200):  # bounded: until the new worker is up
                if pool.restarts == 1:
                    break
                await asyncio.sleep(0.1)
            assert pool.restarts == 1 and pool.recycled == 1
            health = await be.health()
            assert health["degraded"] is False and health["analysis"]["alive"] == 1, health
            assert (await be.acheck_document(page_url(items[1], 1), page(items[1], 1), None, True))[
                "kind"
            ] == "content"

        asyncio.run(scenario())
    finally:
        be.close()
