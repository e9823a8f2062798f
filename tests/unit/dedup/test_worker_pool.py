"""Supervised worker processes: a worker that dies is replaced, its task retried once, and a task
that kills its worker twice is reported naming the item; nothing waits on a dead worker."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

import neardup.dedup.fingerprints as fpmod
from neardup._workers import WorkerDied, WorkerPool, WorkerStuck, describe_exit
from neardup.dedup.config import DedupConfig
from neardup.exceptions import ConfigError, InputError
from neardup.io import Record

pytestmark = pytest.mark.timeout(120)


def _die_on_poison(item: str) -> str:
    if item == "poison":
        os._exit(3)
    return item.upper()


def _die_once(item: str) -> str:
    marker, value = item.split("|")
    if value == "x" and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return value.upper()


def _sleep(item: float) -> float:
    time.sleep(item)
    return item


def test_a_task_that_kills_its_worker_twice_names_the_item() -> None:
    with WorkerPool(2, _die_on_poison) as pool:
        fine = pool.submit(["a", "b"])
        bad = pool.submit(["c", "d", "poison", "e"])
        assert pool.result(fine) == ["A", "B"]
        with pytest.raises(WorkerDied) as info:
            pool.result(bad)
    assert (info.value.task, info.value.item, info.value.exitcode) == (bad, 2, 3)
    assert "exited with code 3" in str(info.value)


def test_a_worker_killed_once_is_replaced_and_its_task_run_again(tmp_path: Path) -> None:
    marker = str(tmp_path / "died")
    with WorkerPool(2, _die_once) as pool:
        tasks = [pool.submit([f"{marker}|a", f"{marker}|x", f"{marker}|b"]) for _ in range(3)]
        assert [pool.result(t) for t in tasks] == [["A", "X", "B"]] * 3
        assert pool.restarts == 1
        assert pool.result(pool.submit([f"{marker}|c"])) == ["C"]  # the pool goes on


def test_a_worker_killed_from_outside_mid_task_does_not_hang_the_pool() -> None:
    with WorkerPool(2, _sleep) as pool:
        slow = pool.submit([0.3] * 4)
        other = pool.submit([0.01])
        time.sleep(0.2)
        victim = next(w for w in pool._workers if w is not None and w.task == slow)
        os.kill(victim.proc.pid, signal.SIGKILL)
        assert pool.result(slow) == [0.3] * 4  # retried on a fresh worker
        assert pool.result(other) == [0.01]
        assert pool.restarts == 1


def test_close_kills_busy_workers_instead_of_waiting_for_them() -> None:
    pool = WorkerPool(1, _sleep)
    pool.submit([60.0])
    pool._pump  # noqa: B018 - the task is on its way
    procs = [w.proc for w in pool._workers if w is not None]
    t0 = time.monotonic()
    pool.close()
    assert all(p.exitcode is not None for p in procs)
    assert time.monotonic() - t0 < 50  # not the 60 s task


def test_describe_exit_names_the_signal() -> None:
    assert describe_exit(-9).startswith("killed by SIGKILL")
    assert describe_exit(-11) == "killed by SIGSEGV"


def _crash_on_poison(item: tuple[str | None, str | None], extractor: str) -> object:
    if item[1] and "POISON" in item[1]:
        os._exit(1)
    return fpmod.read_page(item[0], item[1], extractor)


def test_dedup_names_the_record_whose_page_kills_the_extractor_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpmod, "_read_item", _crash_on_poison)
    recs = [
        Record(
            id=f"p{i}",
            text=None,
            html=f"<html><body><p>第{i}页的正文内容。</p></body></html>",
            source="pages.jsonl",
            line=i + 1,
        )
        for i in range(40)
    ]
    recs[23].html = "<html><body><p>POISON</p></body></html>"
    cfg = DedupConfig(workers=2, chunk_size=16)
    with pytest.raises(InputError) as info:
        fpmod.fingerprint_records(iter(recs), cfg)
    msg = str(info.value)
    assert msg.startswith("pages.jsonl:24: record 'p23'"), msg
    assert "died on it twice (exited with code 1)" in msg


def test_a_worker_stuck_on_one_item_is_killed_at_the_deadline_and_names_it() -> None:
    # a real stuck worker: alive, sleeping far past the deadline on item 1 of its task (the deadline
    # leaves the other items, and a worker's start on a loaded machine, a hundred times their time)
    with WorkerPool(2, _sleep, deadline=5.0) as pool:
        stuck = pool.submit([0.01, 3600.0, 0.01])
        fine = pool.submit([0.01, 0.01])
        t0 = time.monotonic()
        with pytest.raises(WorkerStuck) as info:
            pool.result(stuck)
        assert time.monotonic() - t0 < 60  # the deadline, not the hour
        assert (info.value.task, info.value.item) == (stuck, 1)
        assert pool.result(fine) == [0.01, 0.01]  # the other task is not lost
        assert pool.result(pool.submit([0.02])) == [0.02]  # a fresh worker took the stuck one's place
        assert pool.restarts == 1


def test_items_that_each_finish_within_the_deadline_are_never_stuck() -> None:
    # the deadline is per item, not per task: 60 items of 0.05 s pass a 2 s deadline
    with WorkerPool(1, _sleep, deadline=2.0) as pool:
        assert pool.result(pool.submit([0.05] * 60)) == [0.05] * 60
        assert pool.restarts == 0


def _stall_on_poison(item: tuple[str | None, str | None], extractor: str) -> object:
    if item[1] and "STALL" in item[1]:
        time.sleep(3600)
    return fpmod.read_page(item[0], item[1], extractor)


def test_dedup_names_the_record_a_worker_is_stuck_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpmod, "_read_item", _stall_on_poison)
    recs = [
        Record(
            id=f"p{i}",
            text=None,
            html=f"<html><body><p>第{i}页的正文内容。</p></body></html>",
            source="pages.jsonl",
            line=i + 1,
        )
        for i in range(40)
    ]
    recs[17].html = "<html><body><p>STALL</p></body></html>"
    cfg = DedupConfig(workers=2, chunk_size=16, record_timeout=5.0)
    t0 = time.monotonic()
    with pytest.raises(InputError) as info:
        fpmod.fingerprint_records(iter(recs), cfg)
    assert time.monotonic() - t0 < 60
    msg = str(info.value)
    assert msg.startswith("pages.jsonl:18: record 'p17'"), msg
    assert "took over 5 s (the per-record deadline, --record-timeout)" in msg


def test_record_timeout_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="record_timeout must be > 0"):
        DedupConfig(record_timeout=0)


def _die_on_poison_slice(items: list[tuple[str | None, str | None]], config: object) -> object:
    if any(text and "POISON" in text for text, _ in items):
        os._exit(1)
    return fpmod.prepare_pages(items, config)[0].sign(threads=1)


def test_dedup_names_the_records_whose_signing_kills_the_worker_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fpmod, "_sign_slice", _die_on_poison_slice)
    monkeypatch.setattr(fpmod, "SIGN_IN_WORKERS_FROM", 1)
    recs = [
        Record(id=f"t{i}", text=f"第{i}篇文章的正文内容。", source="texts.jsonl", line=i + 1)
        for i in range(40)
    ]
    recs[23].text = "POISON"
    cfg = DedupConfig(workers=2, chunk_size=16)  # chunk 16-31 in two slices: 16-23, 24-31
    with pytest.raises(InputError) as info:
        fpmod.fingerprint_records(iter(recs), cfg)
    msg = str(info.value)
    assert msg.startswith("texts.jsonl:17: records 't16' to 't23': the process signing them died twice"), msg
    assert "(exited with code 1); give the run more memory, or pass --workers 1" in msg
